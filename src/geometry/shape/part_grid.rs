//! A uniform grid over a compound's parts in its own frame, built once with
//! the compound, so that a test against a compound of thousands of parts (a
//! tile map) looks only at the parts near the other shape.

use bevy::math::Vec2;
use bevy::shape::{Aabb2d, BoundingVolume};

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

impl PartGrid {
    /// Calls `test` with each part whose box the ray from `origin` along
    /// the unit `direction` (in the compound's frame) passes through within
    /// `max_distance`, cell by cell along the ray (Amanatides and Woo's
    /// walk), until a hit `test` reports lies before the cell the walk
    /// would look in next: a ray across a map of thousands of parts looks
    /// at the few along it, and stops at the first wall. `test` returns the
    /// distance of its hit, if any. A part in several cells may be asked
    /// more than once.
    pub(crate) fn visit_along_ray(
        &self,
        origin: Vec2,
        direction: Vec2,
        max_distance: f32,
        test: impl FnMut(usize) -> Option<f32>,
    ) {
        let mut nearest = NearestHit {
            best: f32::INFINITY,
            test,
        };
        self.walk_ray(origin, direction, max_distance, &mut nearest);
    }

    /// The walk of [`Self::visit_along_ray`], asking `walk` which parts are
    /// still wanted and when to stop.
    pub(crate) fn walk_ray<W: RayWalk>(
        &self,
        origin: Vec2,
        direction: Vec2,
        max_distance: f32,
        walk: &mut W,
    ) {
        let size = Vec2::new(self.columns as f32, self.rows as f32) * self.cell;
        let bounds = Aabb2d {
            min: self.origin,
            max: self.origin + size,
        };
        let Some((enter, exit)) = ray_box(origin, direction, &bounds, max_distance) else {
            return;
        };
        // Rounding of positions along the ray, relative to the coordinates.
        let slack = (origin.abs().max_element() + exit.min(size.max_element() * 2.0) + 1.0)
            * (64.0 * f32::EPSILON);
        let at = (origin + direction * enter - self.origin) / self.cell;
        let last = [self.columns - 1, self.rows - 1];
        let mut cell = [0, 1].map(|axis| (at[axis].max(0.0) as u32).min(last[axis]));
        let step = [0, 1].map(|axis| direction[axis].signum() as i64);
        // The distance along the ray to where it leaves `cell` across
        // `axis` (worked out from the cell, not summed, so that a long ray
        // does not drift off the grid).
        let leaves = |cell: [u32; 2], axis: usize| {
            let boundary = match step[axis] {
                1 => cell[axis] + 1,
                _ => cell[axis],
            };
            let edge = self.origin[axis] + boundary as f32 * self.cell;
            if direction[axis] == 0.0 {
                f32::INFINITY
            } else {
                (edge - origin[axis]) / direction[axis]
            }
        };
        let mut ray = RayCells {
            origin,
            direction,
            exit,
            slack,
            recent: [u32::MAX; 4],
        };
        loop {
            self.visit_ray_cell(&mut ray, cell, walk);
            let next = [leaves(cell, 0), leaves(cell, 1)];
            let axis = usize::from(next[1] < next[0]);
            let leave = next[axis];
            if leave > exit || walk.reach() <= leave - slack {
                return;
            }
            // A ray through a corner, within rounding, also looks in the
            // cell beside the one it steps into.
            let other = 1 - axis;
            if next[other] <= leave + slack {
                let beside = step_cell(cell, other, step[other], last);
                if let Some(beside) = beside {
                    self.visit_ray_cell(&mut ray, beside, walk);
                }
            }
            match step_cell(cell, axis, step[axis], last) {
                Some(stepped) => cell = stepped,
                None => return,
            }
        }
    }

    /// Asks `walk` about each part listed in `cell` whose box the ray
    /// passes through within what is still wanted, once for a part over
    /// consecutive cells ([`Self::walk_ray`]).
    #[inline(always)]
    fn visit_ray_cell<W: RayWalk>(&self, ray: &mut RayCells, [x, y]: [u32; 2], walk: &mut W) {
        let c = (y * self.columns + x) as usize;
        let entries = &self.entries[self.starts[c] as usize..self.starts[c + 1] as usize];
        for entry in entries {
            // Already asked (a part over consecutive cells), or beside
            // the ray, or beyond what is still wanted.
            if ray.recent.contains(&entry.part) {
                continue;
            }
            let reach = walk.part_reach().min(ray.exit) + ray.slack;
            if ray_box(
                ray.origin,
                ray.direction,
                &entry.aabb.grow(Vec2::splat(ray.slack)),
                reach,
            )
            .is_none()
            {
                continue;
            }
            ray.recent.rotate_right(1);
            ray.recent[0] = entry.part;
            walk.test(entry.part as usize);
        }
    }
}

/// One walk along a ray through a [`PartGrid`] ([`PartGrid::walk_ray`]):
/// the ray, where it leaves the grid, the rounding slack, and the parts
/// asked last.
struct RayCells {
    origin: Vec2,
    direction: Vec2,
    exit: f32,
    slack: f32,
    recent: [u32; 4],
}

/// What a walk along a ray through a [`PartGrid`] asks its caller.
pub(crate) trait RayWalk {
    /// Tests part `part`, whose box the ray passes through.
    fn test(&mut self, part: usize);

    /// How far along the ray anything is still wanted: the walk stops
    /// before a cell that starts beyond it.
    fn reach(&self) -> f32;

    /// How far along the ray a part must start to be tested (default:
    /// [`Self::reach`]).
    fn part_reach(&self) -> f32 {
        self.reach()
    }
}

/// The nearest hit: parts beyond it are not wanted.
struct NearestHit<F> {
    best: f32,
    test: F,
}

impl<F: FnMut(usize) -> Option<f32>> RayWalk for NearestHit<F> {
    fn test(&mut self, part: usize) {
        if let Some(distance) = (self.test)(part) {
            self.best = self.best.min(distance);
        }
    }

    fn reach(&self) -> f32 {
        self.best
    }
}

/// `cell` moved by `step` (-1 or 1) along `axis`, if still in the grid.
fn step_cell(mut cell: [u32; 2], axis: usize, step: i64, last: [u32; 2]) -> Option<[u32; 2]> {
    let moved = cell[axis] as i64 + step;
    if moved < 0 || moved > last[axis] as i64 {
        return None;
    }
    cell[axis] = moved as u32;
    Some(cell)
}

/// Where the ray from `origin` along `direction`, within `max_distance`,
/// is inside `aabb`: its entry and exit distances (slab test), or `None`.
fn ray_box(origin: Vec2, direction: Vec2, aabb: &Aabb2d, max_distance: f32) -> Option<(f32, f32)> {
    let (mut enter, mut exit) = (0.0f32, max_distance);
    for axis in 0..2 {
        let (o, d) = (origin[axis], direction[axis]);
        let (lo, hi) = (aabb.min[axis], aabb.max[axis]);
        if d == 0.0 {
            if o < lo || o > hi {
                return None;
            }
            continue;
        }
        let (a, b) = ((lo - o) / d, (hi - o) / d);
        enter = enter.max(a.min(b));
        exit = exit.min(a.max(b));
    }
    (enter <= exit).then_some((enter, exit))
}

/// A cell about twice the size of a typical part, and no smaller than
/// makes [`CELLS_PER_PART`] cells per part over `span`: a box looked up
/// spans fewer rows of cells, each row a cache miss in a big compound, and
/// a cell's few more parts are read in sequence.
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
    let cell = (2.0 * typical).max(fewest);
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
    fn a_ray_walk_finds_the_nearest_box_it_crosses() {
        let mut rng = StdRng::seed_from_u64(4703);
        for case in 0..400 {
            let boxes: Vec<Aabb2d> = (0..rng.random_range(20..300))
                .map(|_| {
                    let centre =
                        Vec2::new(rng.random_range(-50.0..50.0), rng.random_range(-50.0..50.0));
                    let half = Vec2::new(rng.random_range(0.2..6.0), rng.random_range(0.2..6.0));
                    Aabb2d::new(centre, half)
                })
                .collect();
            let grid = PartGrid::new(boxes.iter().copied()).unwrap();
            let origin = Vec2::new(rng.random_range(-80.0..80.0), rng.random_range(-80.0..80.0));
            let direction = match case % 7 {
                // Along an axis, and exactly diagonal: through cell corners.
                0 => Vec2::X,
                1 => Vec2::NEG_Y,
                2 => Vec2::new(1.0, 1.0).normalize(),
                _ => Vec2::from_angle(rng.random_range(0.0..6.3)),
            };
            let max_distance = if case % 3 == 0 {
                f32::INFINITY
            } else {
                rng.random_range(0.0..150.0)
            };
            // Each box is hit where the ray enters it.
            let entry = |b: &Aabb2d| ray_box(origin, direction, b, max_distance).map(|(t, _)| t);
            let expected = boxes.iter().filter_map(entry).fold(f32::INFINITY, f32::min);
            let mut found = f32::INFINITY;
            grid.visit_along_ray(origin, direction, max_distance, |i| {
                let hit = entry(&boxes[i]);
                found = found.min(hit.unwrap_or(f32::INFINITY));
                hit
            });
            assert_eq!(
                found, expected,
                "case {case}: {origin} {direction} {max_distance}"
            );
            // Without hits, every box the ray crosses is asked about.
            let mut asked = vec![false; boxes.len()];
            grid.visit_along_ray(origin, direction, max_distance, |i| {
                asked[i] = true;
                None
            });
            for (i, b) in boxes.iter().enumerate() {
                if entry(b).is_some() {
                    assert!(asked[i], "case {case}: box {i} {b:?} crossed, not asked");
                }
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
