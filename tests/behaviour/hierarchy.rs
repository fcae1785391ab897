//! Colliders on children of moved, rotated and scaled parents are where the
//! hierarchy puts them.

use crate::common;

use core::f32::consts::FRAC_PI_2;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

/// A small probe circle at a world position.
fn probe(app: &mut App, x: f32, y: f32) -> Entity {
    spawn_at(app, Collider::circle(0.5), x, y)
}

#[test]
fn child_of_a_rotated_parent() {
    let mut app = test_app();
    // Parent at (100, 0) turned +90 degrees: the child's local +x offset of
    // 20 ends up at world (100, 20), not (100, -20) or (120, 0).
    let parent = app
        .world_mut()
        .spawn(Transform::from_xyz(100.0, 0.0, 0.0).with_rotation(Quat::from_rotation_z(FRAC_PI_2)))
        .id();
    // A 10 x 2 plank along the child's x axis: after the parent's turn it
    // stands upright.
    let plank = app
        .world_mut()
        .spawn((
            Collider::rect(10.0, 2.0),
            Transform::from_xyz(20.0, 0.0, 0.0),
            ChildOf(parent),
        ))
        .id();
    let above = probe(&mut app, 100.0, 24.0); // within the upright plank's top half
    let beside = probe(&mut app, 104.0, 20.0); // would hit a lying plank
    let mirrored = probe(&mut app, 100.0, -20.0);
    app.update();
    assert_eq!(colliding(&app, plank), vec![above]);
    assert!(colliding(&app, beside).is_empty());
    assert!(colliding(&app, mirrored).is_empty());
}

#[test]
fn child_of_a_scaled_parent() {
    let mut app = test_app();
    let parent = app
        .world_mut()
        .spawn(Transform::from_scale(Vec3::new(3.0, 1.0, 1.0)))
        .id();
    // Radius 2, scaled by max(|3|, |1|) = 3; offset 10 scaled to 30.
    let ball = app
        .world_mut()
        .spawn((
            Collider::circle(2.0),
            Transform::from_xyz(10.0, 0.0, 0.0),
            ChildOf(parent),
        ))
        .id();
    // A rectangle 4 x 4 scaled to 12 x 4 by the parent.
    let brick = app
        .world_mut()
        .spawn((
            Collider::rect(4.0, 4.0),
            Transform::from_xyz(-10.0, 0.0, 0.0),
            ChildOf(parent),
        ))
        .id();
    let near_ball = probe(&mut app, 30.0 + 5.9, 0.0);
    let near_brick_end = probe(&mut app, -30.0 - 6.4, 0.0);
    let above_brick = probe(&mut app, -30.0, 2.6);
    app.update();
    assert_eq!(colliding(&app, ball), vec![near_ball]);
    assert_eq!(colliding(&app, brick), vec![near_brick_end]);
    assert!(colliding(&app, above_brick).is_empty());
}

#[test]
fn grandchild_of_rotated_and_scaled_parents_follows_them_when_they_move() {
    let mut app = test_app();
    let root = app
        .world_mut()
        .spawn(Transform::from_xyz(0.0, 0.0, 0.0))
        .id();
    let middle = app
        .world_mut()
        .spawn((
            Transform::from_xyz(50.0, 0.0, 0.0)
                .with_rotation(Quat::from_rotation_z(FRAC_PI_2))
                .with_scale(Vec3::splat(2.0)),
            ChildOf(root),
        ))
        .id();
    let leaf = app
        .world_mut()
        .spawn((
            Collider::rect(4.0, 2.0),
            Transform::from_xyz(5.0, 0.0, 0.0),
            ChildOf(middle),
        ))
        .id();
    // Leaf centre: middle at (50, 0), local (5, 0) scaled to (10, 0) and
    // turned to (0, 10): world (50, 10); its 8 x 4 box stands upright.
    let target = probe(&mut app, 50.0, 13.5);
    let miss = probe(&mut app, 53.0, 10.0);
    app.update();
    assert_eq!(colliding(&app, leaf), vec![target]);
    assert!(colliding(&app, miss).is_empty());

    // Moving the root carries the grandchild along, in the same frame.
    app.world_mut()
        .get_mut::<Transform>(root)
        .unwrap()
        .translation
        .x = 1000.0;
    app.update();
    assert!(colliding(&app, leaf).is_empty());
    assert!(colliding(&app, target).is_empty());
}

#[test]
fn mirrored_scale_keeps_the_shape() {
    let mut app = test_app();
    let flipped = app
        .world_mut()
        .spawn((
            Collider::rect(10.0, 2.0),
            Transform::from_scale(Vec3::new(-1.0, 1.0, 1.0)),
        ))
        .id();
    let end = probe(&mut app, 5.3, 0.0);
    app.update();
    assert_eq!(colliding(&app, flipped), vec![end]);
}
