//! App-level behaviour, one module per behaviour, all in one test binary:
//! every test binary links Bevy, so one binary instead of one per file keeps
//! the test build's links and disk use small. Run one behaviour with
//! `cargo test --test behaviour tilemap::`.
//!
//! Tests that install a global log recorder, start the binary again, or soak
//! for long (`bad_input`, `casters`, `determinism`, `model_based`) and the
//! examples' tests stay in binaries of their own.

mod ball_in_corner;
mod bodies;
#[cfg(feature = "debug")]
mod breakout_headless;
#[cfg(all(feature = "image", feature = "mesh"))]
mod colliders_from_assets;
#[path = "../common/mod.rs"]
mod common;
mod compound;
#[cfg(feature = "debug")]
mod debug_render;
mod despawn_mid_contact;
mod disabled_entities;
mod fixed_schedule;
mod hierarchy;
mod hooks;
mod layers;
mod manifolds;
mod move_and_slide;
#[cfg(feature = "picking")]
mod picking;
mod polyline;
mod random_crowd;
mod reinserted_components;
mod same_frame_detection;
#[cfg(feature = "serialize")]
mod scenes;
mod shapes;
mod spatial_query;
mod started_ended_once;
mod static_colliders;
mod swept;
mod swept_partners;
mod tilemap;
