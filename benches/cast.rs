//! Translational shape casts: `cast_shape` (closed form, a ray against the
//! rounded Minkowski difference) beside `time_of_impact` over the same
//! straight, non-turning sweep (conservative advancement, what
//! `cast_shape` ran before), on the same random casts, about half hitting.
//!
//! ```text
//! cargo bench -p bevy_collide2d_benches --bench cast
//! ```
//!
//! One iteration runs all 1024 casts of the group.

use std::hint::black_box;

use bevy::math::{Dir2, Isometry2d, Rot2, Vec2};
use bevy_collide2d::geometry::{ConvexPolygon, Shape, Sweep, cast_shape, time_of_impact};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const CASTS: usize = 1024;
const MAX_DISTANCE: f32 = 40.0;

struct Cast {
    shape: Shape,
    pose: Isometry2d,
    direction: Dir2,
    target: Shape,
    target_pose: Isometry2d,
}

fn hexagon() -> Shape {
    let points: Vec<Vec2> = (0..6)
        .map(|k| Vec2::from_angle(k as f32 * core::f32::consts::TAU / 6.0) * 1.5)
        .collect();
    Shape::Polygon(ConvexPolygon::new(&points).expect("a hexagon"))
}

fn casts(shape: &Shape, target: &Shape, rng: &mut ChaCha8Rng) -> Vec<Cast> {
    (0..CASTS)
        .map(|_| {
            let target_pose = Isometry2d::new(
                Vec2::new(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0)),
                Rot2::radians(rng.random_range(-3.0..3.0)),
            );
            let pose = Isometry2d::new(
                Vec2::new(rng.random_range(-25.0..25.0), rng.random_range(-25.0..25.0)),
                Rot2::radians(rng.random_range(-3.0..3.0)),
            );
            let aim = target_pose.translation
                + Vec2::new(rng.random_range(-6.0..6.0), rng.random_range(-6.0..6.0));
            Cast {
                shape: shape.clone(),
                pose,
                direction: Dir2::new(aim - pose.translation).unwrap_or(Dir2::X),
                target: target.clone(),
                target_pose,
            }
        })
        .collect()
}

fn bench_casts(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let circle = Shape::Circle { radius: 1.0 };
    let capsule = Shape::Capsule {
        radius: 0.5,
        half_length: 1.0,
    };
    let rect = Shape::Rect {
        half_size: Vec2::new(3.0, 1.0),
    };
    // A polyline's segment, the ground a character is cast along.
    let segment = Shape::Segment {
        a: Vec2::new(-4.0, -0.5),
        b: Vec2::new(4.0, 0.5),
    };
    let pairs = [
        ("circle-rect", circle, rect.clone()),
        ("capsule-rect", capsule.clone(), rect.clone()),
        ("rect-polygon", rect, hexagon()),
        ("polygon-polygon", hexagon(), hexagon()),
        ("capsule-segment", capsule, segment),
    ];
    for (name, shape, target) in pairs {
        let cases = casts(&shape, &target, &mut rng);
        let hits = cases
            .iter()
            .filter(|k| {
                cast_shape(
                    &k.shape,
                    k.pose,
                    k.direction,
                    MAX_DISTANCE,
                    &k.target,
                    k.target_pose,
                )
                .is_some()
            })
            .count();
        let mut group = c.benchmark_group(format!("cast {name} ({hits}/{CASTS} hit)"));
        group.throughput(Throughput::Elements(CASTS as u64));
        group.bench_function("cast_shape", |bench| {
            bench.iter(|| {
                for k in &cases {
                    black_box(cast_shape(
                        black_box(&k.shape),
                        black_box(k.pose),
                        k.direction,
                        MAX_DISTANCE,
                        &k.target,
                        k.target_pose,
                    ));
                }
            })
        });
        group.bench_function("time_of_impact", |bench| {
            bench.iter(|| {
                for k in &cases {
                    let end = Isometry2d::new(
                        k.pose.translation + k.direction * MAX_DISTANCE,
                        k.pose.rotation,
                    );
                    black_box(time_of_impact(
                        black_box(&k.shape),
                        Sweep::new(black_box(k.pose), end),
                        &k.target,
                        Sweep::stationary(k.target_pose),
                    ));
                }
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench_casts);
criterion_main!(benches);
