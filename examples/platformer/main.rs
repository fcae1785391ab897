//! A platformer: a capsule character on a tile level, moved by
//! [`SpatialQuery::move_and_slide`], with no physics engine.
//!
//! The character runs, jumps, walks up a ramp (a convex polygon) and down a
//! hill (a polyline) without sliding back or catching on its joints, jumps up through a
//! one-way ledge ([`OneWayPlatform`]) and lands on it, and rides a moving
//! platform over a pit: `move_and_slide` reports the ground it stands on,
//! and the platform's motion is added to the character's. Coins, the goal
//! and the spikes (tiles of their own kind in the map, `^`) are colliders
//! on another layer, heard through an observer on the player
//! ([`CollisionStarted`]). A ground probe on the player (a [`RayCaster`]
//! down from its feet) tells how high it is: its shadow sits on the level
//! below it.
//!
//! [`level`] builds the level, [`player`] moves the player and reacts to
//! what it touches, [`autoplay`] plays the route by itself, [`view`] draws
//! it in a window.
//!
//! # Controls
//!
//! | Key          | Action                 |
//! |--------------|------------------------|
//! | ← / → or A / D | run                  |
//! | Space / ↑ / W  | jump                 |
//! | P            | autoplay on / off      |
//!
//! # Running
//!
//! ```sh
//! cargo run --release --example platformer
//! cargo run --release --example platformer -- --autoplay --overlay
//! cargo run --release --example platformer -- --headless
//! ```
//!
//! `--headless` plays the route by itself without a window and prints one
//! line: `route completed=… frames=… coins=…/… resets=… deepest_overlap=…
//! lowest=…`.

mod autoplay;
mod level;
mod player;
mod view;

use std::fmt;
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_collide2d::prelude::*;

use autoplay::autoplay;
use level::{GROUND, SPIKES, move_platforms, spawn_level};
use player::move_player;

/// World units per tile.
pub const TILE: f32 = 20.0;
/// Where the player starts, and starts again after touching spikes.
pub const SPAWN: Vec2 = Vec2::new(60.0, GROUND + 15.0);
/// Collision layers: the player, the level that blocks it, and the things
/// it picks up or avoids.
pub const PLAYER: u32 = 1 << 0;
pub const SOLID: u32 = 1 << 1;
pub const ITEMS: u32 = 1 << 2;
pub const COINS: u32 = 4;

#[allow(
    dead_code,
    reason = "unused when a test includes this file as a module"
)]
fn main() -> AppExit {
    let flag = |name: &str| std::env::args().any(|arg| arg == name);
    if flag("--headless") {
        println!("{}", run_headless(3600));
        return AppExit::Success;
    }
    view::run(flag("--autoplay"), flag("--overlay"))
}

/// The game's rules, with or without a window.
pub struct Platformer;

impl Plugin for Platformer {
    fn build(&self, app: &mut App) {
        app.init_resource::<Controls>()
            .init_resource::<Game>()
            .init_resource::<Autoplay>()
            .add_systems(Startup, spawn_level)
            .add_systems(
                Update,
                (
                    autoplay.run_if(|on: Res<Autoplay>| on.0),
                    move_platforms,
                    move_player,
                )
                    .chain(),
            )
            .add_systems(PostUpdate, check_player.after(CollisionSystems::Events))
            .add_systems(
                PostUpdate,
                read_ground_probe.after(CollisionSystems::Casters),
            );
    }
}

#[derive(Component, Debug, Default)]
pub struct Player {
    pub velocity: Vec2,
    /// Standing on walkable ground after the last move.
    pub grounded: bool,
    /// What it stands on: a moving platform carries it.
    pub ground: Option<Entity>,
    /// How far below its feet its ground probe (a [`RayCaster`]) sees the
    /// level, if within 400: its shadow goes there.
    pub ground_below: Option<f32>,
}

#[derive(Component)]
pub struct MovingPlatform {
    /// Signed horizontal speed.
    pub speed: f32,
}

#[derive(Component)]
pub struct Coin;

#[derive(Component)]
pub struct Goal;

/// What the player wants this frame, from the keyboard or the autoplay.
#[derive(Resource, Default, Debug, Clone, Copy)]
pub struct Controls {
    /// -1 (left) to 1 (right).
    pub run: f32,
    pub jump: bool,
}

#[derive(Resource, Default)]
pub struct Autoplay(pub bool);

/// The run so far, and the self-checks the headless run reports.
#[derive(Resource, Debug, Default)]
pub struct Game {
    pub frames: u32,
    pub coins: u32,
    pub resets: u32,
    pub finished_at: Option<u32>,
    /// The deepest the player ever overlapped a wall, floor or slope;
    /// `move_and_slide` keeps it out, so this stays 0. (The moving platform
    /// can push into it by up to one frame of its motion, as the query sees
    /// it where the last detection did.)
    pub deepest_overlap: f32,
    /// The lowest the player's centre ever was: below the ground means it
    /// fell through a floor.
    pub lowest: f32,
}

/// After detection: counts the frame and checks that the player is never
/// inside the level's walls, floors and slopes (a one-way ledge it jumps
/// through and the spikes are not ones), nor below its floor.
fn check_player(
    player: Single<(Entity, &Transform, &CollidingEntities), With<Player>>,
    walls: Query<Option<&TilemapKind>, (With<StaticCollider>, Without<OneWayPlatform>)>,
    collisions: Res<Collisions>,
    mut game: ResMut<Game>,
) {
    let (entity, transform, touching) = *player;
    game.frames += 1;
    if game.frames == 1 {
        game.lowest = transform.translation.y;
    }
    game.lowest = game.lowest.min(transform.translation.y);
    for other in touching.iter() {
        let wall = walls
            .get(other)
            .is_ok_and(|kind| kind.is_none_or(|k| k.0 != SPIKES));
        if let (true, Some(contact)) = (wall, collisions.get(entity, other)) {
            game.deepest_overlap = game.deepest_overlap.max(contact.depth);
        }
    }
}

/// After the casters: how far below the player the ground is, from the
/// hits of its ground probe.
fn read_ground_probe(player: Single<(&RayHits, &mut Player)>) {
    let (probe, mut player) = player.into_inner();
    player.ground_below = probe.first().map(|ground| ground.distance);
}

/// What a headless run did: its [`Display`](fmt::Display) is the line
/// `--headless` prints.
#[derive(Debug, Clone, Copy)]
pub struct Report {
    pub completed: bool,
    pub frames: u32,
    pub coins: u32,
    pub resets: u32,
    pub deepest_overlap: f32,
    pub lowest: f32,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "route completed={} frames={} coins={}/{COINS} resets={} deepest_overlap={:.3} lowest={:.1}",
            self.completed, self.frames, self.coins, self.resets, self.deepest_overlap, self.lowest
        )
    }
}

/// The game without a window, 1/60 s a frame.
pub fn headless_app(autoplay: bool) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        TransformPlugin,
        CollisionPlugin::default(),
        Platformer,
    ))
    .insert_resource(Autoplay(autoplay))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / 60.0,
    )));
    app
}

/// The game without a window, autoplayed until the goal or `max_frames`.
pub fn run_headless(max_frames: u32) -> Report {
    let mut app = headless_app(true);
    for _ in 0..max_frames {
        app.update();
        if app.world().resource::<Game>().finished_at.is_some() {
            break;
        }
    }
    let game = app.world().resource::<Game>();
    Report {
        completed: game.finished_at.is_some() && game.coins == COINS,
        frames: game.frames,
        coins: game.coins,
        resets: game.resets,
        deepest_overlap: game.deepest_overlap,
        lowest: game.lowest,
    }
}
