//! A level made in the Tiled editor (`assets/level.tmx`), read with the
//! `tiled` crate: the tile layer becomes one [`TilemapCollider`] whose
//! kinds come from each tile's `kind` property (ground, spikes on a hazard
//! layer, one-way ledges), and the object layer's rectangle, ellipse,
//! polygon and polyline become colliders. A walker crosses it with
//! `move_and_slide`, jumping what blocks it; spikes are heard, not felt.
//!
//! Tiled counts y downwards from the top; the map here counts it upwards
//! from the bottom, so rows and object coordinates are flipped.
//!
//! ```sh
//! cargo run --example tiled_level
//! cargo run --example tiled_level -- --headless
//! ```

#[path = "common/mod.rs"]
mod common;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use tiled::{Loader, Map, ObjectShape, PropertyValue};

const SOLID: u32 = 1 << 0;
const HAZARD: u32 = 1 << 1;
const WALKER: u32 = 1 << 2;

fn main() -> AppExit {
    if common::headless() {
        let mut app = headless_app();
        (0..900).for_each(|_| app.update());
        let walker = app
            .world_mut()
            .query::<&Walker>()
            .single(app.world())
            .unwrap();
        println!(
            "tiled_level: walked to x = {:.0}, spikes touched {} times",
            walker.farthest, walker.spikes
        );
        return AppExit::Success;
    }
    common::windowed_app(CollisionPlugin::default(), TiledLevel).run()
}

pub fn headless_app() -> App {
    common::headless_app(CollisionPlugin::default(), TiledLevel)
}

pub struct TiledLevel;

impl Plugin for TiledLevel {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, spawn_level)
            .add_systems(Update, (make_ledges_one_way, walk));
    }
}

#[derive(Component)]
pub struct Walker {
    velocity: Vec2,
    /// The farthest right and the lowest its centre has been.
    pub farthest: f32,
    pub lowest: f32,
    /// Spike tiles it started touching.
    pub spikes: usize,
}

impl Default for Walker {
    fn default() -> Self {
        Self {
            velocity: Vec2::ZERO,
            farthest: f32::NEG_INFINITY,
            lowest: f32::INFINITY,
            spikes: 0,
        }
    }
}

fn spawn_level(mut commands: Commands) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/level.tmx");
    let map = match Loader::new().load_tmx_map(path) {
        Ok(map) => map,
        Err(error) => {
            error!("cannot read {path}: {error}");
            return;
        }
    };
    let tile = Vec2::new(map.tile_width as f32, map.tile_height as f32);
    let height = map.height as f32 * tile.y;
    // Tiled's (x, y down from the top) in the map's space.
    let flip = |x: f32, y: f32| Vec2::new(x, height - y);
    let corner = Vec2::new(-(map.width as f32) * tile.x / 2.0, -height / 2.0);
    let level = commands
        .spawn((
            tile_colliders(&map, tile),
            CollisionLayers::new(SOLID, u32::MAX),
            Transform::from_translation(corner.extend(0.0)),
        ))
        .id();
    for layer in map.layers() {
        let Some(objects) = layer.as_object_layer() else {
            continue;
        };
        for object in objects.objects() {
            let origin = flip(object.x, object.y);
            // Tiled turns objects clockwise, in degrees, about their origin.
            let turn = Rot2::degrees(-object.rotation);
            let (offset, collider) = match &object.shape {
                ObjectShape::Rect { width, height } => (
                    Vec2::new(width / 2.0, -height / 2.0),
                    Collider::rect(*width, *height),
                ),
                ObjectShape::Ellipse { width, height } => {
                    // A circle, or a capsule along its long axis.
                    let (long, short) = (width.max(*height), width.min(*height));
                    let capsule = Collider::capsule(short / 2.0, long - short);
                    let along_x = width > height;
                    let collider = if along_x {
                        Collider::compound([(Isometry2d::from_rotation(Rot2::FRAC_PI_2), capsule)])
                    } else {
                        capsule
                    };
                    (Vec2::new(width / 2.0, -height / 2.0), collider)
                }
                ObjectShape::Polygon { points } => {
                    let points: Vec<Vec2> = points.iter().map(|&(x, y)| Vec2::new(x, -y)).collect();
                    match Collider::concave_polygon(&points) {
                        Ok(collider) => (Vec2::ZERO, collider),
                        Err(error) => {
                            warn!("object {} ({}): {error}", object.id(), object.name);
                            continue;
                        }
                    }
                }
                ObjectShape::Polyline { points } => {
                    let points: Vec<Vec2> = points.iter().map(|&(x, y)| Vec2::new(x, -y)).collect();
                    match Collider::polyline(&points) {
                        Ok(collider) => (Vec2::ZERO, collider),
                        Err(error) => {
                            warn!("object {} ({}): {error}", object.id(), object.name);
                            continue;
                        }
                    }
                }
                ObjectShape::Point(..) if object.name == "start" => {
                    // Not a child of the level: `move_and_slide` moves it
                    // in world space.
                    commands
                        .spawn((
                            Walker::default(),
                            Collider::capsule(5.0, 8.0),
                            CollisionLayers::new(WALKER, SOLID | HAZARD),
                            Sprite::from_color(Color::srgb(0.3, 0.8, 1.0), Vec2::new(10.0, 18.0)),
                            Transform::from_translation((corner + origin).extend(1.0)),
                        ))
                        .observe(count_spikes);
                    continue;
                }
                _ => continue,
            };
            let at = origin + turn * offset;
            commands.spawn((
                collider,
                StaticCollider,
                CollisionLayers::new(SOLID, u32::MAX),
                Transform::from_translation(at.extend(0.0))
                    .with_rotation(Quat::from_rotation_z(turn.as_radians())),
                ChildOf(level),
            ));
        }
    }
}

/// Spikes are on a hazard layer the walker hears but walks through.
fn count_spikes(
    hit: On<CollisionStarted>,
    kinds: Query<&TilemapKind>,
    mut walkers: Query<&mut Walker>,
) {
    if kinds.get(hit.other).is_ok_and(|kind| kind.0 == '^')
        && let Ok(mut walker) = walkers.get_mut(hit.entity)
    {
        walker.spikes += 1;
    }
}

/// The tile layers as one map: each tile's `kind` property picks its kind
/// of solid tile.
fn tile_colliders(map: &Map, tile: Vec2) -> TilemapCollider {
    let mut cells = Vec::new();
    for layer in map.layers() {
        let Some(tiles) = layer.as_tile_layer() else {
            continue;
        };
        for y in 0..map.height {
            for x in 0..map.width {
                let Some(kind) = tiles.get_tile(x as i32, y as i32).and_then(|t| {
                    let tile = t.get_tile()?;
                    match tile.properties.get("kind")? {
                        PropertyValue::StringValue(kind) => Some(kind.clone()),
                        _ => None,
                    }
                }) else {
                    continue;
                };
                let symbol = match kind.as_str() {
                    "spikes" => '^',
                    "ledge" => '=',
                    _ => '#',
                };
                cells.push((UVec2::new(x, map.height - 1 - y), symbol));
            }
        }
    }
    TilemapCollider::from_cells_with_kinds(
        tile,
        UVec2::new(map.width, map.height),
        cells,
        [
            ('^', CollisionLayers::new(HAZARD, WALKER)),
            ('=', CollisionLayers::new(SOLID, u32::MAX)),
        ],
    )
}

/// The ledge tiles' collider (a child of the map with its kind) blocks
/// from above only.
fn make_ledges_one_way(
    kinds: Query<(Entity, &TilemapKind), Without<OneWayPlatform>>,
    mut commands: Commands,
) {
    for (entity, kind) in &kinds {
        if kind.0 == '=' {
            commands.entity(entity).insert(OneWayPlatform::default());
        }
    }
}

/// Walks right, and jumps when something blocks it on the ground.
fn walk(
    time: Res<Time>,
    spatial: SpatialQuery,
    walker: Single<(Entity, &Collider, &mut Transform, &mut Walker)>,
) {
    let (entity, collider, mut transform, mut walker) = walker.into_inner();
    let dt = time.delta_secs();
    walker.velocity.x = 90.0;
    walker.velocity.y = (walker.velocity.y - 900.0 * dt).max(-400.0);
    let config = MoveAndSlideConfig {
        max_slope: 50f32.to_radians(),
        step_height: 4.0,
        snap_to_ground: 3.0,
        ..default()
    };
    let filter = QueryFilter::default()
        .with_layers(CollisionLayers::new(WALKER, SOLID))
        .with_excluded([entity]);
    let pose = Isometry2d::from_translation(transform.translation.truncate());
    let moved = spatial.move_and_slide(collider, pose, walker.velocity * dt, &config, &filter);
    transform.translation = moved.translation.extend(transform.translation.z);
    let blocked = moved.hits.iter().any(|hit| hit.normal.x < -0.7);
    if moved.grounded {
        walker.velocity.y = if blocked { 330.0 } else { 0.0 };
    }
    walker.farthest = walker.farthest.max(transform.translation.x);
    walker.lowest = walker.lowest.min(transform.translation.y);
}
