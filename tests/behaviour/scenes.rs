//! Colliders of every kind saved in a Bevy scene (a `DynamicWorld` in RON)
//! and loaded back (the `serialize` feature).

use std::any::TypeId;

use bevy::asset::{AssetPath, LoadFromPath, UntypedHandle};
use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use bevy::world_serialization::DynamicWorldBuilder;
use bevy::world_serialization::serde::WorldDeserializer;
use bevy_collide2d::geometry::Shape;
use bevy_collide2d::prelude::*;
use serde::de::DeserializeSeed;

/// Scenes of colliders hold no asset handles.
struct NoAssets;

impl LoadFromPath for NoAssets {
    fn load_from_path_erased(&mut self, _: TypeId, path: AssetPath<'static>) -> UntypedHandle {
        panic!("a collider scene loaded an asset: {path}")
    }
}

fn new_app() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()));
    app
}

fn square(centre: Vec2, half: f32) -> [Vec2; 4] {
    [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .map(|(x, y)| centre + Vec2::new(x, y) * half)
}

/// One collider of each kind, with the components a game saves with them.
fn colliders() -> Vec<Collider> {
    let v = Vec2::new;
    vec![
        Collider::circle(3.0),
        Collider::rect(4.0, 2.0),
        Collider::capsule(1.0, 5.0),
        Collider::segment(v(-3.0, 0.0), v(2.0, 1.0)),
        Collider::convex_polygon(&[v(0.0, 0.0), v(4.0, 0.0), v(1.0, 3.0)]).unwrap(),
        Collider::concave_polygon(&[
            v(0.0, 0.0),
            v(6.0, 0.0),
            v(6.0, 6.0),
            v(3.0, 2.0),
            v(0.0, 6.0),
        ])
        .unwrap(),
        Collider::polyline(&[v(-10.0, 0.0), v(0.0, 2.0), v(10.0, 0.0)]).unwrap(),
        Collider::heightfield(&[0.0, 1.5, 0.5, 2.0], v(30.0, 4.0)).unwrap(),
        Collider::polygon_with_holes(&square(Vec2::ZERO, 10.0), [square(v(2.0, 1.0), 3.0)])
            .unwrap(),
        Collider::compound([
            (Isometry2d::from_xy(1.0, 2.0), Collider::circle(1.0)),
            (
                Isometry2d::new(v(-2.0, 0.5), Rot2::radians(0.3)),
                Collider::convex_polygon(&[v(0.0, 0.0), v(2.0, 0.0), v(0.0, 2.0)]).unwrap(),
            ),
        ]),
    ]
}

#[test]
fn colliders_of_every_kind_round_trip_through_a_scene_in_ron() {
    let mut app = new_app();
    let layers = CollisionLayers::new(0b101, 0b110);
    let mut spawned: Vec<Entity> = colliders()
        .into_iter()
        .enumerate()
        .map(|(i, collider)| {
            let at = Transform::from_xyz(i as f32 * 40.0, 0.0, 0.0);
            app.world_mut().spawn((collider, at, layers)).id()
        })
        .collect();
    spawned.push(
        app.world_mut()
            .spawn((
                Collider::circle(2.0),
                Swept,
                StaticCollider,
                ColliderDisabled,
                CollisionBody,
            ))
            .id(),
    );
    spawned.push(
        app.world_mut()
            .spawn((
                Collider::rect(50.0, 2.0),
                OneWayPlatform { normal: Dir2::X },
            ))
            .id(),
    );
    let map = TilemapCollider::from_ascii_with_kinds(
        Vec2::splat(8.0),
        "#..^\n.....\n####.",
        [('^', CollisionLayers::new(0b10, u32::MAX))],
    );
    let ragged_map = map.clone();
    spawned.push(app.world_mut().spawn(map).id());
    let map = TilemapCollider::from_ascii_with_kinds(
        Vec2::splat(8.0),
        "#..^.\n.....\n####.",
        [('^', CollisionLayers::new(0b10, u32::MAX))],
    );
    spawned.push(app.world_mut().spawn(map).id());
    app.update();

    let registry = app.world().resource::<AppTypeRegistry>().clone();
    let registry = registry.read();
    let scene = DynamicWorldBuilder::from_world(app.world(), &registry)
        .deny_all()
        .allow_component::<Collider>()
        .allow_component::<CollisionLayers>()
        .allow_component::<Swept>()
        .allow_component::<StaticCollider>()
        .allow_component::<ColliderDisabled>()
        .allow_component::<CollisionBody>()
        .allow_component::<OneWayPlatform>()
        .allow_component::<TilemapCollider>()
        .allow_component::<Transform>()
        .extract_entities(spawned.iter().copied())
        .build();
    let ron = scene.serialize(&registry).expect("the scene serializes");
    assert!(ron.contains("Heightfield"), "{ron}");
    assert!(
        ron.contains("\"#..^.\""),
        "a map's rows are saved as text: {ron}"
    );

    let mut deserializer = ron::de::Deserializer::from_str(&ron).unwrap();
    let loaded = WorldDeserializer {
        type_registry: &registry,
        load_from_path: &mut NoAssets,
    }
    .deserialize(&mut deserializer)
    .expect("the scene loads");

    let mut other = new_app();
    let mut entity_map = EntityHashMap::default();
    loaded
        .write_to_world_with(other.world_mut(), &mut entity_map, &registry)
        .unwrap();
    other.update();
    for &entity in &spawned {
        let copy = entity_map[&entity];
        let (source, target) = (app.world().entity(entity), other.world().entity(copy));
        assert_eq!(source.get::<Collider>(), target.get::<Collider>());
        assert_eq!(
            source.get::<CollisionLayers>(),
            target.get::<CollisionLayers>()
        );
        assert_eq!(
            source.get::<TilemapCollider>(),
            target.get::<TilemapCollider>()
        );
        assert_eq!(
            source.get::<OneWayPlatform>(),
            target.get::<OneWayPlatform>()
        );
        for (has_source, has_target) in [
            (source.contains::<Swept>(), target.contains::<Swept>()),
            (
                source.contains::<StaticCollider>(),
                target.contains::<StaticCollider>(),
            ),
            (
                source.contains::<ColliderDisabled>(),
                target.contains::<ColliderDisabled>(),
            ),
            (
                source.contains::<CollisionBody>(),
                target.contains::<CollisionBody>(),
            ),
        ] {
            assert_eq!(has_source, has_target);
        }
    }
    // A loaded map builds its colliders as the original did.
    let ragged = entity_map[&spawned[spawned.len() - 2]];
    let ragged = other.world().get::<TilemapCollider>(ragged).unwrap();
    assert_eq!(ragged.error(), ragged_map.error());
    assert!(ragged.error().is_some());
    let map = entity_map[spawned.last().unwrap()];
    assert!(other.world().get::<Collider>(map).is_some());
    // A heightfield is loaded as a heightfield, not only as its polyline.
    let heightfield = entity_map[&spawned[7]];
    let collider = other.world().get::<Collider>(heightfield).unwrap();
    let Shape::Compound(terrain) = collider.shape() else {
        panic!("a heightfield is a compound")
    };
    assert_eq!(
        terrain.heightfield_samples(),
        Some((&[0.0, 1.5, 0.5, 2.0][..], Vec2::new(30.0, 4.0)))
    );
}

#[test]
fn a_saved_shape_that_is_not_valid_fails_to_load_with_a_message() {
    // A polygon of points on one line.
    let error = ron::from_str::<Collider>("(shape: Polygon([(0.0, 0.0), (1.0, 1.0), (2.0, 2.0)]))")
        .unwrap_err();
    assert!(error.to_string().contains("3 points"), "{error}");
    // A polyline of one point.
    let error = ron::from_str::<Collider>("(shape: Compound(Polyline([(1.0, 1.0)])))").unwrap_err();
    assert!(error.to_string().contains("part"), "{error}");
    // A saved collider of each kind reads back as it was.
    for collider in colliders() {
        let text = ron::to_string(&collider).unwrap();
        assert_eq!(
            ron::from_str::<Collider>(&text).unwrap(),
            collider,
            "{text}"
        );
    }
    let layers = CollisionLayers::new(3, 9);
    let text = ron::to_string(&layers).unwrap();
    assert_eq!(ron::from_str::<CollisionLayers>(&text).unwrap(), layers);
}
