//! A `Swept` collider's partners move along their own paths too: a plain
//! collider moving with a swept one is seen where it was at each moment of
//! the step, not standing at its end pose the whole time.

use crate::common;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

const DT: f32 = 1.0 / 60.0;

#[derive(Component)]
struct Velocity(Vec2);

fn moving_app() -> App {
    let mut app = test_app();
    app.add_systems(Update, |mut movers: Query<(&mut Transform, &Velocity)>| {
        for (mut transform, velocity) in &mut movers {
            transform.translation += (velocity.0 * DT).extend(0.0);
        }
    });
    app
}

/// Runs `frames` updates and returns every message.
fn run(app: &mut App, log: &mut MessageLog, frames: usize) -> Vec<CollisionEvent> {
    let mut events = Vec::new();
    for _ in 0..frames {
        app.update();
        events.extend(log.read(app));
    }
    events
}

/// A fast swept ship and a follower 3 units behind at the same speed (200
/// units a frame): they never touch, so nothing is reported.
#[test]
fn a_follower_at_the_same_speed_never_touches() {
    let mut app = moving_app();
    let mut log = MessageLog::default();
    let velocity = Vec2::new(12_000.0, 0.0);
    app.world_mut().spawn((
        Collider::circle(5.0),
        Swept,
        Transform::from_xyz(0.0, 0.0, 0.0),
        Velocity(velocity),
    ));
    let follower = app
        .world_mut()
        .spawn((
            Collider::circle(5.0),
            Transform::from_xyz(-13.0, 0.0, 0.0),
            Velocity(velocity),
        ))
        .id();
    let events = run(&mut app, &mut log, 20);
    assert!(events.is_empty(), "{events:?}");
    assert!(colliding(&app, follower).is_empty());
}

/// A sensor on a child 3 units behind a swept ship moves with it.
#[test]
fn a_trailing_child_sensor_never_touches() {
    let mut app = moving_app();
    let mut log = MessageLog::default();
    let ship = app
        .world_mut()
        .spawn((
            Collider::rect(10.0, 6.0),
            Swept,
            Transform::from_rotation(Quat::from_rotation_z(0.3)),
            Velocity(Vec2::new(9_000.0, 3_000.0)),
        ))
        .id();
    app.world_mut().spawn((
        Collider::circle(2.0),
        Transform::from_xyz(-10.0, 0.0, 0.0),
        ChildOf(ship),
    ));
    let events = run(&mut app, &mut log, 20);
    assert!(events.is_empty(), "{events:?}");
}

/// A swept ball resting on a plain platform that carries it down: one
/// `Started`, and the contact goes on without `Ended` / `Started` flicker.
#[test]
fn a_ball_carried_by_a_moving_platform_stays_in_contact() {
    let mut app = moving_app();
    let mut log = MessageLog::default();
    let velocity = Vec2::new(0.0, -600.0);
    let ball = app
        .world_mut()
        .spawn((
            Collider::circle(5.0),
            Swept,
            Transform::from_xyz(0.0, 9.9, 0.0),
            Velocity(velocity),
        ))
        .id();
    let platform = app
        .world_mut()
        .spawn((
            Collider::rect(100.0, 10.0),
            Transform::default(),
            Velocity(velocity),
        ))
        .id();
    let events = run(&mut app, &mut log, 30);
    let (a, b) = ordered(ball, platform);
    assert!(
        matches!(events[..], [CollisionEvent::Started { a: x, b: y, .. }] if (x, y) == (a, b)),
        "{events:?}"
    );
    assert_eq!(colliding(&app, ball), vec![platform]);
}

/// The partner's path counts for hits too: a swept bullet and a plain
/// target crossing its line within the step, both fast, meet on the way
/// even though neither end pose touches the other.
#[test]
fn a_fast_plain_target_crossing_the_line_is_hit_on_the_way() {
    let mut app = moving_app();
    let mut log = MessageLog::default();
    // The bullet goes from x = -100 to x = 100 in one step; the target
    // from y = 100 to y = -100, through the origin at mid-step as well.
    let bullet = app
        .world_mut()
        .spawn((
            Collider::circle(2.0),
            Swept,
            Transform::from_xyz(-100.0, 0.0, 0.0),
        ))
        .id();
    let target = app
        .world_mut()
        .spawn((
            Collider::rect(20.0, 20.0),
            Transform::from_xyz(0.0, 100.0, 0.0),
        ))
        .id();
    app.update();
    assert!(log.read(&app).is_empty());
    app.world_mut()
        .entity_mut(bullet)
        .insert(Velocity(Vec2::new(12_000.0, 0.0)));
    app.world_mut()
        .entity_mut(target)
        .insert(Velocity(Vec2::new(0.0, -12_000.0)));
    app.update();
    let (a, b) = ordered(bullet, target);
    let events = log.read(&app);
    let time = time_of_impact(&app, a, b);
    assert!(
        matches!(events[..], [CollisionEvent::Started { a: x, b: y, .. }, CollisionEvent::Ended { .. }]
            if (x, y) == (a, b) && time > 0.3 && time < 0.7),
        "{events:?}"
    );
}
