//! Contact manifolds through the App: `Collisions::manifold` (and
//! `ContactPair::manifold`, `SpatialQuery::manifolds`) give the normal and
//! the one or two points where colliders touch, as detection saw them, for
//! every kind of collider and per pair of parts of a compound; the events'
//! contact stays the deepest point.

use crate::common;

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

/// `entity`'s manifold with `other` from `Collisions`, seen from `entity`.
fn manifold(app: &mut App, entity: Entity, other: Entity) -> Option<Manifold> {
    app.world_mut()
        .run_system_once(move |collisions: Res<Collisions>, spatial: SpatialQuery| {
            collisions.manifold(entity, other, &spatial)
        })
        .expect("reads only")
}

/// Every manifold of `entity` and `other` (one per touching pair of parts).
fn manifolds(app: &mut App, entity: Entity, other: Entity) -> Vec<Manifold> {
    app.world_mut()
        .run_system_once(move |spatial: SpatialQuery| spatial.manifolds(entity, other))
        .expect("reads only")
}

fn near(found: Vec2, expected: Vec2) -> bool {
    found.distance(expected) < 1e-3
}

/// A 400x20 floor centred at the origin, static.
fn spawn_floor(app: &mut App, angle: f32) -> Entity {
    app.world_mut()
        .spawn((
            Collider::rect(400.0, 20.0),
            StaticCollider,
            Transform::from_rotation(Quat::from_rotation_z(angle)),
        ))
        .id()
}

#[test]
fn a_box_resting_on_a_floor_touches_under_both_corners() {
    let mut app = test_app();
    let floor = spawn_floor(&mut app, 0.0);
    // A 40x40 crate sunk 1 into the floor's top (y = 10).
    let crate_ = app
        .world_mut()
        .spawn((
            Collider::rect(40.0, 40.0),
            Transform::from_xyz(30.0, 29.0, 0.0),
        ))
        .id();
    app.update();

    let m = manifold(&mut app, crate_, floor).expect("touching");
    assert_eq!(*m.normal, Vec2::NEG_Y, "from the crate towards the floor");
    let [p, q] = m.points() else {
        panic!("two points: {m:?}")
    };
    // Ordered along the normal's perp (+x for -y): left corner first.
    assert!(near(p.point, Vec2::new(10.0, 9.5)), "{m:?}");
    assert!(near(q.point, Vec2::new(50.0, 9.5)), "{m:?}");
    assert!((p.depth - 1.0).abs() < 1e-4 && (q.depth - 1.0).abs() < 1e-4);
    assert_ne!(p.id, q.id);

    // Seen from the floor: the same points, flipped.
    let back = manifold(&mut app, floor, crate_).unwrap();
    assert_eq!(back, m.flipped());

    // The pair's own manifold, and the events' contact is still the one
    // deepest point (what `Collisions::get` holds).
    let (pair, from_pair) = app
        .world_mut()
        .run_system_once(|collisions: Res<Collisions>, spatial: SpatialQuery| {
            let pair = *collisions.iter().next().unwrap();
            (pair, pair.manifold(&spatial))
        })
        .unwrap();
    assert_eq!(from_pair, Some(if pair.a == crate_ { m } else { back }));
    assert_eq!(from_pair.unwrap().normal, pair.contact.normal);
    let started = app
        .world()
        .resource::<Observed>()
        .0
        .iter()
        .find_map(|e| match *e {
            ObservedEvent::Started {
                entity, contact, ..
            } if entity == crate_ => Some(contact),
            _ => None,
        });
    let contact = started.expect("a Started on the crate");
    assert_eq!(
        Some(contact),
        app.world().resource::<Collisions>().get(crate_, floor)
    );
    assert!((contact.depth - 1.0).abs() < 1e-4);
}

/// The ids stay while a box slides along a floor (frame after frame, the
/// same two features touch), and the points move with it.
#[test]
fn ids_stay_while_a_box_slides_along_a_floor() {
    for angle in [0.0, 0.35] {
        let mut app = test_app();
        let floor = spawn_floor(&mut app, angle);
        let rotation = Quat::from_rotation_z(angle);
        let place = |x: f32| {
            Transform::from_translation(rotation * Vec3::new(x, 29.5, 0.0)).with_rotation(rotation)
        };
        let crate_ = app
            .world_mut()
            .spawn((Collider::rect(40.0, 40.0), place(-150.0)))
            .id();
        let mut ids = None;
        for step in 0..150 {
            let x = -150.0 + 2.0 * step as f32;
            *app.world_mut().get_mut::<Transform>(crate_).unwrap() = place(x);
            app.update();
            let m = manifold(&mut app, crate_, floor).expect("resting on it");
            let now: Vec<FeatureId> = m.points().iter().map(|p| p.id).collect();
            assert_eq!(now.len(), 2, "angle {angle} at {x}: {m:?}");
            assert_eq!(*ids.get_or_insert(now.clone()), now, "angle {angle} at {x}");
            let middle = (m.points()[0].point + m.points()[1].point) / 2.0;
            let under = (rotation * Vec3::new(x, 9.75, 0.0)).truncate();
            assert!(middle.distance(under) < 0.01, "angle {angle} at {x}: {m:?}");
        }
    }
}

/// Tilted, a box touches a ramp at its lowest corner only; turned to lie
/// flat on it, at both.
#[test]
fn a_box_touches_a_ramp_at_one_corner_until_it_lies_flat() {
    let mut app = test_app();
    let ramp = spawn_floor(&mut app, 0.3);
    let crate_ = app
        .world_mut()
        .spawn((Collider::rect(40.0, 40.0), Transform::default()))
        .id();
    let up = Vec2::from_angle(0.3).perp();
    for (tilt, points) in [(0.1, 1), (0.0, 2)] {
        // Its centre 29 above the ramp's middle line, turned by `tilt` off
        // the ramp's angle: the lowest corner (or the bottom face) 1 deep,
        // or deeper.
        let centre = up * 29.0;
        *app.world_mut().get_mut::<Transform>(crate_).unwrap() =
            Transform::from_translation(centre.extend(0.0))
                .with_rotation(Quat::from_rotation_z(0.3 + tilt));
        app.update();
        let m = manifold(&mut app, crate_, ramp).expect("touching");
        assert_eq!(m.points().len(), points, "tilt {tilt}: {m:?}");
        assert!(m.normal.dot(-up) > 0.999, "{m:?}");
    }
}

#[test]
fn capsules_touch_at_both_ends_only_lying_flat() {
    let mut app = test_app();
    let floor = spawn_floor(&mut app, 0.0);
    let lying = Transform::from_xyz(0.0, 19.5, 0.0)
        .with_rotation(Quat::from_rotation_z(core::f32::consts::FRAC_PI_2));
    let capsule = app
        .world_mut()
        .spawn((Collider::capsule(10.0, 60.0), lying))
        .id();
    app.update();
    let m = manifold(&mut app, floor, capsule).expect("lying on it");
    let [p, q] = m.points() else { panic!("{m:?}") };
    assert!(
        near(p.point, Vec2::new(30.0, 9.75)) && near(q.point, Vec2::new(-30.0, 9.75)),
        "{m:?}"
    );
    // Standing on one end: one point, under it.
    *app.world_mut().get_mut::<Transform>(capsule).unwrap() = Transform::from_xyz(5.0, 49.5, 0.0);
    app.update();
    let m = manifold(&mut app, floor, capsule).expect("standing on it");
    let [p] = m.points() else { panic!("{m:?}") };
    assert!(
        near(p.point, Vec2::new(5.0, 9.75)) && (p.depth - 0.5).abs() < 1e-4,
        "{m:?}"
    );
}

/// A crate across two parts of a compound rests on both: a manifold per
/// pair of parts, each naming its part; `Collisions::manifold` is the
/// deepest pair's, the one `Collisions::parts` names.
#[test]
fn a_crate_across_two_parts_of_a_compound_rests_on_both() {
    let mut app = test_app();
    let part = |x: f32, y: f32| (Isometry2d::from_xy(x, y), Collider::rect(100.0, 20.0));
    let steps = app
        .world_mut()
        .spawn((
            Collider::compound([part(-60.0, 0.0), part(60.0, -0.5)]),
            StaticCollider,
            Transform::default(),
        ))
        .id();
    // Over the gap between the parts, sunk 1 into the left one and 0.5
    // into the right one.
    let crate_ = app
        .world_mut()
        .spawn((
            Collider::rect(60.0, 40.0),
            Transform::from_xyz(0.0, 29.0, 0.0),
        ))
        .id();
    app.update();
    let all = manifolds(&mut app, crate_, steps);
    assert_eq!(all.len(), 2, "{all:?}");
    for m in &all {
        let [p, q] = m.points() else {
            panic!("{all:?}")
        };
        assert_eq!(p.depth, q.depth, "{m:?}");
        let (part, depth, span) = match m.parts.b() {
            Some(0) => (0, 1.0, (-30.0, -10.0)),
            Some(1) => (1, 0.5, (10.0, 30.0)),
            other => panic!("{other:?}"),
        };
        assert_eq!(m.parts.a(), None, "the crate is not a compound");
        assert!((p.depth - depth).abs() < 1e-4, "part {part}: {m:?}");
        assert!(
            (p.point.x - span.0).abs() < 1e-3 && (q.point.x - span.1).abs() < 1e-3,
            "part {part}: {m:?}"
        );
    }
    let deepest = manifold(&mut app, crate_, steps).unwrap();
    assert_eq!(deepest.parts.b(), Some(0));
    assert_eq!(
        Some(deepest.parts),
        app.world().resource::<Collisions>().parts(crate_, steps)
    );
    assert!(all.contains(&deepest));
}

/// `Collisions::manifold` is for pairs of `Collisions`: none for colliders
/// apart, filtered out by their layers, or despawned; `SpatialQuery`'s is
/// the geometry's, whatever the layers.
#[test]
fn only_pairs_of_collisions_have_one() {
    let mut app = test_app();
    let floor = spawn_floor(&mut app, 0.0);
    let ghost = app
        .world_mut()
        .spawn((
            Collider::circle(10.0),
            CollisionLayers::NONE,
            Transform::from_xyz(0.0, 19.0, 0.0),
        ))
        .id();
    let apart = app
        .world_mut()
        .spawn((Collider::circle(10.0), Transform::from_xyz(0.0, 100.0, 0.0)))
        .id();
    app.update();
    assert_eq!(
        manifold(&mut app, ghost, floor),
        None,
        "layers filter the pair out"
    );
    let geometry = app
        .world_mut()
        .run_system_once(move |spatial: SpatialQuery| spatial.manifold(ghost, floor))
        .unwrap()
        .expect("their shapes overlap");
    assert_eq!(geometry.points().len(), 1);
    assert_eq!(manifold(&mut app, apart, floor), None);
    assert_eq!(manifold(&mut app, floor, floor), None);
    assert!(manifolds(&mut app, apart, floor).is_empty());

    // Moved onto the floor: touching; despawned: gone.
    *app.world_mut().get_mut::<Transform>(apart).unwrap() = Transform::from_xyz(0.0, 19.0, 0.0);
    app.update();
    assert!(manifold(&mut app, apart, floor).is_some());
    app.world_mut().despawn(apart);
    app.update();
    assert_eq!(manifold(&mut app, apart, floor), None);
}
