//! Whether two shapes overlap or touch: [`Shape::intersects`], the cheapest
//! pair query (no contact is built), through the one pair dispatch.

use bevy::math::{Isometry2d, Vec2};
use bevy::shape::Aabb2d;

use crate::geometry::convex;
use crate::geometry::pairs::circle_circle::circle_circle_intersects;
use crate::geometry::pairs::circle_rect::circle_rect_intersects;
use crate::geometry::pairs::rect_rect::rect_rect_intersects;
use crate::geometry::pairs::sticks::{Stick, circle_stick_intersects};
use crate::geometry::query::dispatch::{PairOp, dispatch};
use crate::geometry::shape::Shape;
use crate::geometry::shape::view::{ConvexRef, ShapeView};

impl Shape {
    /// Whether this shape at `pose` and `other` at `other_pose` overlap or
    /// touch. Same answer as [`Shape::contact`]`.is_some()`, cheaper.
    pub fn intersects(&self, pose: Isometry2d, other: &Shape, other_pose: Isometry2d) -> bool {
        dispatch(IntersectsOp, self, pose, other, other_pose)
    }
}

impl ShapeView<'_> {
    #[inline]
    pub(crate) fn intersects(
        &self,
        pose: Isometry2d,
        other: ShapeView<'_>,
        other_pose: Isometry2d,
    ) -> bool {
        dispatch(IntersectsOp, *self, pose, other, other_pose)
    }
}

/// Whether two shapes at their poses overlap or touch
/// ([`Shape::intersects`](crate::geometry::Shape::intersects)).
#[derive(Clone, Copy, Debug)]
pub(crate) struct IntersectsOp;

impl PairOp for IntersectsOp {
    const AT_PLACE: bool = true;
    type Place = Isometry2d;
    type Out = bool;

    fn apart(self) -> bool {
        false
    }

    fn better(self, found: bool, next: bool) -> bool {
        found || next
    }

    fn reach(self, shape: ShapeView<'_>, place: Isometry2d, _: bool) -> Aabb2d {
        shape.aabb(place)
    }

    #[inline(always)]
    fn general(self, a: ConvexRef<'_>, pa: Isometry2d, b: ConvexRef<'_>, pb: Isometry2d) -> bool {
        convex::intersects_at(a, pa, b, pb)
    }

    #[inline(always)]
    fn circle_circle(self, ra: f32, pa: Isometry2d, rb: f32, pb: Isometry2d) -> Option<bool> {
        Some(circle_circle_intersects(
            ra,
            pa.translation,
            rb,
            pb.translation,
        ))
    }

    #[inline(always)]
    fn circle_rect(
        self,
        radius: f32,
        pa: Isometry2d,
        half_size: Vec2,
        pb: Isometry2d,
    ) -> Option<bool> {
        Some(circle_rect_intersects(
            radius,
            pa.translation,
            half_size,
            pb,
        ))
    }

    /// The circle–rectangle test with the shapes swapped: a yes/no answer
    /// needs no flipping.
    #[inline(always)]
    fn rect_circle(
        self,
        half_size: Vec2,
        pa: Isometry2d,
        radius: f32,
        pb: Isometry2d,
    ) -> Option<bool> {
        self.circle_rect(radius, pb, half_size, pa)
    }

    #[inline(always)]
    fn rect_rect(self, ha: Vec2, pa: Isometry2d, hb: Vec2, pb: Isometry2d) -> Option<bool> {
        Some(rect_rect_intersects(ha, pa, hb, pb))
    }

    #[inline(always)]
    fn circle_stick(
        self,
        radius: f32,
        pa: Isometry2d,
        stick: Stick,
        pb: Isometry2d,
    ) -> Option<bool> {
        circle_stick_intersects(radius, pa.translation, stick, pb)
    }

    #[inline(always)]
    fn stick_circle(
        self,
        stick: Stick,
        pa: Isometry2d,
        radius: f32,
        pb: Isometry2d,
    ) -> Option<bool> {
        self.circle_stick(radius, pb, stick, pa)
    }
}
