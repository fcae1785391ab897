//! bevy_rapier2d in the game scene, set up as the detection peer
//! (`rapier.rs`, the full pipeline: CollisionOnly has no CCD), the
//! characters moved by its `KinematicCharacterController`
//! (`characters.rs`), layers as `CollisionGroups`, the bullets dynamic
//! sensor bodies with `Ccd::enabled()` (rapier sweeps dynamic bodies only)
//! and their velocity, and the map either one compound per kind of tile
//! or a fixed collider per merged rectangle. The spikes are sensors, which
//! the controllers' `EXCLUDE_SENSORS` leaves out.

use std::time::Instant;

use bevy::prelude::*;
use bevy_rapier2d::prelude::*;

use super::map::GameMap;
use super::{
    GROUND, GameEngine, GameStatics, HAZARD, Kit, QueryTimes, SIGHT_MASK, filters, plan_queries,
};
use crate::level::{PeerMap, merged_rectangles};
use crate::queries::{self, Answers, Batch};
use crate::scene::{Body, body_bundle};

/// The engine with the map spawned by `map`.
pub const fn engine(name: &'static str, map: fn(&mut World, &GameMap)) -> GameEngine {
    GameEngine {
        name,
        setup,
        kit: Kit {
            map,
            hills: crate::characters::rapier::spawn_hills,
            character: crate::characters::rapier::spawn_character,
            enemies: crate::rapier::spawn,
            bullets: spawn_bullets,
            layers,
        },
        touching_pairs: Some(crate::rapier::touching_pairs),
        statics: super::recorded_statics,
        passing: None,
    }
}

fn setup(app: &mut App) {
    crate::rapier::setup(app);
    crate::characters::rapier::add_controller(app);
    app.add_systems(
        PostUpdate,
        answer_queries
            .after(PhysicsSet::StepSimulation)
            .after(plan_queries),
    );
}

/// The groups of a collider in `group`, or of a query seeing `mask`.
fn groups(memberships: u32, filter: u32) -> CollisionGroups {
    CollisionGroups::new(
        Group::from_bits_truncate(memberships),
        Group::from_bits_truncate(filter),
    )
}

fn answer_queries(
    context: ReadRapierContext,
    plan: Res<Batch>,
    mut answers: ResMut<Answers>,
    mut times: ResMut<QueryTimes>,
) {
    let start = Instant::now();
    let sight = QueryFilter::default().groups(groups(u32::MAX, SIGHT_MASK));
    let ground = QueryFilter::default().groups(groups(u32::MAX, GROUND));
    answers.rays = queries::rapier_ray_hits(&context, &plan.rays, sight);
    answers.points = queries::rapier_projections(&context, &plan.points, ground);
    times.0.push(start.elapsed());
}

fn layers(world: &mut World, entity: Entity, group: u32) {
    (world.entity_mut(entity)).insert(groups(group, filters(group)));
}

/// Dynamic sensor bodies moving at the bullets' velocity, swept by
/// rapier's CCD; the game logic puts them where they are every frame (a
/// `Transform` write, as for every body), and the step sweeps them on from
/// there.
fn spawn_bullets(world: &mut World, bodies: &[Body]) -> Vec<Entity> {
    (bodies.iter())
        .map(|body| {
            world
                .spawn((
                    body_bundle(body),
                    RigidBody::Dynamic,
                    crate::rapier::collider(&body.shape),
                    Sensor,
                    ActiveEvents::COLLISION_EVENTS,
                    ActiveCollisionTypes::all(),
                    Ccd::enabled(),
                    Velocity::linear(body.velocity),
                ))
                .id()
        })
        .collect()
}

/// The solid tiles and the spikes of the map.
fn kinds(map: &GameMap) -> [(&crate::level::Level, u32); 2] {
    [(&map.ground, GROUND), (&map.spikes, HAZARD)]
}

/// A fixed body with `collider` in `group` (the spikes a sensor that
/// reports the characters).
fn spawn_fixed(world: &mut World, at: Vec2, collider: Collider, group: u32) -> Entity {
    let mut entity = world.spawn((
        Transform::from_translation(at.extend(0.0)),
        RigidBody::Fixed,
        collider,
        groups(group, filters(group)),
    ));
    if group == HAZARD {
        entity.insert((
            Sensor,
            ActiveEvents::COLLISION_EVENTS,
            ActiveCollisionTypes::all(),
        ));
    }
    entity.id()
}

/// Each kind of tile as one fixed compound of its merged rectangles.
pub fn spawn_compound_map(world: &mut World, map: &GameMap) {
    for (level, group) in kinds(map) {
        let rectangles = merged_rectangles(level);
        let origin = level.origin();
        let collider = crate::rapier::map_collider(&rectangles);
        let entity = spawn_fixed(world, origin, collider, group);
        let parts = PeerMap::new(entity, origin, &rectangles).0;
        let parts = parts
            .into_iter()
            .map(|(e, shape, at)| (e, group, shape, at));
        world.resource_mut::<GameStatics>().0.extend(parts);
    }
}

/// Each merged rectangle a fixed collider of its own.
pub fn spawn_rect_map(world: &mut World, map: &GameMap) {
    for (level, group) in kinds(map) {
        for (centre, half) in merged_rectangles(level) {
            let at = level.origin() + centre;
            let entity = spawn_fixed(world, at, Collider::cuboid(half.x, half.y), group);
            let part = PeerMap::new(entity, at, &[(Vec2::ZERO, half)]).0[0];
            (world.resource_mut::<GameStatics>().0).push((part.0, group, part.1, part.2));
        }
    }
}
