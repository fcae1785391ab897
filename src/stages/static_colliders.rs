//! Static colliders ([`StaticCollider`]): a snapshot and a grid of their own,
//! kept between detections and rebuilt only when one is added, removed,
//! moved or changed. Detection pairs the moving colliders with them through
//! that grid; two static ones are never paired.

use std::sync::atomic::{AtomicBool, Ordering};

use bevy::ecs::change_detection::{ContiguousRef, MAX_CHANGE_AGE, Tick};
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::bodies::ColliderBodies;
use super::snapshot::{
    ColliderData, ColliderSnapshot, NoteScratch, Paths, ReadRows, SnapshotTarget, WarnedColliders,
    read_tables, take_snapshot,
};
use crate::components::{Collider, ColliderDisabled, CollisionLayers, StaticCollider, Swept};
use crate::grid::SpatialGrid;
use crate::util::parallel::{RunChunks, Workers};

/// The static colliders as of their last change.
#[derive(Resource, Default)]
pub(crate) struct StaticColliders {
    /// Their shapes, poses, boxes and layers; never swept, no paths.
    pub(crate) snapshot: ColliderSnapshot,
    /// A grid over their boxes, for the moving colliders and the queries to
    /// look them up.
    pub(crate) grid: SpatialGrid,
    /// Their entities, sorted: a removal elsewhere does not rebuild them.
    entities: Vec<Entity>,
    /// How many entities the query matched at the last rebuild: one
    /// disabled or enabled again changes it without any other sign.
    matched: usize,
    /// Counts the rebuilds: what was worked out from them stays valid
    /// while it stays the same.
    pub(crate) version: u64,
    /// Whether they were ever read.
    built: bool,
    /// Whether any of them is [`Swept`].
    any_swept: bool,
    /// Whether a static collider was added, removed, disabled, enabled,
    /// made or unmade [`Swept`] or lost its [`CollisionLayers`] since the
    /// last detection: noted by observers ([`note_static_added`],
    /// [`note_static_removed`]), which see every change whatever schedule
    /// detection runs in, where `RemovedComponents` forgets what a fixed
    /// step that skips frames never read.
    stale: bool,
    warned: WarnedColliders,
    scratch: NoteScratch,
    one_by_one: [ReadRows; 2],
    /// Static pairs found while building the grid: none are wanted.
    no_pairs: Vec<(u32, u32)>,
}

impl StaticColliders {
    /// Number of static colliders in detection.
    pub(crate) fn len(&self) -> usize {
        self.snapshot.len()
    }
}

/// The static colliders in detection.
type EnabledStatic = (With<StaticCollider>, Without<ColliderDisabled>);

/// The inputs of the static colliders whose changes make them be read
/// again (additions and removals are noted by observers).
type StaticInputTicks = (
    Ref<'static, Collider>,
    Ref<'static, GlobalTransform>,
    Option<Ref<'static, CollisionLayers>>,
);

/// What keeping the static colliders up to date reads: run by the snapshot
/// system, so that detection pays for one system, not two.
#[derive(SystemParam)]
pub(crate) struct StaticInputs<'w, 's> {
    statics: Query<'w, 's, ColliderData, EnabledStatic>,
    changed: Query<'w, 's, StaticInputTicks, EnabledStatic>,
    state: ResMut<'w, StaticColliders>,
}

impl StaticInputs<'_, '_> {
    /// Whether any static collider is [`Swept`]: its moving partners then
    /// move along their paths.
    pub(crate) fn any_swept(&self) -> bool {
        self.state.any_swept
    }

    /// Reads the static colliders again if any was added, removed, moved,
    /// changed, disabled or enabled since the last detection, and gives
    /// them their `bodies`.
    pub(crate) fn update(&mut self, workers: &Workers, bodies: &ColliderBodies) {
        let rebuilt =
            update_static_colliders(&self.statics, &self.changed, &mut self.state, workers);
        let state = &mut *self.state;
        let body_changed =
            || (bodies.moved().iter()).any(|entity| state.entities.binary_search(entity).is_ok());
        if rebuilt || body_changed() {
            bodies.fill(&mut state.snapshot);
        }
        state.version += u64::from(rebuilt);
    }
}

fn update_static_colliders(
    statics: &Query<ColliderData, EnabledStatic>,
    changed: &Query<StaticInputTicks, EnabledStatic>,
    state: &mut StaticColliders,
    workers: &Workers,
) -> bool {
    // The count catches a game's own disabling components, which no
    // observer here knows of.
    let matched = statics.iter().len();
    // Checked last: it walks the change ticks of every static collider.
    let dirty = !state.built || state.stale || matched != state.matched;
    if !dirty && !any_changed(changed, workers) {
        return false;
    }
    state.built = true;
    state.stale = false;
    state.matched = matched;
    let tables = read_tables(statics, &mut state.one_by_one);
    let target = SnapshotTarget {
        snapshot: &mut state.snapshot,
        warned: &mut state.warned,
        scratch: &mut state.scratch,
    };
    take_snapshot(&tables, target, Paths::StandStill, &state.grid, workers);
    state.grid.overlapping_pairs_in_chunks(
        &state.snapshot.aabbs,
        |_, _| false,
        workers,
        &mut state.no_pairs,
    );
    state.any_swept = state.snapshot.swept.iter().any(|&swept| swept);
    state
        .warned
        .sheared
        .retain(|entity| statics.contains(*entity));
    state.entities.clear();
    state.entities.extend(
        state
            .snapshot
            .colliders
            .iter()
            .map(|collider| collider.entity),
    );
    state.entities.sort_unstable();
    true
}

/// What makes a static collider's entry stale when added to it: cheaper
/// than walking every static collider's added ticks each frame. (A
/// `Collider` or `CollisionLayers` added or replaced changes its tick,
/// which the walk sees; left out, spawning a level costs one observer call
/// a tile, not two.)
type StaticAdditions = (StaticCollider, Swept, ColliderDisabled, Disabled);

/// What makes a static collider's entry stale when removed from it.
type StaticRemovals = (
    StaticCollider,
    Collider,
    CollisionLayers,
    Swept,
    ColliderDisabled,
    Disabled,
);

/// Every static collider, disabled or not.
type AnyStatic = (With<StaticCollider>, Allow<Disabled>);

/// Notes one of [`StaticAdditions`] added to a static collider, for the
/// next detection.
pub(crate) fn note_static_added(
    add: On<Add<StaticAdditions>>,
    statics: Query<(), AnyStatic>,
    state: ResMut<StaticColliders>,
) {
    mark_stale(statics.contains(add.entity), state);
}

/// Notes one of [`StaticRemovals`] removed from a static collider (or the
/// collider despawned), for the next detection.
pub(crate) fn note_static_removed(
    remove: On<Remove<StaticRemovals>>,
    statics: Query<(), AnyStatic>,
    state: ResMut<StaticColliders>,
) {
    mark_stale(statics.contains(remove.entity), state);
}

fn mark_stale(is_static: bool, mut state: ResMut<StaticColliders>) {
    // Written only when it flips, so that spawning a level costs a read per tile.
    if is_static && !state.stale {
        state.stale = true;
    }
}

/// Whether the shape, pose or layers of any static collider changed since
/// the last detection: their change ticks, read table by table, in pieces
/// shared by `workers` (the walk is bound by memory, not by compares).
fn any_changed(changed: &Query<StaticInputTicks, EnabledStatic>, workers: &Workers) -> bool {
    let Ok(tables) = changed.contiguous_iter() else {
        // A disabling component stored in a sparse set (a game may register
        // one) rules out reading by table: ask each collider instead.
        return changed.iter().any(|(collider, transform, layers)| {
            collider.is_changed()
                || transform.is_changed()
                || layers.is_some_and(|l| l.is_changed())
        });
    };
    let mut runs = (Tick::new(0), Tick::new(0));
    let mut pieces: Vec<&[Tick]> = Vec::new();
    for (collider, transform, layers) in tables {
        runs = (collider.last_run_tick(), collider.this_run_tick());
        let (_, collider) = ContiguousRef::split(collider);
        let layers = layers.map(|layers| ContiguousRef::split(layers).1);
        // `Collider` and `CollisionLayers` keep a summary tick per table:
        // their columns are read only when it says one may have changed.
        // `GlobalTransform` has none.
        let columns = [Some(collider), layers]
            .into_iter()
            .flatten()
            .filter(|ticks| ticks.summary_tick_is_changed() != Some(false))
            .map(|ticks| ticks.changed())
            .chain([transform.changed_ticks_slice()]);
        pieces.extend(columns.flat_map(|ticks| ticks.chunks(TICKS_PER_PIECE)));
    }
    let found = AtomicBool::new(false);
    workers.for_each_chunk(pieces.len(), |k| {
        if !found.load(Ordering::Relaxed) && any_newer(pieces[k], runs.0, runs.1) {
            found.store(true, Ordering::Relaxed);
        }
    });
    found.into_inner()
}

/// Change ticks read by one thread at a time in [`any_changed`].
const TICKS_PER_PIECE: usize = 1 << 14;

/// Whether any of `ticks` is newer than `last_run` ([`Tick::is_newer_than`]).
///
/// Walking 100,000 static colliders' ticks is most of a detection's fixed
/// cost, so blocks of them are compared without a branch each, which the
/// compiler turns into a few vector instructions per block.
fn any_newer(ticks: &[Tick], last_run: Tick, this_run: Tick) -> bool {
    let this_run = this_run.get();
    // `is_newer_than` clamps both ages to `MAX_CHANGE_AGE`; the age of
    // `last_run` is at most that, so only a tick younger than it is newer.
    let since_last_run = this_run.wrapping_sub(last_run.get()).min(MAX_CHANGE_AGE);
    ticks.chunks(64).any(|block| {
        (block.iter()).fold(false, |newer, tick| {
            newer | (this_run.wrapping_sub(tick.get()) < since_last_run)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_newer_agrees_with_bevy_across_wraparound() {
        // Runs and ticks near 0, near the wrap, and older than the clamp.
        let around = [
            0,
            1,
            5,
            1 << 20,
            MAX_CHANGE_AGE - 1,
            MAX_CHANGE_AGE,
            u32::MAX - 3,
            u32::MAX,
        ];
        let mut checked = 0;
        for &this_run in &around {
            for &age in &[0u32, 1, 2, 7, 1000, MAX_CHANGE_AGE, u32::MAX] {
                let last_run = Tick::new(this_run.wrapping_sub(age));
                let this_run = Tick::new(this_run);
                for &tick in &around {
                    for offset in [0u32, 1, 2, 3, u32::MAX] {
                        let tick = Tick::new(tick.wrapping_add(offset));
                        // Alone, and among 199 older ticks, at every position of a block.
                        let alone = [tick];
                        assert_eq!(
                            any_newer(&alone, last_run, this_run),
                            tick.is_newer_than(last_run, this_run),
                            "tick {tick:?}, last run {last_run:?}, this run {this_run:?}"
                        );
                        let mut many = vec![last_run; 200];
                        many[checked % 200] = tick;
                        assert_eq!(
                            any_newer(&many, last_run, this_run),
                            tick.is_newer_than(last_run, this_run)
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(!any_newer(&[], Tick::new(0), Tick::new(5)));
    }
}
