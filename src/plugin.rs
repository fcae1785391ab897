//! [`CollisionPlugin`]: wires the detection steps into a schedule.

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::ecs::system::SystemParamItem;
use bevy::prelude::*;
use bevy::transform::TransformSystems;
use bevy::transform::systems::{
    mark_dirty_trees, propagate_parent_transforms, sync_simple_transforms,
};

use crate::components::{
    Collider, ColliderDisabled, CollidingEntities, CollisionBody, CollisionLayers, OneWayPlatform,
    StaticCollider, Swept,
};
use crate::geometry::{Contact, ContactParts, FeatureId, Manifold, ManifoldPoint};
use crate::level::{
    TilemapCollider, TilemapKind, TilemapTile, any_tilemap_changed, build_tilemap_colliders,
};
use crate::spatial_query::{
    QueryFilter, QueryLog, RayCaster, RayHits, ShapeCaster, ShapeHits, WarnedCasters,
    refresh_ray_casters, refresh_shape_casters,
};
use crate::stages::bodies::{
    ColliderBodies, mark_bodies_stale, mark_bodies_stale_on_discard, mark_bodies_stale_on_insert,
};
use crate::stages::broad_phase::{BroadPhasePairs, find_candidate_pairs};
use crate::stages::broad_phase_grid::BroadPhaseGrid;
use crate::stages::colliding_entities::{InsertedColliding, note_inserted_colliding};
use crate::stages::collisions::{Collisions, ContactPair};
use crate::stages::events::{
    CollisionEnded, CollisionEvent, CollisionStarted, report_collision_changes,
};
use crate::stages::hooks::{ActiveCollisionHooks, CollisionHooks};
use crate::stages::narrow_phase::{PairChanges, PreviousPairs, compute_contacts};
use crate::stages::part_neighbourhoods::PartNeighbourhoods;
use crate::stages::prepare::{repropagate_enabled, snapshot_colliders};
use crate::stages::snapshot::{ColliderSnapshot, WarnedColliders};
use crate::stages::static_colliders::{StaticColliders, note_static_added, note_static_removed};
use crate::stages::swept_paths::{PreviousPoses, restart_swept_path};
use crate::util::parallel::Workers;

/// Collision detection for 2D colliders.
///
/// Each run of its schedule it reads every [`Collider`]'s pose from its
/// [`GlobalTransform`], finds all touching pairs exactly, and reports the
/// changes as [`CollisionEvent`] messages, [`CollisionStarted`] /
/// [`CollisionEnded`] observer events and [`CollidingEntities`].
///
/// By default it runs in [`PostUpdate`] after transform propagation, so what
/// `Update` moved is detected in the same frame. Spawn and move colliders
/// in `Update` or earlier: a collider spawned by a `PostUpdate` system after
/// [`TransformSystems::Propagate`] has no computed [`GlobalTransform`] yet
/// (the identity), so that frame's detection sees it at the world origin. A game that moves things in
/// a fixed timestep can run detection there instead with
/// `CollisionPlugin::new(FixedPostUpdate)`; transforms are then propagated
/// before detection so poses are current.
pub struct CollisionPlugin {
    schedule: InternedScheduleLabel,
    /// Adds the narrow phase, with the game's hooks if it has some.
    add_narrow_phase: fn(&mut App, InternedScheduleLabel),
}

impl CollisionPlugin {
    /// Detection in the given schedule.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
            add_narrow_phase: add_narrow_phase::<()>,
        }
    }

    /// Detection that asks the game's [`CollisionHooks`] `H` about the
    /// pairs of colliders with [`ActiveCollisionHooks`] (see there).
    ///
    /// [`ActiveCollisionHooks`]: crate::ActiveCollisionHooks
    pub fn with_hooks<H: CollisionHooks + 'static>(self) -> Self
    where
        for<'w, 's> SystemParamItem<'w, 's, H>: CollisionHooks,
    {
        Self {
            add_narrow_phase: add_narrow_phase::<H>,
            ..self
        }
    }
}

/// Adds the narrow phase asking the hooks `H` to `schedule`.
fn add_narrow_phase<H: CollisionHooks + 'static>(app: &mut App, schedule: InternedScheduleLabel)
where
    for<'w, 's> SystemParamItem<'w, 's, H>: CollisionHooks,
{
    app.add_systems(
        schedule,
        compute_contacts::<H>.in_set(CollisionSystems::NarrowPhase),
    );
}

impl Default for CollisionPlugin {
    fn default() -> Self {
        Self::new(PostUpdate)
    }
}

/// The schedule the plugin detects in, for plugins that measure it
/// ([`CollisionDiagnosticsPlugin`](crate::CollisionDiagnosticsPlugin)).
#[derive(Resource, Clone, Copy)]
pub(crate) struct DetectionSchedule(pub(crate) InternedScheduleLabel);

/// The plugin's system sets, run in this order in the plugin's schedule.
/// Order your systems against them, e.g. `.after(CollisionSystems::Events)`.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CollisionSystems {
    /// Poses, shapes and bounds of every collider are copied into plain
    /// arrays (transforms are propagated first when not in `PostUpdate`).
    Prepare,
    /// Candidate pairs from bounding boxes.
    BroadPhase,
    /// Exact contacts for the candidates ([`Collisions`]), and what changed
    /// for each pair since the previous detection.
    NarrowPhase,
    /// Messages, observer events and [`CollidingEntities`] from those
    /// changes.
    Events,
    /// Every [`RayCaster`] and [`ShapeCaster`] cast again against the
    /// colliders of this detection, into their [`RayHits`] and
    /// [`ShapeHits`].
    Casters,
}

impl Plugin for CollisionPlugin {
    fn build(&self, app: &mut App) {
        register_types(app);
        init_resources(app);
        add_observers(app);

        let schedule = self.schedule;
        app.insert_resource(DetectionSchedule(schedule));
        configure_collision_sets(app, schedule);
        add_prepare_systems(app, schedule);
        add_tilemap_system(app);
        #[cfg(any(feature = "image", feature = "mesh"))]
        crate::assets::add_asset_collider_systems(app);
        add_detection_systems(app, schedule);
        (self.add_narrow_phase)(app, schedule);
    }
}

/// Adds the [`CollisionEvent`] message and registers the reflected types.
fn register_types(app: &mut App) {
    app.add_message::<CollisionEvent>()
        .register_type::<Collider>()
        .register_type::<CollisionLayers>()
        .register_type::<CollidingEntities>()
        .register_type::<Swept>()
        .register_type::<StaticCollider>()
        .register_type::<ColliderDisabled>()
        .register_type::<CollisionBody>()
        .register_type::<OneWayPlatform>()
        .register_type::<ActiveCollisionHooks>()
        .register_type::<TilemapCollider>()
        .register_type::<TilemapTile>()
        .register_type::<TilemapKind>()
        .register_type::<Contact>()
        .register_type::<ContactPair>()
        .register_type::<ContactParts>()
        .register_type::<Manifold>()
        .register_type::<ManifoldPoint>()
        .register_type::<FeatureId>()
        .register_type::<CollisionEvent>()
        .register_type::<CollisionStarted>()
        .register_type::<CollisionEnded>()
        .register_type::<RayCaster>()
        .register_type::<RayHits>()
        .register_type::<ShapeCaster>()
        .register_type::<ShapeHits>()
        .register_type::<QueryFilter>();
}

/// Inserts the resources the detection steps keep between runs.
fn init_resources(app: &mut App) {
    app.init_resource::<ColliderSnapshot>()
        .init_resource::<StaticColliders>()
        .init_resource::<ColliderBodies>()
        .init_resource::<BroadPhasePairs>()
        .init_resource::<BroadPhaseGrid>()
        .init_resource::<Collisions>()
        .init_resource::<PreviousPairs>()
        .init_resource::<PairChanges>()
        .init_resource::<PartNeighbourhoods>()
        .init_resource::<WarnedColliders>()
        .init_resource::<PreviousPoses>()
        .init_resource::<InsertedColliding>()
        .init_resource::<QueryLog>()
        .init_resource::<WarnedCasters>()
        .init_resource::<Workers>();
}

/// Adds the observers that track component changes between detections.
fn add_observers(app: &mut App) {
    app.add_observer(restart_swept_path)
        .add_observer(note_inserted_colliding)
        .add_observer(mark_bodies_stale)
        .add_observer(note_static_added)
        .add_observer(note_static_removed)
        .add_observer(repropagate_enabled)
        .add_observer(mark_bodies_stale_on_insert)
        .add_observer(mark_bodies_stale_on_discard);
}

/// Runs the [`CollisionSystems`] one after another in `schedule`.
fn configure_collision_sets(app: &mut App, schedule: InternedScheduleLabel) {
    app.configure_sets(
        schedule,
        (
            CollisionSystems::Prepare,
            CollisionSystems::BroadPhase,
            CollisionSystems::NarrowPhase,
            CollisionSystems::Events,
            CollisionSystems::Casters,
        )
            .chain(),
    );
}

/// Adds the [`CollisionSystems::Prepare`] systems: the snapshot after Bevy's
/// transform propagation in `PostUpdate`, after a propagation of its own
/// elsewhere. Also a snapshot at startup, after Bevy's propagation there,
/// so that queries before the first detection (the first steps of
/// `FixedUpdate`, with detection in `FixedPostUpdate`) see the colliders
/// spawned at startup.
fn add_prepare_systems(app: &mut App, schedule: InternedScheduleLabel) {
    app.add_systems(
        PostStartup,
        snapshot_colliders.after(TransformSystems::Propagate),
    );
    if schedule == PostUpdate.intern() {
        app.configure_sets(
            schedule,
            CollisionSystems::Prepare.after(TransformSystems::Propagate),
        );
        app.add_systems(
            schedule,
            snapshot_colliders.in_set(CollisionSystems::Prepare),
        );
    } else {
        // Outside PostUpdate, GlobalTransform may be a frame old: run
        // Bevy's own propagation first (its change ticks are per system,
        // so this does not disturb the regular PostUpdate pass).
        app.add_systems(
            schedule,
            (
                mark_dirty_trees,
                propagate_parent_transforms,
                sync_simple_transforms,
                snapshot_colliders,
            )
                .chain()
                .in_set(CollisionSystems::Prepare),
        );
    }
}

/// Adds the building of tilemap colliders, always in `PostUpdate` before
/// transform propagation, whatever the detection schedule, and in
/// `PostStartup` before the startup snapshot, so that the first fixed
/// steps' queries see a map spawned at startup as they see any collider.
fn add_tilemap_system(app: &mut App) {
    // Tiles spawned before propagation are placed in the same frame. The
    // condition skips the system in frames without a map change, which
    // is nearly all: running it, even to find nothing, cost more than
    // the whole detection of a small scene.
    for schedule in [PostStartup.intern(), PostUpdate.intern()] {
        app.add_systems(
            schedule,
            build_tilemap_colliders
                .run_if(any_tilemap_changed)
                .before(TransformSystems::Propagate),
        );
    }
}

/// Adds the broad phase, events and casters systems to their sets in
/// `schedule` (the narrow phase is added with the hooks, which it is generic
/// over).
fn add_detection_systems(app: &mut App, schedule: InternedScheduleLabel) {
    app.add_systems(
        schedule,
        (
            find_candidate_pairs.in_set(CollisionSystems::BroadPhase),
            report_collision_changes.in_set(CollisionSystems::Events),
            (refresh_ray_casters, refresh_shape_casters).in_set(CollisionSystems::Casters),
        ),
    );
}
