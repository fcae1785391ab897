//! Point queries on one shape: whether it contains a point
//! ([`Shape::contains_point`]) and the nearest point of its boundary
//! (`project_point`, what `SpatialQuery::project_point` reads).

use bevy::math::{Isometry2d, Vec2};
use bevy::shape::Aabb2d;

use crate::geometry::convex;
use crate::geometry::convex::cores::Core;
use crate::geometry::query::closest_points::closest_points_of;
use crate::geometry::query::parts::PartPlace;
use crate::geometry::shape::Shape;
use crate::geometry::shape::compound::Compound;
use crate::geometry::shape::view::{ConvexRef, ShapeView};

impl Shape {
    /// Whether the shape at `pose` contains `point` (boundary included; a
    /// segment contains the points on it, to within rounding).
    pub fn contains_point(&self, pose: Isometry2d, point: Vec2) -> bool {
        self.view().contains_point(pose, point)
    }
}

impl ShapeView<'_> {
    /// The nearest point of the shape's boundary at `pose` to `point`, and
    /// whether `point` is inside it (boundary included; on a segment is
    /// inside). A compound answers for its parts within `within` of `point`
    /// (see [`compound_projection`]), `None` when none is.
    pub(crate) fn project_point(
        &self,
        pose: Isometry2d,
        point: Vec2,
        within: f32,
    ) -> Option<(Vec2, bool)> {
        match *self {
            ShapeView::Convex(convex) => convex.project_point(pose, point),
            ShapeView::Compound(compound) => compound_projection(compound, pose, point, within),
        }
    }

    pub(crate) fn contains_point(&self, pose: Isometry2d, point: Vec2) -> bool {
        match *self {
            ShapeView::Convex(convex) => convex.contains_point(pose, point),
            ShapeView::Compound(compound) => compound_contains(compound, pose, point),
        }
    }
}

impl ConvexRef<'_> {
    /// [`ShapeView::project_point`] for a convex shape.
    fn project_point(&self, pose: Isometry2d, point: Vec2) -> Option<(Vec2, bool)> {
        match *self {
            // The common kinds directly (the general way below costs a
            // contact and a closest-point search); a point at a circle's
            // centre, on no one nearest boundary point, goes the general way.
            ConvexRef::Circle { radius } => {
                let offset = point - pose.translation;
                let length = offset.length();
                if length > 0.0 {
                    let on = pose.translation + offset * (radius / length);
                    return Some((on, length <= radius));
                }
            }
            ConvexRef::Rect { half_size } => {
                let local = pose.inverse_transform_point(point);
                let clamped = local.clamp(-half_size, half_size);
                if clamped != local {
                    return Some((pose.transform_point(clamped), false));
                }
                // Inside: out through the nearest side.
                let room = half_size - local.abs();
                let mut on = local;
                if room.x <= room.y {
                    on.x = half_size.x.copysign(local.x);
                } else {
                    on.y = half_size.y.copysign(local.y);
                }
                return Some((pose.transform_point(on), true));
            }
            _ => {}
        }
        self.project_point_by_contact(pose, point)
    }

    /// [`Self::project_point`] the general way: the point as a circle of no
    /// size, whose contact says how it leaves the shape and whose closest
    /// points where the shape is nearest.
    fn project_point_by_contact(&self, pose: Isometry2d, point: Vec2) -> Option<(Vec2, bool)> {
        let dot = ShapeView::Convex(ConvexRef::Circle { radius: 0.0 });
        let at = Isometry2d::from_translation(point);
        let shape = ShapeView::Convex(*self);
        if let Some(contact) = dot.contact(at, shape, pose) {
            return Some((point - *contact.normal * contact.depth, true));
        }
        let (_, on_shape, _) = closest_points_of(dot, at, shape, pose)?;
        Some((on_shape, false))
    }

    /// [`ShapeView::contains_point`] for a convex shape.
    fn contains_point(&self, pose: Isometry2d, point: Vec2) -> bool {
        match *self {
            ConvexRef::Circle { radius } => {
                (point - pose.translation).length_squared() <= radius * radius
            }
            ConvexRef::Rect { half_size } => {
                let local = pose.inverse_transform_point(point);
                local.abs().cmple(half_size).all()
            }
            ConvexRef::Segment { a, b } => {
                let (a, b) = (pose.transform_point(a), pose.transform_point(b));
                let (on_segment, _) = convex::closest_points_on_segments(a, b, point, point);
                // Exactly on the line is rarely representable: a few float
                // steps of the magnitudes involved count as on it.
                let scale = a.abs().max(b.abs()).max(point.abs()).max_element();
                on_segment.distance(point) <= scale * (4.0 * f32::EPSILON)
            }
            _ => convex::intersects(
                &Core::new(*self, pose),
                &Core::new(
                    ConvexRef::Circle { radius: 0.0 },
                    Isometry2d::from_translation(point),
                ),
            ),
        }
    }
}

/// [`ShapeView::project_point`] for a compound: of its parts within
/// `within` of `point`, the deepest one containing `point`, else the
/// nearest. Out of line: rare.
#[inline(never)]
fn compound_projection(
    compound: &Compound,
    pose: Isometry2d,
    point: Vec2,
    within: f32,
) -> Option<(Vec2, bool)> {
    // Inside before outside; deeper inside, nearer outside.
    let rank = |(on, inside): (Vec2, bool)| {
        let distance = on.distance(point);
        (!inside, if inside { -distance } else { distance })
    };
    let mut best: Option<(Vec2, bool)> = None;
    let near = || pose.local_box(Aabb2d::new(point, Vec2::splat(within)));
    compound.visit_parts(near, |_, part| {
        let found = (part.shape.view()).project_point(pose * part.pose, point, within);
        if let Some(found) = found
            && best.is_none_or(|best| rank(found) < rank(best))
        {
            best = Some(found);
        }
    });
    best
}

/// Whether a part of `compound` at `pose` near `point` contains it. Out of
/// line: rare, and the shape tests' callers stay small.
#[inline(never)]
fn compound_contains(compound: &Compound, pose: Isometry2d, point: Vec2) -> bool {
    let mut inside = false;
    let near = || pose.local_box(Aabb2d::new(point, Vec2::ZERO));
    compound.visit_parts(near, |_, part| {
        inside = inside || part.shape.contains_point(pose * part.pose, point);
    });
    inside
}

#[cfg(test)]
mod tests {
    use bevy::math::Rot2;

    use super::*;

    #[test]
    fn contains_point_includes_the_boundary() {
        let rect = Shape::Rect {
            half_size: Vec2::new(2.0, 1.0),
        };
        let pose = Isometry2d::new(Vec2::ZERO, Rot2::degrees(90.0));
        assert!(rect.contains_point(pose, Vec2::new(0.0, 1.9)));
        assert!(!rect.contains_point(pose, Vec2::new(1.9, 0.0)));
        let circle = Shape::Circle { radius: 1.0 };
        assert!(circle.contains_point(Isometry2d::IDENTITY, Vec2::X));
        assert!(!circle.contains_point(Isometry2d::IDENTITY, Vec2::new(1.0, 0.01)));
    }

    /// The direct projections of circles and rectangles agree with the
    /// general one (a contact inside, closest points outside) on points in,
    /// on and around random shapes.
    #[test]
    fn direct_projections_match_the_general_one() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..20_000 {
            let size = Vec2::new(rng.random_range(0.1..5.0), rng.random_range(0.1..5.0));
            let shape = if rng.random_bool(0.5) {
                ConvexRef::Circle { radius: size.x }
            } else {
                ConvexRef::Rect { half_size: size }
            };
            let centre = Vec2::new(rng.random_range(-9.0..9.0), rng.random_range(-9.0..9.0));
            let pose = Isometry2d::new(centre, Rot2::radians(rng.random_range(-4.0..4.0)));
            let offset = Vec2::new(rng.random_range(-8.0..8.0), rng.random_range(-8.0..8.0));
            let point = centre + offset;
            let (direct, inside) = shape.project_point(pose, point).unwrap();
            let (general, general_inside) = shape.project_point_by_contact(pose, point).unwrap();
            let depth = general.distance(point);
            if depth > 1e-4 {
                assert_eq!(inside, general_inside, "{shape:?} {pose:?} {point}");
            }
            // Equally near; the same point unless two sides are as near.
            assert!(
                (direct.distance(point) - depth).abs() < 1e-4,
                "{shape:?} {point}"
            );
            let tied = matches!(shape, ConvexRef::Rect { half_size } if inside
            && {
                let room = half_size - pose.inverse_transform_point(point).abs();
                (room.x - room.y).abs() < 1e-4
            });
            // (The general one's closest points are exact to about 1e-3 of
            // the distance along the side.)
            if !tied {
                assert!(
                    direct.distance(general) < 1e-3 * (1.0 + depth),
                    "{shape:?} {pose:?} {point}: {direct} vs {general}"
                );
            }
        }
    }
}
