//! `CollisionBody`: the colliders of one body never collide with each other,
//! and the body hears `CollisionStarted` / `CollisionEnded` for all of its
//! parts, with `collider` naming the part; parts moving between bodies,
//! nested bodies and despawned parts.

use crate::common;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

/// What an entity observer heard: (started, entity, other, collider).
#[derive(Component, Default)]
struct Heard(Vec<(bool, Entity, Entity, Entity)>);

/// Records the collision events triggered on `entity`.
fn listen(app: &mut App, entity: Entity) {
    app.world_mut()
        .entity_mut(entity)
        .insert(Heard::default())
        .observe(
            |event: On<CollisionStarted>, mut heard: Query<&mut Heard>| {
                let mut heard = heard.get_mut(event.entity).unwrap();
                heard
                    .0
                    .push((true, event.entity, event.other, event.collider));
            },
        )
        .observe(|event: On<CollisionEnded>, mut heard: Query<&mut Heard>| {
            if let Ok(mut heard) = heard.get_mut(event.entity) {
                heard
                    .0
                    .push((false, event.entity, event.other, event.collider));
            }
        });
}

fn heard(app: &mut App, entity: Entity) -> Vec<(bool, Entity, Entity, Entity)> {
    std::mem::take(&mut app.world_mut().get_mut::<Heard>(entity).unwrap().0)
}

/// A player body at `(x, 0)` without a collider of its own: a hitbox and a
/// feet sensor that overlap each other.
fn spawn_player(app: &mut App, x: f32) -> (Entity, Entity, Entity) {
    let body = app
        .world_mut()
        .spawn((CollisionBody, Transform::from_xyz(x, 0.0, 0.0)))
        .id();
    let hitbox = app
        .world_mut()
        .spawn((
            Collider::rect(10.0, 20.0),
            Transform::default(),
            ChildOf(body),
        ))
        .id();
    let feet = app
        .world_mut()
        .spawn((
            Collider::rect(4.0, 4.0),
            Transform::from_xyz(0.0, -10.0, 0.0),
            ChildOf(body),
        ))
        .id();
    (body, hitbox, feet)
}

#[test]
fn parts_of_one_body_never_collide_and_the_body_hears_them_all() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let (body, hitbox, feet) = spawn_player(&mut app, 0.0);
    // The body itself can be a collider too: a third overlapping part.
    app.world_mut()
        .entity_mut(body)
        .insert(Collider::circle(3.0));
    listen(&mut app, body);
    listen(&mut app, hitbox);
    app.update();
    assert!(log.read(&app).is_empty(), "parts collided");
    for part in [body, hitbox, feet] {
        assert!(colliding(&app, part).is_empty());
    }
    assert!(heard(&mut app, body).is_empty());

    // A wall to the right touches the hitbox only.
    let wall = spawn_at(&mut app, Collider::rect(10.0, 100.0), 9.0, 0.0);
    app.update();
    let (a, b) = ordered(hitbox, wall);
    assert!(matches!(
        log.read(&app)[..],
        [CollisionEvent::Started { a: x, b: y, .. }] if (x, y) == (a, b)
    ));
    assert_eq!(heard(&mut app, hitbox), vec![(true, hitbox, wall, hitbox)]);
    assert_eq!(heard(&mut app, body), vec![(true, body, wall, hitbox)]);
    assert_eq!(colliding(&app, hitbox), vec![wall]);
    assert!(colliding(&app, body).is_empty());

    // The contact on the body is the part's: the normal points to the wall.
    let contact = app
        .world()
        .resource::<Collisions>()
        .get(hitbox, wall)
        .unwrap();
    assert!(contact.normal.x > 0.99);

    // The wall comes closer: the body's own circle touches too.
    set_translation(&mut app, wall, 7.5, 0.0);
    app.update();
    let mut body_heard = heard(&mut app, body);
    body_heard.sort();
    assert_eq!(body_heard, vec![(true, body, wall, body)]);

    // Away: both end, on the parts and on the body.
    set_translation(&mut app, wall, 100.0, 0.0);
    app.update();
    let mut body_heard = heard(&mut app, body);
    body_heard.sort();
    let mut expected = vec![(false, body, wall, hitbox), (false, body, wall, body)];
    expected.sort();
    assert_eq!(body_heard, expected);
    assert_eq!(heard(&mut app, hitbox), vec![(false, hitbox, wall, hitbox)]);
}

#[test]
fn the_observed_event_carries_the_contact_of_the_part() {
    let mut app = test_app();
    let (body, _, feet) = spawn_player(&mut app, 0.0);
    let floor = spawn_at(&mut app, Collider::rect(100.0, 10.0), 0.0, -16.0);
    app.world_mut().entity_mut(body).observe(
        move |event: On<CollisionStarted>, mut seen: ResMut<Observed>| {
            assert_eq!(event.collider, feet);
            assert_eq!(event.other, floor);
            // From the feet down to the floor.
            assert!(event.contact.normal.y < -0.99, "{:?}", event.contact);
            seen.0.clear();
        },
    );
    app.update();
    assert!(colliding(&app, feet).contains(&floor));
}

#[test]
fn two_bodies_collide_and_nested_bodies_own_their_subtree() {
    let mut app = test_app();
    let (outer, outer_hitbox, _) = spawn_player(&mut app, 0.0);
    // A shield carried by the player, a body of its own: it collides with
    // the player's parts, and its hits are not the player's.
    let shield = app
        .world_mut()
        .spawn((CollisionBody, Transform::default(), ChildOf(outer)))
        .id();
    let plate = app
        .world_mut()
        .spawn((
            Collider::rect(4.0, 12.0),
            Transform::default(),
            ChildOf(shield),
        ))
        .id();
    listen(&mut app, outer);
    listen(&mut app, shield);
    app.update();
    assert_eq!(colliding(&app, plate), vec![outer_hitbox]);
    assert_eq!(
        heard(&mut app, outer),
        vec![(true, outer, plate, outer_hitbox)]
    );
    assert_eq!(
        heard(&mut app, shield),
        vec![(true, shield, outer_hitbox, plate)]
    );

    // Another player: their parts collide with this one's.
    let (_, other_hitbox, _) = spawn_player(&mut app, 8.0);
    app.update();
    assert!(colliding(&app, outer_hitbox).contains(&other_hitbox));
}

#[test]
fn a_part_moved_to_another_body_changes_bodies_at_the_next_detection() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let (first, hitbox, _) = spawn_player(&mut app, 0.0);
    let (second, _, _) = spawn_player(&mut app, 200.0);
    let wall = spawn_at(&mut app, Collider::rect(10.0, 100.0), 9.0, 0.0);
    listen(&mut app, first);
    listen(&mut app, second);
    app.update();
    log.read(&app);
    assert_eq!(heard(&mut app, first), vec![(true, first, wall, hitbox)]);

    // Reparented in place (its world pose kept): the contact goes on for the
    // colliders, ends on the old body and starts on the new one.
    let world_pose = *app.world().get::<GlobalTransform>(hitbox).unwrap();
    app.world_mut().entity_mut(hitbox).insert((
        ChildOf(second),
        Transform::from_xyz(world_pose.translation().x - 200.0, 0.0, 0.0),
    ));
    app.update();
    // Out of its old body, it meets that body's feet, which it overlaps.
    let first_feet = app.world().get::<Children>(first).unwrap()[0];
    let (a, b) = ordered(hitbox, first_feet);
    let events = log.read(&app);
    assert!(
        matches!(events[..], [CollisionEvent::Started { a: x, b: y, .. }] if (x, y) == (a, b)),
        "the wall contact never stopped: {events:?}"
    );
    assert_eq!(
        heard(&mut app, first),
        vec![
            (true, first, hitbox, first_feet),
            (false, first, wall, hitbox)
        ]
    );
    assert_eq!(
        heard(&mut app, second),
        vec![
            (true, second, first_feet, hitbox),
            (true, second, wall, hitbox)
        ]
    );
    assert!(colliding(&app, hitbox).contains(&wall));

    // Made part of the wall's body: the pair ends everywhere.
    app.world_mut().entity_mut(wall).insert(CollisionBody);
    app.world_mut()
        .entity_mut(hitbox)
        .insert((ChildOf(wall), Transform::default()));
    app.update();
    let (a, b) = ordered(hitbox, wall);
    let events = log.read(&app);
    assert!(
        events.contains(&CollisionEvent::Ended { a, b }),
        "{events:?}"
    );
    let mut second_heard = heard(&mut app, second);
    second_heard.sort();
    let mut expected = vec![
        (false, second, first_feet, hitbox),
        (false, second, wall, hitbox),
    ];
    expected.sort();
    assert_eq!(second_heard, expected);
    assert!(!colliding(&app, wall).contains(&hitbox));
}

#[test]
fn making_a_parent_a_body_ends_the_contacts_between_its_parts() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let parent = app.world_mut().spawn(Transform::default()).id();
    let [left, right] = [-3.0, 3.0].map(|x| {
        app.world_mut()
            .spawn((
                Collider::circle(5.0),
                Transform::from_xyz(x, 0.0, 0.0),
                ChildOf(parent),
            ))
            .id()
    });
    app.update();
    assert_eq!(log.read(&app).len(), 1);
    app.world_mut().entity_mut(parent).insert(CollisionBody);
    app.update();
    let (a, b) = ordered(left, right);
    assert_eq!(log.read(&app), vec![CollisionEvent::Ended { a, b }]);
    // And again when it stops being one.
    app.world_mut().entity_mut(parent).remove::<CollisionBody>();
    app.update();
    assert!(matches!(
        log.read(&app)[..],
        [CollisionEvent::Started { .. }]
    ));
}

#[test]
fn a_despawned_part_ends_its_contacts_on_the_body() {
    let mut app = test_app();
    let (body, hitbox, feet) = spawn_player(&mut app, 0.0);
    let wall = spawn_at(&mut app, Collider::rect(10.0, 100.0), 9.0, 0.0);
    let floor = spawn_at(&mut app, Collider::rect(100.0, 10.0), 0.0, -16.0);
    listen(&mut app, body);
    app.update();
    let mut started = heard(&mut app, body);
    started.sort();
    let mut expected = vec![(true, body, wall, hitbox), (true, body, floor, feet)];
    expected.sort();
    assert_eq!(started, expected);

    app.world_mut().entity_mut(hitbox).despawn();
    app.update();
    assert_eq!(heard(&mut app, body), vec![(false, body, wall, hitbox)]);
    assert!(!colliding(&app, wall).contains(&hitbox));
    assert!(colliding(&app, floor).contains(&feet));
}

/// A level can be a body: its static tiles never meet its moving parts
/// (a door in a wall), yet both collide with everything else.
#[test]
fn static_and_moving_parts_of_one_body() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let level = app
        .world_mut()
        .spawn((CollisionBody, Transform::default()))
        .id();
    let wall = app
        .world_mut()
        .spawn((
            Collider::rect(10.0, 100.0),
            StaticCollider,
            Transform::default(),
            ChildOf(level),
        ))
        .id();
    let door = app
        .world_mut()
        .spawn((
            Collider::rect(30.0, 10.0),
            Transform::default(),
            ChildOf(level),
        ))
        .id();
    app.update();
    assert!(log.read(&app).is_empty());
    assert!(colliding(&app, door).is_empty());

    let ball = spawn_at(&mut app, Collider::circle(4.0), 0.0, 0.0);
    app.update();
    assert_eq!(log.read(&app).len(), 2);
    assert_eq!(colliding(&app, ball), {
        let mut both = vec![wall, door];
        both.sort();
        both
    });

    // The wall leaves the level's body: it meets the door now.
    app.world_mut().entity_mut(wall).remove::<ChildOf>();
    app.update();
    assert!(colliding(&app, door).contains(&wall));
}

/// A part disabled with Bevy's `Disabled` and enabled again is still its
/// body's: it never meets its sibling, and the body hears its contacts.
/// (The model-based test found this: the map was rebuilt while the part
/// was hidden from queries, and enabling it set off no rebuild.)
#[test]
fn a_part_enabled_again_is_still_its_bodys() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let (body, hitbox, _) = spawn_player(&mut app, 0.0);
    listen(&mut app, body);
    app.update();
    app.world_mut()
        .entity_mut(hitbox)
        .insert(bevy::ecs::entity_disabling::Disabled);
    app.update();
    // Something else makes the map rebuild while the part is hidden.
    let wall = spawn_at(&mut app, Collider::rect(10.0, 100.0), 9.0, 0.0);
    app.update();
    app.world_mut()
        .entity_mut(hitbox)
        .remove::<bevy::ecs::entity_disabling::Disabled>();
    app.update();
    let (a, b) = ordered(hitbox, wall);
    let events = log.read(&app);
    assert!(
        matches!(events[..], [CollisionEvent::Started { a: x, b: y, .. }] if (x, y) == (a, b)),
        "only the wall, not the sibling: {events:?}"
    );
    assert_eq!(heard(&mut app, body), vec![(true, body, wall, hitbox)]);
}
