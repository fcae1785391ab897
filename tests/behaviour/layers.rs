//! CollisionLayers decide which pairs are tested; changing them mid-contact
//! ends or starts contacts like any other change.

use crate::common;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

const PLAYER: u32 = 1 << 0;
const ENEMY: u32 = 1 << 1;
const PICKUP: u32 = 1 << 2;

#[test]
fn only_matching_layers_interact() {
    let mut app = test_app();
    let spawn = |app: &mut App, layers: CollisionLayers| {
        app.world_mut()
            .spawn((Collider::circle(10.0), Transform::default(), layers))
            .id()
    };
    let player = spawn(&mut app, CollisionLayers::new(PLAYER, ENEMY | PICKUP));
    let enemy = spawn(&mut app, CollisionLayers::new(ENEMY, PLAYER));
    let pickup = spawn(&mut app, CollisionLayers::new(PICKUP, PLAYER));
    // Default layers: everything, so it meets all three (each of them has
    // some filter bit that the default memberships include, and vice versa).
    let everything = spawn_at(&mut app, Collider::circle(10.0), 0.0, 0.0);
    let ghost = spawn(&mut app, CollisionLayers::NONE);
    app.update();

    assert_eq!(
        colliding(&app, player),
        sorted(vec![enemy, pickup, everything])
    );
    assert_eq!(colliding(&app, enemy), sorted(vec![player, everything]));
    assert_eq!(colliding(&app, pickup), sorted(vec![player, everything]));
    assert_eq!(
        colliding(&app, everything),
        sorted(vec![player, enemy, pickup])
    );
    assert!(colliding(&app, ghost).is_empty());
}

/// A one-sided filter is not enough: both sides must accept each other.
#[test]
fn filtering_is_mutual() {
    let mut app = test_app();
    let a = app
        .world_mut()
        .spawn((
            Collider::circle(1.0),
            Transform::default(),
            CollisionLayers::new(PLAYER, ENEMY),
        ))
        .id();
    app.world_mut().spawn((
        Collider::circle(1.0),
        Transform::default(),
        CollisionLayers::new(ENEMY, PICKUP),
    ));
    app.update();
    assert!(colliding(&app, a).is_empty());
}

#[test]
fn changing_layers_mid_contact_ends_and_restarts_it() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let a = spawn_at(&mut app, Collider::circle(1.0), 0.0, 0.0);
    let b = spawn_at(&mut app, Collider::circle(1.0), 1.0, 0.0);
    app.update();
    assert_eq!(log.read(&app).len(), 1);

    *app.world_mut().get_mut::<CollisionLayers>(b).unwrap() = CollisionLayers::NONE;
    app.update();
    let (lo, hi) = ordered(a, b);
    assert_eq!(log.read(&app), vec![CollisionEvent::Ended { a: lo, b: hi }]);
    assert!(colliding(&app, a).is_empty() && colliding(&app, b).is_empty());

    *app.world_mut().get_mut::<CollisionLayers>(b).unwrap() = CollisionLayers::default();
    app.update();
    let events = log.read(&app);
    assert!(
        matches!(events.as_slice(), [CollisionEvent::Started { .. }]),
        "{events:?}"
    );
    assert_eq!(colliding(&app, a), vec![b]);
}

fn sorted(mut entities: Vec<Entity>) -> Vec<Entity> {
    entities.sort();
    entities
}
