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

/// Parts a neighbourhood holds inline.
const INLINE_PARTS: usize = 16;

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
    kept: Vec<Neighbourhood>,
    /// The static colliders' version they were gathered in.
    statics_version: u64,
}

/// The parts of one static compound around one moving collider.
#[derive(Clone, Debug)]
pub(crate) struct Neighbourhood {
    mover: Entity,
    compound: Entity,
    /// The world box the parts were gathered around.
    around: Aabb2d,
    /// Each part near it, its world box and a copy of it: testing them
    /// reads nothing of the compound's own parts, spread over megabytes.
    parts: SmallVec<[(u32, Aabb2d, CompoundPart); INLINE_PARTS]>,
    /// The same collider's neighbourhood in another compound, if any.
    next: u32,
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
            self.statics_version = statics_version;
        }
    }

    /// The kept neighbourhood of `mover` in `compound`, if it still holds
    /// the box `aabb`.
    #[inline]
    pub(crate) fn kept(
        &self,
        mover: Entity,
        compound: Entity,
        aabb: &Aabb2d,
    ) -> Option<&Neighbourhood> {
        let kept = self.find(mover, compound).map(|slot| &self.kept[slot])?;
        kept.around.contains(aabb).then_some(kept)
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

    /// Keeps `gathered`, each in place of its collider's previous one in
    /// the same compound.
    pub(crate) fn keep(&mut self, gathered: impl IntoIterator<Item = Neighbourhood>) {
        for mut neighbourhood in gathered {
            let (mover, compound) = (neighbourhood.mover, neighbourhood.compound);
            if let Some(slot) = self.find(mover, compound) {
                neighbourhood.next = self.kept[slot].next;
                self.kept[slot] = neighbourhood;
                continue;
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
    }
}

impl Neighbourhood {
    /// The parts of `compound` (on entity `compound_entity`, at `pose`)
    /// around `mover`, whose box is `aabb`, at `mover_pose`, its bounding
    /// radius `reach`: the box of its bounding circle (a spinning collider
    /// stays in it), grown by a margin.
    pub(crate) fn gather(
        (mover, mover_pose, reach): (Entity, Isometry2d, f32),
        compound_entity: Entity,
        compound: &Compound,
        pose: Isometry2d,
        aabb: &Aabb2d,
    ) -> Self {
        let margin = MARGIN * reach;
        let turning = Aabb2d::new(mover_pose.translation, Vec2::splat(reach + margin));
        let around = turning.merge(&aabb.grow(Vec2::splat(margin)));
        let mut parts = SmallVec::new();
        visit_parts_in(compound, pose, &widened(&around), |i, aabb| {
            parts.push((i, aabb, compound.parts()[i as usize].clone()));
        });
        Self {
            mover,
            compound: compound_entity,
            around,
            parts,
            next: NONE,
        }
    }

    /// The parts whose boxes meet `aabb` (inside [`Self::around`]), in the
    /// order they were gathered.
    #[inline]
    pub(crate) fn parts_near(&self, aabb: &Aabb2d) -> NearParts<'_> {
        let aabb = widened(aabb);
        (self.parts.iter())
            .filter(|(_, part_aabb, _)| part_aabb.intersects(&aabb))
            .map(|(i, _, part)| (*i, part))
            .collect()
    }
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
        let near = Neighbourhood::gather((mover, mover_pose, 6.0), compound, &map, pose, &start);
        let mut neighbourhoods = PartNeighbourhoods::default();
        neighbourhoods.begin_detection(1, 1);
        neighbourhoods.keep([near]);
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
            let mut listed: Vec<u32> = kept.parts_near(&aabb).iter().map(|(i, _)| *i).collect();
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
        let near_other = Neighbourhood::gather((mover, mover_pose, 6.0), other, &map, pose, &start);
        neighbourhoods.keep([near_other]);
        assert!(neighbourhoods.kept(mover, other, &start).is_some());
        assert!(neighbourhoods.kept(mover, compound, &start).is_some());
        // Another version: nothing kept.
        neighbourhoods.begin_detection(2, 1);
        assert!(neighbourhoods.kept(mover, compound, &start).is_none());
    }
}
