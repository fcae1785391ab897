//! The benchmark scene, shared by every engine: N colliders, half circles and
//! half rotated rectangles, moving and spinning by writing `Transform`.

use bevy::math::bounding::Aabb2d;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_collide2d::geometry::Shape;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

/// The fixed step every app advances by.
pub const STEP: Duration = Duration::from_nanos(1_000_000_000 / 60);

/// A collider's shape, in world units (no scale).
#[derive(Clone, Copy, Debug)]
pub enum BodyShape {
    Circle { radius: f32 },
    Rect { half_size: Vec2 },
}

/// One collider of the scene: where it starts and how it moves.
#[derive(Clone, Copy, Debug)]
pub struct Body {
    pub shape: BodyShape,
    pub position: Vec2,
    pub angle: f32,
    pub velocity: Vec2,
    pub spin: f32,
}

/// The motion of a scene body, applied to its `Transform` every frame.
#[derive(Component, Clone, Copy)]
pub struct Mover {
    pub velocity: Vec2,
    pub spin: f32,
}

/// The square the bodies move in, wrapping at the edges: side `sqrt(n) * 16`,
/// centred on the origin, so the density (and contacts per body) does not
/// depend on `n`.
#[derive(Resource, Clone, Copy)]
pub struct Arena {
    pub half_side: f32,
}

impl Arena {
    pub fn for_count(n: usize) -> Self {
        Self {
            half_side: (n as f32).sqrt() * 16.0 / 2.0,
        }
    }
}

/// The seeded bodies of a scene of `n`.
pub fn generate(n: usize, seed: u64) -> Vec<Body> {
    let arena = Arena::for_count(n);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let shape = if i % 2 == 0 {
                BodyShape::Circle {
                    radius: rng.random_range(2.0..=6.0),
                }
            } else {
                BodyShape::Rect {
                    half_size: Vec2::new(rng.random_range(2.0..=6.0), rng.random_range(2.0..=6.0)),
                }
            };
            let h = arena.half_side;
            let speed = rng.random_range(20.0..=60.0);
            let heading = rng.random_range(0.0..std::f32::consts::TAU);
            Body {
                shape,
                position: Vec2::new(rng.random_range(-h..h), rng.random_range(-h..h)),
                angle: rng.random_range(0.0..std::f32::consts::TAU),
                velocity: Vec2::from_angle(heading) * speed,
                spin: rng.random_range(-2.0..=2.0),
            }
        })
        .collect()
}

/// The bounding boxes of the seeded bodies of a scene of `n`, where they
/// start: what the broad phase sees (for benchmarks of it alone).
#[allow(dead_code)] // not used by the comparison runner itself
pub fn start_aabbs(n: usize, seed: u64) -> Vec<Aabb2d> {
    generate(n, seed)
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

/// Moves and spins every body by one step, wrapping at the arena's edges.
pub fn move_bodies(
    time: Res<Time>,
    arena: Res<Arena>,
    mut bodies: Query<(&mut Transform, &Mover)>,
) {
    let dt = time.delta_secs();
    let side = arena.half_side * 2.0;
    bodies.par_iter_mut().for_each(|(mut transform, mover)| {
        let mut p = transform.translation.truncate() + mover.velocity * dt;
        // Wrap into [-h, h).
        p = (p + arena.half_side).rem_euclid(Vec2::splat(side)) - arena.half_side;
        transform.translation = p.extend(0.0);
        transform.rotate_z(mover.spin * dt);
    });
}

/// The engine-independent part of every app: a headless app with a manual
/// 1/60 s clock, transforms, and the mover system in `Update`.
pub fn base_app(n: usize) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(STEP))
        .insert_resource(Arena::for_count(n))
        .add_systems(Update, move_bodies);
    app
}

/// The transform and motion of a body, for spawning.
pub fn body_bundle(body: &Body) -> (Transform, Mover) {
    (
        Transform::from_translation(body.position.extend(0.0))
            .with_rotation(Quat::from_rotation_z(body.angle)),
        Mover {
            velocity: body.velocity,
            spin: body.spin,
        },
    )
}

/// Start and end events an engine reported, counted by its event reader.
/// `started - ended` is the number of pairs the events say are touching.
#[derive(Resource, Default, Clone, Copy, Debug)]
pub struct EventTally {
    pub started: u64,
    pub ended: u64,
}
