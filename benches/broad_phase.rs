//! The broad phase alone: candidate pairs from the bounding boxes of the
//! comparison scene (same sizes and density), at 10k and 100k colliders.
//!
//! `cargo bench -p bevy_collide2d_benches --bench broad_phase`

#[path = "compare/scene.rs"]
#[allow(dead_code)]
mod scene;

use std::hint::black_box;

use bevy::math::{Isometry2d, Rot2, bounding::Aabb2d};
use bevy_collide2d::broad_phase::SpatialGrid;
use bevy_collide2d::geometry::Shape;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use scene::{BodyShape, generate};

fn scene_aabbs(n: usize) -> Vec<Aabb2d> {
    generate(n, 1)
        .iter()
        .map(|body| {
            let shape = match body.shape {
                BodyShape::Circle { radius } => Shape::Circle { radius },
                BodyShape::Rect { half_size } => Shape::Rect { half_size },
            };
            shape.aabb(Isometry2d::new(body.position, Rot2::radians(body.angle)))
        })
        .collect()
}

fn bench_broad_phase(c: &mut Criterion) {
    let mut group = c.benchmark_group("broad phase");
    for n in [10_000, 100_000] {
        let aabbs = scene_aabbs(n);
        let mut grid = SpatialGrid::default();
        let mut pairs = Vec::new();
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(
            BenchmarkId::new("SpatialGrid", n),
            &aabbs,
            |bench, aabbs| {
                bench.iter(|| {
                    grid.overlapping_pairs(black_box(aabbs), |_, _| true, &mut pairs);
                    pairs.len()
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench_broad_phase);
criterion_main!(benches);
