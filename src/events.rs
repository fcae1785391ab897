//! Step 4 of detection: this detection's contact set diffed against the
//! previous one. Every consumer — messages, observer events and
//! [`CollidingEntities`] — is fed from that one diff, so they always agree.

use bevy::prelude::*;

use crate::collider::CollidingEntities;
use crate::geometry::Contact;
use crate::narrow_phase::Collisions;
use crate::radix_sort::radix_sort_by_key;

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
        /// points from `a` to `b`).
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

/// Triggered on each of the two entities when they start touching; observe it
/// with `.observe(|event: On<CollisionStarted>| ...)`.
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq, Reflect)]
pub struct CollisionStarted {
    /// The entity the event is triggered on.
    pub entity: Entity,
    /// The entity it started touching.
    pub other: Entity,
    /// The contact seen from `entity`: the normal points from `entity` to
    /// `other`.
    pub contact: Contact,
}

/// Triggered on each of the two entities when they stop touching; when one of
/// them was despawned, only on the survivor.
#[derive(EntityEvent, Clone, Copy, Debug, PartialEq, Reflect)]
pub struct CollisionEnded {
    /// The entity the event is triggered on.
    pub entity: Entity,
    /// The entity it stopped touching (possibly despawned already).
    pub other: Entity,
}

/// The pairs that were in contact at the previous detection, sorted.
#[derive(Resource, Default, Debug)]
pub(crate) struct PreviousPairs(Vec<(Entity, Entity)>);

impl PreviousPairs {
    /// Whether `a` and `b` (in either order) were in contact.
    pub(crate) fn contains(&self, a: Entity, b: Entity) -> bool {
        self.0.binary_search(&(a.min(b), a.max(b))).is_ok()
    }
}

/// A change in the contact set.
enum PairChange {
    Started(Entity, Entity, Contact),
    Ended(Entity, Entity),
    /// In both sets, but apart at the start of a swept path (the collider
    /// was teleported): it ended there and started again on the way.
    Restarted(Entity, Entity, Contact),
}

/// Merges the sorted previous and current pair lists, calling `on_change`
/// for each pair only in one of them, and for each pair in both that
/// restarted, in `(a, b)` order.
fn diff_pairs(
    previous: &[(Entity, Entity)],
    current: &Collisions,
    mut on_change: impl FnMut(PairChange),
) {
    let current = current.as_slice();
    let (mut p, mut c) = (0, 0);
    while p < previous.len() || c < current.len() {
        let old = previous.get(p).copied();
        let new = current.get(c).map(|pair| (pair.a, pair.b));
        match (old, new) {
            (Some(old), Some(new)) if old == new => {
                // A swept pair's contact is from before the end of the step
                // only if they were apart at its start: a time of impact of
                // 0 (touching at the start) is reported as the ordinary
                // contact at the end, with 1.
                let contact = current[c].contact;
                if contact.time_of_impact < 1.0 {
                    on_change(PairChange::Restarted(old.0, old.1, contact));
                }
                p += 1;
                c += 1;
            }
            (Some(old), Some(new)) if old < new => {
                on_change(PairChange::Ended(old.0, old.1));
                p += 1;
            }
            (Some(old), None) => {
                on_change(PairChange::Ended(old.0, old.1));
                p += 1;
            }
            _ => {
                let pair = current[c];
                on_change(PairChange::Started(pair.a, pair.b, pair.contact));
                c += 1;
            }
        }
    }
}

/// Sends [`CollisionEvent`]s, triggers [`CollisionStarted`] /
/// [`CollisionEnded`] on both entities, and updates [`CollidingEntities`],
/// all from the diff of [`Collisions`] against the previous detection.
pub(crate) fn report_collision_changes(
    collisions: Res<Collisions>,
    mut previous: ResMut<PreviousPairs>,
    mut messages: MessageWriter<CollisionEvent>,
    mut colliding: Query<&mut CollidingEntities>,
    mut commands: Commands,
    mut buffers: Local<CollidingChanges>,
) {
    let mut notifications = Vec::new();
    // (entity, other, started): applied after the diff in entity order, which
    // reads the components in storage order rather than at random.
    let CollidingChanges {
        changes: colliding_changes,
        scratch,
    } = &mut *buffers;
    colliding_changes.clear();
    diff_pairs(&previous.0, &collisions, |change| match change {
        PairChange::Started(a, b, contact) => {
            messages.write(CollisionEvent::Started { a, b, contact });
            colliding_changes.extend([(a, b, true), (b, a, true)]);
            notifications.extend(Notification::started(a, b, contact));
        }
        PairChange::Ended(a, b) => {
            messages.write(CollisionEvent::Ended { a, b });
            colliding_changes.extend([(a, b, false), (b, a, false)]);
            notifications.extend(Notification::ended(a, b));
        }
        // `CollidingEntities` ends as it was.
        PairChange::Restarted(a, b, contact) => {
            messages.write(CollisionEvent::Ended { a, b });
            messages.write(CollisionEvent::Started { a, b, contact });
            notifications.extend(Notification::ended(a, b));
            notifications.extend(Notification::started(a, b, contact));
        }
    });
    // Swept pairs that touched on the way and are apart again: a start and
    // an end at once, leaving `CollidingEntities` as it was. A pair that was
    // touching before has just been told it ended: if it was still touching
    // at the start of the path (time of impact 0), that is all; if it was
    // apart there (teleported away), it touched again on the way.
    for pair in collisions.passing() {
        let (a, b, contact) = (pair.a, pair.b, pair.contact);
        if contact.time_of_impact == 0.0 && previous.contains(a, b) {
            continue;
        }
        messages.write(CollisionEvent::Started { a, b, contact });
        messages.write(CollisionEvent::Ended { a, b });
        notifications.extend(Notification::started(a, b, contact));
        notifications.extend(Notification::ended(a, b));
    }
    // `Entity` orders by its bits. Each (entity, other) pair changes at most
    // once, so the order among one entity's changes does not matter.
    radix_sort_by_key(colliding_changes, scratch, |&(entity, _, _)| {
        entity.to_bits()
    });
    for &(entity, other, started) in colliding_changes.iter() {
        if let Ok(mut set) = colliding.get_mut(entity) {
            if started {
                set.insert(other);
            } else {
                set.remove(other);
            }
        }
    }
    if !notifications.is_empty() {
        commands.queue(move |world: &mut World| trigger_if_alive(world, notifications));
    }
    previous.0.clear();
    previous
        .0
        .extend(collisions.iter().map(|pair| (pair.a, pair.b)));
}

/// Reused space for the [`CollidingEntities`] changes of one detection.
#[derive(Default)]
pub(crate) struct CollidingChanges {
    /// (entity, other, started)
    changes: Vec<(Entity, Entity, bool)>,
    /// Sorting space.
    scratch: Vec<(Entity, Entity, bool)>,
}

/// An observer event to trigger once detection is done.
enum Notification {
    Started(CollisionStarted),
    Ended(CollisionEnded),
}

impl Notification {
    /// `CollisionStarted` on `a`, then on `b`, each seeing the contact from
    /// itself.
    fn started(a: Entity, b: Entity, contact: Contact) -> [Self; 2] {
        [
            Self::Started(CollisionStarted {
                entity: a,
                other: b,
                contact,
            }),
            Self::Started(CollisionStarted {
                entity: b,
                other: a,
                contact: contact.flipped(),
            }),
        ]
    }

    /// `CollisionEnded` on `a`, then on `b`.
    fn ended(a: Entity, b: Entity) -> [Self; 2] {
        [
            Self::Ended(CollisionEnded {
                entity: a,
                other: b,
            }),
            Self::Ended(CollisionEnded {
                entity: b,
                other: a,
            }),
        ]
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
