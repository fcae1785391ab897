//! Entities hidden by a disabling component (Bevy's `Disabled`, or one of
//! the game's own, stored in tables or sparse sets): their contacts end on
//! both sides, they are out of detection while disabled, and come back when
//! enabled.

use crate::common;

use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

/// A game's own disabling component in sparse-set storage, as Bevy's docs
/// suggest for components toggled often.
#[derive(Component)]
#[component(storage = "SparseSet")]
struct Pooled;

/// A game's own disabling component in table storage.
#[derive(Component)]
struct Asleep;

/// Disables `bullet` with `D` mid-contact: `Ended` once, both lists empty,
/// nothing while disabled, then re-enabled far away: still nothing, and back
/// on the target: `Started` again.
fn disabled_mid_contact_ends_on_both_sides<D: Component>(mut app: App, disable: fn() -> D) {
    let mut log = MessageLog::default();
    let target = spawn_at(&mut app, Collider::rect(20.0, 20.0), 0.0, 0.0);
    let bullet = spawn_at(&mut app, Collider::circle(5.0), 12.0, 0.0);
    app.update();
    let (a, b) = ordered(target, bullet);
    assert!(matches!(
        log.read(&app)[..],
        [CollisionEvent::Started { .. }]
    ));
    assert_eq!(colliding(&app, bullet), vec![target]);

    app.world_mut().entity_mut(bullet).insert(disable());
    app.update();
    assert_eq!(log.read(&app), vec![CollisionEvent::Ended { a, b }]);
    assert!(colliding(&app, target).is_empty());
    // The disabled entity's own list empties too (read through the world,
    // which sees disabled entities).
    assert!(
        colliding(&app, bullet).is_empty(),
        "disabled keeps partners"
    );
    app.update();
    assert!(log.read(&app).is_empty());

    // Re-enabled far away (a pooled bullet fired again): no phantom contact.
    set_translation(&mut app, bullet, 500.0, 0.0);
    app.world_mut().entity_mut(bullet).remove::<D>();
    app.update();
    assert!(log.read(&app).is_empty());
    assert!(colliding(&app, bullet).is_empty());

    // Back on the target: detected again.
    set_translation(&mut app, bullet, 12.0, 0.0);
    app.update();
    assert!(matches!(
        log.read(&app)[..],
        [CollisionEvent::Started { .. }]
    ));
    assert_eq!(colliding(&app, bullet), vec![target]);
    assert_eq!(colliding(&app, target), vec![bullet]);
}

#[test]
fn bevy_disabled_mid_contact() {
    disabled_mid_contact_ends_on_both_sides(test_app(), || Disabled);
}

#[test]
fn own_disabling_component_in_a_table() {
    let mut app = test_app();
    app.world_mut().register_disabling_component::<Asleep>();
    disabled_mid_contact_ends_on_both_sides(app, || Asleep);
}

/// A sparse-set disabling component rules out reading colliders table by
/// table; detection goes on one by one.
#[test]
fn own_disabling_component_in_a_sparse_set() {
    let mut app = test_app();
    app.world_mut().register_disabling_component::<Pooled>();
    disabled_mid_contact_ends_on_both_sides(app, || Pooled);
}

/// With a sparse-set disabling component registered, every other pair is
/// still detected, swept ones included.
#[test]
fn detection_keeps_working_with_a_sparse_set_disabling_component() {
    let mut app = test_app();
    app.world_mut().register_disabling_component::<Pooled>();
    let mut log = MessageLog::default();
    let wall = spawn_at(&mut app, Collider::rect(4.0, 100.0), 0.0, 0.0);
    let ball = app
        .world_mut()
        .spawn((
            Collider::circle(2.0),
            Swept,
            Transform::from_xyz(-50.0, 0.0, 0.0),
        ))
        .id();
    let pooled = spawn_at(&mut app, Collider::circle(3.0), 0.0, 40.0);
    app.world_mut().entity_mut(pooled).insert(Pooled);
    app.update();
    assert!(log.read(&app).is_empty());
    // The ball jumps through the wall in one step: the swept test sees it.
    set_translation(&mut app, ball, 50.0, 0.0);
    app.update();
    let (a, b) = ordered(wall, ball);
    let events = log.read(&app);
    assert!(
        matches!(events[..], [CollisionEvent::Started { a: x, b: y, .. }, CollisionEvent::Ended { a: v, b: w }] if (x, y) == (a, b) && (v, w) == (a, b)),
        "{events:?}"
    );
    assert!(colliding(&app, pooled).is_empty());
}

/// With a sparse-set disabling component registered, static colliders are
/// read one by one: a static wall moved, or changed in place, is still seen.
#[test]
fn static_changes_are_seen_with_a_sparse_set_disabling_component() {
    let mut app = test_app();
    app.world_mut().register_disabling_component::<Pooled>();
    let mut log = MessageLog::default();
    let wall = app
        .world_mut()
        .spawn((
            Collider::rect(4.0, 4.0),
            StaticCollider,
            Transform::from_xyz(50.0, 0.0, 0.0),
        ))
        .id();
    let ball = spawn_at(&mut app, Collider::circle(2.0), 0.0, 0.0);
    for _ in 0..3 {
        app.update();
    }
    assert!(log.read(&app).is_empty());
    set_translation(&mut app, wall, 3.0, 0.0);
    app.update();
    assert!(matches!(
        log.read(&app)[..],
        [CollisionEvent::Started { .. }]
    ));
    app.update();
    *app.world_mut().get_mut::<Collider>(wall).unwrap() = Collider::rect(0.5, 0.5);
    app.update();
    assert!(matches!(log.read(&app)[..], [CollisionEvent::Ended { .. }]));
    assert!(colliding(&app, ball).is_empty());
}

/// `ColliderDisabled` takes only the collider out: the entity stays visible
/// to the game's queries, and its contacts end and start again the same way.
#[test]
fn collider_disabled_mid_contact() {
    disabled_mid_contact_ends_on_both_sides(test_app(), || ColliderDisabled);
}

/// Observers on both sides hear the end, and a disabled collider is out of
/// spatial queries from the next detection on.
#[test]
fn collider_disabled_ends_observed_contacts_and_leaves_queries() {
    let mut app = test_app();
    let target = spawn_at(&mut app, Collider::rect(20.0, 20.0), 0.0, 0.0);
    let bullet = spawn_at(&mut app, Collider::circle(5.0), 12.0, 0.0);
    app.update();
    take_observed(&mut app);
    let sees = |app: &mut App| {
        app.world_mut()
            .run_system_once(|spatial: SpatialQuery| {
                spatial.point_hits(Vec2::new(14.0, 0.0), &QueryFilter::default())
            })
            .unwrap()
    };
    assert_eq!(sees(&mut app), vec![bullet]);

    app.world_mut().entity_mut(bullet).insert(ColliderDisabled);
    app.update();
    let mut observed = take_observed(&mut app);
    observed.sort_by_key(|event| format!("{event:?}"));
    let mut expected = vec![
        ObservedEvent::Ended {
            entity: target,
            other: bullet,
        },
        ObservedEvent::Ended {
            entity: bullet,
            other: target,
        },
    ];
    expected.sort_by_key(|event| format!("{event:?}"));
    assert_eq!(observed, expected);
    assert!(sees(&mut app).is_empty());
    // Still an ordinary entity for the game.
    assert!(
        app.world_mut()
            .query::<&Collider>()
            .get(app.world(), bullet)
            .is_ok()
    );

    app.world_mut()
        .entity_mut(bullet)
        .remove::<ColliderDisabled>();
    app.update();
    assert_eq!(take_observed(&mut app).len(), 2);
    assert_eq!(sees(&mut app), vec![bullet]);
}

/// A static wall disabled in the same frame as another static collider is
/// enabled (Bevy's `Disabled` removed): the count of static colliders stays
/// the same, yet both changes are seen.
#[test]
fn static_collider_disabled_and_swapped() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let wall = app
        .world_mut()
        .spawn((
            Collider::rect(10.0, 100.0),
            StaticCollider,
            Transform::default(),
        ))
        .id();
    let spare = app
        .world_mut()
        .spawn((
            Collider::rect(10.0, 100.0),
            StaticCollider,
            Transform::from_xyz(100.0, 0.0, 0.0),
        ))
        .id();
    let ball = spawn_at(&mut app, Collider::circle(5.0), 8.0, 0.0);
    let far_ball = spawn_at(&mut app, Collider::circle(5.0), 108.0, 0.0);
    app.update();
    // Disabled after its transform was propagated (a disabled entity's is
    // not).
    app.world_mut().entity_mut(spare).insert(Disabled);
    app.update();
    assert_eq!(log.read(&app).len(), 3);
    assert_eq!(colliding(&app, ball), vec![wall]);
    assert!(colliding(&app, far_ball).is_empty());

    // One wall off, the other on, in the same frame.
    app.world_mut().entity_mut(wall).insert(ColliderDisabled);
    app.world_mut().entity_mut(spare).remove::<Disabled>();
    app.update();
    let (a, b) = ordered(wall, ball);
    let events = log.read(&app);
    assert!(
        events.contains(&CollisionEvent::Ended { a, b }),
        "{events:?}"
    );
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(
        colliding(&app, ball).is_empty(),
        "{:?} wall {wall} spare {spare}",
        colliding(&app, ball)
    );
    assert_eq!(colliding(&app, far_ball), vec![spare]);
}

/// One static wall hidden by Bevy's `Disabled` and another shown again in
/// the same frame: as many static colliders as before, no tick changed, yet
/// the swap is seen.
#[test]
fn static_colliders_swapped_by_bevy_disabled() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let wall_at = |app: &mut App, x: f32| {
        let wall = (Collider::rect(10.0, 100.0), StaticCollider);
        app.world_mut()
            .spawn((wall, Transform::from_xyz(x, 0.0, 0.0)))
            .id()
    };
    let (wall, spare) = (wall_at(&mut app, 0.0), wall_at(&mut app, 100.0));
    let ball = spawn_at(&mut app, Collider::circle(5.0), 8.0, 0.0);
    let far_ball = spawn_at(&mut app, Collider::circle(5.0), 108.0, 0.0);
    app.update();
    app.world_mut().entity_mut(spare).insert(Disabled);
    app.update();
    log.read(&app);
    assert_eq!(colliding(&app, ball), vec![wall]);

    app.world_mut().entity_mut(wall).insert(Disabled);
    app.world_mut().entity_mut(spare).remove::<Disabled>();
    app.update();
    let events = log.read(&app);
    let (a, b) = ordered(wall, ball);
    assert!(
        events.contains(&CollisionEvent::Ended { a, b }),
        "{events:?}"
    );
    let (a, b) = ordered(spare, far_ball);
    assert!(
        events.iter().any(|e| matches!(*e,
            CollisionEvent::Started { a: ea, b: eb, .. } if (ea, eb) == (a, b))),
        "{events:?}"
    );
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(colliding(&app, ball).is_empty());
    assert_eq!(colliding(&app, far_ball), vec![spare]);
}

/// A pooled collider moved while `Disabled` comes back where it was moved
/// to, though Bevy's transform propagation skipped it while hidden; also as
/// the child of a body.
#[test]
fn moved_while_bevy_disabled_comes_back_where_moved() {
    let mut app = test_app();
    let target = spawn_at(&mut app, Collider::circle(5.0), 100.0, 0.0);
    let bullet = spawn_at(&mut app, Collider::circle(2.0), 0.0, 0.0);
    let body = app
        .world_mut()
        .spawn((CollisionBody, Transform::from_xyz(0.0, 50.0, 0.0)))
        .id();
    let hand = app
        .world_mut()
        .spawn((Collider::circle(2.0), Transform::default(), ChildOf(body)))
        .id();
    app.update();
    for hidden in [bullet, body] {
        app.world_mut().entity_mut(hidden).insert(Disabled);
        app.update();
        app.world_mut()
            .entity_mut(hidden)
            .insert(Transform::from_xyz(100.0, 0.0, 0.0));
        app.update();
        assert!(colliding(&app, target).is_empty());
        app.world_mut().entity_mut(hidden).remove::<Disabled>();
        app.update();
        let touching = if hidden == bullet { bullet } else { hand };
        assert_eq!(colliding(&app, target), vec![touching], "{hidden}");
        app.world_mut().entity_mut(hidden).insert(ColliderDisabled);
        app.update();
    }
}
