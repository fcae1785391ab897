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
//!         let pose = pose_of(&transform); // position and rotation, as detection reads them
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
//! ## A policy of your own: a wall-jump
//!
//! `move_and_slide` is one policy (ground, walls, steps). Its pieces are
//! public for another: [`SpatialQuery::move_and_slide_with`] calls a hook
//! with each surface it slides along (and the motion left, which the hook
//! may change or stop), [`MoveAndSlideOutput::projected_velocity`] keeps
//! the part of a velocity that does not go into what was met, and
//! [`SpatialQuery::depenetrate`] and [`slide_velocity`] are there for a
//! loop of your own. A wall-jump: a character sliding down a wall (its
//! fall slowed) jumps up and away from it.
//!
//! ```
//! use std::time::Duration;
//!
//! use bevy::prelude::*;
//! use bevy::time::TimeUpdateStrategy;
//! use bevy_collide2d::prelude::*;
//!
//! #[derive(Component, Default)]
//! struct Climber {
//!     velocity: Vec2,
//!     /// The wall's outward normal while touching one.
//!     wall: Option<Dir2>,
//!     jumps: u32,
//! }
//!
//! fn climb(
//!     time: Res<Time>,
//!     spatial: SpatialQuery,
//!     mut climbers: Query<(Entity, &Collider, &mut Transform, &mut Climber)>,
//! ) {
//!     let dt = time.delta_secs();
//!     for (entity, collider, mut transform, mut climber) in &mut climbers {
//!         // On a wall: jump up and away from it (here, every time).
//!         if let Some(wall) = climber.wall.take() {
//!             climber.velocity = wall.as_vec2() * 200.0 + Vec2::Y * 300.0;
//!             climber.jumps += 1;
//!         }
//!         climber.velocity.y -= 900.0 * dt;
//!         let filter = QueryFilter::default().with_excluded([entity]);
//!         let mut wall = None;
//!         let out = spatial.move_and_slide_with(
//!             collider,
//!             pose_of(&transform),
//!             climber.velocity * dt,
//!             &MoveAndSlideConfig::default(),
//!             &filter,
//!             |hit, _rest| {
//!                 if hit.normal.y.abs() < 0.1 {
//!                     wall = Some(hit.normal);
//!                 }
//!             },
//!         );
//!         transform.translation = out.translation.extend(0.0);
//!         climber.velocity = out.projected_velocity(climber.velocity);
//!         climber.wall = wall;
//!     }
//! }
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()))
//!     .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / 60.0)))
//!     .add_systems(Update, climb);
//! let world = app.world_mut();
//! // Two walls 100 apart, their faces at x = -50 and x = 50; no floor.
//! for x in [-60.0, 60.0] {
//!     world.spawn((Collider::rect(20.0, 4000.0), StaticCollider, Transform::from_xyz(x, 0.0, 0.0)));
//! }
//! let climber = world
//!     .spawn((
//!         Climber { velocity: Vec2::new(200.0, 0.0), ..default() },
//!         Collider::rect(10.0, 20.0),
//!         Transform::default(),
//!     ))
//!     .id();
//! for _ in 0..240 {
//!     app.update();
//! }
//! // Wall to wall, ever higher: it never falls with no floor below.
//! let climber_now = app.world().get::<Climber>(climber).unwrap();
//! let at = app.world().get::<Transform>(climber).unwrap().translation;
//! assert!(climber_now.jumps >= 4, "{}", climber_now.jumps);
//! assert!(at.y > 100.0, "{at}");
//! assert!(at.x.abs() <= 45.0, "{at}");
//! ```
//!
//! [`SpatialQuery::move_and_slide`]: crate::SpatialQuery::move_and_slide
//! [`SpatialQuery::move_and_slide_with`]: crate::SpatialQuery::move_and_slide_with
//! [`SpatialQuery::depenetrate`]: crate::SpatialQuery::depenetrate
//! [`MoveAndSlideOutput::projected_velocity`]: crate::MoveAndSlideOutput::projected_velocity
//! [`slide_velocity`]: crate::slide_velocity
//! [`OneWayPlatform`]: crate::OneWayPlatform
//! [`MoveAndSlideConfig`]: crate::MoveAndSlideConfig
