//! Step 4 of detection: this detection's contact set diffed against the
//! previous one. Every consumer — messages, observer events and
//! [`CollidingEntities`] — is fed from that one diff, so they always agree.

use bevy::prelude::*;

use std::sync::Mutex;

use bevy::ecs::change_detection::ContiguousMut;
use bevy::ecs::entity::Entities;

use crate::collider::CollidingEntities;
use crate::geometry::Contact;
use crate::narrow_phase::Collisions;
use crate::parallel::{ChunkOutputs, RunChunks, Workers, lock};
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
#[expect(
    clippy::too_many_arguments,
    reason = "a system's parameters, each a separate piece of world access"
)]
pub(crate) fn report_collision_changes(
    collisions: Res<Collisions>,
    mut previous: ResMut<PreviousPairs>,
    mut messages: MessageWriter<CollisionEvent>,
    mut colliding: Query<(Entity, &mut CollidingEntities)>,
    entities: &Entities,
    workers: Res<Workers>,
    mut commands: Commands,
    mut buffers: Local<CollidingChanges>,
) {
    let mut notifications = Vec::new();
    // (entity, other, started): applied after the diff in entity order, which
    // reads the components in storage order rather than at random.
    let CollidingChanges {
        changes: colliding_changes,
        rows: row_changes,
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
    apply_colliding_changes(
        colliding_changes,
        &mut colliding,
        entities,
        &workers,
        row_changes,
    );
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
}

/// Changes per chunk of [`CollidingEntities`] updates.
const CHANGES_PER_CHUNK: usize = 256;

/// Applies `changes` (entity, other, started) to the [`CollidingEntities`]
/// of `entity`, skipping entities without one.
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
) {
    let RowChanges {
        located,
        rows,
        scratch,
    } = buffers;
    if changes.is_empty() {
        return;
    }
    let Ok(tables) = colliding.contiguous_iter_mut() else {
        // Not reached: the component is stored in tables. Look each up.
        for &(entity, other, started) in changes {
            if let Ok((_, mut set)) = colliding.get_mut(entity) {
                set.update(other, started);
            }
        }
        return;
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
    located.collect_over(
        workers,
        changes,
        CHANGES_PER_CHUNK,
        |_, chunk, output| {
            let mut table = 0;
            for &(entity, other, started) in chunk {
                let Ok(location) = entities.get_spawned(entity) else {
                    continue;
                };
                if table_ids.get(table) != Some(&location.table_id) {
                    match table_ids.iter().position(|&id| id == location.table_id) {
                        Some(found) => table = found,
                        // No CollidingEntities (removed): nothing to update.
                        None => continue,
                    }
                }
                let key = ((table as u64) << 32) | u64::from(location.table_row.index_u32());
                output.push((key, other, started));
            }
        },
        rows,
    );
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
        chunks.push(Mutex::new((head, base, chunk)));
    }
    workers.for_each_chunk(chunks.len(), |k| {
        let mut chunk = lock(&chunks[k]);
        let (slice, base, changes) = &mut *chunk;
        for &(key, other, started) in changes.iter() {
            slice[(key as u32) as usize - *base].update(other, started);
        }
    });
    drop(chunks);
    // Changed ticks as `Mut` would have set them.
    for &(key, _, _) in rows.iter() {
        let table_ticks = &mut ticks[(key >> 32) as usize];
        let this_run = table_ticks.this_run();
        table_ticks.changed_mut()[(key as u32) as usize] = this_run;
    }
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
    /// or have no `CollidingEntities`, come out as a plain model says: every
    /// chunk boundary and table switch is crossed.
    #[test]
    fn colliding_changes_reach_every_table_and_row() {
        let mut world = World::new();
        let mut entities: Vec<Entity> = (0..900)
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
            world
                .run_system_once(
                    move |mut colliding: Query<(Entity, &mut CollidingEntities)>,
                          all: &Entities,
                          mut buffers: Local<RowChanges>| {
                        let workers = Workers::default();
                        apply_colliding_changes(
                            &changes,
                            &mut colliding,
                            all,
                            &workers,
                            &mut buffers,
                        );
                    },
                )
                .unwrap();
            for &entity in &entities[..900] {
                let actual: BTreeSet<Entity> = world
                    .get::<CollidingEntities>(entity)
                    .unwrap()
                    .iter()
                    .collect();
                let expected = model.get(&entity).cloned().unwrap_or_default();
                assert_eq!(actual, expected, "round {round}, {entity}");
            }
        }
    }
}
