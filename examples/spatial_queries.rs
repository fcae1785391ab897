//! Spatial queries: a turret finds the enemies in range and checks which of
//! them it can see.
//!
//! [`SpatialQuery`] answers questions about the colliders without moving
//! anything: `shape_hits` lists what a shape placed somewhere overlaps (here
//! the turret's range), `cast_ray` finds the first thing along a ray (here
//! the line of sight, blocked by a crate). `point_hits` and `cast_shape`
//! work the same way. The queries see the colliders as the last detection
//! did, so they run after it.
//!
//! ```sh
//! cargo run --example spatial_queries
//! cargo run --example spatial_queries -- --headless
//! ```

#[path = "common/mod.rs"]
mod common;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;

const RANGE: f32 = 250.0;
const TURRET: u32 = 1 << 0;
const ENEMY: u32 = 1 << 1;
const CRATE: u32 = 1 << 2;

fn main() -> AppExit {
    if common::headless() {
        let mut app = headless_app();
        (0..180).for_each(|_| app.update());
        return AppExit::Success;
    }
    common::windowed_app(CollisionPlugin::default(), SpatialQueries)
        .add_systems(PostUpdate, draw_sightlines.after(look_around))
        .run()
}

/// The example without a window, 1/60 s a frame (`--headless`, tests).
pub fn headless_app() -> App {
    common::headless_app(CollisionPlugin::default(), SpatialQueries)
}

/// The scene, the patrol and the turret's queries.
pub struct SpatialQueries;

impl Plugin for SpatialQueries {
    fn build(&self, app: &mut App) {
        app.init_resource::<Sightlines>()
            .add_systems(Startup, spawn_scene)
            .add_systems(Update, patrol)
            .add_systems(PostUpdate, look_around.after(CollisionSystems::Events));
    }
}

#[derive(Component)]
pub struct Turret;

#[derive(Component)]
pub struct Enemy;

/// An enemy walking to and fro behind the crate, in and out of sight.
#[derive(Component)]
pub struct Patrol;

#[derive(Component)]
pub struct Crate;

/// For each enemy in range: the first thing on the line towards it.
#[derive(Resource, Default)]
pub struct Sightlines(pub Vec<(Entity, RayHit)>);

fn spawn_scene(mut commands: Commands) {
    let layers = |kind| CollisionLayers::new(kind, u32::MAX);
    commands.spawn((Turret, Collider::circle(20.0), layers(TURRET)));
    commands.spawn((
        Crate,
        Collider::rect(60.0, 30.0),
        layers(CRATE),
        Sprite::from_color(Color::srgb(0.55, 0.4, 0.25), Vec2::new(60.0, 30.0)),
        Transform::from_xyz(0.0, 120.0, 0.0),
    ));
    for (x, y) in [(180.0, 0.0), (-350.0, -150.0)] {
        let enemy = (Enemy, Collider::circle(15.0), layers(ENEMY));
        commands.spawn((enemy, Transform::from_xyz(x, y, 0.0)));
    }
    let enemy = (Enemy, Collider::circle(15.0), layers(ENEMY));
    commands.spawn((enemy, Patrol, Transform::from_xyz(0.0, 210.0, 0.0)));
}

fn patrol(time: Res<Time>, mut patrols: Query<&mut Transform, With<Patrol>>) {
    for mut transform in &mut patrols {
        transform.translation.x = 150.0 * (0.8 * time.elapsed_secs()).sin();
    }
}

/// After detection, so that the queries see this frame's poses.
fn look_around(
    spatial: SpatialQuery,
    turret: Single<(Entity, &GlobalTransform), With<Turret>>,
    targets: Query<&GlobalTransform, With<Enemy>>,
    mut sightlines: ResMut<Sightlines>,
) {
    let (turret, origin) = (turret.0, turret.1.translation().truncate());
    // In range: the enemies a circle of radius RANGE around the turret
    // overlaps. The filter's layers keep the crate out.
    let range = Isometry2d::from_translation(origin);
    let enemies_only = QueryFilter::default().with_layers(CollisionLayers::new(u32::MAX, ENEMY));
    let in_range = spatial.shape_hits(&Collider::circle(RANGE), range, &enemies_only);
    // In sight: the ray towards the enemy hits it first. The ray starts
    // inside the turret, so the turret itself is excluded.
    let not_self = QueryFilter::default().with_excluded([turret]);
    sightlines.0.clear();
    for enemy in in_range {
        let Ok(target) = targets.get(enemy) else {
            continue;
        };
        let Ok(direction) = Dir2::new(target.translation().truncate() - origin) else {
            continue;
        };
        if let Some(hit) = spatial.cast_ray(origin, direction, RANGE, &not_self) {
            sightlines.0.push((enemy, hit));
        }
    }
}

/// Windowed only (gizmos need a renderer): the range, and each line of
/// sight from the turret (at the origin) up to what it hits, green when
/// that is the enemy.
fn draw_sightlines(mut gizmos: Gizmos, sightlines: Res<Sightlines>) {
    gizmos.circle_2d(Isometry2d::IDENTITY, RANGE, Color::srgb(0.3, 0.3, 0.35));
    for &(enemy, hit) in &sightlines.0 {
        let seen = hit.entity == enemy;
        let color = if seen {
            Color::srgb(0.3, 1.0, 0.4)
        } else {
            Color::srgb(0.6, 0.6, 0.6)
        };
        gizmos.line_2d(Vec2::ZERO, hit.point, color);
    }
}
