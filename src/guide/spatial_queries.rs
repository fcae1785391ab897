//! Spatial queries: rays, lines of sight, what is under a point or in range.
//!
//! [`SpatialQuery`] is a system parameter: [`cast_ray`](crate::SpatialQuery::cast_ray)
//! (the first collider along a ray), [`cast_shape`](crate::SpatialQuery::cast_shape)
//! (the first one a moving shape touches), [`point_hits`](crate::SpatialQuery::point_hits)
//! and [`shape_hits`](crate::SpatialQuery::shape_hits) (what contains a point,
//! what overlaps a shape), and [`ray_hits`](crate::SpatialQuery::ray_hits) and
//! [`shape_cast_hits`](crate::SpatialQuery::shape_cast_hits) (everything
//! along the way, nearest first). A [`QueryFilter`] leaves out entities (the one
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
//!
//! # Solid or hollow
//!
//! Shapes are solid by default, as in detection: a ray that starts inside a
//! collider hits it at distance 0. A ray that should find the walls of the
//! room it is in sees the colliders as hollow instead:
//! [`cast_ray_hollow`](crate::SpatialQuery::cast_ray_hollow) and
//! [`ray_hits_hollow`](crate::SpatialQuery::ray_hits_hollow) hit a collider
//! they start in where they leave it (a compound or a tile map through its
//! outline, not at a seam between its parts). Point projection is the other
//! way round: [`project_point`](crate::SpatialQuery::project_point) gives
//! the nearest boundary point even from inside (with `inside` set), and
//! [`project_point_solid`](crate::SpatialQuery::project_point_solid) the
//! point itself.
//!
//! # Casts that live on an entity
//!
//! A cast made every frame from the same entity (a ground probe, a turret's
//! line of sight, will the ship fit) needs no system of its own: a
//! [`RayCaster`] or a [`ShapeCaster`] on the entity is cast again after
//! every detection (in [`CollisionSystems::Casters`]), from where the entity
//! is, turned and scaled with it, into the [`RayHits`] or [`ShapeHits`] it
//! requires. It leaves out its own collider and its body's.
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
//! /// After the casters: what the turret's ray hits first, this frame.
//! fn look(turret: Single<&RayHits, With<Turret>>, mut seen: ResMut<Seen>) {
//!     seen.0 = turret.first().map(|hit| hit.entity);
//! }
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()))
//!     .init_resource::<Seen>()
//!     .add_systems(PostUpdate, look.after(CollisionSystems::Casters));
//! let world = app.world_mut();
//! // The turret looks along its own x axis, turned to face up.
//! world.spawn((
//!     Turret,
//!     Collider::circle(10.0),
//!     RayCaster::new(Vec2::ZERO, Dir2::X).with_max_distance(500.0),
//!     Transform::from_rotation(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2)),
//! ));
//! let roof = world.spawn((Collider::rect(100.0, 10.0), Transform::from_xyz(0.0, 200.0, 0.0))).id();
//! app.update(); // detection, then the casters, then `look`
//! assert_eq!(app.world().resource::<Seen>().0, Some(roof));
//! ```
//!
//! [`SpatialQuery`]: crate::SpatialQuery
//! [`QueryFilter`]: crate::QueryFilter
//! [`CollisionLayers`]: crate::CollisionLayers
//! [`RayCaster`]: crate::RayCaster
//! [`ShapeCaster`]: crate::ShapeCaster
//! [`RayHits`]: crate::RayHits
//! [`ShapeHits`]: crate::ShapeHits
//! [`CollisionSystems::Casters`]: crate::CollisionSystems::Casters
