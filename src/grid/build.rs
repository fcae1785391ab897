//! Building a level: choosing its cell size, filing each box in the cell of
//! its min corner, and a parallel counting sort of the boxes by cell.

use bevy::math::{I64Vec2, IVec2, Vec2, Vec4};
use bevy::shape::Aabb2d;

use super::cells::{FiledBox, Keying, cell_at, dense_key_count, key_of, scaled_to_cells};
use super::level::Level;
use crate::util::parallel::{RunChunks, for_each_chunk_mut, for_each_part, map_parts, split_parts};

/// Cells are at most this many times the median box size: larger boxes go to
/// the next level instead of coarsening this one.
pub(super) const MAX_CELL_TO_MEDIAN: f32 = 4.0;

/// The median box size is estimated from at most this many boxes.
pub(super) const SIZE_SAMPLES: usize = 1024;

impl Level {
    /// Files the boxes that fit the cells, sorted by cell; the rest go to
    /// `oversized`. Finding each box's cell runs in chunks on `runner`.
    pub(super) fn build(&mut self, aabbs: &[Aabb2d], runner: &impl RunChunks) {
        self.cell_size = cell_size_for(&self.input, aabbs, &mut self.sizes);
        self.inverse_cell_size = 1.0 / self.cell_size;
        let inverse_cell_size = self.inverse_cell_size;
        // First pass: the min cell of every box that fits (its max corner is
        // at most one cell further in each axis), and the range they span.
        let input = &self.input;
        // Resizing only writes when the count grows.
        self.input_cells.resize(input.len(), OVERSIZED);
        let cell_chunks = self.input_cells.chunks_mut(BOXES_PER_CHUNK).collect();
        let bounds = map_parts(runner, cell_chunks, |k, cells: &mut [IVec2]| {
            let first = k * BOXES_PER_CHUNK;
            let boxes = &input[first..first + cells.len()];
            file_boxes(boxes, aabbs, inverse_cell_size, cells)
        })
        .into_iter()
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
        let (keying, key_count) = keying_for(filed, span);
        self.keying = keying;
        self.origin = lo;
        self.span = span;
        self.bounds = Some(Aabb2d {
            min: bounds.lowest,
            max: bounds.highest,
        });
        self.key_boxes(keying, lo, span, runner);
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

    /// Sets `keys` to the packed key of every input box ([`NOT_FILED`] for
    /// those that do not fit), in chunks on `runner`.
    fn key_boxes(&mut self, keying: Keying, lo: IVec2, span: I64Vec2, runner: &impl RunChunks) {
        // Key every box that fits, in chunks.
        let (input, input_cells) = (&self.input, &self.input_cells);
        self.keys.resize(input.len(), NOT_FILED);
        for_each_chunk_mut(runner, &mut self.keys, BOXES_PER_CHUNK, |k, keys| {
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
    pub(super) fn sort_by_key(
        &mut self,
        aabbs: &[Aabb2d],
        key_count: usize,
        filed: usize,
        runner: &impl RunChunks,
    ) {
        let parts = runner.threads().clamp(1, key_count.max(1));
        let ranges = KeyRanges { key_count, parts };
        let Level {
            keys,
            input,
            key_starts,
            oversized,
            cursors,
            sorted_index,
            sorted_box,
            ..
        } = self;
        let keys_in_part = |part: usize| ranges.keys_in_part(part);
        let (keys, input) = (&*keys, &*input);
        let part_starts = count_keys(ranges, keys, input, key_starts, oversized, runner);
        // Each range's base: the boxes of the ranges before it.
        let mut bases = Vec::with_capacity(parts + 1);
        bases.push(0u32);
        for own in &part_starts {
            let base = bases[bases.len() - 1];
            bases.push(base + own.last().copied().unwrap_or(0));
        }
        // Add the bases, and place each range's boxes into its own stretch
        // of the sorted arrays.
        sorted_index.resize(filed, 0);
        sorted_box.resize(filed, FiledBox(Vec4::ZERO));
        cursors.resize(key_count, 0);
        let boxes_in_part = |part: usize| (bases[part + 1] - bases[part]) as usize;
        let placing: Vec<_> = part_starts
            .into_iter()
            .zip(split_parts(cursors, (0..parts).map(keys_in_part)))
            .zip(split_parts(sorted_index, (0..parts).map(boxes_in_part)))
            .zip(split_parts(sorted_box, (0..parts).map(boxes_in_part)))
            .collect();
        place_ranges(ranges, keys, aabbs, &bases, placing, runner);
    }
}

/// How [`Level::sort_by_key`] cuts the keys `0..key_count` into `parts`
/// consecutive ranges, one per chunk of work.
#[derive(Clone, Copy, Debug)]
struct KeyRanges {
    key_count: usize,
    parts: usize,
}

impl KeyRanges {
    /// The keys of range `part`.
    #[inline]
    fn part_keys(self, part: usize) -> std::ops::Range<usize> {
        self.key_count * part / self.parts..self.key_count * (part + 1) / self.parts
    }

    /// How many keys range `part` holds.
    #[inline]
    fn keys_in_part(self, part: usize) -> usize {
        self.part_keys(part).len()
    }
}

/// A packed key's place in the range starting at `first_key`, beyond
/// its end (wrapping below its start) when it belongs to another
/// range or is `NOT_FILED`.
#[inline]
fn place_in(packed: u64, first_key: usize) -> usize {
    ((packed >> 32) as usize).wrapping_sub(first_key)
}

/// [`Level::sort_by_key`]'s counting: each range's own starts in
/// `key_starts` (less its base), and the oversized boxes listed.
fn count_keys<'a>(
    ranges: KeyRanges,
    keys: &[u64],
    input: &[u32],
    key_starts: &'a mut Vec<u32>,
    oversized: &mut Vec<u32>,
    runner: &impl RunChunks,
) -> Vec<&'a mut [u32]> {
    // Count each key's boxes into `starts[key + 1]`, then sum them up
    // within each range: each range's own starts, less its base.
    let keys_in_part = |part: usize| ranges.keys_in_part(part);
    key_starts.clear();
    key_starts.resize(ranges.key_count + 1, 0);
    oversized.clear();
    // The last range also lists the oversized boxes, in input order.
    let mut counting: Vec<(&mut [u32], Option<&mut Vec<u32>>)> =
        split_parts(&mut key_starts[1..], (0..ranges.parts).map(keys_in_part))
            .into_iter()
            .map(|counts| (counts, None))
            .collect();
    if let Some(last) = counting.last_mut() {
        last.1 = Some(&mut *oversized);
    }
    map_parts(runner, counting, |part, (counts, oversized)| {
        let first_key = ranges.part_keys(part).start;
        for &packed in keys {
            let local = place_in(packed, first_key);
            if local < counts.len() {
                counts[local] += 1;
            }
        }
        for key in 1..counts.len() {
            counts[key] += counts[key - 1];
        }
        if let Some(oversized) = oversized {
            oversized.extend(
                keys.iter()
                    .zip(input)
                    .filter(|&(&packed, _)| packed == NOT_FILED)
                    .map(|(_, &index)| index),
            );
        }
        counts
    })
}

/// One range's share of [`Level::sort_by_key`]'s placing: its own starts
/// and cursors, and its stretch of the sorted indices and boxes.
type RangePlacing<'a> = (
    ((&'a mut [u32], &'a mut [u32]), &'a mut [u32]),
    &'a mut [FiledBox],
);

/// [`Level::sort_by_key`]'s placing: adds each range's base (from `bases`)
/// to its starts and places its boxes into its own stretch.
fn place_ranges(
    ranges: KeyRanges,
    keys: &[u64],
    aabbs: &[Aabb2d],
    bases: &[u32],
    placing: Vec<RangePlacing<'_>>,
    runner: &impl RunChunks,
) {
    for_each_part(
        runner,
        placing,
        |part, (((starts, cursors), indices), boxes)| {
            let (first_key, base) = (ranges.part_keys(part).start, bases[part]);
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
        },
    );
}

/// The keying of a level of `filed` boxes whose min cells span `span`, and
/// its number of keys: dense when that costs at most a few keys per box.
fn keying_for(filed: usize, span: I64Vec2) -> (Keying, usize) {
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
    (keying, key_count)
}

/// Cell edge length for `input`: the largest box among those at most
/// [`MAX_CELL_TO_MEDIAN`] times the median size, so that almost every box is
/// filed and a few huge ones (a level-sized sensor) cannot blow the cells up.
///
/// Both come from at most [`SIZE_SAMPLES`] boxes spread over `input`: the
/// few boxes larger than every sample go to the next level, which costs
/// less than a pass over all of them.
pub(super) fn cell_size_for(input: &[u32], aabbs: &[Aabb2d], sizes: &mut Vec<f32>) -> f32 {
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
pub(super) const OVERSIZED: IVec2 = IVec2::MIN;

/// The sort key of a box that does not fit the cells, in [`Level::build`]:
/// no filed box has it, as no index is `u32::MAX`.
pub(super) const NOT_FILED: u64 = u64::MAX;

/// Boxes per chunk of [`Level::build`]'s filing and keying passes.
pub(super) const BOXES_PER_CHUNK: usize = 2048;

/// How many boxes fit the cells, the range of their min cells and their
/// extent.
#[derive(Clone, Copy, Debug)]
pub(super) struct FiledBounds {
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
    pub(super) fn union(self, other: Self) -> Self {
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
pub(super) fn file_boxes(
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
