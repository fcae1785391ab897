//! Damage on first touch, with observers: spikes hurt once per touch, not
//! once per frame.
//!
//! [`CollisionStarted`] comes once when a contact starts, on both colliders
//! (and their [`CollisionBody`]), and runs at once, during detection.
//! Putting the observer on the hazard makes it own its rule; the victim is
//! `hit.other`. Staying on the spikes does nothing more; stepping off and on
//! again hurts again. For damage over time, use [`CollidingEntities`] in a
//! system instead.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! #[derive(Component)]
//! struct Health(u32);
//!
//! #[derive(Component)]
//! struct Spikes {
//!     damage: u32,
//! }
//!
//! fn hurt(hit: On<CollisionStarted>, spikes: Query<&Spikes>, mut victims: Query<&mut Health>) {
//!     if let (Ok(spikes), Ok(mut health)) = (spikes.get(hit.entity), victims.get_mut(hit.other)) {
//!         health.0 = health.0.saturating_sub(spikes.damage);
//!     }
//! }
//!
//! # use bevy::time::TimeUpdateStrategy;
//! # use std::time::Duration;
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()))
//! #   .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(16)));
//! let world = app.world_mut();
//! let player = world.spawn((Health(10), Collider::circle(8.0), Transform::default())).id();
//! world.spawn((Spikes { damage: 3 }, Collider::rect(40.0, 4.0), Transform::default())).observe(hurt);
//! // Ten frames on the spikes: one touch.
//! for _ in 0..10 {
//!     app.update();
//! }
//! assert_eq!(app.world().get::<Health>(player).unwrap().0, 7);
//! // Off and on again: a second touch.
//! for y in [50.0, 0.0] {
//!     app.world_mut().get_mut::<Transform>(player).unwrap().translation.y = y;
//!     app.update();
//! }
//! assert_eq!(app.world().get::<Health>(player).unwrap().0, 4);
//! ```
//!
//! [`CollisionStarted`]: crate::CollisionStarted
//! [`CollisionBody`]: crate::CollisionBody
//! [`CollidingEntities`]: crate::CollidingEntities
