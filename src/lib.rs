#![doc = include_str!("../README.md")]
#![warn(missing_docs)]
#![deny(unsafe_code)]
#![warn(clippy::undocumented_unsafe_blocks)]

#[cfg(any(feature = "image", feature = "mesh"))]
mod assets;
mod components;
#[cfg(feature = "debug")]
mod debug;
mod diagnostics;
pub mod geometry;
mod grid;
pub mod guide;
mod level;
mod move_and_slide;
#[cfg(feature = "picking")]
mod picking;
mod plugin;
#[doc(hidden)]
pub mod reference;
mod spatial_query;
mod stages;
mod util;

#[cfg(feature = "image")]
pub use assets::{ColliderFromImage, ImageColliderError, ImageOutline};
#[cfg(feature = "mesh")]
pub use assets::{ColliderFromMesh, MeshColliderError};
pub use components::{
    Collider, ColliderDisabled, CollidingEntities, CollisionBody, CollisionLayers, OneWayPlatform,
    StaticCollider, Swept, pose_and_scale, pose_of,
};
pub use diagnostics::CollisionDiagnosticsPlugin;
pub use geometry::{Contact, ContactParts, FeatureId, Manifold, ManifoldPoint, ShapeError};
pub use level::{MAX_TILE_KINDS, TilemapCollider, TilemapError, TilemapKind, TilemapTile};
pub use move_and_slide::{MoveAndSlideConfig, MoveAndSlideOutput, SlideHit, slide_velocity};
pub use plugin::{CollisionPlugin, CollisionSystems};
pub use spatial_query::{
    EntityPredicate, PointProjection, QueryFilter, RayCaster, RayHit, RayHits, ShapeCaster,
    ShapeHit, ShapeHits, SpatialQuery,
};
pub use stages::collisions::{Collisions, ContactPair};
pub use stages::events::{CollisionEnded, CollisionEvent, CollisionStarted};
pub use stages::hooks::{ActiveCollisionHooks, CollisionHooks};

#[cfg(feature = "debug")]
pub use debug::{CollisionDebugPlugin, CollisionGizmos, DebugRender, collision_gizmos_enabled};
#[cfg(feature = "picking")]
pub use picking::{CollisionPickable, CollisionPickingPlugin, CollisionPickingSettings};

/// Everything a game needs: `use bevy_collide2d::prelude::*;`.
pub mod prelude {
    pub use crate::{
        ActiveCollisionHooks, Collider, ColliderDisabled, CollidingEntities, CollisionBody,
        CollisionDiagnosticsPlugin, CollisionEnded, CollisionEvent, CollisionHooks,
        CollisionLayers, CollisionPlugin, CollisionStarted, CollisionSystems, Collisions, Contact,
        ContactPair, ContactParts, FeatureId, Manifold, ManifoldPoint, MoveAndSlideConfig,
        MoveAndSlideOutput, OneWayPlatform, PointProjection, QueryFilter, RayCaster, RayHit,
        RayHits, ShapeCaster, ShapeHit, ShapeHits, SlideHit, SpatialQuery, StaticCollider, Swept,
        TilemapCollider, TilemapKind, TilemapTile, pose_and_scale, pose_of,
    };

    #[cfg(feature = "mesh")]
    pub use crate::ColliderFromMesh;
    #[cfg(feature = "image")]
    pub use crate::{ColliderFromImage, ImageOutline};
    #[cfg(feature = "debug")]
    pub use crate::{CollisionDebugPlugin, CollisionGizmos, DebugRender};
    #[cfg(feature = "picking")]
    pub use crate::{CollisionPickable, CollisionPickingPlugin, CollisionPickingSettings};
}

/// Internals the benchmark crate measures on their own. Not public API: no
/// semver promise, hidden from the docs.
#[doc(hidden)]
pub mod internals {
    pub use crate::grid::SpatialGrid;
    pub use crate::stages::broad_phase::BroadPhasePairs;

    /// The narrow phase's staged prefetch of a compound pair's parts
    /// (`stage` 0, 1, 2), for the floor model of a big compound.
    pub fn prefetch_parts(
        a: &crate::geometry::Shape,
        pa: bevy::math::Isometry2d,
        b: &crate::geometry::Shape,
        pb: bevy::math::Isometry2d,
        stage: u8,
    ) {
        crate::geometry::prefetch_parts(a.view(), pa, b.view(), pb, stage);
    }
}
