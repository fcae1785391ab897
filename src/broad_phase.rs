//! Step 2 of detection: candidate pairs whose bounding boxes overlap, from a
//! uniform grid rebuilt every detection with a counting sort, so the work grows
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
//! The grid of the last detection stays in [`BroadPhaseGrid`] so that
//! spatial queries (`SpatialQuery`) can find the colliders near a point, a
//! shape or along a ray without testing them all.

use bevy::math::{Dir2, I64Vec2, Vec2, Vec4, bounding::Aabb2d};
use bevy::prelude::*;

use std::ops::Range;
use std::sync::Mutex;

use crate::parallel::{ChunkOutputs, InOrder, RunChunks, Workers, lock, lock_chunks, lock_parts};
use crate::snapshot::ColliderSnapshot;

/// Cell coordinates are clamped to this range so that far-away or huge
/// bounds cannot overflow; clamping only merges distant cells, which costs
/// speed, never correctness.
const CELL_COORD_LIMIT: i32 = 1 << 24;

/// Cells are at most this many times the median box size: larger boxes go to
/// the next level instead of coarsening this one.
const MAX_CELL_TO_MEDIAN: f32 = 4.0;

/// The median box size is estimated from at most this many boxes.
const SIZE_SAMPLES: usize = 1024;

/// Below this many boxes a level tests all pairs directly.
const BRUTE_FORCE_BELOW: usize = 24;

/// Levels beyond this test their remaining boxes directly (only reachable
/// with wildly different box sizes).
const MAX_LEVELS: usize = 8;

/// The pairs among a level's filed boxes are found in bands of rows of
/// about this many cells each, which threads share.
const CELLS_PER_BAND: usize = 1024;

/// A walk along a path looks at pieces of this many cells at a time: longer
/// pieces look at more cells beside a diagonal path, shorter ones at the same
/// cells again from the next piece.
const CELLS_PER_PIECE: f32 = 2.0;

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

/// One level of the grid: the boxes that fit its cells, sorted by cell.
#[derive(Default, Debug)]
struct Level {
    /// The boxes given to this level (indices into the caller's slice).
    input: Vec<u32>,
    /// Those too large for this level's cells: the next level's input.
    oversized: Vec<u32>,
    cell_size: f32,
    /// `1 / cell_size`, so that finding a cell takes no division.
    inverse_cell_size: f32,
    /// `(cell key << 32) | box index` of each input box, in input order
    /// ([`NOT_FILED`] for those that do not fit the cells).
    keys: Vec<u64>,
    /// Where the next box of each key goes, while sorting.
    cursors: Vec<u32>,
    /// The filed boxes in cell order: box index, cell and bounds.
    sorted_index: Vec<u32>,
    sorted_cell: Vec<IVec2>,
    sorted_box: Vec<FiledBox>,
    /// Where each key's run starts in the sorted arrays (one more than keys).
    key_starts: Vec<u32>,
    keying: Keying,
    /// Whether this level tested its input directly instead of filing it.
    brute_forced: bool,
    /// The smallest box holding every filed box (the world extent of this
    /// level, which clamped cells cannot tell); `None` until built.
    bounds: Option<Aabb2d>,
    /// The lowest filed cell and the number of filed cells along x and y.
    origin: IVec2,
    span: I64Vec2,
    /// Scratch for choosing the cell size.
    sizes: Vec<f32>,
    /// Scratch for filing: the min cell of each input box ([`OVERSIZED`] if
    /// it does not fit), written by chunks in place, and each chunk's bounds.
    input_cells: Vec<IVec2>,
    chunk_bounds: Vec<Mutex<FiledBounds>>,
}

/// How a cell becomes a sort key.
#[derive(Clone, Copy, Debug, Default)]
enum Keying {
    /// Row-major index into the cells spanned by the boxes: neighbours have
    /// nearby keys and no two cells share one.
    #[default]
    Dense,
    /// A hash into `mask + 1` keys, for sparse worlds whose cells would be
    /// too many to index; cells sharing a key are told apart by coordinates.
    Hashed { mask: u32 },
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
                    let (width, height) = (level.span.x as usize, level.span.y as usize);
                    let rows_per_band = (CELLS_PER_BAND / (width + 1)).max(1);
                    let level = &*level;
                    self.band_pairs.collect(
                        runner,
                        height.div_ceil(rows_per_band),
                        |band, output| {
                            let rows =
                                band * rows_per_band..((band + 1) * rows_per_band).min(height);
                            let first = output.len();
                            level.dense_pairs_within(rows, output);
                            level.keep_accepted(output, first, &accept);
                        },
                        pairs,
                    );
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

    /// Visits the boxes that a box moving in a straight line meets, roughly
    /// nearest first, so that a search for the first hit stops early.
    ///
    /// The moving box starts as `start` and moves by `direction * t` for `t`
    /// in `0..=max_distance` (which may be infinite). `visit(index)` is
    /// called for every box of `aabbs` it overlaps on the way, and for some
    /// boxes near the path, some of them more than once. It returns the `t`
    /// at which it found a hit in that box, if any: from then on, boxes
    /// farther along the path than the nearest hit so far are skipped.
    ///
    /// Only the part of the path within the boxes' extent is walked, a few
    /// cells at a time, so an infinite ray costs as much as one across the
    /// world; when that would look at more cells than a level has boxes, the
    /// level's boxes are tested directly. `aabbs` must be the boxes of the
    /// last [`SpatialGrid::overlapping_pairs`]; if their number differs, all
    /// of them are visited. Nothing is visited for a `start` that is not
    /// finite or a NaN or negative `max_distance`.
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

impl Level {
    fn to_cell(&self, p: Vec2) -> IVec2 {
        cell_at(p, self.inverse_cell_size)
    }

    fn brute_force(&self, aabbs: &[Aabb2d], report: &mut impl FnMut(u32, u32)) {
        for (k, &i) in self.input.iter().enumerate() {
            for &j in &self.input[k + 1..] {
                if aabbs_overlap(&aabbs[i as usize], &aabbs[j as usize]) {
                    report(i, j);
                }
            }
        }
    }

    /// Files the boxes that fit the cells, sorted by cell; the rest go to
    /// `oversized`. Finding each box's cell runs in chunks on `runner`.
    fn build(&mut self, aabbs: &[Aabb2d], runner: &impl RunChunks) {
        self.cell_size = cell_size_for(&self.input, aabbs, &mut self.sizes);
        self.inverse_cell_size = 1.0 / self.cell_size;
        let inverse_cell_size = self.inverse_cell_size;
        // First pass: the min cell of every box that fits (its max corner is
        // at most one cell further in each axis), and the range they span.
        let chunks = self.input.len().div_ceil(BOXES_PER_CHUNK);
        if self.chunk_bounds.len() < chunks {
            self.chunk_bounds.resize_with(chunks, Default::default);
        }
        let (input, chunk_bounds) = (&self.input, &self.chunk_bounds[..chunks]);
        // Resizing only writes when the count grows.
        self.input_cells.resize(input.len(), OVERSIZED);
        let cell_chunks = lock_chunks(&mut self.input_cells, BOXES_PER_CHUNK);
        runner.for_each_chunk(chunks, |k| {
            let mut cells = lock(&cell_chunks[k]);
            let first = k * BOXES_PER_CHUNK;
            let boxes = &input[first..first + cells.len()];
            let bounds = file_boxes(boxes, aabbs, inverse_cell_size, &mut cells);
            *lock(&chunk_bounds[k]) = bounds;
        });
        drop(cell_chunks);
        let bounds = chunk_bounds
            .iter()
            .map(|b| *lock(b))
            .fold(FiledBounds::default(), FiledBounds::union);
        let filed = bounds.count;
        // When nothing fits (only unbounded boxes, say), the grid is empty.
        let (lo, span) = if filed == 0 {
            (IVec2::ZERO, I64Vec2::ZERO)
        } else {
            (
                bounds.lo,
                bounds.hi.as_i64vec2() - bounds.lo.as_i64vec2() + 1,
            )
        };
        let dense_keys = dense_key_count(span);
        let keying = if dense_keys <= (4 * filed as i64).max(1 << 16) {
            Keying::Dense
        } else {
            Keying::Hashed {
                mask: ((2 * filed).next_power_of_two().min(1 << 30) - 1) as u32,
            }
        };
        let key_count = match keying {
            Keying::Dense => dense_keys as usize,
            Keying::Hashed { mask } => mask as usize + 1,
        };
        self.keying = keying;
        self.origin = lo;
        self.span = span;
        self.bounds = Some(Aabb2d {
            min: bounds.lowest,
            max: bounds.highest,
        });
        // Key every box that fits, in chunks.
        let (input, input_cells) = (&self.input, &self.input_cells);
        self.keys.resize(input.len(), NOT_FILED);
        let key_chunks = lock_chunks(&mut self.keys, BOXES_PER_CHUNK);
        runner.for_each_chunk(chunks, |k| {
            let mut keys = lock(&key_chunks[k]);
            let first = k * BOXES_PER_CHUNK;
            let boxes = input[first..].iter().zip(&input_cells[first..]);
            for (packed, (&index, &cell)) in keys.iter_mut().zip(boxes) {
                *packed = if cell == OVERSIZED {
                    NOT_FILED
                } else {
                    let key = key_of(keying, cell, lo, span).unwrap_or(0);
                    (u64::from(key) << 32) | u64::from(index)
                };
            }
        });
        drop(key_chunks);
        self.sort_by_key(aabbs, key_count, filed, runner);
        if let Keying::Hashed { .. } = keying {
            // Only hashed runs can mix cells and need them told apart.
            let cells = &mut self.sorted_cell;
            cells.clear();
            cells.extend(
                (self.sorted_box.iter()).map(|filed| cell_at(filed.min(), inverse_cell_size)),
            );
        }
    }

    /// Places the filed boxes by key into the sorted arrays, and the
    /// others into `oversized`: a counting sort, stable, so boxes of a cell
    /// stay in input order.
    ///
    /// The keys are cut into one range per thread, each counted and placed
    /// by one chunk of work that reads every key but keeps only its own. As
    /// the snapshot lays the boxes out in the last detection's filing order,
    /// each range's keys mostly sit together, so the range test is well
    /// predicted and each chunk writes one stretch of the sorted arrays.
    fn sort_by_key(
        &mut self,
        aabbs: &[Aabb2d],
        key_count: usize,
        filed: usize,
        runner: &impl RunChunks,
    ) {
        let parts = runner.threads().clamp(1, key_count.max(1));
        let part_keys = |part: usize| key_count * part / parts..key_count * (part + 1) / parts;
        // A packed key's place in the range starting at `first_key`, beyond
        // its end (wrapping below its start) when it belongs to another
        // range or is `NOT_FILED`.
        let place_in =
            |packed: u64, first_key: usize| ((packed >> 32) as usize).wrapping_sub(first_key);
        let (keys, input) = (&self.keys, &self.input);
        // Count each key's boxes into `starts[key + 1]`, then sum them up
        // within each range: each range's own starts, less its base.
        let keys_in_part = |part: usize| part_keys(part).len();
        self.key_starts.clear();
        self.key_starts.resize(key_count + 1, 0);
        let part_starts = lock_parts(&mut self.key_starts[1..], (0..parts).map(keys_in_part));
        self.oversized.clear();
        let oversized = Mutex::new(&mut self.oversized);
        runner.for_each_chunk(parts, |part| {
            let first_key = part_keys(part).start;
            let mut counts = lock(&part_starts[part]);
            for &packed in keys {
                let local = place_in(packed, first_key);
                if local < counts.len() {
                    counts[local] += 1;
                }
            }
            for key in 1..counts.len() {
                counts[key] += counts[key - 1];
            }
            // The last chunk also lists the oversized boxes, in input order.
            if part + 1 == parts {
                let mut oversized = lock(&oversized);
                oversized.extend(
                    keys.iter()
                        .zip(input)
                        .filter(|&(&packed, _)| packed == NOT_FILED)
                        .map(|(_, &index)| index),
                );
            }
        });
        // Each range's base: the boxes of the ranges before it.
        let mut bases = Vec::with_capacity(parts + 1);
        bases.push(0u32);
        for own in &part_starts {
            let base = bases[bases.len() - 1];
            bases.push(base + lock(own).last().copied().unwrap_or(0));
        }
        // Add the bases, and place each range's boxes into its own stretch
        // of the sorted arrays.
        self.sorted_index.resize(filed, 0);
        self.sorted_box.resize(filed, FiledBox(Vec4::ZERO));
        self.cursors.resize(key_count, 0);
        let boxes_in_part = |part: usize| (bases[part + 1] - bases[part]) as usize;
        let part_cursors = lock_parts(&mut self.cursors, (0..parts).map(keys_in_part));
        let part_indices = lock_parts(&mut self.sorted_index, (0..parts).map(boxes_in_part));
        let part_boxes = lock_parts(&mut self.sorted_box, (0..parts).map(boxes_in_part));
        runner.for_each_chunk(parts, |part| {
            let (first_key, base) = (part_keys(part).start, bases[part]);
            let (mut starts, mut cursors) = (lock(&part_starts[part]), lock(&part_cursors[part]));
            let (mut indices, mut boxes) = (lock(&part_indices[part]), lock(&part_boxes[part]));
            // A key's boxes go from the end of the key before it, relative
            // to this range's stretch until the bases are added.
            let mut previous_end = 0;
            for (start, cursor) in starts.iter_mut().zip(cursors.iter_mut()) {
                *cursor = previous_end;
                previous_end = *start;
                *start += base;
            }
            for &packed in keys {
                let local = place_in(packed, first_key);
                if local < cursors.len() {
                    let index = packed as u32;
                    let at = cursors[local] as usize;
                    cursors[local] += 1;
                    indices[at] = index;
                    boxes[at] = FiledBox::new(&aabbs[index as usize]);
                }
            }
        });
    }

    /// The sorted positions of the boxes in `cell`'s key run (which may hold
    /// other cells too when hashed).
    #[inline]
    fn run(&self, cell: IVec2) -> std::ops::Range<usize> {
        match key_of(self.keying, cell, self.origin, self.span) {
            Some(key) => {
                self.key_starts[key as usize] as usize..self.key_starts[key as usize + 1] as usize
            }
            None => 0..0,
        }
    }

    /// Whether sorted box `b`, found in `cell`'s key run, is in `cell`.
    #[inline]
    fn holds(&self, b: usize, cell: IVec2) -> bool {
        match self.keying {
            Keying::Dense => true,
            Keying::Hashed { .. } => self.sorted_cell[b] == cell,
        }
    }

    /// Pairs among the filed boxes whose min corner is in `rows`: each box
    /// with the later boxes of its own cell and with the boxes of the
    /// neighbouring cells at (+1, -1), (+1, 0), (+1, +1) and (0, +1); the
    /// other four neighbours meet it from their side.
    ///
    /// With row-major keys a key run is exactly one cell, the (+1, 0) run
    /// follows the cell's own, the (+1, +1) run follows the (0, +1) one, and
    /// the empty frame around the filed cells (see [`key_of`]) gives every
    /// neighbour of a filed cell a key.
    ///
    /// Appends the pairs to `found` as `(a, b)` sorted positions, `a < b`.
    /// Every test writes its pair and only a hit moves past it: about one
    /// test in eight hits, and a branch on each result was mispredicted
    /// often enough to cost more than the tests.
    fn dense_pairs_within(&self, rows: Range<usize>, found: &mut Vec<(u32, u32)>) {
        let (boxes, starts) = (&self.sorted_box[..], &self.key_starts[..]);
        if boxes.is_empty() {
            return;
        }
        // Slots past `count` are scratch, written by every test.
        let mut count = found.len();
        let row_length = dense_row_length(self.span) as usize;
        // Row by row, each cell's run bounds read from three slices side by
        // side: where its own row, the row below and the row above start
        // at the cell's column (the last column, empty, is not scanned).
        for row in rows {
            let first = (row + 1) * row_length;
            let own_row = &starts[first..first + row_length + 1];
            let below_row = &starts[first + 1 - row_length..first + 1];
            let above_row = &starts[first + row_length..first + 2 * row_length + 1];
            for ((own, below), above) in own_row
                .windows(3)
                .zip(below_row.windows(2))
                .zip(above_row.windows(3))
            {
                let (own_start, own_end) = (own[0] as usize, own[1] as usize);
                if own_start == own_end {
                    continue;
                }
                let own_and_right_end = own[2] as usize;
                let below_right = below[0] as usize..below[1] as usize;
                let above = above[0] as usize..above[2] as usize;
                let tests_per_box = own_and_right_end - own_start + below_right.len() + above.len();
                let needed = count + (own_end - own_start) * tests_per_box;
                if found.len() < needed {
                    found.resize(needed.max(2 * found.len()), (0, 0));
                }
                for a in own_start..own_end {
                    let test = OverlapTest::new(&boxes[a]);
                    let mut scan = |run: Range<usize>| {
                        for (b, other) in (run.start..).zip(&boxes[run]) {
                            found[count] = (a as u32, b as u32);
                            count += usize::from(test.overlaps(other));
                        }
                    };
                    scan(a + 1..own_and_right_end);
                    scan(below_right.clone());
                    scan(above.clone());
                }
            }
        }
        found.truncate(count);
    }

    /// Turns the sorted positions in `pairs[first..]` into box indices
    /// `(i, j)`, `i < j`, keeping the pairs `accept` accepts.
    fn keep_accepted(
        &self,
        pairs: &mut Vec<(u32, u32)>,
        first: usize,
        accept: impl Fn(u32, u32) -> bool,
    ) {
        let indices = &self.sorted_index;
        let mut kept = first;
        for at in first..pairs.len() {
            let (a, b) = pairs[at];
            let (i, j) = (indices[a as usize], indices[b as usize]);
            let (i, j) = (i.min(j), i.max(j));
            pairs[kept] = (i, j);
            kept += usize::from(accept(i, j));
        }
        pairs.truncate(kept);
    }

    /// [`Self::dense_pairs_within`] for all rows, with hashed keys: runs can
    /// mix cells, so each box is checked to be in the cell looked for.
    fn hashed_pairs_within(&self, report: &mut impl FnMut(u32, u32)) {
        const FORWARD: [IVec2; 4] = [
            IVec2::new(1, -1),
            IVec2::new(1, 0),
            IVec2::new(1, 1),
            IVec2::new(0, 1),
        ];
        let (cells, boxes, indices) = (&self.sorted_cell, &self.sorted_box, &self.sorted_index);
        let mut scan = |a: usize, cell: IVec2, range: std::ops::Range<usize>| {
            let test = OverlapTest::new(&boxes[a]);
            for b in range {
                if (cells[b] == cell) & test.overlaps(&boxes[b]) {
                    report(indices[a], indices[b]);
                }
            }
        };
        for (a, &cell) in cells.iter().enumerate() {
            scan(a, cell, a + 1..self.run(cell).end);
            for offset in FORWARD {
                scan(a, cell + offset, self.run(cell + offset));
            }
        }
    }

    /// Pairs of each oversized box with the filed boxes.
    fn pairs_with_oversized(&self, aabbs: &[Aabb2d], report: &mut impl FnMut(u32, u32)) {
        for &big in &self.oversized {
            self.visit_filed_overlapping(&aabbs[big as usize], |b| {
                report(big, self.sorted_index[b]);
            });
        }
    }

    /// Calls `visit` with the sorted position of every filed box that
    /// overlaps `query`, each once: those have their min corner in the cells
    /// `query` covers or one cell below or left of them. When those cells
    /// outnumber the filed boxes, the boxes are scanned instead.
    #[inline]
    fn visit_filed_overlapping(&self, query: &Aabb2d, mut visit: impl FnMut(usize)) {
        let filed = self.sorted_index.len();
        if filed == 0 {
            return;
        }
        let (mut min, mut max) = (self.to_cell(query.min) - 1, self.to_cell(query.max));
        if let Keying::Dense = self.keying {
            // Cells outside the filed range hold nothing.
            let last = self.origin + (self.span - 1).as_ivec2();
            (min, max) = (min.max(self.origin), max.min(last));
            if min.cmpgt(max).any() {
                return;
            }
        }
        let covered = (max - min).as_i64vec2() + 1;
        let query = OverlapTest::of_aabb(query);
        let mut test = |b: usize| {
            if query.overlaps(&self.sorted_box[b]) {
                visit(b);
            }
        };
        if covered.x * covered.y >= filed as i64 {
            (0..filed).for_each(&mut test);
            return;
        }
        for y in min.y..=max.y {
            for x in min.x..=max.x {
                let cell = IVec2::new(x, y);
                for b in self.run(cell) {
                    if self.holds(b, cell) {
                        test(b);
                    }
                }
            }
        }
    }

    /// [`SpatialGrid::visit_along`] for this level's filed boxes, by sorted
    /// position; `visit` lowers `limit` when it finds a hit.
    fn visit_along(
        &self,
        start: &Aabb2d,
        direction: Vec2,
        limit: &mut f32,
        mut visit: impl FnMut(usize, &mut f32),
    ) {
        let filed = self.sorted_index.len();
        // The part of the path where the moving box can meet filed boxes.
        let Some((first, last)) = self
            .bounds
            .filter(|_| filed > 0)
            .and_then(|bounds| path_within(start, direction, &bounds, *limit))
        else {
            return;
        };
        // Walk it in pieces, each covering about `cells` cells, unless that
        // looks at more cells than there are boxes.
        let piece = self.cell_size * CELLS_PER_PIECE;
        // The widest a piece gets: the moving box, the piece, and the slack
        // for rounding (large far from the origin).
        let size = (start.max - start.min).max_element() + piece + 2.0 * path_slack(start, last);
        let cells = (size * self.inverse_cell_size + 2.0).powi(2);
        let pieces = ((last - first) / piece).ceil().max(1.0);
        if pieces * cells >= filed as f32 {
            let whole = OverlapTest::of_aabb(&swept_box(start, direction, first, last));
            for b in 0..filed {
                if whole.overlaps(&self.sorted_box[b]) {
                    visit(b, limit);
                }
            }
            return;
        }
        let pieces = pieces as u32;
        for k in 0..pieces {
            // Computed the same way at both ends, so that pieces meet exactly.
            let from = first + k as f32 * piece;
            if from > *limit {
                break;
            }
            let to = if k + 1 == pieces {
                last
            } else {
                first + (k + 1) as f32 * piece
            };
            self.visit_filed_overlapping(&swept_box(start, direction, from, to), |b| {
                visit(b, limit);
            });
            // Boxes not seen yet are met beyond `to`, after the nearest hit.
            if *limit < to {
                break;
            }
        }
    }
}

/// Rounding of positions along a path, relative to the coordinates involved,
/// is covered by widening boxes by this factor of their magnitude.
const PATH_SLACK: f32 = 16.0 * f32::EPSILON;

/// The box covered by `start` moved by `direction * t` for `t` in
/// `from..=to`, widened to cover the rounding of those positions.
fn swept_box(start: &Aabb2d, direction: Vec2, from: f32, to: f32) -> Aabb2d {
    let (a, b) = (direction * from, direction * to);
    let slack = path_slack(start, from.abs().max(to.abs()));
    Aabb2d {
        min: start.min + a.min(b) - slack,
        max: start.max + a.max(b) + slack,
    }
}

/// How much to widen the box covered by `start` moved by up to `distance`.
fn path_slack(start: &Aabb2d, distance: f32) -> f32 {
    (start.min.abs().max(start.max.abs()).max_element() + distance) * PATH_SLACK
}

/// The range of `t` in `0..=limit` for which `start` moved by
/// `direction * t` overlaps `bounds` (widened for rounding), or `None`.
fn path_within(start: &Aabb2d, direction: Vec2, bounds: &Aabb2d, limit: f32) -> Option<(f32, f32)> {
    let magnitude = (start.min.abs().max(start.max.abs()))
        .max(bounds.min.abs().max(bounds.max.abs()))
        .max_element();
    let slack = magnitude * PATH_SLACK;
    let (mut first, mut last) = (0.0_f32, limit);
    for axis in 0..2 {
        let step = direction[axis];
        // Overlap on this axis: start.min + step * t <= bounds.max and
        // start.max + step * t >= bounds.min.
        let (below, above) = (
            bounds.min[axis] - slack - start.max[axis],
            bounds.max[axis] + slack - start.min[axis],
        );
        if step == 0.0 {
            if !(below <= 0.0 && 0.0 <= above) {
                return None;
            }
            continue;
        }
        let (a, b) = (below / step, above / step);
        let (enter, exit) = if a <= b { (a, b) } else { (b, a) };
        first = first.max(enter);
        last = last.min(exit);
    }
    // Also `None` for NaN.
    (first <= last).then_some((first, last))
}

/// The cell holding `p` in cells of `1 / inverse_cell_size`, clamped.
#[inline]
fn cell_at(p: Vec2, inverse_cell_size: f32) -> IVec2 {
    let c = p * inverse_cell_size;
    IVec2::new(floor_clamped(c.x), floor_clamped(c.y))
}

/// `p` in cell units, at most the highest cell coordinate: its cell is the
/// floor of this (for `p` at least the lowest).
#[inline]
fn scaled_to_cells(p: Vec2, inverse_cell_size: f32) -> Vec2 {
    (p * inverse_cell_size).min(Vec2::splat(CELL_COORD_LIMIT as f32))
}

/// `x.floor() as i32`, clamped to about `-CELL_COORD_LIMIT..=CELL_COORD_LIMIT`
/// (0 for NaN), without a libm call: `as` saturates, and clamping the integer
/// is cheaper than clamping the float.
#[inline]
fn floor_clamped(x: f32) -> i32 {
    let truncated = (x as i32).clamp(-CELL_COORD_LIMIT, CELL_COORD_LIMIT);
    truncated - i32::from(x < truncated as f32)
}

/// The sort key of `cell`, or `None` when a dense grid has no such cell.
///
/// Dense keys are row-major over the filed cells framed by empty ones: a
/// row below, a row above and a column to the right, so that the pair scan
/// can look at the neighbours of any filed cell without bounds checks.
#[inline]
fn key_of(keying: Keying, cell: IVec2, origin: IVec2, span: I64Vec2) -> Option<u32> {
    match keying {
        Keying::Dense => {
            let offset = (cell - origin).as_i64vec2();
            (offset.cmpge(I64Vec2::ZERO).all() && offset.cmplt(span).all())
                .then(|| ((offset.y + 1) * dense_row_length(span) + offset.x) as u32)
        }
        Keying::Hashed { mask } => Some(cell_hash(cell) & mask),
    }
}

/// Cell edge length for `input`: the largest box among those at most
/// [`MAX_CELL_TO_MEDIAN`] times the median size, so that almost every box is
/// filed and a few huge ones (a level-sized sensor) cannot blow the cells up.
///
/// Both come from at most [`SIZE_SAMPLES`] boxes spread over `input`: the
/// few boxes larger than every sample go to the next level, which costs
/// less than a pass over all of them.
fn cell_size_for(input: &[u32], aabbs: &[Aabb2d], sizes: &mut Vec<f32>) -> f32 {
    let size = |i: u32| {
        let aabb = &aabbs[i as usize];
        (aabb.max - aabb.min).max_element()
    };
    sizes.clear();
    if input.len() <= SIZE_SAMPLES {
        sizes.extend(input.iter().map(|&i| size(i)));
    } else {
        // Scattered by a multiplicative hash rather than evenly spaced, so
        // that colliders spawned in a repeating pattern (circle, rectangle,
        // circle...) are all sampled.
        let len = input.len() as u64;
        sizes.extend((0..SIZE_SAMPLES as u64).map(|k| {
            let at = (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % len;
            size(input[at as usize])
        }));
    }
    if sizes.is_empty() {
        return 1.0;
    }
    let middle = sizes.len() / 2;
    let (_, &mut median, _) = sizes.select_nth_unstable_by(middle, f32::total_cmp);
    let cap = median * MAX_CELL_TO_MEDIAN;
    let largest = (sizes.iter().copied())
        .filter(|&s| s <= cap)
        .fold(median, f32::max);
    if largest.is_finite() && largest > 0.0 {
        largest
    } else {
        1.0
    }
}

/// Marks a box that does not fit the cells in [`Level::build`]'s filing
/// (no cell is this low: they are clamped).
const OVERSIZED: IVec2 = IVec2::MIN;

/// The sort key of a box that does not fit the cells, in [`Level::build`]:
/// no filed box has it, as no index is `u32::MAX`.
const NOT_FILED: u64 = u64::MAX;

/// Boxes per chunk of [`Level::build`]'s filing and keying passes.
const BOXES_PER_CHUNK: usize = 2048;

/// How many boxes fit the cells, the range of their min cells and their
/// extent.
#[derive(Clone, Copy, Debug)]
struct FiledBounds {
    count: usize,
    lo: IVec2,
    hi: IVec2,
    lowest: Vec2,
    highest: Vec2,
}

impl Default for FiledBounds {
    /// Bounds of nothing: the identity of [`FiledBounds::union`].
    fn default() -> Self {
        Self {
            count: 0,
            lo: IVec2::MAX,
            hi: IVec2::MIN,
            lowest: Vec2::INFINITY,
            highest: Vec2::NEG_INFINITY,
        }
    }
}

impl FiledBounds {
    fn union(self, other: Self) -> Self {
        Self {
            count: self.count + other.count,
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
            lowest: self.lowest.min(other.lowest),
            highest: self.highest.max(other.highest),
        }
    }
}

/// Sets `cells` to the min cell of each box of `input`, or [`OVERSIZED`]
/// when its max corner is more than one cell further in an axis; returns
/// the bounds of those that fit.
fn file_boxes(
    input: &[u32],
    aabbs: &[Aabb2d],
    inverse_cell_size: f32,
    cells: &mut [IVec2],
) -> FiledBounds {
    let mut bounds = FiledBounds::default();
    for (cell, &index) in cells.iter_mut().zip(input) {
        let aabb = &aabbs[index as usize];
        let min = cell_at(aabb.min, inverse_cell_size);
        // The max corner's cell is at most one further exactly when its
        // scaled coordinates are below `min + 2`: a compare instead of two
        // float-to-int conversions.
        let max = scaled_to_cells(aabb.max, inverse_cell_size);
        if !max.cmplt((min + 2).as_vec2()).all() {
            *cell = OVERSIZED;
            continue;
        }
        *cell = min;
        bounds.count += 1;
        bounds.lo = bounds.lo.min(min);
        bounds.hi = bounds.hi.max(min);
        bounds.lowest = bounds.lowest.min(aabb.min);
        bounds.highest = bounds.highest.max(aabb.max);
    }
    bounds
}

/// Keys per row of a dense grid spanning `span` cells: one more than its
/// width, for the empty column on the right.
#[inline]
fn dense_row_length(span: I64Vec2) -> i64 {
    span.x + 1
}

/// Keys of a dense grid spanning `span` cells, with the empty frame.
fn dense_key_count(span: I64Vec2) -> i64 {
    dense_row_length(span) * (span.y + 2)
}

#[inline]
fn cell_hash(cell: IVec2) -> u32 {
    // Two large odd multipliers mix x and y, and the shifts fold the high
    // bits into the low ones that the mask keeps.
    let h = (cell.x as u32).wrapping_mul(0x9E37_79B1) ^ (cell.y as u32).wrapping_mul(0x85EB_CA77);
    let h = (h ^ (h >> 16)).wrapping_mul(0x2C1B_3C6D);
    h ^ (h >> 15)
}

/// A filed box as the pair scan compares it: `(min.x, min.y, -max.x,
/// -max.y)`, so that a test is one vector compare with nothing to rearrange.
#[derive(Clone, Copy, Debug)]
struct FiledBox(Vec4);

impl FiledBox {
    #[inline]
    fn new(aabb: &Aabb2d) -> Self {
        Self(Vec4::new(aabb.min.x, aabb.min.y, -aabb.max.x, -aabb.max.y))
    }

    #[inline]
    fn min(&self) -> Vec2 {
        self.0.xy()
    }
}

/// One box, set up to be tested against many filed boxes with one vector
/// compare each: `(max.x, max.y, -min.x, -min.y)`.
struct OverlapTest(Vec4);

impl OverlapTest {
    /// The test of a filed box against others.
    #[inline]
    fn new(filed: &FiledBox) -> Self {
        Self(-filed.0.zwxy())
    }

    #[inline]
    fn of_aabb(aabb: &Aabb2d) -> Self {
        Self(Vec4::new(aabb.max.x, aabb.max.y, -aabb.min.x, -aabb.min.y))
    }

    /// [`aabbs_overlap`]: `other.min <= max` and `min <= other.max`, the
    /// latter as `-other.max <= -min`.
    #[inline]
    fn overlaps(&self, other: &FiledBox) -> bool {
        other.0.cmple(self.0).all()
    }
}

/// Inclusive overlap: touching boxes overlap, as touching shapes collide.
#[inline]
fn aabbs_overlap(a: &Aabb2d, b: &Aabb2d) -> bool {
    // `&`, not `&&`: four compares are cheaper than up to four branches.
    (a.min.x <= b.max.x) & (b.min.x <= a.max.x) & (a.min.y <= b.max.y) & (b.min.y <= a.max.y)
}

/// This detection's candidate pairs: indices into [`ColliderSnapshot`] whose
/// bounding boxes overlap and whose layers interact.
#[derive(Resource, Default, Debug)]
pub struct BroadPhasePairs {
    /// Candidate pairs `(i, j)` with `i < j`.
    pub pairs: Vec<(u32, u32)>,
}

/// The grid the broad phase built over this detection's
/// [`ColliderSnapshot::aabbs`], kept for spatial queries. It is rebuilt in
/// [`CollisionSystems::BroadPhase`](crate::CollisionSystems::BroadPhase), so
/// between `Prepare` and `BroadPhase` it still describes the previous
/// snapshot.
#[derive(Resource, Default, Debug)]
pub struct BroadPhaseGrid {
    grid: SpatialGrid,
}

impl BroadPhaseGrid {
    /// The grid, built over [`ColliderSnapshot::aabbs`].
    pub fn grid(&self) -> &SpatialGrid {
        &self.grid
    }
}

/// Finds [`BroadPhasePairs`] for the current [`ColliderSnapshot`].
pub(crate) fn find_candidate_pairs(
    snapshot: Res<ColliderSnapshot>,
    mut grid: ResMut<BroadPhaseGrid>,
    mut candidates: ResMut<BroadPhasePairs>,
    workers: Res<Workers>,
) {
    let grid = &mut grid.grid;
    let layers = &snapshot.layers;
    // Most games never set layers: then every pair interacts, and the filter
    // (two random reads per overlapping box pair) is skipped.
    let all_interact = layers
        .first()
        .is_none_or(|first| first.interacts_with(first) && layers.iter().all(|l| l == first));
    if all_interact {
        grid.overlapping_pairs_in_chunks(
            &snapshot.aabbs,
            |_, _| true,
            &*workers,
            &mut candidates.pairs,
        );
    } else {
        grid.overlapping_pairs_in_chunks(
            &snapshot.aabbs,
            |i, j| layers[i as usize].interacts_with(&layers[j as usize]),
            &*workers,
            &mut candidates.pairs,
        );
    }
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
            // Some rounds with more boxes than the cell size samples.
            let count = if round % 7 == 3 {
                rng.random_range(3000..5000)
            } else {
                rng.random_range(0..600)
            };
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

    /// Every box once, also with oversized boxes on further levels and a
    /// last level tested directly.
    #[test]
    fn filing_order_lists_every_box_once() {
        let mut rng = StdRng::seed_from_u64(11);
        let mut aabbs = random_boxes(&mut rng, 3000, Vec2::ZERO, 300.0, 4.0);
        aabbs.extend(random_boxes(&mut rng, 40, Vec2::ZERO, 300.0, 60.0));
        aabbs.extend(random_boxes(&mut rng, 5, Vec2::ZERO, 300.0, 900.0));
        aabbs.push(aabb(Vec2::ZERO, Vec2::INFINITY));
        let mut grid = SpatialGrid::default();
        for boxes in [&aabbs[..], &aabbs[..10], &[]] {
            grid.overlapping_pairs(boxes, |_, _| true, &mut Vec::new());
            let mut order: Vec<u32> = grid.filing_order().collect();
            assert!(grid.levels_used > 1 || boxes.len() < 100);
            order.sort_unstable();
            assert_eq!(order, (0..boxes.len() as u32).collect::<Vec<_>>());
        }
    }

    #[test]
    fn bands_shared_by_threads_give_the_same_pairs_in_the_same_order() {
        use bevy::tasks::{ComputeTaskPool, TaskPoolBuilder};
        ComputeTaskPool::get_or_init(|| TaskPoolBuilder::new().num_threads(3).build());
        let mut rng = StdRng::seed_from_u64(3);
        // About 250 by 250 cells: dozens of bands.
        let aabbs: Vec<Aabb2d> = (0..20_000)
            .map(|_| {
                let min = Vec2::new(rng.random_range(0.0..2500.0), rng.random_range(0.0..2500.0));
                aabb(min, Vec2::splat(rng.random_range(2.0..10.0)))
            })
            .collect();
        let mut in_order = Vec::new();
        SpatialGrid::default().overlapping_pairs(&aabbs, |_, _| true, &mut in_order);
        let (mut grid, workers) = (SpatialGrid::default(), Workers::default());
        for _ in 0..3 {
            let mut shared = Vec::new();
            grid.overlapping_pairs_in_chunks(&aabbs, |_, _| true, &workers, &mut shared);
            assert_eq!(shared, in_order);
        }
        in_order.sort_unstable();
        assert_eq!(in_order, boxes_overlapping_by_brute_force(&aabbs));
    }

    /// Runs chunks last first on the calling thread, but claims to have as
    /// many threads as it holds, so that work cut by threads is cut so.
    struct PretendThreads(usize);

    impl RunChunks for PretendThreads {
        fn for_each_chunk(&self, chunks: usize, work: impl Fn(usize) + Sync) {
            (0..chunks).rev().for_each(work);
        }

        fn threads(&self) -> usize {
            self.0
        }
    }

    #[test]
    fn key_ranges_cut_by_threads_sort_alike() {
        let mut rng = StdRng::seed_from_u64(11);
        // Mixed sizes, so that some boxes are oversized, in random order, so
        // that each range's keys are spread all over the input.
        let aabbs: Vec<Aabb2d> = (0..5000)
            .map(|k| {
                let min = Vec2::new(rng.random_range(0.0..800.0), rng.random_range(0.0..800.0));
                let size = if k % 50 == 0 {
                    60.0
                } else {
                    rng.random_range(1.0..8.0)
                };
                aabb(min, Vec2::splat(size))
            })
            .collect();
        let built = |threads: usize| {
            let mut grid = SpatialGrid::default();
            let mut pairs = Vec::new();
            grid.overlapping_pairs_in_chunks(
                &aabbs,
                |_, _| true,
                &PretendThreads(threads),
                &mut pairs,
            );
            // The oversized boxes went on to the next level.
            assert!(grid.levels_used > 1);
            (
                pairs,
                grid.filing_order().collect::<Vec<_>>(),
                grid.levels[0].key_starts.clone(),
                grid.levels[1].input.clone(),
            )
        };
        let one = built(1);
        for threads in [2, 3, 7] {
            assert!(built(threads) == one, "{threads} ranges differ from one");
        }
        let mut pairs = one.0;
        pairs.sort_unstable();
        assert_eq!(pairs, boxes_overlapping_by_brute_force(&aabbs));
    }

    #[test]
    fn unbounded_boxes_fit_no_cell_and_still_pair() {
        // Enough to build levels, none fitting a cell: every level is empty
        // until the last one tests them directly.
        let aabbs: Vec<Aabb2d> = (0..30)
            .map(|i| Aabb2d {
                min: Vec2::new(f32::NEG_INFINITY, i as f32),
                max: Vec2::new(f32::INFINITY, i as f32 + 0.5),
            })
            .collect();
        let mut grid = SpatialGrid::default();
        assert_eq!(
            grid_pairs(&mut grid, &aabbs),
            boxes_overlapping_by_brute_force(&aabbs)
        );
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
    fn one_cell_wide_rows_and_columns() {
        // Grids one cell wide or high: the next cell in key order is then
        // not a right-hand neighbour, and pairs must still be found once.
        let mut rng = StdRng::seed_from_u64(5);
        for vertical in [false, true] {
            let aabbs: Vec<Aabb2d> = (0..200)
                .map(|_| {
                    let along = rng.random_range(0.0..300.0);
                    let across = rng.random_range(0.0..0.5);
                    let min = if vertical {
                        Vec2::new(across, along)
                    } else {
                        Vec2::new(along, across)
                    };
                    aabb(min, Vec2::splat(rng.random_range(1.0..3.0)))
                })
                .collect();
            let mut grid = SpatialGrid::default();
            assert_eq!(
                grid_pairs(&mut grid, &aabbs),
                boxes_overlapping_by_brute_force(&aabbs)
            );
        }
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
        assert!(matches!(grid.levels[0].keying, Keying::Dense));
    }

    fn random_boxes(
        rng: &mut StdRng,
        count: usize,
        centre: Vec2,
        spread: f32,
        size: f32,
    ) -> Vec<Aabb2d> {
        (0..count)
            .map(|_| {
                let min = centre
                    + Vec2::new(
                        rng.random_range(-spread..spread),
                        rng.random_range(-spread..spread),
                    );
                aabb(
                    min,
                    Vec2::new(rng.random_range(0.1..size), rng.random_range(0.1..size)),
                )
            })
            .collect()
    }

    #[test]
    fn sparse_clusters_use_hashed_cells() {
        // Three clusters far apart: indexing every cell between them densely
        // would take billions of cells, so cells are hashed.
        let mut rng = StdRng::seed_from_u64(5);
        let mut aabbs = Vec::new();
        for centre in [Vec2::ZERO, Vec2::new(3e6, -2e6), Vec2::new(-1e6, 4e6)] {
            aabbs.extend(random_boxes(&mut rng, 300, centre, 60.0, 8.0));
        }
        let mut grid = SpatialGrid::default();
        assert_eq!(
            grid_pairs(&mut grid, &aabbs),
            boxes_overlapping_by_brute_force(&aabbs)
        );
        assert!(matches!(grid.levels[0].keying, Keying::Hashed { .. }));
    }

    #[test]
    fn sizes_over_four_orders_of_magnitude_use_several_levels() {
        let mut rng = StdRng::seed_from_u64(9);
        let mut aabbs = Vec::new();
        for size in [1.0, 30.0, 900.0, 27000.0] {
            aabbs.extend(random_boxes(&mut rng, 80, Vec2::ZERO, 30000.0, size));
        }
        let mut grid = SpatialGrid::default();
        assert_eq!(
            grid_pairs(&mut grid, &aabbs),
            boxes_overlapping_by_brute_force(&aabbs)
        );
        assert!(grid.levels.len() >= 2, "{} levels", grid.levels.len());
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

    /// The filter applies on the dense path too, where the pairs are first
    /// found by sorted position and then filtered and turned into indices.
    #[test]
    fn filter_applies_to_dense_cells() {
        let mut rng = StdRng::seed_from_u64(21);
        let aabbs = random_boxes(&mut rng, 3000, Vec2::ZERO, 400.0, 12.0);
        let accept = |i: u32, j: u32| !(i * 7 + j).is_multiple_of(3);
        let mut grid = SpatialGrid::default();
        let mut pairs = vec![(7, 7)];
        grid.overlapping_pairs(&aabbs, accept, &mut pairs);
        assert!(matches!(grid.levels[0].keying, Keying::Dense));
        pairs.sort_unstable();
        let expected: Vec<(u32, u32)> = boxes_overlapping_by_brute_force(&aabbs)
            .into_iter()
            .filter(|&(i, j)| accept(i, j))
            .collect();
        assert!(expected.len() > 500, "{} pairs", expected.len());
        assert_eq!(pairs, expected);
    }

    /// Worlds that exercise every kind of level: dense and hashed cells,
    /// oversized boxes on coarser levels, few boxes tested directly, and far
    /// away coordinates.
    fn query_worlds(rng: &mut StdRng) -> Vec<Vec<Aabb2d>> {
        let mut worlds = Vec::new();
        for count in [0, 5, 23, 24, 300, 1500] {
            let mut aabbs = random_boxes(rng, count, Vec2::ZERO, 200.0, 10.0);
            // Some walls and giants for the coarser levels.
            for _ in 0..count / 20 {
                let min = Vec2::new(
                    rng.random_range(-300.0..300.0),
                    rng.random_range(-300.0..300.0),
                );
                aabbs.push(aabb(min, Vec2::new(rng.random_range(50.0..400.0), 3.0)));
            }
            worlds.push(aabbs);
        }
        let mut clusters = Vec::new();
        for centre in [Vec2::ZERO, Vec2::new(3e6, -2e6), Vec2::new(-1e6, 4e6)] {
            clusters.extend(random_boxes(rng, 300, centre, 60.0, 8.0));
        }
        worlds.push(clusters);
        let mut sizes = Vec::new();
        for size in [1.0, 30.0, 900.0, 27000.0] {
            sizes.extend(random_boxes(rng, 80, Vec2::ZERO, 30000.0, size));
        }
        worlds.push(sizes);
        worlds
    }

    fn built(aabbs: &[Aabb2d]) -> SpatialGrid {
        let mut grid = SpatialGrid::default();
        grid.overlapping_pairs(aabbs, |_, _| true, &mut Vec::new());
        grid
    }

    /// A random point near or inside the world's boxes, or far outside.
    fn random_point(rng: &mut StdRng, aabbs: &[Aabb2d]) -> Vec2 {
        match (rng.random_range(0..4), aabbs.len()) {
            (0, _) | (_, 0) => Vec2::new(
                rng.random_range(-500.0..500.0),
                rng.random_range(-500.0..500.0),
            ),
            (1, _) => Vec2::new(rng.random_range(-1e7..1e7), rng.random_range(-1e7..1e7)),
            _ => {
                let target = aabbs[rng.random_range(0..aabbs.len())];
                target.min
                    + (target.max - target.min) * Vec2::new(rng.random(), rng.random())
                    + Vec2::new(rng.random_range(-3.0..3.0), rng.random_range(-3.0..3.0))
            }
        }
    }

    #[test]
    fn visit_overlapping_matches_brute_force() {
        let mut rng = StdRng::seed_from_u64(23);
        for (world, aabbs) in query_worlds(&mut rng).iter().enumerate() {
            let grid = built(aabbs);
            assert_eq!(grid.len(), aabbs.len());
            for round in 0..300 {
                let min = random_point(&mut rng, aabbs);
                let size = match round % 4 {
                    0 => Vec2::ZERO,
                    1 => Vec2::new(rng.random_range(0.0..20.0), rng.random_range(0.0..20.0)),
                    2 => Vec2::splat(rng.random_range(0.0..2000.0)),
                    _ => Vec2::splat(f32::INFINITY),
                };
                let query = aabb(min, size);
                let mut visited = Vec::new();
                grid.visit_overlapping(aabbs, &query, |i| visited.push(i));
                let before = visited.len();
                visited.sort_unstable();
                visited.dedup();
                assert_eq!(
                    visited.len(),
                    before,
                    "world {world}: a box was visited twice"
                );
                let expected: Vec<u32> = (0..aabbs.len() as u32)
                    .filter(|&i| aabbs_overlap(&query, &aabbs[i as usize]))
                    .collect();
                assert_eq!(visited, expected, "world {world} round {round}: {query:?}");
            }
        }
    }

    #[test]
    fn visit_overlapping_with_other_boxes_tests_them_all() {
        let mut rng = StdRng::seed_from_u64(2);
        let grid = built(&random_boxes(&mut rng, 200, Vec2::ZERO, 100.0, 5.0));
        let other = random_boxes(&mut rng, 50, Vec2::ZERO, 100.0, 5.0);
        let query = aabb(Vec2::splat(-20.0), Vec2::splat(40.0));
        let mut visited = Vec::new();
        grid.visit_overlapping(&other, &query, |i| visited.push(i));
        let expected: Vec<u32> = (0..50)
            .filter(|&i| aabbs_overlap(&query, &other[i as usize]))
            .collect();
        assert!(!expected.is_empty());
        assert_eq!(visited, expected);
        let mut along = Vec::new();
        grid.visit_along(&other, query, Dir2::X, 10.0, |i| {
            along.push(i);
            None
        });
        assert_eq!(along, (0..50).collect::<Vec<u32>>());
    }

    /// In f64: the `t` in `0..=limit` at which `start` moved along
    /// `direction` first overlaps `target` grown by `grow` on every side.
    fn reference_path_hit(
        start: &Aabb2d,
        direction: Dir2,
        limit: f32,
        target: &Aabb2d,
        grow: f64,
    ) -> Option<f64> {
        let (mut first, mut last) = (0.0_f64, f64::from(limit));
        for axis in 0..2 {
            let step = f64::from(direction[axis]);
            let below = f64::from(target.min[axis]) - grow - f64::from(start.max[axis]);
            let above = f64::from(target.max[axis]) + grow - f64::from(start.min[axis]);
            if step == 0.0 {
                if !(below <= 0.0 && 0.0 <= above) {
                    return None;
                }
                continue;
            }
            let (a, b) = (below / step, above / step);
            first = first.max(a.min(b));
            last = last.min(a.max(b));
        }
        (first <= last).then_some(first)
    }

    #[test]
    fn visit_along_sees_every_box_on_the_path() {
        const MARGIN: f64 = 1e-3;
        let mut rng = StdRng::seed_from_u64(29);
        for (world, aabbs) in query_worlds(&mut rng).iter().enumerate() {
            let grid = built(aabbs);
            for round in 0..200 {
                let origin = random_point(&mut rng, aabbs);
                // Rays (a point moving) and moving boxes.
                let size = if round % 2 == 0 {
                    Vec2::ZERO
                } else {
                    Vec2::new(rng.random_range(0.0..30.0), rng.random_range(0.0..30.0))
                };
                let start = aabb(origin, size);
                let direction = if round % 5 == 0 {
                    Dir2::CARDINALS[rng.random_range(0..4)]
                } else {
                    Dir2::from_angle(rng.random_range(0.0..std::f32::consts::TAU))
                };
                let limit = if rng.random_bool(0.5) {
                    f32::INFINITY
                } else {
                    rng.random_range(0.0..600.0)
                };
                let mut visited = vec![false; aabbs.len()];
                grid.visit_along(aabbs, start, direction, limit, |i| {
                    visited[i as usize] = true;
                    None
                });
                for (i, target) in aabbs.iter().enumerate() {
                    // Boxes the path clearly overlaps must be visited.
                    if reference_path_hit(&start, direction, limit, target, -MARGIN).is_some() {
                        assert!(
                            visited[i],
                            "world {world} round {round}: box {i} {target:?} missed by {start:?} {direction:?} {limit}"
                        );
                    }
                }
            }
        }
    }

    /// Searching for the first box hit stops early and still finds it.
    #[test]
    fn visit_along_finds_the_nearest_hit() {
        let mut rng = StdRng::seed_from_u64(31);
        for (world, aabbs) in query_worlds(&mut rng).iter().enumerate() {
            let grid = built(aabbs);
            for round in 0..300 {
                let start = aabb(random_point(&mut rng, aabbs), Vec2::ZERO);
                let direction = Dir2::from_angle(rng.random_range(0.0..std::f32::consts::TAU));
                let hit = |i: u32| {
                    reference_path_hit(&start, direction, f32::INFINITY, &aabbs[i as usize], 0.0)
                };
                let mut nearest: Option<(f64, u32)> = None;
                grid.visit_along(aabbs, start, direction, f32::INFINITY, |i| {
                    let t = hit(i)?;
                    if nearest.is_none_or(|(best, j)| (t, i) < (best, j)) {
                        nearest = Some((t, i));
                    }
                    Some(t as f32)
                });
                let expected = (0..aabbs.len() as u32)
                    .filter_map(|i| Some((hit(i)?, i)))
                    .min_by(|a, b| a.partial_cmp(b).unwrap());
                assert_eq!(nearest, expected, "world {world} round {round}");
            }
        }
    }

    /// An infinite ray looks at the boxes near it, not at the whole world.
    #[test]
    fn long_rays_walk_near_the_path_only() {
        // 100 x 100 boxes of size 5 every 10 units.
        let aabbs: Vec<Aabb2d> = (0..10_000)
            .map(|i| {
                aabb(
                    Vec2::new((i % 100) as f32, (i / 100) as f32) * 10.0,
                    Vec2::splat(5.0),
                )
            })
            .collect();
        let grid = built(&aabbs);
        let count_visits = |origin: Vec2, direction: Dir2| {
            let mut visits = 0;
            grid.visit_along(
                &aabbs,
                aabb(origin, Vec2::ZERO),
                direction,
                f32::INFINITY,
                |_| {
                    visits += 1;
                    None
                },
            );
            visits
        };
        // Along a row from far away, between two rows, diagonally and along
        // a column: each box on the path (100) is visited a few times at
        // most, and few others are.
        for (origin, direction, on_path) in [
            (Vec2::new(-1e6, 502.0), Dir2::X, 100),
            (Vec2::new(2e4, 507.5), Dir2::NEG_X, 0),
            (
                Vec2::new(-100.0, -100.0),
                Dir2::new(Vec2::ONE).unwrap(),
                100,
            ),
            (Vec2::new(332.0, -1e5), Dir2::Y, 100),
        ] {
            let visits = count_visits(origin, direction);
            assert!(
                (on_path..=on_path * 4 + 100).contains(&visits),
                "{origin} {direction:?}: {visits}"
            );
        }
        // So far away that f32 positions along the ray are 64 units apart
        // at the world: every box is in reach, each is visited once.
        let visits = count_visits(Vec2::new(332.0, -1e9), Dir2::Y);
        assert!(visits <= aabbs.len(), "{visits}");
        assert_eq!(count_visits(Vec2::new(-1e6, 2000.0), Dir2::X), 0);
        assert_eq!(count_visits(Vec2::new(-100.0, 500.0), Dir2::NEG_X), 0);
        // Stopping at the first hit: only the boxes near the origin.
        let mut visits = 0;
        grid.visit_along(
            &aabbs,
            aabb(Vec2::new(-1e6, 502.0), Vec2::ZERO),
            Dir2::X,
            f32::INFINITY,
            |i| {
                visits += 1;
                reference_path_hit(
                    &aabb(Vec2::new(-1e6, 502.0), Vec2::ZERO),
                    Dir2::X,
                    f32::INFINITY,
                    &aabbs[i as usize],
                    0.0,
                )
                .map(|t| t as f32)
            },
        );
        assert!(visits <= 30, "{visits}");
    }

    #[test]
    fn bad_paths_visit_nothing() {
        let mut rng = StdRng::seed_from_u64(4);
        let aabbs = random_boxes(&mut rng, 100, Vec2::ZERO, 50.0, 5.0);
        let grid = built(&aabbs);
        let point = aabb(Vec2::ZERO, Vec2::ZERO);
        for (start, direction, max_distance) in [
            (aabb(Vec2::NAN, Vec2::ZERO), Dir2::X, 100.0),
            (aabb(Vec2::ZERO, Vec2::INFINITY), Dir2::X, 100.0),
            (point, Dir2::from_angle(f32::NAN), 100.0),
            (point, Dir2::X, f32::NAN),
            (point, Dir2::X, -1.0),
        ] {
            grid.visit_along(&aabbs, start, direction, max_distance, |i| {
                panic!("visited {i} for {start:?} {direction:?} {max_distance}")
            });
        }
        let mut visited = 0;
        grid.visit_along(&aabbs, point, Dir2::X, 100.0, |_| {
            visited += 1;
            None
        });
        assert!(visited > 0);
    }
}
