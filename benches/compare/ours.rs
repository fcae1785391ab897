//! `bevy_collide2d` in the comparison: `CollisionPlugin` with its defaults
//! (detection in `PostUpdate`, after transform propagation, so it sees the
//! poses `Update` wrote this frame). No debug drawing.

use bevy::prelude::*;
use bevy_collide2d::prelude::*;

use crate::scene::{Body, BodyShape, EventTally, body_bundle};

pub fn setup(app: &mut App) {
    app.add_plugins(CollisionPlugin::default())
        .init_resource::<EventTally>()
        .add_systems(PostUpdate, count_events.after(CollisionSystems::Events));
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

fn collider(shape: &BodyShape) -> Collider {
    match *shape {
        BodyShape::Circle { radius } => Collider::circle(radius),
        BodyShape::Rect { half_size } => Collider::rect(half_size.x * 2.0, half_size.y * 2.0),
    }
}

pub fn touching_pairs(world: &mut World) -> Vec<(Entity, Entity)> {
    world
        .resource::<Collisions>()
        .iter()
        .map(|pair| (pair.a.min(pair.b), pair.a.max(pair.b)))
        .collect()
}
