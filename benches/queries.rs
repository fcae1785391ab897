//! `SpatialQuery::ray_hits`, `project_point` and `aabb_hits` through a
//! headless App with `CollisionPlugin` (the query read with
//! `SystemState<SpatialQuery>` after one update), on a scene of 10,000
//! colliders: 5,000 static square tiles of side 8 and 5,000 circles and
//! rectangles 4 to 12 across, in a square of side 1,600. Each query kind
//! without a predicate and with one that accepts everything (what a
//! predicate costs). One iteration runs a batch of 256 queries.
//!
//! `cargo bench -p bevy_collide2d_benches --bench queries`

use std::hint::black_box;

use bevy::ecs::system::SystemState;
use bevy::prelude::*;
use bevy::shape::Aabb2d;
use bevy_collide2d::prelude::*;
use criterion::{Criterion, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SIDE: f32 = 1600.0;
const QUERIES: usize = 256;

fn world() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()));
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    let world = app.world_mut();
    for k in 0..10_000 {
        let at = Vec2::new(rng.random_range(0.0..SIDE), rng.random_range(0.0..SIDE));
        let transform = Transform::from_translation(at.extend(0.0));
        match k % 4 {
            0 | 1 => world.spawn((Collider::rect(8.0, 8.0), StaticCollider, transform)),
            2 => world.spawn((Collider::circle(rng.random_range(2.0..6.0)), transform)),
            _ => world.spawn((
                Collider::rect(rng.random_range(4.0..12.0), rng.random_range(4.0..12.0)),
                transform,
            )),
        };
    }
    app.update();
    app
}

fn queries(c: &mut Criterion) {
    let mut app = world();
    let mut state = SystemState::<SpatialQuery>::new(app.world_mut());
    let spatial = state.get(app.world()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(35);
    let points: Vec<Vec2> = (0..QUERIES)
        .map(|_| Vec2::new(rng.random_range(0.0..SIDE), rng.random_range(0.0..SIDE)))
        .collect();
    let directions: Vec<Dir2> = (0..QUERIES)
        .map(|_| Dir2::from_angle(rng.random_range(0.0..std::f32::consts::TAU)))
        .collect();
    let plain = QueryFilter::default();
    let predicate = QueryFilter::default().with_predicate(|entity| entity != Entity::PLACEHOLDER);
    for (name, filter) in [("", &plain), (" predicate", &predicate)] {
        c.bench_function(&format!("ray_hits 8 within 200{name}"), |b| {
            b.iter(|| {
                for (point, direction) in points.iter().zip(&directions) {
                    black_box(spatial.ray_hits(*point, *direction, 200.0, 8, filter));
                }
            })
        });
        c.bench_function(&format!("project_point{name}"), |b| {
            b.iter(|| {
                for point in &points {
                    black_box(spatial.project_point(*point, filter));
                }
            })
        });
        c.bench_function(&format!("aabb_hits 40x40{name}"), |b| {
            b.iter(|| {
                for point in &points {
                    let region = Aabb2d::new(*point, Vec2::splat(20.0));
                    black_box(spatial.aabb_hits(region, filter));
                }
            })
        });
    }
}

criterion_group!(benches, queries);
criterion_main!(benches);
