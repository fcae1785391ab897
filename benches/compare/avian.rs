//! avian2d 0.8 as a detection-only peer: every body is a `RigidBody::Kinematic`
//! with a `Sensor` collider and `CollisionEventsEnabled`, moved only by the
//! scene writing `Transform`. What the sources say (paths in `avian2d-0.8.0/`):
//!
//! - Schedule: `PhysicsPlugins::new(PostUpdate)`, the variable-timestep setup
//!   documented on `PhysicsPlugins` (`src/lib.rs`, "Custom Schedule"). The
//!   default, `FixedPostUpdate`, would step at `Time<Fixed>`'s 64 Hz against our
//!   60 Hz clock (0 or 1 step per update). In `PostUpdate` the step's delta is
//!   the virtual clock's (`run_physics_schedule`, `src/schedule/mod.rs`), so
//!   there is exactly one step per `app.update()`. The exception is the first
//!   update: its delta is zero, and avian skips zero-delta steps.
//! - Pose sync: in `PhysicsSystems::Prepare`, avian propagates `Transform` to
//!   `GlobalTransform` itself and, for bodies whose `GlobalTransform` changed
//!   since the last step, copies it into `Position`/`Rotation`
//!   (`transform_to_position`, `src/physics_transform/mod.rs`). This runs before
//!   the step and before Bevy's own propagation, so detection sees the
//!   `Transform` written in `Update` this frame. Caveat: a rotation change under
//!   0.1° (or a move under 1e-5 units) is ignored until it adds up.
//!   `position_to_transform` is turned off (`PhysicsTransformConfig`).
//!   Otherwise avian writes that lagging `Rotation` back into our `Transform`
//!   every frame and alters the scene.
//! - Pairs: the BVH broad phase pairs kinematic proxies with the kinematic tree
//!   (`src/collision/broad_phase/bvh_broad_phase.rs`). Nothing filters out
//!   kinematic-kinematic or sensor-sensor pairs. Sensors still get contact
//!   manifolds, they just generate no constraints
//!   (`src/collision/narrow_phase/system_param.rs`).
//! - Only true overlaps count. A pair is touching when a manifold keeps a point
//!   with `-penetration < d` (or `normal_speed * dt - penetration < d`, the
//!   same here: our bodies' velocities are always 0), where `d` is at least
//!   `NarrowPhaseConfig::contact_tolerance` (default 0.02), raised only by the
//!   opt-in `SpeculativeCcd` and by swept CCD of fast dynamic bodies
//!   (`update_contacts`, `narrow_phase/system_param.rs`). So with the default,
//!   pairs up to 0.02 apart touch; `contact_tolerance: 0` makes touching mean
//!   penetration > 0 (and stops growing the AABBs by it,
//!   `src/collider_tree/update.rs`). Contact recycling is turned off too
//!   (`recycle_distance: 0`): a touching pair that moved less than
//!   `recycle_distance` (default 0.05) would only get its penetrations
//!   estimated and keep its touching state.
//! - Events: `CollisionStart`/`CollisionEnd` are both `Message`s (one per pair,
//!   written by the narrow phase) and observer events (one per entity that has
//!   `CollisionEventsEnabled`) (`src/collision/collision_events.rs`,
//!   `narrow_phase/mod.rs`). We count the messages.
//! - Sleeping: kinematic bodies with zero velocity fall asleep after
//!   `TimeToSleep`. A sleeping body's pairs are skipped by the narrow phase until
//!   `wake_on_changed` runs, which is after the narrow phase. Islands exist only
//!   for sleeping, and "the IslandPlugin can be omitted"
//!   (`src/dynamics/solver/islands/mod.rs`), so both island plugins are disabled.
//! - The solver stays. The narrow phase now only queues `ContactStatusChange`s,
//!   which `SolverPlugin` applies (`src/dynamics/solver/plugin.rs`), but no
//!   documentation says the solver can be left out. Sensors give it no
//!   constraints, and `SubstepCount(1)` cuts its per-body loop to one substep.

use avian2d::{physics_transform::PhysicsTransformConfig, prelude::*};
use bevy::prelude::*;

use crate::level::Level;
use crate::scene::{Body, BodyShape, CompoundParts, EventTally, body_bundle};

pub fn setup(app: &mut App) {
    // Inserted before the plugins: their `init_resource` calls keep these, and
    // `PhysicsTransformPlugin::build` reads `position_to_transform`.
    app.insert_resource(PhysicsTransformConfig {
        position_to_transform: false,
        ..default()
    })
    .insert_resource(NarrowPhaseConfig {
        contact_tolerance: 0.0,
        recycle_distance: 0.0,
        ..default()
    })
    .insert_resource(SubstepCount(1))
    .insert_resource(Gravity::ZERO)
    .add_plugins(
        PhysicsPlugins::new(PostUpdate)
            .build()
            .disable::<IslandPlugin>()
            .disable::<IslandSleepingPlugin>(),
    )
    .init_resource::<EventTally>()
    .add_systems(
        PostUpdate,
        count_events.after(PhysicsSystems::StepSimulation),
    );
}

fn count_events(
    mut started: MessageReader<CollisionStart>,
    mut ended: MessageReader<CollisionEnd>,
    mut tally: ResMut<EventTally>,
) {
    tally.started += started.read().count() as u64;
    tally.ended += ended.read().count() as u64;
}

pub fn spawn(world: &mut World, bodies: &[Body]) -> Vec<Entity> {
    bodies
        .iter()
        .map(|body| {
            let collider = collider(&body.shape);
            world
                .spawn((
                    body_bundle(body),
                    RigidBody::Kinematic,
                    collider,
                    Sensor,
                    CollisionEventsEnabled,
                ))
                .id()
        })
        .collect()
}

/// A body's collider.
pub fn collider(shape: &BodyShape) -> Collider {
    match *shape {
        BodyShape::Circle { radius } => Collider::circle(radius),
        // `rectangle` takes full side lengths.
        BodyShape::Rect { half_size } => Collider::rectangle(2.0 * half_size.x, 2.0 * half_size.y),
        // Upright, `length` between the cap centres, as ours.
        BodyShape::Capsule {
            radius,
            half_length,
        } => Collider::capsule(radius, 2.0 * half_length),
        BodyShape::Segment { a, b } => Collider::segment(a, b),
        BodyShape::Polygon(points) => {
            let points = points.as_slice();
            let collider = Collider::convex_hull(points).expect("points on an ellipse");
            let kept = collider
                .shape()
                .as_convex_polygon()
                .map(|p| p.points().len());
            assert_eq!(kept, Some(points.len()), "avian2d's hull differs from ours");
            collider
        }
        BodyShape::Compound(CompoundParts(parts)) => Collider::compound(
            (parts.iter())
                .map(|part| {
                    let shape = collider(&part.shape.body_shape());
                    (part.offset, Rotation::radians(part.angle), shape)
                })
                .collect(),
        ),
    }
}

/// The level's tiles as static bodies, one square collider each (not
/// sensors: the broad phase never pairs two static bodies then, and each
/// tile pairs with the kinematic sensors moving over it).
///
/// Spawned one by one: the time grows about as the square of the count
/// either way (25k, 50k, 100k tiles: 0.43, 1.44, 5.2 s, 73% of it in a
/// closure of avian's, 8% in its BVH's `insert_leaf`), and `spawn_batch`
/// took longer (0.67, 2.1, 8.0 s).
pub fn spawn_tiles(world: &mut World, level: &Level) -> Vec<Entity> {
    let side = level.tile;
    level
        .centres()
        .map(|centre| {
            world
                .spawn((
                    Transform::from_translation(centre.extend(0.0)),
                    RigidBody::Static,
                    Collider::rectangle(side, side),
                ))
                .id()
        })
        .collect()
}

/// The level as one static body whose collider is a compound of the
/// merged rectangles ours builds for a `TilemapCollider`: avian2d's own
/// way to make a tile map one entity.
pub fn spawn_tilemap(world: &mut World, level: &Level) -> Vec<Entity> {
    let rectangles = crate::level::merged_rectangles(level);
    let origin = level.origin();
    let map = world
        .spawn((
            Transform::from_translation(origin.extend(0.0)),
            RigidBody::Static,
            map_collider(&rectangles),
        ))
        .id();
    world.insert_resource(crate::level::PeerMap::new(map, origin, &rectangles));
    Vec::new()
}

/// A compound of axis-aligned rectangles, each `(centre, half size)`.
pub fn map_collider(rectangles: &[(Vec2, Vec2)]) -> Collider {
    let parts = (rectangles.iter())
        .map(|&(centre, half)| {
            let rectangle = Collider::rectangle(2.0 * half.x, 2.0 * half.y);
            (centre, Rotation::IDENTITY, rectangle)
        })
        .collect();
    Collider::compound(parts)
}

/// The touching pairs of the contact graph (the same set `Collisions::iter`
/// yields). Pairs whose AABBs overlap but shapes don't are left out.
pub fn touching_pairs(world: &mut World) -> Vec<(Entity, Entity)> {
    let graph = world.resource::<ContactGraph>();
    graph
        .iter_active_touching()
        .chain(graph.iter_sleeping_touching())
        .map(|pair| {
            let (a, b) = (pair.collider1, pair.collider2);
            if a < b { (a, b) } else { (b, a) }
        })
        .collect()
}
