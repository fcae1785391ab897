//! What Bevy's executor charges detection's steps, whatever they compute:
//! the comparison's movers (circles and rectangles, as `compare --n N`) in
//! three apps updated in turn, frame by frame:
//!
//! - no collision plugin (the comparison's baseline);
//! - four empty systems chained in `PostUpdate` after transform propagation,
//!   as `CollisionPlugin`'s four steps are;
//! - `CollisionPlugin` with a collider on every mover.
//!
//! The second app's frame minus the first's is what four chained systems
//! cost before they do anything: the part of the plugin's cost that no
//! faster detection removes.
//!
//! ```text
//! cargo run --release -p bevy_collide2d_benches --bin floor_executor -- [N...]
//! ```

use std::time::Instant;

use bevy::prelude::*;
use bevy::transform::TransformSystems;
use bevy_collide2d::prelude::*;

#[path = "compare/scene.rs"]
#[allow(dead_code)]
mod scene;

use scene::{Arena, BodyShape, SceneShapes, base_app, body_bundle, generate_scene};

const WARMUP: usize = 20;
const FRAMES: usize = 500;

fn main() {
    let mut counts: Vec<usize> = std::env::args()
        .skip(1)
        .map(|n| n.parse().expect("N: a number"))
        .collect();
    if counts.is_empty() {
        counts = vec![1000, 10_000];
    }
    for n in counts {
        let [plain, chained, plugin] = run(n);
        println!(
            "N = {n}, median frame of {FRAMES}, apps updated in turn: no plugin {plain:.3} ms; \
             four empty chained systems {chained:.3} ms (+{:.3}); CollisionPlugin {plugin:.3} ms \
             (+{:.3})",
            chained - plain,
            plugin - plain
        );
    }
}

/// The median frame (ms) of the three apps with `n` movers.
fn run(n: usize) -> [f64; 3] {
    let bodies = generate_scene(n, 1, SceneShapes::CirclesRects);
    let mut apps: Vec<App> = (0..3)
        .map(|kind| {
            let mut app = base_app(Arena::for_count(n));
            match kind {
                0 => {
                    app.world_mut().spawn_batch(bodies.iter().map(body_bundle));
                }
                1 => {
                    app.add_systems(
                        PostUpdate,
                        (step::<0>, step::<1>, step::<2>, step::<3>)
                            .chain()
                            .after(TransformSystems::Propagate),
                    );
                    app.world_mut().spawn_batch(bodies.iter().map(body_bundle));
                }
                _ => {
                    app.add_plugins(CollisionPlugin::default());
                    app.world_mut().spawn_batch(
                        (bodies.iter()).map(|body| (body_bundle(body), collider(&body.shape))),
                    );
                }
            }
            app.finish();
            app.cleanup();
            app
        })
        .collect();
    let mut times: [Vec<f64>; 3] = Default::default();
    for frame in 0..WARMUP + FRAMES {
        for k in 0..3 {
            // The order rotates, so that none always follows the same one.
            let which = (frame + k) % 3;
            let start = Instant::now();
            apps[which].update();
            if frame >= WARMUP {
                times[which].push(start.elapsed().as_secs_f64() * 1e3);
            }
        }
    }
    times.map(|mut t| {
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    })
}

/// An empty system: one step of the chain.
fn step<const K: usize>() {}

fn collider(shape: &BodyShape) -> Collider {
    match *shape {
        BodyShape::Circle { radius } => Collider::circle(radius),
        BodyShape::Rect { half_size } => Collider::rect(half_size.x * 2.0, half_size.y * 2.0),
        _ => unreachable!("the default scene has circles and rectangles only"),
    }
}
