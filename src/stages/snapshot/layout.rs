//! The snapshot's layout: the staged colliders copied into its arrays in
//! the order the last detection's grid filed them, with their boxes.

use bevy::math::{Isometry2d, Vec2};
#[cfg(test)]
use bevy::prelude::default;
use bevy::shape::Aabb2d;

use super::{
    COLLIDERS_PER_CHUNK, ColliderSnapshot, LayerBits, ShapeTables, SnapshotCollider, SnapshotShape,
    StagedCollider, WorldPart,
};
use crate::components::CollisionLayers;
use crate::geometry::{Sweep, path_aabb_of};
use crate::grid::SpatialGrid;
use crate::util::parallel::{RunChunks, map_parts};
use crate::util::prefetch::{PREFETCH_DISTANCE, prefetch};
use crate::util::sort::BitsSeen;

/// When [`SnapshotSlots::gather`] asks for what a compound's placing reads:
/// its record, then its parts, this many colliders ahead.
const PLACING_STAGES: [(u8, usize); 2] = [(0, PREFETCH_DISTANCE), (1, PREFETCH_DISTANCE / 2)];

/// Where a chunk of laid-out colliders goes in [`ColliderSnapshot`]: one
/// slot per collider, starting at `start`.
struct SnapshotSlots<'a> {
    start: usize,
    colliders: &'a mut [SnapshotCollider],
    aabbs: &'a mut [Aabb2d],
    layers: &'a mut [CollisionLayers],
    swept: &'a mut [bool],
    /// Empty when no paths are kept.
    path_starts: &'a mut [Isometry2d],
    /// The OR and the AND of the entity bits gathered into these slots.
    entity_bits: BitsSeen,
    /// The bits of their layers that any has and that all have.
    layers_seen: LayerBits,
}

impl<'a> SnapshotSlots<'a> {
    /// Slots from `start` in the snapshot, nothing gathered yet.
    fn new(
        start: usize,
        colliders: &'a mut [SnapshotCollider],
        aabbs: &'a mut [Aabb2d],
        layers: &'a mut [CollisionLayers],
        swept: &'a mut [bool],
        path_starts: &'a mut [Isometry2d],
    ) -> Self {
        Self {
            start,
            colliders,
            aabbs,
            layers,
            swept,
            path_starts,
            entity_bits: BitsSeen::NONE,
            layers_seen: LayerBits::NONE,
        }
    }

    /// The slots cut into chunks of `len` (the last one shorter).
    fn into_chunks(self, len: usize) -> Vec<Self> {
        let mut chunks = Vec::new();
        let mut rest = self;
        while !rest.colliders.is_empty() {
            let first = len.min(rest.colliders.len());
            let (colliders, more_colliders) = rest.colliders.split_at_mut(first);
            let (aabbs, more_aabbs) = rest.aabbs.split_at_mut(first);
            let (layers, more_layers) = rest.layers.split_at_mut(first);
            let (swept, more_swept) = rest.swept.split_at_mut(first);
            let (path_starts, more_path_starts) =
                (rest.path_starts).split_at_mut(first.min(rest.path_starts.len()));
            chunks.push(Self::new(
                rest.start,
                colliders,
                aabbs,
                layers,
                swept,
                path_starts,
            ));
            rest = Self::new(
                rest.start + first,
                more_colliders,
                more_aabbs,
                more_layers,
                more_swept,
                more_path_starts,
            );
        }
        chunks
    }

    /// Fills these slots with the staged colliders at `positions`, in order,
    /// and their path starts (from `staged_starts`, when paths are kept),
    /// with their bounding boxes (of the whole path), and sets their entity
    /// bits.
    fn gather(
        &mut self,
        staged: &[StagedCollider],
        staged_starts: &[Isometry2d],
        positions: &[u32],
        tables: &ShapeTables,
        world_parts: &mut Vec<WorldPart<'static>>,
    ) {
        // The reads jump around memory. A loop that only copies, and asks
        // for the records it will read a few steps ahead, keeps many of them
        // in flight at once; one that also computed the boxes would wait for
        // each in turn. The boxes follow, from memory just written.
        let has_compounds = tables.has_compounds();
        for (at, &from) in positions.iter().enumerate() {
            if let Some(&ahead) = positions.get(at + PREFETCH_DISTANCE) {
                prefetch(&staged[ahead as usize]);
            }
            let StagedCollider {
                collider,
                layers,
                swept,
            } = staged[from as usize];
            self.colliders[at] = collider;
            self.layers[at] = layers;
            self.swept[at] = swept;
            if has_compounds && let SnapshotShape::Compound { index, .. } = collider.shape {
                prefetch(tables.compound(index));
            }
        }
        let mut entity_bits = BitsSeen::NONE;
        let mut layers_seen = LayerBits::NONE;
        let keeps_paths = !self.path_starts.is_empty();
        world_parts.clear();
        for at in 0..self.colliders.len() {
            // A compound's parts are loads one after another (its entry,
            // its record, its parts): asked for in stages ahead.
            let stages = if has_compounds {
                &PLACING_STAGES[..]
            } else {
                &[]
            };
            for &(stage, distance) in stages {
                if let Some(SnapshotCollider {
                    shape: SnapshotShape::Compound { index, .. },
                    ..
                }) = self.colliders.get(at + distance)
                {
                    tables.compound(*index).prefetch(stage);
                }
            }
            let (aabb, collider) = (&mut self.aabbs[at], &mut self.colliders[at]);
            entity_bits = entity_bits.union(BitsSeen::of(collider.entity.to_bits()));
            layers_seen = layers_seen.union(LayerBits::of(self.layers[at]));
            if let SnapshotShape::Compound { index, placed } = &mut collider.shape
                && let compound = tables.compound(*index)
                && let Some((parts, placed_aabb)) = compound.place(collider.pose, world_parts)
            {
                *placed = parts;
                *aabb = if keeps_paths {
                    let start = staged_starts[positions[at] as usize];
                    self.path_starts[at] = start;
                    let sweep = Sweep::new(start, collider.pose);
                    compound.swept_aabb(sweep, placed_aabb)
                } else {
                    placed_aabb
                };
                continue;
            }
            *aabb = if keeps_paths {
                let start = staged_starts[positions[at] as usize];
                self.path_starts[at] = start;
                path_aabb_of(
                    collider.shape.view(|| tables),
                    Sweep::new(start, collider.pose),
                )
            } else {
                collider.shape.view(|| tables).aabb(collider.pose)
            };
        }
        self.entity_bits = entity_bits;
        self.layers_seen = layers_seen;
    }

    /// Fills these slots with the staged colliders in `layout` order (see
    /// [`Self::gather`]), in chunks on `runner`; returns the entity bits and
    /// layer bits of them all.
    fn gather_in_chunks(
        self,
        runner: &impl RunChunks,
        staged: &[StagedCollider],
        staged_starts: &[Isometry2d],
        layout: &[u32],
        tables: &ShapeTables,
        world_parts: &mut Vec<Vec<WorldPart<'static>>>,
    ) -> (BitsSeen, LayerBits) {
        let chunks = self.into_chunks(COLLIDERS_PER_CHUNK);
        world_parts.resize_with(chunks.len(), Vec::new);
        let chunks: Vec<_> = chunks.into_iter().zip(world_parts.iter_mut()).collect();
        map_parts(runner, chunks, |_, (mut slots, world_parts)| {
            let positions = &layout[slots.start..slots.start + slots.colliders.len()];
            slots.gather(staged, staged_starts, positions, tables, world_parts);
            (slots.entity_bits, slots.layers_seen)
        })
        .into_iter()
        .fold(
            (BitsSeen::NONE, LayerBits::NONE),
            |(bits, seen), (more_bits, more)| (bits.union(more_bits), seen.union(more)),
        )
    }
}

/// Sets `layout` to the query positions of the `count` staged colliders in
/// the order to lay them out: the last grid's filing order when it fits.
fn plan_layout(grid: &SpatialGrid, query_positions: &[u32], count: usize, layout: &mut Vec<u32>) {
    layout.clear();
    // With as many colliders as last time, each is assumed to be at the
    // same query position as then. When that is wrong (one collider removed
    // and another added, say), only locality suffers: the layout is a
    // permutation either way, as each grid position names a different
    // collider of the last snapshot.
    if grid.len() == count && query_positions.len() == count {
        layout.extend(
            grid.filing_order()
                .map(|index| query_positions[index as usize]),
        );
    } else {
        layout.extend(0..count as u32);
    }
}

/// Lays the staged colliders out into the snapshot's arrays, in the order
/// the last detection's grid filed them when it was built over as many
/// colliders, otherwise in query order.
pub(super) fn lay_out(
    snapshot: &mut ColliderSnapshot,
    grid: &SpatialGrid,
    runner: &impl RunChunks,
    layout: &mut Vec<u32>,
) {
    let ColliderSnapshot {
        colliders,
        aabbs,
        layers,
        swept,
        path_starts,
        query_positions,
        staged,
        staged_starts,
        entity_varying_bits,
        layers_seen,
        tables,
        bodies: _,
        by_entity: _,
    } = snapshot;
    let count = staged.len();
    plan_layout(grid, query_positions, count, layout);
    let Some(&first) = staged.first() else {
        colliders.clear();
        aabbs.clear();
        layers.clear();
        swept.clear();
        path_starts.clear();
        query_positions.clear();
        *entity_varying_bits = 0;
        *layers_seen = LayerBits::NONE;
        return;
    };
    // Overwritten below; resizing only writes when the count grows.
    colliders.resize(count, first.collider);
    aabbs.resize(count, Aabb2d::new(Vec2::ZERO, Vec2::ZERO));
    layers.resize(count, first.layers);
    swept.resize(count, false);
    path_starts.resize(staged_starts.len(), Isometry2d::IDENTITY);
    let slots = SnapshotSlots::new(0, colliders, aabbs, layers, swept, path_starts);
    // Out of the tables while the chunks place parts into it.
    let mut world_parts = std::mem::take(&mut tables.world_parts.by_chunk);
    let (entity_bits, seen) = slots.gather_in_chunks(
        runner,
        staged,
        staged_starts,
        layout,
        tables,
        &mut world_parts,
    );
    tables.world_parts.by_chunk = world_parts;
    *entity_varying_bits = entity_bits.varying();
    *layers_seen = seen;
    std::mem::swap(query_positions, layout);
}

#[cfg(test)]
impl ColliderSnapshot {
    /// A snapshot of `colliders` in that order, none of them swept.
    pub(crate) fn of(colliders: &[SnapshotCollider]) -> Self {
        let mut snapshot = Self {
            staged: (colliders.iter())
                .map(|&collider| StagedCollider {
                    collider,
                    layers: CollisionLayers::ALL,
                    swept: false,
                })
                .collect(),
            ..default()
        };
        let grid = SpatialGrid::default();
        lay_out(
            &mut snapshot,
            &grid,
            &crate::util::parallel::InOrder,
            &mut Vec::new(),
        );
        snapshot
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::snapshot::SnapshotShape;
    use crate::util::parallel::InOrder;
    use bevy::prelude::{Entity, Rot2};

    fn staged_colliders(count: u32, first_entity: u32) -> Vec<StagedCollider> {
        (0..count)
            .map(|k| {
                let x = ((k * 7919) % count) as f32 * 3.0;
                StagedCollider {
                    collider: SnapshotCollider {
                        entity: Entity::from_raw_u32(first_entity + k).unwrap(),
                        shape: if k % 2 == 0 {
                            SnapshotShape::Circle { radius: 1.0 }
                        } else {
                            SnapshotShape::Rect {
                                half_size: Vec2::new(1.0, 0.5),
                            }
                        },
                        pose: Isometry2d::new(Vec2::new(x, (k % 5) as f32), Rot2::radians(0.3)),
                    },
                    layers: CollisionLayers::new(k, u32::MAX),
                    swept: false,
                }
            })
            .collect()
    }

    /// The first detection keeps query order; the next ones lay the
    /// colliders out in the grid's filing order, each exactly once with its
    /// own data and box; a different count starts again from query order.
    #[test]
    fn colliders_are_laid_out_in_the_last_grid_order() {
        let (mut snapshot, mut grid, mut layout) = (
            ColliderSnapshot::default(),
            SpatialGrid::default(),
            Vec::new(),
        );
        let staged = staged_colliders(500, 1);
        let check = |snapshot: &ColliderSnapshot, expected: &[StagedCollider]| {
            assert_eq!(snapshot.len(), expected.len());
            let bits = expected.iter().map(|s| s.collider.entity.to_bits());
            let (or, and) = bits.fold((0, u64::MAX), |(or, and), b| (or | b, and & b));
            let varying = if expected.is_empty() { 0 } else { or ^ and };
            assert_eq!(snapshot.entity_varying_bits(), varying);
            for (p, want) in expected.iter().enumerate() {
                assert_eq!(snapshot.colliders[p], want.collider);
                assert_eq!(snapshot.layers[p], want.layers);
                assert_eq!(snapshot.swept[p], want.swept);
                assert_eq!(
                    snapshot.aabbs[p],
                    snapshot
                        .shape_of(&want.collider.shape)
                        .aabb(want.collider.pose)
                );
            }
        };
        snapshot.staged = staged.clone();
        lay_out(&mut snapshot, &grid, &InOrder, &mut layout);
        check(&snapshot, &staged);
        for _ in 0..3 {
            grid.overlapping_pairs(&snapshot.aabbs, |_, _| true, &mut Vec::new());
            // Where the grid put each of the last snapshot's colliders.
            let expected: Vec<StagedCollider> = grid
                .filing_order()
                .map(|index| {
                    let entity = snapshot.colliders[index as usize].entity;
                    *staged.iter().find(|s| s.collider.entity == entity).unwrap()
                })
                .collect();
            snapshot.staged = staged.clone();
            lay_out(&mut snapshot, &grid, &InOrder, &mut layout);
            check(&snapshot, &expected);
        }
        assert!(
            (snapshot.colliders.iter().zip(&staged)).any(|(laid, s)| *laid != s.collider),
            "never reordered"
        );
        // Another set of colliders of another count: query order again.
        let other = staged_colliders(499, 1000);
        snapshot.staged = other.clone();
        lay_out(&mut snapshot, &grid, &InOrder, &mut layout);
        check(&snapshot, &other);
        // Nothing at all.
        snapshot.staged.clear();
        lay_out(&mut snapshot, &grid, &InOrder, &mut layout);
        check(&snapshot, &[]);
    }
}
