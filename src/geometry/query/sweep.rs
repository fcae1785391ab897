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
            angle: sweep.angle(),
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
    let bounds = |pose: Isometry2d| match shape {
        ShapeView::Convex(ConvexRef::Circle { .. }) => shape.aabb(pose),
        _ if turns => Aabb2d::new(pose.translation, Vec2::splat(shape.bounding_radius())),
        _ => shape.aabb(pose),
    };
    bounds(sweep.start).merge(&bounds(sweep.end))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
