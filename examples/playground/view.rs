//! The playground in a window: the camera and the cursor, a mesh for each
//! shape (a thick line for segments, which have no area), the overlay's extra
//! drawings (closest points, selection, hover, laser) and the text. Headless
//! runs leave this module out.

use std::fmt::Write as _;

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_collide2d::collision_gizmos_enabled;
use bevy_collide2d::geometry::Shape;
use bevy_collide2d::prelude::*;

use super::{
    Body, CursorWorld, GAP_RANGE, Laser, Selected, fire_laser, gaps, pick_and_drag, remove_selected,
};

const BACKGROUND: Color = Color::srgb(0.08, 0.09, 0.12);
const COLLIDING_COLOR: Color = Color::srgb(0.9, 0.25, 0.22);
/// A touching segment: lighter than [`COLLIDING_COLOR`], to stand out on
/// the red shape it crosses.
const SEGMENT_COLLIDING_COLOR: Color = Color::srgb(1.0, 0.62, 0.55);
const SELECTION_COLOR: Color = Color::WHITE;
/// The closest-point lines between shapes apart: light, to stay behind the
/// contacts.
const GAP_COLOR: Color = Color::srgba(1.0, 1.0, 1.0, 0.4);
/// Radius of the dots at the ends of a closest-point line.
const GAP_DOT_RADIUS: f32 = 2.5;
/// Width of a segment's line, in pixels.
const SEGMENT_WIDTH: f32 = 5.0;
const HOVER_COLOR: Color = Color::srgb(1.0, 0.85, 0.2);
const LASER_COLOR: Color = Color::srgb(0.3, 1.0, 0.5);
const LASER_NORMAL_COLOR: Color = Color::srgb(0.4, 0.7, 1.0);
/// How far a laser that hits nothing is drawn (past the window's edge).
const LASER_MISS_LENGTH: f32 = 4000.0;

const HELP: &str = "Drag: left mouse   Rotate: Q/E or wheel   Scale: +/-\n\
                    Spawn: C circle, R rectangle, K capsule, S segment, P polygon\n\
                    Remove: Delete   \
                    Overlay: D   Bounding boxes: A\n\
                    Laser: hold L (from the selected shape towards the cursor)";

pub(super) struct ViewPlugin;

/// The segments' lines: wider than the overlay's, drawn whether the overlay
/// is on or not.
#[derive(Default, Reflect, GizmoConfigGroup)]
struct SegmentGizmos;

impl Plugin for ViewPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(ClearColor(BACKGROUND))
            .insert_gizmo_config(
                SegmentGizmos,
                GizmoConfig {
                    line: GizmoLineConfig {
                        width: SEGMENT_WIDTH,
                        ..default()
                    },
                    ..default()
                },
            )
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
                    draw_segments,
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
/// its own material so that its colour can change; the transform scales and
/// turns the mesh as it does the collider. Segments have no area, hence no
/// mesh: [`draw_segments`] draws them.
fn decorate(
    add: On<Add<Body>>,
    bodies: Query<(&Collider, &Body)>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    mut commands: Commands,
) {
    let Ok((collider, body)) = bodies.get(add.entity) else {
        return;
    };
    let mesh = match *collider.shape() {
        Shape::Circle { radius } => meshes.add(Circle::new(radius)),
        Shape::Rect { half_size } => meshes.add(Rectangle::from_size(half_size * 2.0)),
        Shape::Capsule {
            radius,
            half_length,
        } => meshes.add(Capsule2d::new(radius, 2.0 * half_length)),
        Shape::Polygon(ref polygon) => {
            match bevy::shape::ConvexPolygon::new(polygon.vertices().iter().copied()) {
                Ok(polygon) => meshes.add(polygon),
                Err(_) => return,
            }
        }
        // Segments are drawn as lines; the playground spawns no compounds.
        _ => return,
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

/// Segments, which have no mesh: a thick line in the shape's colour, light
/// red while it touches something (as [`tint_colliding`] does for meshes).
fn draw_segments(
    mut gizmos: Gizmos<SegmentGizmos>,
    bodies: Query<(&Body, &Collider, &GlobalTransform, &CollidingEntities)>,
) {
    for (body, collider, transform, colliding) in &bodies {
        if let Ok((Shape::Segment { a, b }, pose)) = collider.world_shape(transform) {
            let color = if colliding.is_empty() {
                body.color
            } else {
                SEGMENT_COLLIDING_COLOR
            };
            gizmos.line_2d(pose * a, pose * b, color);
        }
    }
}

/// For every two shapes apart by at most [`GAP_RANGE`]: a thin line between
/// their closest points, with a dot at each end (see [`gaps`]).
fn draw_closest_points(
    mut gizmos: Gizmos<CollisionGizmos>,
    bodies: Query<(Entity, &Collider, &GlobalTransform), With<Body>>,
) {
    let shapes: Vec<_> = bodies
        .iter()
        .filter_map(|(entity, collider, transform)| {
            let (shape, pose) = collider.world_shape(transform).ok()?;
            Some((entity, shape, pose))
        })
        .collect();
    for gap in gaps(&shapes, GAP_RANGE) {
        gizmos.line_2d(gap.on_a, gap.on_b, GAP_COLOR);
        for end in [gap.on_a, gap.on_b] {
            gizmos
                .circle_2d(Isometry2d::from_translation(end), GAP_DOT_RADIUS, GAP_COLOR)
                .resolution(8);
        }
    }
}

/// The boundary of the points within `radius` of the convex hull of
/// `core` (one point, two, or a polygon counter-clockwise), as a closed
/// line strip: straight edges pushed out by `radius`, joined by arcs.
fn rounded_outline(core: &[Vec2], radius: f32) -> Vec<Vec2> {
    use core::f32::consts::{PI, TAU};
    let mut core = core.to_vec();
    core.dedup();
    if core.len() > 1 && core.first() == core.last() {
        core.pop();
    }
    let n = core.len();
    if n == 0 {
        return Vec::new();
    }
    if n == 1 {
        return (0..=64)
            .map(|k| core[0] + radius * Vec2::from_angle(k as f32 * TAU / 64.0))
            .collect();
    }
    // The outward normal of edge `i`, from `core[i]` to `core[i + 1]`: on its
    // right (for two points, the two edges face opposite ways).
    let normal = |i: usize| {
        let edge = core[(i + 1) % n] - core[i];
        Vec2::new(edge.y, -edge.x).normalize_or_zero()
    };
    let mut points = Vec::new();
    for (i, &corner) in core.iter().enumerate() {
        let (before, after) = (normal((i + n - 1) % n), normal(i));
        if radius > 0.0 {
            // Counter-clockwise from one edge's normal to the next.
            let turn = before.angle_to(after).rem_euclid(TAU);
            let turn = if turn > TAU - 1e-3 { 0.0 } else { turn };
            let steps = (turn / (PI / 16.0)).ceil().max(1.0) as usize;
            points.extend((0..=steps).map(|k| {
                corner + radius * Vec2::from_angle(turn * k as f32 / steps as f32).rotate(before)
            }));
        } else {
            points.push(corner);
        }
    }
    points.push(points[0]);
    points
}

/// A shape as a core (a point, a segment or a convex polygon, in world
/// coordinates) and the radius around it: circles and capsules are rounded
/// points and segments.
fn core_and_radius(shape: &Shape, pose: Isometry2d) -> (Vec<Vec2>, f32) {
    match *shape {
        Shape::Circle { radius } => (vec![pose.translation], radius),
        Shape::Rect { half_size } => (
            [
                Vec2::new(-half_size.x, -half_size.y),
                Vec2::new(half_size.x, -half_size.y),
                half_size,
                Vec2::new(-half_size.x, half_size.y),
            ]
            .map(|corner| pose * corner)
            .to_vec(),
            0.0,
        ),
        Shape::Capsule {
            radius,
            half_length,
        } => (
            vec![
                pose * Vec2::new(0.0, -half_length),
                pose * Vec2::new(0.0, half_length),
            ],
            radius,
        ),
        Shape::Segment { a, b } => (vec![pose * a, pose * b], 0.0),
        Shape::Polygon(ref polygon) => (
            polygon
                .vertices()
                .iter()
                .map(|&vertex| pose * vertex)
                .collect(),
            0.0,
        ),
        // Outlined part by part (see `outline`); any other kind by its origin.
        _ => (vec![pose.translation], 0.0),
    }
}

/// An outline `margin` outside a collider's shape (rounded at the corners).
fn outline(
    gizmos: &mut Gizmos,
    collider: &Collider,
    transform: &GlobalTransform,
    margin: f32,
    color: Color,
) {
    if let Ok((shape, pose)) = collider.world_shape(transform) {
        outline_shape(gizmos, &shape, pose, margin, color);
    }
}

fn outline_shape(gizmos: &mut Gizmos, shape: &Shape, pose: Isometry2d, margin: f32, color: Color) {
    if let Shape::Compound(compound) = shape {
        for part in compound.parts() {
            outline_shape(gizmos, &part.shape, pose * part.pose, margin, color);
        }
        return;
    }
    let (core, radius) = core_and_radius(shape, pose);
    gizmos.linestrip_2d(rounded_outline(&core, radius + margin), color);
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
                    Shape::Capsule {
                        radius,
                        half_length,
                    } => write!(
                        text,
                        "capsule, radius {radius:.1}, length {:.1} between the caps",
                        half_length * 2.0
                    ),
                    Shape::Segment { a, b } => {
                        let (a, b) = (pose * a, pose * b);
                        write!(
                            text,
                            "segment from ({:.0}, {:.0}) to ({:.0}, {:.0}), length {:.1},",
                            a.x,
                            a.y,
                            b.x,
                            b.y,
                            a.distance(b)
                        )
                    }
                    Shape::Polygon(ref polygon) => {
                        write!(text, "polygon of {} vertices", polygon.vertices().len())
                    }
                    Shape::Compound(ref compound) => {
                        write!(text, "compound of {} parts", compound.parts().len())
                    }
                    _ => write!(text, "shape"),
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
