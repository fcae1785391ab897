//! A character that walks, falls, lands and slides along walls:
//! [`SpatialQuery::move_and_slide`].
//!
//! Each frame, the game decides the motion it wants (running, gravity, a
//! jump) and asks `move_and_slide` where the character ends up. It casts the
//! character's shape along the motion, stops a small skin short of what it
//! meets, slides the rest along the surface, and says whether it stands on
//! walkable ground and on what. The velocity stays the game's: zero the fall
//! while grounded. A moving platform carries the character if the game adds
//! the platform's motion when `ground` is that platform (the `platformer`
//! example does). [`OneWayPlatform`] makes ledges the character jumps up
//! through; [`MoveAndSlideConfig`] has slopes, steps and snapping.
//!
//! The query sees the colliders where the last detection saw them, so move
//! characters in `Update` (detection runs in `PostUpdate`), and exclude the
//! character itself through the filter.
//!
//! ```
//! use std::time::Duration;
//! use bevy::prelude::*;
//! use bevy::time::TimeUpdateStrategy;
//! use bevy_collide2d::prelude::*;
//!
//! #[derive(Component, Default)]
//! struct Character {
//!     velocity: Vec2,
//!     grounded: bool,
//! }
//!
//! const GRAVITY: f32 = 900.0;
//! const RUN_SPEED: f32 = 120.0;
//!
//! fn move_characters(
//!     time: Res<Time>,
//!     spatial: SpatialQuery,
//!     mut characters: Query<(Entity, &Collider, &mut Transform, &mut Character)>,
//! ) {
//!     let dt = time.delta_secs();
//!     let config = MoveAndSlideConfig::default();
//!     for (entity, collider, mut transform, mut character) in &mut characters {
//!         character.velocity.x = RUN_SPEED; // the player holds "right"
//!         character.velocity.y -= GRAVITY * dt;
//!         let pose = Isometry2d::from_translation(transform.translation.truncate());
//!         let filter = QueryFilter::default().with_excluded([entity]);
//!         let moved =
//!             spatial.move_and_slide(collider, pose, character.velocity * dt, &config, &filter);
//!         transform.translation = moved.translation.extend(transform.translation.z);
//!         character.grounded = moved.grounded;
//!         if moved.grounded {
//!             character.velocity.y = 0.0; // landed: stop falling
//!         }
//!     }
//! }
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()))
//!     .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / 60.0)))
//!     .add_systems(Update, move_characters);
//! let world = app.world_mut();
//! // A floor whose top is at y = 0, a wall at x = 100, and a capsule 28 tall
//! // dropped from above.
//! world.spawn((Collider::rect(400.0, 20.0), StaticCollider, Transform::from_xyz(0.0, -10.0, 0.0)));
//! world.spawn((Collider::rect(20.0, 200.0), StaticCollider, Transform::from_xyz(110.0, 100.0, 0.0)));
//! let hero = world
//!     .spawn((Character::default(), Collider::capsule(7.0, 14.0), Transform::from_xyz(0.0, 40.0, 0.0)))
//!     .id();
//! for _ in 0..120 {
//!     app.update();
//! }
//! let at = app.world().get::<Transform>(hero).unwrap().translation;
//! // It fell, landed and ran into the wall: standing on the floor, a skin
//! // above it (half height 14), a skin short of the wall (radius 7).
//! assert!(app.world().get::<Character>(hero).unwrap().grounded);
//! assert!((at.y - 14.0).abs() < 0.25, "{at}");
//! assert!((at.x - (100.0 - 7.0)).abs() < 0.25, "{at}");
//! ```
//!
//! [`SpatialQuery::move_and_slide`]: crate::SpatialQuery::move_and_slide
//! [`OneWayPlatform`]: crate::OneWayPlatform
//! [`MoveAndSlideConfig`]: crate::MoveAndSlideConfig
