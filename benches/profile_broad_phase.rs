//! The broad phase alone on the comparison scene's boxes, a fixed number of
//! times, for instruction counts that do not depend on the machine's noise:
//!
//! ```text
//! cargo build --release -p bevy_collide2d_benches --bin profile_broad_phase
//! valgrind --tool=callgrind target/release/profile_broad_phase 10000 20
//! ```

#[path = "compare/scene.rs"]
#[allow(dead_code)]
mod scene;

use bevy_collide2d::internals::SpatialGrid;
use scene::start_aabbs;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut number = |default: usize| {
        args.next().map_or(default, |v| {
            v.parse().expect("usage: profile_broad_phase [N] [RUNS]")
        })
    };
    let (n, runs) = (number(10_000), number(20));
    let aabbs = start_aabbs(n, 1);
    let mut grid = SpatialGrid::default();
    let mut pairs = Vec::new();
    for _ in 0..runs {
        grid.overlapping_pairs(&aabbs, |_, _| true, &mut pairs);
    }
    println!("{n} boxes, {runs} runs, {} pairs", pairs.len());
}
