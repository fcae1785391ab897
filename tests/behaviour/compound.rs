//! Compound colliders in an App: events stay per pair of entities (one
//! `Started` when any part starts touching, one `Ended` when none touches),
//! the contact is the deepest part's, queries hit the compound's entity, and
//! transforms, `StaticCollider` and `Swept` apply to it as to any collider.

use crate::common;

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

/// A floor 100 wide and a post 50 tall on its left end.
fn l_wall() -> Collider {
    Collider::compound([
        (Isometry2d::IDENTITY, Collider::rect(100.0, 10.0)),
        (Isometry2d::from_xy(-45.0, 30.0), Collider::rect(10.0, 50.0)),
    ])
}

#[test]
fn one_started_while_any_part_touches_and_one_ended_when_none_does() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let wall = spawn_at(&mut app, l_wall(), 0.0, 0.0);
    let ball = spawn_at(&mut app, Collider::circle(5.0), 0.0, 40.0);
    app.update();
    assert!(log.read(&app).is_empty());

    // On the floor only: started.
    set_translation(&mut app, ball, -20.0, 9.0);
    app.update();
    let (a, b) = ordered(wall, ball);
    match log.read(&app).as_slice() {
        [
            CollisionEvent::Started {
                a: ea,
                b: eb,
                contact,
            },
        ] => {
            assert_eq!((*ea, *eb), (a, b));
            assert!((contact.depth - 1.0).abs() < 1e-4, "{contact:?}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(colliding(&app, wall), [ball]);

    // Into the corner, touching both parts: still the same pair, nothing new;
    // the contact held is the deeper part's (the post, 3 deep).
    set_translation(&mut app, ball, -38.0, 8.0);
    app.update();
    assert!(log.read(&app).is_empty());
    let contact = app
        .world()
        .resource::<Collisions>()
        .get(wall, ball)
        .unwrap();
    assert!((contact.depth - 3.0).abs() < 1e-4, "{contact:?}");

    // Up along the post only, then away from both: one Ended.
    set_translation(&mut app, ball, -38.0, 45.0);
    app.update();
    assert!(log.read(&app).is_empty());
    set_translation(&mut app, ball, 0.0, 45.0);
    app.update();
    assert_eq!(log.read(&app), [CollisionEvent::Ended { a, b }]);
    assert!(colliding(&app, wall).is_empty());
    let observed = take_observed(&mut app);
    assert_eq!(
        observed.len(),
        4,
        "a Started and an Ended on each: {observed:?}"
    );
}

#[test]
fn queries_hit_the_compound_entity_on_any_part() {
    let mut app = test_app();
    let wall = spawn_at(&mut app, l_wall(), 0.0, 0.0);
    app.update();
    let hits = app
        .world_mut()
        .run_system_once(|spatial: SpatialQuery| {
            let down = spatial.cast_ray(Vec2::new(-45.0, 100.0), Dir2::NEG_Y, 500.0, &default());
            let across = spatial.cast_ray(Vec2::new(100.0, 0.0), Dir2::NEG_X, 500.0, &default());
            let inside_post = spatial.point_hits(Vec2::new(-45.0, 50.0), &default());
            let above_floor = spatial.point_hits(Vec2::new(0.0, 30.0), &default());
            (down, across, inside_post, above_floor)
        })
        .unwrap();
    let (down, across, inside_post, above_floor) = hits;
    let down = down.unwrap();
    assert_eq!(down.entity, wall);
    assert!(
        (down.distance - 45.0).abs() < 1e-3,
        "the post's top: {down:?}"
    );
    let across = across.unwrap();
    assert!(
        (across.distance - 50.0).abs() < 1e-3,
        "the floor's end: {across:?}"
    );
    assert_eq!(inside_post, [wall]);
    assert!(above_floor.is_empty());
}

/// A rotated and scaled static compound: parts move with the transform.
#[test]
fn a_transformed_static_compound_is_where_it_is_drawn() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    // Turned a quarter counter-clockwise and doubled: the post, at local
    // (-45, 30), is at world (-60, -90), lying along x: its end at x = -110.
    let wall = app
        .world_mut()
        .spawn((
            l_wall(),
            StaticCollider,
            Transform::from_rotation(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2))
                .with_scale(Vec3::splat(2.0)),
        ))
        .id();
    let ball = spawn_at(&mut app, Collider::circle(5.0), -120.0, -90.0);
    app.update();
    assert!(log.read(&app).is_empty(), "5 short of the post's end");
    set_translation(&mut app, ball, -113.0, -90.0);
    app.update();
    assert_eq!(log.read(&app).len(), 1);
    assert_eq!(colliding(&app, ball), [wall]);
}

/// A moving compound's scale is read every frame: scaled up, across
/// another scaled value, and back to none.
#[test]
fn a_compound_follows_its_scale_from_frame_to_frame() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let wall = spawn_at(&mut app, l_wall(), 0.0, 0.0);
    // 4 above the floor's top (5) while unscaled.
    let ball = spawn_at(&mut app, Collider::circle(5.0), 20.0, 14.0);
    let scale_wall = |app: &mut App, y: f32| {
        app.world_mut().get_mut::<Transform>(wall).unwrap().scale = Vec3::new(1.0, y, 1.0);
        app.update();
    };
    let depth = |app: &App| {
        let collisions = app.world().resource::<Collisions>();
        collisions.get(wall, ball).map(|contact| contact.depth)
    };
    app.update();
    assert!(log.read(&app).is_empty());
    let mut events = Vec::new();
    for (scale, expected) in [(2.0, 1.0), (1.9, 0.5), (2.2, 2.0)] {
        scale_wall(&mut app, scale);
        events.extend(log.read(&app));
        let found = depth(&app);
        assert!(
            found.is_some_and(|found| (found - expected).abs() < 1e-4),
            "scale {scale}: {found:?}"
        );
    }
    assert_eq!(events.len(), 1, "one Started: {events:?}");
    scale_wall(&mut app, 1.0);
    assert_eq!(depth(&app), None);
    let (a, b) = ordered(wall, ball);
    assert_eq!(log.read(&app), [CollisionEvent::Ended { a, b }]);
}

/// A compound spun with `rotate_z` and growing and shrinking alike on both
/// axes (its scale changes every frame: detection places its parts at that
/// scale) touches what its shape at each frame's transform touches,
/// exactly: the depth `Collider::world_shape` and the pure contact give,
/// frame by frame; also for stretches of frames with another compound, and
/// with a scale that differs per axis (the compound is rebuilt there).
#[test]
fn a_spinning_compound_scaled_every_frame_touches_what_its_world_shape_does() {
    let mut app = test_app();
    let wall = spawn_at(&mut app, l_wall(), 0.0, 0.0);
    let balls: Vec<Entity> = (0..12)
        .map(|k| {
            let at = Vec2::from_angle(k as f32 * 0.52) * (30.0 + 3.0 * k as f32);
            spawn_at(&mut app, Collider::circle(6.0), at.x, at.y)
        })
        .collect();
    let mut touches = 0;
    for frame in 0..120 {
        {
            let mut transform = app.world_mut().get_mut::<Transform>(wall).unwrap();
            transform.rotate_z(0.05);
            let grow = 1.0 + 0.3 * (frame as f32 * 0.1).sin();
            transform.scale = match frame % 40 {
                30..35 => Vec3::new(grow, 0.8 * grow, 1.0),
                _ => Vec3::splat(grow),
            };
        }
        if frame % 40 == 20 || frame % 40 == 0 {
            // Another compound for a stretch of frames, then the first back.
            let other = Collider::compound([
                (Isometry2d::from_xy(-4.0, 0.0), Collider::circle(6.0)),
                (Isometry2d::from_xy(8.0, 3.0), Collider::rect(12.0, 4.0)),
            ]);
            let shape = if frame % 40 == 20 { other } else { l_wall() };
            app.world_mut().entity_mut(wall).insert(shape);
        }
        app.update();
        let world = app.world();
        let world_shape = |entity: Entity| {
            let collider = world.get::<Collider>(entity).unwrap();
            collider
                .world_shape(world.get::<GlobalTransform>(entity).unwrap())
                .unwrap()
        };
        let (wall_shape, wall_pose) = world_shape(wall);
        for &ball in &balls {
            let (ball_shape, ball_pose) = world_shape(ball);
            let expected = wall_shape
                .contact(wall_pose, &ball_shape, ball_pose)
                .map(|contact| contact.depth);
            let found = (world.resource::<Collisions>())
                .get(wall, ball)
                .map(|contact| contact.depth);
            assert_eq!(found, expected, "frame {frame}, ball {ball}");
            touches += usize::from(found.is_some());
        }
    }
    assert!(touches > 100, "{touches} touches in all");
}

/// A fast swept ball cannot pass through a thin part of a compound.
#[test]
fn a_swept_ball_stops_at_a_thin_part() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let wall = spawn_at(
        &mut app,
        Collider::compound([
            (Isometry2d::from_xy(0.0, -200.0), Collider::rect(400.0, 2.0)),
            (Isometry2d::IDENTITY, Collider::rect(2.0, 400.0)),
        ]),
        0.0,
        0.0,
    );
    let ball = app
        .world_mut()
        .spawn((
            Collider::circle(2.0),
            Swept,
            Transform::from_xyz(-100.0, 0.0, 0.0),
        ))
        .id();
    app.update();
    set_translation(&mut app, ball, 100.0, 0.0);
    app.update();
    let events = log.read(&app);
    let (a, b, started) = events
        .iter()
        .find_map(|event| match event {
            CollisionEvent::Started { a, b, contact } => Some((*a, *b, *contact)),
            _ => None,
        })
        .expect("the ball crossed the thin wall");
    assert!(
        (time_of_impact(&app, a, b) - 0.485).abs() < 1e-3,
        "touches at x = -3: {started:?}"
    );
    assert!(colliding(&app, wall).is_empty(), "apart again at the end");
}

/// A compound with an invalid part is skipped with a warning; the others
/// still collide.
#[test]
fn an_invalid_part_skips_the_compound_only() {
    let mut app = test_app();
    let bad = spawn_at(
        &mut app,
        Collider::compound([
            (Isometry2d::IDENTITY, Collider::rect(10.0, 10.0)),
            (Isometry2d::from_xy(5.0, 0.0), Collider::circle(f32::NAN)),
        ]),
        0.0,
        0.0,
    );
    let empty = spawn_at(&mut app, Collider::compound([]), 0.0, 0.0);
    let a = spawn_at(&mut app, Collider::circle(3.0), 0.0, 0.0);
    let b = spawn_at(&mut app, Collider::circle(3.0), 2.0, 0.0);
    app.update();
    assert_eq!(colliding(&app, a), [b]);
    assert!(colliding(&app, bad).is_empty() && colliding(&app, empty).is_empty());
}

/// `Collisions::parts` says which part of a compound touches, seen from
/// either side, and follows the deepest part as the ball moves.
#[test]
fn collisions_say_which_part_touches() {
    let mut app = test_app();
    let wall = spawn_at(&mut app, l_wall(), 0.0, 0.0);
    let ball = spawn_at(&mut app, Collider::circle(5.0), -20.0, 9.0);
    let elsewhere = spawn_at(&mut app, Collider::circle(5.0), 500.0, 0.0);
    app.update();
    let part_of_wall = |app: &App| {
        let collisions = app.world().resource::<Collisions>();
        let from_wall = collisions.parts(wall, ball).unwrap();
        assert_eq!(collisions.parts(ball, wall), Some(from_wall.swapped()));
        assert_eq!(from_wall.b(), None, "a circle has no parts");
        assert_eq!(collisions.parts(wall, elsewhere), None, "not touching");
        let part = from_wall.a().unwrap();
        let on_part: Vec<_> = collisions.contacts_of_part(wall, part).collect();
        assert_eq!(on_part, collisions.contacts_of(wall).collect::<Vec<_>>());
        assert_eq!(collisions.contacts_of_part(wall, 1 - part).count(), 0);
        part
    };
    assert_eq!(part_of_wall(&app), 0, "the floor");
    set_translation(&mut app, ball, -38.0, 8.0);
    app.update();
    assert_eq!(part_of_wall(&app), 1, "the post, deeper than the floor");
}

/// Parts are named for swept pairs and plain ones alike, and for a plain
/// pair right after a detection that had swept colliders.
#[test]
fn parts_are_named_with_and_without_swept_colliders() {
    let mut app = test_app();
    let wall = spawn_at(&mut app, l_wall(), 0.0, 0.0);
    let ball = spawn_at(&mut app, Collider::circle(5.0), -38.0, 8.0);
    app.world_mut().entity_mut(ball).insert(Swept);
    let plain = spawn_at(&mut app, Collider::circle(5.0), 20.0, 9.0);
    app.update();
    let part = |app: &App, other| {
        let collisions = app.world().resource::<Collisions>();
        collisions.parts(wall, other).and_then(|parts| parts.a())
    };
    assert_eq!(part(&app, ball), Some(1), "swept, in the corner: the post");
    assert_eq!(part(&app, plain), Some(0), "plain, on the floor");
    app.world_mut().entity_mut(ball).remove::<Swept>();
    set_translation(&mut app, ball, -20.0, 9.0);
    app.update();
    assert_eq!(part(&app, ball), Some(0), "no longer swept, on the floor");
    assert_eq!(part(&app, plain), Some(0));
}

/// Two compounds: the parts of both.
#[test]
fn two_compounds_name_a_part_each() {
    let mut app = test_app();
    let wall = spawn_at(&mut app, l_wall(), 0.0, 0.0);
    let dumbbell = Collider::compound([
        (Isometry2d::from_xy(-20.0, 0.0), Collider::circle(4.0)),
        (Isometry2d::from_xy(20.0, 0.0), Collider::circle(4.0)),
    ]);
    // Its right ball 1 deep in the post's left side: x = -50 - 4 + 1.
    let bell = spawn_at(&mut app, dumbbell, -73.0, 40.0);
    app.update();
    let collisions = app.world().resource::<Collisions>();
    let parts = collisions.parts(bell, wall).expect("touching");
    assert_eq!((parts.a(), parts.b()), (Some(1), Some(1)));
    let contact = collisions.get(bell, wall).unwrap();
    assert!((contact.depth - 1.0).abs() < 1e-4, "{contact:?}");
}

/// A concave outline collides as its shape, not as its hull: a ball in the
/// mouth of a "U" touches nothing until it reaches the bottom.
#[test]
fn a_concave_polygon_collides_as_drawn() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let cup = Collider::concave_polygon(&[
        Vec2::new(0.0, 0.0),
        Vec2::new(30.0, 0.0),
        Vec2::new(30.0, 30.0),
        Vec2::new(20.0, 30.0),
        Vec2::new(20.0, 10.0),
        Vec2::new(10.0, 10.0),
        Vec2::new(10.0, 30.0),
        Vec2::new(0.0, 30.0),
    ])
    .unwrap();
    let bevy_collide2d::geometry::Shape::Compound(compound) = cup.shape() else {
        panic!("{cup:?}");
    };
    assert!((2..=4).contains(&compound.parts().len()), "{compound:?}");
    spawn_at(&mut app, cup, 0.0, 0.0);
    let ball = spawn_at(&mut app, Collider::circle(4.5), 15.0, 25.0);
    for y in [25.0, 20.0, 15.0] {
        set_translation(&mut app, ball, 15.0, y);
        app.update();
        assert!(log.read(&app).is_empty(), "in the mouth at y = {y}");
    }
    set_translation(&mut app, ball, 15.0, 14.0);
    app.update();
    assert_eq!(log.read(&app).len(), 1, "at the bottom");
}

#[test]
fn a_polygon_with_holes_collides_only_where_it_is_solid() {
    let square = |centre: Vec2, half: f32| {
        [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .map(|(x, y)| centre + Vec2::new(x, y) * half)
    };
    // An arena 100 across with a square pit and a concave notch-shaped pit.
    let outline = square(Vec2::ZERO, 50.0);
    let notch = [
        (0.0, 0.0),
        (20.0, 0.0),
        (20.0, 20.0),
        (10.0, 8.0),
        (0.0, 20.0),
    ]
    .map(|(x, y)| Vec2::new(10.0 + x, -40.0 + y));
    let pit = square(Vec2::new(-20.0, 20.0), 12.0);
    let arena = Collider::polygon_with_holes(&outline, [&pit[..], &notch[..]]).unwrap();
    let inside = |p: Vec2, ring: &[Vec2]| {
        // Even-odd rule on the ring.
        let n = ring.len();
        (0..n).fold(false, |inside, i| {
            let (a, b) = (ring[i], ring[(i + 1) % n]);
            let crosses =
                (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);
            inside ^ crosses
        })
    };
    let mut app = test_app();
    let place = Transform::from_xyz(30.0, -10.0, 0.0).with_rotation(Quat::from_rotation_z(0.4));
    let pose = pose_of(&place);
    let floor = app.world_mut().spawn((arena, place)).id();
    // Tiny probes on a lattice: each touches the arena where the region is solid.
    let mut probes = Vec::new();
    for i in 0..25 {
        for j in 0..25 {
            let local = Vec2::new(-57.0 + i as f32 * 4.7, -57.0 + j as f32 * 4.7);
            let world = pose.transform_point(local);
            let probe = spawn_at(&mut app, Collider::circle(0.01), world.x, world.y);
            let solid = inside(local, &outline) && !inside(local, &pit) && !inside(local, &notch);
            probes.push((probe, local, solid));
        }
    }
    app.update();
    let collisions = app.world().resource::<Collisions>();
    let mut checked = 0;
    for (probe, local, solid) in probes {
        let near_edge = [&outline[..], &pit[..], &notch[..]].iter().any(|ring| {
            let n = ring.len();
            (0..n).any(|i| {
                let (a, b) = (ring[i], ring[(i + 1) % n]);
                let t = ((local - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
                local.distance(a + (b - a) * t) < 0.05
            })
        });
        if near_edge {
            continue;
        }
        checked += 1;
        assert_eq!(
            collisions.contains(probe, floor),
            solid,
            "probe at {local} (local)"
        );
    }
    assert!(checked > 500);
}

/// Compounds of several shapes in every chunk the snapshot reads (more than
/// a thousand colliders), scaled alike on both axes or not, their shapes
/// swapped and entities replaced between frames: every pair touches exactly
/// when their world shapes do, with the same depth.
#[test]
fn a_crowd_of_compounds_touches_as_their_world_shapes_do() {
    let templates = [
        l_wall(),
        Collider::compound([
            (Isometry2d::from_xy(-4.0, 0.0), Collider::circle(6.0)),
            (Isometry2d::from_xy(8.0, 3.0), Collider::rect(12.0, 4.0)),
        ]),
        Collider::compound([
            (
                Isometry2d::new(Vec2::new(0.0, 5.0), Rot2::radians(0.4)),
                Collider::rect(9.0, 3.0),
            ),
            (Isometry2d::from_xy(0.0, -5.0), Collider::capsule(2.0, 6.0)),
            (Isometry2d::from_xy(6.0, 0.0), Collider::circle(3.0)),
        ]),
        Collider::circle(5.0),
    ];
    let mut app = test_app();
    let count = 2_600;
    // A side where most colliders touch a few others.
    let side = (count as f32).sqrt() * 24.0;
    let place = |k: usize| {
        let (row, column) = ((k * 7919) % count / 51, k % 51);
        Vec2::new(column as f32 * side / 51.0, row as f32 * side / 51.0) - side / 2.0
    };
    let scale_of = |k: usize| match k % 5 {
        0 => Vec3::new(0.8, 1.3, 1.0),
        _ => Vec3::splat(0.6 + 0.1 * (k % 7) as f32),
    };
    let mut entities: Vec<Entity> = (0..count)
        .map(|k| {
            let at = place(k);
            let transform = Transform::from_xyz(at.x, at.y, 0.0).with_scale(scale_of(k));
            app.world_mut()
                .spawn((templates[k % 4].clone(), transform))
                .id()
        })
        .collect();
    let mut touching = 0;
    for frame in 0..6 {
        for (k, &entity) in entities.iter().enumerate() {
            let mut transform = app.world_mut().get_mut::<Transform>(entity).unwrap();
            transform.rotate_z(0.2 + 0.01 * (k % 13) as f32);
            transform.translation.x += ((k + frame) % 3) as f32 - 1.0;
        }
        if frame % 2 == 1 {
            // Some change shape, some are replaced by new ones: the read's
            // chunks hold other compounds than last frame.
            for k in (frame..count).step_by(97) {
                let template = templates[(k + frame) % 4].clone();
                app.world_mut().entity_mut(entities[k]).insert(template);
            }
            for k in (frame..count).step_by(131) {
                app.world_mut().despawn(entities[k]);
                let at = place(k);
                let transform = Transform::from_xyz(at.x, at.y, 0.0).with_scale(scale_of(k + 1));
                entities[k] = app
                    .world_mut()
                    .spawn((templates[(k + 1) % 4].clone(), transform))
                    .id();
            }
        }
        app.update();
        let world = app.world();
        let mut shapes: Vec<_> = (entities.iter())
            .map(|&entity| {
                let collider = world.get::<Collider>(entity).unwrap();
                let (shape, pose) = collider
                    .world_shape(world.get::<GlobalTransform>(entity).unwrap())
                    .unwrap();
                (shape.aabb(pose), entity, shape, pose)
            })
            .collect();
        // Each pair whose boxes overlap along x, by a sweep.
        shapes.sort_by(|a, b| a.0.min.x.total_cmp(&b.0.min.x));
        let mut expected = Vec::new();
        for (i, (box_a, a, shape_a, pose_a)) in shapes.iter().enumerate() {
            for (box_b, b, shape_b, pose_b) in &shapes[i + 1..] {
                if box_b.min.x > box_a.max.x {
                    break;
                }
                let (a, b, contact) = if a < b {
                    (*a, *b, shape_a.contact(*pose_a, shape_b, *pose_b))
                } else {
                    (*b, *a, shape_b.contact(*pose_b, shape_a, *pose_a))
                };
                if let Some(contact) = contact {
                    expected.push((a, b, contact.depth));
                }
            }
        }
        expected.sort_by_key(|&(a, b, _)| (a, b));
        let found: Vec<_> = (world.resource::<Collisions>().iter())
            .map(|pair| (pair.a, pair.b, pair.contact.depth))
            .collect();
        assert_eq!(found.len(), expected.len(), "frame {frame}");
        assert_eq!(found, expected, "frame {frame}");
        touching += found.len();
    }
    assert!(touching > 6 * 1_000, "{touching} touching pairs in all");
}
