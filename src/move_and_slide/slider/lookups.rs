//! The lookups of one call: casts along the motion, the contacts it is
//! pushed out of, and the colliders gathered around it once ([`Nearby`]).

use bevy::math::{Dir2, Isometry2d, Vec2};
use bevy::prelude::*;
use bevy::shape::{Aabb2d, BoundingVolume, IntersectsVolume};

use super::super::{DEPENETRATION_ROUNDS, GRAZE, SlideHit, Touched};
use super::{Blocked, NEARBY_MOST, NEARBY_REACH, Nearby, PartContact, Slider};
use crate::components::OneWayPlatform;
use crate::geometry::{
    Contact, Placed, Ray, ShapeView, cast_shape_of, for_each_part_contact, push_out,
};

impl Slider<'_, '_, '_> {
    /// The first collider that blocks the collider moved from `at` along
    /// `direction` by up to `max_distance`. Not blocking: what it only
    /// grazes or already overlaps and is moving out of, and one-way
    /// platforms crossed from their open side.
    pub(super) fn cast(&self, at: Vec2, direction: Dir2, max_distance: f32) -> Option<Blocked> {
        let pose = Isometry2d::new(at, self.rotation);
        let start = self.placed.shape().aabb(pose);
        // Only colliders whose boxes meet the path are cast at, either
        // way: the grids also hand on boxes near it, where a cast's
        // rounding far from the origin could find a hit the gathered
        // colliders would not.
        let path = path_box(start, direction, max_distance);
        let colliders = self.spatial.colliders();
        let (entity, distance, (point, normal, index)) = match &self.nearby {
            Some(nearby) if nearby.region.contains(&path) => {
                // As `nearest_along`: the nearest hit, equal distances to the
                // lowest entity, whatever the order looked in.
                let mut nearest: Option<(Entity, f32, (Vec2, Dir2, usize))> = None;
                for &(index, aabb) in &nearby.colliders {
                    if !aabb.intersects(&path) {
                        continue;
                    }
                    let entity = colliders.entity(index);
                    if !self.filter.accepts(entity, colliders.layers(index)) {
                        continue;
                    }
                    let Some((distance, hit)) = self.hit(pose, direction, max_distance, index)
                    else {
                        continue;
                    };
                    if nearest.is_none_or(|(best_entity, best, _)| {
                        distance < best || (distance == best && entity < best_entity)
                    }) {
                        nearest = Some((entity, distance, hit));
                    }
                }
                nearest?
            }
            _ => self.spatial.nearest_along(
                start,
                direction,
                max_distance,
                self.filter,
                |index, _| {
                    (colliders.aabb(index).intersects(&path))
                        .then(|| self.hit(pose, direction, max_distance, index))
                        .flatten()
                },
            )?,
        };
        Some(Blocked {
            hit: SlideHit {
                entity,
                point,
                normal,
            },
            distance,
            index,
        })
    }

    /// The hit of the collider at `pose` moved along `direction` by up to
    /// `max_distance` in collider `index`, if it blocks: its distance, point,
    /// normal and `index`.
    pub(super) fn hit(
        &self,
        pose: Isometry2d,
        direction: Dir2,
        max_distance: f32,
        index: usize,
    ) -> Option<(f32, (Vec2, Dir2, usize))> {
        let (target, target_shape) = self.spatial.colliders().get(index);
        // The whole way, as `cast_shape` does, so that the result does not
        // depend on the order of the search.
        let moving = self.placed.moved_to(pose).ok()?;
        let path = Ray::new(pose.translation, direction, max_distance).ok()?;
        let hit = cast_shape_of(
            moving,
            path,
            Placed::read_by_snapshot(target_shape, target.pose),
        )?;
        if -hit.normal.dot(*direction) <= GRAZE {
            return None;
        }
        if let Some(platform) = self.one_way_platform(target.entity) {
            let open_side = target.pose.rotation * platform.normal.as_vec2();
            let blocks = direction.dot(open_side) < 0.0
                && hit.normal.dot(open_side) > 0.0
                && !(hit.distance == 0.0 && self.overlaps(pose, target_shape, target.pose));
            if !blocks {
                return None;
            }
        }
        Some((hit.distance, (hit.point, hit.normal, index)))
    }

    /// The colliders around the collider at `at` and what `motion`, steps
    /// and the snap can reach from there ([`Nearby`]); `None` for a motion
    /// too long, or too many colliders around, for it to pay.
    pub(super) fn gather(&self, at: Vec2, motion: Vec2) -> Option<Nearby> {
        let own = self.placed.shape().aabb(Isometry2d::new(at, self.rotation));
        let size = (own.max - own.min).max_element();
        let reach =
            2.0 * motion.length() + self.step_height + self.snap_to_ground + 4.0 * self.skin;
        // Also false for a NaN reach: nothing is gathered then.
        let short = reach <= NEARBY_REACH * size;
        if !short {
            return None;
        }
        let region = Aabb2d {
            min: own.min - Vec2::splat(reach),
            max: own.max + Vec2::splat(reach),
        };
        let mut colliders = Vec::new();
        (self.spatial).visit_overlapping(&region, self.filter, |index, aabb| {
            colliders.push((index, *aabb));
        });
        (colliders.len() <= NEARBY_MOST).then_some(Nearby { region, colliders })
    }

    /// The one-way platform on `entity`, if it is one.
    pub(super) fn one_way_platform(&self, entity: Entity) -> Option<&OneWayPlatform> {
        if !self.one_way {
            return None;
        }
        self.spatial.one_way_platforms.get(entity).ok()
    }

    /// Whether the collider at `pose` is inside `target` by more than half
    /// the skin (less is resting on it, within rounding).
    pub(super) fn overlaps(
        &self,
        pose: Isometry2d,
        target: ShapeView<'_>,
        target_pose: Isometry2d,
    ) -> bool {
        self.placed
            .shape()
            .contact(pose, target, target_pose)
            .is_some_and(|contact| contact.depth > 0.5 * self.skin)
    }

    /// The collider pushed out of what it overlaps or touches at `start`, a
    /// skin clear of it: every contact's push combined by [`push_out`] (the
    /// one [`Collisions::push_out`](crate::Collisions::push_out) uses, so a
    /// collider wedged where two surfaces meet goes out between them), in
    /// a few rounds for what the first push runs into; `start` itself if
    /// they do not get it all the way out. One-way platforms are left
    /// alone: being inside one is how it is crossed.
    pub(in crate::move_and_slide) fn depenetrate(
        &self,
        start: Vec2,
        touched: &mut Touched,
    ) -> Vec2 {
        let contacts = self.contacts(start);
        // First the deepest alone: an edge of the next tile of a floor,
        // overlapped a hair from the side, must not push it sideways.
        let Some(&deepest) = (contacts.iter()).max_by(|a, b| a.2.depth.total_cmp(&b.2.depth))
        else {
            return start;
        };
        // Each surface pushed out of, as a push from `start`: out of it by
        // its depth and a skin beyond where the collider was when it met it.
        let mut pushes: Vec<Contact> = Vec::new();
        let mut pushed: Vec<(Entity, Option<u32>, SlideHit)> = Vec::new();
        let skin = self.skin;
        let mut met = |pushes: &mut Vec<Contact>, at: Vec2, found: PartContact| {
            let (entity, part, contact) = found;
            let out = -*contact.normal;
            pushes.push(Contact {
                depth: contact.depth + skin + (at - start).dot(out),
                ..contact
            });
            if pushed.iter().all(|&(e, p, _)| (e, p) != (entity, part)) {
                let hit = SlideHit {
                    entity,
                    point: contact.point,
                    normal: Dir2::new_unchecked(out),
                };
                pushed.push((entity, part, hit));
            }
        };
        met(&mut pushes, start, deepest);
        let mut at = start;
        for _ in 0..DEPENETRATION_ROUNDS {
            // Out of everything met so far at once (a V valley's two sides
            // push out upward between them), then what that runs into.
            at = start + push_out(pushes.iter().copied());
            let mut overlapped = self.contacts(at);
            overlapped.retain(|(_, _, contact)| contact.depth > 0.0);
            if overlapped.is_empty() {
                break;
            }
            for found in overlapped {
                met(&mut pushes, at, found);
            }
        }
        // Part of the way out is no way out: it would only trade one
        // overlap for another.
        let still_in = (self.contacts(at).iter()).any(|(_, _, contact)| contact.depth > 0.0);
        if still_in || !at.is_finite() {
            return start;
        }
        for (_, _, hit) in pushed {
            let walkable = hit.normal.dot(self.up) >= self.min_ground_up;
            touched.push(hit, walkable, self.up, self.min_ground_up);
        }
        at
    }

    /// The colliders (not one-way platforms) that the collider at `at`
    /// overlaps or touches, with their contacts seen from it: a contact
    /// per part touched of a compound (both sides of a polyline's valley),
    /// with the part.
    pub(super) fn contacts(&self, at: Vec2) -> Vec<PartContact> {
        let pose = Isometry2d::new(at, self.rotation);
        let colliders = self.spatial.colliders();
        let mut found = Vec::new();
        let query: Aabb2d = self.placed.shape().aabb(pose);
        self.visit_overlapping(&query, |index| {
            let (target, target_shape) = colliders.get(index);
            if !self.filter.accepts(target.entity, colliders.layers(index))
                || self.one_way_platform(target.entity).is_some()
            {
                return;
            }
            for_each_part_contact(
                self.placed.shape(),
                pose,
                target_shape,
                target.pose,
                |contact, parts| {
                    found.push((target.entity, parts[1], contact));
                },
            );
        });
        // The search order is the grid's; the pushes must not depend on it.
        found.sort_by_key(|&(entity, part, _)| (entity, part));
        found
    }

    /// Calls `visit` with the index of each collider whose box overlaps
    /// `query` (in the sets the filter's layers can meet), from the
    /// gathered ones when `query` lies in their region, else from the
    /// grids.
    pub(super) fn visit_overlapping(&self, query: &Aabb2d, mut visit: impl FnMut(usize)) {
        match &self.nearby {
            Some(nearby) if nearby.region.contains(query) => {
                (nearby.colliders.iter())
                    .filter(|(_, aabb)| aabb.intersects(query))
                    .for_each(|&(index, _)| visit(index));
            }
            _ => (self.spatial).visit_overlapping(query, self.filter, |index, _| visit(index)),
        }
    }
}

/// The box that `start` sweeps moved along `direction` by up to
/// `max_distance` (a cast's path), widened for rounding.
fn path_box(start: Aabb2d, direction: Dir2, max_distance: f32) -> Aabb2d {
    let end = direction * max_distance;
    let (min, max) = (
        start.min + end.min(Vec2::ZERO),
        start.max + end.max(Vec2::ZERO),
    );
    let slack = (min.abs().max(max.abs()).max_element() + max_distance) * (16.0 * f32::EPSILON);
    Aabb2d {
        min: min - Vec2::splat(slack),
        max: max + Vec2::splat(slack),
    }
}
