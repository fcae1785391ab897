//! Breakout with rotation: the showcase of `bevy_collide2d`.
//!
//! The ball bounces off whatever it touches by reflecting its velocity about
//! the contact normal that `bevy_collide2d` reports, so a tilted paddle, a
//! rotated brick, a spinning bar or a corner all send it where they should,
//! and a ball whose centre ended up inside a brick still leaves through the
//! nearest face. The game never tests shapes itself: it reacts to the crate's
//! observer events ([`CollisionStarted`]) and reads its [`Collisions`]
//! resource to push the ball out of anything it still overlaps.
//!
//! This file is the game's rules; [`level`] builds the arena and the bricks,
//! [`paddle`] moves the paddle, [`autopilot`] plays it, [`view`] draws the
//! game in a window and [`headless`] runs it without one, for the tests.
//!
//! # Controls
//!
//! | Key       | Action                                             |
//! |-----------|----------------------------------------------------|
//! | ← / →     | move the paddle                                    |
//! | Q / E     | tilt the paddle (hold) to aim left / right         |
//! | Space     | serve the ball (it serves itself after 2 seconds)  |
//! | P         | autopilot on / off                                 |
//! | D         | collision debug overlay (outlines, contacts)       |
//! | R         | restart                                            |
//!
//! # Running
//!
//! ```sh
//! cargo run --release --example breakout            # play
//! cargo run --release --example breakout -- --autoplay --overlay
//! cargo run --release --example breakout -- --headless --autoplay --frames 5000
//! ```
//!
//! `--speed X` multiplies the ball speed, `--unswept` takes `Swept` off the
//! ball to show tunnelling, `--autoplay` starts the autopilot and
//! `--overlay` the collision overlay; [`headless`] describes `--headless`.
//! Tests include this file: `#[path = "../examples/breakout/main.rs"] mod
//! breakout;` then `breakout::run_headless(5000, true)`.

mod autopilot;
mod headless;
mod level;
mod paddle;
mod view;

use std::time::Duration;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;

pub use headless::{HeadlessConfig, run_headless, run_headless_with};

use autopilot::{Autopilot, autopilot};
use level::{spawn_arena, spawn_bricks, spawn_first_level};
use paddle::{PaddleControl, drive_paddle, serve_ball};

/// The ball's speed in world units per second. Change it here (or with
/// `--speed`) to make the game harder.
pub const BALL_SPEED: f32 = 450.0;
const BALL_RADIUS: f32 = 10.0;
const BALL_Z: f32 = 1.0;
/// The ball always keeps at least this fraction of its speed vertically, so
/// it never gets stuck bouncing from wall to wall.
const MIN_VERTICAL: f32 = 0.3;
/// Seconds the ball waits on the paddle before serving itself.
const SERVE_DELAY: f32 = 2.0;
/// Extra distance the ball is pushed out of what it overlaps, so that it is
/// clear of the surface rather than exactly touching it.
const SEPARATION_SKIN: f32 = 0.1;
/// Hits this close in time (fractions of a frame) count as simultaneous: a
/// ball meeting the corners of two bricks at once hits both.
const SAME_MOMENT: f32 = 1e-4;
const START_LIVES: u32 = 3;
/// A long frame (a window drag, a hitch) advances the game by at most this
/// much, so the ball slows down instead of jumping through bricks.
const MAX_FRAME_TIME: Duration = Duration::from_millis(33);

#[allow(
    dead_code,
    reason = "unused when a test includes this file as a module"
)]
fn main() -> AppExit {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|arg| arg == name);
    let value = |name: &str| {
        args.iter().position(|arg| arg == name).map(|at| {
            args.get(at + 1)
                .unwrap_or_else(|| panic!("{name} needs a value"))
        })
    };
    let frames =
        value("--frames").map_or(5000, |v| v.parse().expect("--frames takes a whole number"));
    let speed: f32 = value("--speed").map_or(1.0, |v| v.parse().expect("--speed takes a number"));
    let autoplay = flag("--autoplay");
    let swept_ball = !flag("--unswept");

    if flag("--headless") {
        let config = HeadlessConfig {
            frames,
            autoplay,
            ball_speed: BALL_SPEED * speed,
            swept_ball,
        };
        println!("{}", run_headless_with(config));
        AppExit::Success
    } else {
        let settings = GameSettings {
            ball_speed: BALL_SPEED * speed,
            lives: START_LIVES,
            endless: false,
            swept_ball,
        };
        view::run(settings, autoplay, flag("--overlay"))
    }
}

/// Rules that differ between windowed play and headless runs.
#[derive(Resource, Clone, Copy, Debug)]
struct GameSettings {
    ball_speed: f32,
    lives: u32,
    /// Headless: losing the ball costs no life from the stock and a cleared
    /// level is rebuilt, so the run never ends.
    endless: bool,
    /// Whether the ball is `Swept` (`--unswept` turns it off, to see
    /// tunnelling).
    swept_ball: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    #[default]
    Playing,
    Won,
    Lost,
}

/// Score and counters.
#[derive(Resource, Debug, Default)]
struct Game {
    phase: Phase,
    score: u32,
    lives: u32,
    levels_cleared: u32,
    serves: u32,
    bricks_destroyed: u32,
    lives_lost: u32,
    escapes: u32,
    /// Frames in which the ball's path crossed a brick that was not hit.
    tunnels: u32,
    /// Bricks hit by the ball this frame.
    bricks_hit: Vec<Entity>,
}

impl Game {
    fn new(lives: u32) -> Self {
        Self { lives, ..default() }
    }
}

#[derive(Component, Debug, Default)]
struct Paddle {
    /// Current tilt, radians.
    tilt: f32,
}

#[derive(Component, Debug)]
struct Ball {
    velocity: Vec2,
    /// `Some(seconds)` while the ball waits on the paddle to be served.
    serve_in: Option<f32>,
    /// Where the ball moved from and to this frame.
    path: (Vec2, Vec2),
    /// The time of impact of the earliest swept hit this frame, if any.
    first_touch: Option<f32>,
    /// What the ball started touching this frame, sorted out after
    /// detection by [`resolve_ball_hits`].
    hits: Vec<BallHit>,
}

/// A new contact of the ball, seen from the ball (the normal points into
/// `other`).
#[derive(Clone, Copy, Debug)]
struct BallHit {
    other: Entity,
    contact: Contact,
    /// When in the step it touched (the event's `time_of_impact`).
    time: f32,
}

impl Ball {
    fn waiting() -> Self {
        Self {
            velocity: Vec2::ZERO,
            serve_in: Some(SERVE_DELAY),
            path: (Vec2::ZERO, Vec2::ZERO),
            first_touch: None,
            hits: Vec::new(),
        }
    }

    fn is_waiting(&self) -> bool {
        self.serve_in.is_some()
    }
}

#[derive(Component, Debug)]
struct Brick {
    hits_left: u32,
    /// Also picks the brick's colour.
    points: u32,
}

#[derive(Component, Debug)]
struct Wall;

/// Below the paddle: the ball is lost when it touches this.
#[derive(Component, Debug)]
struct OutZone;

/// An indestructible bar turning in the middle of the arena.
#[derive(Component, Debug)]
struct Spinner {
    /// Radians per second, counter-clockwise.
    speed: f32,
}

#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum GameSystems {
    /// Player input (windowed only) fills [`PaddleControl`].
    Input,
    /// The autopilot overrides [`PaddleControl`] when on.
    Autopilot,
    /// Paddle, serve, spinners and ball move (only while playing).
    Simulate,
    /// After detection: bounces, separation, escapes, level end.
    Respond,
}

/// All the game logic; shared by the windowed game and headless runs.
struct GamePlugin {
    settings: GameSettings,
    autopilot: bool,
}

impl Plugin for GamePlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.settings)
            .insert_resource(Game::new(self.settings.lives))
            .insert_resource(Autopilot(self.autopilot))
            .init_resource::<PaddleControl>()
            .configure_sets(
                Update,
                (
                    GameSystems::Input,
                    GameSystems::Autopilot,
                    GameSystems::Simulate,
                )
                    .chain(),
            )
            .configure_sets(Update, GameSystems::Simulate.run_if(playing))
            .configure_sets(
                PostUpdate,
                GameSystems::Respond
                    .after(CollisionSystems::Events)
                    .run_if(playing),
            )
            .add_systems(Startup, (cap_frame_time, spawn_arena, spawn_first_level))
            .add_systems(
                Update,
                autopilot
                    .in_set(GameSystems::Autopilot)
                    .run_if(|autopilot: Res<Autopilot>| autopilot.0),
            )
            .add_systems(
                Update,
                (drive_paddle, serve_ball, spin_spinners, move_ball)
                    .chain()
                    .in_set(GameSystems::Simulate),
            )
            .add_systems(
                PostUpdate,
                (
                    resolve_ball_hits,
                    separate_ball,
                    // The self-checks that headless runs report; in play,
                    // the first also brings back a ball that got out.
                    headless::count_escapes,
                    headless::count_tunnels,
                    check_level,
                )
                    .chain()
                    .in_set(GameSystems::Respond),
            );
    }
}

fn playing(game: Res<Game>) -> bool {
    game.phase == Phase::Playing
}

fn cap_frame_time(mut time: ResMut<Time<Virtual>>) {
    time.set_max_delta(MAX_FRAME_TIME);
}

fn spin_spinners(time: Res<Time>, mut spinners: Query<(&Spinner, &mut Transform)>) {
    for (spinner, mut transform) in &mut spinners {
        transform.rotate_z(spinner.speed * time.delta_secs());
    }
}

fn move_ball(time: Res<Time>, mut balls: Query<(&mut Ball, &mut Transform)>) {
    let dt = time.delta_secs();
    for (mut ball, mut transform) in &mut balls {
        let from = transform.translation.truncate();
        if !ball.is_waiting() {
            transform.translation += (ball.velocity * dt).extend(0.0);
        }
        ball.path = (from, transform.translation.truncate());
        ball.first_touch = None;
    }
}

/// Reflects `velocity` about the surface whose normal (pointing from the ball
/// into the surface) is `normal`, if the ball is moving into it; `None` when
/// it is already moving away, so a second contact with the same surface in
/// the same frame does not undo the first bounce.
fn bounce(velocity: Vec2, normal: Vec2) -> Option<Vec2> {
    let into = velocity.dot(normal);
    (into > 0.0).then(|| velocity - 2.0 * into * normal)
}

/// Rescales `velocity` to `speed` and keeps it from getting too flat; with
/// `upward`, it also makes sure the ball leaves upwards (off the paddle).
fn keep_lively(velocity: Vec2, speed: f32, upward: bool) -> Vec2 {
    let direction = velocity.normalize_or(Vec2::Y);
    let mut y = direction.y;
    if upward {
        y = y.max(MIN_VERTICAL);
    }
    if y.abs() < MIN_VERTICAL {
        y = MIN_VERTICAL.copysign(if y == 0.0 { -1.0 } else { y });
    }
    let x = (1.0 - y * y).max(0.0).sqrt().copysign(direction.x);
    Vec2::new(x, y) * speed
}

/// The ball's observer: notes each new contact for [`resolve_ball_hits`].
fn record_ball_hit(
    hit: On<CollisionStarted>,
    mut balls: Query<&mut Ball>,
    out_zones: Query<(), With<OutZone>>,
) {
    // The out zone is not a surface: `ball_lost` handles it.
    if out_zones.contains(hit.other) {
        return;
    }
    if let Ok(mut ball) = balls.get_mut(hit.entity) {
        ball.hits.push(BallHit {
            other: hit.other,
            contact: hit.contact,
            time: hit.time_of_impact,
        });
    }
}

/// After detection: the ball bounces off what it hit first this frame, and
/// only that takes damage. With `Swept`, detection reports everything the
/// ball's path touched, each with the moment it touched
/// ([`CollisionStarted::time_of_impact`]); the ball goes back to the first touch, so
/// what lies further along the path was never reached.
fn resolve_ball_hits(
    mut balls: Query<(Entity, &mut Ball, &mut Transform, &mut GlobalTransform)>,
    mut bricks: Query<&mut Brick>,
    paddles: Query<(), With<Paddle>>,
    settings: Res<GameSettings>,
    mut game: ResMut<Game>,
    mut commands: Commands,
) {
    for (entity, mut ball, mut transform, mut global) in &mut balls {
        let hits = std::mem::take(&mut ball.hits);
        let Some(first) = hits.iter().min_by(|a, b| a.time.total_cmp(&b.time)) else {
            continue;
        };
        if ball.is_waiting() {
            continue; // lost this frame
        }
        let toi = first.time;
        if toi < 1.0 {
            ball.first_touch = Some(toi);
            let (from, to) = ball.path;
            // Clear of what it touched; at a time of impact of 0 it was
            // already in it (a brick appeared on it, say) by `depth`.
            let clear = first.contact.depth + SEPARATION_SKIN;
            let touch = from.lerp(to, toi) - *first.contact.normal * clear;
            transform.translation = touch.extend(BALL_Z);
            // The ball has no parent: keep its GlobalTransform in step.
            *global = GlobalTransform::from(*transform);
            // Put back, not moved back: the next path starts here.
            commands.entity(entity).insert(Swept);
        }
        for hit in hits.iter().filter(|hit| hit.time <= toi + SAME_MOMENT) {
            if let Some(bounced) = bounce(ball.velocity, *hit.contact.normal) {
                ball.velocity =
                    keep_lively(bounced, settings.ball_speed, paddles.contains(hit.other));
            }
            if let Ok(mut brick) = bricks.get_mut(hit.other)
                && brick.hits_left > 0
            {
                game.bricks_hit.push(hit.other);
                brick.hits_left -= 1;
                if brick.hits_left == 0 {
                    game.score += brick.points;
                    game.bricks_destroyed += 1;
                    commands.entity(hit.other).despawn();
                }
            }
        }
    }
}

/// After detection: pushes the ball out of everything it overlaps, from the
/// [`Collisions`] resource (this frame's contacts). New contacts were already
/// bounced by [`resolve_ball_hits`]; this also handles contacts that go on (a
/// spinner or a tilting paddle turning into the ball), turning the ball
/// around if it is still moving into the surface. Contacts found along the
/// path (time of impact below 1) are left to `resolve_ball_hits`: the ball
/// went back to the first of them and never reached the others.
fn separate_ball(
    collisions: Res<Collisions>,
    settings: Res<GameSettings>,
    out_zones: Query<(), With<OutZone>>,
    mut balls: Query<(Entity, &mut Ball, &mut Transform, &mut GlobalTransform)>,
) {
    for (entity, mut ball, mut transform, mut global) in &mut balls {
        if ball.is_waiting() {
            continue;
        }
        let mut push = Vec2::ZERO;
        let mut turned = false;
        for pair in collisions.iter() {
            // The contact seen from the ball: its normal points into the other.
            let (other, contact) = if pair.a == entity {
                (pair.b, pair.contact)
            } else if pair.b == entity {
                (pair.a, pair.contact.flipped())
            } else {
                continue;
            };
            if out_zones.contains(other) || pair.time_of_impact < 1.0 {
                continue;
            }
            let normal = *contact.normal;
            // What is left of this overlap after the pushes so far.
            let remaining = contact.depth + push.dot(normal);
            if remaining > 0.0 {
                push -= normal * (remaining + SEPARATION_SKIN);
            }
            if let Some(bounced) = bounce(ball.velocity, normal) {
                ball.velocity = bounced;
                turned = true;
            }
        }
        if turned {
            ball.velocity = keep_lively(ball.velocity, settings.ball_speed, false);
        }
        if push != Vec2::ZERO {
            transform.translation += push.extend(0.0);
            // The ball has no parent: keep its GlobalTransform in step so it
            // is drawn where it now is, not where detection saw it.
            *global = GlobalTransform::from(*transform);
        }
    }
}

/// The out zone's observer: the ball is lost and waits on the paddle again.
fn ball_lost(
    hit: On<CollisionStarted>,
    mut balls: Query<&mut Ball>,
    mut game: ResMut<Game>,
    settings: Res<GameSettings>,
) {
    let Ok(mut ball) = balls.get_mut(hit.other) else {
        return;
    };
    if ball.is_waiting() {
        return;
    }
    *ball = Ball::waiting();
    game.lives_lost += 1;
    if !settings.endless {
        game.lives = game.lives.saturating_sub(1);
        if game.lives == 0 {
            game.phase = Phase::Lost;
        }
    }
}

/// All bricks gone: the player wins, or (headless) a fresh set is built.
fn check_level(
    bricks: Query<(), With<Brick>>,
    settings: Res<GameSettings>,
    mut game: ResMut<Game>,
    mut commands: Commands,
) {
    if !bricks.is_empty() {
        return;
    }
    game.levels_cleared += 1;
    if settings.endless {
        spawn_bricks(&mut commands);
    } else {
        game.phase = Phase::Won;
    }
}
