//! Walks through a level: the filed boxes overlapping a region, and those
//! met by a box moving along a path (ray and shape casts).

use bevy::math::{IVec2, Vec2};
use bevy::shape::Aabb2d;

use super::cells::{FiledBox, Keying, OverlapTest, key_of};
use super::level::Level;
use crate::util::prefetch::prefetch;

/// A walk along a path looks at pieces of this many cells at a time: longer
/// pieces look at more cells beside a diagonal path, shorter ones at the same
/// cells again from the next piece.
pub(super) const CELLS_PER_PIECE: f32 = 2.0;

/// Lookups covering more cells than this are not prefetched: they read
/// long runs in order, and asking for every one would only crowd the cache.
const MAX_PREFETCHED_CELLS: i64 = 16;

impl Level {
    /// The cells to look in for boxes overlapping `query`: those it covers
    /// and one below and left of them (a box is filed by its min corner),
    /// clipped to the filed cells of a dense grid. `None` when no filed box
    /// can overlap it, `Some(None)` when those cells outnumber the filed
    /// boxes, which are then scanned instead.
    #[inline]
    fn query_cells(&self, query: &Aabb2d) -> Option<Option<(IVec2, IVec2)>> {
        let filed = self.sorted_index.len();
        if filed == 0 {
            return None;
        }
        let (mut min, mut max) = (self.to_cell(query.min) - 1, self.to_cell(query.max));
        if let Keying::Dense = self.keying {
            // Cells outside the filed range hold nothing.
            let last = self.origin + (self.span - 1).as_ivec2();
            (min, max) = (min.max(self.origin), max.min(last));
            if min.cmpgt(max).any() {
                return None;
            }
        }
        let covered = (max - min).as_i64vec2() + 1;
        Some((covered.x * covered.y < filed as i64).then_some((min, max)))
    }

    /// Calls `visit` with the sorted position of every filed box that
    /// overlaps `query`, each once.
    #[inline]
    pub(super) fn visit_filed_overlapping(&self, query: &Aabb2d, mut visit: impl FnMut(usize)) {
        let Some(cells) = self.query_cells(query) else {
            return;
        };
        let query = OverlapTest::of_aabb(query);
        // The box test inlined at each of the three walks below; `visit`,
        // which may be a whole shape test, called only for boxes that pass
        // (a closure doing both was made one out-of-line call per box).
        #[inline(always)]
        fn test(query: &OverlapTest, boxes: &[FiledBox], b: usize, visit: &mut impl FnMut(usize)) {
            if query.overlaps(&boxes[b]) {
                visit(b);
            }
        }
        let boxes = &self.sorted_box[..];
        let Some((min, max)) = cells else {
            (0..self.sorted_index.len()).for_each(|b| test(&query, boxes, b, &mut visit));
            return;
        };
        if let Keying::Dense = self.keying {
            // A row of dense cells is one run of keys, so one range of boxes.
            self.for_each_dense_row(min, max, |first, last| {
                let (start, end) = (self.key_starts[first], self.key_starts[last + 1]);
                (start as usize..end as usize).for_each(|b| test(&query, boxes, b, &mut visit));
            });
            return;
        }
        for y in min.y..=max.y {
            for x in min.x..=max.x {
                let cell = IVec2::new(x, y);
                for b in self.run(cell) {
                    if self.holds(b, cell) {
                        test(&query, boxes, b, &mut visit);
                    }
                }
            }
        }
    }

    /// Calls `row` with the first and last key of each row of a dense
    /// grid's cells from `min` to `max` (clipped to the filed cells).
    #[inline]
    fn for_each_dense_row(&self, min: IVec2, max: IVec2, mut row: impl FnMut(usize, usize)) {
        let key = |cell| key_of(self.keying, cell, self.origin, self.span).map(|key| key as usize);
        for y in min.y..=max.y {
            if let (Some(first), Some(last)) =
                (key(IVec2::new(min.x, y)), key(IVec2::new(max.x, y)))
            {
                row(first, last);
            }
        }
    }

    /// The first step of [`Self::visit_filed_overlapping`] for `query`,
    /// started early: asks for where its cells' runs start.
    #[inline]
    pub(super) fn prefetch_runs(&self, query: &Aabb2d) {
        self.for_each_prefetched_row(query, |first, last| {
            prefetch(&self.key_starts[first]);
            prefetch(&self.key_starts[last + 1]);
        });
    }

    /// The second step, once the runs are in cache: asks for the boxes of
    /// `query`'s cells and their indices.
    #[inline]
    pub(super) fn prefetch_boxes(&self, query: &Aabb2d) {
        self.for_each_prefetched_row(query, |first, last| {
            let (start, end) = (self.key_starts[first], self.key_starts[last + 1]);
            if start < end {
                let (start, last) = (start as usize, end as usize - 1);
                prefetch(&self.sorted_box[start]);
                prefetch(&self.sorted_box[last]);
                prefetch(&self.sorted_index[start]);
                prefetch(&self.sorted_index[last]);
            }
        });
    }

    /// Calls `row` with the first and last key of each row of cells a
    /// lookup of `query` reads, when there are few (a dense grid's row is
    /// one range of keys; a hashed grid's cells are each a row).
    #[inline]
    fn for_each_prefetched_row(&self, query: &Aabb2d, mut row: impl FnMut(usize, usize)) {
        let Some(Some((min, max))) = self.query_cells(query) else {
            return;
        };
        let covered = (max - min).as_i64vec2() + 1;
        if covered.x * covered.y > MAX_PREFETCHED_CELLS {
            return;
        }
        if let Keying::Dense = self.keying {
            self.for_each_dense_row(min, max, row);
            return;
        }
        let key = |cell| key_of(self.keying, cell, self.origin, self.span).map(|key| key as usize);
        for y in min.y..=max.y {
            for x in min.x..=max.x {
                if let Some(key) = key(IVec2::new(x, y)) {
                    row(key, key);
                }
            }
        }
    }

    /// Calls `visit` with every filed box that `start`, moved by
    /// `direction * t` for `t` up to `limit`, may meet, roughly nearest
    /// first, by sorted position; `visit` lowers `limit` when it finds a hit.
    pub(super) fn visit_along(
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
pub(super) const PATH_SLACK: f32 = 16.0 * f32::EPSILON;

/// The box covered by `start` moved by `direction * t` for `t` in
/// `from..=to`, widened to cover the rounding of those positions.
pub(super) fn swept_box(start: &Aabb2d, direction: Vec2, from: f32, to: f32) -> Aabb2d {
    let (a, b) = (direction * from, direction * to);
    let slack = path_slack(start, from.abs().max(to.abs()));
    Aabb2d {
        min: start.min + a.min(b) - slack,
        max: start.max + a.max(b) + slack,
    }
}

/// How much to widen the box covered by `start` moved by up to `distance`.
pub(super) fn path_slack(start: &Aabb2d, distance: f32) -> f32 {
    (start.min.abs().max(start.max.abs()).max_element() + distance) * PATH_SLACK
}

/// The range of `t` in `0..=limit` for which `start` moved by
/// `direction * t` overlaps `bounds` (widened for rounding), or `None`.
pub(super) fn path_within(
    start: &Aabb2d,
    direction: Vec2,
    bounds: &Aabb2d,
    limit: f32,
) -> Option<(f32, f32)> {
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
