//! A character pushing a box: the box moves with
//! [`SpatialQuery::move_and_slide`] too, by the push alone.
//!
//! The character moves as in [`character_controller`](super::character_controller),
//! through [`SpatialQuery::move_and_slide_with`], whose hook sees each
//! surface it meets. When that surface is a box's side (any face the
//! controller would not stand on, by its own slope limit,
//! [`MoveAndSlideConfig::is_walkable`], and not an underside), the box gets
//! the horizontal part of the character's motion, and moves with
//! `move_and_slide` on its own: it slides along the floor, stops at walls,
//! and a slope too steep to walk stops it as it would stop the character.
//! Pushing the box by setting its `Transform` instead would push it through
//! walls, and up a ramp of any steepness (the push is not the box's to
//! climb). The character stops at the box this frame and follows it the
//! next, when detection has seen where the box went.
//!
//! ```
//! use std::time::Duration;
//!
//! use bevy::prelude::*;
//! use bevy::time::TimeUpdateStrategy;
//! use bevy_collide2d::prelude::*;
//!
//! #[derive(Component)]
//! struct Player;
//!
//! #[derive(Component, Default)]
//! struct Crate {
//!     fall: f32,
//! }
//!
//! const GRAVITY: f32 = 900.0;
//!
//! /// The player runs right; a box it runs into is pushed by the same run.
//! fn push(
//!     time: Res<Time>,
//!     spatial: SpatialQuery,
//!     player: Single<(Entity, &Collider, &mut Transform), With<Player>>,
//!     mut crates: Query<(&Collider, &mut Transform), (With<Crate>, Without<Player>)>,
//! ) {
//!     let (player, collider, mut transform) = player.into_inner();
//!     let motion = Vec2::new(90.0, -GRAVITY / 60.0) * time.delta_secs();
//!     let config = MoveAndSlideConfig::default();
//!     let filter = QueryFilter::default().with_excluded([player]);
//!     let mut pushed = Vec::new();
//!     let out = spatial.move_and_slide_with(collider, pose_of(&transform), motion, &config, &filter, |hit, _| {
//!         // A box's side: not a face the player stands on (by the same
//!         // slope limit as the controller), nor one above it.
//!         if crates.contains(hit.entity) && !config.is_walkable(hit.normal) && hit.normal.y >= 0.0 {
//!             pushed.push(hit.entity);
//!         }
//!     });
//!     transform.translation = out.translation.extend(0.0);
//!     for entity in pushed {
//!         let Ok((crate_collider, mut crate_transform)) = crates.get_mut(entity) else {
//!             continue;
//!         };
//!         let filter = QueryFilter::default().with_excluded([entity, player]);
//!         let push = Vec2::new(motion.x, 0.0);
//!         let moved = spatial.move_and_slide(crate_collider, pose_of(&crate_transform), push, &config, &filter);
//!         crate_transform.translation = moved.translation.extend(0.0);
//!     }
//! }
//!
//! /// Boxes fall, and land.
//! fn fall(time: Res<Time>, spatial: SpatialQuery, mut crates: Query<(Entity, &Collider, &mut Transform, &mut Crate)>) {
//!     let dt = time.delta_secs();
//!     for (entity, collider, mut transform, mut fallen) in &mut crates {
//!         fallen.fall -= GRAVITY * dt;
//!         let filter = QueryFilter::default().with_excluded([entity]);
//!         let motion = Vec2::new(0.0, fallen.fall * dt);
//!         let out = spatial.move_and_slide(collider, pose_of(&transform), motion, &MoveAndSlideConfig::default(), &filter);
//!         transform.translation = out.translation.extend(0.0);
//!         if out.grounded {
//!             fallen.fall = 0.0;
//!         }
//!     }
//! }
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()))
//!     .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / 60.0)))
//!     .add_systems(Update, (fall, push).chain());
//! let world = app.world_mut();
//! // A floor whose top is at y = 0, and a ramp 63 degrees steep rising from x = 200.
//! world.spawn((Collider::rect(1000.0, 20.0), StaticCollider, Transform::from_xyz(0.0, -10.0, 0.0)));
//! let ramp = [Vec2::new(200.0, 0.0), Vec2::new(260.0, 0.0), Vec2::new(260.0, 118.0)];
//! world.spawn((Collider::convex_polygon(&ramp).unwrap(), StaticCollider, Transform::default()));
//! world.spawn((Player, Collider::rect(16.0, 32.0), Transform::from_xyz(0.0, 16.1, 0.0)));
//! let box_ = world.spawn((Crate::default(), Collider::rect(20.0, 20.0), Transform::from_xyz(40.0, 10.1, 0.0))).id();
//! for _ in 0..300 {
//!     app.update();
//! }
//! let at = app.world().get::<Transform>(box_).unwrap().translation;
//! // Pushed along the floor to the foot of the ramp (its side at x = 190),
//! // and no higher: the ramp is too steep to push it up.
//! assert!((at.x - (190.0 - 0.1)).abs() < 0.5, "{at}");
//! assert!((at.y - 10.1).abs() < 0.2, "{at}");
//! ```
//!
//! [`SpatialQuery::move_and_slide`]: crate::SpatialQuery::move_and_slide
//! [`SpatialQuery::move_and_slide_with`]: crate::SpatialQuery::move_and_slide_with
//! [`MoveAndSlideConfig::is_walkable`]: crate::MoveAndSlideConfig::is_walkable
