//! Picking: a point-and-click room whose hotspots are colliders with no
//! sprite. Hover one and the caption names it; click it and the caption
//! describes it.
//!
//! [`CollisionPickingPlugin`] (feature `picking`) lets Bevy's pointer
//! events reach colliders: [`PointerOver`], [`PointerOut`] and
//! [`PointerClick`] here, observed like any other event. The keyhole is in
//! front of the door (a higher `z`), so over the keyhole the pointer picks
//! the keyhole, not the door. The collision overlay outlines the hotspots,
//! which nothing else draws; in a game they would be invisible.
//!
//! ```sh
//! cargo run --example picking --features picking
//! ```

#[allow(
    dead_code,
    reason = "no --headless mode: picking needs a pointer, which tests/behaviour/picking.rs moves"
)]
#[path = "common/mod.rs"]
mod common;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;

fn main() -> AppExit {
    common::windowed_app(CollisionPlugin::default(), (CollisionPickingPlugin, Room))
        .add_systems(Startup, outlines_only)
        .run()
}

/// The overlay as a hotspot map: outlines in one colour, no contacts (the
/// keyhole touches the door, and that is no news here).
fn outlines_only(mut store: ResMut<GizmoConfigStore>) {
    let (_, overlay) = store.config_mut::<CollisionGizmos>();
    overlay.colliding_color = overlay.collider_color;
    overlay.draw_contacts = false;
}

/// The room, its hotspots and the caption.
pub struct Room;

impl Plugin for Room {
    fn build(&self, app: &mut App) {
        app.init_resource::<Caption>()
            .add_systems(Startup, furnish)
            .add_systems(Update, show_caption)
            .add_observer(name_hovered)
            .add_observer(clear_caption)
            .add_observer(describe_clicked);
    }
}

/// Somewhere the player can look: its name, and what a click says.
#[derive(Component)]
pub struct Hotspot {
    pub name: &'static str,
    pub description: &'static str,
}

/// What the caption at the top says.
#[derive(Resource, Default)]
pub struct Caption(pub String);

fn furnish(mut commands: Commands) {
    let wood = Color::srgb(0.45, 0.3, 0.2);
    commands.spawn(Sprite::from_color(
        Color::srgb(0.2, 0.2, 0.25),
        Vec2::new(760.0, 420.0),
    ));
    commands.spawn((
        Sprite::from_color(wood, Vec2::new(120.0, 220.0)),
        Transform::from_xyz(-200.0, -100.0, 1.0),
    ));
    // The hotspots: colliders only.
    let spot = |name, description| Hotspot { name, description };
    commands.spawn((
        spot("door", "Locked. The key must be somewhere."),
        Collider::rect(120.0, 220.0),
        Transform::from_xyz(-200.0, -100.0, 1.0),
    ));
    commands.spawn((
        spot("keyhole", "Too dark to see through."),
        Collider::circle(10.0),
        Transform::from_xyz(-160.0, -110.0, 2.0),
    ));
    commands.spawn((
        spot("crack", "Something glints inside."),
        Collider::capsule(6.0, 60.0),
        Transform::from_xyz(150.0, 60.0, 1.0).with_rotation(Quat::from_rotation_z(0.3)),
    ));
    commands.spawn((
        spot("floorboard", "It creaks. It might come up."),
        Collider::rect(90.0, 12.0),
        Transform::from_xyz(120.0, -190.0, 1.0),
    ));
    commands.spawn((
        Text::default(),
        Node {
            margin: UiRect::all(Val::Px(16.0)),
            ..default()
        },
    ));
}

fn name_hovered(over: On<PointerOver>, spots: Query<&Hotspot>, mut caption: ResMut<Caption>) {
    if let Ok(spot) = spots.get(over.entity) {
        caption.0 = spot.name.to_string();
    }
}

fn clear_caption(out: On<PointerOut>, spots: Query<&Hotspot>, mut caption: ResMut<Caption>) {
    if spots.contains(out.entity) {
        caption.0.clear();
    }
}

fn describe_clicked(click: On<PointerClick>, spots: Query<&Hotspot>, mut caption: ResMut<Caption>) {
    if let Ok(spot) = spots.get(click.entity) {
        caption.0 = format!("The {}: {}", spot.name, spot.description);
    }
}

fn show_caption(caption: Res<Caption>, mut text: Single<&mut Text>) {
    if caption.is_changed() {
        text.0.clone_from(&caption.0);
    }
}
