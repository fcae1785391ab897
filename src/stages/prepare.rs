//! Step 1 of detection, the system of
//! [`CollisionSystems::Prepare`](crate::CollisionSystems::Prepare): the static
//! colliders brought up to date, every moving collider read into the
//! [`ColliderSnapshot`], and both given their bodies.

use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::bodies::BodyInputs;
use super::broad_phase_grid::BroadPhaseGrid;
use super::snapshot::{
    ColliderData, ColliderSnapshot, NoteScratch, Paths, ReadRows, SnapshotTarget, WarnedColliders,
    read_tables, take_snapshot,
};
use super::static_colliders::StaticInputs;
use super::swept_paths::PreviousPoses;
use crate::components::{Collider, ColliderDisabled, CollisionBody, StaticCollider};
use crate::util::parallel::Workers;

/// Step 1 of detection: the static colliders brought up to date if any
/// changed, then every moving collider read into the snapshot. One system,
/// so that detection pays for one.
pub(crate) fn snapshot_colliders(
    mut moving: MovingInputs,
    mut statics: StaticInputs,
    mut bodies: BodyInputs,
    workers: Res<Workers>,
) {
    let bodies = bodies.update();
    statics.update(&workers, bodies);
    moving.take(&workers, statics.any_swept());
    bodies.fill(moving.snapshot_mut());
}

/// Colliders and bodies, disabled or not.
type ColliderOrBody = (Or<(With<Collider>, With<CollisionBody>)>, Allow<Disabled>);

/// A collider or body enabled again after Bevy's `Disabled` gets its
/// `Transform` marked changed: transform propagation skipped it while it
/// was disabled, so one moved meanwhile would otherwise come back with the
/// `GlobalTransform` it was hidden with, and detection would read it there.
pub(crate) fn repropagate_enabled(
    remove: On<Remove<Disabled>>,
    mut transforms: Query<&mut Transform, ColliderOrBody>,
) {
    if let Ok(mut transform) = transforms.get_mut(remove.entity) {
        transform.set_changed();
    }
}

/// What reading the moving colliders into [`ColliderSnapshot`] needs.
#[derive(SystemParam)]
pub(crate) struct MovingInputs<'w, 's> {
    colliders: Query<'w, 's, ColliderData, (Without<StaticCollider>, Without<ColliderDisabled>)>,
    snapshot: ResMut<'w, ColliderSnapshot>,
    warned: ResMut<'w, WarnedColliders>,
    previous_poses: ResMut<'w, PreviousPoses>,
    grid: Res<'w, BroadPhaseGrid>,
    scratch: Local<'s, SnapshotScratch>,
}

impl MovingInputs<'_, '_> {
    /// The snapshot being filled.
    pub(crate) fn snapshot_mut(&mut self) -> &mut ColliderSnapshot {
        &mut self.snapshot
    }

    /// Fills [`ColliderSnapshot`] from the ECS, in chunks shared by
    /// `workers`, skipping (and warning once about) colliders with invalid
    /// sizes, scales or transforms. Static colliders are not in it; with
    /// `static_swept`, one of them is [`Swept`](crate::Swept), so paths are kept.
    pub(crate) fn take(&mut self, workers: &Workers, static_swept: bool) {
        let SnapshotScratch { notes, one_by_one } = &mut *self.scratch;
        let tables = read_tables(&self.colliders, one_by_one);
        let target = SnapshotTarget {
            snapshot: &mut self.snapshot,
            warned: &mut self.warned,
            scratch: notes,
        };
        let paths = Paths::FromPrevious {
            poses: &mut self.previous_poses,
            static_swept,
        };
        take_snapshot(&tables, target, paths, &self.grid.grid, workers);
        let sheared = &mut self.warned.sheared;
        if !sheared.is_empty() {
            sheared.retain(|entity| self.colliders.contains(*entity));
        }
    }
}

/// Reusable space of [`MovingInputs::take`].
#[derive(Default)]
pub(crate) struct SnapshotScratch {
    notes: NoteScratch,
    /// The colliders read one by one, when tables cannot be read whole.
    one_by_one: [ReadRows; 2],
}
