//! Pure 2D collision geometry: shapes, exact overlap tests, contacts and
//! contact manifolds, ray and shape casts, and swept tests (time of
//! impact).
//!
//! Nothing here knows about the ECS. Shapes are centred at their local origin
//! and a pose ([`Isometry2d`](bevy::math::Isometry2d)) places them in the
//! world, as in `bevy_shape`. Every function is deterministic and
//! never returns NaN for valid shapes and finite poses.
//!
//! # Where things live
//!
//! Each layer imports only from the ones above it in this list, and every
//! file names the file it imports from (this file only re-exports, for the
//! rest of the crate and for users):
//!
//! - `contact.rs`: what queries answer, as data ([`Contact`],
//!   [`ContactParts`], [`Manifold`]).
//! - `pairs/`: the hand-written pair tests, a file per family
//!   (`circle_circle`, `circle_rect`, `rect_rect`, `sticks` for a circle
//!   against a capsule or segment), on bare sizes and poses.
//! - `shape/`: the stored shapes: [`Shape`] (`shape/mod.rs`), the borrowed
//!   view the algorithms read (`view.rs`: `ShapeView`, either a `ConvexRef`
//!   or a compound, and `Placed`, a view at a pose both checked),
//!   [`ConvexPolygon`], [`Compound`] (a folder: its part grid in
//!   `part_grid.rs`, its scaling in `compound/scale.rs`), polylines,
//!   concave polygons and holes, and the checked numbers (`checked.rs`:
//!   [`ShapeError`], [`validate_pose`]).
//! - `convex/`: every pair without a hand-written test, as rounded convex
//!   cores (`cores.rs`: `Core`; `mod.rs`: overlap, contact, closest points;
//!   `quick.rs`: the fast paths of small cores).
//! - `query/`: a file per query over those: `dispatch.rs` (the one `match`
//!   over pairs of kinds, a `PairOp` per query),
//!   `parts.rs` (the one walk over compound parts), `intersects.rs`,
//!   `contact.rs`, `closest_points.rs`, `point.rs`, `manifold.rs` (with
//!   `manifold_clip.rs`), `time_of_impact.rs` (with `sweep.rs`),
//!   `translation_cast.rs` (with `minkowski.rs`), `shape_cast.rs`, `ray.rs`
//!   (with `ray_convex.rs`, each convex kind's rays), `ray_hollow.rs`,
//!   `ghost_rule.rs` (polylines' rule on a contact) and
//!   `push_out.rs`. A query's `Shape::...` method is in its file.
//!
//! Input is checked once, where it comes in: an entry point makes a
//! `Placed` of each shape and pose and a `Ray` (`query/ray.rs`) of a ray,
//! or fails; what takes those checks nothing again.
//!
//! # What a change touches
//!
//! - A new convex kind of shape: its variant in `shape/mod.rs` (`Shape`,
//!   its view, scaling and box) and `shape/view.rs` (`ConvexRef` and its
//!   check), its core in `convex/cores.rs`, where a ray enters and leaves
//!   it in `query/ray_convex.rs`; outside geometry, the snapshot's packed
//!   shape (`stages/snapshot/mod.rs`) and its drawing (`debug.rs`). Those
//!   six are what the compiler asks for in the library, and the f64 truth
//!   the tests share (`reference.rs`) a seventh; a `Collider` constructor
//!   is optional. Every pair query then reaches it through `convex/` with
//!   nothing else to change (the convex code takes a `ConvexRef`, so a
//!   compound never gets there); a hand-written pair test for it is a file
//!   in `pairs/`, a method on `PairOp` and an arm in `query/dispatch.rs`.
//! - A new query: a file in `query/` with its `PairOp` (the special pairs
//!   it has tests for, `general` for the rest) and its `Shape::...` method,
//!   and its re-export below.

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
pub(crate) mod reference_tests;

pub use contact::{Contact, ContactParts, FeatureId, Manifold, ManifoldPoint};
pub use pairs::circle_circle::{circle_circle_contact, circle_circle_intersects};
pub use pairs::circle_rect::{circle_rect_contact, circle_rect_intersects};
pub use pairs::rect_rect::{rect_rect_contact, rect_rect_intersects};
pub(crate) use query::contact::{
    ContactOp, FourBoxes, PartContact, contact_with_listed_parts, deepest_possible,
    for_each_part_contact, keep_deepest,
};
pub(crate) use query::dispatch::{PairShape, dispatch};
pub(crate) use query::manifold::{for_each_manifold, manifold_of};
pub(crate) use query::parts::{ListedPart, prefetch_parts, visit_parts_in};
pub use query::push_out::push_out;
pub(crate) use query::ray::Ray;
pub use query::ray::RayIntersection;
pub use query::ray_convex::{ray_circle, ray_rect, ray_segment};
pub(crate) use query::shape_cast::cast_shape_of;
pub use query::shape_cast::{ShapeCastHit, cast_shape};
pub use query::sweep::{Sweep, swept_aabb};
pub(crate) use query::sweep::{path_aabb_of, turning_path_aabb};
pub(crate) use query::time_of_impact::time_of_impact_from_apart;
pub use query::time_of_impact::{Impact, MAX_SUBSTEP_ANGLE, time_of_impact};
pub use shape::Shape;
pub(crate) use shape::checked::within_magnitude;
pub use shape::checked::{MAX_MAGNITUDE, ShapeError, validate_pose};
pub use shape::compound::{Compound, CompoundPart};
pub(crate) use shape::compound::{SMALL_COMPOUND, boxes_extent};
pub(crate) use shape::concave::convex_pieces;
pub(crate) use shape::holes::convex_pieces_with_holes;
pub(crate) use shape::placed_extent;
pub use shape::polygon::ConvexPolygon;
pub(crate) use shape::polygon::scaled_points_into;
pub(crate) use shape::pose::TransformReading;
pub(crate) use shape::view::Placed;
pub(crate) use shape::view::{ConvexRef, PolygonRef, ShapeView};
