//! Fixed timestep: detection in `FixedPostUpdate`.
//!
//! A game that moves things in `FixedUpdate` (for the same motion at any
//! frame rate) runs detection there too, with
//! `CollisionPlugin::new(FixedPostUpdate)`: each fixed step moves, then
//! detects. Transforms are propagated before detection (the plugin does it
//! in its schedule), so children and rotated parents are seen where the
//! step put them. Everything else stays the same; order your systems
//! against [`CollisionSystems`] in `FixedPostUpdate`. Messages written in a
//! fixed step are read by the next reader that runs, in `FixedUpdate` or
//! `Update`. When the frame is short, no fixed step may run in it: then
//! there is no detection either, and nothing new to hear.
//!
//! Characters moved by [`SpatialQuery::move_and_slide`] move in
//! `FixedUpdate` too, before the step's detection: their queries see the
//! colliders where the previous step's detection saw them (and a level
//! spawned at startup from the first step on), and the step's detection
//! then reports what they touched. Moving them in `Update` instead would
//! move them once per frame, not once per step.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! #[derive(Component)]
//! struct Bullet;
//!
//! #[derive(Resource, Default)]
//! struct Hits(u32);
//!
//! fn fly(mut bullets: Query<&mut Transform, With<Bullet>>, time: Res<Time>) {
//!     for mut transform in &mut bullets {
//!         transform.translation.x += 600.0 * time.delta_secs(); // Time<Fixed> here
//!     }
//! }
//!
//! # use bevy::time::TimeUpdateStrategy;
//! # use std::time::Duration;
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::new(FixedPostUpdate)))
//!     .insert_resource(Time::<Fixed>::from_hz(60.0))
//! #   .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / 60.0)))
//!     .init_resource::<Hits>()
//!     .add_systems(FixedUpdate, fly)
//!     .add_observer(|_: On<CollisionStarted>, mut hits: ResMut<Hits>| hits.0 += 1);
//! // 10 units a step against a wall 2 thick: `Swept` catches it.
//! app.world_mut().spawn((Bullet, Collider::circle(1.0), Swept, Transform::default()));
//! app.world_mut().spawn((Collider::rect(2.0, 50.0), Transform::from_xyz(105.0, 0.0, 0.0)));
//! for _ in 0..30 {
//!     app.update();
//! }
//! assert_eq!(app.world().resource::<Hits>().0, 2); // on the bullet and on the wall
//! ```
//!
//! [`CollisionSystems`]: crate::CollisionSystems
//! [`SpatialQuery::move_and_slide`]: crate::SpatialQuery::move_and_slide
