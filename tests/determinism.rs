//! The same scene gives the same event stream, in the same order, on every
//! run and whatever the number of threads: messages, observer events and
//! `CollidingEntities`, frame by frame. The thread counts run in child
//! processes (Bevy's task pools are set once per process).

use std::process::Command;

use bevy::app::TaskPoolOptions;
use bevy::app::TaskPoolPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_collide2d::prelude::*;
use rand::{Rng, SeedableRng, rngs::StdRng};

/// The environment variable a child process reads its thread count from.
const THREADS: &str = "BEVY_COLLIDE2D_DETERMINISM_THREADS";

#[derive(Component)]
struct Velocity(Vec2);

/// Everything detection reported, in order, one line per report.
#[derive(Resource, Default)]
struct Stream(Vec<String>);

/// A crowd of 3000 colliders of every kind (some static, some `Swept`)
/// moving for 30 frames: far more candidate pairs than one chunk, so the
/// work is shared out; the stream of what detection reported.
fn event_stream(threads: usize) -> Vec<String> {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins.set(TaskPoolPlugin {
            task_pool_options: TaskPoolOptions::with_num_threads(threads),
        }),
        TransformPlugin,
        CollisionPlugin::default(),
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(
        std::time::Duration::from_secs_f64(1.0 / 60.0),
    ))
    .init_resource::<Stream>()
    .add_systems(Update, |mut bodies: Query<(&mut Transform, &Velocity)>| {
        for (mut transform, velocity) in &mut bodies {
            transform.translation += velocity.0.extend(0.0) / 60.0;
        }
    })
    .add_systems(
        PostUpdate,
        (|mut messages: MessageReader<CollisionEvent>,
          colliding: Query<(Entity, &CollidingEntities)>,
          mut stream: ResMut<Stream>| {
            for message in messages.read() {
                stream.0.push(format!("{message:?}"));
            }
            for (entity, touching) in &colliding {
                let list: Vec<_> = touching.iter().collect();
                stream.0.push(format!("{entity}: {list:?}"));
            }
        })
        .after(CollisionSystems::Events),
    )
    .add_observer(|hit: On<CollisionStarted>, mut stream: ResMut<Stream>| {
        stream.0.push(format!(
            "started {} {} {:?}",
            hit.entity, hit.other, hit.contact
        ));
    })
    .add_observer(|hit: On<CollisionEnded>, mut stream: ResMut<Stream>| {
        stream.0.push(format!("ended {} {}", hit.entity, hit.other));
    });
    let mut rng = StdRng::seed_from_u64(35);
    for k in 0..3000 {
        let collider = match k % 6 {
            0 => Collider::circle(rng.random_range(2.0..8.0)),
            1 => Collider::rect(rng.random_range(2.0..16.0), rng.random_range(2.0..16.0)),
            2 => Collider::capsule(rng.random_range(1.0..4.0), rng.random_range(0.0..10.0)),
            3 => Collider::segment(Vec2::new(-6.0, 1.0), Vec2::new(5.0, -2.0)),
            4 => Collider::triangle(Vec2::ZERO, Vec2::new(9.0, 1.0), Vec2::new(3.0, 7.0)).unwrap(),
            _ => Collider::compound([
                (Isometry2d::from_xy(-4.0, 0.0), Collider::circle(3.0)),
                (Isometry2d::from_xy(4.0, 0.0), Collider::rect(6.0, 3.0)),
            ]),
        };
        let at = Vec2::new(
            rng.random_range(-400.0..400.0),
            rng.random_range(-400.0..400.0),
        );
        let turn = Quat::from_rotation_z(rng.random_range(-3.0..3.0));
        let mut entity = app.world_mut().spawn((
            collider,
            Transform::from_translation(at.extend(0.0)).with_rotation(turn),
        ));
        match k % 10 {
            0 => {
                entity.insert(StaticCollider);
            }
            1 => {
                entity.insert((Swept, Velocity(Vec2::new(600.0, -300.0))));
            }
            _ => {
                let speed = Vec2::new(rng.random_range(-90.0..90.0), rng.random_range(-90.0..90.0));
                entity.insert(Velocity(speed));
            }
        }
    }
    for _ in 0..30 {
        app.update();
    }
    std::mem::take(&mut app.world_mut().resource_mut::<Stream>().0)
}

/// Runs this test binary's `child_reports_its_stream` with `threads`
/// threads and returns the stream it printed.
fn stream_in_child(threads: usize) -> Vec<String> {
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "child_reports_its_stream",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(THREADS, threads.to_string())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    (stdout.lines())
        // The harness writes the test's name on the first line's start.
        .filter_map(|line| Some(line[line.find("stream: ")? + "stream: ".len()..].to_owned()))
        .collect()
}

/// Prints the stream, one `stream: ` line per report, when run as a child
/// (does nothing in an ordinary test run).
#[test]
fn child_reports_its_stream() {
    let Ok(threads) = std::env::var(THREADS) else {
        return;
    };
    for line in event_stream(threads.parse().unwrap()) {
        println!("stream: {line}");
    }
}

#[test]
fn two_runs_report_the_same_stream() {
    let first = event_stream(2);
    assert!(
        first
            .iter()
            .filter(|line| line.starts_with("Started"))
            .count()
            > 200
    );
    assert!(first.iter().any(|line| line.starts_with("Ended")));
    assert_eq!(first, event_stream(2));
}

#[test]
fn one_thread_and_four_report_the_same_stream() {
    let one = stream_in_child(1);
    assert!(one.len() > 1000, "{}", one.len());
    assert_eq!(one, stream_in_child(4));
}

#[derive(Component)]
struct Marker;

/// Every contact of `app`'s `Collisions`, to the bit.
fn contact_bits(app: &App) -> Vec<(Entity, Entity, [u32; 5])> {
    let collisions = app.world().resource::<Collisions>();
    (collisions.iter())
        .map(|pair| {
            let c = pair.contact;
            let bits = [c.point.x, c.point.y, c.normal.x, c.normal.y, c.depth].map(f32::to_bits);
            (pair.a, pair.b, bits)
        })
        .collect()
}

/// The contacts are a function of the colliders and their poses, not of
/// where the ECS keeps them: the same scene gives the same contacts to the
/// bit after half the colliders went through another table and back (their
/// rows change), as a re-simulated frame after a rollback may have them.
#[test]
fn contacts_do_not_depend_on_storage_order() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()));
    let mut rng = StdRng::seed_from_u64(46);
    let mut entities = Vec::new();
    for k in 0..1500 {
        let collider = match k % 7 {
            0 => Collider::circle(rng.random_range(2.0..8.0)),
            1 => Collider::rect(rng.random_range(2.0..16.0), rng.random_range(2.0..16.0)),
            2 => Collider::capsule(rng.random_range(1.0..4.0), rng.random_range(0.0..10.0)),
            3 => Collider::segment(Vec2::new(-6.0, 1.0), Vec2::new(5.0, -2.0)),
            4 => Collider::triangle(Vec2::ZERO, Vec2::new(9.0, 1.0), Vec2::new(3.0, 7.0)).unwrap(),
            5 => Collider::polyline(&[Vec2::new(-8.0, 0.0), Vec2::ZERO, Vec2::new(6.0, 5.0)])
                .unwrap(),
            _ => Collider::compound([
                (Isometry2d::from_xy(-4.0, 0.0), Collider::circle(3.0)),
                (Isometry2d::from_xy(4.0, 0.0), Collider::rect(6.0, 3.0)),
            ]),
        };
        let at = Vec2::new(
            rng.random_range(-250.0..250.0),
            rng.random_range(-250.0..250.0),
        );
        let turn = Quat::from_rotation_z(rng.random_range(-3.0..3.0));
        let mut entity = app.world_mut().spawn((
            collider,
            Transform::from_translation(at.extend(0.0)).with_rotation(turn),
        ));
        match k % 10 {
            0 => {
                entity.insert(StaticCollider);
            }
            1 => {
                entity.insert(Swept);
            }
            _ => {}
        }
        entities.push(entity.id());
    }
    app.update();
    let before = contact_bits(&app);
    assert!(before.len() > 500, "{}", before.len());

    // Every other collider through another table and back: each lands at
    // the end of its table, in another order.
    for &entity in entities.iter().step_by(2) {
        app.world_mut().entity_mut(entity).insert(Marker);
    }
    for &entity in entities.iter().step_by(2) {
        app.world_mut().entity_mut(entity).remove::<Marker>();
    }
    app.update();
    assert_eq!(contact_bits(&app), before);
}

/// A game that rolls `Collisions` back and leaves each `CollidingEntities`
/// alone finds them agreeing again from the next detection on: restored to
/// a frame before a contact started, and re-simulated with another input,
/// the collider does not keep the partner it touched in the first run.
#[test]
fn colliding_entities_left_alone_across_a_rollback_agree_with_collisions() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()));
    let spawn = |app: &mut App, x: f32| {
        let at = Transform::from_xyz(x, 0.0, 0.0);
        app.world_mut().spawn((Collider::circle(5.0), at)).id()
    };
    let ball = spawn(&mut app, -20.0);
    let left = spawn(&mut app, -40.0);
    let right = spawn(&mut app, 0.0);
    let far = spawn(&mut app, 100.0);
    app.update();
    let saved_collisions = app.world().resource::<Collisions>().clone();
    let saved_transform = *app.world().get::<Transform>(ball).unwrap();
    let touching = |app: &App, entity: Entity| -> Vec<Entity> {
        let list = app.world().get::<CollidingEntities>(entity).unwrap();
        list.iter().collect()
    };
    let agrees = |app: &App| {
        let collisions = app.world().resource::<Collisions>();
        for entity in [ball, left, right, far] {
            let expected: Vec<Entity> = collisions.contacts_of(entity).map(|(e, _)| e).collect();
            let mut expected = expected;
            expected.sort();
            assert_eq!(touching(app, entity), expected, "{entity}");
        }
    };

    // The frame as first simulated: the ball moves onto `right`.
    app.world_mut()
        .get_mut::<Transform>(ball)
        .unwrap()
        .translation
        .x = -5.0;
    app.update();
    assert_eq!(touching(&app, ball), vec![right]);

    // Rolled back (transform and `Collisions`, not `CollidingEntities`) and
    // re-simulated: the ball moves onto `left` instead.
    *app.world_mut().get_mut::<Transform>(ball).unwrap() = saved_transform;
    app.world_mut().insert_resource(saved_collisions.clone());
    app.world_mut()
        .get_mut::<Transform>(ball)
        .unwrap()
        .translation
        .x = -35.0;
    app.update();
    assert_eq!(touching(&app, ball), vec![left]);
    agrees(&app);
    assert!(touching(&app, right).is_empty());

    // Rolled back again and re-simulated away from everything, then on.
    *app.world_mut().get_mut::<Transform>(ball).unwrap() = saved_transform;
    app.world_mut().insert_resource(saved_collisions);
    app.update();
    agrees(&app);
    assert!(touching(&app, ball).is_empty());
    app.world_mut()
        .get_mut::<Transform>(ball)
        .unwrap()
        .translation
        .x = 95.0;
    app.update();
    assert_eq!(touching(&app, ball), vec![far]);
    agrees(&app);
}
