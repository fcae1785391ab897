//! Pair tests: `bevy_collide2d`'s exact tests against parry2d's (the
//! geometry under avian2d and rapier), on the same random poses, about half of
//! them overlapping.
//!
//! `cargo bench -p bevy_collide2d_benches --bench pairs`

use std::hint::black_box;

use bevy::math::{Isometry2d, Rot2, Vec2};
use bevy_collide2d::geometry::Shape;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use parry2d::math::{Pose, Vector};
use parry2d::shape::{Ball, Cuboid, Shape as ParryShape};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const PAIRS: usize = 1024;

#[derive(Clone, Copy)]
struct Case {
    a: Shape,
    pose_a: Isometry2d,
    b: Shape,
    pose_b: Isometry2d,
}

fn random_shape(rng: &mut ChaCha8Rng, circle: bool) -> Shape {
    if circle {
        Shape::Circle {
            radius: rng.random_range(2.0..=6.0),
        }
    } else {
        Shape::Rect {
            half_size: Vec2::new(rng.random_range(2.0..=6.0), rng.random_range(2.0..=6.0)),
        }
    }
}

/// Pairs at random angles whose centres are up to 12 apart along each axis:
/// about half overlap, like the candidate pairs a broad phase hands on.
fn cases(circle_a: bool, circle_b: bool) -> Vec<Case> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    (0..PAIRS)
        .map(|_| {
            let pose = |rng: &mut ChaCha8Rng, spread: f32| {
                Isometry2d::new(
                    Vec2::new(
                        rng.random_range(-spread..spread),
                        rng.random_range(-spread..spread),
                    ),
                    Rot2::radians(rng.random_range(0.0..std::f32::consts::TAU)),
                )
            };
            Case {
                a: random_shape(&mut rng, circle_a),
                pose_a: pose(&mut rng, 0.0001),
                b: random_shape(&mut rng, circle_b),
                pose_b: pose(&mut rng, 12.0),
            }
        })
        .collect()
}

fn parry_shape(shape: Shape) -> Box<dyn ParryShape> {
    match shape {
        Shape::Circle { radius } => Box::new(Ball::new(radius)),
        Shape::Rect { half_size } => Box::new(Cuboid::new(Vector::new(half_size.x, half_size.y))),
    }
}

fn parry_pose(pose: Isometry2d) -> Pose {
    Pose::new(
        Vector::new(pose.translation.x, pose.translation.y),
        pose.rotation.as_radians(),
    )
}

fn bench_pairs(c: &mut Criterion) {
    for (name, circle_a, circle_b) in [
        ("circle-circle", true, true),
        ("circle-rect", true, false),
        ("rect-rect", false, false),
    ] {
        let cases = cases(circle_a, circle_b);
        let parry: Vec<_> = cases
            .iter()
            .map(|case| {
                (
                    parry_shape(case.a),
                    parry_pose(case.pose_a),
                    parry_shape(case.b),
                    parry_pose(case.pose_b),
                )
            })
            .collect();
        let overlapping = cases
            .iter()
            .filter(|c| c.a.intersects(c.pose_a, &c.b, c.pose_b))
            .count();
        let mut group = c.benchmark_group(format!("{name} ({overlapping}/{PAIRS} overlap)"));
        group.throughput(Throughput::Elements(PAIRS as u64));
        group.bench_function("bevy_collide2d intersects", |bench| {
            bench.iter(|| {
                black_box(&cases)
                    .iter()
                    .filter(|c| c.a.intersects(c.pose_a, &c.b, c.pose_b))
                    .count()
            })
        });
        group.bench_function("bevy_collide2d contact", |bench| {
            bench.iter(|| {
                black_box(&cases)
                    .iter()
                    .filter_map(|c| c.a.contact(c.pose_a, &c.b, c.pose_b))
                    .map(|contact| contact.depth)
                    .sum::<f32>()
            })
        });
        group.bench_function("parry2d intersection_test", |bench| {
            bench.iter(|| {
                black_box(&parry)
                    .iter()
                    .filter(|(a, pa, b, pb)| {
                        parry2d::query::intersection_test(pa, a.as_ref(), pb, b.as_ref()).unwrap()
                    })
                    .count()
            })
        });
        group.bench_function("parry2d contact", |bench| {
            bench.iter(|| {
                black_box(&parry)
                    .iter()
                    .filter_map(|(a, pa, b, pb)| {
                        parry2d::query::contact(pa, a.as_ref(), pb, b.as_ref(), 0.0).unwrap()
                    })
                    .map(|contact| contact.dist)
                    .sum::<f32>()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench_pairs);
criterion_main!(benches);
