//! Polyline colliders in an App: a box sliding along one over every vertex
//! keeps one pair (one `Started`, no `Ended`), a contact that faces up, never
//! sideways at a joint, and the part it is on; both sides collide; a bad
//! polyline is an error, not a panic.

mod common;

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
