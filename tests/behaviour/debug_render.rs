//! Per-entity debug drawing: a `DebugRender` on a collider's entity gives
//! its outline a colour of its own or hides it, and the overlay honours it
//! frame after frame (read back from the gizmo lines it hands the renderer).

use std::any::TypeId;

use bevy::asset::AssetApp;
use bevy::color::LinearRgba;
use bevy::gizmos::{GizmoAsset, GizmoHandles, GizmoPlugin};
use bevy::prelude::*;
use bevy_collide2d::prelude::*;

/// A headless app with the overlay, drawing only outlines.
fn overlay_app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        bevy::asset::AssetPlugin::default(),
        GizmoPlugin,
        TransformPlugin,
        CollisionPlugin::default(),
        CollisionDebugPlugin::default(),
    ))
    // What GizmoPlugin's own systems read, without a renderer.
    .init_asset::<bevy::mesh::Mesh>()
    .init_asset::<bevy::mesh::skinning::SkinnedMeshInverseBindposes>();
    let mut store = app.world_mut().resource_mut::<GizmoConfigStore>();
    let (_, style) = store.config_mut::<CollisionGizmos>();
    style.draw_contacts = false;
    style.draw_manifolds = false;
    app
}

/// The overlay's line vertices of the last frame, with their colours.
fn drawn(app: &App) -> Vec<(Vec2, LinearRgba)> {
    let handles = app.world().resource::<GizmoHandles>();
    let Some(Some(handle)) = handles.handles().get(&TypeId::of::<CollisionGizmos>()) else {
        return Vec::new();
    };
    let asset = app
        .world()
        .resource::<Assets<GizmoAsset>>()
        .get(handle)
        .expect("drawn");
    let view = asset.buffer().buffer();
    (view.list_positions.iter().chain(view.strip_positions))
        .zip(view.list_colors.iter().chain(view.strip_colors))
        .filter(|(p, _)| p.is_finite())
        .map(|(p, c)| (p.truncate(), *c))
        .collect()
}

/// Whether some line vertex lies within `radius` of `centre`.
fn drawn_near(lines: &[(Vec2, LinearRgba)], centre: Vec2, radius: f32) -> bool {
    lines.iter().any(|(p, _)| p.distance(centre) <= radius)
}

#[test]
fn a_debug_render_colours_or_hides_its_collider() {
    let gold = Color::srgb(1.0, 0.8, 0.2);
    let mut app = overlay_app();
    let plain = app
        .world_mut()
        .spawn((
            Collider::rect(20.0, 20.0),
            Transform::from_xyz(-200.0, 0.0, 0.0),
        ))
        .id();
    app.world_mut().spawn((
        Collider::circle(10.0),
        DebugRender::colored(gold),
        Transform::from_xyz(0.0, 0.0, 0.0),
    ));
    let hidden = app
        .world_mut()
        .spawn((
            Collider::rect(20.0, 20.0),
            DebugRender::hidden(),
            Transform::from_xyz(200.0, 0.0, 0.0),
        ))
        .id();
    app.update();
    app.update();

    let lines = drawn(&app);
    let default_color = LinearRgba::from(CollisionGizmos::default().collider_color);
    let near = |centre: Vec2| -> Vec<LinearRgba> {
        (lines.iter())
            .filter(|(p, _)| p.distance(centre) <= 15.0)
            .map(|(_, c)| *c)
            .collect()
    };
    let plain_lines = near(Vec2::new(-200.0, 0.0));
    assert!(!plain_lines.is_empty() && plain_lines.iter().all(|c| *c == default_color));
    let golden_lines = near(Vec2::ZERO);
    assert!(!golden_lines.is_empty());
    assert!(
        golden_lines.iter().all(|c| *c == LinearRgba::from(gold)),
        "{golden_lines:?}"
    );
    assert!(!drawn_near(&lines, Vec2::new(200.0, 0.0), 15.0), "hidden");

    // Taken off again: drawn as any other; put on the plain one: hidden.
    app.world_mut().entity_mut(hidden).remove::<DebugRender>();
    app.world_mut()
        .entity_mut(plain)
        .insert(DebugRender::hidden());
    app.update();
    let lines = drawn(&app);
    assert!(drawn_near(&lines, Vec2::new(200.0, 0.0), 15.0));
    assert!(!drawn_near(&lines, Vec2::new(-200.0, 0.0), 15.0));
}

/// A colour of its own holds whether the collider touches something or
/// not (the overlay's touching colour does not override it); contacts
/// between a hidden collider and a drawn one are still drawn.
#[test]
fn an_own_colour_holds_while_touching_and_contacts_stay() {
    let blue = Color::srgb(0.1, 0.3, 1.0);
    let mut app = overlay_app();
    app.world_mut()
        .resource_mut::<GizmoConfigStore>()
        .config_mut::<CollisionGizmos>()
        .1
        .draw_contacts = true;
    app.world_mut().spawn((
        Collider::rect(400.0, 20.0),
        DebugRender::hidden(),
        Transform::default(),
    ));
    app.world_mut().spawn((
        Collider::circle(10.0),
        DebugRender::colored(blue),
        Transform::from_xyz(0.0, 19.0, 0.0),
    ));
    app.update();
    app.update();
    let lines = drawn(&app);
    let style = CollisionGizmos::default();
    let colliding = LinearRgba::from(style.colliding_color);
    assert!(lines.iter().any(|(_, c)| *c == LinearRgba::from(blue)));
    assert!(
        lines.iter().all(|(_, c)| *c != colliding),
        "no outline in the touching colour"
    );
    // The contact (its point's circle) between the two is drawn.
    let contact_color = LinearRgba::from(style.point_color);
    assert!(lines.iter().any(|(_, c)| *c == contact_color));
}
