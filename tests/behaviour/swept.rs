//! `Swept` colliders: a fast small shape cannot pass through a thin one
//! between two frames; the hit is reported with its time of impact, and
//! Started / Ended still pair up.

use crate::common;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

/// 50,000 units per second: about 833 units per 1/60 s frame.
const SPEED: f32 = 50_000.0;
const DT: f32 = 1.0 / 60.0;

#[derive(Component)]
struct Velocity(Vec2);

/// A swept circle of `radius` on the x axis at `x`.
fn spawn_swept_ball(app: &mut App, radius: f32, x: f32) -> Entity {
    app.world_mut()
        .spawn((
            Collider::circle(radius),
            Swept,
            Transform::from_xyz(x, 0.0, 0.0),
        ))
        .id()
}

fn moving_app() -> App {
    let mut app = test_app();
    app.add_systems(Update, |mut movers: Query<(&mut Transform, &Velocity)>| {
        for (mut transform, velocity) in &mut movers {
            transform.translation += (velocity.0 * DT).extend(0.0);
        }
    });
    app
}

/// What happened to a radius-2 ball shot along +x at a 2-unit-thick wall
/// turned by `angle`, starting `phase` units further along.
struct Shot {
    /// `(frame, contact seen from the ball, time of impact)` of every
    /// Started message.
    started: Vec<(u32, Contact, f32)>,
    ended: usize,
    /// The ball's x at the start of each frame's step.
    step_starts: Vec<f32>,
}

fn shoot(angle: f32, phase: f32, swept: bool) -> Shot {
    let mut app = moving_app();
    let start_x = -2_000.0 + phase;
    let mut ball = app.world_mut().spawn((
        Collider::circle(2.0),
        Transform::from_xyz(start_x, 0.0, 0.0),
        Velocity(Vec2::new(SPEED, 0.0)),
    ));
    if swept {
        ball.insert(Swept);
    }
    let ball = ball.id();
    app.world_mut().spawn((
        Collider::rect(2.0, 60.0),
        Transform::from_rotation(Quat::from_rotation_z(angle)),
    ));
    let mut log = MessageLog::default();
    let mut shot = Shot {
        started: Vec::new(),
        ended: 0,
        step_starts: Vec::new(),
    };
    for frame in 0..6 {
        let x = app.world().get::<Transform>(ball).unwrap().translation.x;
        shot.step_starts.push(x);
        app.update();
        for message in log.read(&app) {
            match message {
                CollisionEvent::Started { a, b, contact } => {
                    let from_ball = if a == ball {
                        contact
                    } else {
                        contact.flipped()
                    };
                    let time = time_of_impact(&app, a, b);
                    shot.started.push((frame, from_ball, time));
                }
                CollisionEvent::Ended { .. } => shot.ended += 1,
            }
        }
    }
    shot
}

#[test]
fn fast_swept_ball_always_hits_a_thin_rotated_wall() {
    for angle in [0.0f32, 0.3, -0.5, 1.0] {
        for phase in [0.0, 97.0, 333.3, 512.0, 777.7] {
            let shot = shoot(angle, phase, true);
            assert_eq!(
                shot.started.len(),
                1,
                "angle {angle} phase {phase}: one Started"
            );
            assert_eq!(shot.ended, 1, "angle {angle} phase {phase}: one Ended");
            let (frame, contact, time) = shot.started[0];
            // Seen from the ball, the normal points into the wall, along its
            // face normal on the ball's side.
            let face = Vec2::new(angle.cos(), angle.sin());
            assert!(
                contact.normal.dot(face) > 0.999,
                "angle {angle}: normal {:?}",
                contact.normal
            );
            // The ball's centre touches when it is 1 + 2 from the wall's
            // mid-plane: x * cos(angle) = -3 on the line y = 0.
            let touch_x = -3.0 / angle.cos();
            // The detection that ran after update `frame` swept from the
            // ball's pose at the previous detection (the one before it moved
            // in this update) to its pose after moving.
            let step_start = shot.step_starts[frame as usize];
            let expected = (touch_x - step_start) / (SPEED * DT);
            assert!(
                (time - expected).abs() <= 1e-3,
                "angle {angle} phase {phase}: time of impact {} vs {expected}",
                time
            );
            assert!(time < 1.0);
            assert!(contact.depth.abs() < 1e-2);
        }
    }
}

#[test]
fn without_swept_the_fast_ball_may_tunnel() {
    let missed = [0.0, 97.0, 333.3, 512.0, 777.7]
        .into_iter()
        .filter(|&phase| shoot(0.3, phase, false).started.is_empty())
        .count();
    assert!(
        missed > 0,
        "833 units a frame past a 2-unit wall: some miss"
    );
}

#[test]
fn swept_ball_ending_inside_reports_the_first_touch_and_stays() {
    let mut app = moving_app();
    // 100 units per frame at a 40-unit-thick block 60 away: it ends inside.
    let ball = spawn_swept_ball(&mut app, 2.0, -82.0);
    let block = app
        .world_mut()
        .spawn((Collider::rect(40.0, 40.0), Transform::default()))
        .id();
    // The first detection sees where the ball starts; the next one sweeps.
    app.update();
    app.world_mut()
        .entity_mut(ball)
        .insert(Velocity(Vec2::new(100.0 / DT, 0.0)));
    app.update();
    let contact = app
        .world()
        .resource::<Collisions>()
        .get(ball, block)
        .expect("in contact at the end of the step");
    // The ball (radius 2) reaches the face at x = -20 when its centre is at
    // -22: 60 of the 100 units moved.
    assert!(
        (time_of_impact(&app, ball, block) - 0.6).abs() < 1e-3,
        "{contact:?}"
    );
    assert!(colliding(&app, ball).contains(&block));
    let observed = take_observed(&mut app);
    assert_eq!(observed.len(), 2, "Started on both, no Ended: {observed:?}");
    // Stopped inside: an ordinary contact from now on.
    app.world_mut()
        .entity_mut(ball)
        .insert(Velocity(Vec2::ZERO));
    app.update();
    app.world()
        .resource::<Collisions>()
        .get(ball, block)
        .unwrap();
    assert_eq!(time_of_impact(&app, ball, block), 1.0);
    assert!(take_observed(&mut app).is_empty());
}

#[test]
fn inserting_swept_again_teleports_without_a_path() {
    let mut app = moving_app();
    let ball = spawn_swept_ball(&mut app, 1.0, -100.0);
    app.world_mut()
        .spawn((Collider::rect(2.0, 50.0), Transform::default()));
    app.update();
    // Teleport across the wall, re-inserting Swept so no path is tested.
    app.world_mut()
        .entity_mut(ball)
        .insert((Transform::from_xyz(100.0, 0.0, 0.0), Swept));
    app.update();
    assert!(take_observed(&mut app).is_empty());
    // A plain move across it is a path, and hits.
    app.world_mut()
        .entity_mut(ball)
        .insert(Transform::from_xyz(-100.0, 0.0, 0.0));
    app.update();
    assert_eq!(
        take_observed(&mut app).len(),
        4,
        "Started and Ended on both"
    );
}

#[test]
fn fast_swept_rectangles_do_not_pass_through_each_other() {
    for spin in [0.0f32, 20.0, -45.0] {
        let mut app = moving_app();
        app.add_systems(Update, move |mut q: Query<&mut Transform, With<Swept>>| {
            for mut transform in &mut q {
                transform.rotate_z(spin * DT);
            }
        });
        app.world_mut().spawn((
            Collider::rect(3.0, 1.0),
            Swept,
            Transform::from_xyz(-1_500.0, 4.0, 0.0),
            Velocity(Vec2::new(60_000.0, 0.0)),
        ));
        app.world_mut().spawn((
            Collider::rect(1.0, 30.0),
            Transform::from_rotation(Quat::from_rotation_z(0.2)),
        ));
        for _ in 0..4 {
            app.update();
        }
        let observed = take_observed(&mut app);
        let started = observed
            .iter()
            .filter(|e| matches!(e, ObservedEvent::Started { .. }))
            .count();
        assert_eq!(started, 2, "spin {spin}: Started on both");
    }
}

/// Moving a swept ball and inserting `Swept` again restarts its path where
/// it was put: what it crosses after that, in the same frame, is hit.
#[test]
fn path_restarts_where_swept_is_inserted_again() {
    let mut app = moving_app();
    let ball = spawn_swept_ball(&mut app, 1.0, -500.0);
    let wall = spawn_at(&mut app, Collider::rect(2.0, 50.0), 100.0, 0.0);
    app.update();
    // Put just before the wall, then moved 60 units across it by the
    // update: only the path from x = 90 crosses the wall.
    app.world_mut()
        .entity_mut(ball)
        .insert((Transform::from_xyz(90.0, 0.0, 0.0), Swept))
        .insert(Velocity(Vec2::new(60.0 / DT, 0.0)));
    app.update();
    let started: Vec<_> = take_observed(&mut app)
        .into_iter()
        .filter_map(|event| match event {
            ObservedEvent::Started {
                entity, contact, ..
            } if entity == ball => Some(contact),
            _ => None,
        })
        .collect();
    assert_eq!(started.len(), 1, "{started:?}");
    // From x = 90, the ball (radius 1) touches the face at 99 after 8 of
    // its 60 units.
    assert!(
        (time_of_impact(&app, ball, wall) - 8.0 / 60.0).abs() < 1e-3,
        "{started:?}"
    );
    assert!(!colliding(&app, ball).contains(&wall), "passed through");
}

/// A teleport leaves a pair's state behind: a pair touching before the
/// teleport, apart at the new start and touching again on the way, ends and
/// starts again; one that a teleport puts together starts at time 0.
#[test]
fn teleports_end_and_start_pairs_again() {
    let mut app = moving_app();
    let mut log = MessageLog::default();
    let ball = spawn_swept_ball(&mut app, 1.0, 0.0);
    let block = spawn_at(&mut app, Collider::rect(10.0, 10.0), 5.0, 0.0);
    let pair = ordered(ball, block);
    app.update();
    assert_eq!(
        log.read(&app),
        [CollisionEvent::Started {
            a: pair.0,
            b: pair.1,
            contact: app.world().resource::<Collisions>().as_slice()[0].contact,
        }]
    );

    // Teleported 20 left of the block and moved 30 back into it.
    app.world_mut()
        .entity_mut(ball)
        .insert((Transform::from_xyz(-20.0, 0.0, 0.0), Swept))
        .insert(Velocity(Vec2::new(30.0 / DT, 0.0)));
    app.update();
    let messages = log.read(&app);
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(
        messages[0],
        CollisionEvent::Ended {
            a: pair.0,
            b: pair.1
        }
    );
    let CollisionEvent::Started { contact, .. } = messages[1] else {
        panic!("{messages:?}");
    };
    // From -20 the ball touches the face at x = 0 at -1: 19 of 30 units.
    assert!(
        (time_of_impact(&app, pair.0, pair.1) - 19.0 / 30.0).abs() < 1e-3,
        "{contact:?}"
    );
    assert!(colliding(&app, ball).contains(&block));

    // Teleported out of the block (it ends), then into it again while
    // moving out of it within the step: touching at the start, apart at
    // the end.
    app.world_mut().entity_mut(ball).insert((
        Transform::from_xyz(-50.0, 0.0, 0.0),
        Swept,
        Velocity(Vec2::ZERO),
    ));
    app.update();
    assert_eq!(
        log.read(&app),
        [CollisionEvent::Ended {
            a: pair.0,
            b: pair.1
        }]
    );
    app.world_mut()
        .entity_mut(ball)
        .insert((Transform::from_xyz(9.0, 0.0, 0.0), Swept))
        .insert(Velocity(Vec2::new(0.0, 20.0 / DT)));
    app.update();
    let messages = log.read(&app);
    assert_eq!(messages.len(), 2, "{messages:?}");
    let CollisionEvent::Started { .. } = messages[0] else {
        panic!("{messages:?}");
    };
    assert_eq!(time_of_impact(&app, pair.0, pair.1), 0.0);
    assert_eq!(
        messages[1],
        CollisionEvent::Ended {
            a: pair.0,
            b: pair.1
        }
    );
    assert!(colliding(&app, ball).is_empty());
}

/// A `Swept` compound turns as one rigid body: its parts far from its origin
/// sweep the arc of the turn, not its chord. Two thin bars end to end as one
/// compound turned from 0 to 1.2 rad in one step must meet a small ball at
/// 0.6 rad, 48 from the centre, as the single bar of the same outline does
/// (the chord of a part's arc stays inside 46 there: the ball would be
/// missed).
#[test]
fn a_turning_swept_compound_sweeps_the_arc_of_its_parts() {
    let bars = Collider::compound([
        (Isometry2d::from_xy(25.0, 0.0), Collider::rect(50.0, 4.0)),
        (Isometry2d::from_xy(-25.0, 0.0), Collider::rect(50.0, 4.0)),
    ]);
    let bar = Collider::rect(100.0, 4.0);
    let mut impacts = Vec::new();
    for collider in [bars, bar] {
        let mut app = test_app();
        let mut log = MessageLog::default();
        let spinner = app
            .world_mut()
            .spawn((collider, Swept, Transform::default()))
            .id();
        let at = Vec2::from_angle(0.6) * 48.0;
        let ball = spawn_at(&mut app, Collider::circle(1.5), at.x, at.y);
        app.update();
        assert!(log.read(&app).is_empty());
        app.world_mut()
            .get_mut::<Transform>(spinner)
            .unwrap()
            .rotation = Quat::from_rotation_z(1.2);
        app.update();
        let started: Vec<Contact> = (log.read(&app).into_iter())
            .filter_map(|message| match message {
                CollisionEvent::Started { contact, .. } => Some(contact),
                CollisionEvent::Ended { .. } => None,
            })
            .collect();
        assert_eq!(started.len(), 1, "{started:?}");
        impacts.push(time_of_impact(&app, spinner, ball));
    }
    // The rigid turn reaches the ball when the bar's face is 3.5 from its
    // centre: at 0.6 - asin(3.5 / 48) rad, 0.439 of the step. The single
    // bar's test may report it up to a sub-step early.
    let [compound, single] = impacts[..] else {
        unreachable!()
    };
    let exact = (0.6 - (3.5f32 / 48.0).asin()) / 1.2;
    assert!((compound - exact).abs() < 0.01, "{compound} vs {exact}");
    assert!((single - exact).abs() < 0.03, "{single} vs {exact}");
}

/// A bar turning fast reaches, halfway through its turn, a ball beyond both
/// of its end boxes: turned from -1 to 1 rad in one step, its tip passes 10
/// from its centre on the x axis, where at either end it reaches only 5.8.
/// Its path's box holds the whole turn, so the pair is found.
#[test]
fn a_fast_turning_swept_bar_hits_a_ball_beyond_both_its_end_boxes() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let bar = app
        .world_mut()
        .spawn((
            Collider::rect(20.0, 1.0),
            Swept,
            Transform::from_rotation(Quat::from_rotation_z(-1.0)),
        ))
        .id();
    let ball = spawn_at(&mut app, Collider::circle(0.3), 9.0, 0.0);
    app.update();
    assert!(log.read(&app).is_empty());
    app.world_mut().get_mut::<Transform>(bar).unwrap().rotation = Quat::from_rotation_z(1.0);
    app.update();
    let started = (log.read(&app).into_iter())
        .filter(|message| matches!(message, CollisionEvent::Started { .. }))
        .count();
    assert_eq!(started, 1);
    // The bar's face (0.5 from its axis) reaches the ball's near side at
    // asin(0.8 / 9) before the half turn.
    let exact = (1.0 - (0.8f32 / 9.0).asin()) / 2.0;
    let time = time_of_impact(&app, bar, ball);
    assert!((time - exact).abs() < 0.03, "{time} vs {exact}");
}
