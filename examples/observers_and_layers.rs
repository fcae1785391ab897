//! Observers and layers: a player runs between two walls, picks up coins
//! and walks through a ghost.
//!
//! Each thing reacts to its own collisions with an observer
//! (`.observe(...)` on the entity, triggered with [`CollisionStarted`]), so
//! no system has to sort out who hit what. [`CollisionLayers`] decide which
//! pairs are tested at all: the ghost only meets walls, so the player passes
//! through it without a single event.
//!
//! ```sh
//! cargo run --example observers_and_layers
//! cargo run --example observers_and_layers -- --headless
//! ```

#[path = "common/mod.rs"]
mod common;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;

// One bit per kind of thing. A pair is tested when each one's memberships
// meet the other's filters.
const PLAYER: u32 = 1 << 0;
const COIN: u32 = 1 << 1;
const WALL: u32 = 1 << 2;
const GHOST: u32 = 1 << 3;

fn main() -> AppExit {
    if common::headless() {
        let mut app = headless_app();
        (0..180).for_each(|_| app.update());
        println!("coins: {}", app.world().resource::<Score>().coins);
        return AppExit::Success;
    }
    common::windowed_app(CollisionPlugin::default(), ObserversAndLayers).run()
}

/// The example without a window, 1/60 s a frame (`--headless`, tests).
pub fn headless_app() -> App {
    common::headless_app(CollisionPlugin::default(), ObserversAndLayers)
}

/// The level and its rules.
pub struct ObserversAndLayers;

impl Plugin for ObserversAndLayers {
    fn build(&self, app: &mut App) {
        app.init_resource::<Score>()
            .add_systems(Startup, spawn_level)
            .add_systems(Update, walk);
    }
}

/// Coins picked up so far.
#[derive(Resource, Default)]
pub struct Score {
    pub coins: u32,
}

/// Walks at `velocity`, turned around by the walls.
#[derive(Component)]
pub struct Player {
    pub velocity: Vec2,
}

#[derive(Component)]
pub struct Ghost;

fn spawn_level(mut commands: Commands) {
    commands.spawn((
        Player {
            velocity: Vec2::new(300.0, 0.0),
        },
        Collider::circle(16.0),
        CollisionLayers::new(PLAYER, COIN | WALL),
        Transform::from_xyz(-300.0, 0.0, 0.0),
    ));
    for x in [-200.0, -100.0, 100.0] {
        commands
            .spawn((
                Collider::circle(8.0),
                CollisionLayers::new(COIN, PLAYER),
                Transform::from_xyz(x, 0.0, 0.0),
            ))
            .observe(pick_up_coin);
    }
    for x in [-400.0, 250.0] {
        commands
            .spawn((
                Collider::rect(20.0, 200.0),
                CollisionLayers::new(WALL, PLAYER | GHOST),
                Sprite::from_color(Color::srgb(0.4, 0.45, 0.55), Vec2::new(20.0, 200.0)),
                Transform::from_xyz(x, 0.0, -1.0),
            ))
            .observe(bounce_off_wall);
    }
    // Neither the ghost nor the player lists the other in its filters, so
    // their pair is never tested: this observer never runs.
    commands
        .spawn((
            Ghost,
            Collider::rect(40.0, 60.0),
            CollisionLayers::new(GHOST, WALL),
            Transform::from_xyz(0.0, 0.0, 0.0),
        ))
        .observe(|_: On<CollisionStarted>| println!("boo!"));
}

fn walk(time: Res<Time>, mut players: Query<(&Player, &mut Transform)>) {
    for (player, mut transform) in &mut players {
        transform.translation += (player.velocity * time.delta_secs()).extend(0.0);
    }
}

/// Triggered on the coin: `event.entity` is the coin, `event.other` the
/// player (the only thing its layers let it meet).
fn pick_up_coin(event: On<CollisionStarted>, mut score: ResMut<Score>, mut commands: Commands) {
    score.coins += 1;
    println!("coin! {} so far", score.coins);
    commands.entity(event.entity).despawn();
}

/// Triggered on the wall. The contact is seen from the wall: its normal
/// points at the player, and moving the player by `normal * depth` takes it
/// out of the wall.
fn bounce_off_wall(event: On<CollisionStarted>, mut players: Query<(&mut Player, &mut Transform)>) {
    let Ok((mut player, mut transform)) = players.get_mut(event.other) else {
        return;
    };
    let normal = *event.contact.normal;
    transform.translation += (normal * event.contact.depth).extend(0.0);
    player.velocity = player.velocity.reflect(normal);
}
