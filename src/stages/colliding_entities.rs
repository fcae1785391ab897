//! [`CollidingEntities`] kept in step with the narrow phase's
//! [`PairChange`](super::narrow_phase::PairChange)s: the events step notes
//! each change here ([`CollidingUpkeep`]) as it reports it, and they are all
//! applied after the messages, table by table and row by row.

use bevy::ecs::change_detection::{ContiguousComponentTicksMut, ContiguousMut};
use bevy::ecs::entity::Entities;
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::storage::TableId;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::collisions::Collisions;
use crate::components::CollidingEntities;
use crate::util::parallel::{ChunkOutputs, Workers, for_each_part};
use crate::util::sort::radix_sort_by_key;

/// A change to the [`CollidingEntities`] of `entity`: (entity, other,
/// started).
type CollidingChange = (Entity, Entity, bool);

/// A change by place: (table << 32 | row, other, started).
type RowChange = (u64, Entity, bool);

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

/// The [`CollidingEntities`] side of the events step: the components, the
/// entities given one since the last detection, and the space kept between
/// detections.
#[derive(SystemParam)]
pub(crate) struct CollidingUpkeep<'w, 's> {
    colliding: Query<'w, 's, (Entity, &'static mut CollidingEntities)>,
    entities: &'w Entities,
    inserted: ResMut<'w, InsertedColliding>,
    workers: Res<'w, Workers>,
    buffers: Local<'s, CollidingChanges>,
}

impl CollidingUpkeep<'_, '_> {
    /// Forgets the changes of the previous detection.
    pub(super) fn clear(&mut self) {
        self.buffers.changes.clear();
    }

    /// Notes that `a` and `b` started touching (or stopped), for each of them.
    #[inline]
    pub(super) fn note(&mut self, a: Entity, b: Entity, started: bool) {
        (self.buffers.changes).extend([(a, b, started), (b, a, started)]);
    }

    /// Applies the changes noted, refills the components inserted since the
    /// last detection from `collisions`, and queues on `commands` the changes
    /// of the entities that the query does not reach.
    pub(super) fn apply(&mut self, collisions: &Collisions, commands: &mut Commands<'_, '_>) {
        let CollidingChanges { changes, rows } = &mut *self.buffers;
        let unreached = apply_colliding_changes(
            changes,
            &mut self.colliding,
            self.entities,
            &self.workers,
            rows,
        );
        if !self.inserted.0.is_empty() {
            refill_inserted(&mut self.inserted.0, collisions, &mut self.colliding);
        }
        if !unreached.is_empty() {
            commands.queue(move |world: &mut World| apply_to_unqueried(world, unreached));
        }
    }
}

impl CollidingUpkeep<'_, '_> {
    /// Sets every [`CollidingEntities`] to its entity's pairs in
    /// `collisions`, instead of applying the changes noted: the game put
    /// back an older [`Collisions`] (a rollback), so the components, left
    /// as the last detection made them, are not what the changes apply to.
    /// Only components that differ are written (and marked changed).
    pub(super) fn rebuild(&mut self, collisions: &Collisions, commands: &mut Commands<'_, '_>) {
        self.inserted.0.clear();
        let mut partners: Vec<(Entity, Entity)> = (collisions.iter())
            .flat_map(|pair| [(pair.a, pair.b), (pair.b, pair.a)])
            .collect();
        partners.sort_unstable();
        for (entity, mut set) in &mut self.colliding {
            let start = partners.partition_point(|&(e, _)| e < entity);
            let end = start + partners[start..].partition_point(|&(e, _)| e == entity);
            let wanted = partners[start..end].iter().map(|&(_, other)| other);
            if !set.iter().eq(wanted.clone()) {
                set.set_sorted(wanted);
            }
        }
        // Disabled colliders take no part in detection: theirs are empty.
        commands.queue(|world: &mut World| {
            let mut disabled = world.query_filtered::<&mut CollidingEntities, With<Disabled>>();
            for mut set in disabled.iter_mut(world) {
                if !set.is_empty() {
                    set.set_sorted(core::iter::empty());
                }
            }
        });
    }
}

/// Reused space for the [`CollidingEntities`] changes of one detection.
#[derive(Default)]
pub(crate) struct CollidingChanges {
    /// (entity, other, started)
    changes: Vec<CollidingChange>,
    /// The changes by place.
    rows: RowChanges,
}

/// [`CollidingEntities`] changes by place: (table << 32 | row, other,
/// started), found in chunks, joined and sorted.
#[derive(Default)]
pub(crate) struct RowChanges {
    located: ChunkOutputs<RowChange>,
    rows: Vec<RowChange>,
    scratch: Vec<RowChange>,
    /// Per chunk, the changes of live entities outside the query's tables.
    unmatched: Vec<Vec<CollidingChange>>,
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
    changes: &[CollidingChange],
    colliding: &mut Query<(Entity, &mut CollidingEntities)>,
    entities: &Entities,
    workers: &Workers,
    buffers: &mut RowChanges,
) -> Vec<CollidingChange> {
    if changes.is_empty() {
        return Vec::new();
    }
    let Ok(tables) = colliding.contiguous_iter_mut() else {
        // A sparse-set component among the query's filters (a disabling
        // component, say) rules out reading by table.
        return apply_colliding_changes_by_entity(changes, colliding, entities);
    };
    let QueryTables {
        ids,
        mut values,
        mut ticks,
    } = QueryTables::new(tables, entities);
    // Each change by its table (index in `values`) and row, found in chunks,
    // then put in that order.
    let unreached = buffers.locate(changes, &ids, entities, workers);
    let chunks = buffers.table_chunks(&mut values);
    update_rows(workers, chunks);
    buffers.mark_changed(&mut ticks);
    unreached
}

/// The tables the query reaches, in query order, taken apart.
struct QueryTables<'a> {
    ids: Vec<TableId>,
    /// Each table's components.
    values: Vec<&'a mut [CollidingEntities]>,
    /// Each table's change ticks, left alone until
    /// [`RowChanges::mark_changed`].
    ticks: Vec<ContiguousComponentTicksMut<'a>>,
}

impl<'a> QueryTables<'a> {
    /// Takes apart each of `tables` that has an entity.
    fn new(
        tables: impl Iterator<Item = (&'a [Entity], ContiguousMut<'a, CollidingEntities>)>,
        entities: &Entities,
    ) -> Self {
        let (mut ids, mut values, mut ticks) = (Vec::new(), Vec::new(), Vec::new());
        for (table_entities, components) in tables {
            let Some(table) = table_entities
                .first()
                .and_then(|&first| entities.get_spawned(first).ok())
            else {
                continue;
            };
            let (table_values, table_ticks) =
                ContiguousMut::bypass_change_detection_split(components);
            ids.push(table.table_id);
            values.push(table_values);
            ticks.push(table_ticks);
        }
        Self { ids, values, ticks }
    }
}

/// A chunk of changes, with the slice of its table's components that holds
/// its rows and the first row of that slice.
type TableChunk<'a, 'r> = (&'a mut [CollidingEntities], usize, &'r [RowChange]);

impl RowChanges {
    /// Sets the rows to `changes` by table (index in `table_ids`) and row,
    /// sorted; returns the changes of live entities in none of the tables.
    fn locate(
        &mut self,
        changes: &[CollidingChange],
        table_ids: &[TableId],
        entities: &Entities,
        workers: &Workers,
    ) -> Vec<CollidingChange> {
        let Self {
            located,
            rows,
            scratch,
            unmatched,
        } = self;
        rows.clear();
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
        unreached
    }

    /// Chunks of changes that never split a row, each with its rows' slice.
    fn table_chunks<'a>(
        &self,
        values: &mut [&'a mut [CollidingEntities]],
    ) -> Vec<TableChunk<'a, '_>> {
        let mut chunks = Vec::new();
        let mut rest = &self.rows[..];
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
        chunks
    }

    /// Changed ticks as `Mut` would have set them.
    fn mark_changed(&self, ticks: &mut [ContiguousComponentTicksMut<'_>]) {
        for &(key, _, _) in self.rows.iter() {
            let table_ticks = &mut ticks[(key >> 32) as usize];
            let this_run = table_ticks.this_run();
            table_ticks.changed_mut()[(key as u32) as usize] = this_run;
        }
    }
}

/// Applies each chunk's changes to its rows, the chunks shared by `workers`.
fn update_rows(workers: &Workers, chunks: Vec<TableChunk<'_, '_>>) {
    for_each_part(workers, chunks, |_, (slice, base, changes)| {
        for &(key, other, started) in changes {
            slice[(key as u32) as usize - base].update(other, started);
        }
    });
}

/// [`apply_colliding_changes`] the plain way, looking each entity up: the
/// fallback when the query cannot be read by table, and the reference that
/// the fast path is tested against.
fn apply_colliding_changes_by_entity(
    changes: &[CollidingChange],
    colliding: &mut Query<(Entity, &mut CollidingEntities)>,
    entities: &Entities,
) -> Vec<CollidingChange> {
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
fn apply_to_unqueried(world: &mut World, changes: Vec<CollidingChange>) {
    for (entity, other, started) in changes {
        if let Some(mut set) = world.get_mut::<CollidingEntities>(entity) {
            set.update(other, started);
        }
    }
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

    /// Twin worlds with the same entities: 900 with `CollidingEntities` over
    /// three tables, then one without it and one despawned.
    fn twin_worlds() -> ([World; 2], Vec<Entity>) {
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
        (worlds, entities)
    }

    /// One detection's random changes among `entities` (of [`twin_worlds`]),
    /// sorted by entity, with `model` following them.
    fn random_changes(
        entities: &[Entity],
        model: &mut BTreeMap<Entity, BTreeSet<Entity>>,
        next: &mut impl FnMut(usize) -> usize,
    ) -> Vec<CollidingChange> {
        let (without_component, despawned) = (entities[900], entities[901]);
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
        changes
    }

    /// Applies `changes` the fast way in `worlds[0]` and the plain way in
    /// `worlds[1]`, and returns what each left unreached.
    fn apply_in_both(
        worlds: &mut [World; 2],
        changes: Vec<CollidingChange>,
    ) -> [Vec<CollidingChange>; 2] {
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
                move |mut colliding: Query<(Entity, &mut CollidingEntities)>, all: &Entities| {
                    apply_colliding_changes_by_entity(&changes, &mut colliding, all)
                },
            )
            .unwrap();
        [fast_unreached, plain_unreached]
    }

    /// Thousands of changes over three tables, with entities that are gone
    /// or have no `CollidingEntities`, come out as a plain model says and
    /// exactly as the plain `Query::get_mut` path leaves them, change ticks
    /// included: every chunk boundary and table switch is crossed.
    #[test]
    fn colliding_changes_reach_every_table_and_row() {
        // Twin worlds: the fast path runs in one, the plain path in the other.
        let (mut worlds, entities) = twin_worlds();
        let without_component = entities[900];
        let mut model: BTreeMap<Entity, BTreeSet<Entity>> = BTreeMap::new();
        let mut rng = 12345_u64;
        let mut next = |n: usize| {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (rng >> 33) as usize % n
        };
        for round in 0..4 {
            let changes = random_changes(&entities, &mut model, &mut next);
            let [fast_unreached, plain_unreached] = apply_in_both(&mut worlds, changes);
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
