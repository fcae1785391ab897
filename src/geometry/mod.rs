//! Pure 2D collision geometry: shapes, exact overlap tests, contacts and
//! contact manifolds, ray and shape casts, and swept tests (time of
//! impact).
//!
//! Nothing here knows about the ECS. Shapes are centred at their local origin
//! and a pose ([`Isometry2d`](bevy::math::Isometry2d)) places them in the
//! world, as in `bevy_shape`. Every function is deterministic and
//! never returns NaN for valid shapes and finite poses.

mod checked;
mod compound;
mod concave;
mod contact;
mod convex;
mod dispatch;
mod holes;
mod manifold;
mod pairs;
mod part_grid;
mod polygon;
mod polyline;
mod pose;
mod push_out;
mod ray;
mod ray_hollow;
mod shape;
mod shape_cast;
mod shape_ref;
mod swept;
mod translation_cast;

#[cfg(test)]
mod cast_reference_tests;
#[cfg(test)]
mod chain_reference_tests;
#[cfg(test)]
mod hollow_reference_tests;
#[cfg(test)]
mod manifold_reference_tests;
#[cfg(test)]
mod property_tests;
#[cfg(test)]
mod reference_tests;

pub use checked::{MAX_MAGNITUDE, ShapeError, validate_pose};
pub(crate) use checked::{checked_placement, checked_pose, within_magnitude};
pub use compound::{Compound, CompoundPart};
pub(crate) use concave::convex_pieces;
pub use contact::{Contact, ContactParts};
pub(crate) use dispatch::{ContactOp, PairShape, SpecialKind, dispatch};
pub(crate) use dispatch::{
    ListedPart, contact_with_listed_parts, for_each_part_contact, prefetch_parts, visit_parts_in,
};
pub(crate) use holes::convex_pieces_with_holes;
pub use manifold::{FeatureId, Manifold, ManifoldPoint};
pub(crate) use manifold::{for_each_manifold, manifold_of};
pub(crate) use pairs::Stick;
pub use pairs::{
    circle_circle_contact, circle_circle_intersects, circle_rect_contact, circle_rect_intersects,
    rect_rect_contact, rect_rect_intersects,
};
pub use polygon::ConvexPolygon;
pub(crate) use polygon::scaled_points_into;
pub(crate) use pose::TransformReading;
pub use push_out::push_out;
pub(crate) use ray::checked_ray;
pub use ray::{RayIntersection, ray_circle, ray_rect, ray_segment};
pub use shape::Shape;
pub(crate) use shape_cast::cast_shape_of;
pub use shape_cast::{ShapeCastHit, cast_shape};
pub(crate) use shape_ref::{PolygonRef, ShapeRef};
pub use swept::{Impact, MAX_SUBSTEP_ANGLE, Sweep, swept_aabb, time_of_impact};
pub(crate) use swept::{swept_aabb_of, time_of_impact_from_apart};
