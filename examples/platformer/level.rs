//! The level: an ASCII tile map ([`TilemapCollider`]) with spike tiles of
//! their own kind, plus what tiles cannot draw: a ramp (a convex polygon),
//! a hill (a polyline), a one-way platform, a moving platform, coins and the
//! goal.

use bevy::prelude::*;
use bevy_collide2d::prelude::*;

use super::player::touch;
use super::{Coin, Goal, ITEMS, MovingPlatform, PLAYER, Player, SOLID, SPAWN, TILE};

/// `#` is solid, `^` spikes at the bottom of the pits; the first line is the
/// top row. Tile (col, row), counted from the bottom left, is centred on
/// `((col + 0.5) * TILE, (row + 0.5) * TILE)`.
const MAP: &str = "
############################################################
#..........................................................#
#..........................................................#
#..........................................................#
#..........................................................#
#..........................................................#
#..........................................................#
#..............######......................................#
#..............######......................................#
#..............######......................................#
###############################....########.........########
###############################^^^^########^^^^^^^^^########
";

/// The map's spike tiles: their own collider, on the `ITEMS` layer.
pub const SPIKES: char = '^';

/// The ground's top, where the player walks.
pub const GROUND: f32 = 2.0 * TILE;
/// Where the moving platform turns around (its centre's x).
pub const PLATFORM_RANGE: (f32, f32) = (43.0 * TILE + 30.0, 52.0 * TILE - 30.0);
/// The pit the moving platform crosses, as x from, to.
pub const PIT: (f32, f32) = (43.0 * TILE, 52.0 * TILE);
/// The one-way platform's top and its x from, to.
pub const LEDGE: (f32, f32, f32) = (GROUND + 70.0, 37.0 * TILE, 41.0 * TILE);
/// The goal's x.
pub const GOAL_X: f32 = 56.0 * TILE;

const WALL_COLOR: Color = Color::srgb(0.30, 0.33, 0.42);
const LEDGE_COLOR: Color = Color::srgb(0.55, 0.45, 0.30);
const SPIKE_COLOR: Color = Color::srgb(0.85, 0.2, 0.2);

/// The level's size in world units.
pub fn level_size() -> Vec2 {
    tilemap().size().as_vec2() * TILE
}

/// The map's walls and floors on this entity, its spikes on a child entity
/// with their own layers (and [`TilemapKind`]`(SPIKES)`).
fn tilemap() -> TilemapCollider {
    let spikes = CollisionLayers::new(ITEMS, PLAYER);
    TilemapCollider::from_ascii_with_kinds(Vec2::splat(TILE), MAP, [(SPIKES, spikes)])
}

/// The hill's line: from the block's top right corner down to the ground
/// in a smooth curve, a point every 8 units.
pub fn hill_points() -> Vec<Vec2> {
    let (top, bottom) = (Vec2::new(21.0, 5.0) * TILE, Vec2::new(27.0, 2.0) * TILE);
    (0..=15)
        .map(|i| {
            let t = i as f32 / 15.0;
            let ease = (1.0 - (t * std::f32::consts::PI).cos()) / 2.0;
            Vec2::new(
                top.x + (bottom.x - top.x) * t,
                top.y + (bottom.y - top.y) * ease,
            )
        })
        .collect()
}

/// The player's ground probe: a ray down from its feet (the capsule's
/// bottom, 14 below its centre) that sees only the level, up to 400 below.
/// The plugin casts it after every detection into the player's `RayHits`.
fn ground_probe() -> RayCaster {
    RayCaster::new(Vec2::new(0.0, -14.0), Dir2::NEG_Y)
        .with_max_distance(400.0)
        .with_filter(QueryFilter::default().with_layers(CollisionLayers::new(PLAYER, SOLID)))
}

/// Static things are level geometry on the `SOLID` layer.
fn solid() -> impl Bundle {
    (StaticCollider, CollisionLayers::new(SOLID, PLAYER))
}

pub fn spawn_level(mut commands: Commands) {
    // One static collider of merged runs of tiles; sprites draw each tile.
    commands.spawn((
        tilemap(),
        CollisionLayers::new(SOLID, PLAYER),
        Transform::default(),
    ));
    let rows = MAP.trim().lines().rev();
    for (row, line) in rows.enumerate() {
        for (col, tile) in line.chars().enumerate() {
            let color = match tile {
                '#' => WALL_COLOR,
                SPIKES => SPIKE_COLOR,
                _ => continue,
            };
            let centre = (Vec2::new(col as f32, row as f32) + 0.5) * TILE;
            commands.spawn((
                Sprite::from_color(color, Vec2::splat(TILE - 1.0)),
                Transform::from_translation(centre.extend(-1.0)),
            ));
        }
    }

    // A ramp up to the block of tiles at columns 15-20: a triangle.
    let ramp = [
        Vec2::new(9.0, 2.0),
        Vec2::new(15.0, 2.0),
        Vec2::new(15.0, 5.0),
    ]
    .map(|corner| corner * TILE);
    commands.spawn((
        Collider::convex_polygon(&ramp).expect("a triangle"),
        solid(),
        Transform::default(),
    ));

    // A hill down from the block's top right corner to the ground: a
    // polyline, walked over its joints without catching on them.
    commands.spawn((
        Collider::polyline(&hill_points()).expect("distinct points"),
        solid(),
        Transform::default(),
    ));

    // A ledge the player jumps up through and lands on.
    let (ledge_top, from, to) = LEDGE;
    commands.spawn((
        Collider::rect(to - from, 6.0),
        solid(),
        OneWayPlatform::default(),
        Sprite::from_color(LEDGE_COLOR, Vec2::new(to - from, 6.0)),
        Transform::from_xyz((from + to) / 2.0, ledge_top - 3.0, -1.0),
    ));

    // A platform that carries the player over the pit; it moves, so it is
    // not a `StaticCollider`.
    commands.spawn((
        MovingPlatform { speed: 50.0 },
        Collider::rect(60.0, 10.0),
        CollisionLayers::new(SOLID, PLAYER),
        Sprite::from_color(LEDGE_COLOR, Vec2::new(60.0, 10.0)),
        Transform::from_xyz(PLATFORM_RANGE.0, GROUND - 5.0, -1.0),
    ));

    // Coins along the route: on the ground, on the block, above the ledge,
    // over the pit.
    let coins = [
        Vec2::new(120.0, GROUND + 14.0),
        Vec2::new(360.0, 5.0 * TILE + 14.0),
        Vec2::new((from + to) / 2.0, ledge_top + 15.0),
        Vec2::new((PIT.0 + PIT.1) / 2.0, GROUND + 22.0),
    ];
    for at in coins {
        commands.spawn((
            Coin,
            Collider::circle(5.0),
            CollisionLayers::new(ITEMS, PLAYER),
            Transform::from_translation(at.extend(0.0)),
        ));
    }

    commands.spawn((
        Goal,
        Collider::rect(10.0, 40.0),
        CollisionLayers::new(ITEMS, PLAYER),
        Sprite::from_color(Color::srgb(0.3, 0.9, 0.4), Vec2::new(10.0, 40.0)),
        Transform::from_xyz(GOAL_X, GROUND + 20.0, -1.0),
    ));

    commands
        .spawn((
            Player::default(),
            Collider::capsule(7.0, 14.0),
            CollisionLayers::new(PLAYER, SOLID | ITEMS),
            ground_probe(),
            Transform::from_translation(SPAWN.extend(1.0)),
        ))
        .observe(touch);
}

/// Back and forth over the pit.
pub fn move_platforms(
    time: Res<Time>,
    mut platforms: Query<(&mut MovingPlatform, &mut Transform)>,
) {
    for (mut platform, mut transform) in &mut platforms {
        let x = transform.translation.x + platform.speed * time.delta_secs();
        let (from, to) = PLATFORM_RANGE;
        if x < from || x > to {
            platform.speed = -platform.speed;
        }
        transform.translation.x = x.clamp(from, to);
    }
}
