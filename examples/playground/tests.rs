//! The playground's shapes of every kind, headless: the scene, the spawn
//! keys, dragging, turning and scaling, the closest-point lines and the
//! laser. Run with the other examples' tests (`cargo test --test examples`),
//! which include this file through the playground's `main.rs`.

use bevy::prelude::*;
use bevy_collide2d::geometry::Shape;
use bevy_collide2d::prelude::*;

use super::{Body, CursorWorld, GAP_RANGE, GOLD, Laser, PICK_TOLERANCE, gaps, headless_app};

/// The kind of a collider, by name.
fn kind(collider: &Collider) -> &'static str {
    match collider.shape() {
        Shape::Circle { .. } => "circle",
        Shape::Rect { .. } => "rect",
        Shape::Capsule { .. } => "capsule",
        Shape::Segment { .. } => "segment",
        Shape::Polygon(_) => "polygon",
        _ => "other",
    }
}

const KINDS: [&str; 5] = ["circle", "rect", "capsule", "segment", "polygon"];

/// One frame with the cursor at `cursor`, the left button held or not, and
/// `key` alone held.
fn frame(app: &mut App, cursor: Vec2, button: bool, key: Option<KeyCode>) {
    let world = app.world_mut();
    world.resource_mut::<CursorWorld>().0 = Some(cursor);
    let mut buttons = world.resource_mut::<ButtonInput<MouseButton>>();
    buttons.clear();
    if button {
        buttons.press(MouseButton::Left);
    } else {
        buttons.release(MouseButton::Left);
    }
    let mut keys = world.resource_mut::<ButtonInput<KeyCode>>();
    keys.clear();
    keys.release_all();
    if let Some(key) = key {
        keys.press(key);
    }
    app.update();
}

/// Every body: entity, collider, world shape and pose, colliding entities.
fn bodies(app: &mut App) -> Vec<(Entity, Collider, Shape, Isometry2d, Vec<Entity>)> {
    let world = app.world_mut();
    world
        .query_filtered::<(Entity, &Collider, &GlobalTransform, &CollidingEntities), With<Body>>()
        .iter(world)
        .map(|(entity, collider, transform, colliding)| {
            let (shape, pose) = collider.world_shape(transform).expect("valid");
            (
                entity,
                collider.clone(),
                shape,
                pose,
                colliding.iter().collect(),
            )
        })
        .collect()
}

/// The scene has a few shapes of every kind, and shapes of different kinds
/// touch from the start, so the first frame shows contacts between them.
#[test]
fn the_scene_has_every_kind_and_different_kinds_touch() {
    let mut app = headless_app();
    app.update();
    let bodies = bodies(&mut app);
    for name in KINDS {
        let count = bodies.iter().filter(|b| kind(&b.1) == name).count();
        assert!(count >= 2, "{count} {name}s");
    }
    let kind_of = |entity: Entity| kind(&bodies.iter().find(|b| b.0 == entity).unwrap().1);
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for (entity, collider, _, _, colliding) in &bodies {
        for &other in colliding {
            let (a, b) = (kind(collider), kind_of(other));
            if a < b && !pairs.contains(&(a, b)) {
                pairs.push((a, b));
            }
        }
        assert!(!colliding.contains(entity));
    }
    pairs.sort();
    // Every new kind touches a shape of another kind.
    for name in ["capsule", "segment", "polygon"] {
        assert!(
            pairs.iter().any(|&(a, b)| a == name || b == name),
            "{name}: {pairs:?}"
        );
    }
    assert!(pairs.len() >= 6, "{pairs:?}");
}

/// C, R, K, S and P spawn a circle, a rectangle, a capsule, a segment and a
/// polygon of 5 to 7 sides, centred on the cursor.
#[test]
fn keys_spawn_every_kind_at_the_cursor() {
    let mut app = headless_app();
    app.update();
    let keys = [
        (KeyCode::KeyC, "circle"),
        (KeyCode::KeyR, "rect"),
        (KeyCode::KeyK, "capsule"),
        (KeyCode::KeyS, "segment"),
        (KeyCode::KeyP, "polygon"),
        (KeyCode::KeyP, "polygon"),
        (KeyCode::KeyP, "polygon"),
    ];
    for (i, (key, name)) in keys.into_iter().enumerate() {
        let before: Vec<Entity> = bodies(&mut app).iter().map(|b| b.0).collect();
        let at = Vec2::new(-500.0 + 150.0 * i as f32, -350.0);
        frame(&mut app, at, false, Some(key));
        let after = bodies(&mut app);
        let new: Vec<_> = after.iter().filter(|b| !before.contains(&b.0)).collect();
        let [(_, collider, shape, pose, _)] = new[..] else {
            panic!("{key:?}: {} new bodies", new.len());
        };
        assert_eq!(kind(collider), name, "{key:?}");
        assert_eq!(pose.translation, at, "{key:?}");
        match shape {
            Shape::Polygon(polygon) => {
                let sides = polygon.vertices().len();
                assert!((5..=7).contains(&sides), "{sides} sides");
                // About its centre: the cursor is inside.
                assert!(shape.contains_point(*pose, at));
            }
            Shape::Segment { a, b } => assert_eq!(*a, -*b, "centred"),
            _ => {}
        }
    }
}

/// Each kind is picked with the mouse (a segment from a few pixels away),
/// dragged onto the diamond, where it touches it, turned with Q and
/// scaled with +.
#[test]
fn every_kind_is_dragged_turned_scaled_and_collides() {
    let mut app = headless_app();
    app.update();
    let diamond = bodies(&mut app)
        .iter()
        .find(|b| b.3.translation == Vec2::new(280.0, 60.0))
        .unwrap()
        .0;
    let spawn_at = Vec2::new(-520.0, 330.0);
    for key in [
        KeyCode::KeyC,
        KeyCode::KeyR,
        KeyCode::KeyK,
        KeyCode::KeyS,
        KeyCode::KeyP,
    ] {
        frame(&mut app, spawn_at, false, Some(key));
        let body = bodies(&mut app)
            .into_iter()
            .find(|b| b.3.translation == spawn_at)
            .unwrap();
        let (entity, collider) = (body.0, body.1.clone());
        let name = kind(&collider);
        assert!(!body.4.contains(&diamond));

        // Press just off the centre (a segment's centre is on it), then
        // drag onto the diamond's centre.
        let grab = spawn_at + Vec2::new(0.0, PICK_TOLERANCE * 0.5);
        frame(&mut app, grab, true, None);
        frame(&mut app, Vec2::new(280.0, 60.0), true, None);
        let moved = bodies(&mut app)
            .into_iter()
            .find(|b| b.0 == entity)
            .unwrap();
        assert_eq!(
            moved.3.translation,
            Vec2::new(280.0, 60.0) - (grab - spawn_at),
            "{name}"
        );
        assert!(moved.4.contains(&diamond), "{name} touches the diamond");

        // Turn and grow it (released: it stays selected).
        let at = Vec2::new(280.0, 60.0);
        for _ in 0..20 {
            frame(&mut app, at, false, Some(KeyCode::KeyQ));
        }
        for _ in 0..20 {
            frame(&mut app, at, false, Some(KeyCode::Equal));
        }
        let turned = bodies(&mut app)
            .into_iter()
            .find(|b| b.0 == entity)
            .unwrap();
        let angle = (turned.3.rotation * moved.3.rotation.inverse()).as_radians();
        assert!(angle > 0.4, "{name} turned by {angle}");
        let scaled = |shape: &Shape| match shape {
            Shape::Circle { radius } => *radius,
            Shape::Rect { half_size } => half_size.x,
            Shape::Capsule { half_length, .. } => *half_length,
            Shape::Segment { a, b } => a.distance(*b),
            Shape::Polygon(polygon) => polygon.vertices()[0].length(),
            other => panic!("the playground spawns no {other:?}"),
        };
        let grown = scaled(&turned.2) / scaled(&moved.2);
        assert!(grown > 1.3, "{name} grew {grown} times");

        // Remove it for the next kind.
        frame(&mut app, at, false, Some(KeyCode::Delete));
        assert!(app.world().get_entity(entity).is_err(), "{name}");
    }
}

/// The closest-point lines: one for each pair of shapes apart and near,
/// none for pairs that touch; each joins a point on each shape and is as
/// long as the distance reported.
#[test]
fn closest_point_lines_join_shapes_apart() {
    let mut app = headless_app();
    app.update();
    let bodies = bodies(&mut app);
    let shapes: Vec<_> = bodies
        .iter()
        .map(|(entity, _, shape, pose, _)| (*entity, shape.clone(), *pose))
        .collect();
    let gaps = gaps(&shapes, GAP_RANGE);
    assert!(gaps.len() >= 5, "{gaps:?}");
    let body = |entity: Entity| bodies.iter().find(|b| b.0 == entity).unwrap();
    let mut kinds = Vec::new();
    for gap in &gaps {
        let (a, b) = (body(gap.a), body(gap.b));
        assert!(!a.4.contains(&gap.b), "touching pair {gap:?}");
        assert!(gap.distance > 0.0 && gap.distance <= GAP_RANGE, "{gap:?}");
        assert!(
            (gap.on_a.distance(gap.on_b) - gap.distance).abs() < 1e-3,
            "{gap:?}"
        );
        // Each end is on its shape (to within a hundredth), not inside the
        // other one.
        for (end, shape, pose, other, other_pose) in [
            (gap.on_a, &a.2, a.3, &b.2, b.3),
            (gap.on_b, &b.2, b.3, &a.2, a.3),
        ] {
            let dot = Shape::Circle { radius: 0.01 };
            let at = Isometry2d::from_translation(end);
            assert!(shape.intersects(pose, &dot, at), "{gap:?}");
            assert!(!other.intersects(other_pose, &dot, at), "{gap:?}");
        }
        kinds.push((kind(&a.1), kind(&b.1)));
    }
    // The new kinds have lines too.
    for name in ["capsule", "segment", "polygon"] {
        assert!(
            kinds.iter().any(|&(a, b)| a == name || b == name),
            "{name}: {kinds:?}"
        );
    }
    // Every pair apart and within range has its line.
    for (i, (a, shape_a, pose_a)) in shapes.iter().enumerate() {
        for (b, shape_b, pose_b) in &shapes[i + 1..] {
            if let Some((_, _, distance)) = shape_a.closest_points(*pose_a, shape_b, *pose_b)
                && distance <= GAP_RANGE
            {
                assert!(
                    gaps.iter().any(|gap| gap.a == *a && gap.b == *b),
                    "{a} {b} at {distance}"
                );
            }
        }
    }
}

/// The playground without a window: dragging a shape onto another makes
/// them collide, and the laser hits the first shape along its ray.
#[test]
fn playground_drags_a_shape_into_another_and_fires_the_laser() {
    let mut app = headless_app();
    app.update();
    let body_at = |app: &mut App, at: Vec2| {
        let world = app.world_mut();
        world
            .query_filtered::<(Entity, &Transform), With<Body>>()
            .iter(world)
            .find(|(_, transform)| transform.translation.truncate() == at)
            .map(|(entity, _)| entity)
            .unwrap()
    };
    let small_circle = body_at(&mut app, Vec2::new(40.0, -120.0));
    let diamond = body_at(&mut app, Vec2::new(280.0, 60.0));
    let big_circle = body_at(&mut app, Vec2::new(150.0, 200.0));
    let touches = |app: &App, a: Entity, b: Entity| {
        app.world()
            .get::<CollidingEntities>(a)
            .unwrap()
            .contains(&b)
    };
    assert!(!touches(&app, small_circle, diamond));

    // Press on the small circle, then move the cursor onto the diamond.
    frame(&mut app, Vec2::new(40.0, -120.0), true, None);
    frame(&mut app, Vec2::new(280.0, 60.0), true, None);
    let dragged = app.world().get::<Transform>(small_circle).unwrap();
    assert_eq!(dragged.translation.truncate(), Vec2::new(280.0, 60.0));
    assert!(touches(&app, small_circle, diamond));

    // Release, remove the selected circle, then hold L with nothing
    // selected: the laser goes right from the cursor.
    frame(
        &mut app,
        Vec2::new(280.0, 60.0),
        false,
        Some(KeyCode::Delete),
    );
    assert!(app.world().get_entity(small_circle).is_err());
    frame(
        &mut app,
        Vec2::new(-500.0, 200.0),
        false,
        Some(KeyCode::KeyL),
    );
    let shot = app.world().resource::<Laser>().0.expect("L is held");
    let hit = shot.hit.expect("the laser hits the big circle");
    assert_eq!(hit.entity, big_circle);
    // The big circle (radius 60 at x = 150) is first met at x = 90.
    assert!((hit.distance - 590.0).abs() < 0.01, "{}", hit.distance);
}

/// H and G put a `DebugRender` on the selected shape: hidden, then shown
/// again; in gold, then in the overlay's colours again.
#[test]
fn keys_hide_and_colour_the_selected_shape_in_the_overlay() {
    let mut app = headless_app();
    app.update();
    let at = Vec2::new(700.0, 300.0);
    frame(&mut app, at, false, Some(KeyCode::KeyC));
    frame(&mut app, at, false, None);
    // Select it (a click on it).
    frame(&mut app, at, true, None);
    frame(&mut app, at, false, None);
    let entity = (bodies(&mut app).into_iter())
        .find(|(_, _, _, pose, _)| pose.translation.distance(at) < 1.0)
        .expect("spawned at the cursor")
        .0;
    let render = |app: &App| app.world().get::<DebugRender>(entity).copied();
    assert_eq!(render(&app), None);
    frame(&mut app, at, false, Some(KeyCode::KeyH));
    assert_eq!(render(&app), Some(DebugRender::hidden()));
    frame(&mut app, at, false, Some(KeyCode::KeyG));
    assert_eq!(
        render(&app),
        Some(DebugRender {
            color: Some(GOLD),
            hidden: true
        })
    );
    frame(&mut app, at, false, Some(KeyCode::KeyH));
    assert_eq!(render(&app), Some(DebugRender::colored(GOLD)));
    frame(&mut app, at, false, Some(KeyCode::KeyG));
    assert_eq!(render(&app), Some(DebugRender::default()));
}
