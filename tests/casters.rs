//! `RayCaster` and `ShapeCaster`: casts that live on an entity, cast again
//! after every detection into `RayHits` and `ShapeHits`. They follow the
//! entity's transform and its parents' (rotation and scale included),
//! see what their filter lets through but not their own entity or body,
//! keep the nearest hits up to their count, forget despawned and disabled
//! targets, read shapes solid or hollow, and warn once about bad input.

mod common;

use std::f32::consts::{FRAC_PI_2, PI};
use std::sync::Mutex;

use bevy::ecs::entity::EntityHashMap;
use bevy::ecs::entity_disabling::Disabled;
use bevy::log::tracing::{self, Event, Level, Subscriber, field::Field, field::Visit};
use bevy::log::tracing_subscriber::{self, Layer, layer::Context, layer::SubscriberExt};
use bevy::prelude::*;
use bevy::reflect::GetPath;
use bevy_collide2d::prelude::*;
use common::*;

fn ray_hits(app: &App, caster: Entity) -> Vec<RayHit> {
    app.world()
        .get::<RayHits>(caster)
        .unwrap()
        .as_slice()
        .to_vec()
}

fn shape_hits(app: &App, caster: Entity) -> Vec<ShapeHit> {
    app.world()
        .get::<ShapeHits>(caster)
        .unwrap()
        .as_slice()
        .to_vec()
}

fn entities<'a>(hits: impl IntoIterator<Item = &'a RayHit>) -> Vec<Entity> {
    hits.into_iter().map(|hit| hit.entity).collect()
}

fn assert_near(actual: Vec2, expected: Vec2) {
    assert!(actual.abs_diff_eq(expected, 1e-3), "{actual} != {expected}");
}

/// A tall wall whose left face is at `x` (10 wide, 1000 high).
fn wall_at(app: &mut App, x: f32) -> Entity {
    spawn_at(app, Collider::rect(10.0, 1000.0), x + 5.0, 0.0)
}

/// The caster's ray follows its transform: moved, turned, scaled (the
/// origin scaled as a point of the entity, the direction turned by the
/// scale's signs and proportions), mirrored, and as a child of a moved,
/// turned parent, in the frame it moved.
#[test]
fn ray_hits_follow_the_transform_and_the_parent() {
    let mut app = test_app();
    let right = wall_at(&mut app, 100.0);
    let left = wall_at(&mut app, -110.0); // right face at -100
    let caster = app
        .world_mut()
        .spawn((
            RayCaster::new(Vec2::new(10.0, 0.0), Dir2::X),
            Transform::default(),
        ))
        .id();
    app.update();
    let hits = ray_hits(&app, caster);
    assert_eq!(entities(&hits), [right]);
    assert_eq!(hits[0].distance, 90.0);
    assert_eq!(
        (hits[0].point, hits[0].normal),
        (Vec2::new(100.0, 0.0), Dir2::NEG_X)
    );
    let ray = app.world().get::<RayHits>(caster).unwrap().ray().unwrap();
    assert_eq!((ray.origin, ray.direction), (Vec2::new(10.0, 0.0), Dir2::X));

    // Moved: the hit moves with it, in the same frame.
    set_translation(&mut app, caster, 30.0, 5.0);
    app.update();
    let hits = ray_hits(&app, caster);
    assert_eq!(hits[0].distance, 60.0);
    assert_eq!(hits[0].point, Vec2::new(100.0, 5.0));

    // Turned half a turn: the origin and the direction turn with it.
    let turned = Transform::from_xyz(0.0, 0.0, 0.0).with_rotation(Quat::from_rotation_z(PI));
    *app.world_mut().get_mut::<Transform>(caster).unwrap() = turned;
    app.update();
    let hits = ray_hits(&app, caster);
    assert_eq!(entities(&hits), [left]);
    assert!((hits[0].distance - 90.0).abs() < 1e-3, "{hits:?}");

    // Scaled by 2: the origin is twice as far out; the range is not scaled.
    let scaled = Transform::from_scale(Vec3::new(2.0, 2.0, 1.0));
    *app.world_mut().get_mut::<Transform>(caster).unwrap() = scaled;
    app.update();
    assert_eq!(ray_hits(&app, caster)[0].distance, 80.0);
    // Mirrored by a negative x scale: it looks the other way.
    let mirrored = Transform::from_scale(Vec3::new(-1.0, 1.0, 1.0));
    *app.world_mut().get_mut::<Transform>(caster).unwrap() = mirrored;
    app.update();
    let hits = ray_hits(&app, caster);
    assert_eq!(entities(&hits), [left]);
    assert_eq!(hits[0].distance, 90.0);
    // A direction (1, 1) on an entity stretched by (1, 2) points along
    // (1, 2): it hits the right wall 200 up.
    let stretched = Transform::from_scale(Vec3::new(1.0, 2.0, 1.0));
    *app.world_mut().get_mut::<Transform>(caster).unwrap() = stretched;
    app.world_mut()
        .get_mut::<RayCaster>(caster)
        .unwrap()
        .direction = Dir2::new(Vec2::ONE).unwrap();
    app.update();
    let hits = ray_hits(&app, caster);
    assert_near(hits[0].point, Vec2::new(100.0, 180.0));

    // A child of a moved, turned, scaled parent: placed as a point of the
    // child is.
    let parent = app
        .world_mut()
        .spawn(
            Transform::from_xyz(0.0, 50.0, 0.0)
                .with_rotation(Quat::from_rotation_z(FRAC_PI_2))
                .with_scale(Vec3::splat(2.0)),
        )
        .id();
    let child = app
        .world_mut()
        .spawn((
            // Down in the child's space: towards +x once the parent turns.
            RayCaster::new(Vec2::new(0.0, -5.0), Dir2::NEG_Y),
            Transform::from_xyz(0.0, 0.0, 0.0),
            ChildOf(parent),
        ))
        .id();
    app.update();
    let hits = ray_hits(&app, child);
    assert_eq!(entities(&hits), [right]);
    assert_near(hits[0].point, Vec2::new(100.0, 50.0));
    assert!((hits[0].distance - 90.0).abs() < 1e-3, "{hits:?}");
    // The parent moves and turns back: the child's ray follows.
    let mut transform = app.world_mut().get_mut::<Transform>(parent).unwrap();
    transform.translation.y = -20.0;
    transform.rotation = Quat::from_rotation_z(-FRAC_PI_2);
    app.update();
    let hits = ray_hits(&app, child);
    assert_eq!(entities(&hits), [left]);
    assert_near(hits[0].point, Vec2::new(-100.0, -20.0));
}

/// Layers, excluded entities and a predicate select what the caster sees.
#[test]
fn the_filter_selects_what_the_caster_sees() {
    const GLASS: u32 = 1 << 2;
    let mut app = test_app();
    let glass = wall_at(&mut app, 20.0);
    app.world_mut()
        .entity_mut(glass)
        .insert(CollisionLayers::new(GLASS, u32::MAX));
    let near = wall_at(&mut app, 40.0);
    let far = wall_at(&mut app, 60.0);
    let caster = |filter: QueryFilter| {
        (
            RayCaster::new(Vec2::ZERO, Dir2::X).with_filter(filter),
            Transform::default(),
        )
    };
    let everything = app.world_mut().spawn(caster(QueryFilter::default())).id();
    let no_glass = app
        .world_mut()
        .spawn(caster(
            QueryFilter::default().with_layers(CollisionLayers::new(u32::MAX, !GLASS)),
        ))
        .id();
    let excluded = app
        .world_mut()
        .spawn(caster(QueryFilter::default().with_excluded([glass, near])))
        .id();
    let predicate = app
        .world_mut()
        .spawn(caster(
            QueryFilter::default().with_predicate(move |e| e == far),
        ))
        .id();
    app.update();
    assert_eq!(entities(&ray_hits(&app, everything)), [glass]);
    assert_eq!(entities(&ray_hits(&app, no_glass)), [near]);
    assert_eq!(entities(&ray_hits(&app, excluded)), [far]);
    assert_eq!(entities(&ray_hits(&app, predicate)), [far]);
}

/// Up to `max_hits` hits, nearest first; none for 0; fewer when there are
/// fewer; the range cuts them off.
#[test]
fn max_hits_keeps_the_nearest_in_order() {
    let mut app = test_app();
    let walls: Vec<Entity> = (1..=5)
        .map(|i| wall_at(&mut app, 20.0 * i as f32))
        .collect();
    let caster = |max_hits: usize, max_distance: f32| {
        (
            RayCaster::new(Vec2::ZERO, Dir2::X)
                .with_max_hits(max_hits)
                .with_max_distance(max_distance),
            Transform::default(),
        )
    };
    let casters: Vec<Entity> = [(0, 1e3), (1, 1e3), (3, 1e3), (10, 1e3), (10, 65.0)]
        .into_iter()
        .map(|(hits, max)| app.world_mut().spawn(caster(hits, max)).id())
        .collect();
    app.update();
    let found: Vec<Vec<Entity>> = casters
        .iter()
        .map(|&c| entities(&ray_hits(&app, c)))
        .collect();
    assert_eq!(found[0], []);
    assert_eq!(found[1], walls[..1]);
    assert_eq!(found[2], walls[..3]);
    assert_eq!(found[3], walls);
    assert_eq!(found[4], walls[..3]);
    let distances: Vec<f32> = ray_hits(&app, casters[3])
        .iter()
        .map(|h| h.distance)
        .collect();
    assert_eq!(distances, [20.0, 40.0, 60.0, 80.0, 100.0]);
}

/// The caster's own collider is left out, and when it is part of a body,
/// every collider of that body (not those of a body below it); with
/// `ignore_self` off, they are hit like any other.
#[test]
fn its_own_entity_and_body_are_left_out() {
    let mut app = test_app();
    let wall = wall_at(&mut app, 100.0);
    // A caster inside its own collider: not hit by its own ray.
    let own = app
        .world_mut()
        .spawn((
            Collider::circle(20.0),
            RayCaster::new(Vec2::ZERO, Dir2::X),
            Transform::default(),
        ))
        .id();
    let not_ignoring = app
        .world_mut()
        .spawn((
            Collider::circle(20.0),
            RayCaster::new(Vec2::ZERO, Dir2::X).with_ignore_self(false),
            Transform::from_xyz(0.0, 300.0, 0.0),
        ))
        .id();
    // A body with two colliders and a probe child of its own; below it, a
    // nested body (a shield) in the probe's way.
    let body = app
        .world_mut()
        .spawn((
            CollisionBody,
            Collider::rect(20.0, 20.0),
            Transform::from_xyz(0.0, -300.0, 0.0),
        ))
        .id();
    let arm = app
        .world_mut()
        .spawn((
            Collider::rect(10.0, 4.0),
            Transform::from_xyz(20.0, 0.0, 0.0),
            ChildOf(body),
        ))
        .id();
    let probe = app
        .world_mut()
        .spawn((
            RayCaster::new(Vec2::ZERO, Dir2::X).with_max_hits(10),
            Transform::default(),
            ChildOf(arm),
        ))
        .id();
    let shield = app
        .world_mut()
        .spawn((
            CollisionBody,
            Collider::rect(4.0, 40.0),
            Transform::from_xyz(40.0, 0.0, 0.0),
            ChildOf(body),
        ))
        .id();
    app.update();
    assert_eq!(entities(&ray_hits(&app, own)), [wall]);
    let hits = ray_hits(&app, not_ignoring);
    assert_eq!(entities(&hits), [not_ignoring]);
    assert_eq!(hits[0].distance, 0.0);
    assert_eq!(entities(&ray_hits(&app, probe)), [shield, wall]);
    // Off: the body's colliders the ray starts in or meets are hit too.
    app.world_mut()
        .get_mut::<RayCaster>(probe)
        .unwrap()
        .ignore_self = false;
    app.update();
    assert_eq!(entities(&ray_hits(&app, probe)), [arm, shield, wall]);
}

/// A despawned target is forgotten in the frame it goes; a disabled one
/// (`ColliderDisabled` or Bevy's `Disabled`) while it is; a disabled
/// caster has no hits.
#[test]
fn despawned_and_disabled_targets_are_not_hit() {
    let mut app = test_app();
    let near = wall_at(&mut app, 20.0);
    let far = wall_at(&mut app, 40.0);
    let caster = app
        .world_mut()
        .spawn((RayCaster::new(Vec2::ZERO, Dir2::X), Transform::default()))
        .id();
    app.update();
    assert_eq!(entities(&ray_hits(&app, caster)), [near]);
    app.world_mut().despawn(near);
    app.update();
    assert_eq!(entities(&ray_hits(&app, caster)), [far]);
    app.world_mut().entity_mut(far).insert(ColliderDisabled);
    app.update();
    assert!(ray_hits(&app, caster).is_empty());
    app.world_mut().entity_mut(far).remove::<ColliderDisabled>();
    app.update();
    assert_eq!(entities(&ray_hits(&app, caster)), [far]);
    app.world_mut().entity_mut(far).insert(Disabled);
    app.update();
    assert!(ray_hits(&app, caster).is_empty());
    app.world_mut().entity_mut(far).remove::<Disabled>();
    app.update();
    assert_eq!(entities(&ray_hits(&app, caster)), [far]);
    app.world_mut()
        .get_mut::<RayCaster>(caster)
        .unwrap()
        .enabled = false;
    app.update();
    let hits = app.world().get::<RayHits>(caster).unwrap();
    assert!(hits.is_empty() && hits.ray().is_none());
}

/// Solid (the default): a ray starting inside a collider hits it at 0.
/// Hollow: where it leaves, with the outward normal there; and whatever
/// stands before that.
#[test]
fn solid_and_hollow_rays() {
    let mut app = test_app();
    let room = spawn_at(&mut app, Collider::circle(50.0), 0.0, 0.0);
    let crate_ = spawn_at(&mut app, Collider::rect(4.0, 4.0), 0.0, 30.0);
    let solid = app
        .world_mut()
        .spawn((RayCaster::new(Vec2::ZERO, Dir2::X), Transform::default()))
        .id();
    let hollow = app
        .world_mut()
        .spawn((
            RayCaster::new(Vec2::ZERO, Dir2::X)
                .with_solid(false)
                .with_max_hits(5),
            Transform::default(),
        ))
        .id();
    let hollow_up = app
        .world_mut()
        .spawn((
            RayCaster::new(Vec2::ZERO, Dir2::Y)
                .with_solid(false)
                .with_max_hits(5),
            Transform::default(),
        ))
        .id();
    app.update();
    let hits = ray_hits(&app, solid);
    assert_eq!((hits[0].entity, hits[0].distance), (room, 0.0));
    let hits = ray_hits(&app, hollow);
    assert_eq!(entities(&hits), [room]);
    assert_eq!((hits[0].distance, hits[0].normal), (50.0, Dir2::X));
    let hits = ray_hits(&app, hollow_up);
    assert_eq!(entities(&hits), [crate_, room]);
    assert_eq!(hits[0].distance, 28.0);
    assert_eq!((hits[1].distance, hits[1].normal), (50.0, Dir2::Y));
}

/// A shape caster's shape is placed, turned and scaled as a collider on a
/// child at its origin would be; it keeps up to `max_hits` hits, each
/// where the shape first touches that collider; with
/// `ignore_origin_penetration`, what it starts in and moves out of is left
/// out, not what it moves into.
#[test]
fn shape_casters_follow_the_transform_and_keep_their_hits() {
    let mut app = test_app();
    let walls: Vec<Entity> = (1..=3)
        .map(|i| wall_at(&mut app, 50.0 * i as f32))
        .collect();
    let caster = app
        .world_mut()
        .spawn((
            ShapeCaster::new(Collider::rect(10.0, 2.0), Vec2::new(0.0, 5.0), Dir2::X)
                .with_max_hits(2),
            Transform::default(),
        ))
        .id();
    app.update();
    let hits = shape_hits(&app, caster);
    assert_eq!(
        hits.iter().map(|h| h.entity).collect::<Vec<_>>(),
        walls[..2]
    );
    assert_eq!((hits[0].distance, hits[1].distance), (45.0, 95.0));
    assert_eq!(hits[0].normal, Dir2::NEG_X);
    let cast = app.world().get::<ShapeHits>(caster).unwrap();
    assert_eq!(cast.start().unwrap().translation, Vec2::new(0.0, 5.0));
    assert_eq!(cast.direction(), Some(Dir2::X));

    // Scaled by 2: the box is 20 by 4, its origin twice as far out.
    *app.world_mut().get_mut::<Transform>(caster).unwrap() =
        Transform::from_scale(Vec3::splat(2.0));
    app.update();
    let hits = shape_hits(&app, caster);
    assert_eq!(hits[0].distance, 40.0);
    assert_eq!(
        app.world()
            .get::<ShapeHits>(caster)
            .unwrap()
            .start()
            .unwrap()
            .translation,
        Vec2::new(0.0, 10.0)
    );
    // Turned a quarter: the box stands up (2 wide, 10 high) and casts up;
    // turned back by the shape's own rotation it lies down again.
    let turned = Transform::from_rotation(Quat::from_rotation_z(-FRAC_PI_2));
    *app.world_mut().get_mut::<Transform>(caster).unwrap() = turned;
    {
        let mut shape_caster = app.world_mut().get_mut::<ShapeCaster>(caster).unwrap();
        shape_caster.origin = Vec2::ZERO;
        shape_caster.direction = Dir2::Y; // along world +x once turned
    }
    app.update();
    let hits = shape_hits(&app, caster);
    assert!((hits[0].distance - 49.0).abs() < 1e-3, "{hits:?}");
    app.world_mut()
        .get_mut::<ShapeCaster>(caster)
        .unwrap()
        .shape_rotation = Rot2::degrees(90.0);
    app.update();
    let hits = shape_hits(&app, caster);
    assert!((hits[0].distance - 45.0).abs() < 1e-3, "{hits:?}");

    // Starting inside the first wall (50..60), in its right half: hit at 0,
    // unless it ignores what it starts in and moves out of.
    *app.world_mut().get_mut::<Transform>(caster).unwrap() = Transform::from_xyz(58.0, 0.0, 0.0);
    {
        let mut shape_caster = app.world_mut().get_mut::<ShapeCaster>(caster).unwrap();
        shape_caster.shape_rotation = Rot2::IDENTITY;
        shape_caster.direction = Dir2::X;
        shape_caster.max_hits = 1;
    }
    app.update();
    assert_eq!(shape_hits(&app, caster)[0].distance, 0.0);
    app.world_mut()
        .get_mut::<ShapeCaster>(caster)
        .unwrap()
        .ignore_origin_penetration = true;
    app.update();
    let hits = shape_hits(&app, caster);
    assert_eq!(hits[0].entity, walls[1], "{hits:?}");
    assert!((hits[0].distance - 37.0).abs() < 1e-3, "{hits:?}");
    // In its left half, moving right: deeper in, so still hit at 0.
    set_translation(&mut app, caster, 52.0, 0.0);
    app.update();
    let hits = shape_hits(&app, caster);
    assert_eq!((hits[0].entity, hits[0].distance), (walls[0], 0.0));
}

/// Every WARN message logged anywhere in this test binary.
static WARNINGS: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct WarningRecorder;

impl<S: Subscriber> Layer<S> for WarningRecorder {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        if *event.metadata().level() == Level::WARN {
            struct Message(String);
            impl Visit for Message {
                fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
                    if field.name() == "message" {
                        self.0 = format!("{value:?}");
                    }
                }
            }
            let mut message = Message(String::new());
            event.record(&mut message);
            WARNINGS.lock().unwrap().push(message.0);
        }
    }
}

/// How many warnings so far name `entity`.
fn warnings_about(entity: Entity) -> usize {
    let name = format!("Caster on {entity} ");
    WARNINGS
        .lock()
        .unwrap()
        .iter()
        .filter(|w| w.contains(&name))
        .count()
}

/// `caster` with a direction that is not one: `Dir2::new_unchecked` panics
/// on it in debug builds, so written as a scene or an editor would, through
/// reflection.
fn with_raw_direction(mut caster: RayCaster, raw: Vec2) -> RayCaster {
    *caster.path_mut::<Vec2>("direction.0").unwrap() = raw;
    caster
}

/// A zero or NaN direction, a NaN transform or origin, a negative or NaN
/// range, an invalid shape: no hits, no panic, one warning per entity over
/// many frames; fixed, it casts; broken again, warned again.
#[test]
fn bad_input_casts_nothing_and_warns_once() {
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(WarningRecorder))
        .unwrap();
    let mut app = test_app();
    wall_at(&mut app, 20.0);
    let ray = |caster: RayCaster, transform: Transform| (caster, transform);
    let good = RayCaster::new(Vec2::ZERO, Dir2::X);
    let bad_rays: Vec<Entity> = [
        ray(
            with_raw_direction(good.clone(), Vec2::ZERO),
            Transform::default(),
        ),
        ray(
            with_raw_direction(good.clone(), Vec2::NAN),
            Transform::default(),
        ),
        ray(good.clone(), Transform::from_xyz(f32::NAN, 0.0, 0.0)),
        ray(
            good.clone(),
            Transform::from_rotation(Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0)),
        ),
        ray(
            RayCaster {
                origin: Vec2::new(f32::INFINITY, 0.0),
                ..good.clone()
            },
            Transform::default(),
        ),
        ray(good.clone().with_max_distance(-1.0), Transform::default()),
        ray(
            good.clone().with_max_distance(f32::NAN),
            Transform::default(),
        ),
    ]
    .into_iter()
    .map(|bundle| app.world_mut().spawn(bundle).id())
    .collect();
    let box_caster = ShapeCaster::new(Collider::rect(2.0, 2.0), Vec2::ZERO, Dir2::X);
    let bad_shapes: Vec<Entity> = [
        (
            ShapeCaster::new(Collider::circle(-1.0), Vec2::ZERO, Dir2::X),
            Transform::default(),
        ),
        (
            box_caster.clone().with_max_distance(-5.0),
            Transform::default(),
        ),
        (
            ShapeCaster {
                shape_rotation: Rot2 {
                    cos: f32::NAN,
                    sin: 0.0,
                },
                ..box_caster.clone()
            },
            Transform::default(),
        ),
        (
            box_caster.clone(),
            Transform::from_xyz(0.0, f32::INFINITY, 0.0),
        ),
    ]
    .into_iter()
    .map(|bundle| app.world_mut().spawn(bundle).id())
    .collect();
    // Scaled to nothing: hidden, as a collider is, without a warning.
    let hidden = app
        .world_mut()
        .spawn((
            good.clone(),
            Transform::from_scale(Vec3::new(0.0, 1.0, 1.0)),
        ))
        .id();
    for _ in 0..5 {
        app.update();
    }
    for &entity in &bad_rays {
        assert!(ray_hits(&app, entity).is_empty(), "{entity}");
        assert!(app.world().get::<RayHits>(entity).unwrap().ray().is_none());
        assert_eq!(
            warnings_about(entity),
            1,
            "{entity}: {:#?}",
            WARNINGS.lock().unwrap()
        );
    }
    for &entity in &bad_shapes {
        assert!(shape_hits(&app, entity).is_empty(), "{entity}");
        assert_eq!(
            warnings_about(entity),
            1,
            "{entity}: {:#?}",
            WARNINGS.lock().unwrap()
        );
    }
    assert!(ray_hits(&app, hidden).is_empty());
    assert_eq!(warnings_about(hidden), 0);

    // Fixed: it casts, without a new warning; broken again: warned again.
    let fixed = bad_rays[5];
    app.world_mut()
        .get_mut::<RayCaster>(fixed)
        .unwrap()
        .max_distance = 100.0;
    app.update();
    assert_eq!(ray_hits(&app, fixed).len(), 1);
    assert_eq!(warnings_about(fixed), 1);
    app.world_mut()
        .get_mut::<RayCaster>(fixed)
        .unwrap()
        .max_distance = -1.0;
    app.update();
    app.update();
    assert!(ray_hits(&app, fixed).is_empty());
    assert_eq!(warnings_about(fixed), 2);
}

/// The casters and their hits are reflected and registered, and the
/// entities they name (excluded, hit) are mapped as scenes map them.
#[test]
fn casters_are_reflected_and_their_entities_mapped() {
    let mut app = test_app();
    let wall = wall_at(&mut app, 20.0);
    let caster = app
        .world_mut()
        .spawn((
            RayCaster::new(Vec2::ZERO, Dir2::X),
            ShapeCaster::new(Collider::circle(1.0), Vec2::ZERO, Dir2::X)
                .with_filter(QueryFilter::default().with_excluded([wall])),
            Transform::default(),
        ))
        .id();
    app.update();
    let registry = app.world().resource::<AppTypeRegistry>().read();
    for type_id in [
        std::any::TypeId::of::<RayCaster>(),
        std::any::TypeId::of::<RayHits>(),
        std::any::TypeId::of::<ShapeCaster>(),
        std::any::TypeId::of::<ShapeHits>(),
    ] {
        let registration = registry.get(type_id).expect("registered");
        assert!(registration.data::<ReflectComponent>().is_some());
    }
    drop(registry);
    let ray_caster = app.world().get::<RayCaster>(caster).unwrap();
    let cloned = ray_caster.reflect_clone().unwrap();
    assert_eq!(cloned.downcast_ref::<RayCaster>(), Some(ray_caster));

    // Mapped (as a scene written into another world maps them): the
    // excluded wall becomes the copy's, and so do the hits' entities.
    let copy = Entity::from_raw_u32(9999).unwrap();
    let mut map = EntityHashMap::default();
    map.insert(wall, copy);
    let mut mapped = app.world().get::<ShapeCaster>(caster).unwrap().clone();
    <ShapeCaster as Component>::map_entities(&mut mapped, &mut map);
    assert!(mapped.filter.excluded.contains(&copy), "{mapped:?}");
    let mut hits = app.world().get::<RayHits>(caster).unwrap().clone();
    assert_eq!(hits.first().unwrap().entity, wall);
    <RayHits as Component>::map_entities(&mut hits, &mut map);
    assert_eq!(hits.first().unwrap().entity, copy);
}
