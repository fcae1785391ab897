//! `SpatialQuery::move_and_slide`, one call, through a headless App with
//! `CollisionPlugin` (the query read with `SystemState<SpatialQuery>` after
//! one update): the comparison's character (a capsule of radius 3, 4
//! between the cap centres, skin 0.1, maximum slope 45°) in a world of 330
//! static colliders: a floor of 100 square tiles of side 8, a wall of 10
//! tiles on it, a 30° ramp (a convex polygon) on it, and 219 tiles
//! scattered high above (in the grid, never met).
//!
//! `cargo bench -p bevy_collide2d_benches --bench move_and_slide`

use std::hint::black_box;

use bevy::ecs::system::SystemState;
use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use criterion::{Criterion, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const TILE: f32 = 8.0;
const RADIUS: f32 = 3.0;
const HALF_LENGTH: f32 = 2.0;
const SKIN: f32 = 0.1;
/// Floor tiles' top.
const FLOOR: f32 = TILE;
/// The wall's left face.
const WALL_X: f32 = 400.0;
/// The ramp: from `RAMP_X` on the floor, rising at 30° for 100 units.
const RAMP_X: f32 = 500.0;
const RAMP_ANGLE: f32 = std::f32::consts::PI / 6.0;
/// One frame at 60 Hz: walking at 90 units/s, gravity 600 units/s² from
/// rest.
const WALK: f32 = 1.5;
const FALL: f32 = 600.0 / 3600.0;

fn world() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()));
    let tile = || (Collider::rect(TILE, TILE), StaticCollider);
    let world = app.world_mut();
    for i in 0..100 {
        let centre = Vec2::new((i as f32 + 0.5) * TILE, TILE / 2.0);
        world.spawn((Transform::from_translation(centre.extend(0.0)), tile()));
    }
    for k in 0..10 {
        let centre = Vec2::new(WALL_X + TILE / 2.0, FLOOR + (k as f32 + 0.5) * TILE);
        world.spawn((Transform::from_translation(centre.extend(0.0)), tile()));
    }
    let rise = 100.0 * RAMP_ANGLE.tan();
    let ramp = Collider::convex_polygon(&[
        Vec2::new(RAMP_X, FLOOR),
        Vec2::new(RAMP_X + 100.0, FLOOR),
        Vec2::new(RAMP_X + 100.0, FLOOR + rise),
    ])
    .expect("a triangle");
    world.spawn((Transform::default(), ramp, StaticCollider));
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..219 {
        let centre = Vec2::new(
            rng.random_range(0.0..800.0),
            rng.random_range(300.0..1000.0),
        );
        world.spawn((Transform::from_translation(centre.extend(0.0)), tile()));
    }
    app.update();
    app
}

/// The capsule's centre resting a skin above the floor at `x`.
fn on_floor(x: f32) -> Vec2 {
    Vec2::new(x, FLOOR + RADIUS + HALF_LENGTH + SKIN)
}

/// The capsule's centre resting a skin above the ramp at `x`: its lower
/// cap's centre is radius + skin from the ramp's line.
fn on_ramp(x: f32) -> Vec2 {
    let normal = Vec2::new(-RAMP_ANGLE.sin(), RAMP_ANGLE.cos());
    let d = normal.dot(Vec2::new(RAMP_X, FLOOR)) + RADIUS + SKIN;
    // normal · (x, y - HALF_LENGTH) = d
    let y = (d - normal.x * x) / normal.y + HALF_LENGTH;
    Vec2::new(x, y)
}

fn bench_move_and_slide(c: &mut Criterion) {
    let mut app = world();
    let mut state = SystemState::<SpatialQuery>::new(app.world_mut());
    let spatial = state.get(app.world()).expect("CollisionPlugin is added");
    let collider = Collider::capsule(RADIUS, 2.0 * HALF_LENGTH);
    let filter = QueryFilter::default();
    let plain = MoveAndSlideConfig {
        skin: SKIN,
        ..default()
    };
    let platformer = MoveAndSlideConfig {
        step_height: 4.0,
        snap_to_ground: 4.0,
        ..plain
    };
    // (name, start, motion, config, expect grounded at the end)
    let cases = [
        (
            "standing on the floor",
            on_floor(100.0),
            Vec2::new(0.0, -FALL),
            plain,
            true,
        ),
        // Across a seam between two tiles within the call.
        (
            "walking on the floor",
            on_floor(TILE * 20.0 - 0.5),
            Vec2::new(WALK, -FALL),
            plain,
            true,
        ),
        (
            "walking into a wall",
            on_floor(WALL_X - RADIUS - SKIN),
            Vec2::new(WALK, -FALL),
            plain,
            true,
        ),
        (
            "walking up a 30° ramp",
            on_ramp(RAMP_X + 50.0),
            Vec2::new(WALK, -FALL),
            plain,
            true,
        ),
        (
            "walking down a 30° ramp",
            on_ramp(RAMP_X + 50.0),
            Vec2::new(-WALK, -FALL),
            plain,
            false,
        ),
        (
            "walking down a 30° ramp, snap 4, step 4",
            on_ramp(RAMP_X + 50.0),
            Vec2::new(-WALK, -FALL),
            platformer,
            true,
        ),
        (
            "falling in the open",
            Vec2::new(200.0, 150.0),
            Vec2::new(WALK, -5.0),
            plain,
            false,
        ),
        (
            "landing on the floor",
            on_floor(200.0) + Vec2::new(0.0, 2.0),
            Vec2::new(WALK, -5.0),
            plain,
            true,
        ),
    ];
    let mut group = c.benchmark_group("move_and_slide");
    for (name, start, motion, config, grounded) in cases {
        let pose = Isometry2d::from_translation(start);
        let out = spatial.move_and_slide(&collider, pose, motion, &config, &filter);
        assert_eq!(out.grounded, grounded, "{name}: {out:?}");
        group.bench_function(name, |bench| {
            bench.iter(|| {
                spatial.move_and_slide(
                    black_box(&collider),
                    black_box(pose),
                    black_box(motion),
                    &config,
                    &filter,
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_move_and_slide);
criterion_main!(benches);
