//! The paddle: moved and tilted by [`PaddleControl`] (the keyboard or the
//! autopilot fill it), and the serve from it.

use bevy::prelude::*;
use bevy_collide2d::prelude::*;

use super::level::ARENA_HALF;
use super::{BALL_RADIUS, BALL_Z, Ball, Game, GameSettings, Paddle, keep_lively};

pub(super) const PADDLE_SIZE: Vec2 = Vec2::new(140.0, 18.0);
pub(super) const PADDLE_Y: f32 = -ARENA_HALF.y + 50.0;
/// Paddle speed with the default ball speed; it scales with faster balls.
const PADDLE_SPEED: f32 = 700.0;
/// Largest paddle tilt, radians (about 26 degrees).
pub(super) const MAX_TILT: f32 = 0.45;
/// How fast the paddle tilts, radians per second.
const TILT_SPEED: f32 = 3.0;
/// Serve directions relative to the paddle's normal, radians, used in turn.
const SERVE_ANGLES: [f32; 6] = [0.3, -0.22, 0.15, -0.35, 0.4, -0.1];

/// What the paddle is asked to do this frame, by the keyboard or the
/// autopilot.
#[derive(Resource, Debug, Default)]
pub(super) struct PaddleControl {
    /// -1 (left) to 1 (right), a fraction of the paddle speed.
    pub(super) move_axis: f32,
    /// The tilt the paddle turns towards, radians (positive aims left).
    pub(super) tilt_target: f32,
    /// Serve now if the ball is waiting.
    pub(super) launch: bool,
}

impl GameSettings {
    /// Fast enough to follow the ball's sideways motion.
    pub(super) fn paddle_speed(&self) -> f32 {
        PADDLE_SPEED.max(self.ball_speed * 1.6)
    }
}

pub(super) fn drive_paddle(
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
pub(super) fn serve_ball(
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
