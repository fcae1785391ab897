//! Floor model for the level scene's map as one compound: the narrow
//! phase's work without the ECS, single-threaded: 1000 mover boxes, each
//! tested against the compound of the map's merged rectangles.
use std::time::Instant;

use bevy::math::{Isometry2d, UVec2, Vec2};
use bevy_collide2d::TilemapCollider;
use bevy_collide2d::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn main() {
    let (size, tile) = (548u32, 8.0f32);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let cells = (size * size) as usize;
    let mut chosen = rand::seq::index::sample(&mut rng, cells, 100_000).into_vec();
    chosen.sort_unstable();
    let solid = chosen
        .into_iter()
        .map(|i| UVec2::new(i as u32 % size, i as u32 / size));
    let map = TilemapCollider::from_cells(Vec2::splat(tile), UVec2::splat(size), solid);
    let collider = map.collider().expect("a map");
    let map_shape = collider.shape();
    let side = size as f32 * tile;
    let movers: Vec<(Collider, Isometry2d)> = (0..1000)
        .map(|k| {
            let shape = if k % 2 == 0 {
                Collider::circle(rng.random_range(2.0..6.0))
            } else {
                Collider::rect(rng.random_range(4.0..12.0), rng.random_range(4.0..12.0))
            };
            let at = Vec2::new(rng.random_range(0.0..side), rng.random_range(0.0..side));
            (shape, Isometry2d::from_translation(at))
        })
        .collect();
    let mut best = f64::INFINITY;
    let mut touching = 0;
    for _ in 0..200 {
        let start = Instant::now();
        touching = 0;
        for (mover, pose) in &movers {
            touching += usize::from(
                map_shape
                    .contact(Isometry2d::IDENTITY, mover.shape(), *pose)
                    .is_some(),
            );
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "1000 movers against the map compound: {:.3} ms best of 200, {touching} touching",
        best * 1e3
    );
    // Cold: each round the movers are elsewhere, and 64 MB are read in between.
    let junk: Vec<u64> = (0..8 << 20).collect();
    let mut times = Vec::new();
    for round in 0..200 {
        let shift = Vec2::new(round as f32 * 97.0, round as f32 * 61.0);
        let moved: Vec<_> = movers
            .iter()
            .map(|(m, p)| {
                (
                    m,
                    Isometry2d::from_translation((p.translation + shift) % side),
                )
            })
            .collect();
        let sum: u64 = junk.iter().step_by(8).sum();
        std::hint::black_box(sum);
        let start = Instant::now();
        for (mover, pose) in &moved {
            touching += usize::from(
                map_shape
                    .contact(Isometry2d::IDENTITY, mover.shape(), *pose)
                    .is_some(),
            );
        }
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    println!("cold: median {:.3} ms", times[100] * 1e3);
}
