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

use crate::geometry::{Compound, visit_parts_in};

/// A collider's neighbourhood reaches this share of its size beyond its box
/// on every side: more lists more parts, less gathers again sooner.
const MARGIN: f32 = 0.5;

/// Parts a neighbourhood holds inline.
const INLINE_PARTS: usize = 8;

/// Kept neighbourhoods beyond this many (plus twice the moving colliders)
/// are all dropped: despawned colliders leave theirs behind.
const SPARE_NEIGHBOURHOODS: usize = 4096;

/// The kept neighbourhoods, one per moving collider (in one big compound).
#[derive(Resource, Default)]
pub(crate) struct PartNeighbourhoods {
    /// Each moving collider's neighbourhood in `kept`, by entity index
    /// (`u32::MAX` for none).
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
    /// Each part near it, and its world box.
    parts: SmallVec<[(u32, Aabb2d); INLINE_PARTS]>,
}

/// The parts of a neighbourhood near a collider's box.
pub(crate) type NearParts = SmallVec<[u32; 16]>;

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
        let slot = *self.slot_of.get(mover.index_u32() as usize)?;
        let kept = self.kept.get(slot as usize)?;
        (kept.mover == mover && kept.compound == compound && kept.around.contains(aabb))
            .then_some(kept)
    }

    /// Keeps `gathered`, each in place of its collider's previous one.
    pub(crate) fn keep(&mut self, gathered: impl IntoIterator<Item = Neighbourhood>) {
        for neighbourhood in gathered {
            let index = neighbourhood.mover.index_u32() as usize;
            if index >= self.slot_of.len() {
                self.slot_of.resize(index + 1, u32::MAX);
            }
            let slot = self.slot_of[index];
            match self.kept.get_mut(slot as usize) {
                Some(kept) if kept.mover == neighbourhood.mover => *kept = neighbourhood,
                _ => {
                    self.slot_of[index] = self.kept.len() as u32;
                    self.kept.push(neighbourhood);
                }
            }
        }
    }
}

impl Neighbourhood {
    /// The parts of `compound` (on entity `compound_entity`, at `pose`)
    /// around `mover`'s box `aabb`, gathered with a margin.
    pub(crate) fn gather(
        mover: Entity,
        compound_entity: Entity,
        compound: &Compound,
        pose: Isometry2d,
        aabb: &Aabb2d,
    ) -> Self {
        let margin = MARGIN * (aabb.max - aabb.min).max_element();
        let around = aabb.grow(Vec2::splat(margin));
        let mut parts = SmallVec::new();
        visit_parts_in(compound, pose, &widened(&around), |i, part| {
            parts.push((i, part));
        });
        Self {
            mover,
            compound: compound_entity,
            around,
            parts,
        }
    }

    /// The parts whose boxes meet `aabb` (inside [`Self::around`]), in the
    /// order they were gathered.
    #[inline]
    pub(crate) fn parts_near(&self, aabb: &Aabb2d) -> NearParts {
        let aabb = widened(aabb);
        (self.parts.iter())
            .filter(|(_, part)| part.intersects(&aabb))
            .map(|&(i, _)| i)
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
        let near = Neighbourhood::gather(mover, compound, &map, pose, &start);
        let mut neighbourhoods = PartNeighbourhoods::default();
        neighbourhoods.begin_detection(1, 1);
        neighbourhoods.keep([near]);
        for step in 0..12 {
            let aabb = Aabb2d::new(
                start.center() + Vec2::new(step as f32 * 0.4, 0.0),
                start.half_size(),
            );
            let Some(kept) = neighbourhoods.kept(mover, compound, &aabb) else {
                assert!(step > 3, "left after {step} steps");
                continue;
            };
            let mut listed: Vec<u32> = kept.parts_near(&aabb).to_vec();
            listed.sort();
            let expected: Vec<u32> = (map.parts().iter().enumerate())
                .filter(|(_, part)| part.shape.aabb(pose * part.pose).intersects(&aabb))
                .map(|(i, _)| i as u32)
                .collect();
            assert!(!expected.is_empty());
            assert_eq!(listed, expected, "step {step}");
        }
        // Another compound, another version: nothing kept.
        assert!(neighbourhoods.kept(mover, mover, &start).is_none());
        neighbourhoods.begin_detection(2, 1);
        assert!(neighbourhoods.kept(mover, compound, &start).is_none());
    }
}
