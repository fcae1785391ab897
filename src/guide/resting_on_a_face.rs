//! A crate that settles flat on a ramp: the two points of a contact
//! manifold.
//!
//! A contact ([`Collisions::get`], the events' `contact`) is one point, the
//! deepest: it cannot tell a crate balanced on a corner from one lying flat.
//! Its [manifold](crate::Manifold) can: one point where a corner, a circle
//! or a rounded end touches, two where a face rests on a face, at the ends
//! of the stretch they share, each with its depth and a
//! [`FeatureId`](crate::FeatureId) that stays the same while the same
//! corners touch (Box2D's `b2Manifold`).
//!
//! [`Collisions::manifold`] computes it when asked, from the shapes and
//! poses detection saw (which [`SpatialQuery`] holds); detection itself
//! keeps only the deepest point, so a game that never asks pays nothing.
//! For a compound (a tile map), [`SpatialQuery::manifolds`] gives one per
//! touching pair of parts.
//!
//! Here a crate falls onto a ramp. While one corner touches, it tips over
//! that corner (turning about the point, which stays where it is) towards
//! lying flat; once two points touch, it lies flat and stops. The debug
//! overlay draws the points as crosses ([`debug_overlay`](super::debug_overlay)).
//!
//! ```
//! use std::time::Duration;
//!
//! use bevy::ecs::system::RunSystemOnce;
//! use bevy::prelude::*;
//! use bevy::time::TimeUpdateStrategy;
//! use bevy_collide2d::prelude::*;
//!
//! #[derive(Component, Default)]
//! struct Crate {
//!     fall_speed: f32,
//!     resting: bool,
//! }
//!
//! const GRAVITY: f32 = 600.0;
//! /// How fast a crate on one corner tips, radians per second.
//! const TIP_SPEED: f32 = 3.0;
//!
//! fn settle(
//!     mut crates: Query<(Entity, &mut Crate, &mut Transform)>,
//!     collisions: Res<Collisions>,
//!     spatial: SpatialQuery,
//!     time: Res<Time>,
//! ) {
//!     let dt = time.delta_secs();
//!     for (entity, mut state, mut transform) in &mut crates {
//!         // Out of what it sank into since the last detection.
//!         transform.translation += collisions.push_out(entity).extend(0.0);
//!         state.resting = false;
//!         for (other, _) in collisions.contacts_of(entity) {
//!             let Some(manifold) = collisions.manifold(entity, other, &spatial) else {
//!                 continue;
//!             };
//!             match manifold.points() {
//!                 // A face on the ramp: at rest.
//!                 [_, _] => state.resting = true,
//!                 // A corner: tip about it until a face lies along the
//!                 // ramp (the manifold's normal points into the ramp).
//!                 [corner] => {
//!                     let surface = (-*manifold.normal).to_angle() - core::f32::consts::FRAC_PI_2;
//!                     let angle = transform.rotation.to_scaled_axis().z;
//!                     let quarter = core::f32::consts::FRAC_PI_2;
//!                     let to_flat = (surface - angle).rem_euclid(quarter);
//!                     let to_flat = if to_flat > quarter / 2.0 { to_flat - quarter } else { to_flat };
//!                     let turn = to_flat.clamp(-TIP_SPEED * dt, TIP_SPEED * dt);
//!                     let pivot = corner.point.extend(0.0);
//!                     transform.rotate_around(pivot, Quat::from_rotation_z(turn));
//!                 }
//!                 _ => {}
//!             }
//!         }
//!         if state.resting {
//!             state.fall_speed = 0.0;
//!         } else {
//!             state.fall_speed += GRAVITY * dt;
//!             transform.translation.y -= state.fall_speed * dt;
//!         }
//!     }
//! }
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()))
//!     .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / 60.0)))
//!     .add_systems(Update, settle);
//! let world = app.world_mut();
//! let ramp = world
//!     .spawn((Collider::rect(600.0, 20.0), StaticCollider, Transform::from_rotation(Quat::from_rotation_z(0.3))))
//!     .id();
//! let crate_ = world.spawn((Crate::default(), Collider::rect(40.0, 40.0), Transform::from_xyz(0.0, 80.0, 0.0))).id();
//!
//! for _ in 0..300 {
//!     app.update();
//! }
//! // Lying flat on the ramp: turned as the ramp is, and touching it along
//! // its whole bottom face, at two points 40 apart.
//! assert!(app.world().get::<Crate>(crate_).unwrap().resting);
//! let angle = app.world().get::<Transform>(crate_).unwrap().rotation.to_scaled_axis().z;
//! assert!((angle - 0.3).abs() < 0.01, "{angle}");
//! let manifold = app
//!     .world_mut()
//!     .run_system_once(move |collisions: Res<Collisions>, spatial: SpatialQuery| {
//!         collisions.manifold(crate_, ramp, &spatial)
//!     })
//!     .unwrap()
//!     .expect("on the ramp");
//! let [p, q] = manifold.points() else { panic!("{manifold:?}") };
//! assert!((p.point.distance(q.point) - 40.0).abs() < 0.5);
//! ```
//!
//! [`Collisions::get`]: crate::Collisions::get
//! [`Collisions::manifold`]: crate::Collisions::manifold
//! [`SpatialQuery`]: crate::SpatialQuery
//! [`SpatialQuery::manifolds`]: crate::SpatialQuery::manifolds
