//! Thousands of moving, spinning, spawning and despawning colliders: every
//! frame, CollidingEntities and the running sum of Started minus Ended equal
//! a brute-force all-pairs check.

use crate::common;

use std::collections::BTreeSet;

use bevy::prelude::*;
use bevy_collide2d::geometry::Shape;
use bevy_collide2d::pose_and_scale;
use bevy_collide2d::prelude::*;
use common::*;
use rand::{Rng, SeedableRng, rngs::StdRng};

const COUNT: usize = 2000;
const FRAMES: usize = 100;

#[derive(Component)]
struct Velocity {
    linear: Vec2,
    angular: f32,
}

#[derive(Resource)]
struct Crowd {
    rng: StdRng,
    side: f32,
}

fn spawn_one(commands: &mut Commands, crowd: &mut Crowd) {
    let rng = &mut crowd.rng;
    let collider = if rng.random_bool(0.5) {
        Collider::circle(rng.random_range(2.0..6.0))
    } else {
        Collider::rect(rng.random_range(4.0..12.0), rng.random_range(4.0..12.0))
    };
    let half = crowd.side / 2.0;
    let position = Vec3::new(
        rng.random_range(-half..half),
        rng.random_range(-half..half),
        0.0,
    );
    let angle = rng.random_range(0.0..std::f32::consts::TAU);
    let speed = rng.random_range(20.0..60.0);
    let heading = rng.random_range(0.0..std::f32::consts::TAU);
    commands.spawn((
        collider,
        Transform::from_translation(position).with_rotation(Quat::from_rotation_z(angle)),
        Velocity {
            linear: Vec2::from_angle(heading) * speed,
            angular: rng.random_range(-2.0..2.0),
        },
    ));
}

fn move_and_churn(
    mut commands: Commands,
    mut crowd: ResMut<Crowd>,
    mut movers: Query<(Entity, &mut Transform, &Velocity)>,
    frame: Res<bevy::diagnostic::FrameCount>,
) {
    let dt = 1.0 / 60.0;
    let half = crowd.side / 2.0;
    for (_, mut transform, velocity) in &mut movers {
        let mut p = transform.translation.truncate() + velocity.linear * dt;
        // Wrap around the square's edges.
        p = (p + half).rem_euclid(Vec2::splat(crowd.side)) - half;
        transform.translation = p.extend(0.0);
        transform.rotate_z(velocity.angular * dt);
    }
    // Every 7th frame some leave (mid-contact or not) and others arrive.
    if frame.0 % 7 == 3 {
        let entities: Vec<Entity> = movers.iter().map(|(e, ..)| e).collect();
        for _ in 0..20 {
            let victim = entities[crowd.rng.random_range(0..entities.len())];
            commands.entity(victim).try_despawn();
        }
        for _ in 0..20 {
            spawn_one(&mut commands, &mut crowd);
        }
    }
}

/// All touching pairs by testing every pair with the pure geometry, from
/// the same GlobalTransforms the plugin reads.
fn brute_force_pairs(app: &mut App) -> BTreeSet<(Entity, Entity)> {
    let mut query = app
        .world_mut()
        .query::<(Entity, &Collider, &GlobalTransform)>();
    let colliders: Vec<(Entity, Shape, Isometry2d)> = query
        .iter(app.world())
        .map(|(entity, collider, global)| {
            // rotate_z every frame lets the quaternion drift slightly from
            // unit length, which shows up as a scale near 1: apply it as the
            // plugin does.
            let (pose, scale) = pose_and_scale(global);
            assert!(scale.abs_diff_eq(Vec2::ONE, 1e-3), "{scale}");
            (entity, collider.shape().scaled(scale).unwrap(), pose)
        })
        .collect();
    let mut pairs = BTreeSet::new();
    for (i, (ea, ca, pa)) in colliders.iter().enumerate() {
        for (eb, cb, pb) in &colliders[i + 1..] {
            if ca.intersects(*pa, cb, *pb) {
                pairs.insert(ordered(*ea, *eb));
            }
        }
    }
    pairs
}

#[test]
fn crowd_matches_brute_force_every_frame() {
    let mut app = test_app();
    let side = (COUNT as f32).sqrt() * 16.0;
    app.insert_resource(Crowd {
        rng: StdRng::seed_from_u64(7),
        side,
    })
    .add_systems(
        Startup,
        |mut commands: Commands, mut crowd: ResMut<Crowd>| {
            for _ in 0..COUNT {
                spawn_one(&mut commands, &mut crowd);
            }
        },
    )
    .add_systems(Update, move_and_churn);

    let mut log = MessageLog::default();
    let mut live: BTreeSet<(Entity, Entity)> = BTreeSet::new();
    let (mut started_total, mut ended_total, mut despawned_ends) = (0, 0, 0);
    let mut max_live = 0;
    for frame in 0..FRAMES {
        app.update();
        for event in log.read(&app) {
            match event {
                CollisionEvent::Started { a, b, contact } => {
                    assert!(a < b);
                    assert!(contact.depth >= 0.0 && contact.point.is_finite());
                    assert!(
                        live.insert((a, b)),
                        "frame {frame}: second Started for {a} {b}"
                    );
                    started_total += 1;
                }
                CollisionEvent::Ended { a, b } => {
                    assert!(
                        live.remove(&(a, b)),
                        "frame {frame}: Ended without Started for {a} {b}"
                    );
                    ended_total += 1;
                    despawned_ends += [a, b]
                        .iter()
                        .filter(|e| app.world().get_entity(**e).is_err())
                        .count();
                }
            }
        }
        let truth = brute_force_pairs(&mut app);
        assert_eq!(
            live, truth,
            "frame {frame}: Started minus Ended differs from brute force"
        );
        max_live = max_live.max(truth.len());

        // CollidingEntities of every collider lists exactly its partners.
        let mut query = app
            .world_mut()
            .query_filtered::<(Entity, &CollidingEntities), With<Collider>>();
        for (entity, colliding) in query.iter(app.world()) {
            let expected: Vec<Entity> = truth
                .iter()
                .filter_map(|&(a, b)| {
                    if a == entity {
                        Some(b)
                    } else if b == entity {
                        Some(a)
                    } else {
                        None
                    }
                })
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            assert_eq!(
                colliding.iter().collect::<Vec<_>>(),
                expected,
                "frame {frame}: {entity}"
            );
        }
    }
    // The scene really exercised contacts and despawns mid-contact.
    assert!(max_live > COUNT / 10, "only {max_live} contacts");
    assert!(
        started_total > 1000 && ended_total > 1000,
        "{started_total} / {ended_total}"
    );
    assert!(despawned_ends > 0, "no contact ended by a despawn");

    // Observers: both sides heard every start, and every end but the sides
    // that were despawned.
    let observed = take_observed(&mut app);
    let observed_started = observed
        .iter()
        .filter(|e| matches!(e, ObservedEvent::Started { .. }))
        .count();
    assert_eq!(observed_started, 2 * started_total);
    assert_eq!(
        observed.len() - observed_started,
        2 * ended_total - despawned_ends
    );
}
