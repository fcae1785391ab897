//! avian2d in the game scene, set up as the detection peer (`avian.rs`),
//! the characters moved by its `MoveAndSlide` (`characters.rs`), the
//! bullets dynamic sensor bodies with `SweptCcd` (avian2d sweeps dynamic
//! bodies only) and their velocity, and the map either one compound per
//! kind of tile or a static collider per merged rectangle.

use avian2d::prelude::*;
use std::time::Instant;

use bevy::prelude::*;

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
            hills: crate::characters::avian::spawn_hills,
            character: crate::characters::avian::spawn_character,
            enemies: crate::avian::spawn,
            bullets: spawn_bullets,
            layers,
        },
        touching_pairs: Some(crate::avian::touching_pairs),
        statics: super::recorded_statics,
        passing: None,
    }
}

fn setup(app: &mut App) {
    crate::avian::setup(app);
    crate::characters::avian::add_controller(app);
    app.add_systems(
        PostUpdate,
        answer_queries
            .after(PhysicsSystems::StepSimulation)
            .after(plan_queries),
    );
}

fn answer_queries(
    spatial: SpatialQuery,
    plan: Res<Batch>,
    mut answers: ResMut<Answers>,
    mut times: ResMut<QueryTimes>,
) {
    let start = Instant::now();
    let sight = SpatialQueryFilter::from_mask(SIGHT_MASK);
    let ground = SpatialQueryFilter::from_mask(GROUND);
    answers.rays = queries::avian_ray_hits(&spatial, &plan.rays, &sight);
    answers.points = queries::avian_projections(&spatial, &plan.points, &ground);
    times.0.push(start.elapsed());
}

fn layers(world: &mut World, entity: Entity, group: u32) {
    (world.entity_mut(entity)).insert(CollisionLayers::new(group, filters(group)));
}

/// Dynamic sensor bodies moving at the bullets' velocity, swept by
/// avian2d's CCD; the game logic puts them where they are every frame (a
/// `Transform` write, as for every body), and the step sweeps them on from
/// there. Given a mass: a sensor adds none.
fn spawn_bullets(world: &mut World, bodies: &[Body]) -> Vec<Entity> {
    (bodies.iter())
        .map(|body| {
            world
                .spawn((
                    body_bundle(body),
                    RigidBody::Dynamic,
                    crate::avian::collider(&body.shape),
                    Sensor,
                    CollisionEventsEnabled,
                    SweptCcd::default(),
                    LinearVelocity(body.velocity),
                    Mass(1.0),
                    AngularInertia(1.0),
                ))
                .id()
        })
        .collect()
}

/// The solid tiles and the spikes (a sensor) of the map.
fn kinds(map: &GameMap) -> [(&crate::level::Level, u32); 2] {
    [(&map.ground, GROUND), (&map.spikes, HAZARD)]
}

/// A static body with `collider` in `group` (the spikes a sensor).
fn spawn_static(world: &mut World, at: Vec2, collider: Collider, group: u32) -> Entity {
    let mut entity = world.spawn((
        Transform::from_translation(at.extend(0.0)),
        RigidBody::Static,
        collider,
        CollisionLayers::new(group, filters(group)),
    ));
    if group == HAZARD {
        entity.insert((Sensor, CollisionEventsEnabled));
    }
    entity.id()
}

/// Each kind of tile as one static compound of its merged rectangles.
pub fn spawn_compound_map(world: &mut World, map: &GameMap) {
    for (level, group) in kinds(map) {
        let rectangles = merged_rectangles(level);
        let origin = level.origin();
        let collider = crate::avian::map_collider(&rectangles);
        let entity = spawn_static(world, origin, collider, group);
        let parts = PeerMap::new(entity, origin, &rectangles).0;
        let parts = parts
            .into_iter()
            .map(|(e, shape, at)| (e, group, shape, at));
        world.resource_mut::<GameStatics>().0.extend(parts);
    }
}

/// Each merged rectangle a static collider of its own.
pub fn spawn_rect_map(world: &mut World, map: &GameMap) {
    for (level, group) in kinds(map) {
        for (centre, half) in merged_rectangles(level) {
            let at = level.origin() + centre;
            let collider = Collider::rectangle(2.0 * half.x, 2.0 * half.y);
            let entity = spawn_static(world, at, collider, group);
            let part = PeerMap::new(entity, at, &[(Vec2::ZERO, half)]).0[0];
            (world.resource_mut::<GameStatics>().0).push((part.0, group, part.1, part.2));
        }
    }
}
