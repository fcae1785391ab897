//! Contacts end exactly once when an entity is despawned or loses its
//! collider mid-contact, and the survivor hears about it.

use crate::common;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

fn touching_pair(app: &mut App) -> (Entity, Entity) {
    let survivor = spawn_at(app, Collider::circle(10.0), 0.0, 0.0);
    let doomed = spawn_at(app, Collider::rect(10.0, 10.0), 12.0, 0.0);
    (survivor, doomed)
}

fn count(events: &[CollisionEvent]) -> (usize, usize) {
    let started = events
        .iter()
        .filter(|e| matches!(e, CollisionEvent::Started { .. }))
        .count();
    (started, events.len() - started)
}

#[test]
fn despawn_ends_the_contact_once_and_the_survivor_hears_it() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let (survivor, doomed) = touching_pair(&mut app);
    let survivor_heard = app.world_mut().spawn_empty().id();
    app.world_mut().entity_mut(survivor).observe(
        move |end: On<CollisionEnded>, mut commands: Commands| {
            commands
                .entity(survivor_heard)
                .insert(Name::new(format!("ended with {}", end.other)));
        },
    );
    app.update();
    assert_eq!(count(&log.read(&app)), (1, 0));
    assert_eq!(colliding(&app, survivor), vec![doomed]);
    take_observed(&mut app);

    app.world_mut().despawn(doomed);
    app.update();
    let (a, b) = ordered(survivor, doomed);
    assert_eq!(log.read(&app), vec![CollisionEvent::Ended { a, b }]);
    assert!(colliding(&app, survivor).is_empty());
    // Only the survivor is still there to hear it.
    assert_eq!(
        take_observed(&mut app),
        vec![ObservedEvent::Ended {
            entity: survivor,
            other: doomed
        }]
    );
    assert_eq!(
        app.world()
            .get::<Name>(survivor_heard)
            .map(|n| n.as_str().to_owned()),
        Some(format!("ended with {doomed}"))
    );

    for _ in 0..5 {
        app.update();
    }
    assert!(log.read(&app).is_empty(), "no second Ended");
    assert!(take_observed(&mut app).is_empty());
}

#[test]
fn removing_the_collider_ends_the_contact_and_clears_both_sides() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let (survivor, stripped) = touching_pair(&mut app);
    app.update();
    assert_eq!(count(&log.read(&app)), (1, 0));
    take_observed(&mut app);

    app.world_mut().entity_mut(stripped).remove::<Collider>();
    app.update();
    assert_eq!(count(&log.read(&app)), (0, 1));
    assert!(colliding(&app, survivor).is_empty());
    // The entity without a collider is still alive: it hears the end too,
    // and its CollidingEntities is emptied.
    assert!(colliding(&app, stripped).is_empty());
    assert_eq!(take_observed(&mut app).len(), 2);

    // Putting the collider back starts a new contact.
    app.world_mut()
        .entity_mut(stripped)
        .insert(Collider::rect(10.0, 10.0));
    app.update();
    assert_eq!(count(&log.read(&app)), (1, 0));
    assert_eq!(colliding(&app, survivor), vec![stripped]);
}

#[test]
fn despawning_from_a_started_observer_is_safe() {
    // The breakout pattern: a brick despawns itself when hit.
    let mut app = test_app();
    let mut log = MessageLog::default();
    let ball = spawn_at(&mut app, Collider::circle(10.0), 0.0, 0.0);
    let bricks: Vec<Entity> = (0..3)
        .map(|i| {
            let y = 8.0 * (i as f32 - 1.0);
            let brick = spawn_at(&mut app, Collider::rect(10.0, 6.0), 12.0, y);
            app.world_mut().entity_mut(brick).observe(
                |hit: On<CollisionStarted>, mut commands: Commands| {
                    commands.entity(hit.entity).despawn();
                },
            );
            brick
        })
        .collect();
    app.update();
    assert_eq!(
        count(&log.read(&app)),
        (3, 0),
        "ball touches all three bricks"
    );
    for &brick in &bricks {
        assert!(
            app.world().get_entity(brick).is_err(),
            "brick despawned by its observer"
        );
    }
    // The ball's CollidingEntities listed them this frame; next frame ends
    // every contact once.
    app.update();
    assert_eq!(count(&log.read(&app)), (0, 3));
    assert!(colliding(&app, ball).is_empty());
    let ended = take_observed(&mut app)
        .into_iter()
        .filter(|e| matches!(e, ObservedEvent::Ended { .. }))
        .collect::<Vec<_>>();
    assert_eq!(ended.len(), 3);
    assert!(
        ended
            .iter()
            .all(|e| matches!(e, ObservedEvent::Ended { entity, .. } if *entity == ball))
    );
}

/// Spawns a collider at the origin from a PostUpdate system that runs after
/// detection, so it is added mid-frame, after this frame's poses were read.
#[derive(Resource, Default)]
struct SpawnAfterDetection(bool);

#[test]
fn colliders_added_and_replaced_mid_frame() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    app.init_resource::<SpawnAfterDetection>().add_systems(
        PostUpdate,
        (|mut commands: Commands, mut request: ResMut<SpawnAfterDetection>| {
            if std::mem::take(&mut request.0) {
                commands.spawn((Collider::circle(10.0), Transform::default()));
            }
        })
        .after(CollisionSystems::Events),
    );
    let base = spawn_at(&mut app, Collider::circle(10.0), 0.0, 0.0);
    app.update();

    // Added after detection: nothing this frame, a Started the next.
    app.world_mut().resource_mut::<SpawnAfterDetection>().0 = true;
    app.update();
    assert!(log.read(&app).is_empty());
    assert!(colliding(&app, base).is_empty());
    app.update();
    let events = log.read(&app);
    assert!(
        matches!(events.as_slice(), [CollisionEvent::Started { .. }]),
        "{events:?}"
    );
    let (lo, hi) = events[0].entities();
    let first = if lo == base { hi } else { lo };

    // Despawned and replaced at the same spot before the next detection: the
    // old pair ends and the new one starts, in the same frame.
    app.world_mut().despawn(first);
    let second = spawn_at(&mut app, Collider::circle(10.0), 0.0, 0.0);
    app.update();
    let events = log.read(&app);
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(events.contains(&CollisionEvent::Ended {
        a: ordered(base, first).0,
        b: ordered(base, first).1
    }));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, CollisionEvent::Started { .. }) && e.involves(second))
    );
    assert_eq!(colliding(&app, base), vec![second]);
}

#[test]
fn a_clone_of_a_colliding_entity_starts_with_its_own_contacts() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let a = spawn_at(&mut app, Collider::circle(1.0), 0.0, 0.0);
    let b = spawn_at(&mut app, Collider::circle(1.0), 1.0, 0.0);
    app.update();
    assert_eq!(colliding(&app, a), vec![b]);
    log.read(&app);

    let copy = app.world_mut().entity_mut(a).clone_and_spawn();
    assert!(
        colliding(&app, copy).is_empty(),
        "not copied from the original"
    );
    app.world_mut()
        .get_mut::<Transform>(copy)
        .unwrap()
        .translation
        .x = 100.0;
    app.update();
    assert!(colliding(&app, copy).is_empty());
    assert!(log.read(&app).is_empty());
    assert_eq!(colliding(&app, a), vec![b]);
}
