//! Pure 2D collision geometry: shapes, exact overlap tests, contacts and
//! contact manifolds, ray and shape casts, and swept tests (time of
//! impact).
//!
//! Nothing here knows about the ECS. Shapes are centred at their local origin
//! and a pose ([`Isometry2d`](bevy::math::Isometry2d)) places them in the
//! world, as in `bevy_shape`. Every function is deterministic and
//! never returns NaN for valid shapes and finite poses.

mod contact;
mod convex;
mod pairs;
mod query;
mod shape;

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

pub use contact::{Contact, ContactParts, FeatureId, Manifold, ManifoldPoint};
pub(crate) use pairs::Stick;
pub use pairs::{
    circle_circle_contact, circle_circle_intersects, circle_rect_contact, circle_rect_intersects,
    rect_rect_contact, rect_rect_intersects,
};
pub(crate) use query::contact::{ContactOp, contact_with_listed_parts, for_each_part_contact};
pub(crate) use query::dispatch::{PairShape, SpecialKind, dispatch};
pub(crate) use query::manifold::{for_each_manifold, manifold_of};
pub(crate) use query::parts::{ListedPart, prefetch_parts, visit_parts_in};
pub use query::push_out::push_out;
pub(crate) use query::ray::checked_ray;
pub use query::ray::{RayIntersection, ray_circle, ray_rect, ray_segment};
pub(crate) use query::shape_cast::cast_shape_of;
pub use query::shape_cast::{ShapeCastHit, cast_shape};
pub(crate) use query::sweep::swept_aabb_of;
pub use query::sweep::{Sweep, swept_aabb};
pub(crate) use query::time_of_impact::time_of_impact_from_apart;
pub use query::time_of_impact::{Impact, MAX_SUBSTEP_ANGLE, time_of_impact};
pub use shape::Shape;
pub use shape::checked::{MAX_MAGNITUDE, ShapeError, validate_pose};
pub(crate) use shape::checked::{checked_pose, within_magnitude};
pub use shape::compound::{Compound, CompoundPart};
pub(crate) use shape::concave::convex_pieces;
pub(crate) use shape::holes::convex_pieces_with_holes;
pub use shape::polygon::ConvexPolygon;
pub(crate) use shape::polygon::scaled_points_into;
pub(crate) use shape::pose::TransformReading;
pub(crate) use shape::shape_ref::checked_placement;
pub(crate) use shape::shape_ref::{PolygonRef, ShapeRef};
