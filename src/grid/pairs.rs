//! The pair scans of a level: each filed box against its own cell and four
//! neighbours, and the oversized boxes against the filed ones.

use bevy::math::IVec2;
use bevy::shape::Aabb2d;
use std::ops::Range;

use super::cells::{OverlapTest, dense_row_length};
use super::level::Level;

impl Level {
    /// Pairs among the filed boxes whose min corner is in `rows`: each box
    /// with the later boxes of its own cell and with the boxes of the
    /// neighbouring cells at (+1, -1), (+1, 0), (+1, +1) and (0, +1); the
    /// other four neighbours meet it from their side.
    ///
    /// With row-major keys a key run is exactly one cell, the (+1, 0) run
    /// follows the cell's own, the (+1, +1) run follows the (0, +1) one, and
    /// the empty frame around the filed cells (see [`key_of`](super::cells::key_of)) gives every
    /// neighbour of a filed cell a key.
    ///
    /// Appends the pairs to `found` as `(a, b)` sorted positions, `a < b`.
    /// Every test writes its pair and only a hit moves past it: about one
    /// test in eight hits, and a branch on each result was mispredicted
    /// often enough to cost more than the tests.
    pub(super) fn dense_pairs_within(&self, rows: Range<usize>, found: &mut Vec<(u32, u32)>) {
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
    pub(super) fn keep_accepted(
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
    pub(super) fn hashed_pairs_within(&self, report: &mut impl FnMut(u32, u32)) {
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
            // A box filed at (+1, _) or (_, +1) has its min corner in that
            // column or row: only a box reaching into it can meet it, and
            // most boxes of a sparse world reach no neighbour, whose lookup
            // (a hash and a cache miss) is then saved.
            let reach = self.to_cell(boxes[a].max()).cmpgt(cell);
            for offset in FORWARD {
                if (offset.x == 0 || reach.x) && (offset.y <= 0 || reach.y) {
                    scan(a, cell + offset, self.run(cell + offset));
                }
            }
        }
    }

    /// Pairs of each oversized box with the filed boxes.
    pub(super) fn pairs_with_oversized(&self, aabbs: &[Aabb2d], report: &mut impl FnMut(u32, u32)) {
        for &big in &self.oversized {
            self.visit_filed_overlapping(&aabbs[big as usize], |b| {
                report(big, self.sorted_index[b]);
            });
        }
    }
}
