//! The player: a capsule that runs, jumps and rides, moved through the level
//! by [`SpatialQuery::move_and_slide`], and what it touches: coins, spikes
//! and the goal, heard through observer events.

use bevy::prelude::*;
use bevy_collide2d::prelude::*;

use super::level::SPIKES;
use super::{Coin, Controls, Game, Goal, MovingPlatform, PLAYER, Player, SOLID, SPAWN};

pub const RUN_SPEED: f32 = 180.0;
pub const JUMP_SPEED: f32 = 420.0;
const GRAVITY: f32 = 1100.0;
const MAX_FALL_SPEED: f32 = 600.0;

/// How the player slides: up to 50° slopes are ground, 6-unit steps are
/// climbed, and it sticks to slopes it walks down.
fn slide_config() -> MoveAndSlideConfig {
    MoveAndSlideConfig {
        max_slope: 50f32.to_radians(),
        step_height: 6.0,
        snap_to_ground: 4.0,
        ..default()
    }
}

pub fn move_player(
    time: Res<Time>,
    controls: Res<Controls>,
    spatial: SpatialQuery,
    platforms: Query<&MovingPlatform>,
    player: Single<(Entity, &Collider, &mut Transform, &mut Player)>,
) {
    let dt = time.delta_secs();
    let (entity, collider, mut transform, mut player) = player.into_inner();
    player.velocity.x = controls.run * RUN_SPEED;
    if controls.jump && player.grounded {
        player.velocity.y = JUMP_SPEED;
    }
    player.velocity.y = (player.velocity.y - GRAVITY * dt).max(-MAX_FALL_SPEED);
    let mut motion = player.velocity * dt;
    // A moving platform carries what stands on it.
    if let Some(platform) = player.ground.and_then(|ground| platforms.get(ground).ok()) {
        motion.x += platform.speed * dt;
    }

    // Only the level blocks the player: coins and spikes are on another
    // layer, and the player must not block itself.
    let filter = QueryFilter::default()
        .with_layers(CollisionLayers::new(PLAYER, SOLID))
        .with_excluded([entity]);
    let pose = Isometry2d::from_translation(transform.translation.truncate());
    let moved = spatial.move_and_slide(collider, pose, motion, &slide_config(), &filter);

    transform.translation = moved.translation.extend(transform.translation.z);
    player.grounded = moved.grounded;
    player.ground = moved.ground.map(|ground| ground.entity);
    // Landing stops the fall; bumping the head stops the jump.
    let bumped = moved.hits.iter().any(|hit| hit.normal.y < -0.5);
    if (moved.grounded && player.velocity.y < 0.0) || (bumped && player.velocity.y > 0.0) {
        player.velocity.y = 0.0;
    }
}

/// Observes the player: coins are collected, spikes send it back to the
/// start, the goal ends the run.
pub fn touch(
    hit: On<CollisionStarted>,
    coins: Query<(), With<Coin>>,
    kinds: Query<&TilemapKind>,
    goals: Query<(), With<Goal>>,
    mut players: Query<(&mut Transform, &mut Player)>,
    mut game: ResMut<Game>,
    mut commands: Commands,
) {
    if coins.contains(hit.other) {
        commands.entity(hit.other).despawn();
        game.coins += 1;
    } else if kinds.get(hit.other).is_ok_and(|kind| kind.0 == SPIKES) {
        if let Ok((mut transform, mut player)) = players.get_mut(hit.entity) {
            transform.translation = SPAWN.extend(transform.translation.z);
            *player = Player::default();
        }
        game.resets += 1;
    } else if goals.contains(hit.other) && game.finished_at.is_none() {
        game.finished_at = Some(game.frames);
    }
}
