//! The queries that read shapes the other way than by default: hollow rays
//! (a ray starting inside a collider hits where it leaves) and the solid
//! projection (a point inside a collider projects to itself).
//!
//! The defaults stay as they always were: [`SpatialQuery::cast_ray`] and
//! [`SpatialQuery::ray_hits`] are solid, [`SpatialQuery::project_point`]
//! gives the nearest boundary point even from inside (with `inside` set),
//! as the peers' `solid: false` does.

use bevy::math::{Dir2, Vec2};

use super::{PointProjection, QueryFilter, RayHit, SpatialQuery};

impl SpatialQuery<'_, '_> {
    /// [`cast_ray`](Self::cast_ray) with the colliders seen as hollow (the
    /// peers' `solid: false`): a ray starting inside a collider, or on its
    /// boundary, hits it where it leaves, with the outward normal there
    /// (along the ray). The first hit is the nearest of those exits and of
    /// the other colliders' entries: the wall of the room a ray starts in,
    /// or whatever stands in the room before it. A collider the ray leaves
    /// beyond `max_distance` is not hit. A compound is left through its
    /// outline, not at a seam between its parts; a segment, which has no
    /// inside, is left at once unless the ray runs along it (see
    /// [`Shape::cast_ray_hollow`](crate::geometry::Shape::cast_ray_hollow)).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// /// Where a shot fired inside a force field leaves it.
    /// fn exit_wound(spatial: SpatialQuery) {
    ///     let filter = QueryFilter::default();
    ///     if let Some(hit) = spatial.cast_ray_hollow(Vec2::ZERO, Dir2::X, 100.0, &filter) {
    ///         info!("leaves {} at {} (normal {:?})", hit.entity, hit.point, hit.normal);
    ///     }
    /// }
    /// # bevy::ecs::system::assert_is_system(exit_wound);
    /// ```
    pub fn cast_ray_hollow(
        &self,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
        filter: &QueryFilter,
    ) -> Option<RayHit> {
        self.cast_ray_as(origin, direction, max_distance, false, filter)
    }

    /// [`ray_hits`](Self::ray_hits) with the colliders seen as hollow, as
    /// [`cast_ray_hollow`](Self::cast_ray_hollow): each collider is hit
    /// once, where the ray enters it, or where it leaves it when the ray
    /// starts inside, nearest first.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// /// Every shell a probe inside nested shields leaves, inner first.
    /// fn shells(spatial: SpatialQuery) {
    ///     let filter = QueryFilter::default();
    ///     for hit in spatial.ray_hits_hollow(Vec2::ZERO, Dir2::Y, 500.0, 8, &filter) {
    ///         info!("{} at {}", hit.entity, hit.distance);
    ///     }
    /// }
    /// # bevy::ecs::system::assert_is_system(shells);
    /// ```
    pub fn ray_hits_hollow(
        &self,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
        max_hits: usize,
        filter: &QueryFilter,
    ) -> Vec<RayHit> {
        self.ray_hits_as(origin, direction, max_distance, max_hits, false, filter)
    }

    /// [`project_point`](Self::project_point) with the colliders seen as
    /// solid (the peers' `solid: true`): a point inside a collider (boundary
    /// included) projects to itself, at distance 0, with `inside` set; a
    /// point outside every collider projects as with `project_point`. The
    /// collider is the same one `project_point` answers with.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// /// How far a spawn point is from the nearest wall: 0 inside one.
    /// fn clearance(spatial: SpatialQuery) {
    ///     let spawn = Vec2::new(40.0, 10.0);
    ///     if let Some(nearest) = spatial.project_point_solid(spawn, &QueryFilter::default()) {
    ///         info!("{} from {} (inside: {})", nearest.distance, nearest.entity, nearest.inside);
    ///     }
    /// }
    /// # bevy::ecs::system::assert_is_system(clearance);
    /// ```
    pub fn project_point_solid(
        &self,
        point: Vec2,
        filter: &QueryFilter,
    ) -> Option<PointProjection> {
        self.project_point_as(point, true, filter)
    }
}
