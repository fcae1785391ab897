//! Floor model for the detection of `compare`: the same work without the
//! ECS, on one thread. Every frame: each body's box from its pose, the
//! candidate pairs from the library's grid, each candidate's exact contact
//! (the pure `Shape::contact`), the contacts sorted by pair and diffed
//! against the previous frame's (the started and ended pairs). No
//! `Transform` is read, no component written, no message sent.
//!
//! The bodies are the comparison's own (`compare/scene.rs`, same seed):
//! `--scene circles-rects` (default), `five-shapes` or `compounds`, moving
//! as there in steps of 1/60 s and wrapping at the edges; or `level`: the
//! circles and rectangles (default N 1,000) over the level's 100,000 static
//! tiles (548 x 548 cells of side 8), whose grid is built once, as a static
//! collider's is, and looked up by each body's box every frame. With `--swept`
//! every body is taken as `Swept`: its box covers its path over the step
//! (`swept_aabb`) and each candidate gets the contact at the end of the
//! step or, when apart there, the pure `time_of_impact` over the step.
//! With `--grid-order` the bodies are first sorted by the cell of side 16
//! they start in, row by row, as the app's snapshot lays colliders out by
//! its grid (they drift from it as they move). With `--cold` a 64 MB buffer is read before each frame, so that the frame
//! starts with caches as the comparison leaves them: there the other apps'
//! frames run between two of ours and evict what detection keeps.
//! With `--world-parts` each compound's parts are placed in the world once
//! per frame (pose and box, in body order, one match on each part's kind)
//! and two compounds are tested part pair by part pair from there: part
//! boxes met four at a time, the most overlapping pair first, then only the
//! pairs whose boxes allow a deeper contact (branch and bound): the floor of
//! a snapshot that keeps its compounds' parts placed (not with `--swept`).
//!
//! ```text
//! cargo run --release -p bevy_collide2d_benches --bin floor_detection -- [--scene S] [--swept] [--cold] [--grid-order] [--world-parts] [N...]
//! ```

use std::hint::black_box;
use std::time::Instant;

use bevy::math::{Isometry2d, Rot2, Vec2, Vec4};
use bevy::shape::Aabb2d;
use bevy_collide2d::geometry::{Contact, Shape, Sweep, swept_aabb, time_of_impact};
use bevy_collide2d::internals::SpatialGrid;

#[path = "compare/scene.rs"]
#[allow(dead_code)]
mod scene;

#[path = "compare/level.rs"]
#[allow(dead_code)]
mod level;

use scene::{Arena, SceneShapes};

const STEP: f32 = 1.0 / 60.0;
const WARMUP: usize = 10;

struct Body {
    shape: Shape,
    body: scene::Body,
}

fn main() {
    let mut shapes = SceneShapes::CirclesRects;
    let mut options = Options::default();
    let mut with_level = false;
    let mut counts: Vec<usize> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--scene" => {
                let name = args.next().expect("--scene NAME");
                with_level = name == "level";
                if !with_level {
                    shapes = SceneShapes::parse(&name)
                        .expect("--scene: circles-rects, five-shapes, compounds or level");
                }
            }
            "--swept" => options.swept = true,
            "--cold" => options.cold = true,
            "--grid-order" => options.grid_order = true,
            "--world-parts" => options.world_parts = true,
            n => counts.push(n.parse().expect("N: a number")),
        }
    }
    if counts.is_empty() {
        counts = if with_level {
            vec![1000]
        } else {
            vec![10_000, 100_000]
        };
    }
    // The comparison's level: 548 x 548 cells of side 8, 100,000 solid.
    let level = with_level.then(|| level::Level::generate(548, 100_000, 8.0, 1));
    for n in counts {
        let frames = if n >= 50_000 { 40 } else { 200 };
        let ([all, boxes, grid, contacts, diff, tiles], pairs) =
            run(n, frames, shapes, level.as_ref(), options);
        let of_tiles = if level.is_some() {
            format!(", of which the tiles' lookups and contacts {tiles:.3}")
        } else {
            String::new()
        };
        println!(
            "{}{}{}{}, N = {n}: one detection without the ECS, one thread, median of {frames} frames: {all:.3} ms (boxes {boxes:.3}, candidate pairs {grid:.3}, contacts {contacts:.3}, sort and diff {diff:.3}{of_tiles}; {pairs} touching pairs at the end)",
            if level.is_some() {
                "level"
            } else {
                shapes.name()
            },
            if options.swept { ", all swept" } else { "" },
            if options.world_parts {
                ", world parts"
            } else {
                ""
            },
            match (options.grid_order, options.cold) {
                (true, true) => ", grid order, cold caches",
                (true, false) => ", grid order",
                (false, true) => ", cold caches",
                (false, false) => "",
            },
        );
    }
}

/// How `run` treats the bodies and the caches.
#[derive(Clone, Copy, Default)]
struct Options {
    /// Every body `Swept`.
    swept: bool,
    /// Caches emptied before each frame.
    cold: bool,
    /// Bodies sorted by the cell they start in.
    grid_order: bool,
    /// Each compound's parts placed in the world with the boxes, in body
    /// order, and compound pairs tested part pair by part pair from them.
    world_parts: bool,
}

/// A part of a compound body at its world pose, with its box.
struct WorldPart<'a> {
    pose: Isometry2d,
    aabb: Aabb2d,
    shape: &'a Shape,
}

/// The box of a compound's part `shape` at `pose`, one match on its kind.
#[inline(always)]
fn part_box(shape: &Shape, pose: Isometry2d) -> Aabb2d {
    match *shape {
        Shape::Circle { radius } => Aabb2d::new(pose.translation, Vec2::splat(radius)),
        Shape::Rect { half_size } => {
            let (sin, cos) = (pose.rotation.sin.abs(), pose.rotation.cos.abs());
            let extent = Vec2::new(
                cos * half_size.x + sin * half_size.y,
                sin * half_size.x + cos * half_size.y,
            );
            Aabb2d::new(pose.translation, extent)
        }
        ref other => other.aabb(pose),
    }
}

/// The deepest contact of two compounds' parts placed in the world: the
/// part boxes of `b` met four at a time (a coordinate per lane), the pair
/// whose boxes overlap most tested first, then only the pairs whose boxes
/// allow a deeper contact than the deepest found (branch and bound, as the
/// library does).
fn world_part_contact(a: &[WorldPart], b: &[WorldPart]) -> Option<Contact> {
    let mut meeting = [0u32; 16];
    let mut first: Option<((usize, usize), f32)> = None;
    for (group, of_b) in b.chunks(4).enumerate() {
        let lane = |c: fn(&Aabb2d) -> f32, empty: f32| {
            Vec4::from_array(std::array::from_fn(|k| {
                of_b.get(k).map_or(empty, |p| c(&p.aabb))
            }))
        };
        let (min_x, min_y) = (
            lane(|b| b.min.x, f32::INFINITY),
            lane(|b| b.min.y, f32::INFINITY),
        );
        let (max_x, max_y) = (
            lane(|b| b.max.x, f32::NEG_INFINITY),
            lane(|b| b.max.y, f32::NEG_INFINITY),
        );
        for ((i, part_a), meets) in a.iter().enumerate().zip(&mut meeting) {
            let (lo, hi) = (part_a.aabb.min, part_a.aabb.max);
            let meet = Vec4::splat(lo.x).cmple(max_x)
                & min_x.cmple(Vec4::splat(hi.x))
                & Vec4::splat(lo.y).cmple(max_y)
                & min_y.cmple(Vec4::splat(hi.y));
            if !meet.any() {
                continue;
            }
            *meets |= meet.bitmask() << (4 * group);
            let parting = (Vec4::splat(hi.x) - min_x)
                .min(max_x - Vec4::splat(lo.x))
                .min((Vec4::splat(hi.y) - min_y).min(max_y - Vec4::splat(lo.y)));
            let parting = Vec4::select(meet, parting, Vec4::NEG_INFINITY);
            let most = parting.max_element();
            if first.is_none_or(|(_, deepest)| most > deepest) {
                let lane = parting.cmpeq(Vec4::splat(most)).bitmask().trailing_zeros() as usize;
                first = Some(((i, 4 * group + lane), most));
            }
        }
    }
    let ((first_a, first_b), _) = first?;
    let contact = |i: usize, j: usize| {
        let (part_a, part_b): (&WorldPart, &WorldPart) = (&a[i], &b[j]);
        part_a.shape.contact(part_a.pose, part_b.shape, part_b.pose)
    };
    let mut deepest = contact(first_a, first_b);
    meeting[first_a] &= !(1 << first_b);
    for (i, (part_a, mut meets)) in a.iter().zip(meeting).enumerate() {
        while meets != 0 {
            let j = meets.trailing_zeros() as usize;
            meets &= meets - 1;
            let (box_a, box_b) = (part_a.aabb, b[j].aabb);
            let parting = (box_a.max - box_b.min)
                .min(box_b.max - box_a.min)
                .min_element();
            let largest = (box_a.max.max(box_b.max))
                .max(-box_a.min.min(box_b.min))
                .max_element();
            if deepest.is_some_and(|d| parting + largest * 1e-5 < d.depth) {
                continue;
            }
            if let Some(found) = contact(i, j)
                && deepest.is_none_or(|d| found.depth > d.depth)
            {
                deepest = Some(found);
            }
        }
    }
    deepest
}

/// The median time of one detection over `frames` frames (ms: all, then
/// boxes, candidate pairs, contacts, sorting and diffing, and the tiles'
/// part of candidate pairs and contacts), and the number of touching pairs
/// at the last.
/// With a level, the bodies move over its tiles, which stand still: their
/// grid is built once, and each frame the bodies' boxes are looked up in it.
fn run(
    n: usize,
    frames: usize,
    shapes: SceneShapes,
    level: Option<&level::Level>,
    options: Options,
) -> ([f64; 6], usize) {
    let swept = options.swept;
    let mut evictor = vec![0u8; if options.cold { 64 << 20 } else { 0 }];
    let arena = level.map_or(Arena::for_count(n), level::Level::arena);
    let half_side = arena.half_side;
    let tile = level.map(|level| Shape::Rect {
        half_size: Vec2::splat(level.tile / 2.0),
    });
    let tile_poses: Vec<Isometry2d> = (level.iter())
        .flat_map(|level| level.centres())
        .map(Isometry2d::from_translation)
        .collect();
    let tile_aabbs: Vec<Aabb2d> = (tile.iter())
        .flat_map(|tile| tile_poses.iter().map(|&pose| tile.aabb(pose)))
        .collect();
    let mut tile_grid = SpatialGrid::default();
    tile_grid.overlapping_pairs(&tile_aabbs, |_, _| false, &mut Vec::new());
    let mut bodies: Vec<Body> = scene::generate_in(n, 1, shapes, arena)
        .into_iter()
        .map(|body| Body {
            shape: scene::geometry_shape(&body.shape),
            body,
        })
        .collect();
    if options.grid_order {
        let cell = |v: f32| ((v + half_side) / 16.0).floor() as i64;
        bodies.sort_by_key(|b| (cell(b.body.position.y), cell(b.body.position.x)));
    }
    let pose = |body: &scene::Body| Isometry2d::new(body.position, Rot2::radians(body.angle));
    let mut grid = SpatialGrid::default();
    let mut aabbs: Vec<Aabb2d> = Vec::with_capacity(n);
    let mut poses: Vec<Isometry2d> = bodies.iter().map(|b| pose(&b.body)).collect();
    let mut starts: Vec<Isometry2d> = poses.clone();
    let mut candidates: Vec<(u32, u32)> = Vec::new();
    let mut contacts: Vec<((u32, u32), Contact)> = Vec::new();
    let mut previous: Vec<(u32, u32)> = Vec::new();
    let mut current: Vec<(u32, u32)> = Vec::new();
    let mut changes: Vec<((u32, u32), bool)> = Vec::new();
    // Each compound's parts as plain values beside its body (the scene's
    // compounds never change).
    let local_parts: Vec<Option<Vec<(Isometry2d, Shape)>>> = (bodies.iter())
        .map(|body| match &body.shape {
            Shape::Compound(compound) => Some(
                (compound.parts().iter())
                    .map(|part| (part.pose, part.shape.clone()))
                    .collect(),
            ),
            _ => None,
        })
        .collect();
    let mut world: Vec<WorldPart> = Vec::new();
    let mut world_ranges: Vec<std::ops::Range<usize>> = Vec::new();
    let mut times = Vec::with_capacity(frames);
    for frame in 0..WARMUP + frames {
        // Moving the bodies is the game's work, not detection's; a body
        // that wrapped starts its path where it reappears.
        std::mem::swap(&mut starts, &mut poses);
        for (body, start) in bodies.iter_mut().zip(&mut starts) {
            let body = &mut body.body;
            body.position += body.velocity * STEP;
            body.angle += body.spin * STEP;
            for axis in 0..2 {
                let wrapped = if body.position[axis] > half_side {
                    -2.0 * half_side
                } else if body.position[axis] < -half_side {
                    2.0 * half_side
                } else {
                    0.0
                };
                body.position[axis] += wrapped;
                start.translation[axis] += wrapped;
            }
        }
        evict_caches(&mut evictor);
        let start = Instant::now();
        // Boxes, moving pairs, tile lookups, moving contacts, tile contacts,
        // sort and diff: each ends at its mark.
        let mut marks = [start; 6];
        poses.clear();
        aabbs.clear();
        world.clear();
        world_ranges.clear();
        for (k, body) in bodies.iter().enumerate() {
            let pose = pose(&body.body);
            poses.push(pose);
            if let (true, Some(parts)) = (options.world_parts && !swept, &local_parts[k]) {
                let first = world.len();
                let (mut lo, mut hi) = (Vec2::INFINITY, Vec2::NEG_INFINITY);
                for (local, shape) in parts {
                    let pose = pose * *local;
                    let aabb = part_box(shape, pose);
                    (lo, hi) = (lo.min(aabb.min), hi.max(aabb.max));
                    world.push(WorldPart { pose, aabb, shape });
                }
                world_ranges.push(first..world.len());
                aabbs.push(Aabb2d { min: lo, max: hi });
                continue;
            }
            world_ranges.push(0..0);
            aabbs.push(if swept {
                swept_aabb(&body.shape, Sweep::new(starts[k], pose))
            } else {
                body.shape.aabb(pose)
            });
        }
        marks[0] = Instant::now();
        grid.overlapping_pairs(&aabbs, |_, _| true, &mut candidates);
        let moving_candidates = candidates.len();
        marks[1] = Instant::now();
        if level.is_some() {
            // A tile `k` is body `n + k`.
            for (i, aabb) in aabbs.iter().enumerate() {
                tile_grid.visit_overlapping(&tile_aabbs, aabb, |k| {
                    candidates.push((i as u32, n as u32 + k));
                });
            }
        }
        marks[2] = Instant::now();
        contacts.clear();
        // The moving pairs first, then the tiles' (after them in `candidates`).
        for (k, &(i, j)) in candidates.iter().enumerate() {
            if k == moving_candidates {
                marks[3] = Instant::now();
            }
            let (i, j) = (i as usize, j as usize);
            if j >= n {
                let (tile, tile_pose) = (tile.as_ref().unwrap(), tile_poses[j - n]);
                if let Some(contact) = bodies[i].shape.contact(poses[i], tile, tile_pose) {
                    contacts.push(((i as u32, j as u32), contact));
                }
                continue;
            }
            let (a, b) = (&bodies[i].shape, &bodies[j].shape);
            let (parts_i, parts_j) = (world_ranges[i].clone(), world_ranges[j].clone());
            if !(parts_i.is_empty() || parts_j.is_empty()) {
                if let Some(contact) = world_part_contact(&world[parts_i], &world[parts_j]) {
                    let (i, j) = (i as u32, j as u32);
                    contacts.push(((i.min(j), i.max(j)), contact));
                }
                continue;
            }
            let contact = a.contact(poses[i], b, poses[j]).or_else(|| {
                swept
                    .then(|| {
                        let (sweep_a, sweep_b) = (
                            Sweep::new(starts[i], poses[i]),
                            Sweep::new(starts[j], poses[j]),
                        );
                        time_of_impact(a, sweep_a, b, sweep_b).map(|impact| impact.contact)
                    })
                    .flatten()
            });
            if let Some(contact) = contact {
                let (i, j) = (i as u32, j as u32);
                contacts.push(((i.min(j), i.max(j)), contact));
            }
        }
        marks[4] = Instant::now();
        if moving_candidates == candidates.len() {
            marks[3] = marks[4];
        }
        contacts.sort_unstable_by_key(|(pair, _)| *pair);
        current.clear();
        current.extend(contacts.iter().map(|(pair, _)| *pair));
        diff(&previous, &current, &mut changes);
        black_box((&contacts, &changes));
        std::mem::swap(&mut previous, &mut current);
        marks[5] = Instant::now();
        if frame >= WARMUP {
            let ms = |from: Instant, to: Instant| (to - from).as_secs_f64() * 1e3;
            times.push([
                ms(start, marks[5]),
                ms(start, marks[0]),
                ms(marks[0], marks[2]),
                ms(marks[2], marks[4]),
                ms(marks[4], marks[5]),
                ms(marks[1], marks[2]) + ms(marks[3], marks[4]),
            ]);
        }
    }
    let medians = std::array::from_fn(|k| {
        let mut column: Vec<f64> = times.iter().map(|t| t[k]).collect();
        column.sort_by(f64::total_cmp);
        column[column.len() / 2]
    });
    (medians, previous.len())
}

/// Writes one byte per cache line of `buffer` (empty: nothing), leaving the
/// caches full of it instead of detection's data.
fn evict_caches(buffer: &mut [u8]) {
    for line in buffer.chunks_mut(64) {
        line[0] = line[0].wrapping_add(1);
    }
    black_box(buffer);
}

/// The pairs only in `current` (started, `true`) or only in `previous`
/// (ended), both sorted, in pair order.
fn diff(previous: &[(u32, u32)], current: &[(u32, u32)], changes: &mut Vec<((u32, u32), bool)>) {
    changes.clear();
    let (mut p, mut c) = (0, 0);
    while p < previous.len() || c < current.len() {
        match (previous.get(p), current.get(c)) {
            (Some(a), Some(b)) if a == b => (p, c) = (p + 1, c + 1),
            (Some(a), Some(b)) if a < b => {
                changes.push((*a, false));
                p += 1;
            }
            (Some(_), Some(b)) | (None, Some(b)) => {
                changes.push((*b, true));
                c += 1;
            }
            (Some(a), None) => {
                changes.push((*a, false));
                p += 1;
            }
            (None, None) => unreachable!(),
        }
    }
}
