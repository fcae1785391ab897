//! The autopilot: plays the paddle for the headless runs and the P key.

use bevy::prelude::*;

use super::level::ARENA_HALF;
use super::paddle::{MAX_TILT, PADDLE_SIZE, PaddleControl};
use super::{BALL_RADIUS, Ball, Brick, GameSettings, Paddle};

/// Whether the autopilot drives the paddle.
#[derive(Resource, Debug, Default)]
pub(super) struct Autopilot(pub(super) bool);

/// Keeps the paddle under where the ball will come down and tilts it to send
/// the ball at the nearest brick.
pub(super) fn autopilot(
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
