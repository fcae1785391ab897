//! Capsules, segments and convex polygons in an App: every pair of the five
//! kinds is reported as the pure geometry finds it, transforms scale and
//! mirror them as documented, a fast `Swept` ball cannot pass through a
//! segment wall, and bad shapes are skipped without disturbing the rest.

use crate::common;

use bevy::math::Rot2;
use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

fn triangle() -> Collider {
    // Off-centre: polygons are not recentred.
    Collider::convex_polygon(&[
        Vec2::new(0.0, 0.0),
        Vec2::new(6.0, 0.0),
        Vec2::new(0.0, 6.0),
    ])
    .unwrap()
}

fn kinds() -> [(&'static str, Collider); 5] {
    [
        ("circle", Collider::circle(3.0)),
        ("rect", Collider::rect(6.0, 4.0)),
        ("capsule", Collider::capsule(1.5, 5.0)),
        (
            "segment",
            Collider::segment(Vec2::new(-4.0, -1.0), Vec2::new(4.0, 2.0)),
        ),
        ("polygon", triangle()),
    ]
}

/// Every pair of kinds, overlapping at a few offsets and angles: the events,
/// `CollidingEntities` and `Collisions` match `Collider::contact` on the same
/// poses, and moving apart ends them.
#[test]
fn every_pair_of_kinds_is_reported_as_the_geometry_finds_it() {
    let mut checked = 0;
    for (name_a, a) in kinds() {
        for (name_b, b) in kinds() {
            for (k, offset) in [
                Vec2::new(1.0, 0.5),
                Vec2::new(-2.0, 3.0),
                Vec2::new(3.5, -1.0),
            ]
            .into_iter()
            .enumerate()
            {
                let angle = 0.4 + k as f32;
                let mut app = test_app();
                let mut log = MessageLog::default();
                let ea = app
                    .world_mut()
                    .spawn((a.clone(), Transform::from_xyz(10.0, 20.0, 0.0)))
                    .id();
                let eb = app
                    .world_mut()
                    .spawn((
                        b.clone(),
                        Transform::from_xyz(10.0 + offset.x, 20.0 + offset.y, 0.0)
                            .with_rotation(Quat::from_rotation_z(angle)),
                    ))
                    .id();
                app.update();
                let pose_a = Isometry2d::from_xy(10.0, 20.0);
                let pose_b = Isometry2d::new(Vec2::new(10.0, 20.0) + offset, Rot2::radians(angle));
                let expected = a.contact(pose_a, &b, pose_b);
                let events = log.read(&app);
                let context = format!("{name_a} vs {name_b} at {offset} angle {angle}");
                match expected {
                    Some(contact) => {
                        checked += 1;
                        assert_eq!(events.len(), 1, "{context}: {events:?}");
                        let CollisionEvent::Started {
                            a: first,
                            contact: reported,
                            ..
                        } = events[0]
                        else {
                            panic!("{context}: {events:?}");
                        };
                        // `a < b` in the message: flip when b's entity is first.
                        let seen_from_a = if first == ea {
                            reported
                        } else {
                            reported.flipped()
                        };
                        assert!(
                            (seen_from_a.depth - contact.depth).abs() < 1e-4,
                            "{context}"
                        );
                        assert!(
                            seen_from_a.normal.dot(*contact.normal) > 0.9999,
                            "{context}"
                        );
                        assert!(
                            seen_from_a.point.distance(contact.point) < 1e-3,
                            "{context}"
                        );
                        assert_eq!(colliding(&app, ea), vec![eb], "{context}");
                        assert_eq!(colliding(&app, eb), vec![ea], "{context}");
                        let collisions = app.world().resource::<Collisions>();
                        assert!(collisions.contains(ea, eb), "{context}");
                    }
                    None => assert!(events.is_empty(), "{context}: {events:?}"),
                }
                set_translation(&mut app, eb, 500.0, 500.0);
                app.update();
                let ended = log.read(&app);
                assert_eq!(
                    ended.len(),
                    usize::from(expected.is_some()),
                    "{context}: {ended:?}"
                );
                assert!(colliding(&app, ea).is_empty() && colliding(&app, eb).is_empty());
            }
        }
    }
    // Most of the 75 placements overlap; none may be skipped silently.
    assert!(checked >= 50, "{checked}");
}

/// A polygon mirrored by a negative scale is where its sprite would be: the
/// triangle's corner at (6, 0) moves to (-6, 0).
#[test]
fn a_negative_scale_mirrors_a_polygon_and_a_segment() {
    let mut app = test_app();
    let polygon = app
        .world_mut()
        .spawn((triangle(), Transform::from_scale(Vec3::new(-1.0, 1.0, 1.0))))
        .id();
    let left = spawn_at(&mut app, Collider::circle(0.5), -5.8, 0.2);
    let right = spawn_at(&mut app, Collider::circle(0.5), 5.8, 0.2);
    let segment = app
        .world_mut()
        .spawn((
            Collider::segment(Vec2::new(0.0, 10.0), Vec2::new(4.0, 10.0)),
            Transform::from_xyz(0.0, 20.0, 0.0).with_scale(Vec3::new(1.0, -1.0, 1.0)),
        ))
        .id();
    // The segment at local y = 10 mirrored lands at y = 20 - 10.
    let below = spawn_at(&mut app, Collider::circle(0.5), 2.0, 10.3);
    let above = spawn_at(&mut app, Collider::circle(0.5), 2.0, 30.3);
    app.update();
    assert_eq!(colliding(&app, polygon), vec![left]);
    assert!(colliding(&app, right).is_empty());
    assert_eq!(colliding(&app, segment), vec![below]);
    assert!(colliding(&app, above).is_empty());
}

/// Scale rules: a capsule's radius follows `|scale.x|` and its length
/// `|scale.y|`; a segment's ends follow the scale.
#[test]
fn scale_grows_capsules_and_segments_as_documented() {
    let mut app = test_app();
    let capsule = app
        .world_mut()
        .spawn((
            Collider::capsule(1.0, 4.0),
            Transform::from_scale(Vec3::new(2.0, 3.0, 1.0)),
        ))
        .id();
    // Radius 2, caps at y = +-6, so the top is at 8 and the side at x = 2.
    let top = spawn_at(&mut app, Collider::circle(0.1), 0.0, 8.05);
    let beyond_top = spawn_at(&mut app, Collider::circle(0.1), 1.5, 7.6);
    let side = spawn_at(&mut app, Collider::circle(0.1), 2.05, 3.0);
    let segment = app
        .world_mut()
        .spawn((
            Collider::segment(Vec2::ZERO, Vec2::X),
            Transform::from_xyz(0.0, -50.0, 0.0).with_scale(Vec3::splat(10.0)),
        ))
        .id();
    let far_end = spawn_at(&mut app, Collider::circle(0.1), 9.95, -50.0);
    app.update();
    let mut expected = vec![top, side];
    expected.sort();
    assert_eq!(colliding(&app, capsule), expected);
    assert!(colliding(&app, beyond_top).is_empty());
    assert_eq!(colliding(&app, segment), vec![far_end]);
}

/// A fast swept ball cannot pass through a one-unit-long thin wall made of a
/// segment, and the first touch is on the wall's side.
#[test]
fn a_swept_ball_cannot_tunnel_through_a_segment() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let wall = app
        .world_mut()
        .spawn((
            Collider::segment(Vec2::new(0.0, -5.0), Vec2::new(0.0, 5.0)),
            Transform::from_xyz(100.0, 0.0, 0.0),
        ))
        .id();
    let ball = app
        .world_mut()
        .spawn((
            Collider::circle(1.0),
            Swept,
            Transform::from_xyz(0.0, 0.0, 0.0),
        ))
        .id();
    app.update();
    // 300 units in one step: from x = 0 to x = 300, through the wall.
    set_translation(&mut app, ball, 300.0, 0.0);
    app.update();
    let events = log.read(&app);
    let started = events.iter().find_map(|event| match *event {
        CollisionEvent::Started { a, b, contact } => Some((a, b, contact)),
        CollisionEvent::Ended { .. } => None,
    });
    let (a, b, contact) = started.unwrap_or_else(|| panic!("tunnelled: {events:?}"));
    let from_ball = if a == ball {
        contact
    } else {
        contact.flipped()
    };
    // The ball's edge meets the wall at x = 100: its centre at 99.
    assert!(
        (time_of_impact(&app, a, b) - 99.0 / 300.0).abs() < 1e-3,
        "{from_ball:?}"
    );
    assert!(from_ball.normal.dot(Vec2::X) > 0.999, "{from_ball:?}");
    assert!((from_ball.point.x - 100.0).abs() < 0.05, "{from_ball:?}");
    // It passed: Ended follows in the same detection.
    assert!(
        events
            .iter()
            .any(|e| matches!(e, CollisionEvent::Ended { .. }))
    );
    assert!(colliding(&app, wall).is_empty());
}

/// A zero scale hides any kind without a warning; invalid sizes are skipped;
/// the valid pairs around them are unaffected.
#[test]
fn bad_shapes_are_skipped_and_the_rest_still_collide() {
    let mut app = test_app();
    let hidden = app
        .world_mut()
        .spawn((triangle(), Transform::from_scale(Vec3::new(0.0, 1.0, 1.0))))
        .id();
    let bad_capsule = spawn_at(&mut app, Collider::capsule(-1.0, 2.0), 0.0, 0.0);
    let bad_segment = spawn_at(
        &mut app,
        Collider::segment(Vec2::ZERO, Vec2::new(f32::NAN, 1.0)),
        0.0,
        0.0,
    );
    let ball = spawn_at(&mut app, Collider::circle(1.0), 1.0, 1.0);
    let capsule = spawn_at(&mut app, Collider::capsule(1.0, 2.0), 2.0, 1.0);
    app.update();
    for skipped in [hidden, bad_capsule, bad_segment] {
        assert!(colliding(&app, skipped).is_empty());
    }
    assert_eq!(colliding(&app, ball), vec![capsule]);
    // Fixed, it takes part again.
    app.world_mut()
        .entity_mut(bad_capsule)
        .insert(Collider::capsule(1.0, 2.0));
    app.update();
    let mut expected = vec![ball, capsule];
    expected.sort();
    assert_eq!(colliding(&app, bad_capsule), expected);
}

/// A capsule character resting on a floor tile: pushed straight up, by the
/// depth it sank.
#[test]
fn a_capsule_standing_on_a_floor_is_pushed_straight_up() {
    let mut app = test_app();
    let floor = spawn_at(&mut app, Collider::rect(32.0, 32.0), 0.0, -16.0);
    // 8 wide, 24 tall in all, bottom at 0.25 below the floor's top.
    let hero = spawn_at(&mut app, Collider::capsule(4.0, 16.0), 5.0, 11.75);
    app.update();
    let collisions = app.world().resource::<Collisions>();
    let contact = collisions.get(floor, hero).unwrap();
    assert!(contact.normal.dot(Vec2::Y) > 0.9999, "{contact:?}");
    assert!((contact.depth - 0.25).abs() < 1e-4, "{contact:?}");
    assert!((contact.point.x - 5.0).abs() < 1e-3, "{contact:?}");
}

/// A collider scaled to zero on either axis is hidden, whatever its kind:
/// no contact, no query finds it, no warning; scaled back, it is there
/// again.
#[test]
fn a_collider_scaled_to_zero_on_one_axis_is_hidden_whatever_its_kind() {
    use bevy::ecs::system::RunSystemOnce;
    let compound = Collider::compound([
        (Isometry2d::from_xy(-2.0, 0.0), Collider::circle(2.0)),
        (Isometry2d::from_xy(2.0, 0.0), Collider::capsule(1.0, 3.0)),
    ]);
    let polyline = Collider::polyline(&[Vec2::new(-4.0, -1.0), Vec2::ZERO, Vec2::new(4.0, 2.0)]);
    let mut all = kinds().to_vec();
    all.extend([("compound", compound), ("polyline", polyline.unwrap())]);
    for (name, collider) in all {
        for flat in [Vec3::new(1.0, 0.0, 1.0), Vec3::new(0.0, 1.0, 1.0)] {
            let mut app = test_app();
            let mut log = MessageLog::default();
            let probe = spawn_at(&mut app, Collider::rect(20.0, 20.0), 0.0, 0.0);
            let hidden = app
                .world_mut()
                .spawn((collider.clone(), Transform::from_scale(flat)))
                .id();
            app.update();
            assert!(log.read(&app).is_empty(), "{name} at {flat}");
            assert!(colliding(&app, probe).is_empty(), "{name} at {flat}");
            let found = app
                .world_mut()
                .run_system_once(move |spatial: SpatialQuery| {
                    let others = QueryFilter::default().with_excluded([probe]);
                    let region = Collider::circle(10.0);
                    (
                        spatial.shape_hits(&region, Isometry2d::IDENTITY, &others),
                        spatial.ray_hits(Vec2::new(-9.0, 0.0), Dir2::X, 18.0, 8, &others),
                        spatial.point_hits(Vec2::ZERO, &others),
                    )
                })
                .unwrap();
            assert!(found.0.is_empty(), "{name} at {flat}: {found:?}");
            assert!(found.1.is_empty(), "{name} at {flat}: {found:?}");
            assert!(found.2.is_empty(), "{name} at {flat}: {found:?}");
            let transform = app.world().get::<GlobalTransform>(hidden).unwrap();
            assert!(collider.world_shape(transform).is_err(), "{name} at {flat}");

            // Scaled back: it collides again.
            app.world_mut().get_mut::<Transform>(hidden).unwrap().scale = Vec3::ONE;
            app.update();
            assert_eq!(colliding(&app, probe), vec![hidden], "{name} at {flat}");
        }
    }
}
