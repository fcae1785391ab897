//! The queries that find more than the first hit, or no hit at all: every
//! collider along a ray, the nearest point of the colliders, and the
//! colliders whose boxes meet a region.

use bevy::math::{Dir2, Vec2};
use bevy::prelude::*;
use bevy::shape::Aabb2d;

use super::{QueryFilter, QueryRecord, RayHit, SpatialQuery};
use crate::geometry::{MAX_MAGNITUDE, checked_ray};
use crate::util::scratch::with_scratch;

/// The nearest point of a collider to a point, found by
/// [`SpatialQuery::project_point`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointProjection {
    /// The collider's entity.
    pub entity: Entity,
    /// The point of the collider's boundary nearest the query's point.
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
        let Some(direction) = checked_ray(origin, direction, max_distance) else {
            return Vec::new();
        };
        if max_hits == 0 {
            return Vec::new();
        }
        let colliders = self.colliders();
        let start = Aabb2d {
            min: origin,
            max: origin,
        };
        let order = |hit: &RayHit| (hit.distance, hit.entity);
        let hits = with_scratch(|hits: &mut Vec<RayHit>| {
            self.visit_along(start, direction, max_distance, filter, |index| {
                let (target, shape) = colliders.get(index);
                let full = hits.len() == max_hits;
                // Farther than the last of a full list: not needed.
                let limit = if full {
                    hits[max_hits - 1].distance
                } else {
                    max_distance
                };
                if filter.accepts(target.entity, colliders.layers(index)) {
                    let hit = shape.cast_ray_valid(target.pose, origin, direction, limit);
                    if let Some(hit) = hit {
                        let hit = RayHit {
                            entity: target.entity,
                            distance: hit.distance,
                            point: hit.point,
                            normal: hit.normal,
                        };
                        let at = hits.partition_point(|kept| order(kept) < order(&hit));
                        if at < max_hits {
                            hits.insert(at, hit);
                            hits.truncate(max_hits);
                        }
                    }
                }
                (hits.len() == max_hits).then(|| hits[max_hits - 1].distance)
            });
            hits.to_vec()
        });
        self.record_ray(origin, direction, max_distance, hits.iter());
        hits
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
    pub fn project_point(&self, point: Vec2, filter: &QueryFilter) -> Option<PointProjection> {
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
                Some(found) if found.inside || found.distance <= within => {
                    self.record(|| QueryRecord::Projection {
                        point,
                        projected: found.point,
                    });
                    return best;
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
