//! The debug overlay: see the colliders and contacts (feature `debug`, on by
//! default).
//!
//! [`CollisionDebugPlugin`] draws every collider's outline at the pose
//! detection sees (red while it touches something), and every contact as
//! its point, its normal and its depth. It is the quickest check for a
//! collider of the wrong size (the pixel size under a scale, say),
//! in the wrong place, or on the wrong entity. It needs Bevy's gizmos
//! (`DefaultPlugins` with the `bevy_gizmos` feature) and adds no cost while
//! switched off.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! fn main() {
//!     App::new()
//!         .add_plugins((DefaultPlugins, CollisionPlugin::default(), CollisionDebugPlugin::default()))
//!         .add_systems(Update, toggle_overlay)
//!         .run();
//! }
//!
//! /// D shows or hides the overlay.
//! fn toggle_overlay(keys: Res<ButtonInput<KeyCode>>, mut store: ResMut<GizmoConfigStore>) {
//!     if keys.just_pressed(KeyCode::KeyD) {
//!         let (config, _style) = store.config_mut::<CollisionGizmos>();
//!         config.enabled = !config.enabled;
//!     }
//! }
//! ```
//!
//! Start it hidden with [`CollisionDebugPlugin::disabled`]; colours and
//! sizes are in [`CollisionGizmos`]:
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! let mut app = App::new();
//! app.add_plugins(CollisionDebugPlugin::disabled());
//! let mut store = app.world_mut().resource_mut::<GizmoConfigStore>();
//! let (config, style) = store.config_mut::<CollisionGizmos>();
//! assert!(!config.enabled);
//! style.normal_length = 40.0;
//! ```
//!
//! [`CollisionDebugPlugin`]: crate::CollisionDebugPlugin
//! [`CollisionDebugPlugin::disabled`]: crate::CollisionDebugPlugin::disabled
//! [`CollisionGizmos`]: crate::CollisionGizmos
