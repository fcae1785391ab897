//! The guide: short recipes for the usual jobs, each one a tested program.
//!
//! # Read first
//!
//! 1. The crate's front page (the README): add [`CollisionPlugin`], put a
//!    [`Collider`] on entities, hear [`CollisionStarted`].
//! 2. [`messages_or_observers`]: which of the two to use, and the frame
//!    they arrive in.
//! 3. [`bouncing_ball`]: the events say when a contact *starts*; a moving
//!    thing also needs [`Collisions::push_out`] every frame to stay out of
//!    walls. Everything that moves and must not go through things needs this
//!    page.
//!
//! Then whichever recipe fits the game:
//!
//! | Page | For |
//! |---|---|
//! | [`bouncing_ball`] | balls and walls: events, per-frame push-out, bounce, `Swept` rewind |
//! | [`character_controller`] | a character that walks, falls and slides along walls; a wall-jump of your own |
//! | [`pushing_a_box`] | a character pushing a box that stops at walls and steep slopes |
//! | [`resting_on_a_face`] | a crate that settles flat on a ramp: the two points of a contact manifold |
//! | [`triggers`] | pickups, zones, doors: sensors that never push |
//! | [`damage_on_first_touch`] | spikes, bullets, enemies: once per touch, with observers |
//! | [`messages_or_observers`] | choosing between the two, and their timing |
//! | [`sprites_sized_by_scale`] | `Collider::rect(1.0, 1.0)` under `Transform::scale` |
//! | [`fixed_timestep`] | detection in `FixedPostUpdate` |
//! | [`determinism_and_rollback`] | the same events on every run and thread count; rolling a world back |
//! | [`layers`] | who collides with whom |
//! | [`levels_from_editors`] | Tiled and LDtk maps, terrain samples, saving levels in scenes |
//! | [`collision_hooks`] | rules of a game's own: one-way platforms, teams, bullets that spare their shooter |
#![cfg_attr(
    feature = "debug",
    doc = "| [`debug_overlay`] | seeing the colliders and contacts |"
)]
#![cfg_attr(
    all(feature = "image", feature = "mesh"),
    doc = "| [`colliders_from_art`] | colliders from a sprite's image or a 2D mesh |"
)]
//! | [`spatial_queries`] | rays, lines of sight, what is under a point or in range |
//! | [`disabling_and_bodies`] | switching colliders off; one body of several colliders |
//! | [`migrating`] | from Bevy's breakout, avian2d or bevy_rapier2d |
//!
//! The recipes run headless (`MinimalPlugins`, a few updates) so that
//! `cargo test --doc` checks them; in a game, `DefaultPlugins` replaces
//! `MinimalPlugins` and `TransformPlugin`.
//!
//! [`CollisionPlugin`]: crate::CollisionPlugin
//! [`Collider`]: crate::Collider
//! [`CollisionStarted`]: crate::CollisionStarted
//! [`Collisions::push_out`]: crate::Collisions::push_out

pub mod bouncing_ball;
pub mod character_controller;
#[cfg(all(feature = "image", feature = "mesh"))]
pub mod colliders_from_art;
pub mod collision_hooks;
pub mod damage_on_first_touch;
#[cfg(feature = "debug")]
pub mod debug_overlay;
pub mod determinism_and_rollback;
pub mod disabling_and_bodies;
pub mod fixed_timestep;
pub mod layers;
pub mod levels_from_editors;
pub mod messages_or_observers;
pub mod migrating;
pub mod pushing_a_box;
pub mod resting_on_a_face;
pub mod spatial_queries;
pub mod sprites_sized_by_scale;
pub mod triggers;
