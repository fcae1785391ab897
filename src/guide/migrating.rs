//! Migrating: from Bevy's breakout collision code, and from avian2d or
//! bevy_rapier2d used only for detection.
//!
//! # From Bevy's breakout
//!
//! Bevy's `examples/showcase/breakout.rs` tests the ball against every
//! collider each frame with `bevy_shape` (`BoundingCircle` against
//! `Aabb2d`) and picks a side from the closest point. Here:
//!
//! | Breakout | bevy_collide2d |
//! |---|---|
//! | `#[derive(Component)] struct Collider;` on walls, bricks, paddle | `Collider::rect(1.0, 1.0)` (they are sized by `Transform::scale`: [`sprites_sized_by_scale`](super::sprites_sized_by_scale)) |
//! | the ball's `BoundingCircle` | `Collider::circle(0.5)` (a 1x1 mesh scaled by the diameter) |
//! | `check_for_collisions`: loop over colliders, `ball_collision` | an observer on [`CollisionStarted`], or `MessageReader<CollisionEvent>` |
//! | `Collision::{Left, Right, Top, Bottom}` from the closest point | `contact.normal` (any direction: rotated bricks, tilted paddle, corners) |
//! | flip `velocity.x` or `.y` | reflect about the normal: `v - 2 * v.dot(n) * n` when `v.dot(n) > 0` |
//! | nothing keeps the ball out of what it entered | [`Collisions::push_out`] every frame ([`bouncing_ball`](super::bouncing_ball)) |
//! | a long frame can carry the ball through a brick | [`Swept`] on the ball, [`Collisions::impact_pose`] to rewind |
//! | `CollisionEvent` (its own event, for the sound) | [`CollisionEvent`] (a message, with the contact) |
//!
//! # From avian2d or bevy_rapier2d, for detection only
//!
//! A physics engine used only to detect needs a rigid body (kinematic or
//! static) on each collider, sensors or disabled responses, and its own
//! schedule; its events carry no contact. Here a collider is enough.
//!
//! | avian2d 0.8 | bevy_rapier2d 0.37 | bevy_collide2d |
//! |---|---|---|
//! | `PhysicsPlugins` | `RapierPhysicsPlugin` | [`CollisionPlugin`] |
//! | `Collider::circle(r)`, `Collider::rectangle(w, h)` | `Collider::ball(r)`, `Collider::cuboid(hw, hh)` (half sizes) | [`Collider::circle`], [`Collider::rect`] (full sizes) |
//! | `Collider::capsule(r, len)`, `segment`, `convex_hull` | `capsule_y(half_len, r)`, `segment`, `convex_hull` | [`Collider::capsule`], [`Collider::segment`], [`Collider::convex_polygon`] |
//! | `RigidBody::Kinematic` / `Static`, `Sensor` | `RigidBody::KinematicPositionBased`, `Sensor`, `ActiveEvents::COLLISION_EVENTS` | nothing: any collider is detected; [`StaticCollider`] for level geometry |
//! | `CollisionEventsEnabled`, `CollisionStart` / `CollisionEnd` | `CollisionEvent::Started` / `Stopped` (no contact) | [`CollisionStarted`] / [`CollisionEnded`], [`CollisionEvent`] (with the contact) |
//! | `Collisions` (a system parameter), `ContactGraph` | `RapierContext::contact_pair` | [`Collisions`], [`Collisions::contacts_of`] |
//! | `CollidingEntities` | — | [`CollidingEntities`] |
//! | `ContactPair::manifolds` (`ContactManifold`: `normal`, `points` with `point`, `penetration`, `feature_id1/2`), kept for every pair; `contact_query::contact_manifolds` without the ECS | `RapierContext::contact_pair(a, b)` then `manifolds()` (`normal`, `points` with `dist`, `fid1/2`) | [`Collisions::manifold`]`(a, b, &spatial)`, [`ContactPair::manifold`] ([`Manifold`]: `normal`, `points()` with `point`, `depth`, `id`), computed when asked; [`SpatialQuery::manifolds`] one per pair of parts; [`Collider::manifold`](crate::Collider::manifold) without the ECS ([`resting_on_a_face`](super::resting_on_a_face)) |
//! | `CollisionLayers::new(memberships, filters)` | `CollisionGroups::new(memberships, filters)` | [`CollisionLayers::new`] (`u32` masks) |
//! | `SweptCcd` | `Ccd::enabled()` | [`Swept`] |
//! | `SpatialQuery` (`cast_ray`, `cast_shape`, ...) | `ReadRapierContext` (`cast_ray`, ...) | [`SpatialQuery`] |
//! | `cast_ray` | `cast_ray` | [`SpatialQuery::cast_ray`] |
//! | `ray_hits` (all hits, up to a count) | `intersect_ray` (a callback per hit) | [`SpatialQuery::ray_hits`] (sorted, up to a count) |
//! | `cast_shape` | `cast_shape` | [`SpatialQuery::cast_shape`] |
//! | `project_point` (`PointProjection { point, is_inside }`) | `project_point` | [`SpatialQuery::project_point`] ([`PointProjection`]: `point`, `inside`, `distance`, `entity`) |
//! | `cast_ray` / `ray_hits` with `solid: true` | `cast_ray` / `intersect_ray` with `solid: true` | [`SpatialQuery::cast_ray`] / [`SpatialQuery::ray_hits`] (solid is the default) |
//! | `cast_ray` / `ray_hits` with `solid: false` | `cast_ray` / `intersect_ray` with `solid: false` | [`SpatialQuery::cast_ray_hollow`] / [`SpatialQuery::ray_hits_hollow`] |
//! | `project_point(point, true, &filter)` | `project_point(point, true, filter)` | [`SpatialQuery::project_point_solid`] (a point inside projects to itself) |
//! | `project_point(point, false, &filter)` | `project_point(point, false, filter)` | [`SpatialQuery::project_point`] (the boundary point even from inside: the default) |
//! | `RayCaster` (`origin`, `direction`, `max_distance`, `max_hits`, `solid`, `ignore_self`, `query_filter`) and `RayHits` (in any order, `iter_sorted`) | — | [`RayCaster`] (the same, `filter` for `query_filter`; one hit by default) and [`RayHits`] (nearest first); it follows the entity's `GlobalTransform`, scale included |
//! | `ShapeCaster` (`shape`, `origin`, `shape_rotation` in radians, `direction`, `max_hits`, `ignore_origin_penetration`, ...) and `ShapeHits` | — | [`ShapeCaster`] (`shape_rotation` a `Rot2`; the shape scaled with the entity) and [`ShapeHits`] |
//! | `shape_hits` (every hit of a shape cast) | — | [`SpatialQuery::shape_cast_hits`] |
//! | `point_intersections` | `intersect_point` | [`SpatialQuery::point_hits`] |
//! | `shape_intersections` | `intersect_shape` | [`SpatialQuery::shape_hits`] |
//! | `aabb_intersections_with_aabb` | `colliders_with_aabb_intersecting_aabb` | [`SpatialQuery::aabb_hits`] |
//! | `SpatialQueryFilter` (`with_mask`, `with_excluded_entities`) | `QueryFilter` (`groups`, `exclude_collider`) | [`QueryFilter`] (`with_layers`, `with_excluded`) |
//! | the `_predicate` variants, `&dyn Fn(Entity) -> bool` | `QueryFilter::predicate` | [`QueryFilter::with_predicate`] (an owned closure, kept in the filter) |
//! | `Collider::triangle(a, b, c)` | `Collider::triangle(a, b, c)` | [`Collider::triangle`] (a `Result`: three points on a line fail) |
//! | `Collider::polyline(points, None)` | `Collider::polyline(points, None)` | [`Collider::polyline`] (closed when the last point repeats the first) |
//! | `Collider::compound`, `Collider::convex_decomposition` | `Collider::compound`, `convex_decomposition` | [`Collider::compound`], [`Collider::concave_polygon`] |
//! | `RigidBody` with child colliders | `RigidBody` with child colliders | [`CollisionBody`] |
//! | `ColliderDisabled` | `ColliderDisabled` | [`ColliderDisabled`] |
//! | `CollisionHooks` (`filter_pairs`, `modify_contacts`), `ActiveCollisionHooks`, `with_collision_hooks` | `BevyPhysicsHooks`, `ActiveHooks`, `RapierPhysicsPlugin::<Hooks>` | [`CollisionHooks`](crate::CollisionHooks) (`filter_pair`, `modify_contact`), [`ActiveCollisionHooks`](crate::ActiveCollisionHooks), [`CollisionPlugin::with_hooks`](crate::CollisionPlugin::with_hooks) ([`collision_hooks`](super::collision_hooks)) |
#![cfg_attr(
    feature = "debug",
    doc = "| `PhysicsDebugPlugin` | `RapierDebugRenderPlugin` | [`CollisionDebugPlugin`](crate::CollisionDebugPlugin) |"
)]
#![cfg_attr(
    feature = "debug",
    doc = "| `DebugRender` (`with_collider_color`, `without_collider`) on an entity | `ColliderDebug::NeverRender`, `ColliderDebugColor(hsla)` on an entity | [`DebugRender`](crate::DebugRender) (`colored(color)`, `hidden()`), drawn by [`CollisionDebugPlugin`](crate::CollisionDebugPlugin) |"
)]
#![cfg_attr(
    feature = "picking",
    doc = "| `PhysicsPickingPlugin`, `PhysicsPickable`, `PhysicsPickingSettings` | `RapierPickingPlugin`, `RapierPickable`, `RapierPickingSettings` | [`CollisionPickingPlugin`](crate::CollisionPickingPlugin), [`CollisionPickable`](crate::CollisionPickable), [`CollisionPickingSettings`](crate::CollisionPickingSettings) (feature `picking`) |"
)]
//! | `MoveAndSlide` | `KinematicCharacterController` | [`SpatialQuery::move_and_slide`] ([`character_controller`](super::character_controller)) |
//! | `MoveAndSlide::move_and_slide`'s per-hit callback | — | [`SpatialQuery::move_and_slide_with`] (`on_hit(&hit, &mut rest)`) |
//! | `MoveAndSlideOutput::projected_velocity`, `MoveAndSlide::project_velocity` | — | [`MoveAndSlideOutput::projected_velocity`], [`slide_velocity`] |
//! | `MoveAndSlide::depenetrate` | — | [`SpatialQuery::depenetrate`] |
//! | `cast_shape(shape, origin, rotation, direction, &config, &filter)`, `ShapeHitData::normal1` | `cast_shape(origin, rotation, velocity, shape, options, filter)`, `ShapeCastHit::normal1` | [`SpatialQuery::cast_shape`]`(&collider, pose, direction, max_distance, &filter)`; the normal is `ShapeHit::normal` (the hit collider's, towards the cast shape) |
//! | the solver's depenetration | the character controller's | [`Collisions::push_out`] |
//!
//! Poses come from `GlobalTransform` as usual (no `Position` / `Rotation`
//! components), scale included.
//!
//! [`CollisionStarted`]: crate::CollisionStarted
//! [`CollisionEnded`]: crate::CollisionEnded
//! [`CollisionEvent`]: crate::CollisionEvent
//! [`CollisionPlugin`]: crate::CollisionPlugin
//! [`Collider::circle`]: crate::Collider::circle
//! [`Collider::rect`]: crate::Collider::rect
//! [`Collider::capsule`]: crate::Collider::capsule
//! [`Collider::segment`]: crate::Collider::segment
//! [`Collider::convex_polygon`]: crate::Collider::convex_polygon
//! [`StaticCollider`]: crate::StaticCollider
//! [`SpatialQuery::move_and_slide_with`]: crate::SpatialQuery::move_and_slide_with
//! [`MoveAndSlideOutput::projected_velocity`]: crate::MoveAndSlideOutput::projected_velocity
//! [`slide_velocity`]: crate::slide_velocity
//! [`SpatialQuery::depenetrate`]: crate::SpatialQuery::depenetrate
//! [`SpatialQuery::cast_ray`]: crate::SpatialQuery::cast_ray
//! [`SpatialQuery::ray_hits`]: crate::SpatialQuery::ray_hits
//! [`SpatialQuery::cast_shape`]: crate::SpatialQuery::cast_shape
//! [`SpatialQuery::project_point`]: crate::SpatialQuery::project_point
//! [`SpatialQuery::project_point_solid`]: crate::SpatialQuery::project_point_solid
//! [`SpatialQuery::cast_ray_hollow`]: crate::SpatialQuery::cast_ray_hollow
//! [`SpatialQuery::ray_hits_hollow`]: crate::SpatialQuery::ray_hits_hollow
//! [`SpatialQuery::shape_cast_hits`]: crate::SpatialQuery::shape_cast_hits
//! [`RayCaster`]: crate::RayCaster
//! [`RayHits`]: crate::RayHits
//! [`ShapeCaster`]: crate::ShapeCaster
//! [`ShapeHits`]: crate::ShapeHits
//! [`SpatialQuery::point_hits`]: crate::SpatialQuery::point_hits
//! [`SpatialQuery::shape_hits`]: crate::SpatialQuery::shape_hits
//! [`SpatialQuery::aabb_hits`]: crate::SpatialQuery::aabb_hits
//! [`PointProjection`]: crate::PointProjection
//! [`QueryFilter`]: crate::QueryFilter
//! [`QueryFilter::with_predicate`]: crate::QueryFilter::with_predicate
//! [`Collider::triangle`]: crate::Collider::triangle
//! [`Collider::polyline`]: crate::Collider::polyline
//! [`Collider::compound`]: crate::Collider::compound
//! [`Collider::concave_polygon`]: crate::Collider::concave_polygon
//! [`Collisions`]: crate::Collisions
//! [`Collisions::contacts_of`]: crate::Collisions::contacts_of
//! [`Collisions::manifold`]: crate::Collisions::manifold
//! [`ContactPair::manifold`]: crate::ContactPair::manifold
//! [`Manifold`]: crate::Manifold
//! [`SpatialQuery::manifolds`]: crate::SpatialQuery::manifolds
//! [`Collisions::push_out`]: crate::Collisions::push_out
//! [`Collisions::impact_pose`]: crate::Collisions::impact_pose
//! [`CollidingEntities`]: crate::CollidingEntities
//! [`CollisionLayers::new`]: crate::CollisionLayers::new
//! [`Swept`]: crate::Swept
//! [`SpatialQuery`]: crate::SpatialQuery
//! [`SpatialQuery::move_and_slide`]: crate::SpatialQuery::move_and_slide
//! [`CollisionBody`]: crate::CollisionBody
//! [`ColliderDisabled`]: crate::ColliderDisabled
