//! Step 4 of detection: the narrow phase's [`PairChange`]s reported. Every
//! consumer (messages, observer events and [`CollidingEntities`]) is fed
//! from those same changes, so they always agree.

use bevy::prelude::*;

use bevy::ecs::change_detection::ContiguousMut;
use bevy::ecs::entity::Entities;

use super::bodies::ColliderBodies;
use super::narrow_phase::{Collisions, ContactPair, PairChange, PairChanges};
use crate::components::CollidingEntities;
use crate::geometry::Contact;
use crate::util::parallel::{ChunkOutputs, Workers, for_each_part};
use crate::util::sort::radix_sort_by_key;

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
        /// holds](crate::Collisions#which-contact-a-swept-pair-holds)).
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

/// Entities whose [`CollidingEntities`] was inserted since the last
/// detection. It starts empty, so the next detection fills it with the
/// contacts that go on (a re-inserted bundle mid-contact, say).
#[derive(Resource, Default, Debug)]
pub(crate) struct InsertedColliding(Vec<Entity>);

/// Notes a newly inserted [`CollidingEntities`] for [`InsertedColliding`].
pub(crate) fn note_inserted_colliding(
    insert: On<Insert<CollidingEntities>>,
    mut inserted: ResMut<InsertedColliding>,
) {
    inserted.0.push(insert.entity);
}

/// Sends [`CollisionEvent`]s, triggers [`CollisionStarted`] /
/// [`CollisionEnded`] on both entities, and updates [`CollidingEntities`],
/// all from this detection's [`PairChanges`].
#[expect(
    clippy::too_many_arguments,
    reason = "a system's parameters, each a separate piece of world access"
)]
pub(crate) fn report_collision_changes(
    changes: Res<PairChanges>,
    collisions: Res<Collisions>,
    bodies: Res<ColliderBodies>,
    mut inserted: ResMut<InsertedColliding>,
    mut messages: MessageWriter<CollisionEvent>,
    mut colliding: Query<(Entity, &mut CollidingEntities)>,
    entities: &Entities,
    workers: Res<Workers>,
    mut commands: Commands,
    mut buffers: Local<CollidingChanges>,
) {
    let mut notifications = Notifications {
        list: Vec::new(),
        bodies: &bodies,
    };
    // (entity, other, started): applied after all messages, in entity order,
    // which reads the components in storage order rather than at random.
    let CollidingChanges {
        changes: colliding_changes,
        rows: row_changes,
    } = &mut *buffers;
    colliding_changes.clear();
    for change in &changes.0 {
        match *change {
            PairChange::Started(ContactPair { a, b, contact }) => {
                messages.write(CollisionEvent::Started { a, b, contact });
                colliding_changes.extend([(a, b, true), (b, a, true)]);
                notifications.started(a, b, contact);
            }
            PairChange::Ended(a, b) => {
                messages.write(CollisionEvent::Ended { a, b });
                colliding_changes.extend([(a, b, false), (b, a, false)]);
                notifications.ended(a, b);
            }
            // `CollidingEntities` ends as it was in both.
            PairChange::Restarted(ContactPair { a, b, contact }) => {
                messages.write(CollisionEvent::Ended { a, b });
                messages.write(CollisionEvent::Started { a, b, contact });
                notifications.ended(a, b);
                notifications.started(a, b, contact);
            }
            PairChange::Passed(ContactPair { a, b, contact }) => {
                messages.write(CollisionEvent::Started { a, b, contact });
                messages.write(CollisionEvent::Ended { a, b });
                notifications.passed(a, b, contact);
            }
        }
    }
    let unreached = apply_colliding_changes(
        colliding_changes,
        &mut colliding,
        entities,
        &workers,
        row_changes,
    );
    if !inserted.0.is_empty() {
        refill_inserted(&mut inserted.0, &collisions, &mut colliding);
    }
    if !unreached.is_empty() {
        commands.queue(move |world: &mut World| apply_to_unqueried(world, unreached));
    }
    if !bodies.moved().is_empty() {
        notifications.changed_bodies(&changes.0, &collisions);
    }
    let notifications = notifications.list;
    if !notifications.is_empty() {
        commands.queue(move |world: &mut World| trigger_if_alive(world, notifications));
    }
}

/// Reused space for the [`CollidingEntities`] changes of one detection.
#[derive(Default)]
pub(crate) struct CollidingChanges {
    /// (entity, other, started)
    changes: Vec<(Entity, Entity, bool)>,
    /// The changes by place.
    rows: RowChanges,
}

/// [`CollidingEntities`] changes by place: (table << 32 | row, other,
/// started), found in chunks, joined and sorted.
#[derive(Default)]
pub(crate) struct RowChanges {
    located: ChunkOutputs<(u64, Entity, bool)>,
    rows: Vec<(u64, Entity, bool)>,
    scratch: Vec<(u64, Entity, bool)>,
    /// Per chunk, the changes of live entities outside the query's tables.
    unmatched: Vec<Vec<(Entity, Entity, bool)>>,
}

/// Changes per chunk of [`CollidingEntities`] updates.
const CHANGES_PER_CHUNK: usize = 256;

/// Applies `changes` (entity, other, started) to the [`CollidingEntities`]
/// of `entity` where the query reaches it, and returns the changes of live
/// entities it does not reach: disabled ones (a disabling component hides
/// them from queries), or ones without the component.
///
/// The components are reached table by table and row by row, in chunks
/// shared by `workers`, rather than looked up entity by entity: a lookup
/// costs more than the update itself.
fn apply_colliding_changes(
    changes: &[(Entity, Entity, bool)],
    colliding: &mut Query<(Entity, &mut CollidingEntities)>,
    entities: &Entities,
    workers: &Workers,
    buffers: &mut RowChanges,
) -> Vec<(Entity, Entity, bool)> {
    let RowChanges {
        located,
        rows,
        scratch,
        unmatched,
    } = buffers;
    if changes.is_empty() {
        return Vec::new();
    }
    let Ok(tables) = colliding.contiguous_iter_mut() else {
        // A sparse-set component among the query's filters (a disabling
        // component, say) rules out reading by table.
        return apply_colliding_changes_by_entity(changes, colliding, entities);
    };
    let (mut table_ids, mut values, mut ticks) = (Vec::new(), Vec::new(), Vec::new());
    for (table_entities, components) in tables {
        let Some(table) = table_entities
            .first()
            .and_then(|&first| entities.get_spawned(first).ok())
        else {
            continue;
        };
        let (table_values, table_ticks) = ContiguousMut::bypass_change_detection_split(components);
        table_ids.push(table.table_id);
        values.push(table_values);
        ticks.push(table_ticks);
    }
    // Each change by its table (index in `values`) and row, found in chunks,
    // then put in that order.
    rows.clear();
    let table_ids = &table_ids;
    let chunks = changes.chunks(CHANGES_PER_CHUNK);
    if unmatched.len() < chunks.len() {
        unmatched.resize_with(chunks.len(), Vec::new);
    }
    let parts = chunks.zip(unmatched.iter_mut()).collect();
    located.collect_parts(
        workers,
        parts,
        |_, (chunk, unmatched), output| {
            unmatched.clear();
            let mut table = 0;
            for &(entity, other, started) in chunk {
                let Ok(location) = entities.get_spawned(entity) else {
                    continue;
                };
                if table_ids.get(table) != Some(&location.table_id) {
                    match table_ids.iter().position(|&id| id == location.table_id) {
                        Some(found) => table = found,
                        None => {
                            unmatched.push((entity, other, started));
                            continue;
                        }
                    }
                }
                let key = ((table as u64) << 32) | u64::from(location.table_row.index_u32());
                output.push((key, other, started));
            }
        },
        rows,
    );
    let unreached = unmatched[..changes.len().div_ceil(CHANGES_PER_CHUNK)].concat();
    radix_sort_by_key(rows, scratch, |&(key, _, _)| key);
    // Chunks of changes that never split a row, each with its rows' slice.
    let mut chunks = Vec::new();
    let mut rest = &rows[..];
    let mut table_rest: Option<(usize, &mut [CollidingEntities], usize)> = None;
    while let Some(&(first_key, _, _)) = rest.first() {
        let table = (first_key >> 32) as usize;
        let mut end = rest.len().min(CHANGES_PER_CHUNK);
        // The chunk ends where its table does, and never inside a row.
        end = rest[..end]
            .iter()
            .position(|&(key, _, _)| (key >> 32) as usize != table)
            .unwrap_or(end);
        while end < rest.len() && rest[end].0 == rest[end - 1].0 {
            end += 1;
        }
        let (chunk, after) = rest.split_at(end);
        rest = after;
        let last_row = (chunk[end - 1].0 as u32) as usize;
        let (slice, base) = match table_rest.take() {
            Some((t, slice, base)) if t == table => (slice, base),
            _ => (std::mem::take(&mut values[table]), 0),
        };
        let (head, tail) = slice.split_at_mut(last_row + 1 - base);
        table_rest = Some((table, tail, last_row + 1));
        chunks.push((head, base, chunk));
    }
    for_each_part(workers, chunks, |_, (slice, base, changes)| {
        for &(key, other, started) in changes {
            slice[(key as u32) as usize - base].update(other, started);
        }
    });
    // Changed ticks as `Mut` would have set them.
    for &(key, _, _) in rows.iter() {
        let table_ticks = &mut ticks[(key >> 32) as usize];
        let this_run = table_ticks.this_run();
        table_ticks.changed_mut()[(key as u32) as usize] = this_run;
    }
    unreached
}

/// [`apply_colliding_changes`] the plain way, looking each entity up: the
/// fallback when the query cannot be read by table, and the reference that
/// the fast path is tested against.
fn apply_colliding_changes_by_entity(
    changes: &[(Entity, Entity, bool)],
    colliding: &mut Query<(Entity, &mut CollidingEntities)>,
    entities: &Entities,
) -> Vec<(Entity, Entity, bool)> {
    let mut unreached = Vec::new();
    for &(entity, other, started) in changes {
        match colliding.get_mut(entity) {
            Ok((_, mut set)) => set.update(other, started),
            Err(_) if entities.get_spawned(entity).is_ok() => {
                unreached.push((entity, other, started));
            }
            Err(_) => {}
        }
    }
    unreached
}

/// Fills the [`CollidingEntities`] of `inserted` entities with their
/// contacts in `collisions` (those sent `Started` and not yet `Ended`), and
/// empties `inserted`. New colliders have none yet; a component inserted
/// again mid-contact gets its partners back.
fn refill_inserted(
    inserted: &mut Vec<Entity>,
    collisions: &Collisions,
    colliding: &mut Query<(Entity, &mut CollidingEntities)>,
) {
    inserted.sort_unstable();
    inserted.dedup();
    let was_inserted = |entity: &Entity| inserted.binary_search(entity).is_ok();
    for pair in collisions.iter() {
        for (entity, other) in [(pair.a, pair.b), (pair.b, pair.a)] {
            if was_inserted(&entity)
                && let Ok((_, mut set)) = colliding.get_mut(entity)
            {
                set.insert(other);
            }
        }
    }
    inserted.clear();
}

/// Applies changes to the [`CollidingEntities`] of entities that queries do
/// not see (disabled ones), straight through the world, so that a collider
/// disabled mid-contact does not keep its partners.
fn apply_to_unqueried(world: &mut World, changes: Vec<(Entity, Entity, bool)>) {
    for (entity, other, started) in changes {
        if let Some(mut set) = world.get_mut::<CollidingEntities>(entity) {
            set.update(other, started);
        }
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
    fn started(&mut self, a: Entity, b: Entity, contact: Contact) {
        self.started_on(a, b, contact);
        self.started_on(b, a, contact.flipped());
    }

    /// `CollisionEnded` on `a` and the body that heard it start, then on `b`
    /// and its body.
    fn ended(&mut self, a: Entity, b: Entity) {
        self.ended_on(a, b);
        self.ended_on(b, a);
    }

    /// A pair that started and ended within the step: both, on the bodies
    /// the colliders have now.
    fn passed(&mut self, a: Entity, b: Entity, contact: Contact) {
        self.started(a, b, contact);
        for (collider, other) in [(a, b), (b, a)] {
            let body = self
                .bodies
                .body_of(collider)
                .filter(|&body| body != collider);
            self.ended_on_entities(collider, other, [Some(collider), body]);
        }
    }

    fn started_on(&mut self, collider: Entity, other: Entity, contact: Contact) {
        let body = self
            .bodies
            .body_of(collider)
            .filter(|&body| body != collider);
        for entity in [Some(collider), body].into_iter().flatten() {
            self.list.push(Notification::Started(CollisionStarted {
                entity,
                other,
                contact,
                collider,
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
            let sides = [
                (pair.a, pair.b, pair.contact),
                (pair.b, pair.a, pair.contact.flipped()),
            ];
            for (collider, other, contact) in sides {
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
                        contact,
                        collider,
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

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::ecs::system::RunSystemOnce;
    use std::collections::{BTreeMap, BTreeSet};

    #[derive(Component)]
    struct TagA;

    #[derive(Component)]
    struct TagB;

    /// Thousands of changes over three tables, with entities that are gone
    /// or have no `CollidingEntities`, come out as a plain model says and
    /// exactly as the plain `Query::get_mut` path leaves them, change ticks
    /// included: every chunk boundary and table switch is crossed.
    #[test]
    fn colliding_changes_reach_every_table_and_row() {
        // Twin worlds: the fast path runs in one, the plain path in the other.
        let mut worlds = [World::new(), World::new()];
        let mut entities = Vec::new();
        for world in &mut worlds {
            entities = (0..900)
                .map(|i| match i % 3 {
                    0 => world.spawn(CollidingEntities::default()).id(),
                    1 => world.spawn((CollidingEntities::default(), TagA)).id(),
                    _ => world.spawn((CollidingEntities::default(), TagB)).id(),
                })
                .collect();
            let without_component = world.spawn(TagA).id();
            let despawned = world.spawn(CollidingEntities::default()).id();
            world.despawn(despawned);
            entities.extend([without_component, despawned]);
        }
        let (without_component, despawned) = (entities[900], entities[901]);
        let mut model: BTreeMap<Entity, BTreeSet<Entity>> = BTreeMap::new();
        let mut rng = 12345_u64;
        let mut next = |n: usize| {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (rng >> 33) as usize % n
        };
        for round in 0..4 {
            // Each (entity, other) changes at most once per detection, as
            // the diff guarantees.
            let mut changes = Vec::new();
            let mut seen = BTreeSet::new();
            for _ in 0..3000 {
                let (entity, other) = (entities[next(entities.len())], entities[next(900)]);
                if entity == other || !seen.insert((entity, other)) {
                    continue;
                }
                let started = !model.get(&entity).is_some_and(|s| s.contains(&other));
                changes.push((entity, other, started));
                if entity != without_component && entity != despawned {
                    let set = model.entry(entity).or_default();
                    if started {
                        set.insert(other);
                    } else {
                        set.remove(&other);
                    }
                }
            }
            changes.sort_by_key(|&(entity, _, _)| entity);
            let fast_changes = changes.clone();
            let fast_unreached = worlds[0]
                .run_system_once(
                    move |mut colliding: Query<(Entity, &mut CollidingEntities)>,
                          all: &Entities,
                          mut buffers: Local<RowChanges>| {
                        let workers = Workers::default();
                        apply_colliding_changes(
                            &fast_changes,
                            &mut colliding,
                            all,
                            &workers,
                            &mut buffers,
                        )
                    },
                )
                .unwrap();
            let plain_unreached = worlds[1]
                .run_system_once(
                    move |mut colliding: Query<(Entity, &mut CollidingEntities)>,
                          all: &Entities| {
                        apply_colliding_changes_by_entity(&changes, &mut colliding, all)
                    },
                )
                .unwrap();
            // Only the entity without the component is out of reach.
            assert_eq!(fast_unreached, plain_unreached, "round {round}");
            assert!(
                (fast_unreached.iter()).all(|&(entity, _, _)| entity == without_component),
                "round {round}"
            );
            for &entity in &entities[..900] {
                let [fast, plain] = [0, 1].map(|w| {
                    worlds[w]
                        .entity(entity)
                        .get_ref::<CollidingEntities>()
                        .unwrap()
                });
                let actual: BTreeSet<Entity> = fast.iter().collect();
                let expected = model.get(&entity).cloned().unwrap_or_default();
                assert_eq!(actual, expected, "round {round}, {entity}");
                assert_eq!(*fast, *plain, "round {round}, {entity}");
                assert_eq!(
                    fast.last_changed(),
                    plain.last_changed(),
                    "round {round}, {entity}"
                );
            }
        }
    }
}
