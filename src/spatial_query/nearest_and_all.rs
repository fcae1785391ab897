//! The queries that find more than the first hit, or no hit at all: every
//! collider along a ray, the nearest point of the colliders, and the
//! colliders whose boxes meet a region.

use bevy::math::{Dir2, Isometry2d, Vec2};
use bevy::prelude::*;
use bevy::shape::Aabb2d;

use super::{DRAWN_LENGTH, QueryFilter, QueryRecord, RayHit, ShapeHit, SpatialQuery};
use crate::components::Collider;
use crate::geometry::{MAX_MAGNITUDE, Placed, Ray, cast_shape_of};
use crate::util::scratch::{ScratchItem, with_scratch};

/// The nearest point of a collider to a point, found by
/// [`SpatialQuery::project_point`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointProjection {
    /// The collider's entity.
    pub entity: Entity,
    /// The point of the collider's boundary nearest the query's point;
    /// the query's point itself when it is inside and the projection is
    /// solid ([`SpatialQuery::project_point_solid`]).
    pub point: Vec2,
    /// Whether the query's point is inside the collider (boundary
    /// included).
    pub inside: bool,
    /// How far the query's point is from `point`.
    pub distance: f32,
}

impl SpatialQuery<'_, '_> {
    /// Every collider the ray from `origin` along `direction` hits within
    /// `max_distance` (which may be [`f32::INFINITY`]), among those `filter`
    /// accepts, nearest first (equal distances by lowest [`Entity`]), at
    /// most `max_hits` of them: a laser through several enemies, a line of
    /// sight through glass. Each collider is hit once, where the ray enters
    /// it (at 0 when it starts inside); the rest is as
    /// [`cast_ray`](Self::cast_ray). Once `max_hits` are found, farther
    /// colliders are not tested.
    pub fn ray_hits(
        &self,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
        max_hits: usize,
        filter: &QueryFilter,
    ) -> Vec<RayHit> {
        self.ray_hits_as(origin, direction, max_distance, max_hits, true, filter)
    }

    /// [`Self::ray_hits`] with shapes `solid`, else
    /// [`hollow`](Self::ray_hits_hollow).
    pub(crate) fn ray_hits_as(
        &self,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
        max_hits: usize,
        solid: bool,
        filter: &QueryFilter,
    ) -> Vec<RayHit> {
        let Ok(ray) = Ray::new(origin, direction, max_distance) else {
            return Vec::new();
        };
        let direction = ray.direction();
        if max_hits == 0 {
            return Vec::new();
        }
        let colliders = self.colliders();
        let start = Aabb2d {
            min: origin,
            max: origin,
        };
        let hits = self.hits_along(
            start,
            direction,
            max_distance,
            max_hits,
            filter,
            |index, limit| {
                let (target, shape) = colliders.get(index);
                let hit = shape.cast_ray_as(target.pose, ray.up_to(limit), solid)?;
                Some(RayHit {
                    entity: target.entity,
                    distance: hit.distance,
                    point: hit.point,
                    normal: hit.normal,
                })
            },
        );
        self.record_ray(origin, direction, max_distance, hits.iter());
        hits
    }

    /// Every collider that `collider`, moved from `pose` along `direction`
    /// by up to `max_distance` (which may be [`f32::INFINITY`]), touches,
    /// among those `filter` accepts, nearest first (equal distances by
    /// lowest [`Entity`]), at most `max_hits` of them: what a sweeping blade
    /// cuts, what lies along a dash. Each collider is hit once, where the
    /// shape first touches it, as if the others were not there; the rest is
    /// as [`cast_shape`](Self::cast_shape), whose hit is the first of these.
    /// Once `max_hits` are found, farther colliders are not tested.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// fn dash(spatial: SpatialQuery) {
    ///     let blade = Collider::rect(4.0, 30.0);
    ///     let start = Isometry2d::from_xy(0.0, 0.0);
    ///     for hit in spatial.shape_cast_hits(&blade, start, Dir2::X, 200.0, 5, &QueryFilter::default()) {
    ///         info!("cuts {} after {}", hit.entity, hit.distance);
    ///     }
    /// }
    /// # bevy::ecs::system::assert_is_system(dash);
    /// ```
    pub fn shape_cast_hits(
        &self,
        collider: &Collider,
        pose: Isometry2d,
        direction: Dir2,
        max_distance: f32,
        max_hits: usize,
        filter: &QueryFilter,
    ) -> Vec<ShapeHit> {
        let Ok(moving) = Placed::new(collider.shape_view(), pose) else {
            return Vec::new();
        };
        let cast = ShapeCast {
            moving: moving.renormalised(),
            direction,
            max_distance,
            ignore_origin_penetration: false,
        };
        self.shape_cast_hits_of(&cast, max_hits, filter)
    }

    /// The hits of `cast`, as [`Self::shape_cast_hits`] finds them.
    pub(crate) fn shape_cast_hits_of(
        &self,
        cast: &ShapeCast<'_>,
        max_hits: usize,
        filter: &QueryFilter,
    ) -> Vec<ShapeHit> {
        let ShapeCast {
            moving,
            max_distance,
            ..
        } = *cast;
        let (shape, pose) = (moving.shape(), moving.pose());
        let Ok(path) = Ray::new(pose.translation, cast.direction, max_distance) else {
            return Vec::new();
        };
        let direction = path.direction();
        let colliders = self.colliders();
        // Each cast goes the whole way, not only up to the farthest hit
        // kept, so that its distance does not depend on the search's order.
        let hits = self.hits_along(
            shape.aabb(pose),
            direction,
            max_distance,
            max_hits,
            filter,
            |index, _| {
                let (target, target_shape) = colliders.get(index);
                let hit = cast_shape_of(
                    moving,
                    path,
                    Placed::read_by_snapshot(target_shape, target.pose),
                )?;
                // Leaving what it starts in: not in its way.
                let leaving = hit.distance == 0.0 && hit.normal.dot(*direction) >= 0.0;
                if cast.ignore_origin_penetration && leaving {
                    return None;
                }
                Some(ShapeHit {
                    entity: target.entity,
                    distance: hit.distance,
                    point: hit.point,
                    normal: hit.normal,
                })
            },
        );
        self.record(|| QueryRecord::Cast {
            shape: shape.to_owned(),
            start: pose,
            end: pose.translation
                + direction
                    * hits
                        .first()
                        .map_or(max_distance.min(DRAWN_LENGTH), |hit| hit.distance),
            hit: hits.first().map(|hit| (hit.point, hit.normal)),
        });
        hits
    }

    /// The hits `cast(index, limit)` finds in the colliders that `filter`
    /// accepts, moving `start` along `direction` by up to `max_distance`,
    /// nearest first (equal distances by lowest [`Entity`]), at most
    /// `max_hits`; hits beyond `limit` (the farthest of a full list) are not
    /// needed.
    fn hits_along<H: Hit>(
        &self,
        start: Aabb2d,
        direction: Dir2,
        max_distance: f32,
        max_hits: usize,
        filter: &QueryFilter,
        mut cast: impl FnMut(usize, f32) -> Option<H>,
    ) -> Vec<H> {
        if max_hits == 0 {
            return Vec::new();
        }
        let colliders = self.colliders();
        with_scratch(|hits: &mut Vec<H>| {
            self.visit_along(start, direction, max_distance, filter, |index| {
                let full = hits.len() == max_hits;
                // Farther than the last of a full list: not needed.
                let limit = if full {
                    hits[max_hits - 1].order().0
                } else {
                    max_distance
                };
                if filter.accepts(colliders.entity(index), colliders.layers(index))
                    && let Some(hit) = cast(index, limit)
                {
                    let at = hits.partition_point(|kept| kept.order() < hit.order());
                    if at < max_hits {
                        hits.insert(at, hit);
                        hits.truncate(max_hits);
                    }
                }
                (hits.len() == max_hits).then(|| hits[max_hits - 1].order().0)
            });
            hits.to_vec()
        })
    }

    /// The collider nearest to `point` among those `filter` accepts, and
    /// the point of its boundary nearest to `point`: a pickup's magnet, an
    /// AI keeping its distance from walls. A collider containing `point`
    /// (boundary included) comes before any other, with `inside` set and
    /// the boundary point where `point` would leave it soonest (the lowest
    /// [`Entity`] of several); otherwise the nearest, equal distances by
    /// lowest [`Entity`]. `None` when no collider is accepted or `point`
    /// is not finite.
    ///
    /// The search looks in growing squares around `point`, so a near
    /// collider is found without testing far ones. In a compound, the part
    /// `point` is deepest in, else the nearest part, answers.
    ///
    /// This is the peers' `solid: false` projection (the boundary point
    /// even from inside); [`project_point_solid`](Self::project_point_solid)
    /// projects a point inside to itself.
    pub fn project_point(&self, point: Vec2, filter: &QueryFilter) -> Option<PointProjection> {
        self.project_point_as(point, false, filter)
    }

    /// [`Self::project_point`], or [`Self::project_point_solid`] when
    /// `solid`.
    pub(crate) fn project_point_as(
        &self,
        point: Vec2,
        solid: bool,
        filter: &QueryFilter,
    ) -> Option<PointProjection> {
        if !(point.is_finite() && point.abs().max_element() <= MAX_MAGNITUDE) {
            return None;
        }
        let colliders = self.colliders();
        // Inside first (the lowest entity), then nearest.
        let rank = |found: &PointProjection| {
            let distance = if found.inside { 0.0 } else { found.distance };
            (distance, found.entity)
        };
        // Small first: a point inside or beside a collider (most, in a
        // level) is answered by one lookup of a cell or two; growing by 4
        // keeps the lookups of a far one few.
        let mut within = 4.0f32;
        loop {
            let mut best: Option<PointProjection> = None;
            let region = Aabb2d::new(point, Vec2::splat(within));
            self.visit_overlapping(&region, filter, |index, aabb| {
                // A collider whose box is farther than the best so far is
                // farther too: skipped before its shape is read. Ties are
                // tested (the lowest entity wins them), and the margin
                // covers the box's rounding.
                if let Some(best) = &best {
                    let (gap, best_distance) = (aabb_distance(aabb, point), rank(best).0);
                    let margin = (point.abs().max_element() + best_distance) * BOX_ROUNDING;
                    if gap > best_distance + margin {
                        return;
                    }
                }
                let (target, shape) = colliders.get(index);
                if !filter.accepts(target.entity, colliders.layers(index)) {
                    return;
                }
                let Some((on, inside)) = shape.project_point(target.pose, point, within) else {
                    return;
                };
                let found = PointProjection {
                    entity: target.entity,
                    point: on,
                    inside,
                    distance: on.distance(point),
                };
                if best.is_none_or(|best| rank(&found) < rank(&best)) {
                    best = Some(found);
                }
            });
            // A collider nearer than `within` has its box in the square: the
            // best one found is the nearest of all.
            match best {
                Some(mut found) if found.inside || found.distance <= within => {
                    if solid && found.inside {
                        (found.point, found.distance) = (point, 0.0);
                    }
                    self.record(|| QueryRecord::Projection {
                        point,
                        projected: found.point,
                    });
                    return Some(found);
                }
                _ if within >= 2.0 * MAX_MAGNITUDE => return best,
                _ => within *= 4.0,
            }
        }
    }

    /// The colliders whose bounding boxes overlap or touch `region`, among
    /// those `filter` accepts, in ascending [`Entity`] order: a selection
    /// box, what a camera's view holds. Boxes only, no shape test, so a
    /// round or turned collider is found a little beyond its outline
    /// (use [`shape_hits`](Self::shape_hits) with a rectangle for the
    /// exact answer). A region that is not finite finds nothing.
    pub fn aabb_hits(&self, region: Aabb2d, filter: &QueryFilter) -> Vec<Entity> {
        if !(region.min.is_finite() && region.max.is_finite()) {
            return Vec::new();
        }
        self.entities_in(&region, filter, |_, _| true)
    }
}

/// Relative rounding of a box's distance to a point, as
/// [`SpatialQuery::project_point`] allows for it.
const BOX_ROUNDING: f32 = 16.0 * f32::EPSILON;

/// How far `point` is from `aabb` (0 inside or on it).
#[inline]
fn aabb_distance(aabb: &Aabb2d, point: Vec2) -> f32 {
    (aabb.min - point)
        .max(point - aabb.max)
        .max(Vec2::ZERO)
        .length()
}

/// A hit kept in a list nearest first.
trait Hit: ScratchItem + Copy {
    /// Its distance, then its entity: the list's order.
    fn order(&self) -> (f32, Entity);
}

impl Hit for RayHit {
    fn order(&self) -> (f32, Entity) {
        (self.distance, self.entity)
    }
}

impl Hit for ShapeHit {
    fn order(&self) -> (f32, Entity) {
        (self.distance, self.entity)
    }
}

/// A shape cast: the shape at its start, checked.
#[derive(Clone, Copy)]
pub(crate) struct ShapeCast<'a> {
    pub(crate) moving: Placed<'a>,
    pub(crate) direction: Dir2,
    pub(crate) max_distance: f32,
    /// Leave out the colliders the shape touches at `pose` and does not
    /// move deeper into ([`ShapeCaster::ignore_origin_penetration`](crate::ShapeCaster::ignore_origin_penetration)).
    pub(crate) ignore_origin_penetration: bool,
}
