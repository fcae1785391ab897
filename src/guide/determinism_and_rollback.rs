//! Determinism, and rolling a world back (rollback netcode, bevy_ggrs).
//!
//! ## What is the same on every run
//!
//! Given the same colliders (the same entities, spawned in the same order,
//! so with the same [`Entity`](bevy::prelude::Entity) ids) at the same
//! poses, detection finds the same contacts, to the bit, whatever order the
//! ECS stores them in (a pair is always tested from its lower entity's
//! side; adding and removing components moves entities between tables, and
//! a re-simulated frame may have other tables than the first), and reports
//! the same
//! [`CollisionEvent`] messages, in the same order, and triggers
//! [`CollisionStarted`] / [`CollisionEnded`] in the same order, on every run
//! and whatever the number of threads: the work is cut into chunks whose
//! results are joined in chunk order and sorted by entity pair, never in
//! the order threads finish. Queries ([`SpatialQuery`]) answer the same
//! (ties go to the lowest entity). Tested by `tests/determinism.rs` (two
//! runs of a random scene, and one thread against four).
//!
//! Not promised: bit-identical results across CPU architectures or
//! compilers (the geometry is `f32` arithmetic as the compiler emits it);
//! peers on one platform and build agree.
//!
//! ## Rolling back
//!
//! Detection remembers one thing between runs: the [`Collisions`] resource,
//! whose pairs say what touched at the last detection, so that the next one
//! reports only what started and ended since. A game that rolls its world
//! back restores `Collisions` with it (with bevy_ggrs:
//! `rollback_resource_with_clone::<Collisions>()`), or it hears the wrong
//! `Started` / `Ended` after the rollback. Each entity's
//! [`CollidingEntities`] may be rolled back as a component too, or left
//! alone: the next detection sees that `Collisions` was put back (each
//! detection stamps the `Collisions` it writes) and sets every
//! `CollidingEntities` from it again, along with that detection's changes,
//! so that the two agree from then on.
//!
//! Not rolled back: a [`Swept`](crate::Swept) collider's path starts where
//! detection last saw it; after a rollback, insert `Swept` again on the
//! colliders that have it to start their paths where they are.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()));
//! let ball = app.world_mut().spawn((Collider::circle(5.0), Transform::from_xyz(-20.0, 0.0, 0.0))).id();
//! app.world_mut().spawn((Collider::circle(5.0), Transform::default()));
//! app.update();
//!
//! // A snapshot of the frame: the game's state, and `Collisions`.
//! let saved_transform = *app.world().get::<Transform>(ball).unwrap();
//! let saved_collisions = app.world().resource::<Collisions>().clone();
//!
//! let started = |app: &mut App| {
//!     let messages = app.world().resource::<Messages<CollisionEvent>>();
//!     let mut cursor = messages.get_cursor_current();
//!     app.update();
//!     let messages = app.world().resource::<Messages<CollisionEvent>>();
//!     cursor.read(messages).filter(|event| matches!(event, CollisionEvent::Started { .. })).count()
//! };
//! // The frame as first simulated: the ball moves onto the other one.
//! app.world_mut().get_mut::<Transform>(ball).unwrap().translation.x = -5.0;
//! assert_eq!(started(&mut app), 1);
//!
//! // A late input: roll back to the snapshot and simulate the frame again.
//! *app.world_mut().get_mut::<Transform>(ball).unwrap() = saved_transform;
//! app.world_mut().insert_resource(saved_collisions);
//! app.world_mut().get_mut::<Transform>(ball).unwrap().translation.x = -5.0;
//! // Started again, as in the first simulation: without `Collisions`
//! // restored, detection would remember the pair and say nothing.
//! assert_eq!(started(&mut app), 1);
//! ```
//!
//! [`CollisionEvent`]: crate::CollisionEvent
//! [`CollisionStarted`]: crate::CollisionStarted
//! [`CollisionEnded`]: crate::CollisionEnded
//! [`CollidingEntities`]: crate::CollidingEntities
//! [`Collisions`]: crate::Collisions
//! [`SpatialQuery`]: crate::SpatialQuery
