//! The playground in a window: the camera and the cursor, a mesh for each
//! shape, the overlay's extra drawings (closest points, selection, hover,
//! laser) and the text. Headless runs leave this module out.

use std::fmt::Write as _;

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_collide2d::collision_gizmos_enabled;
use bevy_collide2d::geometry::Shape;
use bevy_collide2d::prelude::*;

use super::{Body, CursorWorld, Laser, Selected, fire_laser, pick_and_drag, remove_selected};

const BACKGROUND: Color = Color::srgb(0.08, 0.09, 0.12);
const COLLIDING_COLOR: Color = Color::srgb(0.9, 0.25, 0.22);
const SELECTION_COLOR: Color = Color::WHITE;
/// Closest-point lines are drawn for circles at most this far outside a
/// rectangle, to keep the picture readable.
const CLOSEST_POINT_RANGE: f32 = 200.0;
const HOVER_COLOR: Color = Color::srgb(1.0, 0.85, 0.2);
const LASER_COLOR: Color = Color::srgb(0.3, 1.0, 0.5);
const LASER_NORMAL_COLOR: Color = Color::srgb(0.4, 0.7, 1.0);
/// How far a laser that hits nothing is drawn (past the window's edge).
const LASER_MISS_LENGTH: f32 = 4000.0;

const HELP: &str = "Drag: left mouse   Rotate: Q/E or wheel   Scale: +/-\n\
                    Spawn: C circle, R rectangle   Remove: Delete\n\
                    Overlay: D   Bounding boxes: A\n\
                    Laser: hold L (from the selected shape towards the cursor)";

pub(super) struct ViewPlugin;

impl Plugin for ViewPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(ClearColor(BACKGROUND))
            .add_observer(decorate)
            .add_systems(Startup, spawn_camera_and_text)
            .add_systems(
                Update,
                (
                    update_cursor.before(pick_and_drag),
                    toggle_overlay,
                    update_info.after(remove_selected),
                ),
            )
            .add_systems(
                PostUpdate,
                (
                    tint_colliding,
                    draw_closest_points.run_if(collision_gizmos_enabled),
                    draw_selection,
                    draw_hover,
                    draw_laser.after(fire_laser),
                )
                    .after(CollisionSystems::Events),
            );
    }
}

#[derive(Component)]
struct InfoText;

fn spawn_camera_and_text(mut commands: Commands) {
    commands.spawn(Camera2d);
    commands.spawn((
        Text::new(HELP),
        TextFont::from_font_size(16.0),
        TextColor(Color::srgb(0.75, 0.78, 0.85)),
        Node {
            position_type: PositionType::Absolute,
            top: Val::Px(10.0),
            left: Val::Px(12.0),
            ..default()
        },
    ));
    commands.spawn((
        Text::new(""),
        TextFont::from_font_size(15.0),
        TextColor(Color::srgb(0.95, 0.9, 0.7)),
        Node {
            position_type: PositionType::Absolute,
            bottom: Val::Px(10.0),
            left: Val::Px(12.0),
            ..default()
        },
        InfoText,
    ));
}

/// Draws each new shape with a mesh of exactly its collider's shape, with
/// its own material so that its colour can change.
fn decorate(
    add: On<Add, Body>,
    bodies: Query<(&Collider, &Body)>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    mut commands: Commands,
) {
    let Ok((collider, body)) = bodies.get(add.entity) else {
        return;
    };
    let mesh = match *collider {
        Collider::Circle { radius } => meshes.add(Circle::new(radius)),
        Collider::OrientedRect { half_size } => meshes.add(Rectangle::from_size(half_size * 2.0)),
    };
    commands
        .entity(add.entity)
        .insert((Mesh2d(mesh), MeshMaterial2d(materials.add(body.color))));
}

fn update_cursor(
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    mut cursor: ResMut<CursorWorld>,
) {
    let (camera, camera_transform) = *camera;
    cursor.0 = window
        .cursor_position()
        .and_then(|position| camera.viewport_to_world_2d(camera_transform, position).ok());
}

/// The overlay is a gizmo config group: toggled through [`GizmoConfigStore`].
fn toggle_overlay(keys: Res<ButtonInput<KeyCode>>, mut store: ResMut<GizmoConfigStore>) {
    if keys.just_pressed(KeyCode::KeyD) {
        let (config, _) = store.config_mut::<CollisionGizmos>();
        config.enabled = !config.enabled;
    }
    if keys.just_pressed(KeyCode::KeyA) {
        let (_, style) = store.config_mut::<CollisionGizmos>();
        style.draw_aabbs = !style.draw_aabbs;
    }
}

/// Shapes turn red while they touch anything, back to their colour after.
fn tint_colliding(
    bodies: Query<
        (&Body, &CollidingEntities, &MeshMaterial2d<ColorMaterial>),
        Changed<CollidingEntities>,
    >,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    for (body, colliding, material) in &bodies {
        if let Some(mut material) = materials.get_mut(&material.0) {
            material.color = if colliding.is_empty() {
                body.color
            } else {
                COLLIDING_COLOR
            };
        }
    }
}

/// For each circle and each rectangle near it: the rectangle's closest point
/// to the circle's centre, found the classic way (into the rectangle's frame
/// by rotating by minus its angle about its centre, clamp to the half size,
/// back to the world). Red when the crate reports the pair colliding, which
/// is exactly when that point is within the radius.
fn draw_closest_points(
    mut gizmos: Gizmos<CollisionGizmos>,
    bodies: Query<(Entity, &Collider, &GlobalTransform, &CollidingEntities)>,
) {
    let mut circles = Vec::new();
    let mut rects = Vec::new();
    for (entity, collider, transform, colliding) in &bodies {
        match collider.world_shape(transform) {
            Ok((Shape::Circle { radius }, pose)) => {
                circles.push((pose.translation, radius, colliding))
            }
            Ok((Shape::Rect { half_size }, pose)) => rects.push((entity, pose, half_size)),
            Err(_) => {}
        }
    }
    for &(center, radius, colliding) in &circles {
        for &(rect, pose, half_size) in &rects {
            let local = pose.inverse_transform_point(center);
            let closest = pose.transform_point(local.clamp(-half_size, half_size));
            if closest.distance(center) > radius + CLOSEST_POINT_RANGE {
                continue;
            }
            let color = if colliding.contains(&rect) {
                COLLIDING_COLOR
            } else {
                Color::srgba(1.0, 1.0, 1.0, 0.45)
            };
            gizmos.line_2d(center, closest, color);
            gizmos.circle_2d(closest, 4.0, color);
        }
    }
}

/// An outline `margin` outside a collider's shape.
fn outline(
    gizmos: &mut Gizmos,
    collider: &Collider,
    transform: &GlobalTransform,
    margin: f32,
    color: Color,
) {
    match collider.world_shape(transform) {
        Ok((Shape::Circle { radius }, pose)) => {
            gizmos
                .circle_2d(pose, radius + margin, color)
                .resolution(64);
        }
        Ok((Shape::Rect { half_size }, pose)) => {
            gizmos.rect_2d(pose, (half_size + margin) * 2.0, color);
        }
        Err(_) => {}
    }
}

/// A white outline a little outside the selected shape.
fn draw_selection(
    mut gizmos: Gizmos,
    selected: Query<(&Collider, &GlobalTransform), With<Selected>>,
) {
    for (collider, transform) in &selected {
        outline(&mut gizmos, collider, transform, 5.0, SELECTION_COLOR);
    }
}

/// A yellow outline just outside every shape under the cursor: the
/// colliders [`SpatialQuery::point_hits`] finds there (overlapping shapes
/// are all found).
fn draw_hover(
    mut gizmos: Gizmos,
    cursor: Res<CursorWorld>,
    spatial: SpatialQuery,
    bodies: Query<(&Collider, &GlobalTransform)>,
) {
    let Some(point) = cursor.0 else {
        return;
    };
    for entity in spatial.point_hits(point, &QueryFilter::default()) {
        if let Ok((collider, transform)) = bodies.get(entity) {
            outline(&mut gizmos, collider, transform, 3.0, HOVER_COLOR);
        }
    }
}

/// The laser up to the first shape it hits, with an arrow along that
/// shape's surface normal there.
fn draw_laser(laser: Res<Laser>, mut gizmos: Gizmos) {
    let Some(shot) = laser.0 else {
        return;
    };
    let end = shot
        .hit
        .map_or(shot.origin + shot.direction * LASER_MISS_LENGTH, |hit| {
            hit.point
        });
    gizmos.line_2d(shot.origin, end, LASER_COLOR);
    if let Some(hit) = shot.hit {
        gizmos.circle_2d(Isometry2d::from_translation(hit.point), 5.0, LASER_COLOR);
        gizmos.arrow_2d(hit.point, hit.point + hit.normal * 40.0, LASER_NORMAL_COLOR);
    }
}

/// Describes what the laser hits, the selected shape and each of its
/// contacts, from the [`Collisions`] resource.
fn update_info(
    selected: Query<(Entity, &Collider, &GlobalTransform, &CollidingEntities), With<Selected>>,
    collisions: Res<Collisions>,
    laser: Res<Laser>,
    mut info: Single<&mut Text, With<InfoText>>,
) {
    let mut text = String::new();
    // Last frame's laser: it is fired after detection.
    match laser.0.map(|shot| shot.hit) {
        Some(Some(hit)) => {
            let _ = writeln!(
                text,
                "laser hits {} at distance {:.1}: point ({:.1}, {:.1}), normal ({:.2}, {:.2})",
                hit.entity, hit.distance, hit.point.x, hit.point.y, hit.normal.x, hit.normal.y
            );
        }
        Some(None) => text.push_str("laser hits nothing\n"),
        None => {}
    }
    match selected.iter().next() {
        Some((entity, collider, transform, colliding)) => {
            if let Ok((shape, pose)) = collider.world_shape(transform) {
                let _ = match shape {
                    Shape::Circle { radius } => write!(text, "circle, radius {radius:.1}"),
                    Shape::Rect { half_size } => {
                        write!(
                            text,
                            "rectangle {:.1} x {:.1}",
                            half_size.x * 2.0,
                            half_size.y * 2.0
                        )
                    }
                };
                let _ = writeln!(
                    text,
                    " at ({:.0}, {:.0}), turned {:.1} degrees",
                    pose.translation.x,
                    pose.translation.y,
                    pose.rotation.as_degrees()
                );
            }
            if colliding.is_empty() {
                text.push_str("touching nothing");
            }
            for other in colliding.iter() {
                // Seen from the selected shape: the normal points towards `other`.
                if let Some(contact) = collisions.get(entity, other) {
                    let _ = writeln!(
                        text,
                        "touching {other}: point ({:.1}, {:.1}), normal ({:.2}, {:.2}), depth {:.2}",
                        contact.point.x,
                        contact.point.y,
                        contact.normal.x,
                        contact.normal.y,
                        contact.depth
                    );
                }
            }
        }
        None => text.push_str("Click a shape to select it"),
    }
    info.set_if_neq(Text::new(text.trim_end()));
}
