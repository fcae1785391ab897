//! Spatial queries: rays, lines of sight, what is under a point or in range.
//!
//! [`SpatialQuery`] is a system parameter: [`cast_ray`](crate::SpatialQuery::cast_ray)
//! (the first collider along a ray), [`cast_shape`](crate::SpatialQuery::cast_shape)
//! (the first one a moving shape touches), [`point_hits`](crate::SpatialQuery::point_hits)
//! and [`shape_hits`](crate::SpatialQuery::shape_hits) (what contains a point,
//! what overlaps a shape). A [`QueryFilter`] leaves out entities (the one
//! asking) and takes [`CollisionLayers`]. Queries see the colliders as the
//! last detection read them: from `Update`, where they were drawn last frame.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! #[derive(Component)]
//! struct Turret;
//!
//! #[derive(Resource, Default)]
//! struct Seen(Option<Entity>);
//!
//! /// The turret sees what is first along its line of sight, up to 500 away.
//! fn look(turret: Single<(Entity, &GlobalTransform), With<Turret>>, spatial: SpatialQuery, mut seen: ResMut<Seen>) {
//!     let (turret, transform) = *turret;
//!     let filter = QueryFilter::default().with_excluded([turret]);
//!     let origin = transform.translation().truncate();
//!     seen.0 = spatial.cast_ray(origin, Dir2::X, 500.0, &filter).map(|hit| hit.entity);
//! }
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()))
//!     .init_resource::<Seen>()
//!     .add_systems(Update, look);
//! let world = app.world_mut();
//! world.spawn((Turret, Collider::circle(10.0), Transform::default()));
//! let wall = world.spawn((Collider::rect(10.0, 100.0), Transform::from_xyz(200.0, 0.0, 0.0))).id();
//! world.spawn((Collider::circle(10.0), Transform::from_xyz(300.0, 0.0, 0.0))); // behind the wall
//! app.update(); // detection reads the colliders
//! app.update(); // `look` sees them
//! assert_eq!(app.world().resource::<Seen>().0, Some(wall));
//! ```
//!
//! [`SpatialQuery`]: crate::SpatialQuery
//! [`QueryFilter`]: crate::QueryFilter
//! [`CollisionLayers`]: crate::CollisionLayers
