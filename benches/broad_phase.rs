//! The broad phase alone: candidate pairs from the bounding boxes of the
//! comparison scene (same sizes and density), at 10k and 100k colliders.
//!
//! `cargo bench -p bevy_collide2d_benches --bench broad_phase`

#[path = "compare/scene.rs"]
#[allow(dead_code)]
mod scene;

use std::hint::black_box;

use bevy_collide2d::internals::SpatialGrid;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use scene::start_aabbs;

fn bench_broad_phase(c: &mut Criterion) {
    let mut group = c.benchmark_group("broad phase");
    for n in [10_000, 100_000] {
        let aabbs = start_aabbs(n, 1);
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
