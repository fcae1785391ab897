//! The game without a window, renderer or input, for tests and
//! `--headless`: the same [`GamePlugin`] on `MinimalPlugins`, stepped by
//! exactly 1/60 s per frame, and the self-checks it reports.
//!
//! `--headless` prints one line:
//! `frames=… bricks_destroyed=… bricks_left=… lives_lost=… escapes=… tunnels=…`.
//! `escapes` counts the frames in which the ball was found outside the
//! walls, `tunnels` those in which its path crossed a brick it did not hit;
//! both stay 0 because the ball is `Swept` (try `--speed 4 --unswept`).
//!
//! There a lost ball costs no life from a finite stock: it is counted in
//! `lives_lost` and served again, so the game never ends; when every brick is
//! destroyed a fresh set is built and play goes on.

use std::fmt;
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_collide2d::prelude::*;

use super::level::{ARENA_HALF, OUTER_MIN};
use super::{BALL_RADIUS, BALL_SPEED, Ball, Brick, Game, GamePlugin, GameSettings, START_LIVES};

/// What a headless run did; its [`Display`](fmt::Display) is the one line the
/// example prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeadlessReport {
    /// Frames simulated.
    pub frames: u32,
    /// Bricks destroyed over the whole run (sets are rebuilt when cleared).
    pub bricks_destroyed: u32,
    /// Bricks standing at the end.
    pub bricks_left: u32,
    /// Balls that fell into the out zone.
    pub lives_lost: u32,
    /// Frames in which the ball was outside the walls (tunnelled); must be 0.
    pub escapes: u32,
    /// Frames in which the ball's path crossed a brick without hitting it;
    /// must be 0.
    pub tunnels: u32,
}

impl fmt::Display for HeadlessReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "frames={} bricks_destroyed={} bricks_left={} lives_lost={} escapes={} tunnels={}",
            self.frames,
            self.bricks_destroyed,
            self.bricks_left,
            self.lives_lost,
            self.escapes,
            self.tunnels
        )
    }
}

/// Options of a headless run.
#[derive(Clone, Copy, Debug)]
pub struct HeadlessConfig {
    /// Frames to simulate, 1/60 s each.
    pub frames: u32,
    /// Whether the autopilot drives the paddle (otherwise it stays still).
    pub autoplay: bool,
    /// Ball speed in world units per second ([`BALL_SPEED`] by default).
    pub ball_speed: f32,
    /// Whether the ball is [`Swept`] (the default). Without it, a fast ball
    /// can pass through bricks, which `tunnels` counts.
    pub swept_ball: bool,
}

impl HeadlessConfig {
    /// `frames` frames at the default ball speed.
    pub fn new(frames: u32, autoplay: bool) -> Self {
        Self {
            frames,
            autoplay,
            ball_speed: BALL_SPEED,
            swept_ball: true,
        }
    }
}

/// Runs the game without a window for `frames` frames of 1/60 s and reports
/// what happened.
pub fn run_headless(frames: u32, autoplay: bool) -> HeadlessReport {
    run_headless_with(HeadlessConfig::new(frames, autoplay))
}

/// [`run_headless`] with every option.
pub fn run_headless_with(config: HeadlessConfig) -> HeadlessReport {
    let settings = GameSettings {
        ball_speed: config.ball_speed,
        lives: START_LIVES,
        endless: true,
        swept_ball: config.swept_ball,
    };
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        TransformPlugin,
        CollisionPlugin::default(),
        GamePlugin {
            settings,
            autopilot: config.autoplay,
        },
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / 60.0,
    )));
    app.finish();
    app.cleanup();
    for _ in 0..config.frames {
        app.update();
    }

    let world = app.world_mut();
    let bricks_left = world
        .query_filtered::<(), With<Brick>>()
        .iter(world)
        .count() as u32;
    let game = world.resource::<Game>();
    HeadlessReport {
        frames: config.frames,
        bricks_destroyed: game.bricks_destroyed,
        bricks_left,
        lives_lost: game.lives_lost,
        escapes: game.escapes,
        tunnels: game.tunnels,
    }
}

/// Counts frames in which the ball's path, sampled every unit, overlapped a
/// brick that was not hit: a check of `Swept` with the plain overlap test.
pub(super) fn count_tunnels(
    mut game: ResMut<Game>,
    balls: Query<&Ball>,
    bricks: Query<(Entity, &Collider, &GlobalTransform), With<Brick>>,
) {
    let hit = std::mem::take(&mut game.bricks_hit);
    // Deeper than a skin: a graze within rounding is no tunnel.
    let core = Collider::circle(BALL_RADIUS - 0.5);
    for ball in &balls {
        let (from, to) = ball.path;
        // Up to where the first swept hit stopped the ball.
        let to = from.lerp(to, ball.first_touch.unwrap_or(1.0));
        let samples = (from.distance(to).ceil() as u32).max(1);
        let crossed = bricks.iter().any(|(brick, collider, transform)| {
            let pose = Isometry2d::new(
                transform.translation().truncate(),
                Rot2::radians(transform.rotation().to_euler(EulerRot::XYZ).2),
            );
            !hit.contains(&brick)
                && (0..=samples).any(|k| {
                    let center = from.lerp(to, k as f32 / samples as f32);
                    core.intersects(Isometry2d::from_translation(center), collider, pose)
                })
        });
        game.tunnels += u32::from(crossed);
    }
}

/// Counts frames in which the ball's centre is past the inner face of a wall
/// (it went into or through one), and brings the ball back.
pub(super) fn count_escapes(mut game: ResMut<Game>, mut balls: Query<(&mut Ball, &Transform)>) {
    for (mut ball, transform) in &mut balls {
        let position = transform.translation.truncate();
        // Written so that a NaN position counts as outside.
        let inside = position.x >= -ARENA_HALF.x
            && position.x <= ARENA_HALF.x
            && position.y >= OUTER_MIN.y
            && position.y <= ARENA_HALF.y;
        if !inside {
            game.escapes += 1;
            *ball = Ball::waiting();
        }
    }
}
