//! [`SpatialQuery`]: ray casts and overlap queries against the colliders of
//! the last detection, through the same grid as the broad phase.

mod casters;
mod filter;
mod log;
mod manifolds;
mod nearest_and_all;
mod refresh_casters;
mod solidity;

use std::sync::LazyLock;

use bevy::ecs::entity::{EntityMapper, MapEntities};
use bevy::ecs::system::{SystemChangeTick, SystemParam};
use bevy::math::{Dir2, Isometry2d, Vec2};
use bevy::prelude::*;
use bevy::shape::Aabb2d;

pub use casters::{RayCaster, RayHits, ShapeCaster, ShapeHits};
pub use filter::{EntityPredicate, QueryFilter};
pub(crate) use log::{DRAWN_LENGTH, QueryLog, QueryRecord};
pub use nearest_and_all::PointProjection;
pub(crate) use nearest_and_all::ShapeCast;
pub(crate) use refresh_casters::{WarnedCasters, refresh_ray_casters, refresh_shape_casters};

use crate::components::{Collider, OneWayPlatform};
use crate::geometry::{Placed, Ray, ShapeView, cast_shape_of};
use crate::grid::SpatialGrid;
use crate::stages::broad_phase_grid::BroadPhaseGrid;
use crate::stages::colliders::DetectionColliders;
use crate::stages::snapshot::ColliderSnapshot;
use crate::stages::static_colliders::StaticColliders;
use crate::util::scratch::{scratch_items, with_scratch};

/// Where a ray cast by [`SpatialQuery::cast_ray`] first hits a collider.
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Debug, PartialEq, Clone)]
pub struct RayHit {
    /// The collider's entity.
    pub entity: Entity,
    /// Distance from the ray's origin along its direction; `0` when the
    /// origin is inside the collider.
    pub distance: f32,
    /// The hit point in world space: `origin + direction * distance`.
    pub point: Vec2,
    /// The collider's outward unit normal at `point`; `-direction` when the
    /// ray starts inside it (see [`RayIntersection`](crate::geometry::RayIntersection)).
    /// A hollow ray ([`SpatialQuery::cast_ray_hollow`]) that starts inside
    /// hits where it leaves, with the outward normal there.
    pub normal: Dir2,
}

impl MapEntities for RayHit {
    fn map_entities<E: EntityMapper>(&mut self, mapper: &mut E) {
        self.entity = mapper.get_mapped(self.entity);
    }
}

// Answers are gathered in per-thread lists of these.
scratch_items!(Entity, RayHit, ShapeHit);

/// Where a shape cast by [`SpatialQuery::cast_shape`] first touches a
/// collider.
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Debug, PartialEq, Clone)]
pub struct ShapeHit {
    /// The collider's entity.
    pub entity: Entity,
    /// How far the cast shape moves before it touches the collider; `0`
    /// when it touches or overlaps it at its start.
    pub distance: f32,
    /// Where they touch, in world space, with the cast shape moved by
    /// `distance`.
    pub point: Vec2,
    /// The collider's outward unit normal at `point`, towards the cast
    /// shape (see [`ShapeCastHit`](crate::geometry::ShapeCastHit)).
    pub normal: Dir2,
}

impl MapEntities for ShapeHit {
    fn map_entities<E: EntityMapper>(&mut self, mapper: &mut E) {
        self.entity = mapper.get_mapped(self.entity);
    }
}

/// Ray casts and overlap queries against the colliders, as a system
/// parameter; [`move_and_slide`](Self::move_and_slide) moves a character
/// through them.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_collide2d::prelude::*;
/// #[derive(Component)]
/// struct Turret;
///
/// fn aim(turrets: Query<(Entity, &GlobalTransform), With<Turret>>, spatial: SpatialQuery) {
///     for (turret, transform) in &turrets {
///         let origin = transform.translation().truncate();
///         let filter = QueryFilter::default().with_excluded([turret]);
///         if let Some(hit) = spatial.cast_ray(origin, Dir2::X, 500.0, &filter) {
///             info!("{turret} sees {} at {}", hit.entity, hit.distance);
///         }
///         let under = spatial.point_hits(origin, &filter);
///         let around = Isometry2d::from_translation(origin);
///         let near = spatial.shape_hits(&Collider::circle(50.0), around, &filter);
///         info!("{} colliders under {turret}, {} within 50", under.len(), near.len());
///         let shell = Collider::circle(2.0);
///         if let Some(hit) = spatial.cast_shape(&shell, around, Dir2::X, 500.0, &filter) {
///             info!("a shell would stop after {} on {}", hit.distance, hit.entity);
///         }
///     }
/// }
/// # bevy::ecs::system::assert_is_system(aim);
/// ```
///
/// # What it sees
///
/// The colliders as the last detection read them, in
/// [`CollisionSystems::Prepare`](crate::CollisionSystems::Prepare): their
/// shapes, poses and layers at that moment, skipping invalid ones as
/// detection does. Before the first detection, the colliders as they were
/// at the end of startup (`PostStartup`), so that the first steps of a
/// fixed-timestep game, which run before its first detection, see the
/// level it spawned. With the default plugin (detection in `PostUpdate`), a
/// system in `Update` sees the poses of the previous frame (what was drawn),
/// not what `Update` has moved since; colliders spawned since are not seen
/// yet, and despawned ones are still reported (their `Entity` no longer
/// exists). To see the current frame, run in the plugin's schedule after
/// `CollisionSystems::Prepare`, ideally after
/// [`CollisionSystems::BroadPhase`](crate::CollisionSystems::BroadPhase): in
/// between, queries are still exact but test every collider, since the grid
/// that finds them quickly is only rebuilt in the broad phase.
///
/// Shapes are solid and touching counts, as in detection: a point on a
/// boundary is inside, a ray grazing a shape hits it, a ray starting inside
/// a shape hits it at distance 0. The hollow rays
/// ([`cast_ray_hollow`](Self::cast_ray_hollow),
/// [`ray_hits_hollow`](Self::ray_hits_hollow)) see shapes as their
/// outlines instead: a ray starting inside hits where it leaves.
/// [`project_point`](Self::project_point) gives the nearest boundary point
/// even from inside; [`project_point_solid`](Self::project_point_solid) the
/// point itself. Bad input (NaN or infinite coordinates, a
/// NaN or negative distance, an invalid collider or pose) finds nothing and
/// never panics.
///
/// It reads [`OneWayPlatform`] components (for
/// [`move_and_slide`](Self::move_and_slide)), so a system that also changes
/// them takes `SpatialQuery` in a separate system, or a `ParamSet`.
///
/// Needs [`CollisionPlugin`](crate::CollisionPlugin).
#[derive(SystemParam)]
pub struct SpatialQuery<'w, 's> {
    #[system_param(validation_message = "SpatialQuery needs CollisionPlugin")]
    snapshot: Res<'w, ColliderSnapshot>,
    #[system_param(validation_message = "SpatialQuery needs CollisionPlugin")]
    grid: Res<'w, BroadPhaseGrid>,
    #[system_param(validation_message = "SpatialQuery needs CollisionPlugin")]
    statics: Res<'w, StaticColliders>,
    ticks: SystemChangeTick,
    /// Read live, not from the snapshot: only
    /// [`move_and_slide`](Self::move_and_slide) uses them.
    pub(crate) one_way_platforms: Query<'w, 's, &'static OneWayPlatform>,
    /// Where the debug overlay collects queries to draw, when it does.
    log: Option<Res<'w, QueryLog>>,
}

impl SpatialQuery<'_, '_> {
    /// The first collider hit by the ray from `origin` along `direction`,
    /// at most `max_distance` away (which may be [`f32::INFINITY`]), among
    /// those `filter` accepts.
    ///
    /// Colliders hit at the same distance (several containing `origin`, at
    /// distance 0) are told apart by the lowest [`Entity`]. An infinite ray
    /// costs no more than one across all colliders: only the colliders'
    /// extent is walked, and only up to the first hit.
    pub fn cast_ray(
        &self,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
        filter: &QueryFilter,
    ) -> Option<RayHit> {
        self.cast_ray_as(origin, direction, max_distance, true, filter)
    }

    /// [`Self::cast_ray`] with shapes `solid`, else
    /// [`hollow`](Self::cast_ray_hollow).
    pub(crate) fn cast_ray_as(
        &self,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
        solid: bool,
        filter: &QueryFilter,
    ) -> Option<RayHit> {
        let ray = Ray::new(origin, direction, max_distance).ok()?;
        let direction = ray.direction();
        let colliders = self.colliders();
        let start = Aabb2d {
            min: origin,
            max: origin,
        };
        let hit = self
            .nearest_along(start, direction, max_distance, filter, |index, limit| {
                let (target, shape) = colliders.get(index);
                let hit = shape.cast_ray_as(target.pose, ray.up_to(limit), solid)?;
                Some((hit.distance, (hit.point, hit.normal)))
            })
            .map(|(entity, distance, (point, normal))| RayHit {
                entity,
                distance,
                point,
                normal,
            });
        self.record_ray(origin, direction, max_distance, hit.iter());
        hit
    }

    /// Keeps a ray for the debug overlay, when it draws queries.
    pub(crate) fn record_ray<'h>(
        &self,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
        hits: impl Iterator<Item = &'h RayHit>,
    ) {
        self.record(|| QueryRecord::Ray {
            origin,
            end: origin + direction * max_distance.min(DRAWN_LENGTH),
            hits: hits.map(|hit| (hit.point, hit.normal)).collect(),
        });
    }

    /// Keeps a query for the debug overlay, when it draws queries.
    pub(crate) fn record(&self, record: impl FnOnce() -> QueryRecord) {
        if let Some(log) = &self.log {
            log.record(record);
        }
    }

    /// The colliders containing `point` (boundary included) that `filter`
    /// accepts, in ascending [`Entity`] order.
    pub fn point_hits(&self, point: Vec2, filter: &QueryFilter) -> Vec<Entity> {
        if !point.is_finite() {
            return Vec::new();
        }
        let query = Aabb2d {
            min: point,
            max: point,
        };
        self.entities_in(&query, filter, |shape, pose| {
            shape.contains_point(pose, point)
        })
    }

    /// The colliders that `collider` placed at `pose` overlaps or touches,
    /// among those `filter` accepts, in ascending [`Entity`] order.
    ///
    /// `collider` is taken at its own size (no transform scale applies). An
    /// invalid size or pose finds nothing.
    pub fn shape_hits(
        &self,
        collider: &Collider,
        pose: Isometry2d,
        filter: &QueryFilter,
    ) -> Vec<Entity> {
        let Ok(placed) = Placed::new(collider.shape_view(), pose) else {
            return Vec::new();
        };
        let (shape, pose) = (placed.shape(), placed.renormalised().pose());
        self.entities_in(&shape.aabb(pose), filter, |target, target_pose| {
            shape.intersects(pose, target, target_pose)
        })
    }

    /// The entities, in ascending order, of the colliders whose boxes
    /// overlap `region`, that `filter` accepts and whose shape at its pose
    /// `keep` accepts.
    #[inline(always)]
    pub(crate) fn entities_in(
        &self,
        region: &Aabb2d,
        filter: &QueryFilter,
        keep: impl Fn(ShapeView<'_>, Isometry2d) -> bool,
    ) -> Vec<Entity> {
        let colliders = self.colliders();
        with_scratch(|hits| {
            self.visit_overlapping(region, filter, |index, _| {
                let entity = colliders.entity(index);
                // The shape is read only for colliders the filter accepts.
                if filter.accepts(entity, colliders.layers(index)) {
                    let (target, shape) = colliders.get(index);
                    if keep(shape, target.pose) {
                        hits.push(entity);
                    }
                }
            });
            hits.sort_unstable();
            hits.to_vec()
        })
    }

    /// The first collider that `collider`, moved from `pose` along
    /// `direction` by up to `max_distance` (which may be
    /// [`f32::INFINITY`]), touches, among those `filter` accepts.
    ///
    /// The shape slides without turning and is taken at its own size (no
    /// transform scale applies). It hits what it touches or overlaps at
    /// `pose` at distance 0. Hits at the same distance are told apart by
    /// the lowest [`Entity`]. How exact the distance is depends on the
    /// shapes: see [`cast_shape`](crate::geometry::cast_shape). An invalid
    /// size or pose, a non-finite direction, or a NaN or negative
    /// `max_distance` finds nothing.
    pub fn cast_shape(
        &self,
        collider: &Collider,
        pose: Isometry2d,
        direction: Dir2,
        max_distance: f32,
        filter: &QueryFilter,
    ) -> Option<ShapeHit> {
        let moving = Placed::new(collider.shape_view(), pose)
            .ok()?
            .renormalised();
        let (shape, pose) = (moving.shape(), moving.pose());
        let path = Ray::new(pose.translation, direction, max_distance).ok()?;
        let direction = path.direction();
        let colliders = self.colliders();
        let start = shape.aabb(pose);
        // Cast the whole way, not only up to the nearest hit so far, so that
        // the distance found does not depend on the order of the search.
        let hit = self
            .nearest_along(start, direction, max_distance, filter, |index, _| {
                let hit = cast_shape_of(moving, path, colliders.placed(index))?;
                Some((hit.distance, (hit.point, hit.normal)))
            })
            .map(|(entity, distance, (point, normal))| ShapeHit {
                entity,
                distance,
                point,
                normal,
            });
        self.record(|| QueryRecord::Cast {
            shape: collider.shape().clone(),
            start: pose,
            end: pose.translation
                + direction * hit.map_or(max_distance.min(DRAWN_LENGTH), |hit| hit.distance),
            hit: hit.map(|hit| (hit.point, hit.normal)),
        });
        hit
    }

    /// The nearest hit among the colliders that `filter` accepts, moving
    /// `start` along `direction` by up to `max_distance`: `cast(index,
    /// limit)` gives the distance of the hit in collider `index`, if any,
    /// and what else the caller keeps of it, where only hits up to `limit`
    /// (the nearest so far) matter. Equal distances go to the lowest
    /// [`Entity`].
    pub(crate) fn nearest_along<H: Copy>(
        &self,
        start: Aabb2d,
        direction: Dir2,
        max_distance: f32,
        filter: &QueryFilter,
        mut cast: impl FnMut(usize, f32) -> Option<(f32, H)>,
    ) -> Option<(Entity, f32, H)> {
        let colliders = self.colliders();
        let mut nearest: Option<(Entity, f32, H)> = None;
        self.visit_along(start, direction, max_distance, filter, |index| {
            let entity = colliders.get(index).0.entity;
            if !filter.accepts(entity, colliders.layers(index)) {
                return None;
            }
            let limit = nearest.map_or(max_distance, |(_, best, _)| best);
            let (distance, hit) = cast(index, limit)?;
            let nearer = nearest.is_none_or(|(best_entity, best, _)| {
                distance < best || (distance == best && entity < best_entity)
            });
            if nearer {
                nearest = Some((entity, distance, hit));
            }
            Some(distance)
        });
        nearest
    }

    /// The broad phase's grid if it was built over the current snapshot,
    /// else an empty one, which visits every box: between `Prepare` and
    /// `BroadPhase` it still describes the previous snapshot.
    fn grid(&self) -> &SpatialGrid {
        static NO_GRID: LazyLock<SpatialGrid> = LazyLock::new(SpatialGrid::default);
        let grid = &self.grid.grid;
        let built_after_snapshot = self
            .grid
            .last_changed()
            .is_newer_than(self.snapshot.last_changed(), self.ticks.this_run());
        if built_after_snapshot && grid.len() == self.snapshot.len() {
            grid
        } else {
            &NO_GRID
        }
    }

    /// The moving colliders, then the static ones, in one index space.
    pub(crate) fn colliders(&self) -> DetectionColliders<'_> {
        DetectionColliders::new(&self.snapshot, &self.statics)
    }

    /// Calls `walk` with the moving colliders' grid and boxes, then the
    /// static ones', each with the index of its first collider in
    /// [`Self::colliders`]; a set is left out when `filter`'s layers meet
    /// none of its colliders' (a character that only sees the level need not
    /// walk the moving grid).
    #[inline(always)]
    fn each_grid(
        &self,
        filter: &QueryFilter,
        mut walk: impl FnMut(&SpatialGrid, &[Aabb2d], usize),
    ) {
        let moving = &self.snapshot;
        if moving.may_interact(&filter.layers) {
            walk(self.grid(), &moving.aabbs, 0);
        }
        // The static grid is rebuilt with their snapshot, never stale.
        let fixed = &self.statics.snapshot;
        if fixed.may_interact(&filter.layers) {
            walk(&self.statics.grid, &fixed.aabbs, moving.len());
        }
    }

    /// Calls `visit` with the index (in [`Self::colliders`]) and the
    /// bounding box of every collider whose box overlaps `query`, each once,
    /// except that the moving or the static colliders are skipped as a
    /// whole when `filter`'s layers meet none of theirs.
    pub(crate) fn visit_overlapping(
        &self,
        query: &Aabb2d,
        filter: &QueryFilter,
        mut visit: impl FnMut(usize, &Aabb2d),
    ) {
        self.each_grid(filter, |grid, aabbs, first| {
            grid.visit_overlapping(aabbs, query, |k| {
                visit(first + k as usize, &aabbs[k as usize]);
            });
        });
    }

    /// Calls `visit` with the index (in [`Self::colliders`]) of the
    /// colliders whose bounding boxes `start` meets when moved along
    /// `direction` by up to `max_distance`, roughly nearest first, each
    /// once (some near the path). `visit` returns the distance
    /// of the hit it found in that collider, if any, after which farther
    /// colliders are skipped. See [`SpatialGrid::visit_along`].
    fn visit_along(
        &self,
        start: Aabb2d,
        direction: Dir2,
        max_distance: f32,
        filter: &QueryFilter,
        mut visit: impl FnMut(usize) -> Option<f32>,
    ) {
        self.each_grid(filter, |grid, aabbs, first| {
            grid.visit_along(aabbs, start, direction, max_distance, |k| {
                visit(first + k as usize)
            });
        });
    }
}
