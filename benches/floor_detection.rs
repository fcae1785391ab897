//! Floor model for the detection of `compare`: the same work without the
//! ECS, on one thread. Every frame: each body's box from its pose, the
//! candidate pairs from the library's grid, each candidate's exact contact
//! (the pure `Shape::contact`), the contacts sorted by pair and diffed
//! against the previous frame's (the started and ended pairs). No
//! `Transform` is read, no component written, no message sent.
//!
//! The bodies are the comparison's own (`compare/scene.rs`, same seed):
//! `--scene circles-rects` (default), `five-shapes` or `compounds`, moving
//! as there in steps of 1/60 s and wrapping at the edges. With `--swept`
//! every body is taken as `Swept`: its box covers its path over the step
//! (`swept_aabb`) and each candidate gets the contact at the end of the
//! step or, when apart there, the pure `time_of_impact` over the step.
//!
//! ```text
//! cargo run --release -p bevy_collide2d_benches --bin floor_detection -- [--scene S] [--swept] [N...]
//! ```

use std::hint::black_box;
use std::time::Instant;

use bevy::math::{Isometry2d, Rot2};
use bevy::shape::Aabb2d;
use bevy_collide2d::geometry::{Contact, Shape, Sweep, swept_aabb, time_of_impact};
use bevy_collide2d::internals::SpatialGrid;

#[path = "compare/scene.rs"]
#[allow(dead_code)]
mod scene;

use scene::{Arena, SceneShapes};

const STEP: f32 = 1.0 / 60.0;
const WARMUP: usize = 10;

struct Body {
    shape: Shape,
    body: scene::Body,
}

fn main() {
    let mut shapes = SceneShapes::CirclesRects;
    let mut swept = false;
    let mut counts: Vec<usize> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--scene" => {
                let name = args.next().expect("--scene NAME");
                shapes = SceneShapes::parse(&name)
                    .expect("--scene: circles-rects, five-shapes or compounds");
            }
            "--swept" => swept = true,
            n => counts.push(n.parse().expect("N: a number")),
        }
    }
    if counts.is_empty() {
        counts = vec![10_000, 100_000];
    }
    for n in counts {
        let frames = if n >= 50_000 { 40 } else { 200 };
        let ([all, boxes, grid, contacts, diff], pairs) = run(n, frames, shapes, swept);
        println!(
            "{}{}, N = {n}: one detection without the ECS, one thread, median of {frames} frames: {all:.3} ms (boxes {boxes:.3}, candidate pairs {grid:.3}, contacts {contacts:.3}, sort and diff {diff:.3}; {pairs} touching pairs at the end)",
            shapes.name(),
            if swept { ", all swept" } else { "" },
        );
    }
}

/// The median time of one detection over `frames` frames (ms: all, then
/// boxes, candidate pairs, contacts, sorting and diffing), and the number
/// of touching pairs at the last.
fn run(n: usize, frames: usize, shapes: SceneShapes, swept: bool) -> ([f64; 5], usize) {
    let arena = Arena::for_count(n);
    let half_side = arena.half_side;
    let mut bodies: Vec<Body> = scene::generate_scene(n, 1, shapes)
        .into_iter()
        .map(|body| Body {
            shape: scene::geometry_shape(&body.shape),
            body,
        })
        .collect();
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
        let start = Instant::now();
        let mut marks = [start; 4];
        poses.clear();
        aabbs.clear();
        for (k, body) in bodies.iter().enumerate() {
            let pose = pose(&body.body);
            poses.push(pose);
            aabbs.push(if swept {
                swept_aabb(&body.shape, Sweep::new(starts[k], pose))
            } else {
                body.shape.aabb(pose)
            });
        }
        marks[0] = Instant::now();
        grid.overlapping_pairs(&aabbs, |_, _| true, &mut candidates);
        marks[1] = Instant::now();
        contacts.clear();
        for &(i, j) in &candidates {
            let (i, j) = (i as usize, j as usize);
            let (a, b) = (&bodies[i].shape, &bodies[j].shape);
            let contact = a.contact(poses[i], b, poses[j]).or_else(|| {
                swept
                    .then(|| {
                        let (sweep_a, sweep_b) = (
                            Sweep::new(starts[i], poses[i]),
                            Sweep::new(starts[j], poses[j]),
                        );
                        time_of_impact(a, sweep_a, b, sweep_b)
                    })
                    .flatten()
            });
            if let Some(contact) = contact {
                let (i, j) = (i as u32, j as u32);
                contacts.push(((i.min(j), i.max(j)), contact));
            }
        }
        marks[2] = Instant::now();
        contacts.sort_unstable_by_key(|(pair, _)| *pair);
        current.clear();
        current.extend(contacts.iter().map(|(pair, _)| *pair));
        diff(&previous, &current, &mut changes);
        black_box((&contacts, &changes));
        std::mem::swap(&mut previous, &mut current);
        marks[3] = Instant::now();
        if frame >= WARMUP {
            let ms = |from: Instant, to: Instant| (to - from).as_secs_f64() * 1e3;
            times.push([
                ms(start, marks[3]),
                ms(start, marks[0]),
                ms(marks[0], marks[1]),
                ms(marks[1], marks[2]),
                ms(marks[2], marks[3]),
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
