//! A top-down level drawn in ASCII: [`TilemapCollider`] turns it into one
//! static collider of a few rectangles, and balls bounce around inside it.
//!
//! The map's solid runs are merged (every wall is one or a few rectangles,
//! not one per tile) into one [`StaticCollider`] on the map's entity: it
//! costs nothing while it stands still. Each
//! ball pushes itself out of whatever it overlaps along the contact normal
//! and reflects its velocity, read every frame from [`Collisions`].
//!
//! [`CollisionDiagnosticsPlugin`] puts detection's time and pair counts in
//! Bevy's diagnostics, beside the frame time: the window shows both in a
//! corner, `--headless` prints them at the end.
//!
//! ```sh
//! cargo run --example level
//! cargo run --example level -- --headless
//! ```

#[path = "common/mod.rs"]
mod common;

use bevy::diagnostic::{DiagnosticPath, DiagnosticsStore, FrameTimeDiagnosticsPlugin};
use bevy::prelude::*;
use bevy_collide2d::prelude::*;

const TILE: f32 = 24.0;
const MAP: &str = "
##########################
#........................#
#...####.........####....#
#...#...............#....#
#...#.....######....#....#
#.........#....#.........#
#.........#....#.........#
#...#.....######....#....#
#...#...............#....#
#...####.........####....#
#........................#
##########################
";
const BALLS: usize = 12;
const SPEED: f32 = 260.0;

fn main() -> AppExit {
    if common::headless() {
        let mut app = headless_app();
        (0..600).for_each(|_| app.update());
        let escaped = escaped_balls(app.world_mut());
        println!("level: 600 frames, {BALLS} balls, {escaped} outside the walls");
        println!(
            "{}",
            diagnostics_text(app.world().resource::<DiagnosticsStore>())
        );
        return AppExit::Success;
    }
    common::windowed_app(CollisionPlugin::default(), Level)
        .add_systems(Startup, spawn_diagnostics_text)
        .add_systems(Update, show_diagnostics)
        .run()
}

/// The example without a window, 1/60 s a frame (`--headless`, tests).
pub fn headless_app() -> App {
    common::headless_app(CollisionPlugin::default(), Level)
}

/// The map, the balls and their motion.
pub struct Level;

impl Plugin for Level {
    fn build(&self, app: &mut App) {
        app.add_plugins((
            FrameTimeDiagnosticsPlugin::default(),
            CollisionDiagnosticsPlugin,
        ))
        .add_systems(Startup, spawn_level)
        .add_systems(Update, (bounce, roll).chain());
    }
}

#[derive(Component)]
pub struct Ball {
    pub velocity: Vec2,
}

/// The map's size in world units: it is centred on the origin.
fn map_size() -> Vec2 {
    let map = TilemapCollider::from_ascii(Vec2::splat(TILE), MAP);
    map.size().as_vec2() * TILE
}

fn spawn_level(mut commands: Commands) {
    let size = map_size();
    commands.spawn((
        TilemapCollider::from_ascii(Vec2::splat(TILE), MAP),
        Transform::from_translation((-size / 2.0).extend(0.0)),
    ));
    for k in 0..BALLS {
        let angle = k as f32 * 2.4;
        commands.spawn((
            Ball {
                velocity: Vec2::from_angle(angle) * SPEED,
            },
            Collider::circle(7.0),
            Sprite::from_color(Color::srgb(0.95, 0.75, 0.3), Vec2::splat(14.0)),
            Transform::from_xyz(-200.0 + 36.0 * k as f32, -110.0, 1.0),
        ));
    }
}

/// Out of every wall it overlaps, and off it: push out by the depth along
/// the normal, and reflect the velocity if it was heading in.
fn bounce(
    mut balls: Query<(Entity, &mut Ball, &mut Transform, &CollidingEntities)>,
    collisions: Res<Collisions>,
) {
    for (entity, mut ball, mut transform, touching) in &mut balls {
        for other in touching.iter() {
            let Some(contact) = collisions.get(entity, other) else {
                continue;
            };
            // Seen from the ball: the normal points away from it, into the wall.
            let normal = *contact.normal;
            transform.translation -= (normal * contact.depth).extend(0.0);
            if ball.velocity.dot(normal) > 0.0 {
                ball.velocity = ball.velocity.reflect(normal);
            }
        }
    }
}

fn roll(time: Res<Time>, mut balls: Query<(&Ball, &mut Transform)>) {
    for (ball, mut transform) in &mut balls {
        transform.translation += (ball.velocity * time.delta_secs()).extend(0.0);
    }
}

/// How many balls are outside the outer wall.
pub fn escaped_balls(world: &mut World) -> usize {
    let half = map_size() / 2.0 - TILE;
    world
        .query_filtered::<&Transform, With<Ball>>()
        .iter(world)
        .filter(|t| t.translation.x.abs() > half.x || t.translation.y.abs() > half.y)
        .count()
}

/// Frame time and detection, as Bevy's diagnostics smooth them.
pub fn diagnostics_text(store: &DiagnosticsStore) -> String {
    let value = |path: &DiagnosticPath| {
        store
            .get(path)
            .and_then(|d| d.smoothed())
            .unwrap_or(f64::NAN)
    };
    format!(
        "frame {:.2} ms, collision {:.3} ms\n{:.0} colliders, {:.0} touching pairs",
        value(&FrameTimeDiagnosticsPlugin::FRAME_TIME),
        value(&CollisionDiagnosticsPlugin::DETECTION),
        value(&CollisionDiagnosticsPlugin::COLLIDERS),
        value(&CollisionDiagnosticsPlugin::CONTACT_PAIRS),
    )
}

#[derive(Component)]
struct DiagnosticsText;

fn spawn_diagnostics_text(mut commands: Commands) {
    commands.spawn((
        DiagnosticsText,
        Text::new(""),
        Node {
            position_type: PositionType::Absolute,
            top: px(8.0),
            left: px(8.0),
            ..default()
        },
    ));
}

fn show_diagnostics(
    store: Res<DiagnosticsStore>,
    mut text: Single<&mut Text, With<DiagnosticsText>>,
) {
    text.0 = diagnostics_text(&store);
}
