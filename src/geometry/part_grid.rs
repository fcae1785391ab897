//! A uniform grid over a compound's parts in its own frame, built once with
//! the compound, so that a test against a compound of thousands of parts (a
//! tile map) looks only at the parts near the other shape.

use bevy::math::Vec2;
use bevy::shape::Aabb2d;

use crate::util::prefetch::prefetch_slice as prefetch;

/// Compounds with at most this many parts are searched part by part.
const MIN_PARTS: usize = 16;

/// The grid has at most this many cells per part, so that a few large parts
/// do not make it huge.
const CELLS_PER_PART: usize = 4;

/// Which parts' boxes lie in each cell of a uniform grid over the parts'
/// boxes (in the compound's frame).
#[derive(Clone, Debug)]
pub(crate) struct PartGrid {
    /// Where the grid starts, and its cell size.
    origin: Vec2,
    cell: f32,
    columns: u32,
    rows: u32,
    /// The entries of cell `c` are `entries[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    /// Each part's box, index and first cell, once per cell it overlaps:
    /// a cell is one sequential read (a big compound's lookups are
    /// memory-bound).
    entries: Vec<CellEntry>,
}

/// A part as a cell holds it.
#[derive(Clone, Copy, Debug)]
struct CellEntry {
    aabb: Aabb2d,
    part: u32,
    /// The part's first cell (lowest column and row): a part in several
    /// cells of a query is visited in the first of them only.
    first_cell: [u32; 2],
}

impl PartGrid {
    /// The grid over parts with these boxes; `None` for few parts (their
    /// boxes are then not computed), or boxes that are not finite (an invalid
    /// part, reported when it is used).
    pub(crate) fn new(boxes: impl ExactSizeIterator<Item = Aabb2d>) -> Option<Self> {
        if boxes.len() <= MIN_PARTS {
            return None;
        }
        let boxes: Vec<Aabb2d> = boxes.collect();
        let (lo, hi) = (boxes.iter()).fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), b| {
            (lo.min(b.min), hi.max(b.max))
        });
        let span = hi - lo;
        if !span.is_finite() {
            return None;
        }
        let cell = cell_size(&boxes, span);
        let [columns, rows] = [span.x, span.y].map(|s| (s / cell) as u32 + 1);
        let mut grid = Self {
            origin: lo,
            cell,
            columns,
            rows,
            starts: Vec::new(),
            entries: Vec::new(),
        };
        grid.file_parts(&boxes);
        Some(grid)
    }

    /// Counting sort of the parts into the cells their boxes overlap.
    fn file_parts(&mut self, boxes: &[Aabb2d]) {
        let cells = (self.columns * self.rows) as usize;
        let mut counts = vec![0u32; cells + 1];
        for aabb in boxes {
            self.for_each_cell(aabb, |c| counts[c + 1] += 1);
        }
        for c in 0..cells {
            counts[c + 1] += counts[c];
        }
        let mut next = counts.clone();
        let unset = CellEntry {
            aabb: Aabb2d {
                min: Vec2::ZERO,
                max: Vec2::ZERO,
            },
            part: 0,
            first_cell: [0; 2],
        };
        let mut entries = vec![unset; counts[cells] as usize];
        for (part, aabb) in boxes.iter().enumerate() {
            let ([x, _], [y, _]) = self.cell_ranges(aabb);
            let entry = CellEntry {
                aabb: *aabb,
                part: part as u32,
                first_cell: [x, y],
            };
            self.for_each_cell(aabb, |c| {
                entries[next[c] as usize] = entry;
                next[c] += 1;
            });
        }
        (self.starts, self.entries) = (counts, entries);
    }

    /// The columns and rows `aabb` spans, clamped to the grid.
    #[inline]
    fn cell_ranges(&self, aabb: &Aabb2d) -> ([u32; 2], [u32; 2]) {
        let cell = |v: f32, start: f32, n: u32| (((v - start) / self.cell) as u32).min(n - 1);
        let (o, columns, rows) = (self.origin, self.columns, self.rows);
        (
            [
                cell(aabb.min.x, o.x, columns),
                cell(aabb.max.x, o.x, columns),
            ],
            [cell(aabb.min.y, o.y, rows), cell(aabb.max.y, o.y, rows)],
        )
    }

    fn for_each_cell(&self, aabb: &Aabb2d, mut visit: impl FnMut(usize)) {
        let ([x0, x1], [y0, y1]) = self.cell_ranges(aabb);
        for y in y0..=y1 {
            for x in x0..=x1 {
                visit((y * self.columns + x) as usize);
            }
        }
    }

    /// Starts loading what [`Self::visit_overlapping`] will read for
    /// `query`, one level of it per `stage` (0: the cells' starts, 1: their
    /// entries, 2: the overlapping parts, through `part`), so that a caller
    /// asking for queries ahead, each stage a few queries after the last,
    /// finds them in cache: a big compound's lookups are otherwise one
    /// cache miss after another.
    pub(crate) fn prefetch(&self, query: &Aabb2d, stage: u8, part: impl Fn(usize)) {
        if query.min.is_nan() || query.max.is_nan() {
            return;
        }
        let ([qx0, qx1], [qy0, qy1]) = self.cell_ranges(query);
        for y in qy0..=qy1 {
            let (first, last) = (
                (y * self.columns + qx0) as usize,
                (y * self.columns + qx1) as usize,
            );
            match stage {
                0 => prefetch(&self.starts[first..=last + 1]),
                1 => prefetch(
                    &self.entries[self.starts[first] as usize..self.starts[last + 1] as usize],
                ),
                _ => (self.entries[self.starts[first] as usize..self.starts[last + 1] as usize])
                    .iter()
                    .filter(|entry| overlap(&entry.aabb, query))
                    .for_each(|entry| part(entry.part as usize)),
            }
        }
    }

    /// Calls `visit` once with each part whose box overlaps `query`.
    pub(crate) fn visit_overlapping(&self, query: &Aabb2d, mut visit: impl FnMut(usize)) {
        let outside = query.max.cmplt(self.origin).any()
            || (query.min - self.origin)
                .cmpgt(Vec2::new(self.columns as f32, self.rows as f32) * self.cell)
                .any();
        if outside || query.min.is_nan() || query.max.is_nan() {
            return;
        }
        let ([qx0, qx1], [qy0, qy1]) = self.cell_ranges(query);
        for y in qy0..=qy1 {
            for x in qx0..=qx1 {
                let c = (y * self.columns + x) as usize;
                let cell = &self.entries[self.starts[c] as usize..self.starts[c + 1] as usize];
                for entry in cell {
                    if !overlap(&entry.aabb, query) {
                        continue;
                    }
                    let [px0, py0] = entry.first_cell;
                    if x == px0.max(qx0) && y == py0.max(qy0) {
                        visit(entry.part as usize);
                    }
                }
            }
        }
    }
}

/// A cell about the size of a typical part, and no smaller than makes
/// [`CELLS_PER_PART`] cells per part over `span`.
fn cell_size(boxes: &[Aabb2d], span: Vec2) -> f32 {
    let mut sizes: Vec<f32> = (boxes.iter())
        .map(|b| (b.max - b.min).max_element())
        .collect();
    let middle = sizes.len() / 2;
    let (_, &mut typical, _) = sizes.select_nth_unstable_by(middle, f32::total_cmp);
    let cells = (CELLS_PER_PART * boxes.len()) as f32;
    // Large enough that (span.x / cell + 1) * (span.y / cell + 1) stays
    // within a few times `cells`, for a flat span too.
    let fewest = (span.x * span.y / cells)
        .sqrt()
        .max((span.x + span.y) / cells);
    let cell = typical.max(fewest);
    if cell > 0.0 && cell.is_finite() {
        cell
    } else {
        1.0
    }
}

fn overlap(a: &Aabb2d, b: &Aabb2d) -> bool {
    a.min.cmple(b.max).all() && b.min.cmple(a.max).all()
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::*;

    /// The grid visits exactly the parts whose boxes overlap the query, each
    /// once: tile-like rows of boxes, long runs and scattered ones.
    #[test]
    fn visits_what_brute_force_finds() {
        let mut rng = StdRng::seed_from_u64(5);
        for world in 0..40 {
            let count = rng.random_range(17..600);
            let boxes: Vec<Aabb2d> = (0..count)
                .map(|_| {
                    let min = Vec2::new(
                        rng.random_range(-500.0..500.0),
                        rng.random_range(-200.0..200.0),
                    );
                    let size = match world % 3 {
                        0 => Vec2::splat(8.0),
                        1 => Vec2::new(rng.random_range(8.0..400.0), 8.0),
                        _ => Vec2::new(rng.random_range(0.0..50.0), rng.random_range(0.0..50.0)),
                    };
                    Aabb2d {
                        min,
                        max: min + size,
                    }
                })
                .collect();
            let grid = PartGrid::new(boxes.iter().copied()).unwrap();
            for _ in 0..200 {
                let min = Vec2::new(
                    rng.random_range(-700.0..700.0),
                    rng.random_range(-300.0..300.0),
                );
                let query = Aabb2d {
                    min,
                    max: min
                        + Vec2::new(rng.random_range(0.0..120.0), rng.random_range(0.0..120.0)),
                };
                let mut found = Vec::new();
                grid.visit_overlapping(&query, |part| found.push(part));
                found.sort_unstable();
                let expected: Vec<usize> = (0..boxes.len())
                    .filter(|&i| overlap(&boxes[i], &query))
                    .collect();
                assert_eq!(found, expected, "world {world}, {query:?}");
            }
        }
    }

    #[test]
    fn few_or_unbounded_parts_make_no_grid() {
        let unit = Aabb2d {
            min: Vec2::ZERO,
            max: Vec2::ONE,
        };
        assert!(PartGrid::new(vec![unit; MIN_PARTS].into_iter()).is_none());
        let mut boxes = vec![unit; 40];
        boxes[3].max.x = f32::INFINITY;
        assert!(PartGrid::new(boxes.into_iter()).is_none());
        assert!(
            PartGrid::new(vec![unit; 40].into_iter()).is_some(),
            "all in one place"
        );
    }
}
