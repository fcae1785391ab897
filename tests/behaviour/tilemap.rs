//! `TilemapCollider`: solid runs become a few rectangles of one static
//! compound collider on the map's entity, where the map says; a ball rolling
//! along a floor of many tiles gets one `Started`; changing the map rebuilds
//! it, removing the map removes it; contacts say which tiles they are on;
//! bad maps build nothing without panicking.

use crate::common;

use bevy::prelude::*;
use bevy_collide2d::geometry::Shape;
use bevy_collide2d::prelude::*;
use common::*;

const LEVEL: &str = "
#..........#
#...####...#
############
";

/// The map's rectangles in the world: centre and size, bottom row first.
fn tiles(app: &mut App, map: Entity) -> Vec<(Vec2, Vec2)> {
    let entity = app.world().entity(map);
    let (Some(collider), Some(global)) =
        (entity.get::<Collider>(), entity.get::<GlobalTransform>())
    else {
        return Vec::new();
    };
    assert!(entity.contains::<StaticCollider>() && entity.contains::<TilemapTile>());
    let Shape::Compound(compound) = collider.shape() else {
        panic!("{collider:?}");
    };
    let mut found: Vec<(Vec2, Vec2)> = (compound.parts().iter())
        .map(|part| {
            let Shape::Rect { half_size } = part.shape else {
                panic!("{part:?}");
            };
            let centre = global.transform_point(part.pose.translation.extend(0.0));
            (centre.truncate(), half_size * 2.0)
        })
        .collect();
    found.sort_by(|a, b| (a.0.y, a.0.x).partial_cmp(&(b.0.y, b.0.x)).unwrap());
    found
}

#[test]
fn runs_become_few_rectangles_where_the_map_says() {
    let mut app = test_app();
    let map = app
        .world_mut()
        .spawn((
            TilemapCollider::from_ascii(Vec2::splat(10.0), LEVEL),
            Transform::from_xyz(100.0, 0.0, 0.0),
        ))
        .id();
    app.update();
    // The floor (12 tiles), the two walls (1 wide, 2 tall: stacked), the
    // block (4 wide).
    assert_eq!(
        tiles(&mut app, map),
        vec![
            (Vec2::new(160.0, 5.0), Vec2::new(120.0, 10.0)),
            (Vec2::new(160.0, 15.0), Vec2::new(40.0, 10.0)),
            (Vec2::new(105.0, 20.0), Vec2::new(10.0, 20.0)),
            (Vec2::new(215.0, 20.0), Vec2::new(10.0, 20.0)),
        ]
    );
}

#[test]
fn a_ball_rolling_along_the_floor_starts_once() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    app.world_mut().spawn(TilemapCollider::from_ascii(
        Vec2::splat(8.0),
        &format!("{}\n", "#".repeat(40)),
    ));
    let ball = spawn_at(&mut app, Collider::circle(3.0), 5.0, 10.9);
    let mut started = 0;
    for step in 0..60 {
        set_translation(&mut app, ball, 5.0 + step as f32 * 5.0, 10.9);
        app.update();
        for event in log.read(&app) {
            match event {
                CollisionEvent::Started { .. } => started += 1,
                CollisionEvent::Ended { .. } => panic!("ended at step {step}"),
            }
        }
    }
    assert_eq!(started, 1);
    assert_eq!(colliding(&app, ball).len(), 1);
}

#[test]
fn changing_the_map_rebuilds_its_tiles() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let map = app
        .world_mut()
        .spawn(TilemapCollider::from_ascii(Vec2::ONE, "##\n##"))
        .id();
    let ball = spawn_at(&mut app, Collider::circle(0.2), 0.5, 1.5);
    app.update();
    assert_eq!(tiles(&mut app, map).len(), 1);
    assert_eq!(log.read(&app).len(), 1);
    // The top row goes: the ball is in the air.
    app.world_mut()
        .entity_mut(map)
        .insert(TilemapCollider::from_cells(
            Vec2::ONE,
            UVec2::new(2, 2),
            [UVec2::new(0, 0), UVec2::new(1, 0)],
        ));
    app.update();
    assert_eq!(
        tiles(&mut app, map),
        vec![(Vec2::new(1.0, 0.5), Vec2::new(2.0, 1.0))]
    );
    assert!(matches!(log.read(&app)[..], [CollisionEvent::Ended { .. }]));
    assert!(colliding(&app, ball).is_empty());
}

/// A map changed in place (through `Mut`, not inserted again), several
/// frames after it was built, is rebuilt too.
#[test]
fn changing_the_map_in_place_rebuilds_its_tiles() {
    let mut app = test_app();
    let map = app
        .world_mut()
        .spawn(TilemapCollider::from_ascii(Vec2::ONE, "##\n##"))
        .id();
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(tiles(&mut app, map).len(), 1);
    *app.world_mut().get_mut::<TilemapCollider>(map).unwrap() =
        TilemapCollider::from_ascii(Vec2::ONE, "#.\n##");
    app.update();
    assert_eq!(tiles(&mut app, map).len(), 2);
    app.update();
    assert_eq!(
        tiles(&mut app, map).len(),
        2,
        "rebuilt again with no change"
    );
}

#[test]
fn bad_maps_spawn_nothing() {
    let mut app = test_app();
    let maps = [
        TilemapCollider::from_ascii(Vec2::ONE, ""),
        TilemapCollider::from_ascii(Vec2::ONE, "###\n#\n###"),
        TilemapCollider::from_ascii(Vec2::ZERO, "###"),
        TilemapCollider::from_ascii(Vec2::new(-1.0, 1.0), "###"),
        TilemapCollider::from_ascii(Vec2::new(f32::NAN, 1.0), "###"),
        TilemapCollider::from_cells(Vec2::ONE, UVec2::new(2, 2), [UVec2::new(5, 0)]),
    ];
    let entities: Vec<Entity> = maps
        .into_iter()
        .map(|map| app.world_mut().spawn(map).id())
        .collect();
    app.update();
    app.update();
    for map in entities {
        assert!(tiles(&mut app, map).is_empty());
    }
}

/// The map's own layers are its collider's.
#[test]
fn the_map_has_its_own_layers() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    app.world_mut().spawn((
        TilemapCollider::from_ascii(Vec2::ONE, "#"),
        CollisionLayers::new(0b10, 0b01),
    ));
    let ignored = app
        .world_mut()
        .spawn((Collider::circle(0.3), CollisionLayers::new(0b100, 0b100)))
        .id();
    let seen = app
        .world_mut()
        .spawn((Collider::circle(0.3), CollisionLayers::new(0b01, 0b10)))
        .id();
    for entity in [ignored, seen] {
        set_translation(&mut app, entity, 0.5, 0.5);
    }
    app.update();
    assert_eq!(log.read(&app).len(), 1);
    assert!(colliding(&app, ignored).is_empty());
    assert_eq!(colliding(&app, seen).len(), 1);
}

/// A contact names the map's part it is on, and the part its tiles.
#[test]
fn contacts_say_which_tiles_they_are_on() {
    let mut app = test_app();
    let tilemap = TilemapCollider::from_ascii(Vec2::splat(10.0), LEVEL);
    let map = app
        .world_mut()
        .spawn((tilemap.clone(), Transform::from_xyz(100.0, 0.0, 0.0)))
        .id();
    // On the block (4 wide, second row), in world space.
    let ball = spawn_at(&mut app, Collider::circle(3.0), 160.0, 22.0);
    app.update();
    let collisions = app.world().resource::<Collisions>();
    let part = collisions.parts(map, ball).and_then(|parts| parts.a());
    let cells = tilemap.part_cells(part.expect("on the map"));
    assert_eq!(
        cells,
        Some(URect::new(4, 1, 8, 2)),
        "the block: columns 4 to 7 of row 1"
    );
    assert_eq!(
        tilemap.cell_at(Vec2::new(55.0, 15.0)),
        Some(UVec2::new(5, 1))
    );
    assert_eq!(tilemap.cell_at(Vec2::new(-1.0, 15.0)), None);
    assert_eq!(
        tilemap.cell_at(Vec2::new(119.0, 29.0)),
        Some(UVec2::new(11, 2))
    );
    assert_eq!(tilemap.cell_at(Vec2::new(120.0, 5.0)), None);
}

/// Removing the map removes its collider; despawning it ends its contacts.
#[test]
fn removing_the_map_removes_its_collider() {
    let mut app = test_app();
    let mut log = MessageLog::default();
    let map = app
        .world_mut()
        .spawn(TilemapCollider::from_ascii(Vec2::ONE, "##"))
        .id();
    let ball = spawn_at(&mut app, Collider::circle(0.3), 0.5, 0.5);
    app.update();
    assert_eq!(log.read(&app).len(), 1);
    app.world_mut().entity_mut(map).remove::<TilemapCollider>();
    app.update();
    assert!(tiles(&mut app, map).is_empty());
    assert!(app.world().get::<Collider>(map).is_none());
    assert!(matches!(log.read(&app)[..], [CollisionEvent::Ended { .. }]));
    assert!(colliding(&app, ball).is_empty());
    let other = app
        .world_mut()
        .spawn(TilemapCollider::from_ascii(Vec2::ONE, "##"))
        .id();
    app.update();
    assert_eq!(log.read(&app).len(), 1);
    app.world_mut().despawn(other);
    app.update();
    assert!(matches!(log.read(&app)[..], [CollisionEvent::Ended { .. }]));
}

/// Several kinds of solid tile in one map: `'#'` on the map, spikes on a
/// child of their own with their own layers; a contact tells which kind by
/// the entity, and which tiles by its part. Changing the map rebuilds the
/// kinds; removing it removes them.
#[test]
fn kinds_of_tile_have_their_own_colliders_and_layers() {
    const HAZARD: u32 = 0b10;
    let mut app = test_app();
    let mut log = MessageLog::default();
    let rows = "
#......#
#..^^..#
########
";
    let tilemap = TilemapCollider::from_ascii_with_kinds(
        Vec2::splat(10.0),
        rows,
        [('^', CollisionLayers::new(HAZARD, HAZARD))],
    );
    let map = app.world_mut().spawn(tilemap.clone()).id();
    // A ball over the spikes that only hazards see, and one on the floor.
    let feet = app
        .world_mut()
        .spawn((Collider::circle(2.0), CollisionLayers::new(HAZARD, HAZARD)))
        .id();
    set_translation(&mut app, feet, 40.0, 21.0);
    let ball = spawn_at(&mut app, Collider::circle(2.0), 15.0, 11.0);
    app.update();
    let spikes = colliding(&app, feet);
    assert_eq!(spikes.len(), 1);
    assert_eq!(
        app.world().get::<TilemapKind>(spikes[0]),
        Some(&TilemapKind('^'))
    );
    assert_eq!(app.world().get::<ChildOf>(spikes[0]).unwrap().parent(), map);
    assert_eq!(colliding(&app, ball), [map]);
    assert_eq!(app.world().get::<TilemapKind>(map), Some(&TilemapKind('#')));
    let part = (app.world().resource::<Collisions>())
        .parts(spikes[0], feet)
        .and_then(|parts| parts.a())
        .unwrap();
    assert_eq!(
        tilemap.kind_rects('^')[part as usize],
        URect::new(3, 1, 5, 2)
    );
    assert_eq!(log.read(&app).len(), 2);
    // The spikes go: their child goes, and its contact ends.
    app.world_mut()
        .entity_mut(map)
        .insert(TilemapCollider::from_ascii(Vec2::splat(10.0), rows));
    app.update();
    assert!(app.world().get_entity(spikes[0]).is_err());
    assert!(colliding(&app, feet).is_empty());
    assert_eq!(colliding(&app, ball), [map]);
    // Spikes again, then the whole map goes.
    app.world_mut().entity_mut(map).insert(tilemap);
    app.update();
    let spikes = colliding(&app, feet);
    assert_eq!(spikes.len(), 1);
    app.world_mut().entity_mut(map).remove::<TilemapCollider>();
    app.update();
    assert!(app.world().get_entity(spikes[0]).is_err());
    assert!(colliding(&app, feet).is_empty() && colliding(&app, ball).is_empty());
}

#[derive(Component)]
struct Drift(Vec2, f32);

/// Colliders of every kind drifting and turning over a big map for many
/// frames: each contact with the map is exactly the contact of the part
/// `Collisions::parts` names, that part is the deepest (the lowest index
/// among equally deep ones), and no touching part is missed, frame after
/// frame, whether a collider's neighbourhood of the map's parts is kept or
/// gathered again.
#[test]
fn contacts_with_a_big_map_are_its_deepest_parts_frame_after_frame() {
    use rand::{Rng, SeedableRng, rngs::StdRng};
    let mut rng = StdRng::seed_from_u64(47);
    let rows: String = (0..60)
        .map(|_| {
            (0..60)
                .map(|_| if rng.random_bool(0.35) { '#' } else { '.' })
                .collect::<String>()
                + "\n"
        })
        .collect();
    let mut app = test_app();
    app.add_systems(Update, |mut drifting: Query<(&mut Transform, &Drift)>| {
        for (mut transform, drift) in &mut drifting {
            transform.translation += drift.0.extend(0.0);
            transform.rotate_z(drift.1);
        }
    });
    let map = app
        .world_mut()
        .spawn((
            TilemapCollider::from_ascii(Vec2::splat(8.0), &rows),
            Transform::from_xyz(-10.0, 5.0, 0.0).with_rotation(Quat::from_rotation_z(0.1)),
        ))
        .id();
    for k in 0..150 {
        let collider = match k % 5 {
            0 => Collider::circle(rng.random_range(1.0..7.0)),
            1 => Collider::rect(rng.random_range(2.0..14.0), rng.random_range(2.0..14.0)),
            2 => Collider::capsule(rng.random_range(1.0..4.0), rng.random_range(0.0..8.0)),
            3 => Collider::segment(Vec2::new(-5.0, 1.0), Vec2::new(4.0, -2.0)),
            _ => Collider::compound([
                (Isometry2d::from_xy(-3.0, 0.0), Collider::circle(2.0)),
                (Isometry2d::from_xy(3.0, 1.0), Collider::rect(4.0, 3.0)),
            ]),
        };
        let at = Vec2::new(rng.random_range(0.0..450.0), rng.random_range(0.0..450.0));
        let drift = Vec2::from_angle(rng.random_range(0.0..6.3)) * rng.random_range(0.0..3.0);
        app.world_mut().spawn((
            collider,
            Transform::from_translation(at.extend(0.0)),
            Drift(drift, rng.random_range(-0.05..0.05)),
        ));
    }
    let (mut compared, mut touching) = (0, 0);
    for frame in 0..120 {
        app.update();
        let world = app.world_mut();
        let (map_shape, map_pose) = {
            let entity = world.entity(map);
            let collider = entity.get::<Collider>().unwrap();
            collider
                .world_shape(entity.get::<GlobalTransform>().unwrap())
                .unwrap()
        };
        let Shape::Compound(compound) = &map_shape else {
            panic!()
        };
        let mut movers = world
            .query_filtered::<(Entity, &Collider, &GlobalTransform), Without<StaticCollider>>();
        let movers: Vec<(Entity, Shape, Isometry2d)> = movers
            .iter(world)
            .filter_map(|(entity, collider, global)| {
                let (shape, pose) = collider.world_shape(global).ok()?;
                Some((entity, shape, pose))
            })
            .collect();
        let collisions = world.resource::<Collisions>();
        for (mover, shape, pose) in movers {
            // Every part's contact, seen from the pair's first entity.
            let map_first = map < mover;
            let contacts: Vec<(u32, Contact)> = (compound.parts().iter().enumerate())
                .filter_map(|(i, part)| {
                    let part_pose = map_pose * part.pose;
                    let contact = if map_first {
                        part.shape.contact(part_pose, &shape, pose)?
                    } else {
                        shape.contact(pose, &part.shape, part_pose)?
                    };
                    Some((i as u32, contact))
                })
                .collect();
            compared += 1;
            let found = collisions.get(map, mover);
            let Some(deepest) = contacts.iter().map(|(_, c)| c.depth).reduce(f32::max) else {
                assert!(
                    found.is_none(),
                    "frame {frame}: {mover} has {found:?}, no part touches"
                );
                continue;
            };
            touching += 1;
            let parts = collisions.parts(map, mover).expect("parts");
            let named = parts.a().expect("the map's part");
            let seen = collisions
                .contacts_of(map)
                .find(|(e, _)| *e == mover)
                .unwrap()
                .1;
            let seen = if map_first { seen } else { seen.flipped() };
            let (_, expected) = contacts
                .iter()
                .find(|(i, _)| *i == named)
                .expect("touching");
            let what = format!("frame {frame}: {mover} on part {named}: {seen:?}");
            assert_eq!(seen.depth, deepest, "{what}: not the deepest");
            if !matches!(shape, Shape::Compound(_)) {
                // The lowest of equally deep parts, its contact to the bit.
                let lowest = contacts.iter().find(|(_, c)| c.depth == deepest).unwrap().0;
                assert_eq!(named, lowest, "{what}");
                assert_eq!(seen, *expected, "{what}");
            }
        }
    }
    assert!(
        compared > 10_000 && touching > 3_000,
        "{compared} {touching}"
    );
}
