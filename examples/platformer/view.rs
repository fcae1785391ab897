//! The window: a camera that follows the player, meshes for the shapes that
//! sprites cannot draw (the ramp, the hill, the capsule, the coins), the
//! keyboard and a line of text.

use bevy::asset::RenderAssetUsages;
use bevy::mesh::PrimitiveTopology;
use bevy::prelude::*;
use bevy::sprite_render::{ColorMaterial, MeshMaterial2d};
use bevy_collide2d::geometry::{ConvexPolygon, Shape};
use bevy_collide2d::prelude::*;

use super::autoplay::autoplay;
use super::level::{GROUND, level_size, spawn_level};
use super::player::move_player;
use super::{Autoplay, COINS, Coin, Controls, Game, Platformer, Player};

pub fn run(autoplay_on: bool, overlay: bool) -> AppExit {
    let mut app = App::new();
    app.add_plugins((DefaultPlugins, CollisionPlugin::default(), Platformer))
        .insert_resource(Autoplay(autoplay_on))
        .add_systems(Startup, (spawn_view, add_meshes.after(spawn_level)))
        .add_systems(
            Update,
            (
                keyboard.before(autoplay),
                (follow_player, show_score).after(move_player),
            ),
        )
        .add_systems(PostUpdate, place_shadow.after(CollisionSystems::Casters));
    if overlay {
        app.add_plugins(CollisionDebugPlugin::default());
    }
    app.run()
}

/// The player's shadow on the level below it.
#[derive(Component)]
struct Shadow;

/// Puts the shadow where the player's ground probe hits the level, smaller
/// the higher the player is; hidden when the probe sees nothing.
fn place_shadow(
    player: Single<&RayHits, With<Player>>,
    shadow: Single<(&mut Transform, &mut Visibility), With<Shadow>>,
) {
    let (mut transform, mut visibility) = shadow.into_inner();
    let Some(ground) = player.first() else {
        *visibility = Visibility::Hidden;
        return;
    };
    *visibility = Visibility::Inherited;
    let size = (1.0 - ground.distance / 200.0).max(0.3);
    transform.translation = (ground.point + Vec2::new(0.0, 1.0)).extend(0.5);
    transform.scale = Vec3::new(size, size, 1.0);
}

fn spawn_view(mut commands: Commands) {
    commands.spawn((
        Shadow,
        Sprite::from_color(Color::srgba(0.0, 0.0, 0.0, 0.4), Vec2::new(16.0, 3.0)),
        Transform::default(),
    ));
    commands.spawn((
        Camera2d,
        Projection::from(OrthographicProjection {
            scale: 0.6,
            ..OrthographicProjection::default_2d()
        }),
    ));
    commands.spawn((
        Text::default(),
        Node {
            position_type: PositionType::Absolute,
            top: px(12),
            left: px(12),
            ..default()
        },
    ));
}

/// What a collider without a sprite is drawn from.
type Unsprited<'a> = (Entity, &'a Collider, Has<Coin>, Has<Player>);

/// A mesh for each collider drawn by none of the sprites: its own shape.
fn add_meshes(
    shapes: Query<Unsprited, Without<Sprite>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    mut commands: Commands,
) {
    for (entity, collider, coin, player) in &shapes {
        let mesh = match collider.shape() {
            Shape::Circle { radius } => Circle::new(*radius).mesh().build(),
            Shape::Capsule {
                radius,
                half_length,
            } => Capsule2d::new(*radius, 2.0 * half_length).mesh().build(),
            Shape::Polygon(polygon) => polygon_mesh(polygon),
            Shape::Compound(compound) => match compound.polyline_points() {
                Some(line) => ground_under(line),
                None => continue,
            },
            _ => continue,
        };
        let color = match (coin, player) {
            (true, _) => Color::srgb(1.0, 0.85, 0.2),
            (_, true) => Color::srgb(0.4, 0.7, 1.0),
            _ => Color::srgb(0.30, 0.33, 0.42),
        };
        commands.entity(entity).insert((
            Mesh2d(meshes.add(mesh)),
            MeshMaterial2d(materials.add(color)),
        ));
    }
}

fn polygon_mesh(polygon: &ConvexPolygon) -> Mesh {
    bevy::mesh::ConvexPolygonMeshBuilder {
        vertices: polygon.vertices().to_vec(),
    }
    .build()
}

/// The ground under a line that runs left to right above the floor: a
/// quad down to the floor under each segment.
fn ground_under(line: &[Vec2]) -> Mesh {
    let floor = |p: Vec2| Vec2::new(p.x, GROUND);
    let triangles = line.windows(2).flat_map(|segment| {
        let (a, b) = (segment[0], segment[1]);
        [a, floor(a), b, b, floor(a), floor(b)]
    });
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(
        Mesh::ATTRIBUTE_POSITION,
        triangles.map(|p| [p.x, p.y, 0.0]).collect::<Vec<_>>(),
    )
}

fn keyboard(
    keys: Res<ButtonInput<KeyCode>>,
    mut controls: ResMut<Controls>,
    mut autoplay: ResMut<Autoplay>,
) {
    if keys.just_pressed(KeyCode::KeyP) {
        autoplay.0 = !autoplay.0;
    }
    if autoplay.0 {
        return;
    }
    let pressed = |codes: &[KeyCode]| codes.iter().any(|&code| keys.pressed(code));
    let right = pressed(&[KeyCode::ArrowRight, KeyCode::KeyD]);
    let left = pressed(&[KeyCode::ArrowLeft, KeyCode::KeyA]);
    *controls = Controls {
        run: f32::from(u8::from(right)) - f32::from(u8::from(left)),
        jump: pressed(&[KeyCode::Space, KeyCode::ArrowUp, KeyCode::KeyW]),
    };
}

fn follow_player(
    player: Single<&Transform, (With<Player>, Without<Camera>)>,
    mut camera: Single<&mut Transform, With<Camera>>,
) {
    let half_view = Vec2::new(1280.0, 720.0) * 0.6 / 2.0;
    let size = level_size();
    camera.translation.x = (player.translation.x).clamp(half_view.x, size.x - half_view.x);
    camera.translation.y = half_view.y.min(size.y / 2.0 + 40.0);
}

fn show_score(game: Res<Game>, autoplay: Res<Autoplay>, mut text: Single<&mut Text>) {
    let state = match game.finished_at {
        Some(_) => "goal!",
        None if autoplay.0 => "autoplay (P to play)",
        None => "arrows to run, space to jump, P for autoplay",
    };
    text.0 = format!(
        "coins {}/{COINS}   spikes {}   {state}",
        game.coins, game.resets
    );
}
