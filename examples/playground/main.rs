//! Playground: drag circles and rotated rectangles around and watch
//! `bevy_collide2d` find their contacts.
//!
//! Shapes turn red while they touch something (from their
//! [`CollidingEntities`]). The collision overlay (`CollisionDebugPlugin`)
//! outlines every collider and draws each contact's point, normal (arrow)
//! and depth (magenta segment). For every circle near a rectangle, a line
//! runs from the circle's centre to the closest point of the rectangle: the
//! classic circle-vs-rotated-rectangle test, drawn step by step.
//!
//! The shapes under the mouse are outlined in yellow, found with
//! [`SpatialQuery::point_hits`]; holding L fires a laser with
//! [`SpatialQuery::cast_ray`] and draws it up to the first shape it hits,
//! with that shape's surface normal there. Both query the colliders in
//! `PostUpdate` after detection, so they see this frame's poses.
//!
//! # Controls
//!
//! | Input                  | Action                                  |
//! |------------------------|-----------------------------------------|
//! | left mouse button      | select and drag a shape                 |
//! | Q / E or mouse wheel   | rotate the selected shape               |
//! | + / -                  | scale the selected shape                |
//! | C                      | spawn a circle at the cursor            |
//! | R                      | spawn a rectangle at the cursor         |
//! | Delete / Backspace     | remove the selected shape               |
//! | D                      | collision overlay on / off              |
//! | A                      | bounding boxes (broad phase) on / off   |
//! | mouse over shapes      | outline the shapes under the cursor     |
//! | L (hold)               | laser from the selected shape towards   |
//! |                        | the cursor (nothing selected: from the  |
//! |                        | cursor to the right)                    |
//!
//! ```sh
//! cargo run --release --example playground
//! ```

use std::fmt::Write as _;

use bevy::input::mouse::{AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_collide2d::debug::{CollisionDebugPlugin, CollisionGizmos, collision_gizmos_enabled};
use bevy_collide2d::geometry::Shape;
use bevy_collide2d::prelude::*;
use bevy_collide2d::snapshot::world_shape;

const BACKGROUND: Color = Color::srgb(0.08, 0.09, 0.12);
const COLLIDING_COLOR: Color = Color::srgb(0.9, 0.25, 0.22);
const SELECTION_COLOR: Color = Color::WHITE;
/// Rotation speed with Q / E, radians per second.
const ROTATE_SPEED: f32 = 1.5;
/// Scale change per second with + / -.
const SCALE_RATE: f32 = 1.0;
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

fn main() -> AppExit {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_collide2d: playground".into(),
                resolution: (1280, 800).into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((CollisionPlugin::default(), CollisionDebugPlugin::default()))
        .insert_resource(ClearColor(BACKGROUND))
        .init_resource::<CursorWorld>()
        .init_resource::<Drag>()
        .init_resource::<Spawned>()
        .init_resource::<LaserReading>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                update_cursor,
                pick_and_drag,
                rotate_and_scale,
                spawn_shapes,
                remove_selected,
                toggle_overlay,
                update_info,
            )
                .chain(),
        )
        .add_systems(
            PostUpdate,
            (
                tint_colliding,
                draw_closest_points.run_if(collision_gizmos_enabled),
                draw_selection,
                draw_hover,
                fire_laser,
            )
                .after(CollisionSystems::Events),
        )
        .run()
}

/// A shape the user can drag, with its colour when it touches nothing.
#[derive(Component)]
struct Body {
    color: Color,
}

/// The shape being rotated, scaled or removed by the keys.
#[derive(Component)]
struct Selected;

#[derive(Component)]
struct InfoText;

/// The cursor in world coordinates, if it is over the window.
#[derive(Resource, Default)]
struct CursorWorld(Option<Vec2>);

/// The shape being dragged and where it was grabbed.
#[derive(Resource, Default)]
struct Drag {
    entity: Option<Entity>,
    /// Shape centre minus cursor when grabbed.
    offset: Vec2,
}

/// What the laser hit this frame, for the info text: `None` while L is
/// released, `Some(None)` when it hits nothing.
#[derive(Resource, Default)]
struct LaserReading(Option<Option<RayHit>>);

/// How many shapes were spawned: picks sizes and colours, and the z order
/// (newer and last picked on top).
#[derive(Resource, Default)]
struct Spawned(u32);

impl Spawned {
    fn next(&mut self) -> u32 {
        self.0 += 1;
        self.0
    }
}

/// The z of the `n`-th shape: above the ones before it.
fn z_order(n: u32) -> f32 {
    n as f32 * 0.001
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    mut spawned: ResMut<Spawned>,
) {
    commands.spawn(Camera2d);

    let scene = [
        (Collider::rect(360.0, 36.0), Vec2::new(0.0, -180.0), 0.3),
        (
            Collider::rect(120.0, 120.0),
            Vec2::new(280.0, 60.0),
            core::f32::consts::FRAC_PI_4,
        ),
        (Collider::rect(220.0, 30.0), Vec2::new(-330.0, -60.0), -0.6),
        (Collider::circle(45.0), Vec2::new(-200.0, 120.0), 0.0),
        (Collider::circle(30.0), Vec2::new(40.0, -120.0), 0.0),
        (Collider::circle(60.0), Vec2::new(150.0, 200.0), 0.0),
        (Collider::rect(80.0, 160.0), Vec2::new(-20.0, 60.0), 0.15),
    ];
    for (collider, position, angle) in scene {
        spawn_body(
            &mut commands,
            &mut meshes,
            &mut materials,
            &mut spawned,
            collider,
            position,
            angle,
        );
    }

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

/// Spawns a draggable shape drawn by a mesh of exactly its collider's shape,
/// with its own material so that its colour can change.
fn spawn_body(
    commands: &mut Commands,
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<ColorMaterial>,
    spawned: &mut Spawned,
    collider: Collider,
    position: Vec2,
    angle: f32,
) -> Entity {
    let n = spawned.next();
    let color = Color::hsl((n * 53 % 360) as f32, 0.55, 0.55);
    let mesh = match collider {
        Collider::Circle { radius } => meshes.add(Circle::new(radius)),
        Collider::OrientedRect { half_size } => meshes.add(Rectangle::from_size(half_size * 2.0)),
    };
    commands
        .spawn((
            collider,
            Body { color },
            Mesh2d(mesh),
            MeshMaterial2d(materials.add(color)),
            Transform::from_translation(position.extend(z_order(n)))
                .with_rotation(Quat::from_rotation_z(angle)),
        ))
        .id()
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

/// Left click selects the topmost shape under the cursor (or nothing) and
/// starts dragging it; moving the mouse with the button held moves it.
fn pick_and_drag(
    buttons: Res<ButtonInput<MouseButton>>,
    cursor: Res<CursorWorld>,
    mut drag: ResMut<Drag>,
    mut spawned: ResMut<Spawned>,
    bodies: Query<(Entity, &Collider, &GlobalTransform), With<Body>>,
    mut transforms: Query<&mut Transform, With<Body>>,
    mut commands: Commands,
) {
    if buttons.just_released(MouseButton::Left) {
        drag.entity = None;
    }
    let Some(point) = cursor.0 else {
        return;
    };

    if buttons.just_pressed(MouseButton::Left) {
        // The same world shape detection uses, so what you click is what
        // collides.
        let hit = bodies
            .iter()
            .filter(|(_, collider, transform)| {
                world_shape(collider, transform)
                    .is_ok_and(|(shape, pose)| shape.contains_point(pose, point))
            })
            .max_by(|(_, _, a), (_, _, b)| a.translation().z.total_cmp(&b.translation().z));
        // Deselect everything (removing an absent component does nothing).
        for (entity, _, _) in &bodies {
            commands.entity(entity).remove::<Selected>();
        }
        drag.entity = None;
        if let Some((entity, _, transform)) = hit {
            commands.entity(entity).insert(Selected);
            drag.entity = Some(entity);
            drag.offset = transform.translation().truncate() - point;
            // Bring it to the front.
            if let Ok(mut transform) = transforms.get_mut(entity) {
                transform.translation.z = z_order(spawned.next());
            }
        }
    }

    if buttons.pressed(MouseButton::Left)
        && let Some(entity) = drag.entity
        && let Ok(mut transform) = transforms.get_mut(entity)
    {
        let target = point + drag.offset;
        transform.translation.x = target.x;
        transform.translation.y = target.y;
    }
}

fn rotate_and_scale(
    time: Res<Time>,
    keys: Res<ButtonInput<KeyCode>>,
    scroll: Res<AccumulatedMouseScroll>,
    mut selected: Query<&mut Transform, With<Selected>>,
) {
    let dt = time.delta_secs();
    let mut turn = match scroll.unit {
        MouseScrollUnit::Line => scroll.delta.y * 0.1,
        MouseScrollUnit::Pixel => scroll.delta.y * 0.004,
    };
    if keys.pressed(KeyCode::KeyQ) {
        turn += ROTATE_SPEED * dt;
    }
    if keys.pressed(KeyCode::KeyE) {
        turn -= ROTATE_SPEED * dt;
    }
    let mut grow = 1.0;
    if keys.any_pressed([KeyCode::Equal, KeyCode::NumpadAdd]) {
        grow *= 1.0 + SCALE_RATE * dt;
    }
    if keys.any_pressed([KeyCode::Minus, KeyCode::NumpadSubtract]) {
        grow /= 1.0 + SCALE_RATE * dt;
    }
    if turn == 0.0 && grow == 1.0 {
        return;
    }
    for mut transform in &mut selected {
        transform.rotate_z(turn);
        let scale = (transform.scale.x * grow).clamp(0.25, 4.0);
        transform.scale = Vec3::new(scale, scale, 1.0);
    }
}

fn spawn_shapes(
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<CursorWorld>,
    mut spawned: ResMut<Spawned>,
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    let at = cursor.0.unwrap_or(Vec2::ZERO);
    let variant = spawned.0 as usize;
    // Each press spawns the next of a few sizes, so new shapes differ.
    let new_shape = if keys.just_pressed(KeyCode::KeyC) {
        Some((Collider::circle([35.0, 50.0, 22.0, 65.0][variant % 4]), 0.0))
    } else if keys.just_pressed(KeyCode::KeyR) {
        let (width, height) =
            [(180.0, 40.0), (90.0, 90.0), (260.0, 24.0), (60.0, 140.0)][variant % 4];
        Some((Collider::rect(width, height), 0.35 * variant as f32))
    } else {
        None
    };
    if let Some((collider, angle)) = new_shape {
        spawn_body(
            &mut commands,
            &mut meshes,
            &mut materials,
            &mut spawned,
            collider,
            at,
            angle,
        );
    }
}

fn remove_selected(
    keys: Res<ButtonInput<KeyCode>>,
    selected: Query<Entity, With<Selected>>,
    mut drag: ResMut<Drag>,
    mut commands: Commands,
) {
    if keys.any_just_pressed([KeyCode::Delete, KeyCode::Backspace]) {
        for entity in &selected {
            commands.entity(entity).despawn();
        }
        drag.entity = None;
    }
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
        match world_shape(collider, transform) {
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
    match world_shape(collider, transform) {
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

/// While L is held: a ray from the selected shape's centre towards the
/// cursor (ignoring the selected shape itself, which it starts in), or from
/// the cursor to the right when nothing is selected, drawn up to the first
/// shape it hits, with an arrow along that shape's surface normal.
fn fire_laser(
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<CursorWorld>,
    selected: Query<(Entity, &GlobalTransform), With<Selected>>,
    spatial: SpatialQuery,
    mut gizmos: Gizmos,
    mut reading: ResMut<LaserReading>,
) {
    reading.0 = None;
    if !keys.pressed(KeyCode::KeyL) {
        return;
    }
    let Some(target) = cursor.0 else {
        return;
    };
    let (origin, direction, filter) = match selected.single() {
        Ok((entity, transform)) => {
            let origin = transform.translation().truncate();
            // The cursor on the centre gives no direction: no laser.
            let Ok(direction) = Dir2::new(target - origin) else {
                return;
            };
            (
                origin,
                direction,
                QueryFilter::default().with_excluded([entity]),
            )
        }
        Err(_) => (target, Dir2::X, QueryFilter::default()),
    };
    let hit = spatial.cast_ray(origin, direction, f32::INFINITY, &filter);
    let end = hit.map_or(origin + direction * LASER_MISS_LENGTH, |hit| hit.point);
    gizmos.line_2d(origin, end, LASER_COLOR);
    if let Some(hit) = hit {
        gizmos.circle_2d(Isometry2d::from_translation(hit.point), 5.0, LASER_COLOR);
        gizmos.arrow_2d(hit.point, hit.point + hit.normal * 40.0, LASER_NORMAL_COLOR);
    }
    reading.0 = Some(hit);
}

/// Describes what the laser hits, the selected shape and each of its
/// contacts, from the [`Collisions`] resource.
fn update_info(
    selected: Query<(Entity, &Collider, &GlobalTransform, &CollidingEntities), With<Selected>>,
    collisions: Res<Collisions>,
    laser: Res<LaserReading>,
    mut info: Single<&mut Text, With<InfoText>>,
) {
    let mut text = String::new();
    // Last frame's laser: it is fired after detection.
    match laser.0 {
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
            if let Ok((shape, pose)) = world_shape(collider, transform) {
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
