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
//! Headless mode runs the same game logic without a window, renderer or
//! input (`MinimalPlugins`, `TransformPlugin`, `CollisionPlugin`), stepping
//! time by exactly 1/60 s per frame, and prints one line:
//! `frames=… bricks_destroyed=… bricks_left=… lives_lost=… escapes=… tunnels=…`.
//! There a lost ball costs no life from a finite stock: it is counted in
//! `lives_lost` and served again, so the game never ends; when every brick
//! is destroyed a fresh set is built and play goes on. `escapes` counts the
//! frames in which the ball was found outside the walls; it must stay 0.
//! `tunnels` counts the frames in which the ball's path crossed a brick it did
//! not hit; it stays 0 because the ball is `Swept`, and `--unswept` (in
//! either mode) takes `Swept` off to show the difference at high speed.
//! `--speed X` multiplies the ball speed (also in windowed mode); `--autoplay`
//! starts the autopilot and `--overlay` the collision overlay in windowed mode.
//!
//! Tests can run the headless game through this file's own code:
//! `#[path = "../examples/breakout/main.rs"] mod breakout;` then
//! `breakout::run_headless(5000, true)`.

use std::fmt;
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_collide2d::prelude::*;

// ---------------------------------------------------------------------------
// Layout and tuning, in world units (the camera shows about 1400 x 880).
// ---------------------------------------------------------------------------

/// Half size of the playing area between the walls.
const ARENA_HALF: Vec2 = Vec2::new(460.0, 320.0);
/// Walls are thick so that a ball moving a few units a frame cannot cross one.
const WALL_THICKNESS: f32 = 40.0;
/// The out zone below the paddle: touching it loses the ball.
const OUT_ZONE_TOP: f32 = -ARENA_HALF.y - 20.0;
const OUT_ZONE_HEIGHT: f32 = 80.0;
/// The box around the arena, the walls and the out zone.
const OUTER_MIN: Vec2 = Vec2::new(
    -ARENA_HALF.x - WALL_THICKNESS,
    OUT_ZONE_TOP - OUT_ZONE_HEIGHT,
);
const OUTER_MAX: Vec2 = Vec2::new(ARENA_HALF.x + WALL_THICKNESS, ARENA_HALF.y + WALL_THICKNESS);

const PADDLE_SIZE: Vec2 = Vec2::new(140.0, 18.0);
const PADDLE_Y: f32 = -ARENA_HALF.y + 50.0;
/// Paddle speed with the default ball speed; it scales with faster balls.
const PADDLE_SPEED: f32 = 700.0;
/// Largest paddle tilt, radians (about 26 degrees).
const MAX_TILT: f32 = 0.45;
/// How fast the paddle tilts, radians per second.
const TILT_SPEED: f32 = 3.0;

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
/// Serve directions relative to the paddle's normal, radians, used in turn.
const SERVE_ANGLES: [f32; 6] = [0.3, -0.22, 0.15, -0.35, 0.4, -0.1];
/// Extra distance the ball is pushed out of what it overlaps, so that it is
/// clear of the surface rather than exactly touching it.
const SEPARATION_SKIN: f32 = 0.1;
const START_LIVES: u32 = 3;
/// A long frame (a window drag, a hitch) advances the game by at most this
/// much, so the ball slows down instead of jumping through bricks.
const MAX_FRAME_TIME: Duration = Duration::from_millis(33);

const BRICK_SIZE: Vec2 = Vec2::new(70.0, 24.0);
const DIAMOND_SIZE: f32 = 30.0;
const SPINNER_SIZE: Vec2 = Vec2::new(130.0, 14.0);

/// Collision layers: the ball meets solids and the out zone; nothing else
/// needs testing (bricks never collide with walls or with each other).
const LAYER_BALL: u32 = 1 << 0;
const LAYER_SOLID: u32 = 1 << 1;
const LAYER_OUT_ZONE: u32 = 1 << 2;
const BALL_LAYERS: CollisionLayers = CollisionLayers::new(LAYER_BALL, LAYER_SOLID | LAYER_OUT_ZONE);
const SOLID_LAYERS: CollisionLayers = CollisionLayers::new(LAYER_SOLID, LAYER_BALL);
const OUT_ZONE_LAYERS: CollisionLayers = CollisionLayers::new(LAYER_OUT_ZONE, LAYER_BALL);

// ---------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------

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
/// what happened. See the module docs for how headless play differs.
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
        windowed::run(settings, autoplay, flag("--overlay"))
    }
}

// ---------------------------------------------------------------------------
// The game: state, components and the logic shared by both modes
// ---------------------------------------------------------------------------

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

impl GameSettings {
    /// Fast enough to follow the ball's sideways motion.
    fn paddle_speed(&self) -> f32 {
        PADDLE_SPEED.max(self.ball_speed * 1.6)
    }
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

/// What the paddle is asked to do this frame, by the keyboard or the
/// autopilot.
#[derive(Resource, Debug, Default)]
struct PaddleControl {
    /// -1 (left) to 1 (right), a fraction of the paddle speed.
    move_axis: f32,
    /// The tilt the paddle turns towards, radians (positive aims left).
    tilt_target: f32,
    /// Serve now if the ball is waiting.
    launch: bool,
}

/// Whether the autopilot drives the paddle.
#[derive(Resource, Debug, Default)]
struct Autopilot(bool);

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
    /// After detection: separation, escapes, level end.
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
                    count_escapes,
                    count_tunnels,
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

fn spawn_arena(settings: Res<GameSettings>, mut commands: Commands) {
    // Walls: left and right run down past the out zone; the top one covers
    // the corners.
    let side_height = OUTER_MAX.y - OUTER_MIN.y;
    let side_center_y = (OUTER_MAX.y + OUTER_MIN.y) * 0.5;
    let side_x = ARENA_HALF.x + WALL_THICKNESS * 0.5;
    let walls = [
        (
            Vec2::new(-side_x, side_center_y),
            Vec2::new(WALL_THICKNESS, side_height),
        ),
        (
            Vec2::new(side_x, side_center_y),
            Vec2::new(WALL_THICKNESS, side_height),
        ),
        (
            Vec2::new(0.0, ARENA_HALF.y + WALL_THICKNESS * 0.5),
            Vec2::new(OUTER_MAX.x - OUTER_MIN.x, WALL_THICKNESS),
        ),
    ];
    for (position, size) in walls {
        commands.spawn((
            Wall,
            Collider::rect(size.x, size.y),
            SOLID_LAYERS,
            Transform::from_translation(position.extend(0.0)),
        ));
    }

    commands
        .spawn((
            OutZone,
            Collider::rect(ARENA_HALF.x * 2.0, OUT_ZONE_HEIGHT),
            OUT_ZONE_LAYERS,
            Transform::from_xyz(0.0, OUT_ZONE_TOP - OUT_ZONE_HEIGHT * 0.5, -0.5),
        ))
        .observe(ball_lost);

    commands.spawn((
        Paddle::default(),
        Collider::rect(PADDLE_SIZE.x, PADDLE_SIZE.y),
        SOLID_LAYERS,
        Transform::from_xyz(0.0, PADDLE_Y, 0.0),
    ));

    // Two bars turning in opposite directions between paddle and bricks.
    for (x, speed) in [(-230.0, 0.8), (230.0, -0.8)] {
        commands.spawn((
            Spinner { speed },
            Collider::rect(SPINNER_SIZE.x, SPINNER_SIZE.y),
            SOLID_LAYERS,
            Transform::from_xyz(x, 20.0, 0.0),
        ));
    }

    let mut ball = commands.spawn((
        Ball::waiting(),
        Collider::circle(BALL_RADIUS),
        BALL_LAYERS,
        Transform::from_xyz(0.0, PADDLE_Y + 40.0, BALL_Z),
    ));
    ball.observe(record_ball_hit);
    if settings.swept_ball {
        // Tested along its whole path each frame: however fast it goes or
        // however long a frame takes, it cannot pass through a brick.
        ball.insert(Swept);
    }
}

fn spawn_first_level(mut commands: Commands) {
    spawn_bricks(&mut commands);
}

/// Spawns a full set of bricks: three straight rows (the top one takes two
/// hits), a row tilted alternately by ±20 degrees, and a row of diamonds
/// (squares turned 45 degrees).
fn spawn_bricks(commands: &mut Commands) {
    let mut spawn = |position: Vec2, size: Vec2, angle: f32, hits: u32, points: u32| {
        commands.spawn((
            Brick {
                hits_left: hits,
                points,
            },
            Collider::rect(size.x, size.y),
            SOLID_LAYERS,
            Transform::from_translation(position.extend(0.0))
                .with_rotation(Quat::from_rotation_z(angle)),
        ));
    };
    let column_step = BRICK_SIZE.x + 8.0;
    for (row, (y, hits, points)) in [(285.0, 2, 6), (253.0, 1, 4), (221.0, 1, 3)]
        .into_iter()
        .enumerate()
    {
        // Rows shift by half a brick alternately, like a brick wall.
        let columns = if row % 2 == 0 { 11 } else { 10 };
        for column in 0..columns {
            let x = (column as f32 - (columns - 1) as f32 * 0.5) * column_step;
            spawn(Vec2::new(x, y), BRICK_SIZE, 0.0, hits, points);
        }
    }
    for column in 0..9 {
        let x = (column as f32 - 4.0) * 92.0;
        let angle = if column % 2 == 0 { 0.35 } else { -0.35 };
        spawn(Vec2::new(x, 175.0), BRICK_SIZE, angle, 1, 2);
    }
    for column in 0..7 {
        let x = (column as f32 - 3.0) * 120.0;
        spawn(
            Vec2::new(x, 120.0),
            Vec2::splat(DIAMOND_SIZE),
            core::f32::consts::FRAC_PI_4,
            1,
            5,
        );
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
        });
    }
}

/// Hits this close in time (fractions of a frame) count as simultaneous: a
/// ball meeting the corners of two bricks at once hits both.
const SAME_MOMENT: f32 = 1e-4;

/// After detection: the ball bounces off what it hit first this frame, and
/// only that takes damage. With `Swept`, detection reports everything the
/// ball's path touched, each with the moment it touched
/// ([`Contact::time_of_impact`]); the ball goes back to the first touch, so
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
        let Some(first) = hits.iter().min_by(|a, b| {
            a.contact
                .time_of_impact
                .total_cmp(&b.contact.time_of_impact)
        }) else {
            continue;
        };
        if ball.is_waiting() {
            continue; // lost this frame
        }
        let toi = first.contact.time_of_impact;
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
        for hit in hits
            .iter()
            .filter(|hit| hit.contact.time_of_impact <= toi + SAME_MOMENT)
        {
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

/// Keeps the paddle under where the ball will come down and tilts it to send
/// the ball at the nearest brick.
fn autopilot(
    mut control: ResMut<PaddleControl>,
    settings: Res<GameSettings>,
    time: Res<Time>,
    paddle: Single<&Transform, With<Paddle>>,
    balls: Query<(&Transform, &Ball)>,
    bricks: Query<&Transform, With<Brick>>,
) {
    let Some((ball_transform, ball)) = balls.iter().next() else {
        return;
    };
    control.launch = ball.is_waiting();
    if ball.is_waiting() {
        control.move_axis = 0.0;
        control.tilt_target = 0.0;
        return;
    }
    let paddle_position = paddle.translation.truncate();
    let ball_position = ball_transform.translation.truncate();
    let hit_y = paddle_position.y + PADDLE_SIZE.y * 0.5 + BALL_RADIUS;
    let descending = ball.velocity.y < 0.0 && ball_position.y > hit_y;

    let (target_x, tilt) = if descending {
        let landing = Vec2::new(
            predict_landing_x(ball_position, ball.velocity, hit_y),
            hit_y,
        );
        let goal = bricks
            .iter()
            .map(|brick| brick.translation.truncate())
            .min_by(|p, q| {
                p.distance_squared(landing)
                    .total_cmp(&q.distance_squared(landing))
            });
        // Reflection turns `incoming` into `outgoing` about a normal along
        // `outgoing - incoming`; the paddle's normal is (-sin, cos) of its tilt.
        let tilt = goal.map_or(0.0, |goal| {
            let normal = (goal - landing).normalize_or_zero() - ball.velocity.normalize_or_zero();
            if normal.y > 0.0 {
                (-normal.x).atan2(normal.y)
            } else {
                0.0
            }
        });
        (landing.x, tilt)
    } else {
        (ball_position.x, 0.0)
    };

    let max_step = settings.paddle_speed() * time.delta_secs();
    control.move_axis = if max_step > 0.0 {
        ((target_x - paddle_position.x) / max_step).clamp(-1.0, 1.0)
    } else {
        0.0
    };
    control.tilt_target = tilt.clamp(-MAX_TILT, MAX_TILT);
}

/// Where a ball at `position` moving with `velocity` (downwards) crosses the
/// height `y`, folding its path at the side walls.
fn predict_landing_x(position: Vec2, velocity: Vec2, y: f32) -> f32 {
    let time = (y - position.y) / velocity.y;
    let x = position.x + velocity.x * time;
    let (min, max) = (-ARENA_HALF.x + BALL_RADIUS, ARENA_HALF.x - BALL_RADIUS);
    let width = max - min;
    let mut folded = (x - min).rem_euclid(2.0 * width);
    if folded > width {
        folded = 2.0 * width - folded;
    }
    min + folded
}

fn drive_paddle(
    time: Res<Time>,
    control: Res<PaddleControl>,
    settings: Res<GameSettings>,
    paddle: Single<(&mut Transform, &mut Paddle)>,
) {
    let (mut transform, mut paddle) = paddle.into_inner();
    let dt = time.delta_secs();

    let target = control.tilt_target.clamp(-MAX_TILT, MAX_TILT);
    let step = TILT_SPEED * dt;
    paddle.tilt += (target - paddle.tilt).clamp(-step, step);
    transform.rotation = Quat::from_rotation_z(paddle.tilt);

    // Keep the tilted paddle's ends inside the walls.
    let (sin, cos) = paddle.tilt.abs().sin_cos();
    let half_extent = PADDLE_SIZE.x * 0.5 * cos + PADDLE_SIZE.y * 0.5 * sin;
    let limit = ARENA_HALF.x - half_extent;
    let x =
        transform.translation.x + control.move_axis.clamp(-1.0, 1.0) * settings.paddle_speed() * dt;
    transform.translation.x = x.clamp(-limit, limit);
}

/// A waiting ball rides on the paddle, along its normal, and is served when
/// asked or when its time is up, in the direction the paddle points.
fn serve_ball(
    time: Res<Time>,
    control: Res<PaddleControl>,
    settings: Res<GameSettings>,
    mut game: ResMut<Game>,
    paddle: Single<&Transform, With<Paddle>>,
    mut balls: Query<(Entity, &mut Ball, &mut Transform), Without<Paddle>>,
    mut commands: Commands,
) {
    let up = (paddle.rotation * Vec3::Y).truncate();
    let rest = paddle.translation.truncate() + up * (PADDLE_SIZE.y * 0.5 + BALL_RADIUS + 2.0);
    for (entity, mut ball, mut transform) in &mut balls {
        let Some(wait) = ball.serve_in else {
            continue;
        };
        transform.translation = rest.extend(BALL_Z);
        if settings.swept_ball {
            // Put on the paddle, not moved there: a fresh `Swept` starts
            // its path here instead of sweeping from where the ball was
            // lost.
            commands.entity(entity).insert(Swept);
        }
        let wait = wait - time.delta_secs();
        if wait > 0.0 && !control.launch {
            ball.serve_in = Some(wait);
            continue;
        }
        let angle = SERVE_ANGLES[game.serves as usize % SERVE_ANGLES.len()];
        game.serves += 1;
        ball.velocity = keep_lively(
            Vec2::from_angle(angle).rotate(up),
            settings.ball_speed,
            true,
        );
        ball.serve_in = None;
    }
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
            if out_zones.contains(other) || contact.time_of_impact < 1.0 {
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

/// Counts frames in which the ball's path, sampled every unit, overlapped a
/// brick that was not hit: a check of `Swept` with the plain overlap test.
fn count_tunnels(
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
fn count_escapes(mut game: ResMut<Game>, mut balls: Query<(&mut Ball, &Transform)>) {
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

// ---------------------------------------------------------------------------
// The windowed game: visuals, camera, text and keyboard
// ---------------------------------------------------------------------------

#[allow(
    dead_code,
    reason = "only `main` plays windowed; tests include this file for the headless game"
)]
mod windowed {
    use bevy::camera::ScalingMode;
    use bevy_collide2d::debug::{CollisionDebugPlugin, CollisionGizmos};

    use super::*;

    /// The world area the camera always shows (arena, walls, out zone and a
    /// strip at the top for the text).
    const VIEW_SIZE: Vec2 = Vec2::new(1240.0, 880.0);
    const VIEW_CENTER_Y: f32 = -10.0;

    const BACKGROUND: Color = Color::srgb(0.05, 0.06, 0.09);
    const WALL_COLOR: Color = Color::srgb(0.32, 0.36, 0.45);
    const PADDLE_COLOR: Color = Color::srgb(0.85, 0.88, 0.95);
    const SPINNER_COLOR: Color = Color::srgb(0.6, 0.4, 0.9);
    const OUT_ZONE_COLOR: Color = Color::srgba(0.9, 0.2, 0.2, 0.12);
    const BALL_COLOR: Color = Color::srgb(1.0, 0.92, 0.6);
    const TEXT_COLOR: Color = Color::srgb(0.9, 0.92, 0.96);
    const HELP_COLOR: Color = Color::srgb(0.6, 0.64, 0.72);

    // ASCII only: Bevy's default font is a small subset.
    const HELP: &str = "Left/Right move   Q/E tilt to aim   Space serve\n\
                        P autopilot   D collision overlay   R restart";

    pub(super) fn run(settings: GameSettings, autopilot: bool, overlay: bool) -> AppExit {
        App::new()
            .add_plugins(DefaultPlugins.set(WindowPlugin {
                primary_window: Some(Window {
                    title: "bevy_collide2d: breakout".into(),
                    resolution: (1280, 800).into(),
                    ..default()
                }),
                ..default()
            }))
            .add_plugins((
                CollisionPlugin::default(),
                CollisionDebugPlugin { enabled: overlay },
                GamePlugin {
                    settings,
                    autopilot,
                },
            ))
            .insert_resource(ClearColor(BACKGROUND))
            .add_observer(decorate)
            .add_observer(restart)
            .add_systems(Startup, spawn_camera_and_text)
            .add_systems(Update, keyboard.in_set(GameSystems::Input))
            .add_systems(Update, (tint_bricks, update_text))
            .run()
    }

    /// Starts the game over: new bricks, score and lives.
    #[derive(Event, Debug)]
    struct Restart;

    #[derive(Component)]
    struct StatsText;

    #[derive(Component)]
    struct MessageText;

    fn spawn_camera_and_text(mut commands: Commands) {
        commands.spawn((
            Camera2d,
            Projection::Orthographic(OrthographicProjection {
                scaling_mode: ScalingMode::AutoMin {
                    min_width: VIEW_SIZE.x,
                    min_height: VIEW_SIZE.y,
                },
                ..OrthographicProjection::default_2d()
            }),
            Transform::from_xyz(0.0, VIEW_CENTER_Y, 0.0),
        ));

        // Top strip: stats on the left, controls on the right.
        commands.spawn((
            Node {
                position_type: PositionType::Absolute,
                top: Val::Px(8.0),
                left: Val::Px(16.0),
                right: Val::Px(16.0),
                justify_content: JustifyContent::SpaceBetween,
                ..default()
            },
            children![
                (
                    Text::new(""),
                    TextFont::from_font_size(24.0),
                    TextColor(TEXT_COLOR),
                    StatsText,
                ),
                (
                    Text::new(HELP),
                    TextFont::from_font_size(15.0),
                    TextColor(HELP_COLOR),
                    TextLayout::justify(Justify::Right),
                ),
            ],
        ));

        // Centre: serve hint, win and game-over messages.
        commands.spawn((
            Node {
                position_type: PositionType::Absolute,
                width: Val::Percent(100.0),
                top: Val::Percent(58.0),
                justify_content: JustifyContent::Center,
                ..default()
            },
            children![(
                Text::new(""),
                TextFont::from_font_size(30.0),
                TextColor(TEXT_COLOR),
                TextLayout::justify(Justify::Center),
                MessageText,
            )],
        ));
    }

    /// What `decorate` needs to know to pick a look for a collider.
    type ColliderKind = (
        &'static Collider,
        Option<&'static Brick>,
        Has<Paddle>,
        Has<Spinner>,
        Has<OutZone>,
    );

    /// Gives every collider a sprite or mesh of exactly its shape, as soon
    /// as it is spawned (also bricks built by a restart).
    fn decorate(
        add: On<Add, Collider>,
        parts: Query<ColliderKind>,
        mut commands: Commands,
        mut meshes: ResMut<Assets<Mesh>>,
        mut materials: ResMut<Assets<ColorMaterial>>,
    ) {
        let Ok((collider, brick, is_paddle, is_spinner, is_out_zone)) = parts.get(add.entity)
        else {
            return;
        };
        match *collider {
            Collider::Circle { radius } => {
                commands.entity(add.entity).insert((
                    Mesh2d(meshes.add(Circle::new(radius))),
                    MeshMaterial2d(materials.add(BALL_COLOR)),
                ));
            }
            Collider::OrientedRect { half_size } => {
                let color = match brick {
                    Some(brick) => brick_color(brick),
                    None if is_paddle => PADDLE_COLOR,
                    None if is_spinner => SPINNER_COLOR,
                    None if is_out_zone => OUT_ZONE_COLOR,
                    None => WALL_COLOR,
                };
                commands
                    .entity(add.entity)
                    .insert(Sprite::from_color(color, half_size * 2.0));
            }
        }
    }

    /// A hue per kind of brick (by its points), darker while it has more than
    /// one hit left.
    fn brick_color(brick: &Brick) -> Color {
        let hue = match brick.points {
            6 => 350.0,
            5 => 195.0,
            4 => 25.0,
            3 => 48.0,
            _ => 140.0,
        };
        let lightness = if brick.hits_left > 1 { 0.38 } else { 0.58 };
        Color::hsl(hue, 0.75, lightness)
    }

    fn tint_bricks(mut bricks: Query<(&Brick, &mut Sprite), Changed<Brick>>) {
        for (brick, mut sprite) in &mut bricks {
            sprite.color = brick_color(brick);
        }
    }

    fn keyboard(
        keys: Res<ButtonInput<KeyCode>>,
        game: Res<Game>,
        mut control: ResMut<PaddleControl>,
        mut autopilot: ResMut<Autopilot>,
        mut gizmo_store: ResMut<GizmoConfigStore>,
        mut commands: Commands,
    ) {
        let mut axis = 0.0;
        if keys.pressed(KeyCode::ArrowLeft) {
            axis -= 1.0;
        }
        if keys.pressed(KeyCode::ArrowRight) {
            axis += 1.0;
        }
        control.move_axis = axis;
        control.tilt_target = match (keys.pressed(KeyCode::KeyQ), keys.pressed(KeyCode::KeyE)) {
            (true, false) => MAX_TILT,
            (false, true) => -MAX_TILT,
            _ => 0.0,
        };
        control.launch = keys.just_pressed(KeyCode::Space);

        if keys.just_pressed(KeyCode::KeyP) {
            autopilot.0 = !autopilot.0;
        }
        if keys.just_pressed(KeyCode::KeyD) {
            let (config, _) = gizmo_store.config_mut::<CollisionGizmos>();
            config.enabled = !config.enabled;
        }
        let over = game.phase != Phase::Playing;
        if keys.just_pressed(KeyCode::KeyR) || (over && keys.just_pressed(KeyCode::Space)) {
            commands.trigger(Restart);
        }
    }

    fn restart(
        _restart: On<Restart>,
        bricks: Query<Entity, With<Brick>>,
        mut balls: Query<&mut Ball>,
        mut game: ResMut<Game>,
        settings: Res<GameSettings>,
        mut commands: Commands,
    ) {
        for brick in &bricks {
            commands.entity(brick).despawn();
        }
        spawn_bricks(&mut commands);
        for mut ball in &mut balls {
            *ball = Ball::waiting();
        }
        *game = Game::new(settings.lives);
    }

    fn update_text(
        game: Res<Game>,
        autopilot: Res<Autopilot>,
        balls: Query<&Ball>,
        bricks: Query<(), With<Brick>>,
        mut stats: Single<&mut Text, (With<StatsText>, Without<MessageText>)>,
        mut message: Single<&mut Text, (With<MessageText>, Without<StatsText>)>,
    ) {
        let mut line = format!(
            "Score {}   Lives {}   Bricks {}",
            game.score,
            game.lives,
            bricks.iter().count()
        );
        if autopilot.0 {
            line.push_str("   [autopilot]");
        }
        stats.set_if_neq(Text::new(line));

        let waiting = balls.iter().any(Ball::is_waiting);
        let text = match game.phase {
            Phase::Won => format!("Cleared! Score {}. Press R to play again", game.score),
            Phase::Lost => format!("Game over. Score {}. Press R to try again", game.score),
            Phase::Playing if waiting && !autopilot.0 => "Space to serve, Q/E to aim".to_owned(),
            Phase::Playing => String::new(),
        };
        message.set_if_neq(Text::new(text));
    }
}
