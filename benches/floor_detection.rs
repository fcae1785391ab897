//! Floor model for the detection of `compare` (the default scene): the same
//! work without the ECS, on one thread. Every frame: each body's box from
//! its pose, the candidate pairs from the library's grid, each candidate's
//! exact contact (the pure `Shape::contact`), the contacts sorted by pair
//! and diffed against the previous frame's (the started and ended pairs).
//! No `Transform` is read, no component written, no message sent.
//!
//! The scene is drawn as the comparison's: N bodies, half circles of radius
//! 2-6, half rectangles of 4-12 by 4-12 at random angles, in a square of
//! side `sqrt(N) * 16`, moving at 20-60 units/s and spinning at up to 2
//! rad/s, wrapping at the edges, in steps of 1/60 s.
//!
//! ```text
//! cargo run --release -p bevy_collide2d_benches --bin floor_detection [N...]
//! ```

use std::hint::black_box;
use std::time::Instant;

use bevy::math::{Isometry2d, Rot2, Vec2};
use bevy::shape::Aabb2d;
use bevy_collide2d::geometry::{Contact, Shape};
use bevy_collide2d::internals::SpatialGrid;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const STEP: f32 = 1.0 / 60.0;
const WARMUP: usize = 10;

struct Body {
    shape: Shape,
    position: Vec2,
    angle: f32,
    velocity: Vec2,
    spin: f32,
}

fn main() {
    let counts: Vec<usize> = std::env::args()
        .skip(1)
        .map(|n| n.parse().expect("N: a number"))
        .collect();
    let counts = if counts.is_empty() {
        vec![10_000, 100_000]
    } else {
        counts
    };
    for n in counts {
        let frames = if n >= 50_000 { 40 } else { 200 };
        let ([all, boxes, grid, contacts, diff], pairs) = run(n, frames);
        println!(
            "N = {n}: one detection without the ECS, one thread, median of {frames} frames: {all:.3} ms (boxes {boxes:.3}, candidate pairs {grid:.3}, contacts {contacts:.3}, sort and diff {diff:.3}; {pairs} touching pairs at the end)"
        );
    }
}

/// The median time of one detection over `frames` frames (ms: all, then
/// boxes, candidate pairs, contacts, sorting and diffing), and the number
/// of touching pairs at the last.
fn run(n: usize, frames: usize) -> ([f64; 5], usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let half_side = (n as f32).sqrt() * 16.0 / 2.0;
    let mut bodies: Vec<Body> = (0..n)
        .map(|k| {
            let shape = if k % 2 == 0 {
                Shape::Circle {
                    radius: rng.random_range(2.0..6.0),
                }
            } else {
                Shape::Rect {
                    half_size: Vec2::new(rng.random_range(2.0..6.0), rng.random_range(2.0..6.0)),
                }
            };
            let heading = rng.random_range(0.0..std::f32::consts::TAU);
            Body {
                shape,
                position: Vec2::new(
                    rng.random_range(-half_side..half_side),
                    rng.random_range(-half_side..half_side),
                ),
                angle: rng.random_range(0.0..std::f32::consts::TAU),
                velocity: Vec2::from_angle(heading) * rng.random_range(20.0..60.0),
                spin: rng.random_range(-2.0..2.0),
            }
        })
        .collect();
    let mut grid = SpatialGrid::default();
    let mut aabbs: Vec<Aabb2d> = Vec::with_capacity(n);
    let mut poses: Vec<Isometry2d> = Vec::with_capacity(n);
    let mut candidates: Vec<(u32, u32)> = Vec::new();
    let mut contacts: Vec<((u32, u32), Contact)> = Vec::new();
    let mut previous: Vec<(u32, u32)> = Vec::new();
    let mut current: Vec<(u32, u32)> = Vec::new();
    let mut changes: Vec<((u32, u32), bool)> = Vec::new();
    let mut times = Vec::with_capacity(frames);
    for frame in 0..WARMUP + frames {
        // Moving the bodies is the game's work, not detection's.
        for body in &mut bodies {
            body.position += body.velocity * STEP;
            body.angle += body.spin * STEP;
            for axis in 0..2 {
                if body.position[axis] > half_side {
                    body.position[axis] -= 2.0 * half_side;
                } else if body.position[axis] < -half_side {
                    body.position[axis] += 2.0 * half_side;
                }
            }
        }
        let start = Instant::now();
        let mut marks = [start; 4];
        poses.clear();
        aabbs.clear();
        for body in &bodies {
            let pose = Isometry2d::new(body.position, Rot2::radians(body.angle));
            poses.push(pose);
            aabbs.push(body.shape.aabb(pose));
        }
        marks[0] = Instant::now();
        grid.overlapping_pairs(&aabbs, |_, _| true, &mut candidates);
        marks[1] = Instant::now();
        contacts.clear();
        for &(i, j) in &candidates {
            let (a, b) = (&bodies[i as usize], &bodies[j as usize]);
            if let Some(contact) = a
                .shape
                .contact(poses[i as usize], &b.shape, poses[j as usize])
            {
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
