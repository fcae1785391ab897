//! Plays the level by itself (`--autoplay`, `P`, and the headless run): run
//! right, jump the spikes, jump up onto the ledge, wait for the platform and
//! ride it over the pit, walk to the goal.

use bevy::prelude::*;

use super::level::{LEDGE, PIT};
use super::{Controls, Game, MovingPlatform, Player};

/// Where to jump over the spike pit (its left edge is at 620).
const SPIKE_JUMP: (f32, f32) = (575.0, 590.0);

pub fn autoplay(
    player: Single<(&Transform, &Player)>,
    platform: Single<(Entity, &Transform), With<MovingPlatform>>,
    game: Res<Game>,
    mut controls: ResMut<Controls>,
) {
    if game.finished_at.is_some() {
        *controls = Controls::default();
        return;
    }
    let (transform, player) = *player;
    let at = transform.translation.truncate();
    let (platform, platform_transform) = *platform;
    let platform_x = platform_transform.translation.x;
    let (ledge_top, ledge_from, ledge_to) = LEDGE;
    let ledge_middle = (ledge_from + ledge_to) / 2.0;
    let on_ledge = player.grounded && at.y > ledge_top;
    let riding = player.ground == Some(platform);

    *controls = Controls {
        run: 1.0,
        jump: false,
    };
    if (SPIKE_JUMP.0..SPIKE_JUMP.1).contains(&at.x) {
        controls.jump = true;
    } else if (ledge_from - 40.0..ledge_to).contains(&at.x) && !on_ledge {
        // Under the ledge: stop below its middle and jump straight up.
        let offset = ledge_middle - at.x;
        controls.run = (offset / 4.0).clamp(-1.0, 1.0);
        if offset.abs() < 2.0 {
            controls.run = 0.0;
            controls.jump = true;
        }
        if !player.grounded {
            controls.run = 0.0;
        }
    } else if (PIT.0 - 30.0..PIT.0).contains(&at.x) && !riding {
        // At the pit's edge: step on when the platform is there.
        let platform_left = platform_x - 30.0;
        if platform_left > PIT.0 + 6.0 {
            controls.run = 0.0;
        }
    } else if riding {
        // Ride until the platform reaches the far side.
        let platform_right = platform_x + 30.0;
        if platform_right < PIT.1 - 6.0 {
            controls.run = 0.0;
        }
    }
}
