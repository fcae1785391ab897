//! A pair that comes together, stays together and parts produces exactly one
//! Started and one Ended, and CollidingEntities follows along.

use crate::common;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

#[test]
fn approach_overlap_and_part() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let left = spawn_at(&mut app, Collider::circle(10.0), -50.0, 0.0);
    let right = spawn_at(&mut app, Collider::rect(20.0, 20.0), 50.0, 0.0);
    let (a, b) = ordered(left, right);

    let mut started = Vec::new();
    let mut ended = Vec::new();
    // The circle walks right 5 units a frame through the box and out again.
    for frame in 0..40 {
        set_translation(&mut app, left, -50.0 + 5.0 * frame as f32, 0.0);
        app.update();
        for event in log.read(&app) {
            match event {
                CollisionEvent::Started { .. } => started.push((frame, event)),
                CollisionEvent::Ended { .. } => ended.push((frame, event)),
            }
        }
        let x = -50.0 + 5.0 * frame as f32;
        // Circle radius 10 vs box half width 10 centred at 50: touching from
        // x = 30 to x = 70 inclusive.
        let touching = (30.0..=70.0).contains(&x);
        assert_eq!(
            colliding(&app, left),
            if touching { vec![right] } else { vec![] },
            "frame {frame}"
        );
        assert_eq!(
            colliding(&app, right),
            if touching { vec![left] } else { vec![] },
            "frame {frame}"
        );
    }

    assert_eq!(started.len(), 1, "{started:?}");
    assert_eq!(ended.len(), 1, "{ended:?}");
    // x = 30 at frame 16 (touching exactly counts), apart at frame 25 (x = 75).
    assert_eq!(started[0].0, 16);
    assert_eq!(ended[0].0, 25);
    let CollisionEvent::Started {
        a: sa,
        b: sb,
        contact,
    } = started[0].1
    else {
        unreachable!()
    };
    assert_eq!((sa, sb), (a, b));
    assert_eq!(contact.depth, 0.0);
    // The normal points from a to b.
    let expected = if a == left { Vec2::X } else { Vec2::NEG_X };
    assert!(
        contact.normal.abs_diff_eq(expected, 1e-6),
        "{:?}",
        contact.normal
    );
    assert!(
        contact.point.abs_diff_eq(Vec2::new(40.0, 0.0), 1e-4),
        "{}",
        contact.point
    );
    assert_eq!(ended[0].1, CollisionEvent::Ended { a, b });
}

#[test]
fn observers_hear_both_sides_with_their_own_normal() {
    let mut app = test_app();
    let ball = spawn_at(&mut app, Collider::circle(1.0), 0.0, 1.5);
    let floor = spawn_at(&mut app, Collider::rect(10.0, 2.0), 0.0, 0.0);
    // Entity observers too, not only the global ones.
    app.world_mut().entity_mut(floor).observe(
        |hit: On<CollisionStarted>, mut commands: Commands| {
            assert!(
                hit.contact.normal.abs_diff_eq(Vec2::Y, 1e-6),
                "floor sees the ball above"
            );
            commands.entity(hit.entity).insert(Name::new("hit"));
        },
    );
    app.update();

    let observed = take_observed(&mut app);
    let started: Vec<_> = observed
        .iter()
        .filter_map(|e| match *e {
            ObservedEvent::Started {
                entity,
                other,
                contact,
            } => Some((entity, other, contact)),
            _ => None,
        })
        .collect();
    assert_eq!(started.len(), 2, "{observed:?}");
    for (entity, other, contact) in started {
        let towards_other = if entity == ball { Vec2::NEG_Y } else { Vec2::Y };
        assert_eq!(other, if entity == ball { floor } else { ball });
        assert!(
            contact.normal.abs_diff_eq(towards_other, 1e-6),
            "{entity}: {:?}",
            contact.normal
        );
        assert!((contact.depth - 0.5).abs() < 1e-6);
    }
    assert!(
        app.world().get::<Name>(floor).is_some(),
        "the floor's own observer ran"
    );

    // Staying in contact: nothing new.
    app.update();
    assert!(take_observed(&mut app).is_empty());

    set_translation(&mut app, ball, 0.0, 5.0);
    app.update();
    let mut ended = take_observed(&mut app);
    ended.sort_by_key(|e| match *e {
        ObservedEvent::Ended { entity, .. } => entity,
        ObservedEvent::Started { .. } => panic!("unexpected start"),
    });
    let (a, b) = ordered(ball, floor);
    assert_eq!(
        ended,
        vec![
            ObservedEvent::Ended {
                entity: a,
                other: b
            },
            ObservedEvent::Ended {
                entity: b,
                other: a
            }
        ]
    );
}

#[test]
fn collisions_resource_matches_colliding_entities() {
    let mut app = test_app();
    let a = spawn_at(&mut app, Collider::circle(5.0), 0.0, 0.0);
    let b = spawn_at(&mut app, Collider::circle(5.0), 8.0, 0.0);
    let c = spawn_at(&mut app, Collider::circle(5.0), -100.0, 0.0);
    app.update();
    let collisions = app.world().resource::<Collisions>();
    assert_eq!(collisions.len(), 1);
    let from_a = collisions.get(a, b).unwrap();
    let from_b = collisions.get(b, a).unwrap();
    assert!(from_a.normal.abs_diff_eq(Vec2::X, 1e-6));
    assert_eq!(from_b, from_a.flipped());
    assert!(!collisions.contains(a, c));
}
