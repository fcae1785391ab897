//! `bevy_collide2d` in the comparison: `CollisionPlugin` with its defaults
//! (detection in `PostUpdate`, after transform propagation, so it sees the
//! poses `Update` wrote this frame). No debug drawing.
//!
//! The `Swept` variant makes every collider [`Swept`], to show what swept
//! detection costs: a body that wraps around the arena gets `Swept` again,
//! as a game does for a teleport, so that it is not swept across the arena.
//! The mixed variant makes one body in a hundred `Swept` (bullets in a
//! crowd): what keeping every collider's previous pose costs.

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_collide2d::geometry::Shape;
use bevy_collide2d::prelude::*;

use crate::level::Level;
use crate::scene::{
    Arena, Body, BodyShape, CompoundParts, EventTally, Mover, body_bundle, move_bodies,
};

pub fn setup(app: &mut App) {
    app.add_plugins(CollisionPlugin::default())
        .init_resource::<EventTally>()
        .add_systems(PostUpdate, count_events.after(CollisionSystems::Events));
    if std::env::var_os("COMPARE_STAGES").is_some() {
        add_stage_timing(app);
    }
}

/// The four steps of detection, in schedule order.
pub const STAGES: [&str; 4] = ["snapshot", "broad phase", "narrow phase", "events"];

/// Time spent in each of [`STAGES`], one sample per frame.
#[derive(Resource, Default)]
pub struct StageTimes {
    mark: Option<Instant>,
    pub samples: [Vec<Duration>; 4],
}

/// Stamps the time between the plugin's system sets (`COMPARE_STAGES=1`).
fn add_stage_timing(app: &mut App) {
    fn stamp<const STAGE: usize>(mut times: ResMut<StageTimes>) {
        let now = Instant::now();
        if STAGE > 0
            && let Some(mark) = times.mark
        {
            times.samples[STAGE - 1].push(now - mark);
        }
        times.mark = Some(now);
    }
    use CollisionSystems::*;
    app.init_resource::<StageTimes>().add_systems(
        PostUpdate,
        (
            stamp::<0>
                .after(bevy::transform::TransformSystems::Propagate)
                .before(Prepare),
            stamp::<1>.after(Prepare).before(BroadPhase),
            stamp::<2>.after(BroadPhase).before(NarrowPhase),
            stamp::<3>.after(NarrowPhase).before(Events),
            stamp::<4>.after(Events),
        ),
    );
}

pub fn setup_swept(app: &mut App) {
    setup(app);
    app.add_systems(Update, rearm_wrapped.after(move_bodies));
}

pub fn spawn_swept(world: &mut World, bodies: &[Body]) -> Vec<Entity> {
    world
        .spawn_batch(
            bodies
                .iter()
                .map(|body| (body_bundle(body), collider(&body.shape), Swept)),
        )
        .collect()
}

/// One body in a hundred `Swept`, the rest plain.
pub fn spawn_mixed(world: &mut World, bodies: &[Body]) -> Vec<Entity> {
    (bodies.iter().enumerate())
        .map(|(k, body)| {
            let mut entity = world.spawn((body_bundle(body), collider(&body.shape)));
            if k % 100 == 0 {
                entity.insert(Swept);
            }
            entity.id()
        })
        .collect()
}

/// Starts a fresh sweep for the bodies that wrapped this frame: stepping back
/// by their velocity leaves the arena.
fn rearm_wrapped(
    time: Res<Time>,
    arena: Res<Arena>,
    bodies: Query<(Entity, &Transform, &Mover), With<Swept>>,
    mut commands: Commands,
) {
    let h = arena.half_side;
    for (entity, transform, mover) in &bodies {
        let before = transform.translation.truncate() - mover.velocity * time.delta_secs();
        if before.cmplt(Vec2::splat(-h)).any() || before.cmpge(Vec2::splat(h)).any() {
            commands.entity(entity).insert(Swept);
        }
    }
}

fn count_events(mut events: MessageReader<CollisionEvent>, mut tally: ResMut<EventTally>) {
    for event in events.read() {
        match event {
            CollisionEvent::Started { .. } => tally.started += 1,
            CollisionEvent::Ended { .. } => tally.ended += 1,
        }
    }
}

pub fn spawn(world: &mut World, bodies: &[Body]) -> Vec<Entity> {
    world
        .spawn_batch(
            bodies
                .iter()
                .map(|body| (body_bundle(body), collider(&body.shape))),
        )
        .collect()
}

/// The level's tiles, one `Collider::rect` with `StaticCollider` each.
pub fn spawn_tiles(world: &mut World, level: &Level) -> Vec<Entity> {
    let side = level.tile;
    world
        .spawn_batch(level.centres().map(|centre| {
            (
                Transform::from_translation(centre.extend(0.0)),
                Collider::rect(side, side),
                StaticCollider,
            )
        }))
        .collect()
}

/// The level as one `TilemapCollider` (its collider, a compound of its
/// rectangles, is built by the first update). Returns no tile: see
/// [`tilemap_tiles`].
pub fn spawn_tilemap(world: &mut World, level: &Level) -> Vec<Entity> {
    world.spawn((
        TilemapCollider::from_cells(
            Vec2::splat(level.tile),
            UVec2::splat(level.size),
            level.solid.iter().copied(),
        ),
        Transform::from_translation(level.origin().extend(0.0)),
    ));
    Vec::new()
}

/// The rectangles of the `TilemapCollider`s' compounds: each with its map's
/// entity, its shape and where it is.
pub fn tilemap_tiles(world: &mut World) -> Vec<(Entity, BodyShape, GlobalTransform)> {
    let mut maps =
        world.query_filtered::<(Entity, &Collider, &GlobalTransform), With<TilemapTile>>();
    let mut tiles = Vec::new();
    for (entity, collider, global) in maps.iter(world) {
        let Shape::Compound(compound) = collider.shape() else {
            panic!("a tile map built {collider:?}");
        };
        for part in compound.parts() {
            let Shape::Rect { half_size } = part.shape else {
                panic!("a tile map built {:?}", part.shape);
            };
            let at = global.mul_transform(Transform::from_translation(
                part.pose.translation.extend(0.0),
            ));
            tiles.push((entity, BodyShape::Rect { half_size }, at));
        }
    }
    tiles
}

/// Makes a collider level geometry.
pub fn mark_static(world: &mut World, entity: Entity) {
    world.entity_mut(entity).insert(StaticCollider);
}

pub fn collider(shape: &BodyShape) -> Collider {
    match *shape {
        BodyShape::Circle { radius } => Collider::circle(radius),
        BodyShape::Rect { half_size } => Collider::rect(half_size.x * 2.0, half_size.y * 2.0),
        // `capsule` takes the length between the cap centres.
        BodyShape::Capsule {
            radius,
            half_length,
        } => Collider::capsule(radius, 2.0 * half_length),
        BodyShape::Segment { a, b } => Collider::segment(a, b),
        BodyShape::Polygon(points) => {
            Collider::convex_polygon(points.as_slice()).expect("points on an ellipse")
        }
        BodyShape::Compound(CompoundParts(parts)) => {
            Collider::compound(parts.map(|part| (part.pose(), collider(&part.shape.body_shape()))))
        }
    }
}

pub fn touching_pairs(world: &mut World) -> Vec<(Entity, Entity)> {
    world
        .resource::<Collisions>()
        .iter()
        .map(|pair| (pair.a.min(pair.b), pair.a.max(pair.b)))
        .collect()
}
