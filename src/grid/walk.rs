//! Walks through a level: the filed boxes overlapping a region, and those
//! met by a box moving along a path (ray and shape casts).

use std::ops::ControlFlow;

use bevy::math::{IVec2, Vec2};
use bevy::shape::Aabb2d;

use super::cells::{FiledBox, Keying, OverlapTest, key_of};
use super::level::Level;
use crate::util::prefetch::prefetch;

/// Paths up to this many cells long are walked as one lookup of the box
/// they sweep.
const SHORT_PATH_CELLS: f32 = 2.0;

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
        let (min, max) = self.cells_to_look_in(query)?;
        let covered = (max - min).as_i64vec2() + 1;
        Some((covered.x * covered.y < filed as i64).then_some((min, max)))
    }

    /// The lowest and highest cell whose filed boxes may overlap `query`,
    /// clipped to the filed cells of a dense grid (`None` if none is left).
    #[inline]
    fn cells_to_look_in(&self, query: &Aabb2d) -> Option<(IVec2, IVec2)> {
        let (mut min, mut max) = (self.to_cell(query.min) - 1, self.to_cell(query.max));
        if let Keying::Dense = self.keying {
            // Cells outside the filed range hold nothing.
            let last = self.origin + (self.span - 1).as_ivec2();
            (min, max) = (min.max(self.origin), max.min(last));
            if min.cmpgt(max).any() {
                return None;
            }
        }
        Some((min, max))
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
    /// `direction * t` for `t` up to `limit`, may meet, by sorted position,
    /// each once, nearest rows first; `visit` lowers `limit` when it finds a
    /// hit.
    ///
    /// A box filed in row `y` lies within rows `y..y + 2`, so the moving box
    /// can meet it only while it overlaps that band. The walk goes row by
    /// row along the path, and tests the boxes of each row's cells that the
    /// moving box covers over its band against the box it covers there:
    /// each cell is looked at once, and a dense grid's row is one run.
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
        let whole = swept_box(start, direction, first, last);
        // A short path (most shape casts of a character) is one lookup of
        // the box it sweeps: rows cost more than they save there.
        if last - first <= SHORT_PATH_CELLS * self.cell_size {
            self.visit_filed_overlapping(&whole, |b| visit(b, limit));
            return;
        }
        let slack = path_slack(start, last);
        // Unless that looks at more cells than there are boxes: about the
        // cells along the path times those across it.
        let size = (start.max - start.min).max_element() + 2.0 * slack;
        let along = (last - first) * (direction.x.abs() + direction.y.abs());
        let cells = (along * self.inverse_cell_size + 2.0) * (size * self.inverse_cell_size + 3.0);
        if cells >= filed as f32 {
            let whole = OverlapTest::of_aabb(&whole);
            for b in 0..filed {
                if whole.overlaps(&self.sorted_box[b]) {
                    visit(b, limit);
                }
            }
            return;
        }
        let margin = slack + whole.min.abs().max(whole.max.abs()).max_element() * PATH_SLACK;
        let path = LongPath {
            start,
            direction,
            first,
            last,
            margin,
        };
        self.visit_rows_along(&path, &whole, limit, visit);
    }

    /// [`Self::visit_along`] for a long path: row by row, nearest first,
    /// each row's cells looked up against the box the moving box sweeps
    /// over that row's band, stopping once boxes lie beyond `limit`.
    #[inline]
    fn visit_rows_along(
        &self,
        path: &LongPath<'_>,
        whole: &Aabb2d,
        limit: &mut f32,
        mut visit: impl FnMut(usize, &mut f32),
    ) {
        let Some((min, max)) = self.cells_to_look_in(whole) else {
            return;
        };
        let (start, direction) = (path.start, path.direction);
        for y in in_order(min.y, max.y, direction.y) {
            let Some((from, to)) = self.row_band(path, y) else {
                continue;
            };
            if from > *limit {
                break;
            }
            // The moving box over this band, and the cells of the row it
            // covers.
            let covered = swept_box(start, direction, from, to);
            let (lo, hi) = (self.to_cell(covered.min).x - 1, self.to_cell(covered.max).x);
            let (lo, hi) = (lo.max(min.x), hi.min(max.x));
            if lo > hi {
                continue;
            }
            let row = OverlapTest::of_aabb(&covered);
            if let Keying::Dense = self.keying {
                // A row of dense cells is one run of keys.
                let (first_cell, last_cell) = (IVec2::new(lo, y), IVec2::new(hi, y));
                if let (Some(first_key), Some(last_key)) = (
                    key_of(self.keying, first_cell, self.origin, self.span),
                    key_of(self.keying, last_cell, self.origin, self.span),
                ) {
                    let start = self.key_starts[first_key as usize] as usize;
                    let end = self.key_starts[last_key as usize + 1] as usize;
                    let _ = self.visit_run_along(path, &row, start..end, None, limit, &mut visit);
                }
                continue;
            }
            for x in in_order(lo, hi, direction.x) {
                let cell = IVec2::new(x, y);
                let run = self.run(cell);
                if self
                    .visit_run_along(path, &row, run, Some(cell), limit, &mut visit)
                    .is_break()
                {
                    break;
                }
            }
        }
    }

    /// The `t` (within `first..=last`) at which the moving box overlaps
    /// the band of rows where boxes filed in row `y` lie, widened by
    /// `margin` for rounding.
    #[inline]
    fn row_band(&self, path: &LongPath<'_>, y: i32) -> Option<(f32, f32)> {
        let LongPath {
            start,
            direction,
            first,
            last,
            margin,
        } = *path;
        let (lo, hi) = (y as f32 * self.cell_size, (y + 2) as f32 * self.cell_size);
        let (below, above) = (lo - margin - start.max.y, hi + margin - start.min.y);
        let (enter, exit) = if direction.y == 0.0 {
            if !(below <= 0.0 && 0.0 <= above) {
                return None;
            }
            (first, last)
        } else {
            let (a, b) = (below / direction.y, above / direction.y);
            let (enter, exit) = if a <= b { (a, b) } else { (b, a) };
            (enter.max(first), exit.min(last))
        };
        (enter <= exit).then_some((enter, exit))
    }

    /// The boxes of one run of a row (a cell's, or a dense row's), nearest
    /// first along the row too: a row's boxes are in cell order, so once one
    /// lies beyond where the moving box can be by `limit`, by more than the
    /// later cells' boxes can lie back from it (their min corners at most a
    /// cell below its min, their max corners at most two cells above its
    /// max), so do the rest, and the walk of the row breaks.
    #[inline]
    fn visit_run_along(
        &self,
        path: &LongPath<'_>,
        row: &OverlapTest,
        boxes: std::ops::Range<usize>,
        cell: Option<IVec2>,
        limit: &mut f32,
        visit: &mut impl FnMut(usize, &mut f32),
    ) -> ControlFlow<()> {
        let (start, direction, margin) = (path.start, path.direction, path.margin);
        let beyond = |b: &FiledBox, limit: f32| {
            if direction.x >= 0.0 {
                b.min().x - self.cell_size - margin > start.max.x + direction.x * limit
            } else {
                b.max().x + 2.0 * self.cell_size + margin < start.min.x + direction.x * limit
            }
        };
        let mut test_box = |b: usize| {
            // A hashed cell's run also holds other cells' boxes.
            if cell.is_some_and(|cell| !self.holds(b, cell)) {
                return ControlFlow::Continue(());
            }
            let filed = &self.sorted_box[b];
            if beyond(filed, *limit) {
                return ControlFlow::Break(());
            }
            if row.overlaps(filed) {
                visit(b, limit);
            }
            ControlFlow::Continue(())
        };
        if direction.x >= 0.0 {
            boxes.into_iter().try_for_each(&mut test_box)
        } else {
            boxes.rev().try_for_each(&mut test_box)
        }
    }
}

/// A long path walked row by row: the moving box, its direction, the part
/// `first..=last` of the path where it can meet filed boxes, and the margin
/// for rounding.
#[derive(Clone, Copy)]
struct LongPath<'a> {
    start: &'a Aabb2d,
    direction: Vec2,
    first: f32,
    last: f32,
    margin: f32,
}

/// The cells from `lo` to `hi` (none if `hi < lo`), in the order a path
/// going along `step` meets them.
#[inline]
fn in_order(lo: i32, hi: i32, step: f32) -> impl Iterator<Item = i32> {
    let forward = step >= 0.0;
    (0..=hi - lo).map(move |k| if forward { lo + k } else { hi - k })
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
