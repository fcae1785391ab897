//! Shared helpers for the App-level tests: a headless app stepping 1/60 s per
//! update, and recorders for messages and observer events.
#![allow(dead_code)]

use std::time::Duration;

use bevy::ecs::message::MessageCursor;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_collide2d::prelude::*;

/// A headless app with transforms and the collision plugin in `PostUpdate`,
/// recording every observer event into [`Observed`].
pub fn test_app() -> App {
    app_with(CollisionPlugin::default())
}

/// Like [`test_app`] with a given plugin configuration.
pub fn app_with(plugin: CollisionPlugin) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin, plugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / 60.0,
        )))
        .init_resource::<Observed>()
        .init_resource::<ObservedOnBodies>()
        .add_observer(
            |event: On<CollisionStarted>,
             mut observed: ResMut<Observed>,
             mut on_bodies: ResMut<ObservedOnBodies>| {
                // The colliders' own events apart from those on their bodies.
                if event.collider != event.entity {
                    on_bodies
                        .0
                        .push((true, event.entity, event.collider, event.other));
                    return;
                }
                observed.0.push(ObservedEvent::Started {
                    entity: event.entity,
                    other: event.other,
                    contact: event.contact,
                });
            },
        )
        .add_observer(
            |event: On<CollisionEnded>,
             mut observed: ResMut<Observed>,
             mut on_bodies: ResMut<ObservedOnBodies>| {
                if event.collider != event.entity {
                    on_bodies
                        .0
                        .push((false, event.entity, event.collider, event.other));
                    return;
                }
                observed.0.push(ObservedEvent::Ended {
                    entity: event.entity,
                    other: event.other,
                });
            },
        );
    app
}

/// Observer events seen by the global observers of [`test_app`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ObservedEvent {
    Started {
        entity: Entity,
        other: Entity,
        contact: Contact,
    },
    Ended {
        entity: Entity,
        other: Entity,
    },
}

#[derive(Resource, Default, Debug)]
pub struct Observed(pub Vec<ObservedEvent>);

/// Observer events triggered on a `CollisionBody` for one of its parts:
/// `(started, body, collider, other)`.
#[derive(Resource, Default, Debug)]
pub struct ObservedOnBodies(pub Vec<(bool, Entity, Entity, Entity)>);

/// Drains the events on bodies recorded so far.
pub fn take_observed_on_bodies(app: &mut App) -> Vec<(bool, Entity, Entity, Entity)> {
    std::mem::take(&mut app.world_mut().resource_mut::<ObservedOnBodies>().0)
}

/// When in the last detection's step `a` and `b` touched
/// ([`Collisions::time_of_impact`]: the time travels with the pair, not with
/// its contact), for a pair that touches or passed.
pub fn time_of_impact(app: &App, a: Entity, b: Entity) -> f32 {
    (app.world().resource::<Collisions>())
        .time_of_impact(a, b)
        .unwrap_or_else(|| panic!("{a} and {b} neither touch nor passed"))
}

/// Drains the observer events recorded so far.
pub fn take_observed(app: &mut App) -> Vec<ObservedEvent> {
    std::mem::take(&mut app.world_mut().resource_mut::<Observed>().0)
}

/// Reads the [`CollisionEvent`] messages written since the last read. Call
/// it after every `update()` so that none expire unread.
#[derive(Default)]
pub struct MessageLog(MessageCursor<CollisionEvent>);

impl MessageLog {
    pub fn read(&mut self, app: &App) -> Vec<CollisionEvent> {
        let messages = app.world().resource::<Messages<CollisionEvent>>();
        self.0.read(messages).copied().collect()
    }
}

/// The entities `entity` is colliding with, from its [`CollidingEntities`].
pub fn colliding(app: &App, entity: Entity) -> Vec<Entity> {
    app.world()
        .get::<CollidingEntities>(entity)
        .map(|c| c.iter().collect())
        .unwrap_or_default()
}

/// `(a, b)` ordered as the plugin orders pairs.
pub fn ordered(x: Entity, y: Entity) -> (Entity, Entity) {
    if x < y { (x, y) } else { (y, x) }
}

pub fn set_translation(app: &mut App, entity: Entity, x: f32, y: f32) {
    let mut transform = app.world_mut().get_mut::<Transform>(entity).unwrap();
    transform.translation.x = x;
    transform.translation.y = y;
}

/// Spawns a root collider at `(x, y)`.
pub fn spawn_at(app: &mut App, collider: Collider, x: f32, y: f32) -> Entity {
    app.world_mut()
        .spawn((collider, Transform::from_xyz(x, y, 0.0)))
        .id()
}
