//! The snapshot's compounds, and the parts of the small ones placed in the
//! world.
//!
//! A small compound (a few circles, rectangles, capsules or segments) under
//! a scale alike on both axes is not rebuilt at that scale: each part is
//! scaled and placed in the world as the colliders are laid out, in layout
//! order, with its box, and the narrow phase tests its pairs from there.
//! The scaled compound itself is built only when something asks for it (a
//! spatial query, a swept test). A spinning `Transform` drifts from unit
//! scale a little every frame, and rebuilding every such compound every
//! frame cost more than testing it.

use std::sync::OnceLock;

use bevy::math::{Isometry2d, Vec2};
use bevy::shape::{Aabb2d, BoundingVolume};

use super::COLLIDERS_PER_CHUNK;
use crate::geometry::{
    Compound, ConvexRef, ShapeView, Sweep, boxes_extent, placed_extent, turning_path_aabb,
};

/// A compound collider as the snapshot keeps it.
#[derive(Debug)]
pub(crate) struct SnapshotCompound {
    /// The collider's own compound when its parts are placed (scaled by
    /// `factor`), else the scaled compound (`factor` 1).
    compound: Compound,
    factor: f32,
    /// Whether its parts are placed in the world ([`WorldParts`]).
    placed: bool,
    /// `compound` scaled by `factor`, built when first asked for.
    scaled: OnceLock<Compound>,
}

impl SnapshotCompound {
    /// A compound whose parts the snapshot places itself: `compound`, a
    /// placeable one ([`Compound::placeable_factor`]), under `factor`,
    /// checked valid at that scale.
    pub(crate) fn placed(compound: Compound, factor: f32) -> Self {
        Self {
            compound,
            factor,
            placed: true,
            scaled: OnceLock::new(),
        }
    }

    /// Makes this [`Self::placed`] of `compound` under `factor`, keeping
    /// the compound it holds if it is that one (no count to change).
    #[inline]
    pub(super) fn put_placed(&mut self, compound: &Compound, factor: f32) {
        if self.placed && self.compound.same_parts(compound) {
            self.factor = factor;
            self.scaled.take();
        } else {
            *self = Self::placed(compound.clone(), factor);
        }
    }

    /// A compound already scaled (and checked), tested as it is.
    pub(super) fn scaled(compound: Compound) -> Self {
        Self {
            compound,
            factor: 1.0,
            placed: false,
            scaled: OnceLock::new(),
        }
    }

    /// The scaled compound: what `Collider::world_shape` gives, to the bit.
    #[inline]
    pub(crate) fn compound(&self) -> &Compound {
        if self.factor == 1.0 {
            return &self.compound;
        }
        self.scaled.get_or_init(|| {
            // Checked valid at this scale when read, and scaling a
            // placeable compound's parts cannot fail.
            (self.compound.scaled(Vec2::splat(self.factor)))
                .unwrap_or_else(|_| self.compound.clone())
        })
    }

    /// Starts loading what [`Self::place`] reads, in two stages: the
    /// compound's record, then (reading it) its parts.
    #[inline]
    pub(super) fn prefetch(&self, stage: u8) {
        if self.placed {
            self.compound.prefetch_all_parts(stage);
        }
    }

    /// The box of the path `sweep` of a compound whose parts are placed, as
    /// `path_aabb_of` gives it for the scaled compound, without building
    /// it, from its box at the end (where it is placed).
    pub(super) fn swept_aabb(&self, sweep: Sweep, end: Aabb2d) -> Aabb2d {
        debug_assert!(self.placed, "only placed parts are scaled one by one");
        let boxes = (self.scaled_parts())
            .map(|(local, shape)| ShapeView::Convex(shape).aabb(sweep.start * local));
        let ends = [self.aabb_around(sweep.start, boxes), end];
        if sweep.start.rotation == sweep.end.rotation {
            return ends[0].merge(&ends[1]);
        }
        let radius = (self.scaled_parts())
            .map(|(local, shape)| local.translation.length() + shape.bounding_radius())
            .fold(0.0, f32::max);
        turning_path_aabb(sweep, radius, ends)
    }

    /// Its parts scaled by its factor: their poses in the compound's frame
    /// and their shapes, as `Compound::scaled` builds them.
    fn scaled_parts(&self) -> impl Iterator<Item = (Isometry2d, ConvexRef<'static>)> + '_ {
        (self.compound.parts().iter()).map(|part| match part.scaled_alike(self.factor) {
            Some(scaled) => scaled,
            None => unreachable!("a placeable compound's parts are plain"),
        })
    }

    /// The compound's box at `pose`, from its parts' `boxes` there when
    /// needed (as `Shape::aabb` gives it for the scaled compound).
    fn aabb_around(&self, pose: Isometry2d, boxes: impl Iterator<Item = Aabb2d>) -> Aabb2d {
        let (offset, extent) =
            (self.compound).scaled_extent_from(self.factor, pose, || boxes_extent(boxes, pose));
        placed_extent(pose, offset, extent)
    }

    /// Places the parts at `pose` at the end of `parts`, and returns where
    /// they are ([`PlacedParts`]) and the compound's box; `None` for a
    /// compound whose parts are not placed.
    #[inline]
    pub(crate) fn place(
        &self,
        pose: Isometry2d,
        parts: &mut Vec<WorldPart<'static>>,
    ) -> Option<(PlacedParts, Aabb2d)> {
        if !self.placed {
            return None;
        }
        let first = parts.len();
        // The box around the parts' boxes, as `boxes_extent` folds it, on
        // the way.
        let (mut low, mut high) = (Vec2::INFINITY, Vec2::NEG_INFINITY);
        // One reservation for all (a push each would check room each).
        parts.extend((self.compound.parts().iter()).map(|part| {
            let Some((pose, shape, aabb)) = part.placed_alike(self.factor, pose) else {
                unreachable!("a placeable compound's parts are plain");
            };
            (low, high) = (low.min(aabb.min), high.max(aabb.max));
            WorldPart { pose, shape, aabb }
        }));
        let box_around = Aabb2d {
            min: low,
            max: high,
        };
        let aabb = self.aabb_around(pose, std::iter::once(box_around));
        Some((PlacedParts::new(first, parts.len() - first), aabb))
    }
}

/// One part of a small compound, placed in the world: its pose, shape and
/// box. (The narrow phase takes a shape that is not a compound for one,
/// borrowing its points.)
#[derive(Clone, Copy, Debug)]
pub(crate) struct WorldPart<'a> {
    pub(crate) pose: Isometry2d,
    pub(crate) shape: ConvexRef<'a>,
    pub(crate) aabb: Aabb2d,
}

/// Where a compound's placed parts are among those of its chunk of the
/// layout: the first one's offset and their count, in one number; or
/// [`PlacedParts::NONE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PlacedParts(u32);

impl PlacedParts {
    /// Parts not placed.
    pub(crate) const NONE: Self = Self(u32::MAX);
    /// Room for the count (a small compound has at most 16 parts).
    const COUNT_BITS: u32 = 5;

    fn new(first: usize, count: usize) -> Self {
        debug_assert!(count < 1 << Self::COUNT_BITS);
        Self(((first as u32) << Self::COUNT_BITS) | count as u32)
    }

    pub(crate) fn range(self) -> Option<std::ops::Range<usize>> {
        if self == Self::NONE {
            return None;
        }
        let first = (self.0 >> Self::COUNT_BITS) as usize;
        Some(first..first + (self.0 & ((1 << Self::COUNT_BITS) - 1)) as usize)
    }
}

/// The placed parts of the small compounds, by chunk of the layout
/// ([`COLLIDERS_PER_CHUNK`] colliders each), so that chunks place theirs
/// apart.
#[derive(Default, Debug)]
pub(crate) struct WorldParts {
    pub(super) by_chunk: Vec<Vec<WorldPart<'static>>>,
}

impl WorldParts {
    /// The placed parts of collider `index` at `at`, if placed.
    #[inline]
    pub(crate) fn of(&self, index: usize, at: PlacedParts) -> Option<&[WorldPart<'static>]> {
        Some(&self.by_chunk[index / COLLIDERS_PER_CHUNK][at.range()?])
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::*;
    use crate::geometry::path_aabb_of;
    use crate::geometry::reference_tests::{random_plain_compound, random_pose};

    /// A placed compound's box, standing or on a path (turning or not), is
    /// the scaled compound's, to the bit, without building it.
    #[test]
    fn boxes_of_placed_parts_are_the_scaled_compounds() {
        let mut rng = StdRng::seed_from_u64(49);
        for round in 0..2_000 {
            let compound = random_plain_compound(&mut rng);
            let factor = [1.0, 1.0f32.next_up(), rng.random_range(0.2..3.0)][round % 3];
            let placed = SnapshotCompound::placed(compound.clone(), factor);
            let scaled = compound.scaled(Vec2::splat(factor)).unwrap();
            let end = random_pose(&mut rng, 40.0);
            let start = match round % 4 {
                0 => end,
                1 => Isometry2d::new(random_pose(&mut rng, 40.0).translation, end.rotation),
                _ => random_pose(&mut rng, 40.0),
            };
            let (_, aabb) = placed.place(end, &mut Vec::new()).unwrap();
            assert_eq!(
                aabb,
                ShapeView::Compound(&scaled).aabb(end),
                "round {round}"
            );
            let sweep = Sweep::new(start, end);
            let expected = path_aabb_of(ShapeView::Compound(&scaled), sweep);
            assert_eq!(placed.swept_aabb(sweep, aabb), expected, "round {round}");
            assert!(placed.scaled.get().is_none(), "built");
        }
    }
}
