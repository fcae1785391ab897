//! bevy_rapier2d 0.37 (rapier2d 0.36) as a detection-only peer. Every body is
//! a kinematic rigid body with a `Sensor` collider,
//! `ActiveEvents::COLLISION_EVENTS` and `ActiveCollisionTypes::all()`, moved only
//! by the scene writing `Transform`. What the sources say:
//!
//! - Schedule: `RapierPhysicsPlugin::default()` runs in `PostUpdate`, before
//!   `TransformSystems::Propagate` (`bevy_rapier2d-0.37.0/src/plugin/plugin.rs`).
//!   `TimestepMode::Fixed { dt: 1/60, substeps: 1 }` makes exactly one
//!   `pipeline.step` per `app.update()`, the first update included
//!   (`src/plugin/context/mod.rs`, `step_simulation`). The default `Variable`
//!   mode would scale `dt` with the clock.
//! - Pose sync: `SyncBackend` runs Bevy's transform propagation itself, then
//!   `apply_rigid_body_user_changes` (`src/plugin/systems/rigid_body.rs`)
//!   reads `Changed<GlobalTransform>`:
//!   - for `KinematicPositionBased` it calls `set_next_kinematic_position`. The
//!     body only gets there at the end of the step, after `detect_collisions`
//!     (`rapier2d-0.36.1/src/pipeline/physics_pipeline/substep.rs`).
//!     Detection would therefore see the previous frame's pose.
//!   - for every other body type it calls `set_position`, a teleport that
//!     reaches the colliders in the step's `handle_user_changes_to_rigid_bodies`,
//!     before detection.
//!
//!   So we use `KinematicVelocityBased` (with zero velocity): still kinematic,
//!   moved only through `Transform`, and detection sees this frame's pose.
//! - Pairs: kinematic-kinematic pairs are dropped by both the broad phase
//!   (`src/geometry/broad_phase_bvh/update.rs`) and the intersection update
//!   (`src/geometry/narrow_phase/intersections.rs`) unless one collider's
//!   `ActiveCollisionTypes` has `KINEMATIC_KINEMATIC`. The default is
//!   dynamic-* only (`src/geometry/collider_components.rs`), hence `all()`.
//!   Sensor-sensor pairs are kept: any pair with a sensor goes into the
//!   intersection graph (`narrow_phase/pair_management.rs`, `add_pair`). Its
//!   `intersecting` flag comes from an exact boolean `intersection_test`, with
//!   no prediction margin. Start/stop events fire when that flag flips, or on
//!   pair removal while intersecting, if either collider has `COLLISION_EVENTS`.
//! - Two modes, two engines of the runner: `bevy_rapier2d` runs the full
//!   physics pipeline (the default `SimulationMode::Full`, the only
//!   behaviour before 0.37); `bevy_rapier2d, CollisionOnly` runs 0.37's
//!   `SimulationMode::CollisionOnly` (`src/plugin/configuration.rs`,
//!   `step_once` in `context/mod.rs`): only rapier's `CollisionPipeline`
//!   (broad and narrow phase; no solver, integration, CCD or islands). The
//!   faster of the two is the peer.
//! - Writeback is left out (`with_physics_sets_systems`, the documented opt-out).
//!   Detection doesn't need it, and it would rewrite our `Transform` from
//!   rapier's 2D pose every frame, with float round-trip drift.
//! - Events: `CollisionEvent` is a `Message`, but the plugin only
//!   `insert_resource`s `Messages<CollisionEvent>` and never registers it, so its
//!   buffers are never swapped and would grow for the whole run (see the
//!   `Messages` docs in `bevy_ecs-0.20.1/src/message/messages.rs`). We register
//!   it with the `MessageRegistry` so it is cleared like any other message.
//!   `App::add_message` would do nothing here, because the resource already
//!   exists.

use bevy::ecs::message::MessageRegistry;
use bevy::prelude::*;
use bevy_rapier2d::prelude::*;

use crate::level::Level;
use crate::scene::{Body, BodyShape, CompoundParts, EventTally, STEP, body_bundle};

pub fn setup(app: &mut App) {
    setup_in(app, SimulationMode::Full);
}

pub fn setup_collision_only(app: &mut App) {
    setup_in(app, SimulationMode::CollisionOnly);
}

fn setup_in(app: &mut App, simulation_mode: SimulationMode) {
    app.add_plugins(
        RapierPhysicsPlugin::<NoUserData>::default()
            .with_custom_initialization(
                RapierContextInitialization::InitializeDefaultRapierContext {
                    integration_parameters: IntegrationParameters::default(),
                    rapier_configuration: RapierConfiguration {
                        gravity: Vec2::ZERO,
                        simulation_mode,
                        ..RapierConfiguration::new(1.0)
                    },
                    broad_phase_optimization_strategy: BroadPhaseOptimizationStrategy::default(),
                },
            )
            .with_physics_sets_systems(
                [PhysicsSet::SyncBackend, PhysicsSet::StepSimulation]
                    .into_iter()
                    .collect(),
            ),
    )
    // After the plugin, which `init_resource`s the default (`Variable`).
    .insert_resource(TimestepMode::Fixed {
        dt: STEP.as_secs_f32(),
        substeps: 1,
    })
    .init_resource::<EventTally>()
    .add_systems(PostUpdate, count_events.after(PhysicsSet::StepSimulation));

    MessageRegistry::register_message::<CollisionEvent>(app.world_mut());
}

fn count_events(mut events: MessageReader<CollisionEvent>, mut tally: ResMut<EventTally>) {
    for event in events.read() {
        match event {
            CollisionEvent::Started(..) => tally.started += 1,
            CollisionEvent::Stopped(..) => tally.ended += 1,
        }
    }
}

pub fn spawn(world: &mut World, bodies: &[Body]) -> Vec<Entity> {
    bodies
        .iter()
        .map(|body| {
            let collider = collider(&body.shape);
            world
                .spawn((
                    body_bundle(body),
                    RigidBody::KinematicVelocityBased,
                    collider,
                    Sensor,
                    ActiveEvents::COLLISION_EVENTS,
                    ActiveCollisionTypes::all(),
                ))
                .id()
        })
        .collect()
}

/// A body's collider.
pub fn collider(shape: &BodyShape) -> Collider {
    match *shape {
        BodyShape::Circle { radius } => Collider::ball(radius),
        // `cuboid` takes half extents in 2D.
        BodyShape::Rect { half_size } => Collider::cuboid(half_size.x, half_size.y),
        // Half the length between the cap centres, then the radius.
        BodyShape::Capsule {
            radius,
            half_length,
        } => Collider::capsule_y(half_length, radius),
        BodyShape::Segment { a, b } => Collider::segment(a, b),
        BodyShape::Polygon(points) => {
            let points = points.as_slice();
            let collider = Collider::convex_hull(points).expect("points on an ellipse");
            let kept = collider.raw.as_convex_polygon().map(|p| p.points().len());
            assert_eq!(kept, Some(points.len()), "rapier's hull differs from ours");
            collider
        }
        BodyShape::Compound(CompoundParts(parts)) => Collider::compound(
            (parts.iter())
                .map(|part| (part.offset, part.angle, collider(&part.shape.body_shape())))
                .collect(),
        ),
    }
}

/// The level's tiles as fixed bodies, one square collider each, with the
/// default `ActiveCollisionTypes` (no `FIXED_FIXED`: two tiles are never
/// paired; a mover's `all()` pairs it with the tiles).
pub fn spawn_tiles(world: &mut World, level: &Level) -> Vec<Entity> {
    let half = level.tile / 2.0;
    world
        .spawn_batch(level.centres().map(|centre| {
            (
                Transform::from_translation(centre.extend(0.0)),
                RigidBody::Fixed,
                Collider::cuboid(half, half),
            )
        }))
        .collect()
}

/// The level as one fixed body whose collider is a compound of the merged
/// rectangles ours builds for a `TilemapCollider`: rapier's own way to
/// make a tile map one entity.
pub fn spawn_tilemap(world: &mut World, level: &Level) -> Vec<Entity> {
    let rectangles = crate::level::merged_rectangles(level);
    let origin = level.origin();
    let map = world
        .spawn((
            Transform::from_translation(origin.extend(0.0)),
            RigidBody::Fixed,
            map_collider(&rectangles),
        ))
        .id();
    world.insert_resource(crate::level::PeerMap::new(map, origin, &rectangles));
    Vec::new()
}

/// A compound of axis-aligned rectangles, each `(centre, half size)`.
pub fn map_collider(rectangles: &[(Vec2, Vec2)]) -> Collider {
    let parts = (rectangles.iter())
        .map(|&(centre, half)| (centre, 0.0, Collider::cuboid(half.x, half.y)))
        .collect();
    Collider::compound(parts)
}

/// The intersecting pairs of the narrow phase's intersection graph, where all
/// sensor pairs live. The graph also keeps pairs whose AABBs overlap but whose
/// shapes don't, with `intersecting == false`; those are filtered out here.
pub fn touching_pairs(world: &mut World) -> Vec<(Entity, Entity)> {
    let mut query = world
        .query_filtered::<(&RapierContextSimulation, &RapierContextColliders), With<DefaultRapierContext>>();
    let (simulation, colliders) = query
        .single(world)
        .expect("the default rapier context is spawned in PreStartup");
    simulation
        .narrow_phase
        .intersection_pairs()
        .filter(|&(_, _, intersecting)| intersecting)
        .filter_map(|(h1, h2, _)| {
            let (a, b) = (
                colliders.collider_entity(h1)?,
                colliders.collider_entity(h2)?,
            );
            Some(if a < b { (a, b) } else { (b, a) })
        })
        .collect()
}
