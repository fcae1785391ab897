#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod broad_phase;
mod collider;
#[cfg(feature = "debug")]
pub mod debug;
mod events;
pub mod geometry;
pub mod narrow_phase;
mod parallel;
mod plugin;
mod prefetch;
mod query;
mod radix_sort;
pub mod snapshot;

pub use collider::{Collider, CollidingEntities, CollisionLayers, Swept};
pub use events::{CollisionEnded, CollisionEvent, CollisionStarted};
pub use geometry::Contact;
pub use narrow_phase::{Collisions, ContactPair};
pub use plugin::{CollisionPlugin, CollisionSystems};
pub use query::{QueryFilter, RayHit, ShapeHit, SpatialQuery};
pub use snapshot::pose_and_scale;

#[cfg(feature = "debug")]
pub use debug::{CollisionDebugPlugin, CollisionGizmos, collision_gizmos_enabled};

/// Everything a game needs: `use bevy_collide2d::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Collider, CollidingEntities, CollisionEnded, CollisionEvent, CollisionLayers,
        CollisionPlugin, CollisionStarted, CollisionSystems, Collisions, Contact, ContactPair,
        QueryFilter, RayHit, ShapeHit, SpatialQuery, Swept,
    };

    #[cfg(feature = "debug")]
    pub use crate::{CollisionDebugPlugin, CollisionGizmos};
}
