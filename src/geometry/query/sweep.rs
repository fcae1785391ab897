//! The motion of a shape over one detection step ([`Sweep`]), of a part of
//! a turning compound (`PartSweep`), and the box a moving shape covers:
//! what the time of impact and the swept detection read.

use bevy::math::{Isometry2d, Rot2, Vec2};
use bevy::shape::{Aabb2d, BoundingVolume};

use crate::geometry::query::parts::PartPlace;
use crate::geometry::shape::Shape;
use crate::geometry::shape::view::{ConvexRef, ShapeView};

/// The motion of a shape over one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sweep {
    /// The pose at the start of the step (`t = 0`).
    pub start: Isometry2d,
    /// The pose at the end of the step (`t = 1`).
    pub end: Isometry2d,
}

/// A shape's motion over the step as a part of a body that moves along
/// `body`: the shape sits at `part` in the body's frame and turns with it
/// about the body's origin, so a part off the origin of a turning compound
/// moves along an arc (a rigid turn), not along the chord of it. A shape on
/// its own is a part at the identity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PartSweep {
    pub(in crate::geometry) body: Sweep,
    pub(in crate::geometry) part: Isometry2d,
    /// `body.angle()`, worked out once: it takes an arctangent, and every
    /// part pair of a compound reads it.
    angle: f32,
}

impl PartSweep {
    /// A shape moving along `sweep` on its own.
    pub(crate) fn whole(sweep: Sweep) -> Self {
        Self {
            body: sweep,
            part: Isometry2d::IDENTITY,
            // A sweep that does not turn needs no arctangent.
            angle: if sweep.start.rotation == sweep.end.rotation {
                0.0
            } else {
                sweep.angle()
            },
        }
    }

    /// The motion as a plain [`Sweep`] of the shape's own pose when it is
    /// one (see [`PartPlace::of_part`]): the exact pair tests take only
    /// those.
    #[inline]
    pub(in crate::geometry) fn as_sweep(self) -> Option<Sweep> {
        (self.part == Isometry2d::IDENTITY).then_some(self.body)
    }

    /// The rotation over the step ([`Sweep::angle`]).
    pub(in crate::geometry) fn angle(&self) -> f32 {
        self.angle
    }

    /// The shape's pose at `t`, the body's angle already known.
    pub(in crate::geometry) fn at_angle(&self, angle: f32, t: f32) -> Isometry2d {
        self.body.at_angle(angle, t) * self.part
    }

    /// The shape's pose at `t`.
    pub(in crate::geometry) fn at(&self, t: f32) -> Isometry2d {
        self.at_angle(self.angle, t)
    }

    /// How far the shape's origin is from the centre it turns about.
    pub(in crate::geometry) fn arm(&self) -> f32 {
        self.part.translation.length()
    }

    /// A box holding the shape everywhere along the motion.
    pub(in crate::geometry) fn swept_aabb(self, shape: ShapeView<'_>) -> Aabb2d {
        match self.as_sweep() {
            Some(sweep) => swept_aabb_of(shape, sweep),
            // Every point stays within its distance of the body's origin,
            // which moves in a straight line.
            None => {
                let reach = Vec2::splat(self.arm() + shape.bounding_radius());
                let (start, end) = (self.body.start.translation, self.body.end.translation);
                Aabb2d::new(start, reach).merge(&Aabb2d::new(end, reach))
            }
        }
    }
}

/// A compound's part turns with the compound. When the compound does not
/// turn, or the part sits at its origin, the part's own pose moves in a
/// straight line while turning at a constant rate: a plain sweep of it.
impl PartPlace for PartSweep {
    #[inline]
    fn of_part(self, part: Isometry2d) -> Self {
        let part = self.part * part;
        let turns = self.body.start.rotation != self.body.end.rotation;
        if !turns || part.translation == Vec2::ZERO {
            Self::whole(Sweep::new(self.body.start * part, self.body.end * part))
        } else {
            Self { part, ..self }
        }
    }

    fn pose(self) -> Option<Isometry2d> {
        None
    }

    /// Without turning, what the compound sees moves in a straight line
    /// from its box at the start to its box at the end.
    fn local_box(self, world: Aabb2d) -> Option<Aabb2d> {
        let (start, end) = (self.body.start * self.part, self.body.end * self.part);
        if start.rotation != end.rotation {
            return None;
        }
        Some(start.local_box(world)?.merge(&end.local_box(world)?))
    }
}

impl Sweep {
    /// A motion from `start` to `end`.
    pub fn new(start: Isometry2d, end: Isometry2d) -> Self {
        Self { start, end }
    }

    /// A shape that stays at `pose` for the whole step.
    pub fn stationary(pose: Isometry2d) -> Self {
        Self::new(pose, pose)
    }

    /// The rotation over the step, the shortest way: radians in `(-π, π]`.
    pub fn angle(&self) -> f32 {
        (self.end.rotation * self.start.rotation.inverse()).as_radians()
    }

    /// The displacement of the centre over the step.
    pub fn displacement(&self) -> Vec2 {
        self.end.translation - self.start.translation
    }

    /// The pose at `t` (0 = start, 1 = end).
    pub fn at(&self, t: f32) -> Isometry2d {
        self.at_angle(self.angle(), t)
    }

    /// [`Self::at`] with [`Self::angle`] already known (it takes an
    /// arctangent, which loops should not pay for every time).
    pub(in crate::geometry) fn at_angle(&self, angle: f32, t: f32) -> Isometry2d {
        if t >= 1.0 {
            return self.end;
        }
        Isometry2d::new(
            self.translation_at(t),
            self.start.rotation * Rot2::radians(angle * t),
        )
    }

    /// The centre at `t`, as in [`Self::at`].
    pub(in crate::geometry) fn translation_at(&self, t: f32) -> Vec2 {
        if t >= 1.0 {
            self.end.translation
        } else {
            self.start.translation + self.displacement() * t
        }
    }
}

/// A box holding `shape` everywhere along `sweep`: the union of its boxes at
/// the two ends, or, when it rotates and is not a circle, of its bounding
/// circle's boxes at the two ends (a turning rectangle can reach beyond
/// both end boxes on the way; its bounding circle cannot).
pub fn swept_aabb(shape: &Shape, sweep: Sweep) -> Aabb2d {
    swept_aabb_of(shape.view(), sweep)
}

/// [`swept_aabb`] for a shape seen by reference.
pub(crate) fn swept_aabb_of(shape: ShapeView<'_>, sweep: Sweep) -> Aabb2d {
    let turns = sweep.start.rotation != sweep.end.rotation;
    if turns && !matches!(shape, ShapeView::Convex(ConvexRef::Circle { .. })) {
        return bounding_circles_aabb(sweep, shape.bounding_radius());
    }
    shape.aabb(sweep.start).merge(&shape.aabb(sweep.end))
}

/// The box around the circles of `radius` about a shape's origin at both
/// ends of `sweep`: they hold it at any turn.
fn bounding_circles_aabb(sweep: Sweep, radius: f32) -> Aabb2d {
    let reach = Vec2::splat(radius);
    Aabb2d::new(sweep.start.translation, reach).merge(&Aabb2d::new(sweep.end.translation, reach))
}

/// A box holding `shape` everywhere along `sweep`, as detection files a
/// moving collider: [`swept_aabb_of`]'s, cut down for a turning shape by
/// [`turning_path_aabb`] (a body spinning a little each step keeps a box
/// about its own size, not one around its whole reach).
pub(crate) fn path_aabb_of(shape: ShapeView<'_>, sweep: Sweep) -> Aabb2d {
    let turns = sweep.start.rotation != sweep.end.rotation;
    if !turns || matches!(shape, ShapeView::Convex(ConvexRef::Circle { .. })) {
        return swept_aabb_of(shape, sweep);
    }
    let ends = [sweep.start, sweep.end].map(|pose| shape.aabb(pose));
    turning_path_aabb(sweep, shape.bounding_radius(), ends)
}

/// The box of the path along turning `sweep` of a shape of bounding
/// `radius` about its origin, with boxes `ends` at the two ends: the boxes
/// of its bounding circle at both ends (as [`swept_aabb_of`]), cut down to
/// the box around `ends` grown by how far a point can stray on the way from
/// the straight line between where it is at the two ends. A point `r` from
/// the origin strays at most `r θ² / 8` on a turn of `θ` (the error of
/// linear interpolation, whose second derivative is `r θ²` here).
pub(crate) fn turning_path_aabb(sweep: Sweep, radius: f32, ends: [Aabb2d; 2]) -> Aabb2d {
    let circles = bounding_circles_aabb(sweep, radius);
    let turn = sweep.angle();
    // The end boxes are as exact as rounding allows; so is the stray.
    let largest = (sweep.start.translation.abs())
        .max(sweep.end.translation.abs())
        .max_element()
        + radius;
    let stray = radius * turn * turn / 8.0 + largest * (8.0 * f32::EPSILON);
    let straight = ends[0].merge(&ends[1]).grow(Vec2::splat(stray));
    Aabb2d {
        min: circles.min.max(straight.min),
        max: circles.max.min(straight.max),
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::*;
    use crate::geometry::reference_tests::{Kind, random_pose, random_shape_of};

    fn pose(x: f32, y: f32, angle: f32) -> Isometry2d {
        Isometry2d::new(Vec2::new(x, y), Rot2::radians(angle))
    }

    fn moving(from: Vec2, to: Vec2) -> Sweep {
        Sweep::new(
            Isometry2d::from_translation(from),
            Isometry2d::from_translation(to),
        )
    }

    #[test]
    fn swept_aabb_holds_every_pose_on_the_way() {
        let rect = Shape::Rect {
            half_size: Vec2::new(4.0, 0.5),
        };
        let sweep = Sweep::new(pose(0.0, 0.0, 0.0), pose(10.0, 0.0, 1.5));
        let bounds = swept_aabb(&rect, sweep);
        for k in 0..=100 {
            let inner = rect.aabb(sweep.at(k as f32 / 100.0));
            assert!(bounds.contains(&inner), "t = {}", k as f32 / 100.0);
        }
        let circle = Shape::Circle { radius: 1.0 };
        let bounds = swept_aabb(&circle, moving(Vec2::ZERO, Vec2::new(10.0, -5.0)));
        assert!((bounds.min - Vec2::new(-1.0, -6.0)).abs().max_element() < 1e-4);
        assert!((bounds.max - Vec2::new(11.0, 1.0)).abs().max_element() < 1e-4);
    }

    /// A detection path box holds the shape at every pose on the way (its
    /// box there, within rounding), turning a little or a lot, far from
    /// the origin or not; and a body turning a little keeps a box about its
    /// own size.
    #[test]
    fn path_boxes_hold_every_pose_on_the_way() {
        let mut rng = StdRng::seed_from_u64(77);
        let mut tighter = 0;
        for round in 0..3_000 {
            let shape = random_shape_of(&mut rng, Kind::ALL[round % 5], 3.0);
            let far = Vec2::splat([0.0, 500.0, -2e4][round % 3]);
            let start = random_pose(&mut rng, 5.0);
            let start = Isometry2d::new(start.translation + far, start.rotation);
            let turn = [0.02, 0.3, 3.1][(round / 3) % 3] * rng.random_range(-1.0..1.0);
            let step = Vec2::new(rng.random_range(-4.0..4.0), rng.random_range(-4.0..4.0));
            let end = Isometry2d::new(
                start.translation + step,
                start.rotation * Rot2::radians(turn),
            );
            let sweep = Sweep::new(start, end);
            let path = path_aabb_of(shape.view(), sweep);
            let circles = swept_aabb_of(shape.view(), sweep);
            assert!(
                circles.contains(&path),
                "round {round}: not within the circles' box"
            );
            let rounding = (far.abs().max_element() + 10.0) * 1e-6;
            for k in 0..=64 {
                let at = shape.aabb(sweep.at(k as f32 / 64.0));
                assert!(
                    (path.min - at.min).max_element() <= rounding
                        && (at.max - path.max).max_element() <= rounding,
                    "round {round}, t = {k}/64: {at:?} not in {path:?}"
                );
            }
            let area = |b: Aabb2d| (b.max - b.min).x * (b.max - b.min).y;
            if area(path) < 0.8 * area(circles) {
                tighter += 1;
            }
        }
        assert!(tighter > 1_000, "{tighter}");
    }
}
