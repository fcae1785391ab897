//! Floor model for the level scene's map as one compound (`compare --scene
//! level`, `TilemapCollider`): the narrow phase's work without the ECS, on
//! one thread. 1000 circle and rectangle movers, each tested against the
//! compound of the map's merged rectangles (548 x 548 cells of side 8,
//! 100,000 solid):
//!
//! - warm: the same movers again and again (their cells stay in cache);
//! - cold: the movers elsewhere each round, 64 MB read in between, as a
//!   game frame's other work evicts the map;
//! - cold, prefetched: as cold, with the narrow phase's staged prefetch of
//!   the part grid ahead of each test.
//!
//! ```text
//! cargo run --release -p bevy_collide2d_benches --bin floor_tilemap
//! ```

use std::hint::black_box;
use std::time::Instant;

use bevy::math::{Isometry2d, UVec2, Vec2};
use bevy_collide2d::geometry::Shape;
use bevy_collide2d::internals::prefetch_parts;
use bevy_collide2d::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const ROUNDS: usize = 200;

fn main() {
    let (size, tile) = (548u32, 8.0f32);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let cells = (size * size) as usize;
    let solid = rand::seq::index::sample(&mut rng, cells, 100_000)
        .into_iter()
        .map(|i| UVec2::new(i as u32 % size, i as u32 / size));
    let map = TilemapCollider::from_cells(Vec2::splat(tile), UVec2::splat(size), solid);
    let map = map.collider().expect("a map").shape().clone();
    let side = size as f32 * tile;
    let movers: Vec<(Shape, Vec2)> = (0..1000)
        .map(|k| {
            let mover = if k % 2 == 0 {
                Collider::circle(rng.random_range(2.0..6.0))
            } else {
                Collider::rect(rng.random_range(4.0..12.0), rng.random_range(4.0..12.0))
            };
            let at = Vec2::new(rng.random_range(0.0..side), rng.random_range(0.0..side));
            (mover.shape().clone(), at)
        })
        .collect();
    let junk: Vec<u64> = (0..8 << 20).collect();
    let warm = median_ms(|_| (movers.clone(), false), &map, &junk, false);
    let moved = |round: usize| {
        let shift = Vec2::new(round as f32 * 97.0, round as f32 * 61.0);
        let moved = (movers.iter()).map(|(shape, at)| (shape.clone(), (at + shift) % side));
        (moved.collect(), true)
    };
    let cold = median_ms(moved, &map, &junk, false);
    let prefetched = median_ms(moved, &map, &junk, true);
    println!(
        "1000 movers against the map as one compound, median ms: warm {warm:.3}, cold {cold:.3}, cold prefetched {prefetched:.3}"
    );
}

/// The median time of a round of tests of the movers `round` gives (and
/// whether to evict the cache first).
fn median_ms(
    round: impl Fn(usize) -> (Vec<(Shape, Vec2)>, bool),
    map: &Shape,
    junk: &[u64],
    prefetch: bool,
) -> f64 {
    let mut times: Vec<f64> = (0..ROUNDS)
        .map(|k| {
            let (movers, evict) = round(k);
            if evict {
                black_box(junk.iter().step_by(8).sum::<u64>());
            }
            let start = Instant::now();
            let mut touching = 0;
            for (at, (mover, position)) in movers.iter().enumerate() {
                if prefetch {
                    for (stage, distance) in [(0, 3), (1, 2), (2, 1)] {
                        if let Some((ahead, where_)) = movers.get(at + distance * 12) {
                            let pose = Isometry2d::from_translation(*where_);
                            prefetch_parts(map, Isometry2d::IDENTITY, ahead, pose, stage);
                        }
                    }
                }
                let pose = Isometry2d::from_translation(*position);
                touching += usize::from(map.contact(Isometry2d::IDENTITY, mover, pose).is_some());
            }
            black_box(touching);
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[ROUNDS / 2]
}
