//! Step 4 of detection: the narrow phase's [`PairChange`]s reported. Every
//! consumer (messages, observer events and [`CollidingEntities`]) is fed
//! from those same changes, so they always agree. [`CollidingEntities`] is
//! kept in [`colliding_entities`](super::colliding_entities).
//!
//! [`CollidingEntities`]: crate::CollidingEntities

use bevy::prelude::*;

use super::bodies::ColliderBodies;
use super::colliding_entities::CollidingUpkeep;
use super::collisions::{Collisions, ContactPair};
use super::narrow_phase::{PairChange, PairChanges};
use crate::geometry::Contact;

/// A collision starting or ending between two colliders, as a [`Message`]
/// (read it with a [`MessageReader`]).
///
/// `a < b` in [`Entity`] order. Messages written during detection in
/// `PostUpdate` are read in the next frame's `Update`. An `Ended` can name an
/// entity that has been despawned since: that is how its contacts end.
#[derive(Message, Clone, Copy, Debug, PartialEq, Reflect)]
pub enum CollisionEvent {
    /// `a` and `b` started touching this detection.
    Started {
        /// The lower entity.
        a: Entity,
        /// The higher entity.
        b: Entity,
        /// The contact when they started touching, seen from `a` (the normal
        /// points from `a` to `b`). With a [`Swept`](crate::Swept) collider,
        /// the first touch on the way (see [which contact a swept pair
        /// holds](crate::Collisions#which-contact-a-swept-pair-holds)); when
        /// in the step it happened is
        /// [`Collisions::time_of_impact`](crate::Collisions::time_of_impact).
        contact: Contact,
    },
    /// `a` and `b` stopped touching, or one of them was despawned, lost its
    /// collider, became invalid, or their layers stopped matching.
    Ended {
        /// The lower entity.
        a: Entity,
        /// The higher entity.
        b: Entity,
    },
}

impl CollisionEvent {
    /// The two entities, `a < b`.
    pub fn entities(&self) -> (Entity, Entity) {
        match *self {
            Self::Started { a, b, .. } | Self::Ended { a, b } => (a, b),
        }
    }

    /// Whether this event involves `entity`.
    pub fn involves(&self, entity: Entity) -> bool {
        let (a, b) = self.entities();
        a == entity || b == entity
    }
}

/// Triggered on each of the two colliders when they start touching, and on
/// the [`CollisionBody`] of each (if it has one other than itself); observe
/// it with `.observe(|event: On<CollisionStarted>| ...)`.
///
/// For each collider, the event on the collider comes first, then the one
/// on its body.
///
/// [`CollisionBody`]: crate::CollisionBody
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq, Reflect)]
pub struct CollisionStarted {
    /// The entity the event is triggered on: a collider, or its body.
    pub entity: Entity,
    /// The collider it started touching.
    pub other: Entity,
    /// The contact seen from `collider`: the normal points from `collider`
    /// to `other`. With a [`Swept`](crate::Swept) collider, the first touch
    /// on the way (see [which contact a swept pair
    /// holds](crate::Collisions#which-contact-a-swept-pair-holds));
    /// [`Collisions::impact_pose`](crate::Collisions::impact_pose) says
    /// where `collider` was then.
    pub contact: Contact,
    /// The collider of `entity` that touched `other`: `entity` itself when
    /// triggered on the collider, one of its parts when on a body.
    pub collider: Entity,
    /// When in the step they started touching, as a fraction of it: the
    /// pair's [`ContactPair::time_of_impact`] (below 1 only for the first
    /// touch of a [`Swept`](crate::Swept) pair on the way).
    pub time_of_impact: f32,
}

/// Triggered on each of the two colliders when they stop touching, and on
/// the [`CollisionBody`] of each that heard them start; when one of them was
/// despawned, only on the survivor (and the bodies still there).
///
/// [`CollisionBody`]: crate::CollisionBody
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq, Reflect)]
pub struct CollisionEnded {
    /// The entity the event is triggered on: a collider, or its body.
    pub entity: Entity,
    /// The collider it stopped touching (possibly despawned already).
    pub other: Entity,
    /// The collider of `entity` that stopped touching `other`: `entity`
    /// itself when triggered on the collider, one of its parts when on a
    /// body (possibly despawned already).
    pub collider: Entity,
}

/// Sends [`CollisionEvent`]s, triggers [`CollisionStarted`] /
/// [`CollisionEnded`] on both entities, and updates [`CollidingEntities`],
/// all from this detection's [`PairChanges`].
///
/// [`CollidingEntities`]: crate::CollidingEntities
pub(crate) fn report_collision_changes(
    changes: Res<PairChanges>,
    collisions: Res<Collisions>,
    bodies: Res<ColliderBodies>,
    mut messages: MessageWriter<CollisionEvent>,
    mut colliding: CollidingUpkeep,
    mut commands: Commands,
) {
    let mut notifications = Notifications {
        list: Vec::new(),
        bodies: &bodies,
    };
    // (entity, other, started): applied after all messages, in entity order,
    // which reads the components in storage order rather than at random.
    colliding.clear();
    for change in &changes.list {
        match *change {
            PairChange::Started(pair) => {
                let ContactPair { a, b, contact, .. } = pair;
                messages.write(CollisionEvent::Started { a, b, contact });
                colliding.note(a, b, true);
                notifications.started(pair);
            }
            PairChange::Ended(a, b) => {
                messages.write(CollisionEvent::Ended { a, b });
                colliding.note(a, b, false);
                notifications.ended(a, b);
            }
            // `CollidingEntities` ends as it was in both.
            PairChange::Restarted(pair) => {
                let ContactPair { a, b, contact, .. } = pair;
                messages.write(CollisionEvent::Ended { a, b });
                messages.write(CollisionEvent::Started { a, b, contact });
                notifications.ended(a, b);
                notifications.started(pair);
            }
            PairChange::Passed(pair) => {
                let ContactPair { a, b, contact, .. } = pair;
                messages.write(CollisionEvent::Started { a, b, contact });
                messages.write(CollisionEvent::Ended { a, b });
                notifications.passed(pair);
            }
        }
    }
    if changes.restored {
        colliding.rebuild(&collisions, &mut commands);
    } else {
        colliding.apply(&collisions, &mut commands);
    }
    if !bodies.moved().is_empty() {
        notifications.changed_bodies(&changes.list, &collisions);
    }
    let notifications = notifications.list;
    if !notifications.is_empty() {
        commands.queue(move |world: &mut World| trigger_if_alive(world, notifications));
    }
}

/// An observer event to trigger once detection is done.
enum Notification {
    Started(CollisionStarted),
    Ended(CollisionEnded),
}

/// The observer events of one detection, in order.
struct Notifications<'a> {
    list: Vec<Notification>,
    bodies: &'a ColliderBodies,
}

impl Notifications<'_> {
    /// `CollisionStarted` on `a` and its body, then on `b` and its body,
    /// each seeing the contact from its own collider.
    fn started(&mut self, pair: ContactPair) {
        self.started_on(pair);
        self.started_on(pair.flipped());
    }

    /// `CollisionEnded` on `a` and the body that heard it start, then on `b`
    /// and its body.
    fn ended(&mut self, a: Entity, b: Entity) {
        self.ended_on(a, b);
        self.ended_on(b, a);
    }

    /// A pair that started and ended within the step: both, on the bodies
    /// the colliders have now.
    fn passed(&mut self, pair: ContactPair) {
        let (a, b) = (pair.a, pair.b);
        self.started(pair);
        for (collider, other) in [(a, b), (b, a)] {
            let body = self
                .bodies
                .body_of(collider)
                .filter(|&body| body != collider);
            self.ended_on_entities(collider, other, [Some(collider), body]);
        }
    }

    /// `CollisionStarted` on the pair's `a` and its body, seeing the
    /// contact from `a`.
    fn started_on(&mut self, pair: ContactPair) {
        let (collider, other) = (pair.a, pair.b);
        let body = self
            .bodies
            .body_of(collider)
            .filter(|&body| body != collider);
        for entity in [Some(collider), body].into_iter().flatten() {
            self.list.push(Notification::Started(CollisionStarted {
                entity,
                other,
                contact: pair.contact,
                collider,
                time_of_impact: pair.time_of_impact,
            }));
        }
    }

    fn ended_on(&mut self, collider: Entity, other: Entity) {
        let body = (self.bodies.previous_body_of(collider)).filter(|&body| body != collider);
        self.ended_on_entities(collider, other, [Some(collider), body]);
    }

    fn ended_on_entities(&mut self, collider: Entity, other: Entity, on: [Option<Entity>; 2]) {
        for entity in on.into_iter().flatten() {
            self.list.push(Notification::Ended(CollisionEnded {
                entity,
                other,
                collider,
            }));
        }
    }

    /// For the contacts that go on while one of their colliders moved to
    /// another body: ended on the old body, started on the new one.
    fn changed_bodies(&mut self, changes: &[PairChange], collisions: &Collisions) {
        let bodies = self.bodies;
        let moved = |entity: &Entity| bodies.moved().binary_search(entity).is_ok();
        let mut started: Vec<(Entity, Entity)> = (changes.iter())
            .filter_map(|change| match change {
                PairChange::Started(pair) | PairChange::Restarted(pair) => Some((pair.a, pair.b)),
                PairChange::Ended(..) | PairChange::Passed(_) => None,
            })
            .collect();
        started.sort_unstable();
        for pair in collisions.iter() {
            if !(moved(&pair.a) || moved(&pair.b))
                || started.binary_search(&(pair.a, pair.b)).is_ok()
            {
                continue;
            }
            for side in [*pair, pair.flipped()] {
                let (collider, other) = (side.a, side.b);
                let [old, new] = [bodies.previous_body_of(collider), bodies.body_of(collider)]
                    .map(|body| body.filter(|&body| body != collider));
                if old == new {
                    continue;
                }
                self.ended_on_entities(collider, other, [old, None]);
                if let Some(body) = new {
                    self.list.push(Notification::Started(CollisionStarted {
                        entity: body,
                        other,
                        contact: side.contact,
                        collider,
                        time_of_impact: side.time_of_impact,
                    }));
                }
            }
        }
    }
}

/// Triggers each event in order, skipping those whose target is gone by then
/// (an earlier observer may have despawned it). One command for the whole
/// detection instead of one per event; each observer's own commands are
/// applied before the next event, as if each had been its own command.
fn trigger_if_alive(world: &mut World, notifications: Vec<Notification>) {
    // Events nobody observes are skipped; an observer added by another one
    // counts from then on.
    let mut observed = [
        is_observed::<CollisionStarted>(world),
        is_observed::<CollisionEnded>(world),
    ];
    for notification in notifications {
        let (target, kind) = match &notification {
            Notification::Started(event) => (event.entity, 0),
            Notification::Ended(event) => (event.entity, 1),
        };
        if !observed[kind] || world.get_entity(target).is_err() {
            continue;
        }
        match notification {
            Notification::Started(event) => world.trigger(event),
            Notification::Ended(event) => world.trigger(event),
        }
        world.flush();
        observed = [
            is_observed::<CollisionStarted>(world),
            is_observed::<CollisionEnded>(world),
        ];
    }
}

/// Whether any observer (global, on an entity or on a component) watches
/// `E`.
fn is_observed<E: Event>(world: &World) -> bool {
    world
        .event_key::<E>()
        .and_then(|key| world.observers().try_get_observers(key))
        .is_some_and(|observers| {
            !observers.global_observers().is_empty()
                || !observers.entity_observers().is_empty()
                || !observers.component_observers().is_empty()
        })
}
