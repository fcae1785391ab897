//! What the small examples share: their plugins in a window, or without one
//! (`--headless`, and the tests in `tests/examples.rs`).
//!
//! A folder with `mod.rs` rather than `examples/common.rs`, which cargo would
//! take for an example of its own. Each example includes it with
//! `#[path = "common/mod.rs"] mod common;`.

use std::time::Duration;

use bevy::app::Plugins;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_collide2d::prelude::*;

/// Whether the example was started with `--headless`.
pub fn headless() -> bool {
    std::env::args().any(|arg| arg == "--headless")
}

/// The example in a window: `DefaultPlugins`, `collision`, the collision
/// overlay, the example's own plugins and a 2D camera.
pub fn windowed_app<M>(collision: CollisionPlugin, example: impl Plugins<M>) -> App {
    let mut app = App::new();
    app.add_plugins((
        DefaultPlugins,
        collision,
        CollisionDebugPlugin::default(),
        example,
    ))
    .add_systems(Startup, |mut commands: Commands| {
        commands.spawn(Camera2d);
    });
    app
}

/// The example without a window: `MinimalPlugins`, transforms, `collision`
/// and the example's own plugins, each update exactly 1/60 s.
pub fn headless_app<M>(collision: CollisionPlugin, example: impl Plugins<M>) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin, collision, example))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / 60.0,
        )));
    app
}
