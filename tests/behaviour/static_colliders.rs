//! `StaticCollider`: two static colliders never collide; static against
//! moving is reported like any pair, on both sides; a static collider that
//! is moved, changed, disabled, despawned or made static mid-contact is seen
//! as it is at the next detection; queries see static colliders too.

use crate::common;

use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

fn spawn_static(app: &mut App, collider: Collider, x: f32, y: f32) -> Entity {
    app.world_mut()
        .spawn((collider, StaticCollider, Transform::from_xyz(x, y, 0.0)))
        .id()
}

fn run(app: &mut App, log: &mut MessageLog) -> Vec<CollisionEvent> {
    app.update();
    log.read(app)
}

#[test]
fn touching_static_colliders_report_nothing() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let floor = spawn_static(&mut app, Collider::rect(100.0, 10.0), 0.0, 0.0);
    let wall = spawn_static(&mut app, Collider::rect(10.0, 100.0), 45.0, 50.0);
    assert!(run(&mut app, &mut log).is_empty());
    assert!(colliding(&app, floor).is_empty() && colliding(&app, wall).is_empty());
    assert!(app.world().resource::<Collisions>().iter().next().is_none());
}

#[test]
fn static_against_moving_is_reported_on_both_sides() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let floor = spawn_static(&mut app, Collider::rect(100.0, 10.0), 0.0, 0.0);
    let ball = spawn_at(&mut app, Collider::circle(5.0), 10.0, 20.0);
    assert!(run(&mut app, &mut log).is_empty());
    set_translation(&mut app, ball, 10.0, 9.0);
    let events = run(&mut app, &mut log);
    let [CollisionEvent::Started { a, b, contact }] = events[..] else {
        panic!("{events:?}");
    };
    assert_eq!((a, b), ordered(floor, ball));
    let from_floor = if a == floor {
        contact
    } else {
        contact.flipped()
    };
    assert!(from_floor.normal.dot(Vec2::Y) > 0.999, "{contact:?}");
    assert!((from_floor.depth - 1.0).abs() < 1e-4, "{contact:?}");
    assert_eq!(colliding(&app, floor), vec![ball]);
    assert_eq!(colliding(&app, ball), vec![floor]);
    let observed = take_observed(&mut app);
    assert!(observed.iter().any(
        |e| matches!(e, ObservedEvent::Started { entity, other, .. } if *entity == floor && *other == ball)
    ));
    // Leaving ends it, on both sides.
    set_translation(&mut app, ball, 10.0, 30.0);
    let events = run(&mut app, &mut log);
    assert!(
        matches!(events[..], [CollisionEvent::Ended { .. }]),
        "{events:?}"
    );
    assert!(colliding(&app, floor).is_empty() && colliding(&app, ball).is_empty());
}

#[test]
fn a_moved_or_changed_static_collider_is_seen_where_it_is() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let wall = spawn_static(&mut app, Collider::rect(10.0, 10.0), 0.0, 0.0);
    let ball = spawn_at(&mut app, Collider::circle(2.0), 20.0, 0.0);
    assert!(run(&mut app, &mut log).is_empty());
    // Moved onto the ball.
    set_translation(&mut app, wall, 15.0, 0.0);
    assert_eq!(run(&mut app, &mut log).len(), 1);
    assert_eq!(colliding(&app, ball), vec![wall]);
    // Shrunk away from it.
    app.world_mut()
        .entity_mut(wall)
        .insert(Collider::rect(2.0, 2.0));
    assert!(matches!(
        run(&mut app, &mut log)[..],
        [CollisionEvent::Ended { .. }]
    ));
    // Its layers changed so that the ball's cannot meet it; grown back.
    app.world_mut()
        .entity_mut(wall)
        .insert((Collider::rect(10.0, 10.0), CollisionLayers::NONE));
    assert!(run(&mut app, &mut log).is_empty());
    // Removing them means the default, every layer.
    app.world_mut().entity_mut(wall).remove::<CollisionLayers>();
    assert_eq!(run(&mut app, &mut log).len(), 1);
    // Despawned mid-contact: ended.
    app.world_mut().despawn(wall);
    assert!(matches!(
        run(&mut app, &mut log)[..],
        [CollisionEvent::Ended { .. }]
    ));
    assert!(colliding(&app, ball).is_empty());
}

#[test]
fn disabling_a_static_collider_ends_its_contacts_until_enabled() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let wall = spawn_static(&mut app, Collider::rect(10.0, 10.0), 0.0, 0.0);
    let ball = spawn_at(&mut app, Collider::circle(2.0), 6.0, 0.0);
    assert_eq!(run(&mut app, &mut log).len(), 1);
    app.world_mut().entity_mut(wall).insert(Disabled);
    assert!(matches!(
        run(&mut app, &mut log)[..],
        [CollisionEvent::Ended { .. }]
    ));
    assert!(colliding(&app, ball).is_empty());
    app.world_mut().entity_mut(wall).remove::<Disabled>();
    assert_eq!(run(&mut app, &mut log).len(), 1);
    assert_eq!(colliding(&app, ball), vec![wall]);
}

/// Making a collider static or moving mid-contact keeps a contact with a
/// moving partner going, and ends one with a static partner.
#[test]
fn becoming_static_keeps_contacts_with_moving_colliders_only() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let floor = spawn_static(&mut app, Collider::rect(100.0, 10.0), 0.0, 0.0);
    let crate_box = spawn_at(&mut app, Collider::rect(10.0, 10.0), 0.0, 9.0);
    let ball = spawn_at(&mut app, Collider::circle(3.0), 0.0, 16.0);
    assert_eq!(run(&mut app, &mut log).len(), 2);
    app.world_mut().entity_mut(crate_box).insert(StaticCollider);
    let events = run(&mut app, &mut log);
    // Floor and crate are both static now: their contact ends; the ball's
    // goes on without a new event.
    let [CollisionEvent::Ended { a, b }] = events[..] else {
        panic!("{events:?}");
    };
    assert_eq!((a, b), ordered(floor, crate_box));
    assert_eq!(colliding(&app, crate_box), vec![ball]);
    app.world_mut()
        .entity_mut(crate_box)
        .remove::<StaticCollider>();
    let events = run(&mut app, &mut log);
    assert!(
        matches!(events[..], [CollisionEvent::Started { .. }]),
        "{events:?}"
    );
    assert_eq!(colliding(&app, floor), vec![crate_box]);
}

#[test]
fn a_swept_ball_cannot_tunnel_through_a_thin_static_wall() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let wall = spawn_static(&mut app, Collider::rect(1.0, 40.0), 100.0, 0.0);
    let ball = app
        .world_mut()
        .spawn((Collider::circle(1.0), Swept, Transform::default()))
        .id();
    run(&mut app, &mut log);
    set_translation(&mut app, ball, 250.0, 0.0);
    let events = run(&mut app, &mut log);
    let started = events.iter().any(|e| {
        matches!(e, CollisionEvent::Started { a, b, contact }
            if ordered(*a, *b) == ordered(wall, ball) && time_of_impact(&app, *a, *b) < 1.0)
    });
    assert!(started, "{events:?}");
}

#[test]
fn queries_see_static_colliders() {
    let mut app = test_app();
    let wall = spawn_static(&mut app, Collider::rect(2.0, 20.0), 10.0, 0.0);
    let ball = spawn_at(&mut app, Collider::circle(1.0), 5.0, 0.0);
    app.update();
    let filter = QueryFilter::default();
    let (ray, points, shapes, cast) = app
        .world_mut()
        .run_system_once(move |spatial: SpatialQuery| {
            (
                spatial.cast_ray(Vec2::new(7.0, 0.0), Dir2::X, 100.0, &filter),
                spatial.point_hits(Vec2::new(10.0, 5.0), &filter),
                spatial.shape_hits(
                    &Collider::circle(6.0),
                    Isometry2d::from_xy(5.0, 0.0),
                    &filter,
                ),
                spatial.cast_shape(
                    &Collider::circle(1.0),
                    Isometry2d::from_xy(0.0, 8.0),
                    Dir2::X,
                    100.0,
                    &filter,
                ),
            )
        })
        .unwrap();
    let ray = ray.unwrap();
    assert_eq!((ray.entity, ray.distance), (wall, 2.0));
    assert_eq!(points, vec![wall]);
    let mut expected = vec![wall, ball];
    expected.sort();
    assert_eq!(shapes, expected);
    let cast = cast.unwrap();
    assert_eq!(cast.entity, wall);
    assert!((cast.distance - 8.0).abs() < 1e-3, "{cast:?}");
}

#[test]
fn an_invalid_static_collider_is_skipped_until_fixed() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let wall = spawn_static(&mut app, Collider::rect(-10.0, 10.0), 0.0, 0.0);
    let ball = spawn_at(&mut app, Collider::circle(2.0), 6.0, 0.0);
    assert!(run(&mut app, &mut log).is_empty());
    app.world_mut()
        .entity_mut(wall)
        .insert(Collider::rect(10.0, 10.0));
    assert_eq!(run(&mut app, &mut log).len(), 1);
    assert_eq!(colliding(&app, ball), vec![wall]);
}

/// `Swept` on a static wall makes its partners move along their paths, and
/// removing it stops that, at the next detection.
#[test]
fn swept_on_a_static_wall_catches_fast_plain_movers_until_removed() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let wall = app
        .world_mut()
        .spawn((
            Collider::rect(1.0, 40.0),
            StaticCollider,
            Swept,
            Transform::from_xyz(100.0, 0.0, 0.0),
        ))
        .id();
    let ball = spawn_at(&mut app, Collider::circle(1.0), 0.0, 0.0);
    run(&mut app, &mut log);
    set_translation(&mut app, ball, 250.0, 0.0);
    let events = run(&mut app, &mut log);
    assert_eq!(events.len(), 2, "passed through: {events:?}");
    app.world_mut().entity_mut(wall).remove::<Swept>();
    run(&mut app, &mut log);
    set_translation(&mut app, ball, 0.0, 0.0);
    let events = run(&mut app, &mut log);
    assert!(events.is_empty(), "{events:?}");
}

/// `Swept` put on a static wall that is already in detection is seen at the
/// next detection, though nothing else about the wall changed.
#[test]
fn swept_added_to_a_standing_static_wall_is_seen() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let wall = spawn_static(&mut app, Collider::rect(1.0, 40.0), 100.0, 0.0);
    let ball = spawn_at(&mut app, Collider::circle(1.0), 0.0, 0.0);
    run(&mut app, &mut log);
    app.world_mut().entity_mut(wall).insert(Swept);
    run(&mut app, &mut log);
    set_translation(&mut app, ball, 250.0, 0.0);
    let events = run(&mut app, &mut log);
    assert_eq!(events.len(), 2, "passed through: {events:?}");
}

/// One static collider disabled and another collider made static in the
/// same frame: as many static colliders as before, and both changes seen.
#[test]
fn a_static_disabled_while_another_becomes_static_is_seen() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let floor = spawn_static(&mut app, Collider::rect(100.0, 10.0), 0.0, 0.0);
    let old_wall = spawn_static(&mut app, Collider::rect(10.0, 10.0), 200.0, 0.0);
    let crate_box = spawn_at(&mut app, Collider::rect(10.0, 10.0), 0.0, 9.0);
    let ball = spawn_at(&mut app, Collider::circle(3.0), 0.0, 16.0);
    assert_eq!(run(&mut app, &mut log).len(), 2);
    assert!(run(&mut app, &mut log).is_empty());
    app.world_mut().entity_mut(old_wall).insert(Disabled);
    app.world_mut().entity_mut(crate_box).insert(StaticCollider);
    let events = run(&mut app, &mut log);
    let [CollisionEvent::Ended { a, b }] = events[..] else {
        panic!("{events:?}");
    };
    assert_eq!((a, b), ordered(floor, crate_box));
    assert!(colliding(&app, floor).is_empty());
    // The crate is seen as static: its contact with the ball goes on.
    assert_eq!(colliding(&app, crate_box), vec![ball]);
}

/// Layers edited in place on static colliders (no insert, nothing else
/// changed) are seen at the next detection, with the static colliders on
/// one layer or on several.
#[test]
fn static_layers_edited_in_place_are_seen() {
    const WALLS: u32 = 1 << 0;
    const GHOSTS: u32 = 1 << 1;
    let mut app = test_app();
    let mut log = MessageLog::default();
    let wall = spawn_static(&mut app, Collider::rect(10.0, 10.0), 0.0, 0.0);
    let other_wall = spawn_static(&mut app, Collider::rect(10.0, 10.0), 100.0, 0.0);
    for entity in [wall, other_wall] {
        (app.world_mut().entity_mut(entity)).insert(CollisionLayers::new(WALLS, u32::MAX));
    }
    let ball = app
        .world_mut()
        .spawn((
            Collider::circle(2.0),
            CollisionLayers::new(u32::MAX, WALLS),
            Transform::from_xyz(6.0, 0.0, 0.0),
        ))
        .id();
    assert_eq!(run(&mut app, &mut log).len(), 1);
    let mut set_layers = |app: &mut App, entity, layers| {
        *app.world_mut().get_mut::<CollisionLayers>(entity).unwrap() = layers;
        run(app, &mut log)
    };
    // Both walls on one layer the ball ignores, then the touched one alone.
    set_layers(&mut app, other_wall, CollisionLayers::new(GHOSTS, u32::MAX));
    let events = set_layers(&mut app, wall, CollisionLayers::new(GHOSTS, u32::MAX));
    assert!(
        matches!(events[..], [CollisionEvent::Ended { .. }]),
        "{events:?}"
    );
    let events = set_layers(&mut app, other_wall, CollisionLayers::new(WALLS, u32::MAX));
    assert!(events.is_empty(), "{events:?}");
    assert!(colliding(&app, ball).is_empty());
    let events = set_layers(&mut app, wall, CollisionLayers::new(WALLS, u32::MAX));
    assert!(
        matches!(events[..], [CollisionEvent::Started { .. }]),
        "{events:?}"
    );
    assert_eq!(colliding(&app, ball), vec![wall]);
}
