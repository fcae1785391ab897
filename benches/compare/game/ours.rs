//! Ours in the game scene: `CollisionPlugin` with the `Swept` bullets
//! re-armed when they wrap (`ours::setup_swept`), the characters moved by
//! `move_and_slide` (`characters.rs`), the map one `TilemapCollider` with
//! the spikes as its second kind of tile, and the queries through
//! `SpatialQuery` after detection.

use std::time::Instant;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;

use super::map::{GameMap, TILE};
use super::{
    GROUND, GameStatics, HAZARD, QueryTimes, SIGHT_MASK, StaticPart, filters, plan_queries,
};
use crate::queries::{self, Answers, Batch};

pub fn setup(app: &mut App) {
    crate::ours::setup_swept(app);
    crate::characters::ours::add_controller(app);
    app.add_systems(
        PostUpdate,
        answer_queries
            .after(CollisionSystems::Events)
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
    // Rays as a collider of every layer that sees all but bullets; points
    // as a character looking at the ground.
    let sight = QueryFilter::default().with_layers(CollisionLayers::new(u32::MAX, SIGHT_MASK));
    let ground = QueryFilter::default().with_layers(CollisionLayers::new(super::CHARACTER, GROUND));
    answers.rays = queries::ours_ray_hits(&spatial, &plan.rays, &sight);
    answers.points = queries::ours_projections(&spatial, &plan.points, &ground);
    times.0.push(start.elapsed());
}

pub fn layers(world: &mut World, entity: Entity, group: u32) {
    (world.entity_mut(entity)).insert(CollisionLayers::new(group, filters(group)));
}

/// The map as one `TilemapCollider`: `'#'` on its entity, the spikes
/// (`'^'`) on the child it builds, each kind with its layers.
pub fn spawn_map(world: &mut World, map: &GameMap) {
    let spikes = ('^', CollisionLayers::new(HAZARD, filters(HAZARD)));
    world.spawn((
        TilemapCollider::from_ascii_with_kinds(Vec2::splat(TILE), &map.ascii(), [spikes]),
        Transform::from_translation(map.ground.origin().extend(0.0)),
        CollisionLayers::new(GROUND, filters(GROUND)),
    ));
}

/// The hills as recorded, and the rectangles of the map's two kinds.
pub fn statics(world: &mut World) -> Vec<StaticPart> {
    let mut parts = world.resource::<GameStatics>().0.clone();
    for (entity, shape, at) in crate::ours::tilemap_tiles(world) {
        let group = match world.get::<TilemapKind>(entity) {
            Some(TilemapKind('^')) => HAZARD,
            _ => GROUND,
        };
        parts.push((entity, group, shape, at));
    }
    parts
}

/// The pairs of `Swept` colliders that touched during the step only.
pub fn passing(world: &World) -> Vec<(Entity, Entity)> {
    let collisions = world.resource::<Collisions>();
    let mut pairs: Vec<_> = (collisions.passing().iter())
        .map(|pair| (pair.a.min(pair.b), pair.a.max(pair.b)))
        .collect();
    pairs.sort_unstable();
    pairs
}
