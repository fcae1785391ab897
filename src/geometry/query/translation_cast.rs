//! Translational shape casts in closed form.
//!
//! A shape A moved by `t * d` first touches a shape B where `t * d` enters
//! the set of translations that make them touch: the Minkowski difference
//! of their rounded cores, `(core_B ⊖ core_A) ⊕ disc(ra + rb)`. The
//! difference of two convex cores is a convex polygon whose edges are
//! those of core_B and of `-core_A`, merged by the angle of their normals
//! (a point has no edge, a segment two opposite ones), so the cast is one
//! ray from the origin against one rounded convex polygon:
//!
//! - Cyrus–Beck clipping of the ray by every edge's half-plane pushed out
//!   by the radius gives where the ray enters the offset polygon, which
//!   holds the rounded one;
//! - where that entry lies beyond the ends of its edge (in a vertex's
//!   region), the rounded polygon's boundary there is the vertex's circle,
//!   which the ray meets or misses;
//! - when the origin is already inside the offset polygon, its distance to
//!   the difference decides between touching at the start and a vertex's
//!   corner (again that vertex's circle).
//!
//! Everything runs in A's own frame: its points are used as stored, and B
//! is placed relative to it, so that large world coordinates cost no
//! precision (as in `convex/`).

use bevy::math::{Dir2, Isometry2d, Vec2};
use bevy::shape::Aabb2d;

use crate::geometry::convex::cores::Core;
use crate::geometry::pairs::sticks::Stick;
use crate::geometry::query::dispatch::{PairOp, dispatch};
use crate::geometry::query::minkowski::{MinkowskiDifference, RayEntry};
use crate::geometry::shape::polyline::{ChainSegment, GhostRule};
use crate::geometry::shape::view::{ConvexRef, ShapeView};

use TranslationCast::{AtStart, Hit, Miss};

/// What a translational cast finds, in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum TranslationCast {
    /// The moving shape never touches the target within the distance.
    Miss,
    /// They touch or overlap at the start. `point` and `normal` are a
    /// fallback for when the contact test, on the other side of a rounding
    /// error, finds them apart: a point of the target's surface nearest the
    /// origin of the difference, and the target's normal there.
    AtStart { point: Vec2, normal: Dir2 },
    /// They first touch after moving `distance > 0`: `point` on both shapes
    /// (the cast one moved), `normal` the target's outward normal there.
    Hit {
        distance: f32,
        point: Vec2,
        normal: Dir2,
    },
}

/// Casts `a` from `pa` along `direction` by up to `max_distance` (valid
/// input assumed: unit direction, `max_distance >= 0`, may be infinite)
/// against `b` at `pb`, without rotation.
pub(crate) fn cast_translation(
    a: ShapeView<'_>,
    pa: Isometry2d,
    direction: Dir2,
    max_distance: f32,
    b: ShapeView<'_>,
    pb: Isometry2d,
) -> TranslationCast {
    let op = TranslationCastOp {
        direction,
        max_distance,
    };
    dispatch(op, a, pa, b, pb)
}

/// [`cast_translation`] for any two shapes: one ray against the Minkowski
/// difference of their rounded cores.
pub(in crate::geometry) fn cast_translation_convex(
    a: ConvexRef<'_>,
    pa: Isometry2d,
    direction: Dir2,
    max_distance: f32,
    b: ConvexRef<'_>,
    pb: Isometry2d,
) -> TranslationCast {
    let core_a = Core::local(a);
    // (`inverse_mul` subtracts the translations first: `pa.inverse() * pb`
    // would cancel two large products, all rounding at 1e4 and beyond.)
    let core_b = Core::new(b, pa.inverse_mul(pb));
    let local_direction = pa.rotation.inverse() * direction.as_vec2();
    let difference = MinkowskiDifference::new(&core_a, &core_b);
    let to_world = |point: Vec2, normal: Vec2| {
        (
            pa.transform_point(point),
            Dir2::new(pa.rotation * normal).unwrap_or(direction),
        )
    };
    match difference.ray_entry(local_direction, max_distance) {
        RayEntry::Miss => TranslationCast::Miss,
        RayEntry::Start { feature, normal } => {
            let (point, normal) = to_world(
                difference.touch_point(&core_a, &core_b, feature, normal),
                normal,
            );
            TranslationCast::AtStart { point, normal }
        }
        RayEntry::Hit {
            distance,
            feature,
            normal,
        } => {
            let (point, normal) = to_world(
                difference.touch_point(&core_a, &core_b, feature, normal),
                normal,
            );
            TranslationCast::Hit {
                distance,
                point,
                normal,
            }
        }
    }
}

/// A circle cast against a box, the commonest cast (balls, bullets, round
/// characters): a ray from the circle's centre against the box rounded by
/// the radius, in the box's frame, without building the difference.
/// `None` when the circle starts touching or inside the box: the general
/// cast places that.
pub(in crate::geometry) fn circle_into_box(
    radius: f32,
    pa: Isometry2d,
    direction: Dir2,
    max_distance: f32,
    half: Vec2,
    pb: Isometry2d,
) -> Option<TranslationCast> {
    let origin = pb.inverse_mul(pa).translation;
    let d = pb.rotation.inverse() * direction.as_vec2();
    let Some((distance, normal)) = ray_into_rounded_box(origin, d, max_distance, half, radius)?
    else {
        return Some(TranslationCast::Miss);
    };
    let centre = origin + d * distance;
    box_hit(pb, distance, centre - normal * radius, normal)
}

/// A capsule (or segment) cast against a box it lies along, the cast of
/// every upright character against every tile: the box grown by the core
/// along that axis is a box, so the cast is [`circle_into_box`]'s ray
/// against it, its point moved back onto the real box. `None` when the
/// stick is turned against the box, has no radius, or starts touching or
/// inside it: the general cast takes those.
pub(in crate::geometry) fn stick_into_box(
    stick: Stick,
    pa: Isometry2d,
    direction: Dir2,
    max_distance: f32,
    half: Vec2,
    pb: Isometry2d,
) -> Option<TranslationCast> {
    if stick.radius.is_nan() || stick.radius <= 0.0 {
        return None;
    }
    let relative = pb.inverse_mul(pa);
    let core = relative.rotation * (0.5 * (stick.b - stick.a));
    // Lying exactly along one of the box's axes, or not handled here.
    let along = match (core.x == 0.0, core.y == 0.0) {
        (true, _) => Vec2::Y,
        (false, true) => Vec2::X,
        (false, false) => return None,
    };
    let half_length = core.abs().max_element();
    let origin = relative.transform_point(0.5 * (stick.a + stick.b));
    let d = pb.rotation.inverse() * direction.as_vec2();
    let grown = half + along * half_length;
    let Some((distance, normal)) =
        ray_into_rounded_box(origin, d, max_distance, grown, stick.radius)?
    else {
        return Some(TranslationCast::Miss);
    };
    let centre = origin + d * distance;
    let on_grown = centre - normal * stick.radius;
    let u = on_grown.dot(along);
    let point = if normal.dot(along) == 0.0 {
        // The stick's side on a face along it: the middle of what touches,
        // as the general cast places parallel edges.
        let (c, h) = (centre.dot(along), half.dot(along));
        let middle = 0.5 * ((c - half_length).max(-h) + (c + half_length).min(h));
        on_grown + along * (middle - u)
    } else {
        // An end on a face or a corner: back by the core's half length.
        on_grown - along * half_length.copysign(u)
    };
    box_hit(pb, distance, point, normal)
}

/// A hit at `distance` on the box placed by `pb`, at `point` with outward
/// `normal` (both in the box's frame).
fn box_hit(pb: Isometry2d, distance: f32, point: Vec2, normal: Vec2) -> Option<TranslationCast> {
    Some(TranslationCast::Hit {
        distance,
        point: pb.transform_point(point),
        normal: Dir2::new(pb.rotation * normal).ok()?,
    })
}

/// A ray from `origin` along unit `d`, up to `max_distance`, against the box
/// `[-half, half]` rounded by `radius`: `Some(Some((distance, normal)))`
/// where it enters, `Some(None)` when it misses, `None` when the origin is
/// already within `radius` of the box.
fn ray_into_rounded_box(
    origin: Vec2,
    d: Vec2,
    max_distance: f32,
    half: Vec2,
    radius: f32,
) -> Option<Option<(f32, Vec2)>> {
    let outside = (origin.abs() - half).max(Vec2::ZERO);
    if outside.length_squared() <= radius * radius {
        return None;
    }
    // Slab entry into the box grown by the radius (its sharp-cornered
    // hull): the axis entered last is the face crossed, if any.
    let grown = half + radius;
    let mut enter = 0.0_f32;
    let mut exit = max_distance;
    let mut face = Vec2::ZERO;
    for axis in 0..2 {
        let (o, dir, g) = (origin[axis], d[axis], grown[axis]);
        if dir == 0.0 {
            if o.abs() > g {
                return Some(None);
            }
            continue;
        }
        let (near, far) = ((-g.copysign(dir) - o) / dir, (g.copysign(dir) - o) / dir);
        if near > enter {
            enter = near;
            face = Vec2::ZERO;
            face[axis] = -dir.signum();
        }
        exit = exit.min(far);
    }
    if enter > exit {
        return Some(None);
    }
    let entry = origin + d * enter;
    let beyond = entry.abs().cmpgt(half);
    if !beyond.all() {
        return Some(Some((enter, face)));
    }
    // In a corner's region: the rounded boundary there is the circle of
    // the corner, which the ray meets or misses. Solved from the entry
    // point, near the corner: from the origin, far away, the quadratic
    // would cancel to nothing.
    let corner = half * entry.signum();
    let from = entry - corner;
    let b = from.dot(d);
    let c = from.length_squared() - radius * radius;
    let discriminant = b * b - c;
    if discriminant < 0.0 {
        return Some(None);
    }
    let t = enter - b - discriminant.sqrt();
    if !(0.0..=max_distance).contains(&t) {
        return Some(None);
    }
    let at = entry + d * (t - enter);
    let normal =
        ((at - corner) / radius).normalize_or(entry.signum() * core::f32::consts::FRAC_1_SQRT_2);
    Some(Some((t, normal)))
}

/// A cast of the first shape along `direction` by up to `max_distance`
/// against the second, without rotation
/// ([`cast_translation`]).
///
/// Only a circle cast against a rectangle has a test of its own; a
/// rectangle cast against a circle is not the same cast seen from the
/// other side (the cast shape moves), so it goes to the general cast.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TranslationCastOp {
    /// Unit direction of the motion.
    pub(crate) direction: Dir2,
    /// How far the first shape moves at most (`>= 0`, may be infinite).
    pub(crate) max_distance: f32,
}

impl PairOp for TranslationCastOp {
    type Place = Isometry2d;
    type Out = TranslationCast;

    fn apart(self) -> TranslationCast {
        Miss
    }

    /// The first shape moves along the cast; seen from the second, the
    /// second moves back along it.
    fn reach(self, shape: ShapeView<'_>, place: Isometry2d, first: bool) -> Aabb2d {
        let aabb = shape.aabb(place);
        let sign = if first { 1.0 } else { -1.0 };
        let moved = self.direction * (sign * self.max_distance);
        let (min, max) = (aabb.min + moved, aabb.max + moved);
        Aabb2d {
            min: aabb.min.min(min),
            max: aabb.max.max(max),
        }
    }

    /// The nearer: touching at the start before any hit, the nearer hit
    /// before a farther one, any hit before a miss.
    fn better(self, found: TranslationCast, next: TranslationCast) -> TranslationCast {
        match (found, next) {
            (AtStart { .. }, _) | (Hit { .. }, Miss) => found,
            (Hit { distance: f, .. }, Hit { distance: n, .. }) if f <= n => found,
            _ => next,
        }
    }

    /// A hit's normal is the target's: the polyline's when it is the
    /// target, seen from the other side when it is the one cast. A first
    /// touch whose normal the neighbour's face owns is the neighbour's to
    /// report (it touches there too, no later): it is kept a hair farther
    /// (the next float), so that the neighbour's own hit comes first, and
    /// the touch is never lost where both of them leave it to the other (a
    /// box's corner meeting the vertex exactly). A start in contact is
    /// left to the contact test.
    fn ghost_rule(
        self,
        found: TranslationCast,
        segment: &ChainSegment,
        chain: Isometry2d,
        _: ShapeView<'_>,
        _: Isometry2d,
        chain_first: bool,
    ) -> TranslationCast {
        let Hit {
            distance,
            point,
            normal,
        } = found
        else {
            return found;
        };
        let sign = if chain_first { -1.0 } else { 1.0 };
        match segment.classify_at(chain, *normal * sign) {
            GhostRule::Keep => found,
            GhostRule::Skip { .. } => Hit {
                distance: distance.next_up().min(self.max_distance),
                point,
                normal,
            },
        }
    }

    /// A hit either polyline leaves to a neighbour comes after the
    /// neighbour's.
    fn stricter(
        self,
        _: TranslationCast,
        x: TranslationCast,
        y: TranslationCast,
    ) -> TranslationCast {
        match (x, y) {
            (Hit { distance: dx, .. }, Hit { distance: dy, .. }) if dy > dx => y,
            _ => x,
        }
    }

    #[inline(always)]
    fn general(
        self,
        a: ConvexRef<'_>,
        pa: Isometry2d,
        b: ConvexRef<'_>,
        pb: Isometry2d,
    ) -> TranslationCast {
        cast_translation_convex(a, pa, self.direction, self.max_distance, b, pb)
    }

    /// [`circle_into_box`], or the general cast when the circle starts
    /// touching or inside the box.
    #[inline(always)]
    fn circle_rect(
        self,
        radius: f32,
        pa: Isometry2d,
        half_size: Vec2,
        pb: Isometry2d,
    ) -> Option<TranslationCast> {
        circle_into_box(radius, pa, self.direction, self.max_distance, half_size, pb)
    }

    /// [`stick_into_box`], or the general cast.
    #[inline(always)]
    fn stick_rect(
        self,
        stick: Stick,
        pa: Isometry2d,
        half_size: Vec2,
        pb: Isometry2d,
    ) -> Option<TranslationCast> {
        stick_into_box(stick, pa, self.direction, self.max_distance, half_size, pb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::math::Rot2;

    fn rect(w: f32, h: f32) -> ShapeView<'static> {
        ShapeView::Convex(ConvexRef::Rect {
            half_size: Vec2::new(w, h) / 2.0,
        })
    }

    #[test]
    fn circle_hits_rect_face_and_corner() {
        let ball = ShapeView::Convex(ConvexRef::Circle { radius: 1.0 });
        let cast = |from: Vec2, d: Vec2| {
            cast_translation(
                ball,
                Isometry2d::from_translation(from),
                Dir2::new(d).unwrap(),
                f32::INFINITY,
                rect(2.0, 2.0),
                Isometry2d::from_xy(5.0, 0.0),
            )
        };
        assert_eq!(
            cast(Vec2::ZERO, Vec2::X),
            TranslationCast::Hit {
                distance: 3.0,
                point: Vec2::new(4.0, 0.0),
                normal: Dir2::NEG_X
            }
        );
        // Past the corner (4, 1) at a height where only the cap meets it.
        let TranslationCast::Hit {
            distance, normal, ..
        } = cast(Vec2::new(0.0, 1.5), Vec2::X)
        else {
            panic!()
        };
        let expected = 4.0 - (1.0f32 - 0.25).sqrt();
        assert!((distance - expected).abs() < 1e-6, "{distance}");
        assert!(normal.y > 0.0 && normal.x < 0.0);
        assert_eq!(cast(Vec2::new(0.0, 2.5), Vec2::X), TranslationCast::Miss);
    }

    /// The capsule-into-box cast answers as the general one: random
    /// capsules lying along random boxes (both upright, or both turned
    /// alike), cast every way from around them.
    #[test]
    fn stick_into_box_matches_the_general_cast() {
        use rand::{Rng, SeedableRng, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(0x2545_f491_4f6c_dd1d);
        let mut random = move |low: f32, high: f32| rng.random_range(low..high);
        let (mut hits, mut misses) = (0, 0);
        for i in 0..20_000 {
            let (radius, half_length) = (random(0.5, 4.0), random(0.0, 6.0));
            let half = Vec2::new(random(0.5, 20.0), random(0.5, 20.0));
            let turn = match i % 3 {
                0 => Rot2::IDENTITY,
                1 => Rot2 { cos: 0.0, sin: 1.0 },
                _ => Rot2::radians(random(-3.0, 3.0)),
            };
            let box_pose =
                Isometry2d::new(Vec2::new(random(-50.0, 50.0), random(-50.0, 50.0)), turn);
            let offset = Vec2::new(random(-40.0, 40.0), random(-40.0, 40.0));
            let quarter = if i % 2 == 0 {
                Rot2::IDENTITY
            } else {
                Rot2 { cos: 0.0, sin: 1.0 }
            };
            let pa = Isometry2d::new(box_pose.translation + offset, turn * quarter);
            let direction = Dir2::from_xy(random(-1.0, 1.0), random(-1.0, 1.0)).unwrap_or(Dir2::X);
            let max_distance = random(0.0, 80.0);
            let capsule = ConvexRef::Capsule {
                radius,
                half_length,
            };
            let stick = Stick::capsule(radius, half_length);
            let general = cast_translation_convex(
                capsule,
                pa,
                direction,
                max_distance,
                ConvexRef::Rect { half_size: half },
                box_pose,
            );
            let Some(ours) = stick_into_box(stick, pa, direction, max_distance, half, box_pose)
            else {
                // Only a start in contact, or a turn not exactly along the
                // box, is left to the general cast.
                let relative = box_pose.inverse_mul(pa).rotation * Vec2::Y;
                assert!(
                    matches!(general, AtStart { .. }) || (relative.x != 0.0 && relative.y != 0.0),
                    "{general:?}"
                );
                continue;
            };
            let context = format!(
                "{capsule:?} at {pa:?} along {direction:?} by {max_distance} into {half} at {box_pose:?}"
            );
            match (ours, general) {
                (Miss, Miss) => misses += 1,
                (
                    Hit {
                        distance,
                        point,
                        normal,
                    },
                    Hit {
                        distance: d,
                        point: p,
                        normal: n,
                    },
                ) => {
                    hits += 1;
                    assert!((distance - d).abs() < 1e-3, "{distance} {d}: {context}");
                    assert!(normal.dot(*n) > 1.0 - 1e-4, "{normal:?} {n:?}: {context}");
                    assert!(point.distance(p) < 1e-2, "{point} {p}: {context}");
                }
                other => panic!("{other:?}: {context}"),
            }
        }
        assert!(hits > 2000 && misses > 2000, "{hits} hits, {misses} misses");
    }
}
