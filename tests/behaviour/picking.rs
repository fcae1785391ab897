//! `CollisionPickingPlugin`: a pointer moved over a window hovers, clicks
//! and leaves colliders with no sprite, through Bevy's own picking (pointer
//! input, rays from the camera, hover map, pointer events); the collider in
//! front is picked first; markers, render layers and the filter keep
//! colliders out; a despawned collider is never picked. The picking
//! example's room captions what the pointer is over and what it clicks.

use crate::common;

#[allow(dead_code)]
#[path = "../../examples/picking.rs"]
mod picking_example;

use bevy::asset::AssetPlugin;
use bevy::camera::NormalizedRenderTarget;
use bevy::camera::visibility::RenderLayers;
use bevy::picking::pointer::{Location, PointerAction, PointerId, PointerInput};
use bevy::picking::{InteractionPlugin, PickingPlugin, PickingSettings};
use bevy::prelude::*;
use bevy::render::camera::camera_system;
use bevy::render::texture::ManualTextureViews;
use bevy::window::{WindowCreated, WindowRef, WindowResized, WindowScaleFactorChanged};
use bevy_collide2d::prelude::*;

/// The window's logical size: the world origin is at its centre.
const WINDOW: Vec2 = Vec2::new(800.0, 600.0);

/// Pointer events seen, in order: what happened to which entity.
#[derive(Resource, Default, Debug)]
struct Seen(Vec<(&'static str, Entity)>);

impl Seen {
    /// Notes an event where it was first triggered, not each entity it
    /// bubbles up to (the window, last).
    fn note(&mut self, what: &'static str, entity: Entity, original: Entity) {
        if entity == original {
            self.0.push((what, entity));
        }
    }

    fn take(app: &mut App) -> Vec<(&'static str, Entity)> {
        std::mem::take(&mut app.world_mut().resource_mut::<Seen>().0)
    }
}

/// A headless app with a window, a 2D camera at the origin and Bevy's
/// picking; the renderer's camera system computes the camera's viewport
/// from the window, as it does in a game.
fn picking_app() -> App {
    let mut app = common::test_app();
    app.add_plugins((
        AssetPlugin::default(),
        WindowPlugin {
            primary_window: Some(Window {
                resolution: (WINDOW.x as u32, WINDOW.y as u32).into(),
                ..default()
            }),
            ..default()
        },
        PickingPlugin,
        InteractionPlugin,
        CollisionPickingPlugin,
    ))
    .init_asset::<Image>()
    .init_resource::<ManualTextureViews>()
    .add_message::<WindowCreated>()
    .add_message::<WindowResized>()
    .add_message::<WindowScaleFactorChanged>()
    .add_systems(PostStartup, camera_system)
    .add_systems(PostUpdate, camera_system)
    // Only colliders: the window itself is picked too, unless told not to.
    .insert_resource(PickingSettings {
        is_window_picking_enabled: false,
        ..default()
    })
    .init_resource::<Seen>()
    .add_observer(|e: On<PointerOver>, mut seen: ResMut<Seen>| {
        seen.note("over", e.entity, e.original_event_target())
    })
    .add_observer(|e: On<PointerOut>, mut seen: ResMut<Seen>| {
        seen.note("out", e.entity, e.original_event_target())
    })
    .add_observer(|e: On<PointerClick>, mut seen: ResMut<Seen>| {
        seen.note("click", e.entity, e.original_event_target())
    });
    app.world_mut().spawn(Camera2d);
    app.world_mut().spawn(PointerId::Mouse);
    app
}

/// Runs two frames: one for detection to see what was spawned, one for the
/// picking that reads it.
fn settle(app: &mut App) {
    app.update();
    app.update();
    Seen::take(app);
}

/// Sends the mouse to a world position (the camera is at the origin) and
/// runs a frame.
fn move_to(app: &mut App, world: Vec2) {
    let window = (app.world_mut())
        .query_filtered::<Entity, With<bevy::window::PrimaryWindow>>()
        .single(app.world())
        .unwrap();
    let target =
        NormalizedRenderTarget::Window(WindowRef::Primary.normalize(Some(window)).unwrap());
    let position = Vec2::new(WINDOW.x / 2.0 + world.x, WINDOW.y / 2.0 - world.y);
    let location = Location { target, position };
    let action = PointerAction::Move { delta: Vec2::ZERO };
    app.world_mut()
        .write_message(PointerInput::new(PointerId::Mouse, location, action));
    app.update();
}

/// Presses and releases the primary button where the mouse is, a frame
/// each.
fn click(app: &mut App) {
    let location = (app.world_mut())
        .query::<(&PointerId, &bevy::picking::pointer::PointerLocation)>()
        .iter(app.world())
        .find(|(id, _)| **id == PointerId::Mouse)
        .and_then(|(_, location)| location.location.clone())
        .expect("the mouse has a location");
    for action in [
        PointerAction::Press(PointerButton::Primary),
        PointerAction::Release(PointerButton::Primary),
    ] {
        let input = PointerInput::new(PointerId::Mouse, location.clone(), action);
        app.world_mut().write_message(input);
        app.update();
    }
}

#[test]
fn a_pointer_hovers_clicks_and_leaves_a_collider_without_a_sprite() {
    let mut app = picking_app();
    let trigger = (app.world_mut())
        .spawn((
            Collider::circle(30.0),
            Transform::from_xyz(100.0, 50.0, 0.0),
        ))
        .id();
    let wall = (app.world_mut())
        .spawn((
            Collider::rect(200.0, 20.0),
            StaticCollider,
            Transform::from_xyz(-150.0, -100.0, 0.0).with_rotation(Quat::from_rotation_z(0.5)),
        ))
        .id();
    settle(&mut app);

    move_to(&mut app, Vec2::new(120.0, 60.0));
    assert_eq!(Seen::take(&mut app), [("over", trigger)]);
    click(&mut app);
    assert_eq!(Seen::take(&mut app), [("click", trigger)]);
    // Out of the circle, though inside its bounding box.
    move_to(&mut app, Vec2::new(100.0 + 25.0, 50.0 + 25.0));
    assert_eq!(Seen::take(&mut app), [("out", trigger)]);
    // Along the rotated wall, 90 units from its centre: inside only because
    // it is turned the right way.
    let along = Vec2::from_angle(0.5) * 90.0;
    move_to(&mut app, Vec2::new(-150.0, -100.0) + along);
    assert_eq!(Seen::take(&mut app), [("over", wall)]);
    move_to(
        &mut app,
        Vec2::new(-150.0, -100.0) + Vec2::new(along.x, -along.y),
    );
    assert_eq!(Seen::take(&mut app), [("out", wall)]);
}

#[test]
fn the_collider_in_front_is_picked_and_blocks_the_one_behind() {
    let mut app = picking_app();
    let behind = (app.world_mut())
        .spawn((
            Collider::rect(100.0, 100.0),
            Transform::from_xyz(0.0, 0.0, 1.0),
        ))
        .id();
    let front = (app.world_mut())
        .spawn((Collider::circle(20.0), Transform::from_xyz(30.0, 0.0, 5.0)))
        .id();
    let see_through = (app.world_mut())
        .spawn((
            Collider::circle(20.0),
            Transform::from_xyz(-30.0, 0.0, 5.0),
            Pickable {
                should_block_lower: false,
                is_hoverable: true,
            },
        ))
        .id();
    settle(&mut app);

    move_to(&mut app, Vec2::new(30.0, 0.0));
    assert_eq!(Seen::take(&mut app), [("over", front)]);
    move_to(&mut app, Vec2::new(-30.0, 0.0));
    let mut seen = Seen::take(&mut app);
    seen.sort();
    let mut expected = vec![("out", front), ("over", see_through), ("over", behind)];
    expected.sort();
    assert_eq!(seen, expected);
}

#[test]
fn markers_render_layers_and_the_filter_keep_colliders_out() {
    const HIDDEN: u32 = 1 << 5;
    let mut app = picking_app();
    let plain = (app.world_mut())
        .spawn((
            Collider::circle(10.0),
            Transform::from_xyz(-200.0, 0.0, 0.0),
        ))
        .id();
    let marked = (app.world_mut())
        .spawn((
            Collider::circle(10.0),
            CollisionPickable,
            Transform::from_xyz(0.0, 0.0, 0.0),
        ))
        .id();
    let other_render_layer = (app.world_mut())
        .spawn((
            Collider::circle(10.0),
            RenderLayers::layer(3),
            Transform::from_xyz(200.0, 0.0, 0.0),
        ))
        .id();
    let hidden_layer = (app.world_mut())
        .spawn((
            Collider::circle(10.0),
            CollisionLayers::new(HIDDEN, u32::MAX),
            Transform::from_xyz(0.0, 200.0, 0.0),
        ))
        .id();
    (app.world_mut().resource_mut::<CollisionPickingSettings>()).filter =
        QueryFilter::default().with_layers(CollisionLayers::new(u32::MAX, !HIDDEN));
    settle(&mut app);

    let picked_at = |app: &mut App, point: Vec2| {
        move_to(app, point);
        let over: Vec<Entity> = (Seen::take(app).into_iter())
            .filter(|(what, _)| *what == "over")
            .map(|(_, entity)| entity)
            .collect();
        move_to(app, Vec2::new(0.0, -250.0));
        Seen::take(app);
        over
    };
    assert_eq!(picked_at(&mut app, Vec2::new(-200.0, 0.0)), [plain]);
    assert_eq!(picked_at(&mut app, Vec2::new(200.0, 0.0)), []);
    assert_eq!(picked_at(&mut app, Vec2::new(0.0, 200.0)), []);
    let _ = (other_render_layer, hidden_layer);

    // Markers required: the camera has none yet, so nothing is picked.
    (app.world_mut().resource_mut::<CollisionPickingSettings>()).require_markers = true;
    assert_eq!(picked_at(&mut app, Vec2::ZERO), []);
    let camera = (app.world_mut())
        .query_filtered::<Entity, With<Camera>>()
        .single(app.world())
        .unwrap();
    app.world_mut().entity_mut(camera).insert(CollisionPickable);
    assert_eq!(picked_at(&mut app, Vec2::ZERO), [marked]);
    assert_eq!(picked_at(&mut app, Vec2::new(-200.0, 0.0)), []);
}

#[test]
fn tiles_are_picked_as_their_map_and_a_despawned_collider_never_is() {
    let mut app = picking_app();
    let map = (app.world_mut())
        .spawn((
            TilemapCollider::from_ascii(Vec2::splat(20.0), "#...#\n#####"),
            Transform::from_xyz(-50.0, -20.0, 0.0),
        ))
        .id();
    let gone = (app.world_mut())
        .spawn((Collider::circle(15.0), Transform::from_xyz(0.0, 150.0, 0.0)))
        .id();
    settle(&mut app);

    // The bottom row's middle tile, then the gap above it.
    move_to(&mut app, Vec2::new(-50.0 + 2.5 * 20.0, -20.0 + 0.5 * 20.0));
    assert_eq!(Seen::take(&mut app), [("over", map)]);
    move_to(&mut app, Vec2::new(-50.0 + 2.5 * 20.0, -20.0 + 1.5 * 20.0));
    assert_eq!(Seen::take(&mut app), [("out", map)]);

    // Despawned after the last detection: the snapshot still holds it, the
    // backend does not pick it.
    app.world_mut().despawn(gone);
    move_to(&mut app, Vec2::new(0.0, 150.0));
    assert_eq!(Seen::take(&mut app), []);
}

#[test]
fn the_example_names_the_hotspot_under_the_pointer_and_describes_the_clicked_one() {
    let mut app = picking_app();
    app.add_plugins(picking_example::Room);
    settle(&mut app);
    let caption = |app: &App| app.world().resource::<picking_example::Caption>().0.clone();

    // The keyhole is in front of the door.
    move_to(&mut app, Vec2::new(-160.0, -110.0));
    assert_eq!(caption(&app), "keyhole");
    click(&mut app);
    assert_eq!(caption(&app), "The keyhole: Too dark to see through.");
    move_to(&mut app, Vec2::new(-230.0, -20.0));
    assert_eq!(caption(&app), "door");
    // Bare wall.
    move_to(&mut app, Vec2::new(0.0, 0.0));
    assert_eq!(caption(&app), "");
}
