//! The parts of a big static compound (a tile map, a long terrain line) near
//! each moving collider, kept between detections while the collider stays
//! inside the box they were gathered around (temporal coherence, as Box2D's
//! enlarged boxes). A collider walking over a map then looks the map's
//! part grid up every few frames, not every frame, and its contact is
//! found among a handful of parts in its own short list: the grid of a
//! large map is megabytes read at random, the list a few cache lines.
//!
//! The contact found is the same either way: the list holds every part
//! whose box meets the collider's, and the deepest part wins whatever the
//! order the parts are looked at in.

use bevy::ecs::entity::Entity;
use bevy::math::{Isometry2d, Vec2};
use bevy::prelude::Resource;
use bevy::shape::{Aabb2d, BoundingVolume, IntersectsVolume};
use smallvec::SmallVec;

use crate::geometry::{Compound, CompoundPart, ListedPart, visit_parts_in};

/// A collider's neighbourhood holds it at any rotation and reaches this
/// share of its bounding radius beyond that: more lists more parts, less
/// gathers again sooner (a collider of radius 6 moving a unit a frame
/// gathers every 6 frames).
const MARGIN: f32 = 1.0;

/// Kept neighbourhoods beyond this many (plus twice the moving colliders)
/// are all dropped: despawned colliders leave theirs behind.
const SPARE_NEIGHBOURHOODS: usize = 4096;

/// The kept neighbourhoods, one per moving collider and big static
/// compound it is near.
#[derive(Resource, Default)]
pub(crate) struct PartNeighbourhoods {
    /// Each moving collider's first neighbourhood in `kept`, by entity
    /// index (`NONE` for none); the others follow `Neighbourhood::next`.
    slot_of: Vec<u32>,
    /// Small records, so that a thousand movers' fit in a core's cache.
    kept: Vec<Neighbourhood>,
    /// The kept neighbourhoods' parts, each neighbourhood's together; parts
    /// of neighbourhoods gathered again since stay until `dead_parts` is
    /// most of them.
    parts: Vec<NearPart>,
    dead_parts: usize,
    /// The static colliders' version they were gathered in.
    statics_version: u64,
}

/// Neighbourhoods gathered again during one detection (by one chunk of
/// its pairs), kept at its end.
#[derive(Default)]
pub(crate) struct GatheredNeighbourhoods {
    gathered: Vec<Neighbourhood>,
    /// Their parts, `Neighbourhood::parts` indexing into it.
    parts: Vec<NearPart>,
}

/// Where one static compound's parts around one moving collider are.
#[derive(Clone, Copy, Debug)]
struct Neighbourhood {
    mover: Entity,
    compound: Entity,
    /// The world box the parts were gathered around.
    around: Aabb2d,
    /// Its first part and part count, in the list it is in.
    first: u32,
    len: u32,
    /// The same collider's neighbourhood in another compound, if any.
    next: u32,
}

impl Neighbourhood {
    fn parts<'a>(&self, parts: &'a [NearPart]) -> &'a [NearPart] {
        &parts[self.first as usize..(self.first + self.len) as usize]
    }
}

/// A part near a collider: its index in the compound, its world box and a
/// copy of it, so that testing it reads nothing of the compound's own
/// parts, spread over megabytes.
#[derive(Clone, Debug)]
pub(crate) struct NearPart {
    index: u32,
    aabb: Aabb2d,
    part: CompoundPart,
}

/// No neighbourhood.
const NONE: u32 = u32::MAX;

/// The parts of a neighbourhood near a collider's box.
pub(crate) type NearParts<'a> = SmallVec<[ListedPart<'a>; 16]>;

impl PartNeighbourhoods {
    /// Starts a detection with the static colliders at `statics_version`
    /// and `moving` moving colliders: neighbourhoods gathered in another
    /// version (the static colliders changed) are dropped.
    pub(crate) fn begin_detection(&mut self, statics_version: u64, moving: usize) {
        let spare = self.kept.len() > SPARE_NEIGHBOURHOODS + 2 * moving;
        if statics_version != self.statics_version || spare {
            self.slot_of.clear();
            self.kept.clear();
            self.parts.clear();
            self.dead_parts = 0;
            self.statics_version = statics_version;
        }
    }

    /// The parts of the kept neighbourhood of `mover` in `compound`, if it
    /// still holds the box `aabb`.
    #[inline]
    pub(crate) fn kept(
        &self,
        mover: Entity,
        compound: Entity,
        aabb: &Aabb2d,
    ) -> Option<&[NearPart]> {
        let kept = self.find(mover, compound).map(|slot| &self.kept[slot])?;
        kept.around.contains(aabb).then(|| kept.parts(&self.parts))
    }

    /// Where `mover`'s neighbourhood in `compound` is kept.
    #[inline]
    fn find(&self, mover: Entity, compound: Entity) -> Option<usize> {
        let mut slot = *self.slot_of.get(mover.index_u32() as usize)?;
        while let Some(kept) = self.kept.get(slot as usize) {
            if kept.mover != mover {
                return None;
            }
            if kept.compound == compound {
                return Some(slot as usize);
            }
            slot = kept.next;
        }
        None
    }

    /// Keeps the neighbourhoods of `gathered` (emptying it), each in place
    /// of its collider's previous one in the same compound.
    pub(crate) fn keep<'g>(
        &mut self,
        gathered: impl IntoIterator<Item = &'g mut GatheredNeighbourhoods>,
    ) {
        for list in gathered {
            let base = self.parts.len() as u32;
            self.parts.append(&mut list.parts);
            for mut neighbourhood in list.gathered.drain(..) {
                neighbourhood.first += base;
                self.keep_one(neighbourhood);
            }
        }
        if self.dead_parts > self.parts.len() / 2 {
            self.drop_dead_parts();
        }
    }

    fn keep_one(&mut self, mut neighbourhood: Neighbourhood) {
        let (mover, compound) = (neighbourhood.mover, neighbourhood.compound);
        if let Some(slot) = self.find(mover, compound) {
            neighbourhood.next = self.kept[slot].next;
            self.dead_parts += self.kept[slot].len as usize;
            self.kept[slot] = neighbourhood;
            return;
        }
        let index = mover.index_u32() as usize;
        if index >= self.slot_of.len() {
            self.slot_of.resize(index + 1, NONE);
        }
        // First in the collider's list; a list of another entity with
        // the same index (despawned since) is left behind.
        let head = self.slot_of[index];
        let same = (self.kept.get(head as usize)).is_some_and(|kept| kept.mover == mover);
        neighbourhood.next = if same { head } else { NONE };
        self.slot_of[index] = self.kept.len() as u32;
        self.kept.push(neighbourhood);
    }

    /// Drops the parts no kept neighbourhood lists: the others are copied,
    /// each neighbourhood's together, into a list of their own.
    fn drop_dead_parts(&mut self) {
        let mut live = Vec::with_capacity(self.parts.len() - self.dead_parts);
        for kept in &mut self.kept {
            let first = live.len() as u32;
            live.extend_from_slice(kept.parts(&self.parts));
            kept.first = first;
        }
        self.parts = live;
        self.dead_parts = 0;
    }
}

impl GatheredNeighbourhoods {
    /// Empties the list for a detection.
    pub(crate) fn clear(&mut self) {
        self.gathered.clear();
        self.parts.clear();
    }

    /// Gathers the parts of `compound` (on entity `compound_entity`, at
    /// `pose`) around `mover`, whose box is `aabb`, at `mover_pose`, its
    /// bounding radius `reach`: the box of its bounding circle (a spinning
    /// collider stays in it), grown by a margin. Returns them.
    pub(crate) fn gather(
        &mut self,
        (mover, mover_pose, reach): (Entity, Isometry2d, f32),
        compound_entity: Entity,
        compound: &Compound,
        pose: Isometry2d,
        aabb: &Aabb2d,
    ) -> &[NearPart] {
        let margin = MARGIN * reach;
        let turning = Aabb2d::new(mover_pose.translation, Vec2::splat(reach + margin));
        let around = turning.merge(&aabb.grow(Vec2::splat(margin)));
        let first = self.parts.len() as u32;
        visit_parts_in(compound, pose, &widened(&around), |index, part, aabb| {
            let part = part.clone();
            self.parts.push(NearPart { index, aabb, part });
        });
        let neighbourhood = Neighbourhood {
            mover,
            compound: compound_entity,
            around,
            first,
            len: self.parts.len() as u32 - first,
            next: NONE,
        };
        self.gathered.push(neighbourhood);
        neighbourhood.parts(&self.parts)
    }
}

/// The parts of a neighbourhood (`parts`) whose boxes meet `aabb` (inside
/// the box they were gathered around), in the order they were gathered.
#[inline]
pub(crate) fn parts_near<'a>(parts: &'a [NearPart], aabb: &Aabb2d) -> NearParts<'a> {
    let aabb = widened(aabb);
    (parts.iter())
        .filter(|near| near.aabb.intersects(&aabb))
        .map(|near| (near.index, &near.part))
        .collect()
}

/// `aabb` widened by the rounding of boxes at its coordinates, so that a
/// part touching a collider within rounding is listed with it (a walk of
/// the part grid looks in a box widened as much).
fn widened(aabb: &Aabb2d) -> Aabb2d {
    let slack = (aabb.min.abs().max(aabb.max.abs()).max_element() + 1.0) * (16.0 * f32::EPSILON);
    aabb.grow(Vec2::splat(slack))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Shape;
    use bevy::math::Rot2;

    fn tiles() -> Compound {
        let parts = (0..40).flat_map(|x| {
            (0..40).map(move |y| {
                let at = Isometry2d::from_xy(x as f32 * 8.0, y as f32 * 8.0);
                (
                    at,
                    Shape::Rect {
                        half_size: Vec2::splat(3.0),
                    },
                )
            })
        });
        Compound::new(parts)
    }

    /// The parts listed near a box are exactly those whose boxes meet it,
    /// while it stays inside the neighbourhood; a box that leaves it needs
    /// gathering again.
    #[test]
    fn a_neighbourhood_lists_the_parts_near_any_box_inside_it() {
        let map = tiles();
        assert!(map.has_part_grid());
        let pose = Isometry2d::new(Vec2::new(-30.0, 12.0), Rot2::radians(0.4));
        let (mover, compound) = (
            Entity::from_raw_u32(7).unwrap(),
            Entity::from_raw_u32(9).unwrap(),
        );
        let start = Aabb2d::new(Vec2::new(60.0, 150.0), Vec2::new(5.0, 3.0));
        let mover_pose = Isometry2d::from_translation(start.center());
        let mut neighbourhoods = PartNeighbourhoods::default();
        neighbourhoods.begin_detection(1, 1);
        let mut gathered = GatheredNeighbourhoods::default();
        gathered.gather((mover, mover_pose, 6.0), compound, &map, pose, &start);
        neighbourhoods.keep([&mut gathered]);
        let mut left = 0;
        for step in 0..12 {
            let aabb = Aabb2d::new(
                start.center() + Vec2::new(step as f32 * 1.5, 0.0),
                start.half_size(),
            );
            let Some(kept) = neighbourhoods.kept(mover, compound, &aabb) else {
                assert!(step > 3, "left after {step} steps");
                left += 1;
                continue;
            };
            let mut listed: Vec<u32> = parts_near(kept, &aabb).iter().map(|(i, _)| *i).collect();
            listed.sort();
            let expected: Vec<u32> = (map.parts().iter().enumerate())
                .filter(|(_, part)| part.shape.aabb(pose * part.pose).intersects(&aabb))
                .map(|(i, _)| i as u32)
                .collect();
            assert!(!expected.is_empty());
            assert_eq!(listed, expected, "step {step}");
        }
        assert!(left > 0);
        // Another compound: kept beside the first, not in its place.
        let other = Entity::from_raw_u32(11).unwrap();
        assert!(neighbourhoods.kept(mover, other, &start).is_none());
        gathered.gather((mover, mover_pose, 6.0), other, &map, pose, &start);
        neighbourhoods.keep([&mut gathered]);
        assert!(neighbourhoods.kept(mover, other, &start).is_some());
        assert!(neighbourhoods.kept(mover, compound, &start).is_some());
        // Another version: nothing kept.
        neighbourhoods.begin_detection(2, 1);
        assert!(neighbourhoods.kept(mover, compound, &start).is_none());
    }

    /// Neighbourhoods gathered again frame after frame, for several movers
    /// in two compounds, each list its own parts, while the parts of those
    /// they replaced are dropped.
    #[test]
    fn neighbourhoods_gathered_again_keep_their_own_parts() {
        let map = tiles();
        let pose = Isometry2d::from_xy(-4.0, 3.0);
        let compounds = [9, 10].map(|i| Entity::from_raw_u32(i).unwrap());
        let mut neighbourhoods = PartNeighbourhoods::default();
        neighbourhoods.begin_detection(1, 8);
        let mut gathered = GatheredNeighbourhoods::default();
        let mut latest = std::collections::HashMap::new();
        let mut dropped = false;
        for frame in 0..60u32 {
            for (m, k) in (0..8u32).flat_map(|m| [(m, 0), (m, 1)]) {
                // Each gathers again every third frame, some in step.
                if (frame + m + k) % 3 != 0 {
                    continue;
                }
                let centre = Vec2::new(
                    (frame * 5 + 40 * m) as f32 % 300.0,
                    (20 + 35 * m + 9 * k) as f32,
                );
                let (mover, aabb) = (
                    Entity::from_raw_u32(m + 1).unwrap(),
                    Aabb2d::new(centre, Vec2::new(4.0, 3.0)),
                );
                let mover_pose = Isometry2d::from_translation(centre);
                let listed = gathered.gather(
                    (mover, mover_pose, 5.0),
                    compounds[k as usize],
                    &map,
                    pose,
                    &aabb,
                );
                let listed: Vec<u32> = listed.iter().map(|near| near.index).collect();
                assert!(!listed.is_empty());
                latest.insert((mover, k), (aabb, listed));
            }
            let before = neighbourhoods.parts.len();
            neighbourhoods.keep([&mut gathered]);
            dropped |= neighbourhoods.parts.len() < before;
            for ((mover, k), (aabb, listed)) in &latest {
                let kept = neighbourhoods.kept(*mover, compounds[*k as usize], aabb);
                let kept: Vec<u32> = kept.unwrap().iter().map(|near| near.index).collect();
                assert_eq!(&kept, listed, "frame {frame}");
            }
            let live: usize = neighbourhoods
                .kept
                .iter()
                .map(|kept| kept.len as usize)
                .sum();
            assert!(neighbourhoods.parts.len() - live <= neighbourhoods.parts.len() / 2);
        }
        assert!(
            dropped,
            "the replaced neighbourhoods' parts were never dropped"
        );
    }
}
