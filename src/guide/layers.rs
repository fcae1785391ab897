//! Layers: who collides with whom.
//!
//! [`CollisionLayers`] holds two bit masks: what a collider *is*
//! (`memberships`) and what it *meets* (`filters`). Two colliders are tested,
//! and hear each other, only when each one's memberships meet the other's
//! filters. Without the component a collider is in every layer and meets
//! every layer. Pairs left out by layers cost nothing: they are never
//! tested. [`QueryFilter`] takes the same layers for spatial queries.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! // One bit per kind of thing.
//! const PLAYER: u32 = 1 << 0;
//! const WALL: u32 = 1 << 1;
//! const GHOST: u32 = 1 << 2;
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()));
//! let world = app.world_mut();
//! let player = world.spawn((
//!     Collider::circle(8.0),
//!     CollisionLayers::new(PLAYER, WALL), // meets walls, not ghosts
//!     Transform::default(),
//! )).id();
//! let ghost = world.spawn((
//!     Collider::circle(8.0),
//!     CollisionLayers::new(GHOST, WALL), // ghosts only meet walls
//!     Transform::from_xyz(5.0, 0.0, 0.0),
//! )).id();
//! let wall = world.spawn((
//!     Collider::rect(10.0, 100.0),
//!     CollisionLayers::new(WALL, PLAYER | GHOST),
//!     Transform::from_xyz(12.0, 0.0, 0.0),
//! )).id();
//! app.update();
//! let touching = |entity| app.world().get::<CollidingEntities>(entity).unwrap().iter().collect::<Vec<_>>();
//! assert_eq!(touching(player), [wall]); // not the ghost it overlaps
//! assert_eq!(touching(ghost), [wall]);
//! ```
//!
//! [`CollisionLayers`]: crate::CollisionLayers
//! [`QueryFilter`]: crate::QueryFilter
