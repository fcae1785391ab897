//! Floor model for the query batches of `compare --scene queries`: the
//! grid's part of the work and the answer's list alone, with none of the
//! rest (no ECS, no layers or filter, no shape test), on one thread.
//! Strictly less work than a query does, so no query of this design can be
//! faster than it.
//!
//! The same scene as the comparison's, drawn the same way: 9,000 of 164 x
//! 164 tiles of side 8 and 1,000 boxes of the movers' sizes over it, all in
//! one grid (ours walks two: the moving colliders' and the static ones').
//! The same batches of 1,000: rays of 100 (every box the ray enters, by a
//! slab test, listed by distance), the box nearest a point (in growing
//! squares, as `project_point` looks), and the boxes meeting a region of
//! side 4 to 64 (listed by index).
//!
//! ```text
//! cargo run --release -p bevy_collide2d_benches --bin floor_queries
//! ```

use std::hint::black_box;
use std::time::Instant;

use bevy::math::{Dir2, Vec2};
use bevy::shape::Aabb2d;
use bevy_collide2d::internals::SpatialGrid;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const ROUNDS: usize = 200;
const BATCH: usize = 1000;
const RAY_LENGTH: f32 = 100.0;

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (cells, tile) = (164u32, 8.0f32);
    let half_side = cells as f32 * tile / 2.0;
    let mut aabbs: Vec<Aabb2d> = rand::seq::index::sample(&mut rng, (cells * cells) as usize, 9000)
        .into_iter()
        .map(|i| {
            let cell = Vec2::new((i as u32 % cells) as f32, (i as u32 / cells) as f32);
            let min = cell * tile - half_side;
            Aabb2d {
                min,
                max: min + tile,
            }
        })
        .collect();
    // The movers: circles of radius 2-6 and rectangles of 4-12 turned, as
    // boxes of the same spread.
    aabbs.extend((0..1000).map(|_| {
        let centre = Vec2::new(
            rng.random_range(-half_side..half_side),
            rng.random_range(-half_side..half_side),
        );
        Aabb2d::new(centre, Vec2::splat(rng.random_range(2.0..8.0)))
    }));
    let mut grid = SpatialGrid::default();
    grid.overlapping_pairs(&aabbs, |_, _| true, &mut Vec::new());

    let point = |rng: &mut ChaCha8Rng| {
        Vec2::new(
            rng.random_range(-half_side..half_side),
            rng.random_range(-half_side..half_side),
        )
    };
    let rays: Vec<(Vec2, Dir2)> = (0..BATCH)
        .map(|_| {
            (
                point(&mut rng),
                Dir2::from_angle(rng.random_range(0.0..6.3)),
            )
        })
        .collect();
    let points: Vec<Vec2> = (0..BATCH).map(|_| point(&mut rng)).collect();
    let regions: Vec<Aabb2d> = (0..BATCH)
        .map(|_| {
            let half = Vec2::new(rng.random_range(2.0..32.0), rng.random_range(2.0..32.0));
            Aabb2d::new(point(&mut rng), half)
        })
        .collect();

    // Each answer as a query gives it: a list, sorted (by distance, by
    // index), in its own allocation.
    let rays_us = median_us(|| {
        let mut found = 0;
        for &(origin, direction) in &rays {
            let start = Aabb2d {
                min: origin,
                max: origin,
            };
            let mut hits: Vec<(f32, u32)> = Vec::new();
            grid.visit_along(&aabbs, start, direction, RAY_LENGTH, |i| {
                let t = ray_box(origin, *direction, &aabbs[i as usize])?;
                if t <= RAY_LENGTH {
                    hits.push((t, i));
                }
                None
            });
            hits.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            found += black_box(hits).len();
        }
        found
    });
    let points_us = median_us(|| {
        let mut found = 0.0;
        for &p in &points {
            let mut within = 16.0f32;
            loop {
                let mut best = f32::INFINITY;
                let square = Aabb2d::new(p, Vec2::splat(within));
                grid.visit_overlapping(&aabbs, &square, |i| {
                    best = best.min(box_distance(&aabbs[i as usize], p));
                });
                if best <= within {
                    found += best;
                    break;
                }
                within *= 4.0;
            }
        }
        found as usize
    });
    let regions_us = median_us(|| {
        let mut found = 0;
        for region in &regions {
            let mut hits: Vec<u32> = Vec::new();
            grid.visit_overlapping(&aabbs, region, |i| hits.push(i));
            hits.sort_unstable();
            found += black_box(hits).len();
        }
        found
    });
    println!(
        "floor of {BATCH} queries over {} boxes, one grid, boxes only, median µs: rays {rays_us:.0}, points {points_us:.0}, regions {regions_us:.0}",
        aabbs.len()
    );
}

/// The median time of `batch` over the rounds, in µs.
fn median_us(batch: impl Fn() -> usize) -> f64 {
    let mut times: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            black_box(batch());
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[ROUNDS / 2]
}

/// Where the ray from `origin` along `direction` enters `aabb` (0 inside),
/// by the slab method; `None` if it misses.
fn ray_box(origin: Vec2, direction: Vec2, aabb: &Aabb2d) -> Option<f32> {
    let inverse = direction.recip();
    let (a, b) = ((aabb.min - origin) * inverse, (aabb.max - origin) * inverse);
    let enter = a.min(b).max_element().max(0.0);
    let exit = a.max(b).min_element();
    (enter <= exit).then_some(enter)
}

/// How far `p` is from `aabb` (0 inside).
fn box_distance(aabb: &Aabb2d, p: Vec2) -> f32 {
    (aabb.min - p).max(p - aabb.max).max(Vec2::ZERO).length()
}
