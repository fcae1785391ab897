//! Swept tests: the first moment two moving shapes touch during a step, so
//! that fast small shapes cannot pass through thin ones between detections
//! (tunnelling).
//!
//! See [`time_of_impact`] for how exact each pair of shapes is.

use bevy::math::{Dir2, Isometry2d, Vec2};
use bevy::shape::Aabb2d;

use crate::geometry::contact::Contact;
use crate::geometry::convex;
use crate::geometry::convex::cores::{Core, reach};
use crate::geometry::pairs::circle_circle::circle_circle_contact;
use crate::geometry::pairs::circle_rect::circle_rect_contact;
use crate::geometry::pairs::rect_rect::{rect_rect_contact, rect_rect_separations};
use crate::geometry::query::dispatch::{PairOp, dispatch};
use crate::geometry::query::ghost_rule::{ghost_contact, stricter_contact};
use crate::geometry::query::sweep::{PartSweep, Sweep};
use crate::geometry::shape::Shape;
use crate::geometry::shape::checked::validate_pose;
use crate::geometry::shape::polyline::ChainSegment;
use crate::geometry::shape::view::{ConvexRef, Placed, ShapeView};

/// A rotating rectangle's step is cut so that it turns at most this much
/// (radians) per sub-step; the circle is grown by at most
/// `half_diagonal * MAX_SUBSTEP_ANGLE / 2` in a sub-step.
pub const MAX_SUBSTEP_ANGLE: f32 = 0.05;

/// Sub-steps of a rotating rectangle are capped at this many per step (a
/// rectangle turning half a turn per step).
const MAX_SUBSTEPS: u32 = 64;

/// Conservative advancement stops after this many advances; only shapes that
/// spin fast while barely closing in need that many.
const MAX_ADVANCES: u32 = 256;

/// The same for the conservative advancement of capsules, segments and
/// polygons, whose turning bound is looser (every core point may be the
/// farthest from the centre); past it, the touch is reported early rather
/// than missed.
const MAX_CONVEX_ADVANCES: u32 = 2048;

/// The first touch of two moving shapes, as [`time_of_impact`] finds it:
/// the contact at that moment, and when in the step it happens.
///
/// The contact is pure geometry and knows no step; the time travels beside
/// it (in detection, on [`ContactPair::time_of_impact`](crate::ContactPair::time_of_impact)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Impact {
    /// The contact at the moment of first touch, seen from the first shape
    /// (the normal points towards the second): `depth` 0, `point` where
    /// they meet; for shapes that overlap at the start, their contact
    /// there.
    pub contact: Contact,
    /// When they touch, as a fraction of the step from `0` (the start
    /// poses) to `1` (the end poses).
    pub time: f32,
}

impl Impact {
    /// The same impact seen from the second shape: the contact flipped, the
    /// time unchanged.
    #[inline]
    #[must_use]
    pub fn flipped(self) -> Self {
        Self {
            contact: self.contact.flipped(),
            time: self.time,
        }
    }
}

/// The first contact of `a` moving along `sweep_a` with `b` moving along
/// `sweep_b` during the step, seen from `a` (the normal points towards `b`),
/// beside the time when it happens ([`Impact`]); `None` when they never
/// touch during the step.
///
/// Shapes touching at the start give their ordinary contact there, with a
/// time of impact of 0.
///
/// A [`Sweep`] moves a shape from its start pose to its end pose over the
/// step `t = 0..=1`: its centre along the straight line, its rotation by the
/// shortest angle at a constant rate. A compound turns as one rigid body
/// about its origin: a part off the origin follows the arc of the turn.
///
/// - Circle vs circle: exact. The centre of one, seen from the other, moves
///   along a segment, and they touch when it enters the disc of the summed
///   radii.
/// - Circle vs rectangle: exact while the rectangle does not rotate. The
///   circle's centre, seen from the rectangle, moves along a segment, and they
///   touch when it enters the rectangle grown by the radius (a rounded
///   rectangle: the "capsule" the moving circle sweeps, seen from the other
///   side). A rotating rectangle is handled conservatively: the step is cut
///   into sub-steps of at most [`MAX_SUBSTEP_ANGLE`], and in each the
///   rectangle is held at its middle angle while the circle is grown by the
///   farthest any point of the rectangle moves from that angle. The hit is
///   then never missed, and is reported early by about a sub-step at most.
/// - Every pair with a capsule, a segment or a polygon, and every part of
///   a turning compound off its origin: conservative advancement, as for
///   two rectangles below, over the separating axes of the two shapes and
///   the line between their closest points.
/// - Rectangle vs rectangle: conservative advancement. The gap along the
///   best separating axis is a lower bound of their distance, and no point of
///   either moves faster than its translation plus its rotation times its
///   half diagonal, so time can safely advance by gap / speed until they
///   touch. They never pass through each other; the time is found to within
///   a small distance tolerance (when the advances run out, a long
///   rectangle spinning fast while barely closing in, the touch is reported
///   where they are: early rather than missed).
///
/// `None` too for an invalid shape or a pose that is not finite or whose
/// rotation is not unit length ([`validate_pose`](crate::geometry::validate_pose)),
/// at either end of either sweep.
pub fn time_of_impact(a: &Shape, sweep_a: Sweep, b: &Shape, sweep_b: Sweep) -> Option<Impact> {
    Placed::pair((a.view(), sweep_a.start), (b.view(), sweep_b.start)).ok()?;
    validate_pose(sweep_a.end).ok()?;
    validate_pose(sweep_b.end).ok()?;
    time_of_impact_of(a.view(), sweep_a, b.view(), sweep_b)
}

/// [`time_of_impact`] for shapes seen by reference.
pub(crate) fn time_of_impact_of(
    a: ShapeView<'_>,
    sweep_a: Sweep,
    b: ShapeView<'_>,
    sweep_b: Sweep,
) -> Option<Impact> {
    if let Some(contact) = a.contact(sweep_a.start, b, sweep_b.start) {
        return Some(Impact { contact, time: 0.0 });
    }
    time_of_impact_from_apart(a, sweep_a, b, sweep_b)
}

/// [`time_of_impact`] for shapes known to be apart at the start.
pub(crate) fn time_of_impact_from_apart(
    a: ShapeView<'_>,
    sweep_a: Sweep,
    b: ShapeView<'_>,
    sweep_b: Sweep,
) -> Option<Impact> {
    let (sweep_a, sweep_b) = (PartSweep::whole(sweep_a), PartSweep::whole(sweep_b));
    dispatch(TimeOfImpactOp, a, sweep_a, b, sweep_b)
}

/// Conservative advancement for any two shapes: at each step, every gap
/// along a fixed direction ([`convex::for_each_gap`]) divided by how fast it
/// can close (the relative translation along it plus what turning adds) is
/// time that can safely pass; the best one counts. Never past the touch;
/// when the advances run out (shapes spinning while barely closing in), the
/// touch is reported where they are, early rather than missed.
///
/// A part of a turning compound turns about the compound's origin: its
/// points move at most the origin's translation plus the turn times their
/// distance from that origin (the part's arm plus its own reach).
pub(in crate::geometry) fn convex_time_of_impact(
    a: ConvexRef<'_>,
    sweep_a: PartSweep,
    b: ConvexRef<'_>,
    sweep_b: PartSweep,
) -> Option<Impact> {
    let (angle_a, angle_b) = (sweep_a.angle(), sweep_b.angle());
    let relative = sweep_a.body.displacement() - sweep_b.body.displacement();
    let turning =
        angle_a.abs() * (sweep_a.arm() + reach(a)) + angle_b.abs() * (sweep_b.arm() + reach(b));
    let extent = [
        sweep_a.at(0.0),
        sweep_a.at(1.0),
        sweep_b.at(0.0),
        sweep_b.at(1.0),
    ]
    .iter()
    .map(|pose| pose.translation.abs().max_element())
    .sum::<f32>();
    let size = a.bounding_radius().max(b.bounding_radius());
    let tolerance = (1e-5 * size).max(extent * 1e-6);
    let mut t = 0.0;
    for _ in 0..MAX_CONVEX_ADVANCES {
        let (pa, pb) = (sweep_a.at_angle(angle_a, t), sweep_b.at_angle(angle_b, t));
        let (core_a, core_b) = (Core::new(a, pa), Core::new(b, pb));
        let (mut gap, mut advance) = (f32::NEG_INFINITY, 0.0f32);
        let mut closes = true;
        convex::for_each_gap(&core_a, &core_b, |g, direction| {
            gap = gap.max(g);
            if g > 0.0 {
                let closing = relative.dot(direction).abs() + turning;
                if closing <= 0.0 {
                    closes = false;
                } else {
                    advance = advance.max(g / closing);
                }
            }
        });
        if gap <= tolerance {
            return Some(Impact {
                contact: convex::touch(&core_a, &core_b),
                time: t,
            });
        }
        if !closes || !gap.is_finite() {
            return None;
        }
        t += advance;
        if t > 1.0 {
            return None;
        }
    }
    let (pa, pb) = (sweep_a.at_angle(angle_a, t), sweep_b.at_angle(angle_b, t));
    Some(Impact {
        contact: convex::touch(&Core::new(a, pa), &Core::new(b, pb)),
        time: t,
    })
}

pub(in crate::geometry) fn circle_circle_time_of_impact(
    ra: f32,
    a: Sweep,
    rb: f32,
    b: Sweep,
) -> Option<Impact> {
    // a's centre seen from b's.
    let start = a.start.translation - b.start.translation;
    let motion = a.displacement() - b.displacement();
    let t = segment_circle_entry(start, motion, ra + rb)?;
    let (ca, cb) = (a.translation_at(t), b.translation_at(t));
    let fallback = Dir2::new(-motion).unwrap_or(Dir2::X);
    let contact = circle_circle_contact(ra, ca, rb, cb).unwrap_or_else(|| {
        // Rounding left a hair's gap at the computed time: the same contact,
        // touching.
        let normal = Dir2::new(cb - ca).unwrap_or(fallback);
        Contact::new(ca + normal * ra, normal, 0.0)
    });
    Some(Impact { contact, time: t })
}

pub(in crate::geometry) fn circle_rect_time_of_impact(
    radius: f32,
    circle: Sweep,
    half_size: Vec2,
    rect: Sweep,
) -> Option<Impact> {
    let angle = rect.angle();
    let substeps = if angle == 0.0 {
        1
    } else {
        ((angle.abs() / MAX_SUBSTEP_ANGLE).ceil() as u32).clamp(1, MAX_SUBSTEPS)
    };
    // How far a rectangle point moves between the middle angle of a sub-step
    // and either end of it: a chord of half the sub-step's angle.
    let turn = angle.abs() / substeps as f32;
    let slack = 2.0 * half_size.length() * (turn / 4.0).sin();
    for k in 0..substeps {
        let (t0, t1) = (k as f32 / substeps as f32, (k + 1) as f32 / substeps as f32);
        let to_rect = rect.at_angle(angle, 0.5 * (t0 + t1)).rotation.inverse();
        let local = |t: f32| to_rect * (circle.translation_at(t) - rect.translation_at(t));
        let start = local(t0);
        let Some(s) =
            segment_rounded_box_entry(start, local(t1) - start, half_size, radius + slack)
        else {
            continue;
        };
        let t = t0 + s * (t1 - t0);
        let motion = circle.displacement() - rect.displacement();
        return Some(circle_rect_touch(
            radius,
            circle.translation_at(t),
            half_size,
            rect.at_angle(angle, t),
            motion,
            t,
        ));
    }
    None
}

/// The contact of a circle just touching (or, with a conservative sweep,
/// almost touching) a rectangle, seen from the circle.
fn circle_rect_touch(
    radius: f32,
    center: Vec2,
    half_size: Vec2,
    rect: Isometry2d,
    motion: Vec2,
    t: f32,
) -> Impact {
    let contact = circle_rect_contact(radius, center, half_size, rect).unwrap_or_else(|| {
        let local = rect.inverse_transform_point(center);
        let closest = local.clamp(-half_size, half_size);
        let normal = Dir2::new(rect.rotation * (closest - local))
            .or_else(|_| Dir2::new(motion))
            .unwrap_or(Dir2::X);
        Contact::new(rect.transform_point(closest), normal, 0.0)
    });
    Impact { contact, time: t }
}

pub(in crate::geometry) fn rect_rect_time_of_impact(
    ha: Vec2,
    a: Sweep,
    hb: Vec2,
    b: Sweep,
) -> Option<Impact> {
    let (angle_a, angle_b) = (a.angle(), b.angle());
    let relative = a.displacement() - b.displacement();
    // No point moves along any fixed direction by more than the relative
    // translation along it plus this (distance per whole step).
    let turning = angle_a.abs() * ha.length() + angle_b.abs() * hb.length();
    let extent = a.start.translation.abs().max_element()
        + a.end.translation.abs().max_element()
        + b.start.translation.abs().max_element()
        + b.end.translation.abs().max_element();
    // Close enough to call it touching: a small fraction of the shapes, and
    // never below what f32 positions can resolve.
    let tolerance = (1e-4 * ha.min_element().min(hb.min_element())).max(extent * 1e-6);
    let mut t = 0.0;
    for _ in 0..MAX_ADVANCES {
        let (pa, pb) = (a.at_angle(angle_a, t), b.at_angle(angle_b, t));
        let separations = rect_rect_separations(ha, pa, hb, pb);
        let gap = separations.into_iter().fold(f32::NEG_INFINITY, f32::max);
        if gap <= tolerance {
            return Some(rect_rect_touch(ha, pa, hb, pb, tolerance, t));
        }
        if !gap.is_finite() {
            return None;
        }
        t += safe_advance(separations, pa, pb, relative, turning)?;
        if t > 1.0 {
            return None;
        }
    }
    // Out of advances while still closing in: early rather than missed.
    let (pa, pb) = (a.at_angle(angle_a, t), b.at_angle(angle_b, t));
    Some(rect_rect_touch(ha, pa, hb, pb, tolerance, t))
}

/// How far in time (as a fraction of the step) two separated rectangles at
/// `a` and `b` can advance without touching: along each face normal, held
/// fixed in the world, their gap there (`separations`, along a.x, a.y, b.x,
/// b.y) divided by how fast it can close (the relative translation along it
/// plus what turning adds). Any one axis that stays open proves them apart,
/// so the best axis counts; a rectangle sliding past another closes the gap
/// along the sliding face slowly, where the whole relative speed would allow
/// only tiny steps. `None` when nothing can close the gap.
fn safe_advance(
    separations: [f32; 4],
    a: Isometry2d,
    b: Isometry2d,
    relative: Vec2,
    turning: f32,
) -> Option<f32> {
    let axes = [
        a.rotation * Vec2::X,
        a.rotation * Vec2::Y,
        b.rotation * Vec2::X,
        b.rotation * Vec2::Y,
    ];
    let mut best = 0.0f32;
    for (gap, n) in separations.into_iter().zip(axes) {
        if gap <= 0.0 {
            continue;
        }
        let closing = relative.dot(n).abs() + turning;
        if closing <= 0.0 {
            return None;
        }
        best = best.max(gap / closing);
    }
    (best > 0.0).then_some(best)
}

/// The contact of two rectangles at most `tolerance` apart, seen from `a`.
fn rect_rect_touch(
    ha: Vec2,
    a: Isometry2d,
    hb: Vec2,
    b: Isometry2d,
    tolerance: f32,
    t: f32,
) -> Impact {
    let grown = Vec2::splat(2.0 * tolerance);
    let contact = rect_rect_contact(ha, a, hb, b)
        .or_else(|| {
            rect_rect_contact(ha + grown, a, hb + grown, b).map(|c| Contact { depth: 0.0, ..c })
        })
        .unwrap_or_else(|| {
            let normal = Dir2::new(b.translation - a.translation).unwrap_or(Dir2::X);
            Contact::new(0.5 * (a.translation + b.translation), normal, 0.0)
        });
    Impact { contact, time: t }
}

/// The first `t` in `0..=1` at which `start + t * motion` is within `radius`
/// of the origin.
fn segment_circle_entry(start: Vec2, motion: Vec2, radius: f32) -> Option<f32> {
    let radius_squared = radius * radius;
    if start.length_squared() <= radius_squared {
        return Some(0.0);
    }
    let b = start.dot(motion);
    if b >= 0.0 {
        // Moving away, sideways or not at all.
        return None;
    }
    // From the point of closest approach back by half the chord, rather
    // than the quadratic formula, whose discriminant cancels badly for long
    // motions.
    let a = motion.length_squared();
    let closest_time = -b / a;
    let miss_squared = (start + motion * closest_time).length_squared();
    if miss_squared > radius_squared {
        return None;
    }
    let t = closest_time - ((radius_squared - miss_squared) / a).sqrt();
    (t <= 1.0).then_some(t.max(0.0))
}

/// The first `t` in `0..=1` at which `start + t * motion` is inside the box
/// `[-extent, extent]`.
fn segment_box_entry(start: Vec2, motion: Vec2, extent: Vec2) -> Option<f32> {
    let (mut enter, mut exit) = (0.0f32, 1.0f32);
    for axis in 0..2 {
        let (p, d, e) = (start[axis], motion[axis], extent[axis]);
        if d == 0.0 {
            if p.abs() > e {
                return None;
            }
        } else {
            let (t1, t2) = ((-e - p) / d, (e - p) / d);
            enter = enter.max(t1.min(t2));
            exit = exit.min(t1.max(t2));
        }
    }
    (enter <= exit).then_some(enter)
}

/// The first `t` in `0..=1` at which `start + t * motion` is within `radius`
/// of the box `[-half_size, half_size]`: entry into the rounded box, the
/// union of the box grown along x, the box grown along y and the four corner
/// discs. The first time in a union is the first time in any of its parts.
fn segment_rounded_box_entry(
    start: Vec2,
    motion: Vec2,
    half_size: Vec2,
    radius: f32,
) -> Option<f32> {
    let slabs = [
        half_size + Vec2::new(radius, 0.0),
        half_size + Vec2::new(0.0, radius),
    ]
    .map(|extent| segment_box_entry(start, motion, extent));
    let corners = [
        Vec2::new(1.0, 1.0),
        Vec2::new(-1.0, 1.0),
        Vec2::new(-1.0, -1.0),
        Vec2::new(1.0, -1.0),
    ]
    .map(|sign| segment_circle_entry(start - sign * half_size, motion, radius));
    slabs
        .into_iter()
        .chain(corners)
        .flatten()
        .min_by(f32::total_cmp)
}

/// The first contact of two moving shapes known to be apart at the start
/// ([`time_of_impact_from_apart`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TimeOfImpactOp;

impl PairOp for TimeOfImpactOp {
    type Place = PartSweep;
    type Out = Option<Impact>;

    fn apart(self) -> Option<Impact> {
        None
    }

    fn reach(self, shape: ShapeView<'_>, place: PartSweep, _: bool) -> Aabb2d {
        place.swept_aabb(shape)
    }

    /// The earlier touch; the deeper of two at once.
    fn better(self, found: Option<Impact>, next: Option<Impact>) -> Option<Impact> {
        match (found, next) {
            (Some(f), Some(n)) if n.time < f.time => Some(n),
            (Some(f), Some(n)) if n.time == f.time && n.contact.depth > f.contact.depth => Some(n),
            (None, n) => n,
            (f, _) => f,
        }
    }

    fn stricter(
        self,
        original: Option<Impact>,
        x: Option<Impact>,
        y: Option<Impact>,
    ) -> Option<Impact> {
        let (original, x, y) = (original?, x?, y?);
        Some(Impact {
            contact: stricter_contact(original.contact, x.contact, y.contact),
            time: original.time,
        })
    }

    /// The rule at the poses of the touch.
    fn ghost_rule(
        self,
        found: Option<Impact>,
        segment: &ChainSegment,
        chain: PartSweep,
        other: ShapeView<'_>,
        other_place: PartSweep,
        chain_first: bool,
    ) -> Option<Impact> {
        let Impact { contact, time } = found?;
        let contact = ghost_contact(
            contact,
            segment,
            chain.at(time),
            other,
            other_place.at(time),
            chain_first,
        );
        Some(Impact { contact, time })
    }

    #[inline(always)]
    fn general(
        self,
        a: ConvexRef<'_>,
        pa: PartSweep,
        b: ConvexRef<'_>,
        pb: PartSweep,
    ) -> Option<Impact> {
        convex_time_of_impact(a, pa, b, pb)
    }

    /// Exact for straight paths; a part swung about a turning compound's
    /// origin goes to the general test, which follows its arc.
    #[inline(always)]
    fn circle_circle(
        self,
        ra: f32,
        pa: PartSweep,
        rb: f32,
        pb: PartSweep,
    ) -> Option<Option<Impact>> {
        let (sa, sb) = (pa.as_sweep()?, pb.as_sweep()?);
        Some(circle_circle_time_of_impact(ra, sa, rb, sb))
    }

    #[inline(always)]
    fn circle_rect(
        self,
        radius: f32,
        pa: PartSweep,
        half_size: Vec2,
        pb: PartSweep,
    ) -> Option<Option<Impact>> {
        let (sa, sb) = (pa.as_sweep()?, pb.as_sweep()?);
        Some(circle_rect_time_of_impact(radius, sa, half_size, sb))
    }

    /// The circle–rectangle time of impact, seen from the rectangle.
    #[inline(always)]
    fn rect_circle(
        self,
        half_size: Vec2,
        pa: PartSweep,
        radius: f32,
        pb: PartSweep,
    ) -> Option<Option<Impact>> {
        let found = self.circle_rect(radius, pb, half_size, pa)?;
        Some(found.map(Impact::flipped))
    }

    #[inline(always)]
    fn rect_rect(self, ha: Vec2, pa: PartSweep, hb: Vec2, pb: PartSweep) -> Option<Option<Impact>> {
        let (sa, sb) = (pa.as_sweep()?, pb.as_sweep()?);
        Some(rect_rect_time_of_impact(ha, sa, hb, sb))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::ConvexPolygon;
    use crate::geometry::reference_tests::{
        Kind, RefPair, explore_scale, random_shape_of, reference, reference_at,
    };
    use bevy::math::Rot2;
    use core::f32::consts::{FRAC_PI_2, FRAC_PI_4, FRAC_PI_6};
    use rand::{Rng, SeedableRng, rngs::StdRng};

    fn pose(x: f32, y: f32, angle: f32) -> Isometry2d {
        Isometry2d::new(Vec2::new(x, y), Rot2::radians(angle))
    }

    fn moving(from: Vec2, to: Vec2) -> Sweep {
        Sweep::new(
            Isometry2d::from_translation(from),
            Isometry2d::from_translation(to),
        )
    }

    fn assert_toi(found: Option<Impact>, expected: Option<f64>) {
        match (found, expected) {
            (Some(contact), Some(t)) => assert!(
                (contact.time as f64 - t).abs() <= 1e-3,
                "time of impact {} vs reference {t}",
                contact.time
            ),
            (None, None) => {}
            (found, expected) => panic!("found {found:?}, reference {expected:?}"),
        }
    }

    #[test]
    fn head_on_circles_meet_when_the_gap_closes() {
        let a = Shape::Circle { radius: 1.0 };
        let b = Shape::Circle { radius: 2.0 };
        // Gap 7 closed at 10 per step: t = 0.7.
        let contact = time_of_impact(
            &a,
            moving(Vec2::ZERO, Vec2::new(10.0, 0.0)),
            &b,
            Sweep::stationary(pose(10.0, 0.0, 0.0)),
        )
        .unwrap();
        assert!((contact.time - 0.7).abs() < 1e-5);
        assert!((contact.contact.normal.x - 1.0).abs() < 1e-5);
        assert!((contact.contact.point - Vec2::new(8.0, 0.0)).length() < 1e-4);
        assert!(contact.contact.depth.abs() < 1e-4);
    }

    #[test]
    fn both_circles_moving_use_their_relative_motion() {
        let c = Shape::Circle { radius: 1.0 };
        // Approaching each other at 5 each: gap 8 closed at 10 per step.
        let contact = time_of_impact(
            &c,
            moving(Vec2::ZERO, Vec2::new(5.0, 0.0)),
            &c,
            moving(Vec2::new(10.0, 0.0), Vec2::new(5.0, 0.0)),
        )
        .unwrap();
        assert!((contact.time - 0.8).abs() < 1e-5);
        assert!((contact.contact.point - Vec2::new(5.0, 0.0)).length() < 1e-4);
    }

    #[test]
    fn circle_grazes_and_misses_circle() {
        let c = Shape::Circle { radius: 1.0 };
        let target = Sweep::stationary(pose(0.0, 0.0, 0.0));
        // Passing at height 1.999 (sum of radii 2): a graze.
        let graze = moving(Vec2::new(-10.0, 1.999), Vec2::new(10.0, 1.999));
        let expected = 0.5 - (2.0f64.powi(2) - 1.999f64.powi(2)).sqrt() / 20.0;
        assert_toi(time_of_impact(&c, graze, &c, target), Some(expected));
        let miss = moving(Vec2::new(-10.0, 2.001), Vec2::new(10.0, 2.001));
        assert_toi(time_of_impact(&c, miss, &c, target), None);
    }

    #[test]
    fn starting_in_contact_is_time_zero_with_the_ordinary_contact() {
        let c = Shape::Circle { radius: 1.0 };
        let contact = time_of_impact(
            &c,
            moving(Vec2::ZERO, Vec2::new(-50.0, 0.0)),
            &c,
            Sweep::stationary(pose(1.5, 0.0, 0.0)),
        )
        .unwrap();
        assert_eq!(contact.time, 0.0);
        assert!((contact.contact.depth - 0.5).abs() < 1e-5);
    }

    #[test]
    fn zero_motion_apart_never_touches() {
        let c = Shape::Circle { radius: 1.0 };
        let r = Shape::Rect {
            half_size: Vec2::new(1.0, 3.0),
        };
        let still = Sweep::stationary(pose(0.0, 0.0, 0.0));
        let other = Sweep::stationary(pose(5.0, 0.0, 0.3));
        assert!(time_of_impact(&c, still, &c, other).is_none());
        assert!(time_of_impact(&c, still, &r, other).is_none());
        assert!(time_of_impact(&r, still, &r, other).is_none());
    }

    #[test]
    fn rect_argument_order_flips_the_normal() {
        let circle = Shape::Circle { radius: 1.0 };
        let rect = Shape::Rect {
            half_size: Vec2::new(2.0, 2.0),
        };
        let circle_sweep = moving(Vec2::new(-10.0, 0.0), Vec2::new(10.0, 0.0));
        let rect_sweep = Sweep::stationary(pose(0.0, 0.0, 0.0));
        let seen_from_circle = time_of_impact(&circle, circle_sweep, &rect, rect_sweep).unwrap();
        let seen_from_rect = time_of_impact(&rect, rect_sweep, &circle, circle_sweep).unwrap();
        assert_eq!(
            seen_from_circle.contact.normal,
            -seen_from_rect.contact.normal
        );
        assert_eq!(seen_from_circle.time, seen_from_rect.time);
        assert!((seen_from_circle.time - 0.35).abs() < 1e-5);
    }

    #[test]
    fn spinning_rect_hit_is_never_missed_and_only_slightly_early() {
        // A bar spinning a quarter turn sweeps through a circle at rest.
        let circle = Shape::Circle { radius: 0.5 };
        let bar = Shape::Rect {
            half_size: Vec2::new(10.0, 0.25),
        };
        let circle_sweep = Sweep::stationary(pose(0.0, 6.0, 0.0));
        let bar_sweep = Sweep::new(pose(0.0, 0.0, 0.0), pose(0.0, 0.0, 1.5));
        let contact = time_of_impact(&circle, circle_sweep, &bar, bar_sweep).unwrap();
        // Reference: the bar's upper edge reaches the circle when the angle
        // puts the circle's centre within 0.75 of the bar's axis, whose
        // distance from (0, 6) at angle θ is 6 cos θ.
        let touch_angle = (0.75f32 / 6.0).acos();
        let reference = touch_angle / 1.5;
        let early_by = reference - contact.time;
        assert!(early_by >= -1e-4, "late: {} vs {reference}", contact.time);
        // Within a sub-step the bar is held at one angle, so the hit is
        // reported at the start of the first sub-step that comes within the
        // slack: at most two sub-steps early here.
        let substep = MAX_SUBSTEP_ANGLE / 1.5;
        assert!(early_by <= 2.0 * substep, "early by {early_by}");
    }

    #[test]
    fn fast_rects_never_pass_through_each_other() {
        let thin = Shape::Rect {
            half_size: Vec2::new(0.5, 20.0),
        };
        let block = Shape::Rect {
            half_size: Vec2::new(1.0, 1.0),
        };
        for (angle, spin) in [(0.0, 0.0), (0.4, 0.0), (0.0, 2.5), (-0.7, -1.0)] {
            let contact = time_of_impact(
                &block,
                Sweep::new(pose(-500.0, 3.0, angle), pose(500.0, 3.0, angle + spin)),
                &thin,
                Sweep::stationary(pose(0.0, 0.0, 0.2)),
            )
            .unwrap_or_else(|| panic!("angle {angle} spin {spin}: passed through"));
            let t = contact.time;
            assert!(t > 0.49 && t < 0.5, "angle {angle} spin {spin}: t = {t}");
            assert!(contact.contact.normal.x > 0.9);
        }
    }

    /// A long bar spinning by a small block closes the gap at a sliver of
    /// its turning bound: the advances run out before the touch, which is
    /// then reported early, never missed.
    #[test]
    fn long_spinning_bar_out_of_advances_still_hits() {
        let bar = Shape::Rect {
            half_size: Vec2::new(300.0, 1.0),
        };
        let block = Shape::Rect {
            half_size: Vec2::ONE,
        };
        let spin = Sweep::new(pose(0.0, 0.0, 0.0), pose(0.0, 0.0, 1.0));
        let fall = moving(Vec2::new(0.0, 3.5), Vec2::new(0.0, 0.5));
        assert!(!bar.intersects(spin.start, &block, fall.start));
        let hit = time_of_impact(&bar, spin, &block, fall).expect("passed through");
        // The bar's top edge meets the falling block's bottom at about 0.354.
        assert!(hit.time > 0.2 && hit.time <= 0.36, "{hit:?}");
        let seen_from_block = time_of_impact(&block, fall, &bar, spin).expect("passed through");
        assert!(seen_from_block.time <= 0.36, "{seen_from_block:?}");
    }

    #[test]
    fn bad_input_has_no_impact() {
        let circle = Shape::Circle { radius: 1.0 };
        let rect = Shape::Rect {
            half_size: Vec2::ONE,
        };
        let still = Sweep::stationary(pose(3.0, 0.0, 0.0));
        let good = moving(Vec2::ZERO, Vec2::new(6.0, 0.0));
        assert!(time_of_impact(&circle, good, &rect, still).is_some());
        let unit_off = Isometry2d::new(Vec2::ZERO, Rot2 { cos: 2.0, sin: 0.0 });
        for bad_pose in [
            Isometry2d::from_xy(f32::NAN, 0.0),
            Isometry2d::from_xy(f32::INFINITY, 0.0),
            unit_off,
        ] {
            for sweep in [
                Sweep::new(good.start, bad_pose),
                Sweep::new(bad_pose, good.end),
            ] {
                for (a, b) in [(&circle, &rect), (&rect, &rect), (&rect, &circle)] {
                    assert_eq!(time_of_impact(a, sweep, b, still), None, "{bad_pose:?}");
                    assert_eq!(time_of_impact(b, still, a, sweep), None, "{bad_pose:?}");
                }
            }
        }
        let negative = Shape::Circle { radius: -1.0 };
        assert_eq!(time_of_impact(&negative, good, &rect, still), None);
        assert_eq!(time_of_impact(&rect, still, &negative, good), None);
    }

    /// A rectangle sliding closely past another before it hits it: the gap
    /// along the sliding face closes slowly, so the advance must measure
    /// closing speed along it, not the whole speed, or it runs out of steps.
    /// (Found by the model-based test: this pair overlaps 0.13 deep at 0.47.)
    #[test]
    fn rect_sliding_past_before_the_hit_is_not_missed() {
        let a = Shape::Rect {
            half_size: Vec2::new(9.200268, 3.018679),
        };
        let pa = Isometry2d::new(
            Vec2::new(-60.102722, 0.044_372_56),
            Rot2::radians(0.5784719),
        );
        let b = Shape::Rect {
            half_size: Vec2::new(6.5790887, 10.343496),
        };
        let sb = Sweep::new(
            Isometry2d::new(Vec2::new(-76.59189, 77.31332), Rot2::radians(-3.0721036)),
            Isometry2d::new(Vec2::new(-75.33342, -103.8967), Rot2::radians(3.0251452)),
        );
        assert!(a.intersects(pa, &b, sb.at(0.47)));
        let contact = time_of_impact(&a, Sweep::stationary(pa), &b, sb).expect("missed");
        assert!(contact.time <= 0.47, "{contact:?}");
        assert!(!a.intersects(pa, &b, sb.at(contact.time - 0.01)));
    }

    #[test]
    fn rect_that_stays_clear_is_not_reported() {
        let a = Shape::Rect {
            half_size: Vec2::new(1.0, 1.0),
        };
        let found = time_of_impact(
            &a,
            Sweep::new(pose(-50.0, 5.0, 0.0), pose(50.0, 5.0, 1.0)),
            &a,
            Sweep::stationary(pose(0.0, 0.0, 0.0)),
        );
        // Closest approach: centres 5 apart, each at most √2 from its centre.
        assert!(found.is_none());
    }

    #[test]
    fn very_long_motion_still_finds_the_hit() {
        let c = Shape::Circle { radius: 1.0 };
        // 100 000 units in one step past a radius-1 circle.
        let contact = time_of_impact(
            &c,
            moving(Vec2::new(-50_000.0, 0.5), Vec2::new(50_000.0, 0.5)),
            &c,
            Sweep::stationary(pose(0.0, 0.0, 0.0)),
        )
        .unwrap();
        let expected = 0.5 - (4.0f64 - 0.25).sqrt() / 100_000.0;
        let error = contact.time as f64 - expected;
        // Within a tenth of the circle's radius along the path.
        assert!(error.abs() * 100_000.0 < 0.1, "off by {error}");
    }

    /// The gap between `a` along `sweep_a` and `b` along `sweep_b` at `t`,
    /// in f64 (poses interpolated as [`Sweep::at`] does, without rounding).
    fn reference_gap_at(a: &Shape, sweep_a: Sweep, b: &Shape, sweep_b: Sweep, t: f64) -> f64 {
        let place = |shape: &Shape, sweep: Sweep| {
            let start = sweep.start.translation.as_dvec2();
            let center = start + (sweep.end.translation.as_dvec2() - start) * t;
            let angle = f64::from(sweep.start.rotation.sin)
                .atan2(f64::from(sweep.start.rotation.cos))
                + f64::from(sweep.angle()) * t;
            reference_at(shape, center, angle.cos(), angle.sin())
        };
        RefPair::new(&place(a, sweep_a), &place(b, sweep_b)).gap()
    }

    /// The reference first touch by sampling then bisection, and the
    /// smallest gap sampled: `(first touch, smallest gap)`.
    fn reference_first_touch(
        a: &Shape,
        sweep_a: Sweep,
        b: &Shape,
        sweep_b: Sweep,
        samples: u32,
    ) -> (Option<f64>, f64) {
        let gap = |t: f64| reference_gap_at(a, sweep_a, b, sweep_b, t);
        let mut smallest = f64::INFINITY;
        for k in 0..=samples {
            let t = f64::from(k) / f64::from(samples);
            let g = gap(t);
            smallest = smallest.min(g);
            if g <= 0.0 {
                if k == 0 {
                    return (Some(0.0), g);
                }
                let (mut lo, mut hi) = (f64::from(k - 1) / f64::from(samples), t);
                for _ in 0..50 {
                    let mid = 0.5 * (lo + hi);
                    if gap(mid) <= 0.0 {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                return (Some(hi), smallest);
            }
        }
        (None, smallest)
    }

    /// How far any point of `shape` can move over the step (translation
    /// plus turning), in f64: a bound on how fast a gap can close.
    fn reference_speed(shape: &Shape, sweep: Sweep) -> f64 {
        let reach = reference(shape, Isometry2d::from_translation(Vec2::ZERO))
            .core()
            .iter()
            .map(|p| p.length())
            .fold(0.0, f64::max);
        f64::from(sweep.displacement().length()) + f64::from(sweep.angle().abs()) * reach
    }

    /// A circle crossing a thin segment wall in one step, 400 times the
    /// wall's length per step: caught, never after the touch.
    #[test]
    fn fast_circle_through_a_thin_segment_is_caught() {
        let ball = Shape::Circle { radius: 0.5 };
        let wall = Shape::Segment {
            a: Vec2::new(0.0, -1.0),
            b: Vec2::new(0.0, 1.0),
        };
        let wall_pose = Sweep::stationary(pose(5.0, 0.0, 0.0));
        for (height, angle) in [(0.3, 0.0), (-0.99, 0.0), (1.2, 0.0), (0.0, 0.7), (1.3, 0.3)] {
            let sweep = moving(Vec2::new(-400.0, height), Vec2::new(400.0, height));
            let wall_sweep = Sweep::stationary(pose(5.0, 0.0, angle));
            let (expected, _) = reference_first_touch(&ball, sweep, &wall, wall_sweep, 4000);
            let found = time_of_impact(&ball, sweep, &wall, wall_sweep);
            let (Some(expected), Some(found)) = (expected, found) else {
                panic!("height {height} angle {angle}: {found:?} vs {expected:?}");
            };
            let t = f64::from(found.time);
            assert!(
                t <= expected + 1e-7,
                "height {height}: late: {t} vs {expected}"
            );
            // Early by at most the tolerance, in distance along the path.
            assert!(
                (expected - t) * 800.0 < 1e-2,
                "height {height}: early: {t} vs {expected}"
            );
            assert!(found.contact.normal.x > 0.0, "{found:?}");
            assert!(found.contact.depth <= 1e-4, "{found:?}");
        }
        // Passing beside its end: no touch.
        let beside = moving(Vec2::new(-400.0, 1.51), Vec2::new(400.0, 1.51));
        assert!(time_of_impact(&ball, beside, &wall, wall_pose).is_none());
        // The wall moving through a resting ball, seen from either side.
        let wall_sweep = Sweep::new(pose(-400.0, 0.0, 0.0), pose(400.0, 0.0, 0.0));
        let rest = Sweep::stationary(pose(5.0, 0.5, 0.0));
        let hit = time_of_impact(&wall, wall_sweep, &ball, rest).unwrap();
        let expected = (4.5 + 400.0) / 800.0;
        assert!(
            hit.time <= expected && hit.time > expected - 1e-5,
            "{hit:?}"
        );
        assert!(hit.contact.normal.x > 0.99, "{hit:?}");
        let flipped = time_of_impact(&ball, rest, &wall, wall_sweep).unwrap();
        assert_eq!(flipped.time, hit.time);
        assert!(flipped.contact.normal.x < -0.99, "{flipped:?}");
        // Two segments crossing each other's path (no thickness at all).
        let bar = Shape::Segment {
            a: Vec2::new(-1.0, 0.0),
            b: Vec2::new(1.0, 0.0),
        };
        let falling = Sweep::new(pose(5.0, 300.0, 0.0), pose(5.0, -300.0, 0.0));
        let hit = time_of_impact(&bar, falling, &wall, wall_pose).unwrap();
        let expected = 299.0 / 600.0;
        assert!(
            hit.time <= expected && hit.time > expected - 1e-5,
            "{hit:?}"
        );
    }

    /// A capsule falling and turning onto a polygon: never after the
    /// touch, found within the tolerance.
    #[test]
    fn swept_capsule_against_a_polygon() {
        let capsule = Shape::Capsule {
            radius: 0.5,
            half_length: 1.5,
        };
        let ramp = Shape::Polygon(
            ConvexPolygon::new(&[
                Vec2::new(-4.0, 0.0),
                Vec2::new(4.0, 0.0),
                Vec2::new(4.0, 2.0),
            ])
            .unwrap(),
        );
        let ground = Sweep::stationary(Isometry2d::IDENTITY);
        // Upright, straight down onto the slope y = (x + 4) / 4 at x = 0: the
        // cap's centre stops 0.5 from the line, √17 / 8 above it.
        let fall = Sweep::new(pose(0.0, 20.0, 0.0), pose(0.0, -20.0, 0.0));
        let hit = time_of_impact(&capsule, fall, &ramp, ground).unwrap();
        let stop = 1.0 + 17f32.sqrt() / 8.0 + 1.5;
        let expected = (20.0 - stop) / 40.0;
        assert!(hit.time <= expected + 1e-6, "{hit:?} vs {expected}");
        assert!(hit.time > expected - 1e-5, "{hit:?} vs {expected}");
        // The normal points from the capsule into the ramp, against the
        // slope's outward normal.
        let slope = Vec2::new(-1.0, 4.0).normalize();
        assert!(
            (hit.contact.normal.as_vec2() + slope).length() < 1e-3,
            "{hit:?}"
        );
        // Turning a quarter turn on the way and sliding in sideways, against
        // the sampled reference.
        let sweeps = [
            Sweep::new(
                pose(-12.0, 3.0, 0.0),
                pose(6.0, 1.0, core::f32::consts::FRAC_PI_2),
            ),
            Sweep::new(pose(10.0, 8.0, 1.0), pose(0.0, -2.0, -2.0)),
            // Spinning in place above the slope: an end swings into it.
            Sweep::new(pose(0.0, 2.8, FRAC_PI_2), pose(0.0, 2.8, FRAC_PI_2 + 3.0)),
        ];
        for sweep in sweeps {
            let (expected, _) = reference_first_touch(&capsule, sweep, &ramp, ground, 4000);
            let expected = expected.unwrap();
            let found = time_of_impact(&capsule, sweep, &ramp, ground).expect("missed");
            let t = f64::from(found.time);
            assert!(t <= expected + 1e-6, "{sweep:?}: late: {t} vs {expected}");
            let gap = reference_gap_at(&capsule, sweep, &ramp, ground, t);
            assert!(
                gap <= 1e-3,
                "{sweep:?}: {gap} apart at {t} (reference {expected})"
            );
        }
        // Spinning in place just clear of the ramp's top corner: no touch.
        let clear = Sweep::new(pose(4.0, 4.01, 0.0), pose(4.0, 4.01, 3.0));
        let (expected, smallest) = reference_first_touch(&capsule, clear, &ramp, ground, 2000);
        assert!(expected.is_none() && smallest > 0.0, "{smallest}");
        assert!(time_of_impact(&capsule, clear, &ramp, ground).is_none());
    }

    /// A circle moving along `sweep` against a rectangle at rest at
    /// `rect_pose`, which is exact (see [`time_of_impact`]): found within
    /// 1e-3 of the time of the reference's first touch, where the shapes
    /// are within 1e-3 of each other, or not found when the reference finds
    /// none. Returns what was found.
    fn check_circle_against_still_rect(
        circle: &Shape,
        sweep: Sweep,
        rect: &Shape,
        rect_pose: Isometry2d,
        samples: u32,
    ) -> Option<Impact> {
        let still = Sweep::stationary(rect_pose);
        let found = time_of_impact(circle, sweep, rect, still);
        let (expected, _) = reference_first_touch(circle, sweep, rect, still, samples);
        assert_toi(found, expected);
        if let Some(contact) = found {
            let t = f64::from(contact.time);
            let gap = reference_gap_at(circle, sweep, rect, still, t);
            let describe =
                || format!("{circle:?} {sweep:?} vs {rect:?} {rect_pose:?}: {contact:?}");
            assert!(gap <= 1e-3, "early, {gap} apart: {}", describe());
            assert!(
                contact.contact.depth >= 0.0
                    && contact.contact.normal.is_finite()
                    && contact.contact.point.is_finite(),
                "{}",
                describe()
            );
        }
        found
    }

    /// Time of impact against the sampled f64 reference, for every kind.
    ///
    /// A circle moving against a rectangle at rest is exact: a touch is
    /// found within 1e-3 of the reference's time and a clear miss is never
    /// reported, for a fast circle through a thin rotated wall and at
    /// random. Every pair with a capsule, a segment or a polygon, moving and
    /// turning at random, is conservative: a clear touch is never missed
    /// nor reported after it happens, and the time reported is one at which
    /// the shapes are within a small gap; a clear miss is not reported (but
    /// for the few spinning close, when the advances run out).
    #[test]
    fn time_of_impact_matches_a_sampled_reference() {
        // A fast circle through a thin rotated wall: 800 units in one step,
        // 400 times the wall's thickness.
        let ball = Shape::Circle { radius: 2.0 };
        let wall = Shape::Rect {
            half_size: Vec2::new(1.0, 40.0),
        };
        let path = moving(Vec2::new(-200.0, 0.0), Vec2::new(600.0, 0.0));
        for angle in [0.0, 0.3, -0.3, FRAC_PI_6, -FRAC_PI_4, 1.2] {
            let wall_pose = pose(300.0, 10.0, angle);
            let found = check_circle_against_still_rect(&ball, path, &wall, wall_pose, 4000)
                .unwrap_or_else(|| panic!("angle {angle}: passed through"));
            // The normal points from the circle into the wall: against the
            // wall's face normal on the circle's side.
            let (normal, face) = (found.contact.normal, Rot2::radians(angle) * Vec2::NEG_X);
            assert!(normal.dot(face) < -0.99, "angle {angle}: normal {normal:?}");
        }

        // Circles against rotated rectangles at rest: a deterministic spread
        // of paths, corners and grazes included.
        let mut seed = 0x2545_f491_u32;
        let mut random = |lo: f32, hi: f32| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            lo + (hi - lo) * (seed as f32 / u32::MAX as f32)
        };
        // Samples at most 0.06 apart along the path come within 1e-3 of any
        // touch (the rounded rectangle a circle's centre meets has corners
        // of at least the radius, 0.5), and the times of touching are one
        // interval: a touch is never missed between samples.
        const PATH_SAMPLES: u32 = 2000;
        let mut hits = 0;
        for _ in 0..400 {
            let radius = random(0.5, 3.0);
            let half = Vec2::new(random(0.5, 6.0), random(0.5, 6.0));
            let angle = random(-3.1, 3.1);
            let center = Vec2::new(random(-5.0, 5.0), random(-5.0, 5.0));
            let from = Vec2::new(random(-40.0, 40.0), random(-40.0, 40.0));
            let to = Vec2::new(random(-40.0, 40.0), random(-40.0, 40.0));
            let circle = Shape::Circle { radius };
            let rect = Shape::Rect { half_size: half };
            let (sweep, rect_pose) = (
                moving(from, to),
                Isometry2d::new(center, Rot2::radians(angle)),
            );
            // Paths that only graze within f32 rounding may go either way.
            let still = Sweep::stationary(rect_pose);
            let closest = (0..=PATH_SAMPLES)
                .map(|k| {
                    reference_gap_at(
                        &circle,
                        sweep,
                        &rect,
                        still,
                        f64::from(k) / f64::from(PATH_SAMPLES),
                    )
                })
                .fold(f64::INFINITY, f64::min);
            if closest.abs() < 1e-3 {
                continue;
            }
            let found =
                check_circle_against_still_rect(&circle, sweep, &rect, rect_pose, PATH_SAMPLES);
            hits += usize::from(found.is_some());
        }
        assert!(hits > 50, "too few hits ({hits}) to test anything");

        // Every pair with a capsule, a segment or a polygon, moving and
        // turning at random.
        let scale = explore_scale();
        let mut rng = StdRng::seed_from_u64(if scale > 1 { 1021 } else { 21 });
        let cases = 2000 * scale;
        const SAMPLES: u32 = 300;
        let (mut hits, mut misses, mut skipped, mut false_hits) = (0, 0, 0, 0);
        let (mut worst_gap, mut worst_late) = (0.0f64, 0.0f64);
        for case in 0..cases {
            let kind_a = Kind::ALL[rng.random_range(2..5)];
            let kind_b = Kind::ALL[rng.random_range(0..5)];
            let (a, b) = (
                random_shape_of(&mut rng, kind_a, 4.0),
                random_shape_of(&mut rng, kind_b, 4.0),
            );
            let random_pose = |rng: &mut StdRng, spread: f32| {
                pose(
                    rng.random_range(-spread..spread),
                    rng.random_range(-spread..spread),
                    rng.random_range(-3.0..3.0),
                )
            };
            let start = random_pose(&mut rng, 20.0);
            let b_start = random_pose(&mut rng, 6.0);
            let mut end = random_pose(&mut rng, 20.0);
            if rng.random_bool(0.5) {
                // Aimed at b, so that half of them hit.
                end.translation =
                    b_start.translation + (end.translation - b_start.translation) * 0.2;
            }
            if rng.random_bool(0.5) {
                end.rotation = start.rotation;
            }
            let sweep_a = Sweep::new(start, end);
            let sweep_b = if rng.random_bool(0.5) {
                Sweep::stationary(b_start)
            } else {
                Sweep::new(b_start, random_pose(&mut rng, 6.0))
            };
            let (expected, smallest) = reference_first_touch(&a, sweep_a, &b, sweep_b, SAMPLES);
            let found = time_of_impact(&a, sweep_a, &b, sweep_b);
            let describe = || {
                format!(
                    "case {case}: {a:?} {sweep_a:?} vs {b:?} {sweep_b:?}: found {found:?}, reference {expected:?} (smallest gap {smallest})"
                )
            };
            // Between samples, a gap closes at most this much.
            let step =
                (reference_speed(&a, sweep_a) + reference_speed(&b, sweep_b)) / f64::from(SAMPLES);
            match expected {
                Some(t_expected) if smallest < -1e-3 || t_expected == 0.0 => {
                    hits += 1;
                    let found = found.unwrap_or_else(|| panic!("missed: {}", describe()));
                    let t = f64::from(found.time);
                    let gap = reference_gap_at(&a, sweep_a, &b, sweep_b, t);
                    // Never after the touch, but for rounding: an advance
                    // along a direction the motion barely closes turns the
                    // f32 gap's rounding into time. At most a rounding
                    // error's overlap.
                    if t > t_expected {
                        worst_late = worst_late.max(t - t_expected);
                        assert!(
                            t <= t_expected + 1e-4 && gap >= -1e-5,
                            "late, {gap} apart: {}",
                            describe()
                        );
                    }
                    worst_gap = worst_gap.max(gap);
                    assert!(gap <= 1e-3, "early, {gap} apart: {}", describe());
                    assert!(
                        found.contact.depth >= 0.0
                            && found.contact.normal.is_finite()
                            && found.contact.point.is_finite(),
                        "{}",
                        describe()
                    );
                }
                None if smallest > step + 1e-3 => {
                    misses += 1;
                    if found.is_some() {
                        // Only when the advances run out: spinning close.
                        false_hits += 1;
                    }
                }
                _ => skipped += 1,
            }
        }
        assert!(
            hits > cases / 4 && misses > cases / 4,
            "{hits} hits {misses} misses {skipped} skipped"
        );
        assert!(worst_late <= 1e-4, "late by {worst_late}");
        assert!(
            false_hits <= misses / 100,
            "{false_hits} touches reported of {misses} clear misses"
        );
        assert!(worst_gap <= 1e-3, "{worst_gap}");
    }
}
