//! The level: walls, out zone, paddle, spinners, the ball and the bricks,
//! and the collision layers that say which of them meet.

use bevy::prelude::*;
use bevy_collide2d::prelude::*;

use super::paddle::{PADDLE_SIZE, PADDLE_Y};
use super::{
    BALL_RADIUS, BALL_Z, Ball, Brick, GameSettings, OutZone, Paddle, Spinner, Wall, ball_lost,
    record_ball_hit,
};

/// Half size of the playing area between the walls (the camera shows about
/// 1400 x 880 world units).
pub(super) const ARENA_HALF: Vec2 = Vec2::new(460.0, 320.0);
/// Walls are thick so that a ball moving a few units a frame cannot cross one.
const WALL_THICKNESS: f32 = 40.0;
/// The out zone below the paddle: touching it loses the ball.
const OUT_ZONE_TOP: f32 = -ARENA_HALF.y - 20.0;
const OUT_ZONE_HEIGHT: f32 = 80.0;
/// The box around the arena, the walls and the out zone.
pub(super) const OUTER_MIN: Vec2 = Vec2::new(
    -ARENA_HALF.x - WALL_THICKNESS,
    OUT_ZONE_TOP - OUT_ZONE_HEIGHT,
);
const OUTER_MAX: Vec2 = Vec2::new(ARENA_HALF.x + WALL_THICKNESS, ARENA_HALF.y + WALL_THICKNESS);

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

pub(super) fn spawn_arena(settings: Res<GameSettings>, mut commands: Commands) {
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

pub(super) fn spawn_first_level(mut commands: Commands) {
    spawn_bricks(&mut commands);
}

/// Spawns a full set of bricks: three straight rows (the top one takes two
/// hits), a row tilted alternately by ±20 degrees, and a row of diamonds
/// (squares turned 45 degrees).
pub(super) fn spawn_bricks(commands: &mut Commands) {
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
