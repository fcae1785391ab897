//! Polyline colliders in an App: a box sliding along one over every vertex
//! keeps one pair (one `Started`, no `Ended`), a contact that faces up, never
//! sideways at a joint, and the part it is on; both sides collide; a bad
//! polyline is an error, not a panic.

use crate::common;

use bevy::prelude::*;
use bevy_collide2d::geometry::Shape;
use bevy_collide2d::prelude::*;
use bevy_collide2d::{Collisions, ShapeError};
use common::*;

/// Gentle valleys and rises, no segment steeper than 0.25 radians.
fn ground_points() -> Vec<Vec2> {
    let slopes = [0.0, 0.0, 0.25, -0.1, -0.25, 0.0, 0.2, 0.2, -0.05, 0.0];
    let mut point = Vec2::new(-100.0, 0.0);
    let mut points = vec![point];
    for slope in slopes {
        point += Vec2::from_angle(slope) * 20.0;
        points.push(point);
    }
    points
}

/// The line's height at `x` and the index of the segment there.
fn surface(points: &[Vec2], x: f32) -> (f32, usize) {
    let i = points.windows(2).position(|w| x <= w[1].x).unwrap();
    let (a, b) = (points[i], points[i + 1]);
    (a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x), i)
}

#[test]
fn a_box_slides_over_every_vertex_as_one_pair_facing_up() {
    let points = ground_points();
    for half in [
        Vec2::new(12.0, 11.0),
        Vec2::new(3.0, 8.0),
        Vec2::new(9.0, 2.0),
    ] {
        let mut app = test_app();
        let mut log = MessageLog::default();
        let ground = spawn_at(&mut app, Collider::polyline(&points).unwrap(), 0.0, 0.0);
        let place = |x: f32| {
            // Resting on the highest point of the line under the box, 1 into it.
            let (left, right) = (x - half.x, x + half.x);
            let vertices = points.iter().filter(|p| (left..=right).contains(&p.x));
            let high = [left, right]
                .map(|x| surface(&points, x).0)
                .into_iter()
                .chain(vertices.map(|p| p.y))
                .fold(f32::NEG_INFINITY, f32::max);
            high + half.y - 1.0
        };
        let start = -100.0 + half.x + 1.0;
        let crate_box = spawn_at(
            &mut app,
            Collider::rect(2.0 * half.x, 2.0 * half.y),
            start,
            place(start),
        );
        let mut x = start;
        let mut started = 0;
        while x < points[points.len() - 1].x - half.x - 1.0 {
            set_translation(&mut app, crate_box, x, place(x));
            app.update();
            for event in log.read(&app) {
                match event {
                    CollisionEvent::Started { .. } => started += 1,
                    CollisionEvent::Ended { .. } => panic!("{half} ended at x {x}"),
                }
            }
            let collisions = app.world().resource::<Collisions>();
            let contact = collisions.get(ground, crate_box).expect("touching");
            assert!(
                contact.normal.y > 0.25f32.cos() - 0.01,
                "{half} at x {x}: sideways normal {contact:?}"
            );
            let part = collisions.parts(ground, crate_box).unwrap().a().unwrap() as usize;
            let (_, left) = surface(&points, x - half.x);
            let (_, right) = surface(&points, x + half.x);
            assert!((left..=right).contains(&part), "{half} at {x}: part {part}");
            x += 0.5;
        }
        assert_eq!(started, 1, "{half}");
    }
}

#[test]
fn both_sides_of_a_polyline_collide() {
    let mut app = test_app();
    let line =
        Collider::polyline(&[Vec2::new(-50.0, 0.0), Vec2::ZERO, Vec2::new(50.0, 10.0)]).unwrap();
    let ground = spawn_at(&mut app, line, 0.0, 0.0);
    let above = spawn_at(&mut app, Collider::circle(5.0), -20.0, 4.0);
    let below = spawn_at(&mut app, Collider::circle(5.0), -20.0, -4.0);
    app.update();
    let collisions = app.world().resource::<Collisions>();
    assert!(collisions.get(ground, above).unwrap().normal.y > 0.99);
    assert!(collisions.get(ground, below).unwrap().normal.y < -0.99);
    assert_eq!(colliding(&app, ground).len(), 2);
}

#[test]
fn a_closed_polyline_is_a_loop_of_segments_with_an_empty_inside() {
    let square = [
        Vec2::new(-20.0, -20.0),
        Vec2::new(20.0, -20.0),
        Vec2::new(20.0, 20.0),
        Vec2::new(-20.0, 20.0),
        Vec2::new(-20.0, -20.0),
    ];
    let collider = Collider::polyline(&square).unwrap();
    let Shape::Compound(compound) = collider.shape() else {
        panic!("a polyline is a compound of its segments");
    };
    assert_eq!(compound.parts().len(), 4);
    assert_eq!(compound.polyline_points(), Some(&square[..]));
    let mut app = test_app();
    let ring = spawn_at(&mut app, collider, 0.0, 0.0);
    let inside = spawn_at(&mut app, Collider::circle(5.0), 0.0, 0.0);
    let on_corner = spawn_at(&mut app, Collider::circle(5.0), 22.0, 22.0);
    app.update();
    assert_eq!(colliding(&app, ring), [on_corner]);
    assert!(colliding(&app, inside).is_empty());
    // Touching the closing corner from outside: a corner contact, pointing out.
    let contact = app
        .world()
        .resource::<Collisions>()
        .get(ring, on_corner)
        .unwrap();
    assert!(
        contact.normal.x > 0.5 && contact.normal.y > 0.5,
        "{contact:?}"
    );
}

#[test]
fn a_bad_polyline_is_an_error() {
    assert_eq!(
        Collider::polyline(&[Vec2::ONE, Vec2::ONE]).err(),
        Some(ShapeError::EmptyCompound)
    );
    assert_eq!(
        Collider::polyline(&[]).err(),
        Some(ShapeError::EmptyCompound)
    );
    let nan = Vec2::new(f32::NAN, 0.0);
    assert!(matches!(
        Collider::polyline(&[Vec2::ZERO, nan]),
        Err(ShapeError::InvalidVertex(v)) if v.x.is_nan()
    ));
    // Repeated points are dropped: two segments.
    let line = Collider::polyline(&[Vec2::ZERO, Vec2::ZERO, Vec2::X, Vec2::X, Vec2::Y]).unwrap();
    let Shape::Compound(compound) = line.shape() else {
        panic!();
    };
    assert_eq!(compound.parts().len(), 2);
}

/// Runs `f` with the app's spatial queries.
fn with_queries<R>(app: &mut App, f: impl FnOnce(&SpatialQuery) -> R) -> R {
    let mut state = bevy::ecs::system::SystemState::<SpatialQuery>::new(app.world_mut());
    let spatial = state.get(app.world()).unwrap();
    f(&spatial)
}

#[test]
fn a_heightfield_collides_and_is_queried_as_the_polyline_of_its_samples() {
    let heights = [0.0, 0.4, 1.1, 0.8, 0.8, 0.2, -0.5, 0.1, 0.9, 0.3];
    let scale = Vec2::new(180.0, 20.0);
    let step = scale.x / (heights.len() - 1) as f32;
    let points: Vec<Vec2> = (heights.iter().enumerate())
        .map(|(i, &h)| Vec2::new(i as f32 * step - scale.x / 2.0, h * scale.y))
        .collect();
    let terrains = [
        Collider::heightfield(&heights, scale).unwrap(),
        Collider::polyline(&points).unwrap(),
    ];
    // The same world twice, one on a heightfield, one on its polyline;
    // the terrain turned and scaled so its samples are not axis-aligned.
    let mut worlds = terrains.map(|terrain| {
        let mut app = test_app();
        let place = Transform::from_xyz(5.0, -3.0, 0.0)
            .with_rotation(Quat::from_rotation_z(0.2))
            .with_scale(Vec3::new(1.3, 0.8, 1.0));
        let ground = app.world_mut().spawn((terrain, place, StaticCollider)).id();
        let mut movers = Vec::new();
        for k in 0..40 {
            let x = -95.0 + k as f32 * 4.9;
            let shape = match k % 3 {
                0 => Collider::circle(3.0 + (k % 5) as f32),
                1 => Collider::rect(8.0, 5.0),
                _ => Collider::capsule(2.0, 6.0),
            };
            let at = Transform::from_xyz(x, 12.0 - (k % 7) as f32 * 5.0, 0.0)
                .with_rotation(Quat::from_rotation_z(k as f32 * 0.37));
            let mut mover = app.world_mut().spawn((shape, at));
            if k % 4 == 0 {
                mover.insert(Swept);
            }
            movers.push(mover.id());
        }
        app.update();
        // The swept ones fall through the terrain's line in one step.
        for (k, &mover) in movers.iter().enumerate() {
            if k % 4 == 0 {
                app.world_mut()
                    .get_mut::<Transform>(mover)
                    .unwrap()
                    .translation
                    .y -= 40.0;
            }
        }
        app.update();
        (app, ground, movers)
    });
    let contacts = |(app, ground, movers): &(App, Entity, Vec<Entity>)| -> Vec<_> {
        let collisions = app.world().resource::<Collisions>();
        (movers.iter())
            .map(|&m| (collisions.get(m, *ground), collisions.parts(m, *ground)))
            .collect()
    };
    let (first, second) = (contacts(&worlds[0]), contacts(&worlds[1]));
    assert!(
        first.iter().filter(|c| c.0.is_some()).count() >= 5,
        "{first:?}"
    );
    assert_eq!(first, second);

    let queries = |app: &mut App| {
        with_queries(app, |spatial| {
            let filter = QueryFilter::default();
            let rays: Vec<_> = (0..30)
                .map(|k| {
                    let origin = Vec2::new(-100.0 + k as f32 * 7.0, 60.0);
                    let direction = Dir2::from_xy(0.3 - k as f32 * 0.02, -1.0).unwrap();
                    spatial.ray_hits(origin, direction, 200.0, 4, &filter)
                })
                .collect();
            let points: Vec<_> = (0..30)
                .map(|k| spatial.project_point(Vec2::new(-90.0 + k as f32 * 6.0, 2.0), &filter))
                .collect();
            (rays, points)
        })
    };
    let (a, b) = (queries(&mut worlds[0].0), queries(&mut worlds[1].0));
    assert_eq!(a, b);
}

#[test]
fn a_bad_heightfield_is_an_error() {
    let scale = Vec2::new(10.0, 1.0);
    assert_eq!(
        Collider::heightfield(&[1.0], scale),
        Err(ShapeError::EmptyCompound)
    );
    assert!(matches!(
        Collider::heightfield(&[0.0, f32::NAN, 1.0], scale),
        Err(ShapeError::InvalidVertex(_))
    ));
    for bad in [
        Vec2::new(0.0, 1.0),
        Vec2::new(-3.0, 1.0),
        Vec2::new(5.0, f32::INFINITY),
    ] {
        assert_eq!(
            Collider::heightfield(&[0.0, 1.0], bad),
            Err(ShapeError::InvalidHeightfieldScale(bad))
        );
    }
    // A flat heightfield (zero height scale) is a line, and fine.
    assert!(Collider::heightfield(&[0.0, 1.0, 2.0], Vec2::new(10.0, 0.0)).is_ok());
}
