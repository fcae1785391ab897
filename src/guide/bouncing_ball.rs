//! Bouncing a ball off walls and bricks: events for new touches, and every
//! frame a push-out and a bounce off the contacts that go on.
//!
//! # Why both
//!
//! [`CollisionStarted`] and [`CollisionEvent::Started`] come once, when a
//! contact starts. A ball that bounces off a brick while still inside a
//! wall (after a long frame, say) gets no new event for the wall, and
//! reacting only to events lets it fly out through it. So, every frame:
//!
//! - [`Collisions::push_out`] moves the ball out of everything it overlaps
//!   (two coplanar walls push once, a corner out of both);
//! - the ball bounces off every contact it is still moving into, from
//!   [`Collisions::contacts_of`] (the normal points from the ball into the
//!   other thing).
//!
//! The events are still needed: they carry the touches of a [`Swept`] ball
//! that are over by the end of the step (it grazed a brick's corner), and
//! they are where a brick takes its hit, once.
//!
//! # Long frames: rewind to the touch
//!
//! A `Swept` ball that touches something on the way reports the contact at
//! the moment of first touch, not the overlap where it ended the step.
//! [`Collisions::impact_pose`] says where the ball was then: put it back
//! there (a hair short: touching counts as a contact) and insert `Swept`
//! again so that its next path starts there. What lies further along the
//! path was never reached.
//!
//! Run this system in `Update` before the one that moves the ball: it sees
//! the last detection's contacts where detection saw the ball.
//! `tests/behaviour/ball_in_corner.rs` runs it at 125 ms frames in Bevy's breakout
//! layout for 1000 frames, against the same ball reacting to events only,
//! which escapes.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! #[derive(Component)]
//! struct Ball {
//!     velocity: Vec2,
//! }
//!
//! /// How far short of a touch the ball is put back.
//! const SKIN: f32 = 0.1;
//!
//! fn bounce_ball(
//!     mut events: MessageReader<CollisionEvent>,
//!     collisions: Res<Collisions>,
//!     mut balls: Query<(Entity, &mut Ball, &mut Transform)>,
//!     mut commands: Commands,
//! ) {
//!     let events: Vec<CollisionEvent> = events.read().copied().collect();
//!     for (ball, mut state, mut transform) in &mut balls {
//!         // New touches, seen from the ball.
//!         let hits: Vec<(Entity, Contact)> = (events.iter())
//!             .filter_map(|event| match *event {
//!                 CollisionEvent::Started { a, b, contact } if a == ball => Some((b, contact)),
//!                 CollisionEvent::Started { a, b, contact } if b == ball => Some((a, contact.flipped())),
//!                 _ => None,
//!             })
//!             .collect();
//!         // When in the step each pair touched (the contact knows no step).
//!         let time = |other: Entity| collisions.time_of_impact(ball, other).unwrap_or(1.0);
//!         let first = hits.iter().min_by(|x, y| time(x.0).total_cmp(&time(y.0)));
//!         let first_touch = first.map_or(1.0, |&(other, _)| time(other));
//!         if let Some(&(other, contact)) = first
//!             && let Some(pose) = collisions.impact_pose(ball, other)
//!         {
//!             let clear = pose.translation - *contact.normal * SKIN;
//!             transform.translation = clear.extend(transform.translation.z);
//!             commands.entity(ball).insert(Swept);
//!         }
//!         // Bounce off what it touched first, and off what it still touches.
//!         let mut normals: Vec<Dir2> = (hits.iter())
//!             .filter(|&&(other, _)| time(other) <= first_touch + 1e-4)
//!             .map(|(_, contact)| contact.normal)
//!             .collect();
//!         normals.extend(
//!             (collisions.contacts_of(ball))
//!                 .filter(|&(other, _)| time(other) >= 1.0)
//!                 .map(|(_, contact)| contact.normal),
//!         );
//!         state.velocity = bounce(state.velocity, &normals);
//!         // Out of everything it overlaps.
//!         transform.translation += collisions.push_out(ball).extend(0.0);
//!     }
//! }
//!
//! /// `velocity` reflected off each surface it moves into (normals point
//! /// into the surfaces). In a corner one reflection can send it into the
//! /// other surface: a few rounds, then back the way it came.
//! fn bounce(velocity: Vec2, normals: &[Dir2]) -> Vec2 {
//!     let mut bounced = velocity;
//!     for _ in 0..8 {
//!         let Some(normal) = normals.iter().find(|n| bounced.dot(***n) > 0.0) else {
//!             return bounced;
//!         };
//!         bounced -= 2.0 * bounced.dot(**normal) * **normal;
//!     }
//!     -velocity
//! }
//!
//! fn move_ball(time: Res<Time>, mut balls: Query<(&Ball, &mut Transform)>) {
//!     for (ball, mut transform) in &mut balls {
//!         transform.translation += (ball.velocity * time.delta_secs()).extend(0.0);
//!     }
//! }
//!
//! # use bevy::time::TimeUpdateStrategy;
//! # use std::time::Duration;
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()))
//! #   .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(100)))
//!     .add_systems(Update, (bounce_ball, move_ball).chain());
//! // A fast ball heading right, at a wall 5 units thick (it would pass
//! // through it in one 100 ms frame without `Swept`).
//! let ball = app.world_mut().spawn((
//!     Ball { velocity: Vec2::new(400.0, 0.0) },
//!     Collider::circle(10.0),
//!     Swept,
//!     Transform::default(),
//! )).id();
//! app.world_mut().spawn((Collider::rect(5.0, 200.0), StaticCollider, Transform::from_xyz(100.0, 0.0, 0.0)));
//! for _ in 0..6 {
//!     app.update();
//! }
//! let x = app.world().get::<Transform>(ball).unwrap().translation.x;
//! assert!(x < 87.5, "the ball stays on its side of the wall: {x}");
//! assert!(app.world().get::<Ball>(ball).unwrap().velocity.x < 0.0, "and comes back");
//! ```
//!
//! [`CollisionStarted`]: crate::CollisionStarted
//! [`CollisionEvent::Started`]: crate::CollisionEvent::Started
//! [`Collisions::push_out`]: crate::Collisions::push_out
//! [`Collisions::contacts_of`]: crate::Collisions::contacts_of
//! [`Collisions::impact_pose`]: crate::Collisions::impact_pose
//! [`Swept`]: crate::Swept
