//! A fixed timestep, and a bullet too fast for it: with [`Swept`] it stops
//! at a thin wall, without it it passes through.
//!
//! Both bullets move 80 units per fixed step and the wall is 6 units thick,
//! so between two detections a bullet jumps from one side of the wall to
//! the other. Detection runs in `FixedPostUpdate`, right after the game
//! moves things in `FixedUpdate`. The `Swept` bullet is also tested along
//! its path since the previous detection: its `CollisionStarted` comes with
//! the moment it touched ([`CollisionStarted::time_of_impact`], a fraction
//! of the step), and the observer puts the bullet back there.
//!
//! ```sh
//! cargo run --example fixed_timestep_swept
//! cargo run --example fixed_timestep_swept -- --headless
//! ```

#[path = "common/mod.rs"]
mod common;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;

const STEPS_PER_SECOND: f64 = 30.0;
const BULLET_SPEED: f32 = 2400.0;
const START_X: f32 = -400.0;
/// Seconds between two shots.
const RELOAD: f32 = 1.5;

fn main() -> AppExit {
    if common::headless() {
        let mut app = headless_app();
        (0..60).for_each(|_| app.update());
        return AppExit::Success;
    }
    common::windowed_app(CollisionPlugin::new(FixedPostUpdate), FixedTimestepSwept).run()
}

/// The example without a window, 1/60 s a frame (`--headless`, tests).
pub fn headless_app() -> App {
    common::headless_app(CollisionPlugin::new(FixedPostUpdate), FixedTimestepSwept)
}

/// The wall, the two bullets and their flight, in `FixedUpdate`.
pub struct FixedTimestepSwept;

impl Plugin for FixedTimestepSwept {
    fn build(&self, app: &mut App) {
        app.insert_resource(Time::<Fixed>::from_hz(STEPS_PER_SECOND))
            .add_systems(Startup, spawn_scene)
            .add_systems(FixedUpdate, (reload, fly).chain());
    }
}

/// Flies at `velocity`, and is fired again every `RELOAD` seconds.
#[derive(Component)]
pub struct Bullet {
    pub velocity: Vec2,
    /// Where the bullet was before this step's move.
    from: Vec2,
    /// Time until it is fired again from the start.
    reload_in: f32,
}

#[derive(Component)]
pub struct Wall;

fn spawn_scene(mut commands: Commands) {
    commands.spawn((
        Wall,
        Collider::rect(6.0, 300.0),
        Sprite::from_color(Color::srgb(0.5, 0.55, 0.65), Vec2::new(6.0, 300.0)),
        Transform::from_xyz(200.0, 0.0, 0.0),
    ));
    for (y, swept) in [(60.0, true), (-60.0, false)] {
        let mut bullet = commands.spawn((
            Bullet {
                velocity: Vec2::ZERO,
                from: Vec2::ZERO,
                reload_in: 0.0,
            },
            Collider::circle(4.0),
            Transform::from_xyz(START_X, y, 0.0),
        ));
        if swept {
            bullet.insert(Swept).observe(stop_at_impact);
        }
    }
}

/// Fires each bullet again from the start every `RELOAD` seconds.
fn reload(
    time: Res<Time>,
    mut bullets: Query<(Entity, &mut Bullet, &mut Transform, Has<Swept>)>,
    mut commands: Commands,
) {
    for (entity, mut bullet, mut transform, swept) in &mut bullets {
        bullet.reload_in -= time.delta_secs();
        if bullet.reload_in > 0.0 {
            continue;
        }
        bullet.reload_in = RELOAD;
        bullet.velocity = Vec2::new(BULLET_SPEED, 0.0);
        transform.translation.x = START_X;
        if swept {
            // A teleport, not a move: a fresh `Swept` starts its path here
            // instead of sweeping back through the wall.
            commands.entity(entity).insert(Swept);
        }
    }
}

/// `Time` in `FixedUpdate` is the fixed clock: the same step every time.
fn fly(time: Res<Time>, mut bullets: Query<(&mut Bullet, &mut Transform)>) {
    for (mut bullet, mut transform) in &mut bullets {
        bullet.from = transform.translation.truncate();
        transform.translation += (bullet.velocity * time.delta_secs()).extend(0.0);
    }
}

/// The swept bullet's observer: it touched the wall at `time_of_impact`
/// along this step's path, so it goes back there and stops.
fn stop_at_impact(
    event: On<CollisionStarted>,
    mut bullets: Query<(&mut Bullet, &mut Transform)>,
    mut commands: Commands,
) {
    let Ok((mut bullet, mut transform)) = bullets.get_mut(event.entity) else {
        return;
    };
    let to = transform.translation.truncate();
    let impact = bullet.from.lerp(to, event.time_of_impact);
    transform.translation = impact.extend(0.0);
    bullet.velocity = Vec2::ZERO;
    // Put back, not moved back: its next path starts here.
    commands.entity(event.entity).insert(Swept);
}
