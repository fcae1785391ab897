//! Step 1 of detection: copy every valid collider's world shape, pose, bounds
//! and layers into flat arrays that the later steps read as plain data.
//!
//! This module holds the data model; [`read`] reads the colliders from the
//! ECS and [`layout`] lays them out in the grid's order.

mod compounds;
mod layout;
mod read;
mod rescaled;

use std::sync::OnceLock;

use bevy::math::{Isometry2d, Vec2};
use bevy::prelude::*;
use bevy::shape::Aabb2d;

use crate::components::CollisionLayers;
use crate::geometry::{ConvexRef, PolygonRef, ShapeError, ShapeView, Sweep};

use compounds::WorldParts;
pub(crate) use compounds::{PlacedParts, SnapshotCompound, WorldPart};

pub(crate) use read::{
    ColliderData, NoteScratch, Paths, ReadRows, SnapshotTarget, WarnedColliders, read_tables,
    take_snapshot,
};

/// One collider as detection sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SnapshotCollider {
    /// The collider's entity.
    pub(crate) entity: Entity,
    /// Its shape, scaled (see [`ColliderSnapshot::shape_of`]).
    pub(crate) shape: SnapshotShape,
    /// Its world pose: position and rotation about z.
    pub(crate) pose: Isometry2d,
}

// Scenes of circles and rectangles keep the per-collider record they had
// before segments and polygons existed.
const _: () = assert!(size_of::<SnapshotCollider>() == 40);

/// A collider's shape with scale applied, as compact as a circle's or a
/// rectangle's: the points of segments and polygons, and compounds, are in
/// the snapshot's [`ShapeTables`], so that scenes without them carry
/// nothing more per collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum SnapshotShape {
    Circle {
        radius: f32,
    },
    Rect {
        half_size: Vec2,
    },
    Capsule {
        radius: f32,
        half_length: f32,
    },
    /// A segment (`count == 2`: its ends) or a polygon (its vertices, then
    /// as many normals), from `first` in the points.
    Points {
        first: u32,
        count: u32,
    },
    /// A compound, scaled: number `index` in the compounds, its parts
    /// placed in the world at `placed` when the snapshot places them.
    Compound {
        index: u32,
        placed: PlacedParts,
    },
}

/// What packed shapes keep out of their records, so that a record stays as
/// small as a circle's: the scaled points of segments and polygons, and the
/// compounds (with the parts of the small ones placed in the world).
#[derive(Default, Debug)]
pub(crate) struct ShapeTables {
    pub(crate) points: Vec<Vec2>,
    /// The compounds tested as they are (scaled), in the order read.
    compounds: Vec<SnapshotCompound>,
    /// How many of `compounds` this detection has put so far: those after
    /// are last detection's, to be put over or dropped.
    compounds_kept: usize,
    /// The small compounds whose parts are placed, by chunk of the ECS read
    /// (each chunk puts its own, in parallel, over last detection's).
    placed_compounds: Vec<Vec<SnapshotCompound>>,
    /// The parts of the small compounds, placed in the world.
    pub(crate) world_parts: WorldParts,
    /// The scaled compounds, kept from detection to detection.
    rescaled: rescaled::RescaledCompounds,
}

impl ShapeTables {
    /// The compound of a [`SnapshotShape::Compound`] of index `index`.
    #[inline(always)]
    pub(crate) fn compound(&self, index: u32) -> &SnapshotCompound {
        match CompoundEntry::of(index) {
            CompoundEntry::Scaled(at) => &self.compounds[at],
            CompoundEntry::Placed { chunk, at } => &self.placed_compounds[chunk][at],
        }
    }

    /// Whether any collider is a compound.
    pub(crate) fn has_compounds(&self) -> bool {
        !self.compounds.is_empty() || self.placed_compounds.iter().any(|chunk| !chunk.is_empty())
    }
}

/// Where the entry of a [`SnapshotShape::Compound`] is, by its index: a
/// scaled compound's in the one list, a placed one's in its chunk's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CompoundEntry {
    Scaled(usize),
    Placed { chunk: usize, at: usize },
}

impl CompoundEntry {
    /// The index's bit saying its entry is in a chunk's list.
    const PLACED: u32 = 1 << 31;
    /// Bits for the place in a chunk's list (a chunk reads at most
    /// `COLLIDERS_PER_CHUNK` colliders).
    const AT_BITS: u32 = COLLIDERS_PER_CHUNK.trailing_zeros();

    #[inline(always)]
    fn of(index: u32) -> Self {
        if index & Self::PLACED == 0 {
            return Self::Scaled(index as usize);
        }
        Self::Placed {
            chunk: ((index & !Self::PLACED) >> Self::AT_BITS) as usize,
            at: (index & ((1 << Self::AT_BITS) - 1)) as usize,
        }
    }

    fn index(self) -> u32 {
        match self {
            Self::Scaled(at) => {
                debug_assert!((at as u32) < Self::PLACED);
                at as u32
            }
            Self::Placed { chunk, at } => {
                debug_assert!(at < COLLIDERS_PER_CHUNK && chunk < 1 << (31 - Self::AT_BITS));
                Self::PLACED | (chunk as u32) << Self::AT_BITS | at as u32
            }
        }
    }
}

/// This detection's colliders as plain data, one index per collider. Rebuilt
/// every detection; allocations are reused.
///
/// The colliders are laid out in the order the last detection's grid filed
/// them, cell by cell, so that colliders near each other in the world are
/// mostly near each other in memory too, and the later steps, which look at
/// neighbours, read memory nearly in order. The order has no other meaning.
#[derive(Resource, Default, Debug)]
pub struct ColliderSnapshot {
    /// The colliders: entity, world shape and pose, side by side so that a
    /// pair test reads one place per collider.
    pub(crate) colliders: Vec<SnapshotCollider>,
    /// World-space bounding boxes (of the whole path when paths are kept).
    pub(crate) aabbs: Vec<Aabb2d>,
    /// Collision layers.
    pub(crate) layers: Vec<CollisionLayers>,
    /// Whether each collider is [`Swept`](crate::Swept).
    pub(crate) swept: Vec<bool>,
    /// What the packed shapes keep out of their records (see
    /// [`SnapshotShape`]).
    pub(crate) tables: ShapeTables,
    /// The [`CollisionBody`](crate::CollisionBody) of each collider, if it
    /// has one; empty when none has.
    pub(crate) bodies: Vec<Option<Entity>>,
    /// Where each collider's path over this step starts, when any collider
    /// is [`Swept`](crate::Swept) (its partners move along their own paths
    /// too); empty otherwise, when every collider stands at its pose.
    pub(crate) path_starts: Vec<Isometry2d>,
    /// For each collider, its position among the valid colliders in the
    /// order the query yielded them: where the next detection, which reads
    /// them in the same order as long as no collider is added, removed or
    /// moved to other storage, finds each of them.
    query_positions: Vec<u32>,
    /// The colliders in query order, before they are laid out.
    staged: Vec<StagedCollider>,
    /// Their path starts, in query order, when paths are kept.
    staged_starts: Vec<Isometry2d>,
    /// The bits in which the colliders' entities differ ([`Entity::to_bits`]),
    /// so that pairs of them pack into small sort keys.
    entity_varying_bits: u64,
    /// The bits of the colliders' layers that any has and that all have.
    layers_seen: LayerBits,
    /// The colliders' entities in order, each with its index, for
    /// [`Self::index_of`]: sorted on the first lookup after the snapshot is
    /// taken (emptied then), so that nothing is paid when nobody asks.
    by_entity: OnceLock<Vec<(Entity, u32)>>,
}

/// A collider as read from the ECS, before it is laid out: one record, so
/// that laying it out reads one place.
#[derive(Clone, Copy, Debug)]
struct StagedCollider {
    collider: SnapshotCollider,
    layers: CollisionLayers,
    swept: bool,
}

impl StagedCollider {
    /// What a slot holds until it is filled (or removed, if skipped).
    const PLACEHOLDER: Self = Self {
        collider: SnapshotCollider {
            entity: Entity::PLACEHOLDER,
            shape: SnapshotShape::Circle { radius: 0.0 },
            pose: Isometry2d::IDENTITY,
        },
        layers: CollisionLayers::ALL,
        swept: false,
    };
}

impl ColliderSnapshot {
    /// Number of colliders.
    pub(crate) fn len(&self) -> usize {
        self.colliders.len()
    }

    /// The index of `entity`'s collider, if the snapshot has it. The first
    /// lookup after the snapshot is taken sorts the entities (`O(n log n)`);
    /// each lookup is then a binary search.
    pub(crate) fn index_of(&self, entity: Entity) -> Option<usize> {
        let sorted = self.by_entity.get_or_init(|| {
            let mut sorted: Vec<(Entity, u32)> = (self.colliders.iter().enumerate())
                .map(|(index, collider)| (collider.entity, index as u32))
                .collect();
            sorted.sort_unstable_by_key(|&(entity, _)| entity);
            sorted
        });
        let at = sorted.binary_search_by_key(&entity, |&(e, _)| e).ok()?;
        Some(sorted[at].1 as usize)
    }

    /// `shape` with its points, if any, from this snapshot.
    #[inline(always)]
    pub(crate) fn shape_of(&self, shape: &SnapshotShape) -> ShapeView<'_> {
        shape.view(|| &self.tables)
    }

    /// The motion of collider `index` over this step: from its pose at the
    /// previous detection when paths are kept, else standing still.
    pub(crate) fn sweep(&self, index: usize) -> Sweep {
        let end = self.colliders[index].pose;
        match self.path_starts.get(index) {
            Some(&start) => Sweep::new(start, end),
            None => Sweep::stationary(end),
        }
    }

    /// Whether colliders `i` and `j` belong to one body, so that they are
    /// never paired.
    #[inline]
    pub(crate) fn same_body(&self, i: usize, other: &Self, j: usize) -> bool {
        match (self.bodies.get(i), other.bodies.get(j)) {
            (Some(Some(a)), Some(Some(b))) => a == b,
            _ => false,
        }
    }

    /// Whether any collider is [`Swept`](crate::Swept), so that paths are kept.
    pub(crate) fn has_paths(&self) -> bool {
        !self.path_starts.is_empty()
    }

    /// Whether collider `index` is [`Swept`](crate::Swept).
    #[inline]
    pub(crate) fn is_swept(&self, index: usize) -> bool {
        self.swept[index]
    }

    /// The bits in which the colliders' entities differ
    /// ([`Entity::to_bits`]).
    pub(crate) fn entity_varying_bits(&self) -> u64 {
        self.entity_varying_bits
    }

    /// Whether a collider with `layers` may interact with any of these
    /// colliders (if not, none of them needs looking at).
    pub(crate) fn may_interact(&self, layers: &CollisionLayers) -> bool {
        layers.interacts_with(&self.layers_seen.any)
    }

    /// The layers of every collider, when there are some and they all have
    /// the same (always, for a game that sets none).
    pub(crate) fn uniform_layers(&self) -> Option<CollisionLayers> {
        let LayerBits { any, all } = self.layers_seen;
        (!self.colliders.is_empty() && any == all).then_some(any)
    }
}

/// The OR and the AND of some colliders' layers, bit by bit: a query whose
/// layers meet none of the OR can skip them, and where the two agree every
/// collider has the same layers.
#[derive(Clone, Copy, Debug)]
struct LayerBits {
    any: CollisionLayers,
    all: CollisionLayers,
}

impl Default for LayerBits {
    fn default() -> Self {
        Self::NONE
    }
}

impl LayerBits {
    /// Those of no collider.
    const NONE: Self = Self {
        any: CollisionLayers::NONE,
        all: CollisionLayers::ALL,
    };

    fn union(self, other: Self) -> Self {
        let (a, b) = (self, other);
        Self {
            any: CollisionLayers::new(
                a.any.memberships | b.any.memberships,
                a.any.filters | b.any.filters,
            ),
            all: CollisionLayers::new(
                a.all.memberships & b.all.memberships,
                a.all.filters & b.all.filters,
            ),
        }
    }

    fn of(layers: CollisionLayers) -> Self {
        Self {
            any: layers,
            all: layers,
        }
    }
}

impl SnapshotShape {
    /// Whether it is a compound, whose contacts say which part they are on.
    #[inline(always)]
    pub(crate) fn is_compound(&self) -> bool {
        matches!(self, Self::Compound { .. })
    }

    /// The parts of a compound placed in the world, for collider `index`
    /// of the snapshot whose `tables` these are; `None` for other shapes
    /// and for compounds whose parts are not placed.
    #[inline(always)]
    pub(crate) fn placed_parts<'t>(
        &self,
        index: usize,
        tables: &'t ShapeTables,
    ) -> Option<&'t [WorldPart<'static>]> {
        match *self {
            Self::Compound { placed, .. } => tables.world_parts.of(index, placed),
            _ => None,
        }
    }

    /// A scaled circle, rectangle or capsule, checked; `None` for shapes
    /// with points, which are scaled into the snapshot's table.
    #[inline(always)]
    fn of_scaled(shape: ShapeView<'_>) -> Result<Option<Self>, ShapeError> {
        let flat = match shape.convex() {
            Some(ConvexRef::Circle { radius }) => Self::Circle { radius },
            Some(ConvexRef::Rect { half_size }) => Self::Rect { half_size },
            Some(ConvexRef::Capsule {
                radius,
                half_length,
            }) => Self::Capsule {
                radius,
                half_length,
            },
            Some(ConvexRef::Segment { .. } | ConvexRef::Polygon(_)) | None => return Ok(None),
        };
        shape.validate().map(|()| Some(flat))
    }

    /// The shape if its record holds all of it (a circle, rectangle or
    /// capsule): no table to look up. (Its own match, not [`Self::view`]'s:
    /// the snapshot boxes every collider through `view`, and one match
    /// there costs less than two.)
    #[inline(always)]
    pub(crate) fn at_hand(self) -> Option<ConvexRef<'static>> {
        match self {
            Self::Circle { radius } => Some(ConvexRef::Circle { radius }),
            Self::Rect { half_size } => Some(ConvexRef::Rect { half_size }),
            Self::Capsule {
                radius,
                half_length,
            } => Some(ConvexRef::Capsule {
                radius,
                half_length,
            }),
            Self::Points { .. } | Self::Compound { .. } => None,
        }
    }

    /// The shape as the tests take it, its points or compound from the
    /// `tables`, which shapes [`at_hand`](Self::at_hand) do not look up:
    /// always inlined, so that their view costs nothing.
    #[inline(always)]
    pub(crate) fn view<'t>(self, tables: impl FnOnce() -> &'t ShapeTables) -> ShapeView<'t> {
        let convex = match self {
            Self::Circle { radius } => ConvexRef::Circle { radius },
            Self::Rect { half_size } => ConvexRef::Rect { half_size },
            Self::Capsule {
                radius,
                half_length,
            } => ConvexRef::Capsule {
                radius,
                half_length,
            },
            Self::Compound { index, .. } => {
                return ShapeView::Compound(tables().compound(index).compound());
            }
            Self::Points { first, count } => {
                let (first, count, points) = (first as usize, count as usize, &tables().points);
                if count == 2 {
                    ConvexRef::Segment {
                        a: points[first],
                        b: points[first + 1],
                    }
                } else {
                    ConvexRef::Polygon(PolygonRef::new(&points[first..first + 2 * count]))
                }
            }
        };
        ShapeView::Convex(convex)
    }
}

/// Colliders per chunk of snapshot work.
const COLLIDERS_PER_CHUNK: usize = 1024;

#[cfg(test)]
mod tests {
    use super::*;

    /// A compound's index names its entry back, at the edges of both kinds.
    #[test]
    fn compound_entries_round_trip_through_their_index() {
        let last_chunk = (1 << (31 - CompoundEntry::AT_BITS)) - 1;
        for entry in [
            CompoundEntry::Scaled(0),
            CompoundEntry::Scaled((CompoundEntry::PLACED - 1) as usize),
            CompoundEntry::Placed { chunk: 0, at: 0 },
            CompoundEntry::Placed {
                chunk: 0,
                at: COLLIDERS_PER_CHUNK - 1,
            },
            CompoundEntry::Placed { chunk: 3, at: 17 },
            CompoundEntry::Placed {
                chunk: last_chunk,
                at: COLLIDERS_PER_CHUNK - 1,
            },
        ] {
            assert_eq!(CompoundEntry::of(entry.index()), entry);
        }
        assert!(COLLIDERS_PER_CHUNK.is_power_of_two());
    }

    /// The OR and AND of layers agree exactly when every collider has the
    /// same layers; the OR is what a query can meet.
    #[test]
    fn layer_bits_tell_uniform_layers() {
        let of = |layers: &[CollisionLayers]| {
            (layers.iter()).fold(LayerBits::NONE, |bits, l| bits.union(LayerBits::of(*l)))
        };
        let a = CollisionLayers::new(0b0110, 0b0011);
        let same = of(&[a, a, a]);
        assert_eq!((same.any, same.all), (a, a));
        // Differing in one filter bit, or one membership bit.
        for b in [
            CollisionLayers::new(0b0110, 0b0001),
            CollisionLayers::new(0b0010, 0b0011),
        ] {
            let mixed = of(&[a, b, a]);
            assert_ne!(mixed.any, mixed.all, "{b:?}");
            assert_eq!(mixed.any, a);
        }
        // Halves joined in either order give the same bits.
        let b = CollisionLayers::new(0b1000, 0b0100);
        let (left, right) = (of(&[a, b]), of(&[b, a, a]));
        let joined = left.union(right);
        assert_eq!(
            (joined.any, joined.all),
            (CollisionLayers::new(0b1110, 0b0111), CollisionLayers::NONE)
        );
        let none = of(&[]);
        assert_eq!(
            (none.any, none.all),
            (CollisionLayers::NONE, CollisionLayers::ALL)
        );
    }
}
