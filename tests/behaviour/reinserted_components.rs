//! Components inserted again mid-contact (a bundle re-inserted to resize a
//! collider, say): the contact goes on, without new events, and
//! `CollidingEntities` holds it again.

use crate::common;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

#[test]
fn colliding_entities_refills_after_reinsertion_mid_contact() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let floor = spawn_at(&mut app, Collider::rect(100.0, 10.0), 0.0, 0.0);
    let player = spawn_at(&mut app, Collider::circle(5.0), 0.0, 8.0);
    app.update();
    assert_eq!(log.read(&app).len(), 1);
    assert_eq!(colliding(&app, player), vec![floor]);

    // Resize by re-inserting the bundle, CollidingEntities included.
    app.world_mut()
        .entity_mut(player)
        .insert((Collider::circle(6.0), CollidingEntities::default()));
    app.update();
    assert!(log.read(&app).is_empty(), "the contact goes on");
    assert_eq!(colliding(&app, player), vec![floor]);
    assert_eq!(colliding(&app, floor), vec![player]);

    // And it still ends once, on both sides.
    set_translation(&mut app, player, 0.0, 50.0);
    app.update();
    let (a, b) = ordered(floor, player);
    assert_eq!(log.read(&app), vec![CollisionEvent::Ended { a, b }]);
    assert!(colliding(&app, player).is_empty());
    assert!(colliding(&app, floor).is_empty());
}

/// A clone of a colliding entity starts with its own contacts, found by the
/// next detection, not a copy of the original's.
#[test]
fn a_clone_far_away_stays_empty() {
    let mut app = test_app();
    let floor = spawn_at(&mut app, Collider::rect(100.0, 10.0), 0.0, 0.0);
    let player = spawn_at(&mut app, Collider::circle(5.0), 0.0, 8.0);
    app.update();
    let clone = app.world_mut().spawn_empty().id();
    app.world_mut()
        .entity_mut(player)
        .clone_with_opt_out(clone, |_| {});
    set_translation(&mut app, clone, 300.0, 0.0);
    app.update();
    assert!(colliding(&app, clone).is_empty());
    assert_eq!(colliding(&app, floor), vec![player]);
}
