//! Messages or observers: the same collisions, two ways to hear them.
//!
//! Both come from the same detection and always agree.
//!
//! - **Observers** ([`CollisionStarted`], [`CollisionEnded`], on an entity
//!   with `.observe(...)` or global with `add_observer`): run at once,
//!   during detection in `PostUpdate`, one call per event, on the entity it
//!   concerns (seen from it: `hit.contact.normal` points from `hit.entity`
//!   to `hit.other`). Use them for rules that belong to one thing: a coin, a
//!   door, spikes ([`damage_on_first_touch`](super::damage_on_first_touch)).
//! - **Messages** ([`CollisionEvent`], read with a `MessageReader`): one
//!   system sees every collision of the frame together, in order. Use them
//!   for rules about many things at once (score, sounds, sorting a ball's
//!   hits by time of impact as in [`bouncing_ball`](super::bouncing_ball)).
//!   They are written in `PostUpdate`, so a reader in `Update` sees them
//!   **one frame later**; the game has not moved anything since, so the
//!   contacts still hold. A reader ordered after
//!   [`CollisionSystems::Events`] in `PostUpdate` sees them the same frame.
//!
//! Neither says anything while a contact goes on: for that, read
//! [`CollidingEntities`] or [`Collisions::contacts_of`] every frame.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! #[derive(Resource, Default)]
//! struct Heard(Vec<&'static str>);
//!
//! # use bevy::time::TimeUpdateStrategy;
//! # use std::time::Duration;
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()))
//! #   .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(16)))
//!     .init_resource::<Heard>()
//!     .add_observer(|_: On<CollisionStarted>, mut heard: ResMut<Heard>| heard.0.push("observer"))
//!     .add_systems(Update, |mut events: MessageReader<CollisionEvent>, mut heard: ResMut<Heard>| {
//!         for _ in events.read() {
//!             heard.0.push("message");
//!         }
//!     });
//! app.world_mut().spawn((Collider::circle(5.0), Transform::default()));
//! app.world_mut().spawn((Collider::circle(5.0), Transform::from_xyz(8.0, 0.0, 0.0)));
//! app.update();
//! // Detection ran in this frame's PostUpdate: the observer ran once for
//! // each of the two colliders; Update had already run.
//! assert_eq!(app.world().resource::<Heard>().0, ["observer", "observer"]);
//! app.update();
//! // The message, one per pair, in the next frame's Update.
//! assert_eq!(app.world().resource::<Heard>().0, ["observer", "observer", "message"]);
//! ```
//!
//! [`CollisionStarted`]: crate::CollisionStarted
//! [`CollisionEnded`]: crate::CollisionEnded
//! [`CollisionEvent`]: crate::CollisionEvent
//! [`CollisionSystems::Events`]: crate::CollisionSystems::Events
//! [`CollidingEntities`]: crate::CollidingEntities
//! [`Collisions::contacts_of`]: crate::Collisions::contacts_of
