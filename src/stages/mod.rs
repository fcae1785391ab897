//! The per-frame detection pipeline, one file a step, each a thin system
//! over plain data that the next step reads:
//!
//! 1. [`prepare`]: every valid collider's world shape, pose, box and layers,
//!    into the [`snapshot`];
//! 2. [`broad_phase`]: candidate pairs from the grid ([`crate::grid`]);
//! 3. [`narrow_phase`]: exact contacts, and per pair what changed since the
//!    previous detection (started, ended, restarted, passed);
//! 4. [`events`]: those changes as messages, observer events and
//!    `CollidingEntities` (kept by [`colliding_entities`]).
//!
//! The public data types they hand on are in files of their own
//! ([`collisions`]); [`colliders`] reads the moving and the static colliders
//! as one.

pub(crate) mod bodies;
pub(crate) mod broad_phase;
pub(crate) mod broad_phase_grid;
pub(crate) mod colliders;
pub(crate) mod colliding_entities;
pub(crate) mod collisions;
pub(crate) mod events;
pub(crate) mod hooks;
pub(crate) mod narrow_phase;
pub(crate) mod part_neighbourhoods;
pub(crate) mod prepare;
pub(crate) mod snapshot;
pub(crate) mod static_colliders;
pub(crate) mod swept_paths;
