//! The windowed game: camera, sprites, text and keyboard. Nothing here
//! touches the rules; headless runs leave this module out.

use bevy::camera::ScalingMode;
use bevy::prelude::*;
use bevy_collide2d::geometry::Shape;
use bevy_collide2d::prelude::*;

use super::autopilot::Autopilot;
use super::level::spawn_bricks;
use super::paddle::{MAX_TILT, PaddleControl};
use super::{
    BALL_RADIUS, Ball, Brick, Game, GamePlugin, GameSettings, GameSystems, OutZone, Paddle, Phase,
    Spinner,
};

/// The world area the camera always shows (arena, walls, out zone and a
/// strip at the top for the text).
const VIEW_SIZE: Vec2 = Vec2::new(1240.0, 880.0);
const VIEW_CENTER_Y: f32 = -10.0;

const BACKGROUND: Color = Color::srgb(0.05, 0.06, 0.09);
const WALL_COLOR: Color = Color::srgb(0.32, 0.36, 0.45);
const PADDLE_COLOR: Color = Color::srgb(0.85, 0.88, 0.95);
const SPINNER_COLOR: Color = Color::srgb(0.6, 0.4, 0.9);
const OUT_ZONE_COLOR: Color = Color::srgba(0.9, 0.2, 0.2, 0.12);
const BALL_COLOR: Color = Color::srgb(1.0, 0.92, 0.6);
const TEXT_COLOR: Color = Color::srgb(0.9, 0.92, 0.96);
const HELP_COLOR: Color = Color::srgb(0.6, 0.64, 0.72);

// ASCII only: Bevy's default font is a small subset.
const HELP: &str = "Left/Right move   Q/E tilt to aim   Space serve\n\
                    P autopilot   D collision overlay   R restart";

pub(super) fn run(settings: GameSettings, autopilot: bool, overlay: bool) -> AppExit {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_collide2d: breakout".into(),
                resolution: (1280, 800).into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((
            CollisionPlugin::default(),
            CollisionDebugPlugin { enabled: overlay },
            GamePlugin {
                settings,
                autopilot,
            },
        ))
        .insert_resource(ClearColor(BACKGROUND))
        .add_observer(decorate)
        .add_observer(restart)
        .add_systems(Startup, spawn_camera_and_text)
        .add_systems(Update, keyboard.in_set(GameSystems::Input))
        .add_systems(Update, (tint_bricks, update_text))
        .run()
}

/// Starts the game over: new bricks, score and lives.
#[derive(Event, Debug)]
struct Restart;

#[derive(Component)]
struct StatsText;

#[derive(Component)]
struct MessageText;

fn spawn_camera_and_text(mut commands: Commands) {
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scaling_mode: ScalingMode::AutoMin {
                min_width: VIEW_SIZE.x,
                min_height: VIEW_SIZE.y,
            },
            ..OrthographicProjection::default_2d()
        }),
        Transform::from_xyz(0.0, VIEW_CENTER_Y, 0.0),
    ));

    // Top strip: stats on the left, controls on the right.
    commands.spawn((
        Node {
            position_type: PositionType::Absolute,
            top: Val::Px(8.0),
            left: Val::Px(16.0),
            right: Val::Px(16.0),
            justify_content: JustifyContent::SpaceBetween,
            ..default()
        },
        children![
            (
                Text::new(""),
                TextFont::from_font_size(24.0),
                TextColor(TEXT_COLOR),
                StatsText,
            ),
            (
                Text::new(HELP),
                TextFont::from_font_size(15.0),
                TextColor(HELP_COLOR),
                TextLayout::justify(Justify::Right),
            ),
        ],
    ));

    // Centre: serve hint, win and game-over messages.
    commands.spawn((
        Node {
            position_type: PositionType::Absolute,
            width: Val::Percent(100.0),
            top: Val::Percent(58.0),
            justify_content: JustifyContent::Center,
            ..default()
        },
        children![(
            Text::new(""),
            TextFont::from_font_size(30.0),
            TextColor(TEXT_COLOR),
            TextLayout::justify(Justify::Center),
            MessageText,
        )],
    ));
}

/// What `decorate` needs to know to pick a look for a collider.
type ColliderKind = (
    &'static Collider,
    Option<&'static Brick>,
    Has<Ball>,
    Has<Paddle>,
    Has<Spinner>,
    Has<OutZone>,
);

/// Gives every collider a sprite or mesh of exactly its shape, as soon
/// as it is spawned (also bricks built by a restart).
fn decorate(
    add: On<Add<Collider>>,
    parts: Query<ColliderKind>,
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    let Ok((collider, brick, is_ball, is_paddle, is_spinner, is_out_zone)) = parts.get(add.entity)
    else {
        return;
    };
    if is_ball {
        commands.entity(add.entity).insert((
            Mesh2d(meshes.add(Circle::new(BALL_RADIUS))),
            MeshMaterial2d(materials.add(BALL_COLOR)),
        ));
        return;
    }
    // Everything else is a rectangle.
    let Shape::Rect { half_size } = *collider.shape() else {
        return;
    };
    let color = match brick {
        Some(brick) => brick_color(brick),
        None if is_paddle => PADDLE_COLOR,
        None if is_spinner => SPINNER_COLOR,
        None if is_out_zone => OUT_ZONE_COLOR,
        None => WALL_COLOR,
    };
    commands
        .entity(add.entity)
        .insert(Sprite::from_color(color, half_size * 2.0));
}

/// A hue per kind of brick (by its points), darker while it has more than
/// one hit left.
fn brick_color(brick: &Brick) -> Color {
    let hue = match brick.points {
        6 => 350.0,
        5 => 195.0,
        4 => 25.0,
        3 => 48.0,
        _ => 140.0,
    };
    let lightness = if brick.hits_left > 1 { 0.38 } else { 0.58 };
    Color::hsl(hue, 0.75, lightness)
}

fn tint_bricks(mut bricks: Query<(&Brick, &mut Sprite), Changed<Brick>>) {
    for (brick, mut sprite) in &mut bricks {
        sprite.color = brick_color(brick);
    }
}

fn keyboard(
    keys: Res<ButtonInput<KeyCode>>,
    game: Res<Game>,
    mut control: ResMut<PaddleControl>,
    mut autopilot: ResMut<Autopilot>,
    mut gizmo_store: ResMut<GizmoConfigStore>,
    mut commands: Commands,
) {
    let mut axis = 0.0;
    if keys.pressed(KeyCode::ArrowLeft) {
        axis -= 1.0;
    }
    if keys.pressed(KeyCode::ArrowRight) {
        axis += 1.0;
    }
    control.move_axis = axis;
    control.tilt_target = match (keys.pressed(KeyCode::KeyQ), keys.pressed(KeyCode::KeyE)) {
        (true, false) => MAX_TILT,
        (false, true) => -MAX_TILT,
        _ => 0.0,
    };
    control.launch = keys.just_pressed(KeyCode::Space);

    if keys.just_pressed(KeyCode::KeyP) {
        autopilot.0 = !autopilot.0;
    }
    if keys.just_pressed(KeyCode::KeyD) {
        let (config, _) = gizmo_store.config_mut::<CollisionGizmos>();
        config.enabled = !config.enabled;
    }
    let over = game.phase != Phase::Playing;
    if keys.just_pressed(KeyCode::KeyR) || (over && keys.just_pressed(KeyCode::Space)) {
        commands.trigger(Restart);
    }
}

fn restart(
    _restart: On<Restart>,
    bricks: Query<Entity, With<Brick>>,
    mut balls: Query<&mut Ball>,
    mut game: ResMut<Game>,
    settings: Res<GameSettings>,
    mut commands: Commands,
) {
    for brick in &bricks {
        commands.entity(brick).despawn();
    }
    spawn_bricks(&mut commands);
    for mut ball in &mut balls {
        *ball = Ball::waiting();
    }
    *game = Game::new(settings.lives);
}

fn update_text(
    game: Res<Game>,
    autopilot: Res<Autopilot>,
    balls: Query<&Ball>,
    bricks: Query<(), With<Brick>>,
    mut stats: Single<&mut Text, (With<StatsText>, Without<MessageText>)>,
    mut message: Single<&mut Text, (With<MessageText>, Without<StatsText>)>,
) {
    let mut line = format!(
        "Score {}   Lives {}   Bricks {}",
        game.score,
        game.lives,
        bricks.iter().count()
    );
    if autopilot.0 {
        line.push_str("   [autopilot]");
    }
    stats.set_if_neq(Text::new(line));

    let waiting = balls.iter().any(Ball::is_waiting);
    let text = match game.phase {
        Phase::Won => format!("Cleared! Score {}. Press R to play again", game.score),
        Phase::Lost => format!("Game over. Score {}. Press R to try again", game.score),
        Phase::Playing if waiting && !autopilot.0 => "Space to serve, Q/E to aim".to_owned(),
        Phase::Playing => String::new(),
    };
    message.set_if_neq(Text::new(text));
}
