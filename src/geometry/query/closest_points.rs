//! The closest points of two shapes that are apart
//! ([`Shape::closest_points`]): of the nearest pair of parts when either is
//! a compound.

use bevy::math::{Isometry2d, Vec2};

use crate::geometry::convex;
use crate::geometry::shape::Shape;
use crate::geometry::shape::view::ShapeView;

impl Shape {
    /// The closest points of this shape at `pose` and `other` at
    /// `other_pose` (on this one, on the other) and the distance between
    /// them; `None` when they overlap or touch.
    pub fn closest_points(
        &self,
        pose: Isometry2d,
        other: &Shape,
        other_pose: Isometry2d,
    ) -> Option<(Vec2, Vec2, f32)> {
        // The same yes/no answer as `intersects`, whichever test it uses.
        if self.intersects(pose, other, other_pose) {
            return None;
        }
        closest_points_of(self.view(), pose, other.view(), other_pose)
    }
}

/// The closest points of two shapes known to be apart: of the nearest part
/// pair when either is a compound.
pub(in crate::geometry) fn closest_points_of(
    a: ShapeView<'_>,
    pa: Isometry2d,
    b: ShapeView<'_>,
    pb: Isometry2d,
) -> Option<(Vec2, Vec2, f32)> {
    let nearest =
        |found: Option<(Vec2, Vec2, f32)>, next: Option<(Vec2, Vec2, f32)>| match (found, next) {
            (Some(f), Some(n)) if n.2 < f.2 => Some(n),
            (None, n) => n,
            (f, _) => f,
        };
    match (a, b) {
        (ShapeView::Compound(compound), _) => (compound.parts().iter())
            .map(|part| closest_points_of(part.shape.view(), pa * part.pose, b, pb))
            .fold(None, nearest),
        (_, ShapeView::Compound(compound)) => (compound.parts().iter())
            .map(|part| closest_points_of(a, pa, part.shape.view(), pb * part.pose))
            .fold(None, nearest),
        (ShapeView::Convex(a), ShapeView::Convex(b)) => {
            convex::closest_surface_points_at(a, pa, b, pb)
        }
    }
}
