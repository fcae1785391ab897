//! Step 2 of detection: candidate pairs whose bounding boxes overlap, from a
//! uniform grid hashed into buckets and filled by counting sort, so the work
//! grows linearly with the number of colliders at constant density.

use bevy::math::{Vec2, bounding::Aabb2d};
use bevy::prelude::*;

use crate::snapshot::ColliderSnapshot;

/// Colliders spanning more grid cells than this are tested against every
/// other collider instead of being written into each cell they cover.
const MAX_CELLS_PER_COLLIDER: i64 = 64;

/// Cell coordinates are clamped to this range so that far-away or huge
/// bounds cannot overflow; clamping only merges distant cells, which costs
/// speed, never correctness.
const CELL_COORD_LIMIT: f32 = (1 << 24) as f32;

/// One collider's presence in one grid cell.
#[derive(Clone, Copy, Debug, Default)]
struct CellEntry {
    cell: IVec2,
    collider: u32,
}

/// A uniform grid over bounding boxes, rebuilt from scratch on each call and
/// keeping its allocations between calls.
#[derive(Default, Debug)]
pub struct SpatialGrid {
    cell_size: f32,
    /// Per collider: its first and last cell (inclusive), or `None` when it
    /// is too large for the grid.
    ranges: Vec<Option<(IVec2, IVec2)>>,
    oversized: Vec<u32>,
    entries: Vec<CellEntry>,
    sorted: Vec<CellEntry>,
    bucket_starts: Vec<u32>,
    /// Scratch for the counting sort: the next free slot of each bucket.
    bucket_cursors: Vec<u32>,
    /// Scratch for choosing the cell size.
    extents: Vec<f32>,
}

impl SpatialGrid {
    /// Every pair `(i, j)`, `i < j`, of boxes that overlap or touch and for
    /// which `accept(i, j)` holds, each exactly once, in a deterministic
    /// order. Pairs are appended to `pairs` (which is cleared first).
    pub fn overlapping_pairs(
        &mut self,
        aabbs: &[Aabb2d],
        mut accept: impl FnMut(u32, u32) -> bool,
        pairs: &mut Vec<(u32, u32)>,
    ) {
        pairs.clear();
        self.build(aabbs);
        let mut test = |i: u32, j: u32| {
            let (i, j) = if i < j { (i, j) } else { (j, i) };
            if aabbs_overlap(&aabbs[i as usize], &aabbs[j as usize]) && accept(i, j) {
                pairs.push((i, j));
            }
        };

        for bucket in 0..self.bucket_starts.len() - 1 {
            let start = self.bucket_starts[bucket] as usize;
            let end = self.bucket_starts[bucket + 1] as usize;
            let bucket_entries = &self.sorted[start..end];
            for (k, first) in bucket_entries.iter().enumerate() {
                for second in &bucket_entries[k + 1..] {
                    // Different cells can share a bucket; a pair that shares
                    // several cells is reported only in the one at the max of
                    // their first cells, which both cover.
                    if first.cell != second.cell {
                        continue;
                    }
                    let (first_min, _) = self.ranges[first.collider as usize].unwrap_or_default();
                    let (second_min, _) = self.ranges[second.collider as usize].unwrap_or_default();
                    if first_min.max(second_min) == first.cell {
                        test(first.collider, second.collider);
                    }
                }
            }
        }

        // Oversized colliders meet everything once: small ones (which are only
        // in the grid) and the oversized ones after them in the list.
        for (k, &big) in self.oversized.iter().enumerate() {
            for (other, range) in self.ranges.iter().enumerate() {
                if range.is_some() {
                    test(big, other as u32);
                }
            }
            for &other in &self.oversized[k + 1..] {
                test(big, other);
            }
        }
    }

    fn build(&mut self, aabbs: &[Aabb2d]) {
        self.cell_size = cell_size_for(aabbs, &mut self.extents);
        self.ranges.clear();
        self.oversized.clear();
        self.entries.clear();
        let inverse = 1.0 / self.cell_size;
        let to_cell = |p: Vec2| {
            let c = (p * inverse).floor().clamp(
                Vec2::splat(-CELL_COORD_LIMIT),
                Vec2::splat(CELL_COORD_LIMIT),
            );
            IVec2::new(c.x as i32, c.y as i32)
        };
        for (index, aabb) in aabbs.iter().enumerate() {
            let (min, max) = (to_cell(aabb.min), to_cell(aabb.max));
            let span = (max - min).as_i64vec2() + 1;
            if span.x * span.y > MAX_CELLS_PER_COLLIDER {
                self.ranges.push(None);
                self.oversized.push(index as u32);
                continue;
            }
            self.ranges.push(Some((min, max)));
            for y in min.y..=max.y {
                for x in min.x..=max.x {
                    self.entries.push(CellEntry {
                        cell: IVec2::new(x, y),
                        collider: index as u32,
                    });
                }
            }
        }

        // Counting sort of the entries by bucket; stable, so each bucket
        // lists its colliders in index order.
        let bucket_count = (self.entries.len() * 2).next_power_of_two().max(1);
        let mask = bucket_count as u32 - 1;
        self.bucket_starts.clear();
        self.bucket_starts.resize(bucket_count + 1, 0);
        for entry in &self.entries {
            self.bucket_starts[(cell_hash(entry.cell) & mask) as usize + 1] += 1;
        }
        for i in 1..self.bucket_starts.len() {
            self.bucket_starts[i] += self.bucket_starts[i - 1];
        }
        self.sorted.clear();
        self.sorted.resize(self.entries.len(), CellEntry::default());
        self.bucket_cursors.clone_from(&self.bucket_starts);
        for entry in &self.entries {
            let slot = &mut self.bucket_cursors[(cell_hash(entry.cell) & mask) as usize];
            self.sorted[*slot as usize] = *entry;
            *slot += 1;
        }
    }
}

/// Cell edge length: the median of the boxes' larger side, so a typical
/// collider covers one to four cells. The median, not the mean, so that a few
/// huge colliders (a level-sized sensor) cannot blow the cells up and put
/// everything in a handful of them.
fn cell_size_for(aabbs: &[Aabb2d], extents: &mut Vec<f32>) -> f32 {
    extents.clear();
    extents.extend(aabbs.iter().map(|aabb| (aabb.max - aabb.min).max_element()));
    if extents.is_empty() {
        return 1.0;
    }
    let middle = extents.len() / 2;
    let (_, median, _) = extents.select_nth_unstable_by(middle, f32::total_cmp);
    if median.is_finite() && *median > 0.0 {
        *median
    } else {
        1.0
    }
}

#[inline]
fn cell_hash(cell: IVec2) -> u32 {
    // Two large odd multipliers mix x and y; the high bits go through the
    // final multiply so that neighbouring cells land in different buckets.
    let h = (cell.x as u32).wrapping_mul(0x9E37_79B1) ^ (cell.y as u32).wrapping_mul(0x85EB_CA77);
    (h ^ (h >> 15)).wrapping_mul(0x2C1B_3C6D) >> 7
}

/// Inclusive overlap: touching boxes overlap, as touching shapes collide.
#[inline]
fn aabbs_overlap(a: &Aabb2d, b: &Aabb2d) -> bool {
    a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y
}

/// This detection's candidate pairs: indices into [`ColliderSnapshot`] whose
/// bounding boxes overlap and whose layers interact.
#[derive(Resource, Default, Debug)]
pub struct BroadPhasePairs {
    /// Candidate pairs `(i, j)` with `i < j`.
    pub pairs: Vec<(u32, u32)>,
}

/// Finds [`BroadPhasePairs`] for the current [`ColliderSnapshot`].
pub(crate) fn find_candidate_pairs(
    snapshot: Res<ColliderSnapshot>,
    mut grid: Local<SpatialGrid>,
    mut candidates: ResMut<BroadPhasePairs>,
) {
    let layers = &snapshot.layers;
    grid.overlapping_pairs(
        &snapshot.aabbs,
        |i, j| layers[i as usize].interacts_with(&layers[j as usize]),
        &mut candidates.pairs,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    fn boxes_overlapping_by_brute_force(aabbs: &[Aabb2d]) -> Vec<(u32, u32)> {
        let mut pairs = Vec::new();
        for i in 0..aabbs.len() {
            for j in i + 1..aabbs.len() {
                if aabbs_overlap(&aabbs[i], &aabbs[j]) {
                    pairs.push((i as u32, j as u32));
                }
            }
        }
        pairs
    }

    fn grid_pairs(grid: &mut SpatialGrid, aabbs: &[Aabb2d]) -> Vec<(u32, u32)> {
        let mut pairs = Vec::new();
        grid.overlapping_pairs(aabbs, |_, _| true, &mut pairs);
        let before = pairs.len();
        pairs.sort_unstable();
        pairs.dedup();
        assert_eq!(pairs.len(), before, "a pair was reported twice");
        pairs
    }

    fn aabb(min: Vec2, size: Vec2) -> Aabb2d {
        Aabb2d {
            min,
            max: min + size,
        }
    }

    #[test]
    fn matches_brute_force_with_mixed_sizes() {
        let mut rng = StdRng::seed_from_u64(11);
        let mut grid = SpatialGrid::default();
        for round in 0..20 {
            let count = rng.random_range(0..600);
            let aabbs: Vec<Aabb2d> = (0..count)
                .map(|_| {
                    // Mostly small boxes, some long walls and a few giants
                    // that take the oversized path.
                    let size = match rng.random_range(0..20) {
                        0 => Vec2::new(rng.random_range(100.0..400.0), rng.random_range(1.0..5.0)),
                        1 => Vec2::splat(rng.random_range(300.0..800.0)),
                        _ => Vec2::new(rng.random_range(0.5..12.0), rng.random_range(0.5..12.0)),
                    };
                    let min = Vec2::new(
                        rng.random_range(-300.0..300.0),
                        rng.random_range(-300.0..300.0),
                    );
                    aabb(min, size)
                })
                .collect();
            assert_eq!(
                grid_pairs(&mut grid, &aabbs),
                boxes_overlapping_by_brute_force(&aabbs),
                "round {round}"
            );
        }
    }

    #[test]
    fn touching_boxes_and_cell_borders() {
        // Boxes meeting exactly on edges and corners, placed on cell borders.
        let aabbs = [
            aabb(Vec2::ZERO, Vec2::ONE),
            aabb(Vec2::new(1.0, 0.0), Vec2::ONE),
            aabb(Vec2::new(1.0, 1.0), Vec2::ONE),
            aabb(Vec2::new(3.0, 3.0), Vec2::ONE),
        ];
        let mut grid = SpatialGrid::default();
        assert_eq!(grid_pairs(&mut grid, &aabbs), vec![(0, 1), (0, 2), (1, 2)]);
    }

    #[test]
    fn far_apart_and_huge_coordinates() {
        let aabbs = [
            aabb(Vec2::splat(-1e30), Vec2::ONE),
            aabb(Vec2::splat(1e30), Vec2::ONE),
            aabb(Vec2::new(1e9, 0.0), Vec2::ONE),
            aabb(Vec2::new(1e9 + 0.5, 0.0), Vec2::ONE),
            aabb(Vec2::new(-5e8, -5e8), Vec2::splat(1e9)),
        ];
        let mut grid = SpatialGrid::default();
        assert_eq!(
            grid_pairs(&mut grid, &aabbs),
            boxes_overlapping_by_brute_force(&aabbs)
        );
    }

    #[test]
    fn one_giant_does_not_coarsen_the_grid() {
        // A level-sized sensor among many small boxes: cells stay small.
        let mut aabbs = vec![aabb(Vec2::splat(-5e6), Vec2::splat(1e7))];
        aabbs.extend((0..1000).map(|i| {
            aabb(
                Vec2::new((i % 40) as f32 * 20.0, (i / 40) as f32 * 20.0),
                Vec2::splat(10.0),
            )
        }));
        let mut grid = SpatialGrid::default();
        assert_eq!(
            grid_pairs(&mut grid, &aabbs),
            boxes_overlapping_by_brute_force(&aabbs)
        );
        assert!(grid.cell_size <= 10.0 + 1e-3, "{}", grid.cell_size);
    }

    #[test]
    fn empty_and_rejected_pairs() {
        let mut grid = SpatialGrid::default();
        assert!(grid_pairs(&mut grid, &[]).is_empty());
        let aabbs = [aabb(Vec2::ZERO, Vec2::ONE), aabb(Vec2::ZERO, Vec2::ONE)];
        let mut pairs = vec![(7, 7)];
        grid.overlapping_pairs(&aabbs, |_, _| false, &mut pairs);
        assert!(pairs.is_empty(), "cleared, and the filter is applied");
    }
}
