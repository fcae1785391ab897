//! The floor of the game scene's queries (`--scene game --floor`): the same
//! 2,000 rays (all hits) and 500 ground projections, on the poses ours
//! has after its step, done the fastest way known for this world, on one
//! thread, without the ECS:
//!
//! - the tile map as a byte per tile, walked tile by tile along a ray
//!   (Amanatides and Woo): the first tile of a kind met is that kind's hit
//!   (the map's tiles are whole squares), with no part, box or shape test;
//! - the hills' segments in a uniform grid built once, walked the same way;
//! - the characters and enemies in a uniform grid rebuilt every frame (its
//!   build is timed), walked the same way, a box test and then the
//!   library's exact ray test per mover met;
//! - a point's nearest ground by rings of tiles and of hill cells around
//!   it, stopping when a ring cannot hold anything nearer.
//!
//! Bullets, which no query sees, are left out of the grid altogether (less
//! than any engine does, since they are filtered by layer). No filter,
//! entity or sort of anything but each ray's few hits. The answers are
//! compared with ours', so the floor does the same work.

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::shape::Aabb2d;
use bevy_collide2d::Collider;
use bevy_collide2d::geometry::Shape;

use super::{Actor, GameScene};
use crate::queries::{Answers, Batch};

const EMPTY: u8 = 0;
const GROUND: u8 = 1;
const SPIKE: u8 = 2;
/// The side of the movers' and the hills' grid cells.
const CELL: f32 = 32.0;
/// A point's distance or a ray's hit counts as the same as ours' within this.
const TOLERANCE: f32 = 1e-2;

/// A uniform grid of items by box, stored row by row (CSR).
#[derive(Default)]
struct UniformGrid {
    origin: Vec2,
    columns: u32,
    rows: u32,
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl UniformGrid {
    fn build(&mut self, origin: Vec2, size: Vec2, boxes: &[Aabb2d]) {
        self.origin = origin;
        self.columns = (size.x / CELL).ceil().max(1.0) as u32;
        self.rows = (size.y / CELL).ceil().max(1.0) as u32;
        let cells = (self.columns * self.rows) as usize;
        self.starts.clear();
        self.starts.resize(cells + 1, 0);
        for b in boxes {
            let ([x0, y0], [x1, y1]) = self.cell_range(b);
            for y in y0..=y1 {
                for x in x0..=x1 {
                    self.starts[(y * self.columns + x) as usize + 1] += 1;
                }
            }
        }
        for c in 0..cells {
            self.starts[c + 1] += self.starts[c];
        }
        self.items.clear();
        self.items.resize(self.starts[cells] as usize, 0);
        let mut next = self.starts[..cells].to_vec();
        for (i, b) in boxes.iter().enumerate() {
            let ([x0, y0], [x1, y1]) = self.cell_range(b);
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let c = (y * self.columns + x) as usize;
                    self.items[next[c] as usize] = i as u32;
                    next[c] += 1;
                }
            }
        }
    }

    fn cell_of(&self, p: Vec2) -> [u32; 2] {
        let at = (p - self.origin) / CELL;
        [
            (at.x.max(0.0) as u32).min(self.columns - 1),
            (at.y.max(0.0) as u32).min(self.rows - 1),
        ]
    }

    fn cell_range(&self, b: &Aabb2d) -> ([u32; 2], [u32; 2]) {
        (self.cell_of(b.min), self.cell_of(b.max))
    }

    fn cell(&self, [x, y]: [u32; 2]) -> &[u32] {
        let c = (y * self.columns + x) as usize;
        &self.items[self.starts[c] as usize..self.starts[c + 1] as usize]
    }
}

/// Walks the cells of a grid of `dims` cells of side `side` from `origin`
/// along the ray (Amanatides and Woo), calling `visit(cell, enter)` with
/// the distance at which the ray enters the cell, until it returns `false`
/// or the ray ends.
fn walk_cells(
    grid_origin: Vec2,
    side: f32,
    dims: [u32; 2],
    ray: (Vec2, Vec2, f32),
    mut visit: impl FnMut([u32; 2], f32) -> bool,
) {
    let (origin, direction, length) = ray;
    let bounds = Aabb2d {
        min: grid_origin,
        max: grid_origin + Vec2::new(dims[0] as f32, dims[1] as f32) * side,
    };
    let Some((enter, exit)) = slab(origin, direction, &bounds, length) else {
        return;
    };
    let at = (origin + direction * enter - grid_origin) / side;
    let mut cell = [0, 1].map(|a| (at[a].max(0.0) as u32).min(dims[a] - 1));
    let step = [0, 1].map(|a| if direction[a] < 0.0 { -1i64 } else { 1 });
    // Where the ray leaves the first cell across each axis, then one cell
    // further each time (additions only).
    let mut leaves = [0, 1].map(|a| {
        if direction[a] == 0.0 {
            return f32::INFINITY;
        }
        let boundary = cell[a] as i64 + i64::from(step[a] > 0);
        (grid_origin[a] + boundary as f32 * side - origin[a]) / direction[a]
    });
    let delta = [0, 1].map(|a| side / direction[a].abs());
    let mut t = enter;
    loop {
        if !visit(cell, t) {
            return;
        }
        let a = usize::from(leaves[1] < leaves[0]);
        t = leaves[a];
        let moved = cell[a] as i64 + step[a];
        if t > exit || moved < 0 || moved >= dims[a] as i64 {
            return;
        }
        cell[a] = moved as u32;
        leaves[a] += delta[a];
    }
}

/// Where a ray enters and leaves a box within `length`.
fn slab(origin: Vec2, direction: Vec2, b: &Aabb2d, length: f32) -> Option<(f32, f32)> {
    let inverse = direction.recip();
    let t1 = (b.min - origin) * inverse;
    let t2 = (b.max - origin) * inverse;
    let enter = t1.min(t2).max_element().max(0.0);
    let exit = t1.max(t2).min_element().min(length);
    (enter <= exit).then_some((enter, exit))
}

fn ray_segment(origin: Vec2, direction: Vec2, length: f32, a: Vec2, b: Vec2) -> Option<f32> {
    let edge = b - a;
    let denominator = direction.perp_dot(edge);
    if denominator == 0.0 {
        return None;
    }
    let to_a = a - origin;
    let t = to_a.perp_dot(edge) / denominator;
    let s = to_a.perp_dot(direction) / denominator;
    ((0.0..=length).contains(&t) && (0.0..=1.0).contains(&s)).then_some(t)
}

fn point_segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let edge = b - a;
    let s = ((p - a).dot(edge) / edge.length_squared()).clamp(0.0, 1.0);
    p.distance(a + edge * s)
}

/// The game's queries done the fastest known way, with its timings.
pub struct GameFloor {
    tiles: Vec<u8>,
    size: u32,
    tile: f32,
    map_origin: Vec2,
    segments: Vec<(Vec2, Vec2, u32)>,
    hills: UniformGrid,
    lines: usize,
    /// The movers' shapes, by index in `actors` order once read.
    shapes: Vec<(Entity, Collider)>,
    movers: UniformGrid,
    arena: (Vec2, Vec2),
    seen: Vec<u32>,
    stamp: u32,
    pub times: Vec<Duration>,
    /// Time in the tiles, the hills, the movers (grid build included) and
    /// the points, summed over the frames.
    pub parts: [Duration; 4],
    pub frames: usize,
    pub hits: usize,
    pub mismatched_rays: usize,
    pub mismatched_points: usize,
}

impl GameFloor {
    pub fn new(scene: &GameScene) -> Self {
        let map = &scene.map;
        let size = map.ground.size;
        let mut tiles = vec![EMPTY; (size * size) as usize];
        for (level, kind) in [(&map.ground, GROUND), (&map.spikes, SPIKE)] {
            for cell in &level.solid {
                tiles[(cell.y * size + cell.x) as usize] = kind;
            }
        }
        let segments: Vec<_> = (map.hills.lines.iter().enumerate())
            .flat_map(|(line, points)| points.windows(2).map(move |w| (w[0], w[1], line as u32)))
            .collect();
        let boxes: Vec<_> = (segments.iter())
            .map(|&(a, b, _)| Aabb2d {
                min: a.min(b),
                max: a.max(b),
            })
            .collect();
        let (min, max) = boxes.iter().fold((Vec2::MAX, Vec2::MIN), |(lo, hi), b| {
            (lo.min(b.min), hi.max(b.max))
        });
        let mut hills = UniformGrid::default();
        hills.build(min, max - min + 1e-3, &boxes);
        let half = map.arena().half_side;
        Self {
            tiles,
            size,
            tile: map.ground.tile,
            map_origin: map.ground.origin(),
            segments,
            hills,
            lines: map.hills.lines.len(),
            shapes: Vec::new(),
            movers: UniformGrid::default(),
            // The enemies wrap at the arena's edges and may reach a little out.
            arena: (Vec2::splat(-half - 64.0), Vec2::splat(2.0 * half + 128.0)),
            seen: Vec::new(),
            stamp: 0,
            times: Vec::new(),
            parts: [Duration::ZERO; 4],
            frames: 0,
            hits: 0,
            mismatched_rays: 0,
            mismatched_points: 0,
        }
    }

    /// Answers this frame's queries on ours' poses, timed, and compares
    /// the answers with ours'.
    pub fn frame(&mut self, world: &mut World, scene: &GameScene) {
        let mut query = world.query::<(Entity, &Actor, &GlobalTransform)>();
        let mut found: Vec<_> = (query.iter(world))
            .filter(|(_, actor, _)| !matches!(actor, Actor::Bullet(_)))
            .map(|(e, a, t)| (e, *a, *t))
            .collect();
        found.sort_unstable_by_key(|f| f.0);
        if self.shapes.len() != found.len() {
            self.shapes = (found.iter())
                .map(|&(e, actor, _)| (e, crate::ours::collider(&scene.shape(actor))))
                .collect();
            self.seen = vec![0; found.len()];
        }
        let poses: Vec<Isometry2d> = (found.iter())
            .map(|(_, _, t)| {
                let x = t.affine().matrix3.x_axis;
                Isometry2d::new(t.translation().truncate(), Rot2::from_sin_cos(x.y, x.x))
            })
            .collect();
        let batch = world.resource::<Batch>().clone();
        let rays: Vec<(Vec2, Vec2, f32)> =
            (batch.rays.iter()).map(|&(o, d, l)| (o, *d, l)).collect();
        // The whole frame's queries, timed as one.
        let start = Instant::now();
        let boxes = self.build_movers(&poses);
        let mut answers: Vec<Vec<(u32, f32)>> = Vec::with_capacity(rays.len());
        for &ray in &rays {
            let mut hits = Vec::new();
            self.ray(ray, (&boxes, &poses), &mut hits);
            hits.sort_unstable_by(|a, b| a.1.total_cmp(&b.1));
            answers.push(hits);
        }
        let points: Vec<Option<(bool, f32)>> = batch
            .points
            .iter()
            .map(|&p| self.ground_nearest(p))
            .collect();
        self.times.push(start.elapsed());
        self.frames += 1;
        self.hits += answers.iter().map(Vec::len).sum::<usize>();
        self.compare(world.resource::<Answers>(), &answers, &points);
        // Then each part on its own, for where the time goes.
        let mut hits = Vec::new();
        let mut timed =
            |floor: &mut Self,
             part: usize,
             mut work: Box<dyn FnMut(&mut Self, &mut Vec<(u32, f32)>) + '_>| {
                let start = Instant::now();
                work(floor, &mut hits);
                floor.parts[part] += start.elapsed();
                std::hint::black_box(&hits);
                hits.clear();
            };
        timed(
            self,
            0,
            Box::new(|f, hits| rays.iter().for_each(|&r| f.ray_tiles(r, hits))),
        );
        timed(
            self,
            1,
            Box::new(|f, hits| rays.iter().for_each(|&r| f.ray_hills(r, hits))),
        );
        timed(
            self,
            2,
            Box::new(|f, hits| {
                let boxes = f.build_movers(&poses);
                rays.iter()
                    .for_each(|&r| f.ray_movers(r, (&boxes, &poses), hits));
            }),
        );
        timed(
            self,
            3,
            Box::new(|f, _| {
                std::hint::black_box(batch.points.iter().map(|&p| f.ground_nearest(p)).count());
            }),
        );
    }

    /// The movers' boxes, filed in their grid.
    fn build_movers(&mut self, poses: &[Isometry2d]) -> Vec<Aabb2d> {
        let boxes: Vec<Aabb2d> = (self.shapes.iter().zip(poses))
            .map(|((_, c), &pose)| c.aabb(pose))
            .collect();
        let (origin, size) = self.arena;
        let mut grid = std::mem::take(&mut self.movers);
        grid.build(origin, size, &boxes);
        self.movers = grid;
        boxes
    }

    /// Same hit counts and distances, same inside flags and distances.
    fn compare(
        &mut self,
        ours: &Answers,
        rays: &[Vec<(u32, f32)>],
        points: &[Option<(bool, f32)>],
    ) {
        for (theirs, mine) in ours.rays.iter().zip(rays) {
            let same = theirs.len() == mine.len()
                && (theirs.iter().zip(mine)).all(|(a, b)| (a.1 - b.1).abs() <= TOLERANCE);
            self.mismatched_rays += usize::from(!same);
        }
        for (theirs, mine) in ours.points.iter().zip(points) {
            let same = match (theirs, mine) {
                (Some(a), Some(b)) => a.0 == b.0 && (a.1 - b.1).abs() <= TOLERANCE,
                (a, b) => a.is_none() && b.is_none(),
            };
            self.mismatched_points += usize::from(!same);
        }
    }

    /// Every collider the ray meets but bullets, nearest hit of each:
    /// tile kinds as `u32::MAX - kind`, hill lines as `u32::MAX - 8 - line`,
    /// movers by index.
    fn ray(
        &mut self,
        ray: (Vec2, Vec2, f32),
        movers: (&[Aabb2d], &[Isometry2d]),
        hits: &mut Vec<(u32, f32)>,
    ) {
        self.ray_tiles(ray, hits);
        self.ray_hills(ray, hits);
        self.ray_movers(ray, movers, hits);
    }

    /// The map: the first tile of each kind along the ray.
    fn ray_tiles(&self, ray: (Vec2, Vec2, f32), hits: &mut Vec<(u32, f32)>) {
        let mut met = [false; 3];
        let (tiles, size) = (&self.tiles, self.size);
        walk_cells(self.map_origin, self.tile, [size; 2], ray, |[x, y], t| {
            let kind = tiles[(y * size + x) as usize];
            if kind != EMPTY && !met[kind as usize] {
                met[kind as usize] = true;
                hits.push((u32::MAX - u32::from(kind), t));
            }
            !(met[GROUND as usize] && met[SPIKE as usize])
        });
    }

    /// The hills: the nearest segment of each line.
    fn ray_hills(&self, ray: (Vec2, Vec2, f32), hits: &mut Vec<(u32, f32)>) {
        let (from, direction, length) = ray;
        let mut nearest = [f32::INFINITY; 8];
        let hills = &self.hills;
        walk_cells(
            hills.origin,
            CELL,
            [hills.columns, hills.rows],
            ray,
            |cell, _| {
                for &s in hills.cell(cell) {
                    let (a, b, line) = self.segments[s as usize];
                    if let Some(t) = ray_segment(from, direction, length, a, b) {
                        nearest[line as usize] = nearest[line as usize].min(t);
                    }
                }
                true
            },
        );
        for (line, &t) in nearest.iter().enumerate().take(self.lines) {
            if t.is_finite() {
                hits.push((u32::MAX - 8 - line as u32, t));
            }
        }
    }

    /// The movers: each once, a box test, then the library's exact ray test.
    fn ray_movers(
        &mut self,
        ray: (Vec2, Vec2, f32),
        (boxes, poses): (&[Aabb2d], &[Isometry2d]),
        hits: &mut Vec<(u32, f32)>,
    ) {
        let (from, direction, length) = ray;
        self.stamp += 1;
        let (stamp, seen, movers, shapes) =
            (self.stamp, &mut self.seen, &self.movers, &self.shapes);
        let dir = Dir2::new_unchecked(direction);
        walk_cells(
            movers.origin,
            CELL,
            [movers.columns, movers.rows],
            ray,
            |cell, _| {
                for &m in movers.cell(cell) {
                    let m = m as usize;
                    if seen[m] == stamp || slab(from, direction, &boxes[m], length).is_none() {
                        continue;
                    }
                    seen[m] = stamp;
                    let shape: &Shape = shapes[m].1.shape();
                    if let Some(hit) = shape.cast_ray(poses[m], from, dir, length) {
                        hits.push((m as u32, hit.distance));
                    }
                }
                true
            },
        );
    }

    /// The nearest ground (solid tiles and hills) to `p`: inside, distance.
    /// Rings of tiles and of hill cells, the nearer of the two rings next,
    /// until neither can hold anything nearer than the best found.
    fn ground_nearest(&self, p: Vec2) -> Option<(bool, f32)> {
        let n = i64::from(self.size);
        let tile_at = ((p - self.map_origin) / self.tile).floor();
        let tile_cell = (tile_at.x as i64, tile_at.y as i64);
        let solid = |x: i64, y: i64| self.tiles[(y * n + x) as usize] == GROUND;
        if (0..n).contains(&tile_cell.0)
            && (0..n).contains(&tile_cell.1)
            && solid(tile_cell.0, tile_cell.1)
        {
            return Some((true, 0.0));
        }
        let h = &self.hills;
        let hill_at = ((p - h.origin) / CELL).floor();
        let hill_cell = (hill_at.x as i64, hill_at.y as i64);
        let hill_dims = (i64::from(h.columns), i64::from(h.rows));
        let mut best = f32::INFINITY;
        // Each search's next ring, or `None` once it has covered its grid.
        let (mut tile_ring, mut hill_ring) = (Some(1), Some(0));
        loop {
            let bound = |ring: Option<i64>, side: f32| {
                ring.map_or(f32::INFINITY, |r| (r - 1).max(0) as f32 * side)
            };
            let (tile_bound, hill_bound) = (bound(tile_ring, self.tile), bound(hill_ring, CELL));
            if tile_bound.min(hill_bound) >= best {
                break;
            }
            if tile_bound <= hill_bound {
                let r = tile_ring.unwrap();
                ring_in(tile_cell, r, (n, n), |x, y| {
                    if solid(x, y) {
                        let min = self.map_origin + Vec2::new(x as f32, y as f32) * self.tile;
                        best = best.min(p.distance(p.clamp(min, min + self.tile)));
                    }
                });
                tile_ring = (!covers(tile_cell, r, (n, n))).then_some(r + 1);
            } else {
                let r = hill_ring.unwrap();
                ring_in(hill_cell, r, hill_dims, |x, y| {
                    for &s in h.cell([x as u32, y as u32]) {
                        let (a, b, _) = self.segments[s as usize];
                        best = best.min(point_segment_distance(p, a, b));
                    }
                });
                hill_ring = (!covers(hill_cell, r, hill_dims)).then_some(r + 1);
            }
        }
        best.is_finite().then_some((false, best))
    }
}

/// Calls `visit` on the cells of a grid of `dims` at Chebyshev distance
/// `r` from `centre` (`r = 0`: that cell), which may lie outside the grid.
fn ring_in(centre: (i64, i64), r: i64, dims: (i64, i64), mut visit: impl FnMut(i64, i64)) {
    let (cx, cy) = centre;
    let (x0, x1) = ((cx - r).max(0), (cx + r).min(dims.0 - 1));
    for y in [cy - r, cy + r] {
        if (0..dims.1).contains(&y) {
            for x in x0..=x1 {
                visit(x, y);
            }
            if r == 0 {
                return;
            }
        }
    }
    let (y0, y1) = ((cy - r + 1).max(0), (cy + r - 1).min(dims.1 - 1));
    for x in [cx - r, cx + r] {
        if r > 0 && (0..dims.0).contains(&x) {
            for y in y0..=y1 {
                visit(x, y);
            }
        }
    }
}

/// Whether the rings up to `r` around `centre` have covered the grid.
fn covers(centre: (i64, i64), r: i64, dims: (i64, i64)) -> bool {
    centre.0 - r <= 0
        && centre.1 - r <= 0
        && centre.0 + r >= dims.0 - 1
        && centre.1 + r >= dims.1 - 1
}
