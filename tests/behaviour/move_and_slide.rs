//! SpatialQuery::move_and_slide as a platformer uses it, frame by frame with
//! gravity: standing, sliding along a wall, walkable and steep slopes,
//! one-way platforms, tile seams, steps, starting inside, random motions
//! that must never end inside a collider, and bad input.

use crate::common;

use std::f32::consts::{FRAC_PI_6, PI};

use bevy::ecs::system::{RunSystemOnce, SystemState};
use bevy::prelude::*;
use bevy::shape::BoundingVolume;
use bevy_collide2d::prelude::*;
use common::*;
use rand::{Rng, SeedableRng, rngs::StdRng};

const DT: f32 = 1.0 / 60.0;
const GRAVITY: f32 = 900.0;
/// 2 units a frame: character edges pass exactly over 16-unit tile seams.
const WALK: f32 = 120.0;
const SKIN: f32 = 0.1;

/// A level whose colliders the detection has read, and a query on it.
struct Level {
    app: App,
    state: SystemState<SpatialQuery<'static, 'static>>,
}

impl Level {
    fn new(build: impl FnOnce(&mut App)) -> Self {
        let mut app = test_app();
        build(&mut app);
        app.update();
        let state = SystemState::new(app.world_mut());
        Self { app, state }
    }

    fn slide(
        &mut self,
        collider: &Collider,
        at: Vec2,
        motion: Vec2,
        config: &MoveAndSlideConfig,
    ) -> MoveAndSlideOutput {
        let spatial = self.state.get(self.app.world()).unwrap();
        let pose = Isometry2d::from_translation(at);
        spatial.move_and_slide(collider, pose, motion, config, &QueryFilter::default())
    }

    /// Every collider of the level that `collider` at `at` overlaps deeper
    /// than `tolerance`.
    fn inside(&mut self, collider: &Collider, at: Vec2, tolerance: f32) -> Vec<(Entity, f32)> {
        let mut query = self
            .app
            .world_mut()
            .query::<(Entity, &Collider, &GlobalTransform)>();
        query
            .iter(self.app.world())
            .filter_map(|(entity, other, transform)| {
                let (shape, pose) = other.world_shape(transform).ok()?;
                let contact =
                    collider
                        .shape()
                        .contact(Isometry2d::from_translation(at), &shape, pose)?;
                (contact.depth > tolerance).then_some((entity, contact.depth))
            })
            .collect()
    }
}

fn solid(app: &mut App, collider: Collider, x: f32, y: f32) -> Entity {
    app.world_mut()
        .spawn((collider, StaticCollider, Transform::from_xyz(x, y, 0.0)))
        .id()
}

fn solid_rotated(app: &mut App, collider: Collider, x: f32, y: f32, angle: f32) -> Entity {
    let transform = Transform::from_xyz(x, y, 0.0).with_rotation(Quat::from_rotation_z(angle));
    app.world_mut()
        .spawn((collider, StaticCollider, transform))
        .id()
}

/// A character as a game moves it: velocity, gravity, and fall speed reset
/// on the ground.
struct Character {
    collider: Collider,
    at: Vec2,
    velocity: Vec2,
}

impl Character {
    fn new(collider: Collider, x: f32, y: f32) -> Self {
        Self {
            collider,
            at: Vec2::new(x, y),
            velocity: Vec2::ZERO,
        }
    }

    /// One frame walking at `walk`.
    fn frame(
        &mut self,
        level: &mut Level,
        walk: f32,
        config: &MoveAndSlideConfig,
    ) -> MoveAndSlideOutput {
        self.velocity.x = walk;
        self.velocity.y -= GRAVITY * DT;
        let out = level.slide(&self.collider, self.at, self.velocity * DT, config);
        self.at = out.translation;
        if out.grounded && self.velocity.y < 0.0 {
            self.velocity.y = 0.0;
        }
        out
    }
}

/// Half the height of each test character: rect 16x32, capsule radius 8
/// and length 16, circle radius 16.
fn characters() -> [(&'static str, Collider); 3] {
    [
        ("rect", Collider::rect(16.0, 32.0)),
        ("capsule", Collider::capsule(8.0, 16.0)),
        ("circle", Collider::circle(16.0)),
    ]
}

fn config() -> MoveAndSlideConfig {
    MoveAndSlideConfig {
        skin: SKIN,
        ..default()
    }
}

/// A floor whose top is at y = 0.
fn floor(app: &mut App) -> Entity {
    solid(app, Collider::rect(2000.0, 20.0), 0.0, -10.0)
}

#[test]
fn standing_on_a_floor_stays_grounded_without_drift() {
    let mut level = Level::new(|app| {
        floor(app);
    });
    for (name, collider) in characters() {
        // Dropped from a little above.
        let mut character = Character::new(collider, 0.0, 16.0 + 5.0);
        let mut rest = None;
        for frame in 0..100 {
            let out = character.frame(&mut level, 0.0, &config());
            if frame >= 20 {
                assert!(out.grounded, "{name} frame {frame}: {out:?}");
                assert_eq!(out.ground.unwrap().normal, Dir2::Y, "{name}");
                let rest = *rest.get_or_insert(character.at);
                assert_eq!(character.at, rest, "{name} drifted at frame {frame}");
            }
        }
        let gap = character.at.y - 16.0;
        assert!(
            (0.0..=2.0 * SKIN).contains(&gap),
            "{name} rests {gap} above the floor"
        );
        assert_eq!(character.at.x, 0.0, "{name}");
    }
}

#[test]
fn sliding_along_a_wall_keeps_the_parallel_motion() {
    let mut level = Level::new(|app| {
        solid(app, Collider::rect(20.0, 2000.0), 110.0, 0.0); // left face at x = 100
    });
    let config = config();
    for (name, collider) in characters() {
        let half_width = collider.aabb(Isometry2d::IDENTITY).half_size().x;
        let mut at = Vec2::new(100.0 - half_width - 20.0, 0.0);
        let mut against = None;
        for frame in 0..60 {
            // Top-down: no gravity, diagonally into the wall.
            let out = level.slide(&collider, at, Vec2::new(3.0, 2.0), &config);
            assert!(
                (out.moved.y - 2.0).abs() < 1e-3,
                "{name} frame {frame} lost the parallel motion: {out:?}"
            );
            if let Some(hit) = out.hits.first() {
                assert_eq!(hit.normal, Dir2::NEG_X, "{name}");
                // Against the wall, x never moves again: no jitter.
                let x = *against.get_or_insert(out.translation.x);
                assert_eq!(out.translation.x, x, "{name} frame {frame}");
            }
            at = out.translation;
        }
        let gap = 100.0 - half_width - at.x;
        assert!(
            (0.0..=SKIN + 5e-3).contains(&gap),
            "{name} stopped {gap} from the wall"
        );
    }
}

/// `move_and_slide_with` shows each surface and the motion left after it,
/// and stops where the hook says; `projected_velocity` keeps only what does
/// not go into the surfaces met.
#[test]
fn a_hook_sees_each_wall_and_can_stop_the_slide() {
    let mut level = Level::new(|app| {
        solid(app, Collider::rect(20.0, 2000.0), 110.0, 0.0); // left face at x = 100
    });
    let collider = Collider::rect(16.0, 16.0);
    let at = Vec2::new(80.0, 0.0);
    let motion = Vec2::new(30.0, 20.0);
    let spatial = level.state.get(level.app.world()).unwrap();
    let config = config();
    let pose = Isometry2d::from_translation(at);
    let filter = QueryFilter::default();
    let slid = spatial.move_and_slide(&collider, pose, motion, &config, &filter);
    let mut seen = Vec::new();
    let stopped =
        spatial.move_and_slide_with(&collider, pose, motion, &config, &filter, |hit, rest| {
            seen.push((hit.normal, *rest));
            *rest = Vec2::ZERO;
        });
    // Both reach the wall; only the plain one slides up along it.
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].0, Dir2::NEG_X);
    assert!(
        (seen[0].1 - Vec2::new(0.0, slid.moved.y - stopped.moved.y)).length() < 1e-3,
        "{seen:?}"
    );
    assert!((slid.translation.x - stopped.translation.x).abs() < 1e-4);
    assert!((slid.moved.y - 20.0).abs() < 1e-3, "{slid:?}");
    assert!(
        stopped.moved.y < 20.0 && stopped.moved.y > 0.0,
        "{stopped:?}"
    );
    // Started 3 into the wall: pushed out to a skin from it.
    let inside = Isometry2d::from_translation(Vec2::new(95.0, 0.0));
    let (out, hits) = spatial.depenetrate(&collider, inside, &config, &filter);
    assert!((out - Vec2::new(92.0 - SKIN, 0.0)).length() < 1e-4, "{out}");
    assert_eq!(
        hits.iter().map(|hit| hit.normal).collect::<Vec<_>>(),
        [Dir2::NEG_X]
    );
    // What is left of a velocity into the wall: the part along it.
    assert_eq!(
        slid.projected_velocity(Vec2::new(300.0, 200.0)),
        Vec2::new(0.0, 200.0)
    );
    assert_eq!(
        slid.projected_velocity(Vec2::new(-300.0, 200.0)),
        Vec2::new(-300.0, 200.0)
    );
}

/// Ramps rising to the right at `angle`, from x = 0: a rotated rectangle
/// and a convex polygon, each in its own level with a floor at y = 0.
fn ramps(angle: f32) -> [Level; 2] {
    let length = 400.0;
    let rotated = Level::new(|app| {
        floor(app);
        // A thick slab whose top face passes through the origin.
        let (sin, cos) = angle.sin_cos();
        let centre = Vec2::new(cos, sin) * (length / 2.0) + Vec2::new(sin, -cos) * 20.0;
        solid_rotated(app, Collider::rect(length, 40.0), centre.x, centre.y, angle);
    });
    let polygon = Level::new(|app| {
        floor(app);
        let run = length * angle.cos();
        let top = run * angle.tan();
        let wedge =
            Collider::convex_polygon(&[Vec2::ZERO, Vec2::new(run, 0.0), Vec2::new(run, top)])
                .unwrap();
        solid(app, wedge, 0.0, 0.0);
    });
    [rotated, polygon]
}

/// The height of the ramps' surface at `x`.
fn ramp_height(angle: f32, x: f32) -> f32 {
    x.max(0.0) * angle.tan()
}

#[test]
fn walkable_slope_is_walked_up_at_full_speed_and_stood_on_without_sliding() {
    let angle = FRAC_PI_6; // 30 degrees, under the default 45
    for (kind, mut level) in ["rotated rect", "polygon"].into_iter().zip(ramps(angle)) {
        for (name, collider) in characters() {
            let start_x = 60.0;
            let half = collider.aabb(Isometry2d::IDENTITY).half_size();
            // Standing on the slope for 100 frames: no sliding down.
            let mut character = Character::new(
                collider.clone(),
                start_x,
                ramp_height(angle, 80.0) + 2.0 * half.y,
            );
            let mut rest = None;
            for frame in 0..100 {
                let out = character.frame(&mut level, 0.0, &config());
                if frame >= 40 {
                    assert!(out.grounded, "{kind} {name} frame {frame}: {out:?}");
                    let rest = *rest.get_or_insert(character.at);
                    assert!(
                        character.at.distance(rest) < 1e-3,
                        "{kind} {name} slid from {rest} to {} at frame {frame}",
                        character.at
                    );
                }
            }
            // Walking up: the full horizontal speed every frame, grounded.
            for frame in 0..60 {
                let before = character.at;
                let out = character.frame(&mut level, WALK, &config());
                assert!(
                    (out.moved.x - WALK * DT).abs() < 1e-3,
                    "{kind} {name} frame {frame} slowed: {out:?}"
                );
                assert!(out.moved.y > 0.0, "{kind} {name} frame {frame}");
                assert!(out.grounded, "{kind} {name} frame {frame}: {out:?}");
                assert!(character.at.x > before.x);
            }
        }
    }
}

#[test]
fn steep_slope_slides_down_and_cannot_be_walked_up() {
    let angle = PI / 3.0; // 60 degrees, over the default 45
    for (kind, mut level) in ["rotated rect", "polygon"].into_iter().zip(ramps(angle)) {
        for (name, collider) in characters() {
            let half = collider.aabb(Isometry2d::IDENTITY).half_size();
            // Dropped onto the slope: it slides down to the floor.
            let mut character = Character::new(
                collider.clone(),
                60.0,
                ramp_height(angle, 60.0) + 2.0 * half.y,
            );
            let start = character.at;
            for _ in 0..120 {
                character.frame(&mut level, 0.0, &config());
            }
            assert!(
                character.at.y < start.y - 20.0 && character.at.x < start.x,
                "{kind} {name} did not slide down: {start} -> {}",
                character.at
            );
            // Walking into it from the floor never climbs it.
            let mut character = Character::new(collider.clone(), -40.0, half.y + SKIN);
            for frame in 0..120 {
                let out = character.frame(&mut level, WALK, &config());
                assert!(
                    character.at.y < half.y + 4.0,
                    "{kind} {name} climbed to {} at frame {frame}: {out:?}",
                    character.at
                );
            }
        }
    }
}

#[test]
fn one_way_platform_is_jumped_through_and_landed_on() {
    let mut platform = Entity::PLACEHOLDER;
    let mut level = Level::new(|app| {
        floor(app);
        // Top at y = 60.
        platform = app
            .world_mut()
            .spawn((
                Collider::rect(200.0, 10.0),
                StaticCollider,
                OneWayPlatform::default(),
                Transform::from_xyz(0.0, 55.0, 0.0),
            ))
            .id();
    });
    for (name, collider) in characters() {
        let half = collider.aabb(Isometry2d::IDENTITY).half_size();
        let mut character = Character::new(collider.clone(), 0.0, half.y + SKIN);
        character.frame(&mut level, 0.0, &config());
        // Jump: through the platform from below, then land on top of it.
        character.velocity.y = 480.0;
        let mut landed = false;
        let mut highest = character.at.y;
        for _ in 0..120 {
            let out = character.frame(&mut level, 0.0, &config());
            highest = highest.max(character.at.y);
            if out.grounded && character.at.y > 60.0 {
                assert_eq!(out.ground.unwrap().entity, platform, "{name}");
                landed = true;
            }
        }
        assert!(highest > 60.0 + 2.0 * half.y, "{name} jumped to {highest}");
        assert!(landed, "{name} did not land on the platform");
        let gap = character.at.y - half.y - 60.0;
        assert!(
            (0.0..=2.0 * SKIN).contains(&gap),
            "{name} rests {gap} above it"
        );
        // Walking off its end and falling past its side.
        for _ in 0..120 {
            character.frame(&mut level, WALK, &config());
        }
        assert!(character.at.y < 60.0, "{name}: {}", character.at);

        // A jump too low to clear it falls back through it.
        let mut character = Character::new(collider.clone(), 0.0, half.y + SKIN);
        character.velocity.y = 300.0; // apex 50 high: the top stays inside
        for _ in 0..120 {
            character.frame(&mut level, 0.0, &config());
        }
        let gap = character.at.y - half.y;
        assert!((0.0..=2.0 * SKIN).contains(&gap), "{name} ended at {gap}");
    }
}

#[test]
fn one_way_platform_blocks_only_from_its_normal_side() {
    let mut level = Level::new(|app| {
        // Blocks from the left: open from the right.
        app.world_mut().spawn((
            Collider::rect(10.0, 200.0),
            StaticCollider,
            OneWayPlatform {
                normal: Dir2::NEG_X,
            },
            Transform::from_xyz(0.0, 0.0, 0.0),
        ));
    });
    let ball = Collider::circle(4.0);
    let config = config();
    let from_left = level.slide(&ball, Vec2::new(-20.0, 0.0), Vec2::new(40.0, 0.0), &config);
    assert!(
        (from_left.translation.x - (-9.0 - SKIN)).abs() < 1e-3,
        "{from_left:?}"
    );
    let from_right = level.slide(&ball, Vec2::new(20.0, 0.0), Vec2::new(-40.0, 0.0), &config);
    assert_eq!(from_right.translation, Vec2::new(-20.0, 0.0));
    assert!(from_right.hits.is_empty());
}

/// One frame of a walk at `walk` that kept its whole horizontal speed,
/// stayed on the ground and met no surface whose normal has less `y` than
/// `min_normal_y` (a sideways normal at a seam or a joint).
fn assert_walked_on(
    out: &MoveAndSlideOutput,
    (name, walk, frame): (&str, f32, usize),
    x: f32,
    min_normal_y: f32,
) {
    assert!(
        (out.moved.x - walk * DT).abs() < 1e-3,
        "{name} at {walk} snagged at frame {frame}, x {x}: {out:?}"
    );
    assert!(out.grounded, "{name} at {walk} frame {frame}: {out:?}");
    assert!(
        out.hits.iter().all(|hit| hit.normal.y > min_normal_y),
        "{name} at {walk} met a surface too steep at frame {frame}: {out:?}"
    );
}

#[test]
fn tile_seams_never_stop_a_walk() {
    // 40 separate 16x16 tiles, not merged: 39 seams.
    let mut level = Level::new(|app| {
        for i in 0..40 {
            solid(app, Collider::rect(16.0, 16.0), i as f32 * 16.0 + 8.0, -8.0);
        }
    });
    let characters = [
        ("rect", Collider::rect(16.0, 32.0)),
        ("wide rect", Collider::rect(15.0, 10.0)),
        ("capsule", Collider::capsule(8.0, 16.0)),
        ("circle", Collider::circle(8.0)),
    ];
    for (name, collider) in characters {
        for walk in [WALK, -WALK, 97.0, -97.0] {
            let half = collider.aabb(Isometry2d::IDENTITY).half_size();
            let start_x = if walk > 0.0 { 20.0 } else { 620.0 };
            let mut character = Character::new(collider.clone(), start_x, half.y + 1.0);
            for _ in 0..10 {
                character.frame(&mut level, 0.0, &config());
            }
            let height = character.at.y;
            for frame in 0..240 {
                let out = character.frame(&mut level, walk, &config());
                // Only tile tops, never a tile's side.
                assert_walked_on(&out, (name, walk, frame), character.at.x, 0.999);
                assert!(
                    (character.at.y - height).abs() < 5e-3,
                    "{name} at {walk} bumped at frame {frame} from {height}: {out:?}"
                );
            }
        }
    }
}

/// Rolling hills as one polyline, a point every 10 units (80 interior
/// vertices, convex and concave, none steeper than 27 degrees).
fn hill_height(x: f32) -> f32 {
    30.0 * (x / 60.0).sin()
}

#[test]
fn a_polyline_hill_is_walked_without_snagging() {
    let points: Vec<Vec2> = (0..=80)
        .map(|i| Vec2::new(i as f32 * 10.0, hill_height(i as f32 * 10.0)))
        .collect();
    let mut level = Level::new(|app| {
        solid(app, Collider::polyline(&points).unwrap(), 0.0, 0.0);
    });
    let config = MoveAndSlideConfig {
        snap_to_ground: 4.0,
        ..config()
    };
    for (name, collider) in characters() {
        for walk in [WALK, -WALK] {
            let half = collider.aabb(Isometry2d::IDENTITY).half_size();
            let start_x = if walk > 0.0 { 100.0 } else { 700.0 };
            let start_y = hill_height(start_x) + half.y + 20.0;
            let mut character = Character::new(collider.clone(), start_x, start_y);
            for _ in 0..30 {
                character.frame(&mut level, 0.0, &config);
            }
            for frame in 0..240 {
                let out = character.frame(&mut level, walk, &config);
                // No normal steeper than the hill's 27 degrees.
                assert_walked_on(&out, (name, walk, frame), character.at.x, 0.88);
            }
        }
    }
}

#[test]
fn walking_up_a_slope_into_a_wall_stops_without_climbing_or_jitter() {
    let angle = FRAC_PI_6;
    let mut level = Level::new(|app| {
        floor(app);
        let wedge = Collider::convex_polygon(&[
            Vec2::ZERO,
            Vec2::new(400.0, 0.0),
            Vec2::new(400.0, 400.0 * angle.tan()),
        ])
        .unwrap();
        solid(app, wedge, 0.0, 0.0);
        solid(app, Collider::rect(20.0, 400.0), 360.0, 200.0); // face at x = 350
    });
    for (name, collider) in characters() {
        let half = collider.aabb(Isometry2d::IDENTITY).half_size();
        let mut character = Character::new(
            collider.clone(),
            40.0,
            ramp_height(angle, 48.0) + 2.0 * half.y,
        );
        let mut rest = None;
        let mut highest = f32::NEG_INFINITY;
        for frame in 0..200 {
            // Running: much of a frame's motion is left when the wall is met.
            let out = character.frame(&mut level, 4.0 * WALK, &config());
            if frame >= 30 {
                highest = highest.max(character.at.y);
            }
            if frame >= 150 {
                assert!(out.grounded, "{name} frame {frame}: {out:?}");
                let rest = *rest.get_or_insert(character.at);
                assert!(
                    character.at.distance(rest) < 1e-3,
                    "{name} jitters against the wall: {rest} then {} at frame {frame}",
                    character.at
                );
            }
        }
        assert!(
            character.at.x > 350.0 - half.x - 1.0,
            "{name}: {}",
            character.at
        );
        // Never above where it comes to rest: the wall is not climbed.
        assert!(
            highest <= character.at.y + 1e-3,
            "{name} climbed the wall to {highest}, then fell back to {}",
            character.at
        );
    }
}

#[test]
fn a_corner_between_two_walls_stops_the_motion() {
    // Two slabs at +-30 degrees: a wedge narrowing to the left.
    let mut level = Level::new(|app| {
        for angle in [FRAC_PI_6, -FRAC_PI_6] {
            let (sin, cos) = angle.sin_cos();
            let outward = Vec2::new(-sin, cos) * angle.signum();
            let centre = Vec2::new(cos, sin) * 100.0 - outward * 10.0;
            solid_rotated(app, Collider::rect(200.0, 20.0), centre.x, centre.y, angle);
        }
    });
    let config = config();
    for (name, collider) in [
        ("ball", Collider::circle(4.0)),
        ("box", Collider::rect(6.0, 6.0)),
    ] {
        let mut at = Vec2::new(100.0, 0.0);
        let mut rest = None;
        for frame in 0..120 {
            // Top-down, straight into the tip with a little sideways push.
            let out = level.slide(&collider, at, Vec2::new(-3.0, 0.3), &config);
            at = out.translation;
            // Once each: the motion stops at the corner rather than
            // bouncing between its walls until the iterations run out.
            assert!(out.hits.len() <= 2, "{name} frame {frame}: {out:?}");
            if frame >= 100 {
                let rest = *rest.get_or_insert(at);
                assert!(
                    at.distance(rest) < 1e-3,
                    "{name} jitters in the corner: {rest} then {at}"
                );
            }
        }
        assert!(
            level.inside(&collider, at, 0.0).is_empty(),
            "{name} at {at}"
        );
    }
}

/// A floor at y = 0 with a 6-high ledge from x = 100 and a 20-high wall
/// from x = 300.
fn ledges(app: &mut App) {
    floor(app);
    solid(app, Collider::rect(200.0, 6.0), 200.0, 3.0);
    solid(app, Collider::rect(200.0, 20.0), 400.0, 10.0);
}

#[test]
fn steps_up_a_small_ledge_but_not_a_tall_one() {
    let mut level = Level::new(ledges);
    let stepping = MoveAndSlideConfig {
        step_height: 8.0,
        ..config()
    };
    let characters = [
        ("rect", Collider::rect(16.0, 32.0)),
        ("capsule", Collider::capsule(8.0, 16.0)),
        ("tall capsule", Collider::capsule(5.0, 30.0)),
    ];
    for (name, collider) in characters {
        let half = collider.aabb(Isometry2d::IDENTITY).half_size();
        for walk in [WALK, 30.0] {
            let mut character = Character::new(collider.clone(), 40.0, half.y + SKIN);
            for _ in 0..(600.0 / walk * 60.0) as usize {
                character.frame(&mut level, walk, &stepping);
            }
            // On the ledge, against the tall wall.
            let gap = character.at.y - half.y - 6.0;
            assert!(
                (0.0..=2.0 * SKIN).contains(&gap),
                "{name} at {walk} is {gap} above the ledge: {}",
                character.at
            );
            assert!(
                (character.at.x - (300.0 - half.x)).abs() <= SKIN + 5e-3,
                "{name} at {walk} stopped at {}",
                character.at
            );
        }
        if name == "rect" {
            // Without stepping, the ledge is a wall.
            let mut character = Character::new(collider.clone(), 40.0, half.y + SKIN);
            for _ in 0..120 {
                character.frame(&mut level, WALK, &config());
            }
            assert!(character.at.x <= 100.0 - half.x, "{}", character.at);
        }
    }
}

#[test]
fn snaps_down_slopes_and_steps_when_asked() {
    // A 30-degree ramp down to the right from a plateau, then a 6-high step.
    let angle = FRAC_PI_6;
    let mut level = Level::new(|app| {
        floor(app);
        let run = 100.0;
        let top = run * angle.tan();
        solid(app, Collider::rect(100.0, top), -50.0, top / 2.0);
        let wedge =
            Collider::convex_polygon(&[Vec2::ZERO, Vec2::new(run, 0.0), Vec2::new(0.0, top)])
                .unwrap();
        solid(app, wedge, 0.0, 0.0);
    });
    let snapping = MoveAndSlideConfig {
        snap_to_ground: 6.0,
        ..config()
    };
    let collider = Collider::capsule(8.0, 16.0);
    let top = 100.0 * angle.tan();
    let mut character = Character::new(collider, -40.0, top + 16.0 + SKIN);
    // Faster than gravity can follow the slope in one frame.
    for frame in 0..80 {
        let out = character.frame(&mut level, 240.0, &snapping);
        assert!(out.grounded, "frame {frame}: {out:?}");
    }
    assert!(character.at.x > 150.0);
    let mut character = Character::new(Collider::capsule(8.0, 16.0), -40.0, top + 16.0 + SKIN);
    let airborne = (0..80)
        .filter(|_| !character.frame(&mut level, 240.0, &config()).grounded)
        .count();
    assert!(airborne > 0, "without snapping, the walk leaves the slope");
}

#[test]
fn starting_inside_is_pushed_out_or_stays() {
    let mut level = Level::new(|app| {
        floor(app);
        // A gap 10 wide between two walls: too narrow for a 16-wide rect.
        solid(app, Collider::rect(20.0, 100.0), 190.0, 50.0);
        solid(app, Collider::rect(20.0, 100.0), 220.0, 50.0);
    });
    let collider = Collider::rect(16.0, 32.0);
    // Sunk 5 into the floor: out, a skin above it, grounded.
    let out = level.slide(&collider, Vec2::new(0.0, 11.0), Vec2::ZERO, &config());
    assert!((out.translation.y - (16.0 + SKIN)).abs() < 1e-3, "{out:?}");
    assert!(out.grounded && out.hits.len() == 1, "{out:?}");
    // Touching exactly: a skin above.
    let out = level.slide(&collider, Vec2::new(0.0, 16.0), Vec2::ZERO, &config());
    assert!((out.translation.y - (16.0 + SKIN)).abs() < 1e-3, "{out:?}");
    // Squeezed in the gap: no way out that does not enter another wall.
    let squeezed = Vec2::new(205.0, 60.0);
    let out = level.slide(&collider, squeezed, Vec2::ZERO, &config());
    assert_eq!(out.translation, squeezed, "{out:?}");
    assert!(out.hits.is_empty());
}

#[test]
fn random_motions_never_end_inside_a_collider() {
    let mut rng = StdRng::seed_from_u64(0x5_11DE);
    let mut level = Level::new(|app| {
        let mut rng = StdRng::seed_from_u64(7);
        for _ in 0..60 {
            let x = rng.random_range(-300.0..300.0);
            let y = rng.random_range(-300.0..300.0);
            let angle = rng.random_range(0.0..PI);
            let collider = match rng.random_range(0..4) {
                0 => Collider::rect(rng.random_range(4.0..120.0), rng.random_range(4.0..60.0)),
                1 => Collider::circle(rng.random_range(3.0..30.0)),
                2 => Collider::capsule(rng.random_range(3.0..15.0), rng.random_range(0.0..40.0)),
                _ => Collider::convex_polygon(&[
                    Vec2::new(-20.0, -10.0),
                    Vec2::new(25.0, -5.0),
                    Vec2::new(5.0, 20.0),
                ])
                .unwrap(),
            };
            solid_rotated(app, collider, x, y, angle);
        }
        // A box around it all.
        for (w, h, x, y) in [
            (700.0, 20.0, 0.0, -340.0),
            (700.0, 20.0, 0.0, 340.0),
            (20.0, 700.0, -340.0, 0.0),
            (20.0, 700.0, 340.0, 0.0),
        ] {
            solid(app, Collider::rect(w, h), x, y);
        }
    });
    let configs = [
        config(),
        MoveAndSlideConfig {
            step_height: 8.0,
            snap_to_ground: 6.0,
            ..config()
        },
        MoveAndSlideConfig {
            up: Dir2::from_angle(1.0),
            max_slope: 1.2,
            step_height: 4.0,
            ..config()
        },
    ];
    for (name, collider) in characters()
        .into_iter()
        .chain([("small circle", Collider::circle(2.0))])
    {
        // A free place to start.
        let mut at = loop {
            let at = Vec2::new(
                rng.random_range(-300.0..300.0),
                rng.random_range(-300.0..300.0),
            );
            if level.inside(&collider, at, 0.0).is_empty() {
                break at;
            }
        };
        for step in 0..400 {
            let motion = if rng.random_bool(0.2) {
                Vec2::new(
                    rng.random_range(-200.0..200.0),
                    rng.random_range(-200.0..200.0),
                )
            } else {
                Vec2::new(rng.random_range(-6.0..6.0), rng.random_range(-12.0..4.0))
            };
            let config = configs[step % configs.len()];
            let out = level.slide(&collider, at, motion, &config);
            let inside = level.inside(&collider, out.translation, 1e-3);
            assert!(
                inside.is_empty(),
                "{name} step {step}: {at} + {motion} ended at {} inside {inside:?}: {out:?}",
                out.translation
            );
            at = out.translation;
        }
    }
}

#[test]
fn bad_input_leaves_the_collider_where_it_is() {
    let mut level = Level::new(|app| {
        floor(app);
    });
    let rect = Collider::rect(16.0, 32.0);
    let at = Vec2::new(0.0, 40.0);
    let motion = Vec2::new(5.0, -5.0);
    let bad_configs = [
        MoveAndSlideConfig {
            skin: f32::NAN,
            ..config()
        },
        MoveAndSlideConfig {
            skin: 0.0,
            ..config()
        },
        MoveAndSlideConfig {
            max_slope: -0.1,
            ..config()
        },
        MoveAndSlideConfig {
            max_slope: f32::NAN,
            ..config()
        },
        MoveAndSlideConfig {
            step_height: f32::INFINITY,
            ..config()
        },
        MoveAndSlideConfig {
            snap_to_ground: f32::NAN,
            ..config()
        },
    ];
    let unmoved = |out: &MoveAndSlideOutput, start: Vec2| {
        (out.translation == start || (start.is_nan() && out.translation.is_nan()))
            && out.moved == Vec2::ZERO
            && out.hits.is_empty()
            && !out.grounded
            && out.ground.is_none()
    };
    for config in bad_configs {
        let out = level.slide(&rect, at, motion, &config);
        assert!(unmoved(&out, at), "{config:?}: {out:?}");
    }
    for motion in [
        Vec2::new(f32::NAN, 0.0),
        Vec2::new(0.0, f32::INFINITY),
        Vec2::splat(1e30),
    ] {
        let out = level.slide(&rect, at, motion, &config());
        assert!(unmoved(&out, at), "{motion}: {out:?}");
    }
    for collider in [Collider::circle(-1.0), Collider::rect(f32::NAN, 1.0)] {
        let out = level.slide(&collider, at, motion, &config());
        assert!(unmoved(&out, at), "{collider:?}: {out:?}");
    }
    let nan = Vec2::new(f32::NAN, 0.0);
    let out = level.slide(&rect, nan, motion, &config());
    assert!(unmoved(&out, nan), "{out:?}");
}

/// A character entity moved by a system in `Update`, as a game does, seen
/// by the query where the previous frame's detection left it.
#[test]
fn a_character_entity_moved_by_a_system_lands_and_walks() {
    #[derive(Component)]
    struct Player {
        velocity: Vec2,
        grounded: bool,
    }

    fn move_player(
        spatial: SpatialQuery,
        mut players: Query<(Entity, &Collider, &mut Transform, &mut Player)>,
    ) {
        let config = MoveAndSlideConfig::default();
        for (entity, collider, mut transform, mut player) in &mut players {
            player.velocity.x = WALK;
            player.velocity.y -= GRAVITY * DT;
            let pose = Isometry2d::from_translation(transform.translation.truncate());
            let filter = QueryFilter::default().with_excluded([entity]);
            let out =
                spatial.move_and_slide(collider, pose, player.velocity * DT, &config, &filter);
            transform.translation = out.translation.extend(0.0);
            player.grounded = out.grounded;
            if out.grounded {
                player.velocity.y = 0.0;
            }
        }
    }

    let mut app = test_app();
    floor(&mut app);
    app.add_systems(Update, move_player);
    let player = app
        .world_mut()
        .spawn((
            Collider::capsule(8.0, 16.0),
            Transform::from_xyz(0.0, 40.0, 0.0),
            Player {
                velocity: Vec2::ZERO,
                grounded: false,
            },
        ))
        .id();
    for _ in 0..90 {
        app.update();
    }
    let at = app.world().get::<Transform>(player).unwrap().translation;
    assert!(app.world().get::<Player>(player).unwrap().grounded, "{at}");
    assert!((at.y - 16.0).abs() <= 2.0 * SKIN, "{at}");
    assert!((at.x - 90.0 * WALK * DT).abs() < 1e-2, "{at}");
    // The skin keeps it off the floor: walking never starts a collision.
    assert!(colliding(&app, player).is_empty());

    // The query also runs as a one-shot system.
    let grounded = app
        .world_mut()
        .run_system_once(move |spatial: SpatialQuery| {
            let filter = QueryFilter::default().with_excluded([player]);
            let pose = Isometry2d::from_translation(at.truncate());
            let config = MoveAndSlideConfig::default();
            let collider = Collider::capsule(8.0, 16.0);
            spatial
                .move_and_slide(&collider, pose, Vec2::ZERO, &config, &filter)
                .grounded
        })
        .unwrap();
    assert!(grounded);
}

/// The distance from `p` to the segment `a`-`b`.
fn segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
    p.distance(a + (b - a) * t)
}

/// A ball wedged in a V valley (open above) is pushed out upward, a skin
/// clear of both sides, whether the sides are two colliders or one
/// polyline and however steep they are: the pushes of both sides are
/// combined, not taken one at a time (which, with steep sides, traded one
/// overlap for the other until the rounds ran out).
#[test]
fn depenetrate_gets_out_of_a_v_valley_upward() {
    let ball = Collider::circle(5.0);
    for degrees in [30.0f32, 45.0, 60.0, 75.0] {
        let (sin, cos) = degrees.to_radians().sin_cos();
        let (left, right) = (Vec2::new(-cos, sin) * 60.0, Vec2::new(cos, sin) * 60.0);
        for as_polyline in [false, true] {
            let name = if as_polyline {
                "a polyline"
            } else {
                "two segments"
            };
            let build = |app: &mut App| {
                if as_polyline {
                    let valley = Collider::polyline(&[left, Vec2::ZERO, right]).unwrap();
                    solid(app, valley, 0.0, 0.0);
                } else {
                    solid(app, Collider::segment(left, Vec2::ZERO), 0.0, 0.0);
                    solid(app, Collider::segment(Vec2::ZERO, right), 0.0, 0.0);
                }
            };
            let mut level = Level::new(build);
            // The centre on the axis, each side 3 from it: 2 deep in both.
            let start = Vec2::new(0.0, 3.0 / cos);
            let spatial = level.state.get(level.app.world()).unwrap();
            let pose = Isometry2d::from_translation(start);
            let (at, hits) = spatial.depenetrate(&ball, pose, &config(), &QueryFilter::default());
            let what = format!("{degrees} degrees, {name}: {start} -> {at}");
            assert!(at.y > start.y, "{what}: not out upward");
            assert!(at.x.abs() < 1e-3, "{what}: pushed sideways");
            assert_eq!(
                hits.len(),
                2,
                "{what}: both sides are surfaces pushed out of: {hits:?}"
            );
            for (a, b) in [(left, Vec2::ZERO), (Vec2::ZERO, right)] {
                let clear = segment_distance(at, a, b) - 5.0;
                assert!(
                    (clear - SKIN).abs() < 2e-3,
                    "{what}: {clear} clear of a side"
                );
            }
            // A character standing there moves out the same way.
            let out = level.slide(&ball, start, Vec2::new(0.0, -1.0), &config());
            assert!(out.translation.y > start.y, "{what}: {out:?}");
        }
    }
}

/// The velocity a game keeps after running at a ramp steeper than the
/// controller walks (63 degrees) under gravity: it never turns the run into
/// a climb; the character stops at the foot of the ramp instead of walking
/// up to its top.
#[test]
fn projected_velocity_does_not_climb_a_steep_ramp() {
    let mut level = Level::new(|app| {
        floor(app);
        let ramp = [
            Vec2::new(200.0, 0.0),
            Vec2::new(260.0, 0.0),
            Vec2::new(260.0, 118.0),
        ];
        solid(app, Collider::convex_polygon(&ramp).unwrap(), 0.0, 0.0);
    });
    let collider = Collider::capsule(7.0, 14.0);
    let mut at = Vec2::new(150.0, 14.0 + SKIN);
    let mut velocity = Vec2::new(200.0, 0.0);
    let config = MoveAndSlideConfig::default();
    let mut highest = at.y;
    for _ in 0..300 {
        velocity.y -= GRAVITY * DT;
        let out = level.slide(&collider, at, velocity * DT, &config);
        at = out.translation;
        velocity = out.projected_velocity(velocity);
        // The kept velocity never points up the ramp: no upward speed
        // that the velocity did not have.
        assert!(velocity.y <= 1e-3, "{out:?}: kept {velocity}");
        if out.grounded {
            velocity.y = 0.0;
        }
        velocity.x = 200.0; // still running right
        highest = highest.max(at.y);
    }
    assert!(highest < 14.0 + 2.0, "climbed to {highest}");
    assert!(at.x < 200.0, "ended at {at}");
}

/// A ball moved at a sharp corner of a polyline from its convex side, from
/// many directions and speeds, never ends across the line: the corner is a
/// corner (its normal from the vertex), not a face that lets the ball slide
/// into it.
#[test]
fn a_ball_moved_at_a_polylines_sharp_corner_never_crosses_it() {
    let ball = Collider::circle(4.0);
    let mut rng = StdRng::seed_from_u64(4611);
    for opening in [20.0f32, 45.0, 90.0, 135.0] {
        let half = opening.to_radians() / 2.0;
        // The corner at (0, -10), its sides running up-right and up-left
        // of the direction it points in (down-left).
        let corner = Vec2::new(0.0, -10.0);
        let pointing = Vec2::new(-7.0, -6.0).normalize();
        let side = |turn: f32| corner - Rot2::radians(turn) * pointing * 40.0;
        let line = [side(half), corner, side(-half)];
        let mut level = Level::new(|app| {
            solid(app, Collider::polyline(&line).unwrap(), 0.0, 0.0);
        });
        for _ in 0..200 {
            // From around the corner's convex side, at the corner.
            let from = Rot2::radians(rng.random_range(-1.2..1.2)) * pointing;
            let start = corner + from * rng.random_range(6.0..14.0);
            let aim = corner + Vec2::new(rng.random_range(-3.0..3.0), rng.random_range(-3.0..3.0));
            let motion = (aim - start).normalize() * rng.random_range(2.0..30.0);
            let out = level.slide(&ball, start, motion, &config());
            let end = out.translation;
            let clear = segment_distance(end, line[0], line[1])
                .min(segment_distance(end, line[1], line[2]))
                - 4.0;
            assert!(
                clear > -1e-3,
                "{opening} degrees: from {start} by {motion} to {end}, {clear} into the line: {out:?}"
            );
            // Still on the convex side: outside the wedge of the two sides.
            let (a, b) = (
                (line[0] - corner).normalize(),
                (line[2] - corner).normalize(),
            );
            let to_end = end - corner;
            let inside_wedge = a.perp_dot(to_end) * a.perp_dot(b) > 0.0
                && b.perp_dot(to_end) * b.perp_dot(a) > 0.0;
            assert!(
                !inside_wedge,
                "{opening} degrees: from {start} by {motion} crossed to {end}"
            );
        }
    }
}

/// A box sunk a little into a floor of two abutting tiles, overhanging the
/// second by a hair: pushed straight up, not sideways off the second
/// tile's edge; only the floor it was pushed out of is a hit.
#[test]
fn depenetrate_pushes_straight_up_off_a_seam() {
    let mut level = Level::new(|app| {
        solid(app, Collider::rect(100.0, 20.0), -50.0, -10.0);
        solid(app, Collider::rect(100.0, 20.0), 50.0, -10.0);
    });
    let collider = Collider::rect(16.0, 32.0);
    let start = Vec2::new(-8.0 + 0.01, 16.0 - 0.05);
    let spatial = level.state.get(level.app.world()).unwrap();
    let pose = Isometry2d::from_translation(start);
    let (at, hits) = spatial.depenetrate(&collider, pose, &config(), &QueryFilter::default());
    assert_eq!(at.x, start.x, "pushed sideways to {at}");
    assert!((at.y - (16.0 + SKIN)).abs() < 1e-4, "{at}");
    assert!(hits.iter().all(|hit| hit.normal == Dir2::Y), "{hits:?}");
}
