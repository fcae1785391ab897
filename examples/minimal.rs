//! The smallest use of `bevy_collide2d`: a ball rolls through a tilted box
//! and the collision events are printed as they happen.
//!
//! Detection is all there is (no physics): the ball goes on through the box,
//! so each pass prints one `Started`, with the contact's point, normal and
//! depth, and one `Ended`. The overlay draws both colliders, red while they
//! touch, and the contact.
//!
//! ```sh
//! cargo run --example minimal
//! cargo run --example minimal -- --headless   # three seconds, no window
//! ```

#[path = "common/mod.rs"]
mod common;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;

const BALL_SPEED: f32 = 300.0;
/// The ball wraps around to the left edge when it leaves on the right.
const HALF_WIDTH: f32 = 400.0;

fn main() -> AppExit {
    if common::headless() {
        let mut app = headless_app();
        (0..180).for_each(|_| app.update());
        return AppExit::Success;
    }
    // `DefaultPlugins`, the `CollisionPlugin`, its overlay (`CollisionDebugPlugin`),
    // this example's plugin and a camera: see `examples/common/mod.rs`.
    common::windowed_app(CollisionPlugin::default(), MinimalExample).run()
}

/// The example without a window: how `--headless` and the tests run it,
/// 1/60 s a frame.
pub fn headless_app() -> App {
    common::headless_app(CollisionPlugin::default(), MinimalExample)
}

/// The two shapes, the ball's motion and the printing.
pub struct MinimalExample;

impl Plugin for MinimalExample {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, spawn_shapes)
            .add_systems(Update, (roll_ball, print_events));
    }
}

/// The shape that moves.
#[derive(Component)]
pub struct Ball;

fn spawn_shapes(mut commands: Commands) {
    commands.spawn((
        Ball,
        Name::new("ball"),
        Collider::circle(20.0),
        Transform::from_xyz(-300.0, 0.0, 0.0),
    ));
    commands.spawn((
        Name::new("box"),
        Collider::rect(80.0, 200.0), // width, height, centred on the entity
        Transform::from_rotation(Quat::from_rotation_z(0.4)), // radians, counter-clockwise
    ));
}

/// Moving a collider is moving its `Transform`: the plugin reads the pose
/// after transform propagation.
fn roll_ball(time: Res<Time>, mut ball: Single<&mut Transform, With<Ball>>) {
    ball.translation.x += BALL_SPEED * time.delta_secs();
    if ball.translation.x > HALF_WIDTH {
        ball.translation.x -= 2.0 * HALF_WIDTH;
    }
}

/// Collision messages are written after `Update` (detection runs in
/// `PostUpdate`), so they are read here one frame later.
fn print_events(mut events: MessageReader<CollisionEvent>, names: Query<&Name>) {
    let name = |entity| names.get(entity).map_or("?", |name| name.as_str());
    for event in events.read() {
        match *event {
            // The normal points from `a` to `b`: moving `b` by
            // `normal * depth` would separate them.
            CollisionEvent::Started { a, b, contact } => println!(
                "{} started touching {}: point {:.1}, normal {:.2}, depth {:.2}",
                name(a),
                name(b),
                contact.point,
                *contact.normal,
                contact.depth,
            ),
            CollisionEvent::Ended { a, b } => {
                println!("{} stopped touching {}", name(a), name(b));
            }
        }
    }
}
