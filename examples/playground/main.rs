//! Playground: drag circles, rectangles, capsules, segments and convex
//! polygons around and watch `bevy_collide2d` find their contacts.
//!
//! Shapes turn red while they touch something (from their
//! [`CollidingEntities`]). The collision overlay (`CollisionDebugPlugin`)
//! outlines every collider and draws each contact's point, normal (arrow)
//! and depth (magenta segment). Between every two shapes that are apart but
//! near each other (within [`GAP_RANGE`]), a thin line joins their closest
//! points ([`Shape::closest_points`] on the shapes detection uses), with a
//! small dot at each end: the gap that would have to close for them to
//! touch. Where shapes touch, the overlay also draws their contact
//! manifold: a cross at each of its one or two points (two where a face
//! rests on a face). A [`DebugRender`] on a shape (keys H and G) hides it
//! from the overlay or gives it a colour of its own.
//!
//! The shapes under the mouse are outlined in yellow, found with
//! [`SpatialQuery::point_hits`]; holding L fires a laser with
//! [`SpatialQuery::cast_ray`] and draws it up to the first shape it hits,
//! with that shape's surface normal there. Both query the colliders in
//! `PostUpdate` after detection, so they see this frame's poses.
//!
//! This file is the playground's logic, which runs without a window too
//! ([`headless_app`], for the tests); [`view`] draws it and reads the mouse.
//!
//! # Controls
//!
//! | Input                  | Action                                  |
//! |------------------------|-----------------------------------------|
//! | left mouse button      | select and drag a shape (a segment: on  |
//! |                        | it or within a few pixels of it)        |
//! | Q / E or mouse wheel   | rotate the selected shape               |
//! | + / -                  | scale the selected shape                |
//! | C                      | spawn a circle at the cursor            |
//! | R                      | spawn a rectangle at the cursor         |
//! | K                      | spawn a capsule at the cursor           |
//! | S                      | spawn a segment at the cursor           |
//! | P                      | spawn a convex polygon (5 to 7 sides)   |
//! |                        | at the cursor                           |
//! | Delete / Backspace     | remove the selected shape               |
//! | D                      | collision overlay (with the closest-    |
//! |                        | point lines) on / off                   |
//! | A                      | bounding boxes (broad phase) on / off   |
//! | H                      | hide / show the selected shape in the   |
//! |                        | overlay (its `DebugRender`)             |
//! | G                      | the selected shape's overlay outline in |
//! |                        | gold, touching or not (`DebugRender`)   |
//! | mouse over shapes      | outline the shapes under the cursor     |
//! | L (hold)               | laser from the selected shape towards   |
//! |                        | the cursor (nothing selected: from the  |
//! |                        | cursor to the right)                    |
//!
//! ```sh
//! cargo run --release --example playground
//! ```

mod view;

#[cfg(test)]
mod tests;

use std::time::Duration;

use bevy::input::mouse::{AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use bevy::shape::BoundingVolume;
use bevy::time::TimeUpdateStrategy;
use bevy_collide2d::geometry::Shape;
use bevy_collide2d::prelude::*;

/// Rotation speed with Q / E, radians per second.
const ROTATE_SPEED: f32 = 1.5;
/// Scale change per second with + / -.
const SCALE_RATE: f32 = 1.0;
/// A click this close to a shape picks it: segments have no inside to
/// click in.
pub const PICK_TOLERANCE: f32 = 6.0;
/// Closest-point lines join shapes at most this far apart, to keep the
/// picture readable.
pub const GAP_RANGE: f32 = 110.0;

#[allow(
    dead_code,
    reason = "unused when a test includes this file as a module"
)]
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
        .add_plugins((
            CollisionPlugin::default(),
            CollisionDebugPlugin::default(),
            PlaygroundPlugin,
            view::ViewPlugin,
        ))
        .run()
}

/// The playground without a window: the logic on `MinimalPlugins`, one
/// frame per 1/60 s, with input resources that a test presses itself and
/// the cursor set through [`CursorWorld`].
pub fn headless_app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        TransformPlugin,
        CollisionPlugin::default(),
        PlaygroundPlugin,
    ))
    .init_resource::<ButtonInput<MouseButton>>()
    .init_resource::<ButtonInput<KeyCode>>()
    .init_resource::<AccumulatedMouseScroll>()
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / 60.0,
    )));
    app
}

/// The playground's shapes and what the mouse and keys do to them.
pub struct PlaygroundPlugin;

impl Plugin for PlaygroundPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<CursorWorld>()
            .init_resource::<Drag>()
            .init_resource::<Spawned>()
            .init_resource::<Laser>()
            .add_systems(Startup, setup)
            .add_systems(
                Update,
                (
                    pick_and_drag,
                    rotate_and_scale,
                    spawn_shapes,
                    remove_selected,
                    debug_render_selected,
                )
                    .chain(),
            )
            // After detection, so that the ray sees this frame's poses.
            .add_systems(PostUpdate, fire_laser.after(CollisionSystems::Events));
    }
}

/// A shape the user can drag, with its colour when it touches nothing.
#[derive(Component)]
pub struct Body {
    color: Color,
}

/// The shape being rotated, scaled or removed by the keys.
#[derive(Component)]
pub struct Selected;

/// The cursor in world coordinates, if it is over the window.
#[derive(Resource, Default)]
pub struct CursorWorld(pub Option<Vec2>);

/// The shape being dragged and where it was grabbed.
#[derive(Resource, Default)]
struct Drag {
    entity: Option<Entity>,
    /// Shape centre minus cursor when grabbed.
    offset: Vec2,
}

/// The laser while L is held: `None` while L is released.
#[derive(Resource, Default)]
pub struct Laser(pub Option<LaserShot>);

/// Where the laser starts, where it points and the first shape it hits.
#[derive(Clone, Copy)]
pub struct LaserShot {
    pub origin: Vec2,
    pub direction: Dir2,
    pub hit: Option<RayHit>,
}

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

fn setup(mut commands: Commands, mut spawned: ResMut<Spawned>) {
    use core::f32::consts::{FRAC_PI_2, FRAC_PI_4};
    // Shapes of different kinds touch in a few places: segment and rectangle,
    // segment and polygon, circle and polygon, circle and capsule,
    // rectangle and polygon, capsule and polygon. The others are apart.
    let scene = [
        // Circles and rectangles.
        (Collider::rect(360.0, 36.0), Vec2::new(0.0, -195.0), 0.3),
        (
            Collider::rect(120.0, 120.0),
            Vec2::new(280.0, 60.0),
            FRAC_PI_4,
        ),
        (Collider::rect(220.0, 30.0), Vec2::new(-330.0, -60.0), -0.6),
        (Collider::circle(45.0), Vec2::new(-200.0, 120.0), 0.0),
        (Collider::circle(30.0), Vec2::new(40.0, -120.0), 0.0),
        (Collider::circle(60.0), Vec2::new(150.0, 200.0), 0.0),
        (Collider::rect(80.0, 160.0), Vec2::new(-20.0, 60.0), 0.15),
        // Capsules: one lying against the big circle, one standing above the
        // tilted plank's left end, one leaning on a polygon.
        (
            Collider::capsule(25.0, 100.0),
            Vec2::new(270.0, 205.0),
            FRAC_PI_2,
        ),
        (Collider::capsule(22.0, 60.0), Vec2::new(-450.0, 72.0), 0.2),
        (
            Collider::capsule(18.0, 120.0),
            Vec2::new(395.0, -128.0),
            0.5,
        ),
        // Segments: a slope under the long bar's left end with a polygon on
        // it, and two on their own on the right.
        (
            Collider::segment(Vec2::new(-170.0, -40.0), Vec2::new(170.0, 40.0)),
            Vec2::new(-300.0, -260.0),
            0.0,
        ),
        (
            Collider::segment(Vec2::new(-90.0, 0.0), Vec2::new(90.0, 0.0)),
            Vec2::new(530.0, -150.0),
            1.2,
        ),
        (
            Collider::segment(Vec2::new(-80.0, 0.0), Vec2::new(80.0, 0.0)),
            Vec2::new(430.0, 290.0),
            -0.35,
        ),
        // Convex polygons: one on the slope, one against the diamond's lower
        // right face, one under the circle on the left.
        (random_polygon(1, 50.0), Vec2::new(-445.0, -262.0), 0.0),
        (random_polygon(2, 60.0), Vec2::new(343.0, -18.0), 0.4),
        (random_polygon(3, 42.0), Vec2::new(-205.0, 50.0), 0.2),
    ];
    for (collider, position, angle) in scene {
        spawn_body(&mut commands, &mut spawned, collider, position, angle);
    }
}

/// A convex polygon of 5 to 7 sides, different for each `seed`, about
/// `size` from its centre: its vertices at uneven angles on an ellipse (so
/// all of them are on the hull).
pub fn random_polygon(seed: u32, size: f32) -> Collider {
    // A small integer hash: the same seed gives the same polygon.
    let mut state = seed.wrapping_mul(0x9e37_79b9) ^ 0x85eb_ca6b;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        (state >> 8) as f32 / (1u32 << 24) as f32
    };
    let sides = 5 + (random() * 3.0) as usize % 3;
    let squash = 0.65 + 0.35 * random();
    let step = core::f32::consts::TAU / sides as f32;
    let points: Vec<Vec2> = (0..sides)
        .map(|k| {
            let angle = (k as f32 + 0.7 * (random() - 0.5)) * step;
            Vec2::new(angle.cos(), squash * angle.sin()) * size
        })
        .collect();
    Collider::convex_polygon(&points).expect("distinct points on an ellipse")
}

/// Spawns a draggable shape; the view gives it a mesh of exactly its
/// collider's shape.
fn spawn_body(
    commands: &mut Commands,
    spawned: &mut Spawned,
    collider: Collider,
    position: Vec2,
    angle: f32,
) -> Entity {
    let n = spawned.next();
    // Hues from yellow to purple: none of them the red of a touching shape.
    let color = Color::hsl(70.0 + (n * 53 % 220) as f32, 0.55, 0.55);
    commands
        .spawn((
            collider,
            Body { color },
            Transform::from_translation(position.extend(z_order(n)))
                .with_rotation(Quat::from_rotation_z(angle)),
        ))
        .id()
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
        // collides; within a few pixels counts, for segments.
        let probe = Shape::Circle {
            radius: PICK_TOLERANCE,
        };
        let probe_pose = Isometry2d::from_translation(point);
        let hit = bodies
            .iter()
            .filter(|(_, collider, transform)| {
                collider
                    .world_shape(transform)
                    .is_ok_and(|(shape, pose)| shape.intersects(pose, &probe, probe_pose))
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
    } else if keys.just_pressed(KeyCode::KeyK) {
        // Radius, then length between the cap centres.
        let (radius, length) =
            [(25.0, 80.0), (18.0, 140.0), (35.0, 40.0), (14.0, 220.0)][variant % 4];
        Some((Collider::capsule(radius, length), 0.35 * variant as f32))
    } else if keys.just_pressed(KeyCode::KeyS) {
        // Centred on the cursor.
        let half = [90.0, 130.0, 55.0, 170.0][variant % 4];
        Some((
            Collider::segment(Vec2::new(-half, 0.0), Vec2::new(half, 0.0)),
            0.35 * variant as f32,
        ))
    } else if keys.just_pressed(KeyCode::KeyP) {
        let size = [50.0, 65.0, 38.0, 80.0][variant % 4];
        Some((random_polygon(variant as u32 + 10, size), 0.0))
    } else {
        None
    };
    if let Some((collider, angle)) = new_shape {
        spawn_body(&mut commands, &mut spawned, collider, at, angle);
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

/// The gold of G.
pub const GOLD: Color = Color::srgb(1.0, 0.8, 0.2);

/// H hides the selected shape from the overlay, or shows it again; G draws
/// its outline in gold, or in the overlay's colours again: a
/// [`DebugRender`] on it, which the overlay honours.
fn debug_render_selected(
    keys: Res<ButtonInput<KeyCode>>,
    selected: Query<(Entity, Option<&DebugRender>), With<Selected>>,
    mut commands: Commands,
) {
    let (hide, gild) = (
        keys.just_pressed(KeyCode::KeyH),
        keys.just_pressed(KeyCode::KeyG),
    );
    if !(hide || gild) {
        return;
    }
    for (entity, render) in &selected {
        let mut render = render.copied().unwrap_or_default();
        if hide {
            render.hidden = !render.hidden;
        }
        if gild {
            render.color = if render.color.is_some() {
                None
            } else {
                Some(GOLD)
            };
        }
        commands.entity(entity).insert(render);
    }
}

/// While L is held: a ray from the selected shape's centre towards the
/// cursor (ignoring the selected shape itself, which it starts in), or from
/// the cursor to the right when nothing is selected, up to the first shape
/// it hits.
fn fire_laser(
    keys: Res<ButtonInput<KeyCode>>,
    cursor: Res<CursorWorld>,
    selected: Query<(Entity, &GlobalTransform), With<Selected>>,
    spatial: SpatialQuery,
    mut laser: ResMut<Laser>,
) {
    laser.0 = None;
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
    laser.0 = Some(LaserShot {
        origin,
        direction,
        hit,
    });
}

/// Two shapes apart, by the closest points of each.
#[derive(Clone, Copy, Debug)]
pub struct Gap {
    pub a: Entity,
    pub b: Entity,
    /// The point of `a` closest to `b`.
    pub on_a: Vec2,
    /// The point of `b` closest to `a`.
    pub on_b: Vec2,
    pub distance: f32,
}

/// Every pair of the `shapes` (world shapes and poses) that are apart by at
/// most `range`, with their closest points. Pairs that touch or overlap
/// have none.
pub fn gaps(shapes: &[(Entity, Shape, Isometry2d)], range: f32) -> Vec<Gap> {
    let boxes: Vec<_> = shapes
        .iter()
        .map(|(_, shape, pose)| shape.aabb(*pose).grow(Vec2::splat(range * 0.5)))
        .collect();
    let mut gaps = Vec::new();
    for (i, (a, shape_a, pose_a)) in shapes.iter().enumerate() {
        for (j, (b, shape_b, pose_b)) in shapes.iter().enumerate().skip(i + 1) {
            // Boxes grown by half the range each: apart means too far.
            let (box_a, box_b) = (boxes[i], boxes[j]);
            if box_a.min.cmpgt(box_b.max).any() || box_b.min.cmpgt(box_a.max).any() {
                continue;
            }
            if let Some((on_a, on_b, distance)) = shape_a.closest_points(*pose_a, shape_b, *pose_b)
                && distance <= range
            {
                gaps.push(Gap {
                    a: *a,
                    b: *b,
                    on_a,
                    on_b,
                    distance,
                });
            }
        }
    }
    gaps
}
