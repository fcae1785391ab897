//! [`CollisionDiagnosticsPlugin`]: detection's step times and counts in
//! Bevy's `DiagnosticsStore`, beside the frame time.

use bevy::diagnostic::{Diagnostic, DiagnosticPath, Diagnostics, RegisterDiagnostic};
use bevy::ecs::schedule::ScheduleLabel;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::transform::TransformSystems;

use crate::components::{Collider, ColliderDisabled};
use crate::plugin::{CollisionSystems, DetectionSchedule};
use crate::stages::broad_phase::BroadPhasePairs;
use crate::stages::collisions::Collisions;

/// Puts collision detection in Bevy's
/// [`DiagnosticsStore`](bevy::diagnostic::DiagnosticsStore), so a game sees
/// it where it sees its frame time (`LogDiagnosticsPlugin`, an overlay):
/// the wall time of each step of the last detection in milliseconds
/// ([`Self::PREPARE`], [`Self::BROAD_PHASE`], [`Self::NARROW_PHASE`],
/// [`Self::EVENTS`], and their sum [`Self::DETECTION`]), the enabled
/// colliders ([`Self::COLLIDERS`]), the candidate pairs of the broad
/// phase ([`Self::CANDIDATE_PAIRS`]) and the touching pairs
/// ([`Self::CONTACT_PAIRS`]).
///
/// Add it with [`CollisionPlugin`](crate::CollisionPlugin) (after it, or
/// before it in an app that is `run`); it measures in that plugin's
/// schedule. Timing costs a clock read per step, a few tens
/// of nanoseconds.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy::diagnostic::DiagnosticsStore;
/// # use bevy_collide2d::prelude::*;
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, TransformPlugin))
///     .add_plugins((CollisionPlugin::default(), CollisionDiagnosticsPlugin));
/// app.world_mut().spawn(Collider::circle(1.0));
/// app.world_mut().spawn(Collider::circle(1.0));
/// app.update();
/// let store = app.world().resource::<DiagnosticsStore>();
/// let touching = store.get(&CollisionDiagnosticsPlugin::CONTACT_PAIRS).unwrap();
/// assert_eq!(touching.value(), Some(1.0));
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct CollisionDiagnosticsPlugin;

impl CollisionDiagnosticsPlugin {
    /// Copying poses and shapes into the snapshot, in milliseconds.
    pub const PREPARE: DiagnosticPath = DiagnosticPath::const_new("collision/prepare_ms");
    /// The broad phase, in milliseconds.
    pub const BROAD_PHASE: DiagnosticPath = DiagnosticPath::const_new("collision/broad_phase_ms");
    /// The narrow phase, in milliseconds.
    pub const NARROW_PHASE: DiagnosticPath = DiagnosticPath::const_new("collision/narrow_phase_ms");
    /// Sending messages and observer events, updating `CollidingEntities`,
    /// in milliseconds.
    pub const EVENTS: DiagnosticPath = DiagnosticPath::const_new("collision/events_ms");
    /// The four steps together, in milliseconds.
    pub const DETECTION: DiagnosticPath = DiagnosticPath::const_new("collision/detection_ms");
    /// Colliders not disabled.
    pub const COLLIDERS: DiagnosticPath = DiagnosticPath::const_new("collision/colliders");
    /// Pairs the broad phase handed to the narrow phase.
    pub const CANDIDATE_PAIRS: DiagnosticPath =
        DiagnosticPath::const_new("collision/candidate_pairs");
    /// Pairs touching after the last detection.
    pub const CONTACT_PAIRS: DiagnosticPath = DiagnosticPath::const_new("collision/contact_pairs");

    const STEPS: [DiagnosticPath; 4] = [
        Self::PREPARE,
        Self::BROAD_PHASE,
        Self::NARROW_PHASE,
        Self::EVENTS,
    ];
}

/// When each step of the running detection started.
#[derive(Resource, Default)]
struct StepClock {
    marks: [Option<Instant>; 5],
}

impl Plugin for CollisionDiagnosticsPlugin {
    fn build(&self, app: &mut App) {
        let ms = |path: DiagnosticPath| Diagnostic::new(path).with_suffix(" ms");
        for path in Self::STEPS.into_iter().chain([Self::DETECTION]) {
            app.register_diagnostic(ms(path));
        }
        for path in [Self::COLLIDERS, Self::CANDIDATE_PAIRS, Self::CONTACT_PAIRS] {
            app.register_diagnostic(Diagnostic::new(path));
        }
        add_step_clock(app);
    }

    // Added before `CollisionPlugin`, this plugin learns the detection
    // schedule only once every plugin is built.
    fn finish(&self, app: &mut App) {
        if !app.world().contains_resource::<StepClock>() && !add_step_clock(app) {
            warn!("CollisionDiagnosticsPlugin needs CollisionPlugin: nothing is measured");
        }
    }
}

/// Adds the clock to the detection's schedule, if it is known yet.
fn add_step_clock(app: &mut App) -> bool {
    let Some(&DetectionSchedule(schedule)) = app.world().get_resource::<DetectionSchedule>() else {
        return false;
    };
    use CollisionSystems::*;
    let first = mark::<0>.before(Prepare);
    let first = if schedule == PostUpdate.intern() {
        first.after(TransformSystems::Propagate).into_configs()
    } else {
        first.into_configs()
    };
    app.init_resource::<StepClock>().add_systems(
        schedule,
        (
            first,
            mark::<1>.after(Prepare).before(BroadPhase),
            mark::<2>.after(BroadPhase).before(NarrowPhase),
            mark::<3>.after(NarrowPhase).before(Events),
            (mark::<4>, measure).chain().after(Events),
        ),
    );
    true
}

fn mark<const STEP: usize>(mut clock: ResMut<StepClock>) {
    clock.marks[STEP] = Some(Instant::now());
}

fn measure(
    mut clock: ResMut<StepClock>,
    colliders: Query<(), (With<Collider>, Without<ColliderDisabled>)>,
    candidates: Res<BroadPhasePairs>,
    collisions: Res<Collisions>,
    mut diagnostics: Diagnostics,
) {
    let marks = std::mem::take(&mut clock.marks);
    let mut total = 0.0;
    for (step, path) in CollisionDiagnosticsPlugin::STEPS.iter().enumerate() {
        if let (Some(start), Some(end)) = (marks[step], marks[step + 1]) {
            let ms = (end - start).as_secs_f64() * 1e3;
            total += ms;
            diagnostics.add_measurement(path, || ms);
        }
    }
    diagnostics.add_measurement(&CollisionDiagnosticsPlugin::DETECTION, || total);
    diagnostics.add_measurement(&CollisionDiagnosticsPlugin::COLLIDERS, || {
        colliders.iter().len() as f64
    });
    diagnostics.add_measurement(&CollisionDiagnosticsPlugin::CANDIDATE_PAIRS, || {
        candidates.pairs.len() as f64
    });
    diagnostics.add_measurement(&CollisionDiagnosticsPlugin::CONTACT_PAIRS, || {
        collisions.len() as f64
    });
}
