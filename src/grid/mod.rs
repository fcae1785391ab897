//! The broad phase's structure: candidate pairs whose bounding boxes
//! overlap, from a uniform grid rebuilt every detection with a counting sort, so the work grows
//! linearly with the number of colliders at constant density.
//!
//! Each collider is filed in one cell only, the one holding its box's min
//! corner, with cells at least as large as the boxes filed in them. Two
//! overlapping boxes then sit in the same or in neighbouring cells, so each
//! cell is paired with itself and four of its neighbours, and every pair is
//! found exactly once without deduplication. Boxes too large for the cells go
//! to a second grid with larger cells (and so on), and are paired with the
//! first grid's boxes by scanning the cells they cover. Everything works on
//! arrays sorted by cell, so memory is read in order, not at random.
//!
//! Until the next build the grid also finds the boxes near a region or along
//! a path without testing them all (spatial queries). Pure: no ECS here,
//! only boxes in and indices out.

mod build;
mod cells;
mod level;
mod pairs;
mod walk;

#[cfg(test)]
mod tests;

use std::ops::Range;

use bevy::math::Dir2;
use bevy::shape::Aabb2d;

use crate::util::parallel::{ChunkOutputs, InOrder, RunChunks};
use cells::{Keying, aabbs_overlap};
use level::Level;

/// Below this many boxes a level tests all pairs directly.
const BRUTE_FORCE_BELOW: usize = 24;

/// Levels beyond this test their remaining boxes directly (only reachable
/// with wildly different box sizes).
const MAX_LEVELS: usize = 8;

/// [`SpatialGrid::visit_overlapping_each`] asks for the cells of the lookup
/// this many queries ahead, and for their boxes half as far ahead.
const LOOKUPS_AHEAD: usize = 4;

/// [`SpatialGrid::visit_overlapping_each`] asks ahead only when the grid
/// holds more than this many boxes per query.
const SPARSE_LOOKUPS: usize = 8;

/// The pairs among a level's filed boxes are found in bands of rows of
/// about this many cells each, which threads share.
const CELLS_PER_BAND: usize = 1024;

/// A uniform grid over bounding boxes, rebuilt from scratch on each call to
/// [`SpatialGrid::overlapping_pairs`] and keeping its allocations between
/// calls. Until the next call it can also be searched for the boxes near a
/// region ([`SpatialGrid::visit_overlapping`]) or along a path
/// ([`SpatialGrid::visit_along`]).
#[derive(Default, Debug)]
pub struct SpatialGrid {
    /// The cell size of the first level (0 before the first call).
    cell_size: f32,
    levels: Vec<Level>,
    /// The pairs found in each band of rows, before they are joined.
    band_pairs: ChunkOutputs<(u32, u32)>,
    /// How many boxes the last call filed, and in how many levels.
    box_count: usize,
    levels_used: usize,
}

impl SpatialGrid {
    /// Every pair `(i, j)`, `i < j`, of boxes that overlap or touch and for
    /// which `accept(i, j)` holds, each exactly once, in a deterministic
    /// order. Pairs are appended to `pairs` (which is cleared first).
    pub fn overlapping_pairs(
        &mut self,
        aabbs: &[Aabb2d],
        accept: impl Fn(u32, u32) -> bool + Sync,
        pairs: &mut Vec<(u32, u32)>,
    ) {
        self.overlapping_pairs_in_chunks(aabbs, accept, &InOrder, pairs);
    }

    /// [`Self::overlapping_pairs`], with the pairs among a level's filed
    /// boxes found in bands of rows run by `runner` (same result, in the
    /// same order).
    pub(crate) fn overlapping_pairs_in_chunks(
        &mut self,
        aabbs: &[Aabb2d],
        accept: impl Fn(u32, u32) -> bool + Sync,
        runner: &impl RunChunks,
        pairs: &mut Vec<(u32, u32)>,
    ) {
        pairs.clear();
        let report = |pairs: &mut Vec<(u32, u32)>, i: u32, j: u32| {
            let (i, j) = if i < j { (i, j) } else { (j, i) };
            if accept(i, j) {
                pairs.push((i, j));
            }
        };
        if self.levels.is_empty() {
            self.levels.push(Level::default());
        }
        self.levels[0].input.clear();
        self.levels[0].input.extend(0..aabbs.len() as u32);
        self.cell_size = 0.0;
        self.box_count = aabbs.len();
        for depth in 0.. {
            self.levels_used = depth + 1;
            let level = &mut self.levels[depth];
            level.brute_forced = level.input.len() < BRUTE_FORCE_BELOW || depth + 1 == MAX_LEVELS;
            if level.brute_forced {
                level.brute_force(aabbs, &mut |i, j| report(pairs, i, j));
                break;
            }
            level.build(aabbs, runner);
            if depth == 0 {
                self.cell_size = level.cell_size;
            }
            match level.keying {
                Keying::Dense => {
                    dense_pairs_in_bands(level, &accept, runner, &mut self.band_pairs, pairs);
                }
                Keying::Hashed { .. } => {
                    level.hashed_pairs_within(&mut |i, j| report(pairs, i, j));
                }
            }
            let level = &self.levels[depth];
            level.pairs_with_oversized(aabbs, &mut |i, j| report(pairs, i, j));
            if level.oversized.is_empty() {
                break;
            }
            if self.levels.len() == depth + 1 {
                self.levels.push(Level::default());
            }
            let (this, next) = self.levels.split_at_mut(depth + 1);
            std::mem::swap(&mut next[0].input, &mut this[depth].oversized);
        }
    }

    /// The number of boxes the grid was last built over (0 before the
    /// first [`SpatialGrid::overlapping_pairs`]).
    pub fn len(&self) -> usize {
        self.box_count
    }

    /// Whether the grid holds no boxes.
    pub fn is_empty(&self) -> bool {
        self.box_count == 0
    }

    /// The box indices of the last build in the order the grid filed them
    /// (level by level, cell by cell): each box exactly once, neighbours
    /// mostly close together.
    pub(crate) fn filing_order(&self) -> impl Iterator<Item = u32> + '_ {
        self.used_levels()
            .iter()
            .flat_map(|level| {
                if level.brute_forced {
                    &level.input
                } else {
                    &level.sorted_index
                }
            })
            .copied()
    }

    /// The levels the last build used.
    fn used_levels(&self) -> &[Level] {
        &self.levels[..self.levels_used]
    }

    /// Calls `visit` with the index of every box of `aabbs` that overlaps or
    /// touches `query`, each exactly once, in a deterministic order.
    ///
    /// `aabbs` must be the boxes of the last
    /// [`SpatialGrid::overlapping_pairs`]; if their number differs, all of
    /// them are tested directly (so a stale grid is slow, never out of
    /// bounds).
    // Always inlined, as `visit_along`: a query walks two grids through one
    // call site, and out of line the caller's shape test behind `visit` is
    // no longer inlined into the walk (benches/JOURNAL.md, 2026-11-26).
    #[inline(always)]
    pub fn visit_overlapping(&self, aabbs: &[Aabb2d], query: &Aabb2d, mut visit: impl FnMut(u32)) {
        if aabbs.len() != self.box_count {
            for (index, aabb) in aabbs.iter().enumerate() {
                if aabbs_overlap(query, aabb) {
                    visit(index as u32);
                }
            }
            return;
        }
        for level in self.used_levels() {
            if level.brute_forced {
                for &index in &level.input {
                    if aabbs_overlap(query, &aabbs[index as usize]) {
                        visit(index);
                    }
                }
            } else {
                level.visit_filed_overlapping(query, |b| visit(level.sorted_index[b]));
            }
        }
    }

    /// [`Self::visit_overlapping`] for the boxes `queries[chunk]` in turn,
    /// calling `visit(query, index)` with the query's index in `queries`
    /// (all of a caller's queries, so that their number tells how far apart
    /// they land). A grid out of cache costs each lookup a few cache misses;
    /// when the queries are few for the grid, the reads of the lookups a few
    /// queries ahead are started early, so that those misses overlap instead
    /// of following one another.
    pub(crate) fn visit_overlapping_each(
        &self,
        aabbs: &[Aabb2d],
        queries: &[Aabb2d],
        chunk: Range<usize>,
        mut visit: impl FnMut(usize, u32),
    ) {
        let levels = if aabbs.len() == self.box_count {
            self.used_levels()
        } else {
            &[]
        };
        // Few lookups in a large grid land far apart, each out of cache; as
        // many lookups as boxes walk the grid nearly in order (the queries of
        // a snapshot laid out by its grid), where asking ahead only costs.
        let ask_ahead = queries.len().saturating_mul(SPARSE_LOOKUPS) < self.box_count;
        let filed = || levels.iter().filter(|level| !level.brute_forced);
        let mine = queries.get(chunk.clone()).unwrap_or(&[]);
        for (offset, query) in mine.iter().enumerate() {
            if ask_ahead {
                if let Some(ahead) = mine.get(offset + 2 * LOOKUPS_AHEAD) {
                    filed().for_each(|level| level.prefetch_runs(ahead));
                }
                if let Some(ahead) = mine.get(offset + LOOKUPS_AHEAD) {
                    filed().for_each(|level| level.prefetch_boxes(ahead));
                }
            }
            let at = chunk.start + offset;
            self.visit_overlapping(aabbs, query, |index| visit(at, index));
        }
    }

    /// Visits the boxes that a box moving in a straight line meets, roughly
    /// nearest first, so that a search for the first hit stops early.
    ///
    /// The moving box starts as `start` and moves by `direction * t` for `t`
    /// in `0..=max_distance` (which may be infinite). `visit(index)` is
    /// called once for every box of `aabbs` it overlaps on the way, and for
    /// some boxes near the path, each once too. It returns the `t`
    /// at which it found a hit in that box, if any: from then on, boxes
    /// farther along the path than the nearest hit so far are skipped.
    ///
    /// Only the part of the path within the boxes' extent is walked, cell
    /// by cell, so an infinite ray costs as much as one across the
    /// world; when that would look at more cells than a level has boxes, the
    /// level's boxes are tested directly. `aabbs` must be the boxes of the
    /// last [`SpatialGrid::overlapping_pairs`]; if their number differs, all
    /// of them are visited. Nothing is visited for a `start` that is not
    /// finite or a NaN or negative `max_distance`.
    #[inline(always)]
    pub fn visit_along(
        &self,
        aabbs: &[Aabb2d],
        start: Aabb2d,
        direction: Dir2,
        max_distance: f32,
        mut visit: impl FnMut(u32) -> Option<f32>,
    ) {
        let finite = start.min.is_finite() && start.max.is_finite() && direction.is_finite();
        if !(finite && max_distance >= 0.0) {
            return;
        }
        let mut limit = max_distance;
        let mut report = |index: u32, limit: &mut f32| {
            if let Some(t) = visit(index) {
                *limit = limit.min(t);
            }
        };
        if aabbs.len() != self.box_count {
            (0..aabbs.len() as u32).for_each(|index| report(index, &mut limit));
            return;
        }
        for level in self.used_levels() {
            if level.brute_forced {
                for &index in &level.input {
                    report(index, &mut limit);
                }
            } else {
                level.visit_along(&start, *direction, &mut limit, |b, limit| {
                    report(level.sorted_index[b], limit);
                });
            }
        }
    }
}

/// The pairs among a dense `level`'s filed boxes for which `accept` holds,
/// found in bands of rows run by `runner` and appended to `pairs` in band
/// order.
fn dense_pairs_in_bands(
    level: &Level,
    accept: &(impl Fn(u32, u32) -> bool + Sync),
    runner: &impl RunChunks,
    band_pairs: &mut ChunkOutputs<(u32, u32)>,
    pairs: &mut Vec<(u32, u32)>,
) {
    let (width, height) = (level.span.x as usize, level.span.y as usize);
    let rows_per_band = (CELLS_PER_BAND / (width + 1)).max(1);
    band_pairs.collect(
        runner,
        height.div_ceil(rows_per_band),
        |band, output| {
            let rows = band * rows_per_band..((band + 1) * rows_per_band).min(height);
            let first = output.len();
            level.dense_pairs_within(rows, output);
            level.keep_accepted(output, first, accept);
        },
        pairs,
    );
}
