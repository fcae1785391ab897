//! Step 3 of detection: exact contacts for the candidate pairs, in parallel
//! chunks when there are many, always in the same order; then what changed
//! for each pair since the previous detection ([`PairChange`]), which the
//! events step reports.

use bevy::ecs::system::{SystemParam, SystemParamItem};
use bevy::prelude::*;

use super::broad_phase::BroadPhasePairs;
use super::colliders::{ColliderSource, DetectionColliders};
use super::collisions::{Collisions, ContactPair, ContactParts, PairParts, PairPaths, entity_pair};
use super::hooks::{CollisionHooks, PairHooks};
use super::part_neighbourhoods::{Neighbourhood, PartNeighbourhoods};
use super::snapshot::{ColliderSnapshot, SnapshotCollider, SnapshotShape};
use super::static_colliders::StaticColliders;
use crate::geometry::{
    Compound, Contact, ContactOp, ListedPart, PairShape, ShapeRef, SpecialKind, Stick,
    contact_with_listed_parts, dispatch, prefetch_parts, time_of_impact_from_apart,
};
use crate::util::parallel::{ChunkOutputs, RunChunks, Workers, for_each_chunk_mut};
use crate::util::prefetch::{PREFETCH_DISTANCE, prefetch};
use crate::util::sort::{PairKeys, PairSortSpace, SortedKeys, sort_by_unique_pair};

/// Candidate pairs per chunk of parallel work: a thread that joins late
/// still finds chunks left, and claiming one costs next to nothing.
const CANDIDATES_PER_CHUNK: usize = 512;

/// Contacts per chunk when they are gathered in order.
const CONTACTS_PER_CHUNK: usize = 2048;

/// What a slot holds until a contact is written to it.
const UNSET_PAIR: ContactPair = ContactPair {
    a: Entity::PLACEHOLDER,
    b: Entity::PLACEHOLDER,
    contact: Contact::new(Vec2::ZERO, Dir2::X, 0.0),
    time_of_impact: 1.0,
};

/// The contact of candidate `(i, j)`, ordered by entity.
#[inline]
fn contact_pair<'a>(colliders: impl ColliderSource<'a>, (i, j): (u32, u32)) -> Option<ContactPair> {
    let (i, j) = by_entity(colliders, (i, j));
    let (ci, cj) = (colliders.collider(i), colliders.collider(j));
    packed_contact_pair(colliders, (i, ci), (j, cj))
}

/// [`contact_pair`], and which parts of the pair (in `(a, b)` order) the
/// contact is on: [`ContactParts::NONE`] without a compound, so that a
/// compound pair is searched once. Out of line: the plain path's loop stays
/// as small as without compounds.
///
/// With `near` (kept neighbourhoods, and where to put those gathered
/// again), a moving collider against a big static compound looks in its
/// neighbourhood of the compound's parts ([`PartNeighbourhoods`]) instead of
/// the compound's part grid; the contact is the same.
#[inline(never)]
fn contact_pair_with_parts<'a>(
    colliders: impl ColliderSource<'a>,
    (i, j): (u32, u32),
    parts: &mut ContactParts,
    near: Option<(&PartNeighbourhoods, &mut Vec<Neighbourhood>)>,
) -> Option<ContactPair> {
    let (i, j) = by_entity(colliders, (i, j));
    let (ci, cj) = (colliders.collider(i), colliders.collider(j));
    *parts = ContactParts::NONE;
    if !(ci.shape.is_compound() || cj.shape.is_compound()) {
        return packed_contact_pair(colliders, (i, ci), (j, cj));
    }
    let ((_, shape_i), (_, shape_j)) = (colliders.get(i), colliders.get(j));
    let mut with_listed = |listed: [Option<&[ListedPart<'_>]>; 2]| {
        let (contact, [pi, pj]) =
            contact_with_listed_parts(shape_i, ci.pose, shape_j, cj.pose, listed)?;
        *parts = ContactParts::new(pi, pj);
        Some(ordered_pair(ci.entity, cj.entity, contact))
    };
    let big_static = near.and_then(|near| {
        let found = big_static_compound(colliders, (i, shape_i), (j, shape_j))?;
        Some((found, near))
    });
    let Some(((side, mover, compound_index, compound), (kept, gathered))) = big_static else {
        return with_listed([None, None]);
    };
    let (mover_collider, compound_collider) = (
        colliders.collider(mover),
        colliders.collider(compound_index),
    );
    let aabb = colliders.aabb(mover);
    if let Some(neighbourhood) = kept.kept(mover_collider.entity, compound_collider.entity, aabb) {
        let near = neighbourhood.parts_near(aabb);
        return with_listed(on_side(side, &near));
    }
    let mover_shape = if side == 0 { shape_j } else { shape_i };
    let neighbourhood = Neighbourhood::gather(
        (
            mover_collider.entity,
            mover_collider.pose,
            mover_shape.bounding_radius(),
        ),
        compound_collider.entity,
        compound,
        compound_collider.pose,
        aabb,
    );
    let found = with_listed(on_side(side, &neighbourhood.parts_near(aabb)));
    gathered.push(neighbourhood);
    found
}

/// `near` as the parts listed for side `side` of a pair.
fn on_side<'p, 'q>(side: usize, near: &'p [ListedPart<'q>]) -> [Option<&'p [ListedPart<'q>]>; 2] {
    if side == 0 {
        [Some(near), None]
    } else {
        [None, Some(near)]
    }
}

/// For a moving collider against a static compound with a part grid:
/// which side of the pair (0 or 1) the compound is, the moving collider's
/// index, the compound's, and the compound.
fn big_static_compound<'a>(
    colliders: impl ColliderSource<'a>,
    (i, shape_i): (usize, ShapeRef<'a>),
    (j, shape_j): (usize, ShapeRef<'a>),
) -> Option<(usize, usize, usize, &'a Compound)> {
    let found = match (shape_i, shape_j) {
        (_, ShapeRef::Compound(c)) if colliders.is_static(j) && !colliders.is_static(i) => {
            (1, i, j, c)
        }
        (ShapeRef::Compound(c), _) if colliders.is_static(i) && !colliders.is_static(j) => {
            (0, j, i, c)
        }
        _ => return None,
    };
    found.3.has_part_grid().then_some(found)
}

/// Candidate `(i, j)` as indices, the lower entity's first: a pair is
/// always tested from the same side, so that its contact is a function of
/// the two colliders alone, not of where the ECS stores them (storage
/// order changes when a component is added or removed; a rollback's
/// re-simulated frame must find the same contacts to the bit).
#[inline(always)]
fn by_entity<'a>(colliders: impl ColliderSource<'a>, (i, j): (u32, u32)) -> (usize, usize) {
    let (i, j) = (i as usize, j as usize);
    if colliders.collider(i).entity < colliders.collider(j).entity {
        (i, j)
    } else {
        (j, i)
    }
}

/// Starts loading, in three stages some candidates apart, what the
/// compound pairs of `candidates` after `at` will read: a big compound's
/// part grid is otherwise one cache miss after another (a tile map's).
#[inline]
fn prefetch_compound_pairs<'a>(
    colliders: impl ColliderSource<'a>,
    candidates: &[(u32, u32)],
    at: usize,
) {
    for (stage, distance) in [(0, 3), (1, 2), (2, 1)] {
        let Some(&(i, j)) = candidates.get(at + distance * PREFETCH_DISTANCE) else {
            continue;
        };
        let (i, j) = (i as usize, j as usize);
        // A moving collider against a static compound looks in its kept
        // neighbourhood, not in the compound's grid.
        if colliders.is_static(i) || colliders.is_static(j) {
            continue;
        }
        if colliders.collider(i).shape.is_compound() || colliders.collider(j).shape.is_compound() {
            let ((ci, shape_i), (cj, shape_j)) = (colliders.get(i), colliders.get(j));
            prefetch_parts(shape_i, ci.pose, shape_j, cj.pose, stage);
        }
    }
}

/// The contact of colliders `i` and `j`, read from their packed shapes.
#[inline(always)]
fn packed_contact_pair<'a, C: ColliderSource<'a>>(
    colliders: C,
    (i, ci): (usize, &'a SnapshotCollider),
    (j, cj): (usize, &'a SnapshotCollider),
) -> Option<ContactPair> {
    // Circles and rectangles, most pairs of most scenes, go to their
    // hand-written tests from the packed shapes, without a full view.
    let (a, b) = (
        PackedView::new(colliders, i, ci),
        PackedView::new(colliders, j, cj),
    );
    let contact = dispatch(ContactOp, a, ci.pose, b, cj.pose)?;
    Some(ordered_pair(ci.entity, cj.entity, contact))
}

/// A collider's packed shape, as [`dispatch`] reads it: its kind from the
/// snapshot record, its points looked up only for the general tests.
#[derive(Clone, Copy)]
struct PackedView<'a, C> {
    colliders: C,
    index: usize,
    shape: &'a SnapshotShape,
}

impl<'a, C: ColliderSource<'a>> PackedView<'a, C> {
    #[inline(always)]
    fn new(colliders: C, index: usize, collider: &'a SnapshotCollider) -> Self {
        Self {
            colliders,
            index,
            shape: &collider.shape,
        }
    }
}

impl<'a, C: ColliderSource<'a>> PairShape<'a> for PackedView<'a, C> {
    #[inline(always)]
    fn special_kind(self) -> SpecialKind {
        match *self.shape {
            SnapshotShape::Circle { radius } => SpecialKind::Circle(radius),
            SnapshotShape::Rect { half_size } => SpecialKind::Rect(half_size),
            SnapshotShape::Capsule {
                radius,
                half_length,
            } => SpecialKind::Stick(Stick::capsule(radius, half_length)),
            // Segments are read from the points only when the general test
            // needs them.
            _ => SpecialKind::Other,
        }
    }

    #[inline(always)]
    fn view(self) -> ShapeRef<'a> {
        self.colliders.get(self.index).1
    }
}

/// How a pair with a [`Swept`](crate::Swept) collider met during the step.
#[derive(Clone, Copy, Debug)]
struct SweptContact {
    /// The contact reported for the step: at the end if the pair was
    /// touching all along, else at the first touch on the way.
    pair: ContactPair,
    /// The candidate's colliders, `a`'s first, for their paths.
    colliders: (u32, u32),
    /// Apart where the paths start: a pair touching at the previous
    /// detection was moved apart (teleported) and touched again on the way.
    apart_at_start: bool,
    touching_at_end: bool,
}

/// The contact of candidate `(i, j)`, at least one of them swept.
///
/// A pair already touching at the start of the step continues (or ends) as
/// usual, with its end-of-step contact, if it was touching at the previous
/// detection; if not, it started at the start (time of impact 0). Otherwise
/// the first touch along the way is reported, with its time of impact.
fn swept_contact_pair<'a>(
    colliders: impl ColliderSource<'a>,
    previous: &PreviousPairs,
    (i, j): (u32, u32),
) -> Option<SweptContact> {
    let (i, j) = by_entity(colliders, (i, j));
    let ((ci, shape_i), (cj, shape_j)) = (colliders.get(i), colliders.get(j));
    let (sweep_i, sweep_j) = (colliders.sweep(i), colliders.sweep(j));
    let end = deepest_contact(shape_i, sweep_i.end, shape_j, sweep_j.end);
    let touching_at_end = end.is_some();
    let touching_at_start = shape_i.intersects(sweep_i.start, shape_j, sweep_j.start);
    let (contact, time_of_impact) = if touching_at_start {
        match end {
            // Touching at the start and at the end: an ongoing contact,
            // reported as it is at the end, unless it was not touching at
            // the previous detection (a teleport or a new collider put them
            // together): then it started at the start.
            Some(end) if previous.contains(ci.entity, cj.entity) => (end, 1.0),
            // Started at the start; apart at the end when passing.
            _ => (
                deepest_contact(shape_i, sweep_i.start, shape_j, sweep_j.start)?,
                0.0,
            ),
        }
    } else {
        // The first touch on the way; apart at the end when passing.
        // A first touch at the very end is the end's contact, if they touch
        // there: along a path of astronomic length, rounding can put it at
        // t = 1 while they are still apart.
        time_of_impact_from_apart(shape_i, sweep_i, shape_j, sweep_j)
            .filter(|impact| impact.time < 1.0)
            .map(|impact| (impact.contact, impact.time))
            .or(end.map(|end| (end, 1.0)))?
    };
    Some(SweptContact {
        pair: ContactPair {
            time_of_impact,
            ..ordered_pair(ci.entity, cj.entity, contact)
        },
        colliders: (i as u32, j as u32),
        apart_at_start: !touching_at_start,
        touching_at_end,
    })
}

/// The contact of `a` at `pa` and `b` at `pb`, a compound's deepest part's
/// with ties to the lowest part indices, as the plain path finds it (and
/// names the parts for [`Collisions::parts`]).
fn deepest_contact(
    a: ShapeRef<'_>,
    pa: Isometry2d,
    b: ShapeRef<'_>,
    pb: Isometry2d,
) -> Option<Contact> {
    if matches!(a, ShapeRef::Compound(_)) || matches!(b, ShapeRef::Compound(_)) {
        contact_with_listed_parts(a, pa, b, pb, [None, None]).map(|(contact, _)| contact)
    } else {
        a.contact(pa, b, pb)
    }
}

/// `contact` (seen from `ei`) as the pair of `ei` and `ej` in entity order,
/// found at the end of the step (time of impact 1).
#[inline]
fn ordered_pair(ei: Entity, ej: Entity, contact: Contact) -> ContactPair {
    let pair = ContactPair {
        a: ei,
        b: ej,
        contact,
        time_of_impact: 1.0,
    };
    if ei < ej { pair } else { pair.flipped() }
}

/// What happened to a pair of colliders since the previous detection. The
/// events step reports exactly these; ongoing contacts are not listed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum PairChange {
    /// Started touching, with the contact when they did.
    Started(ContactPair),
    /// Stopped touching, or one of them is gone or no longer takes part.
    Ended(Entity, Entity),
    /// Touching at both detections, but apart where a swept path started
    /// (moved away in between): it ended there and started again on the way.
    Restarted(ContactPair),
    /// A swept pair that touched on the way and is apart at the end: it
    /// started and ended within the step.
    Passed(ContactPair),
}

/// This detection's [`PairChange`]s: first the changes of the contact set in
/// `(a, b)` order, then the [`PairChange::Passed`] pairs in `(a, b)` order.
#[derive(Resource, Default, Debug)]
pub(crate) struct PairChanges {
    pub(crate) list: Vec<PairChange>,
    /// The previous pairs came from a [`Collisions`] the game put back (a
    /// rollback), not from the last detection: the changes are against it,
    /// and what was built from the last detection (every
    /// [`CollidingEntities`](crate::CollidingEntities)) must be built again.
    pub(crate) restored: bool,
}

/// The pairs that were in contact at the previous detection, sorted.
#[derive(Resource, Default, Debug)]
pub(crate) struct PreviousPairs(Vec<(Entity, Entity)>);

impl PreviousPairs {
    /// Whether `a` and `b` (in either order) were in contact.
    pub(crate) fn contains(&self, a: Entity, b: Entity) -> bool {
        self.0.binary_search(&(a.min(b), a.max(b))).is_ok()
    }

    /// Takes `pairs`, the last detection's, as the previous ones.
    fn remember(&mut self, pairs: &[ContactPair]) {
        self.0.clear();
        self.0.extend(pairs.iter().map(|pair| (pair.a, pair.b)));
    }
}

/// What [`compute_contacts`] reads: this detection's colliders and candidate
/// pairs.
#[derive(SystemParam)]
pub(crate) struct NarrowPhaseInputs<'w> {
    snapshot: Res<'w, ColliderSnapshot>,
    statics: Res<'w, StaticColliders>,
    candidates: Res<'w, BroadPhasePairs>,
    workers: Res<'w, Workers>,
}

/// What [`compute_contacts`] writes, and the space it keeps between
/// detections.
#[derive(SystemParam)]
pub(crate) struct NarrowPhaseState<'w, 's> {
    collisions: ResMut<'w, Collisions>,
    previous: ResMut<'w, PreviousPairs>,
    changes: ResMut<'w, PairChanges>,
    split: Local<'s, SweptSplit>,
    sorted: Local<'s, SortedContacts>,
    /// The stamp of the last [`Collisions`] written.
    last_stamp: Local<'s, u64>,
    neighbourhoods: ResMut<'w, PartNeighbourhoods>,
}

/// Computes exact contacts for [`BroadPhasePairs`] into [`Collisions`], and
/// what changed since the previous detection into [`PairChanges`].
pub(crate) fn compute_contacts<H: CollisionHooks + 'static>(
    inputs: NarrowPhaseInputs,
    mut state: NarrowPhaseState,
    hooks: PairHooks<H>,
) where
    for<'w, 's> SystemParamItem<'w, 's, H>: CollisionHooks,
{
    let NarrowPhaseInputs {
        snapshot,
        statics,
        candidates,
        workers,
    } = &inputs;
    let colliders = DetectionColliders::new(snapshot, statics);
    // What detection remembers between runs is `Collisions` alone, so that
    // a game rolling its world back restores it with `Collisions`.
    state.previous.remember(&state.collisions.pairs);
    (state.neighbourhoods).begin_detection(statics.version, snapshot.len());
    state.changes.restored = state.collisions.stamp != *state.last_stamp;
    *state.last_stamp += 1;
    state.collisions.stamp = *state.last_stamp;
    // Without static colliders, the snapshot is read directly.
    let plain_parts_found = if statics.len() == 0 {
        state.find_contacts(&**snapshot, colliders, &candidates.pairs, workers)
    } else {
        state.find_contacts(colliders, colliders, &candidates.pairs, workers)
    };
    if plain_parts_found {
        // The swept pairs' parts are left (the split is this detection's
        // only when there are swept colliders).
        if colliders.has_paths() {
            let swept = core::mem::take(&mut state.split.swept);
            state.find_parts(colliders, &swept, workers);
            state.split.swept = swept;
        }
    } else {
        state.find_parts(colliders, &candidates.pairs, workers);
    }
    hooks.apply(&mut state.collisions);
    state.note_changes();
}

impl NarrowPhaseState<'_, '_> {
    /// Sets [`Collisions`] to the contacts of `candidates`, read from `source`.
    ///
    /// `source` holds the same colliders as `colliders`: the snapshot alone
    /// when there are no static colliders, else `colliders` itself.
    ///
    /// With compounds, also sets [`Collisions::parts`] for the plain pairs,
    /// and says whether it did (not when their keys do not fit).
    fn find_contacts<'a>(
        &mut self,
        source: impl ColliderSource<'a>,
        colliders: DetectionColliders<'a>,
        candidates: &[(u32, u32)],
        workers: &Workers,
    ) -> bool {
        let Collisions {
            pairs,
            passing,
            swept_paths,
            by_b,
            sort_space,
            part_pairs,
            ..
        } = &mut *self.collisions;
        part_pairs.clear();
        passing.clear();
        swept_paths.clear();
        by_b.take();
        let split = &mut *self.split;
        split.clear();
        let candidates = if colliders.has_paths() {
            // Pairs with a swept collider take the slower path.
            split.split_candidates(colliders, candidates);
            split.test_swept(source, &self.previous, workers);
            split.sort_out_swept(colliders, swept_paths, passing);
            &split.plain[..]
        } else {
            candidates
        };
        let sorted = &mut *self.sorted;
        let parts = colliders.has_compounds().then_some(part_pairs);
        let found_parts = sorted.find(
            source,
            candidates,
            workers,
            pairs,
            sort_space,
            parts,
            &mut self.neighbourhoods,
        );
        if !split.touching.is_empty() {
            merge_sorted(pairs, &split.touching, &mut sorted.merged);
        }
        found_parts
    }

    /// Adds which parts the contacts of `candidates` with a compound
    /// collider are on ([`Collisions::parts`]), found again part by part at
    /// the end of the step: the swept pairs, and every pair when the plain
    /// path did not (see [`SortedContacts::find`]). Nothing to do without
    /// compounds, the common case.
    fn find_parts(
        &mut self,
        colliders: DetectionColliders,
        candidates: &[(u32, u32)],
        workers: &Workers,
    ) {
        if !colliders.has_compounds() || candidates.is_empty() {
            return;
        }
        let part_pairs = &mut self.collisions.part_pairs;
        let chunk_parts = &mut self.sorted.chunk_parts;
        test_in_chunks(candidates, workers, chunk_parts, part_pairs, |candidate| {
            let compound = |index: u32| colliders.collider(index as usize).shape.is_compound();
            if !(compound(candidate.0) || compound(candidate.1)) {
                return None;
            }
            let mut parts = ContactParts::NONE;
            let pair = contact_pair_with_parts(colliders, candidate, &mut parts, None)?;
            (parts != ContactParts::NONE).then_some(PairParts::of(&pair, parts))
        });
        part_pairs.sort_unstable_by_key(|pair| (pair.a, pair.b));
    }

    /// Sets [`PairChanges`] from this detection's pairs.
    fn note_changes(&mut self) {
        let Collisions { pairs, passing, .. } = &*self.collisions;
        let split = &*self.split;
        let changes = &mut self.changes.list;
        changes.clear();
        diff_pairs(&self.previous.0, pairs, &split.reentered, changes);
        let apart_at_start = &split.passing_apart_at_start;
        push_passed(passing, apart_at_start, &self.previous, changes);
    }
}

/// Pushes a [`PairChange::Passed`] for each of `passing` that did not just end.
fn push_passed(
    passing: &[ContactPair],
    apart_at_start: &[bool],
    previous: &PreviousPairs,
    changes: &mut Vec<PairChange>,
) {
    // A passing pair that was touching at the start of its path and at the
    // previous detection has just ended (the diff says so); the others
    // touched on the way.
    for (pair, &apart_at_start) in passing.iter().zip(apart_at_start) {
        if apart_at_start || !previous.contains(pair.a, pair.b) {
            changes.push(PairChange::Passed(*pair));
        }
    }
}

/// Merges the sorted previous and current pair lists into `changes`: each
/// pair only in one of them started or ended; a pair in both restarted if
/// it is in `reentered` (sorted), else it goes on and is not listed.
fn diff_pairs(
    previous: &[(Entity, Entity)],
    current: &[ContactPair],
    reentered: &[(Entity, Entity)],
    changes: &mut Vec<PairChange>,
) {
    let (mut p, mut c) = (0, 0);
    let mut reentered = reentered.iter().peekable();
    while p < previous.len() || c < current.len() {
        let old = previous.get(p).copied();
        let new = current.get(c).map(|pair| (pair.a, pair.b));
        match (old, new) {
            (Some(old), Some(new)) if old == new => {
                while reentered.next_if(|&&pair| pair < old).is_some() {}
                if reentered.next_if_eq(&&old).is_some() {
                    changes.push(PairChange::Restarted(current[c]));
                }
                p += 1;
                c += 1;
            }
            (Some(old), Some(new)) if old < new => {
                changes.push(PairChange::Ended(old.0, old.1));
                p += 1;
            }
            (Some(old), None) => {
                changes.push(PairChange::Ended(old.0, old.1));
                p += 1;
            }
            _ => {
                changes.push(PairChange::Started(current[c]));
                c += 1;
            }
        }
    }
}

/// Merges `extra` into `pairs`, both sorted by entity pair and without a
/// pair in common, keeping that order.
fn merge_sorted(
    pairs: &mut Vec<ContactPair>,
    extra: &[ContactPair],
    merged: &mut Vec<ContactPair>,
) {
    merged.clear();
    let mut rest = &pairs[..];
    for pair in extra {
        let before = rest.partition_point(|p| entity_pair(p) < entity_pair(pair));
        merged.extend_from_slice(&rest[..before]);
        merged.push(*pair);
        rest = &rest[before..];
    }
    merged.extend_from_slice(rest);
    std::mem::swap(pairs, merged);
}

/// Finds the contacts of candidate pairs in entity-pair order, keeping its
/// allocations between detections.
///
/// Each contact is written once, to its candidate's slot, by whichever
/// thread tests it; only its 64-bit key ([`PairKeys`]: the entity pair and
/// the candidate's index) is sorted, and the contacts are then gathered in
/// key order, also in parallel. Moving 40-byte contacts through a join and a
/// sort cost more than testing them at 100 000 colliders.
#[derive(Default)]
pub(crate) struct SortedContacts {
    /// Each candidate's contact where it has one (elsewhere stale values).
    by_candidate: Vec<ContactPair>,
    /// The key of each contact found, by chunk, then joined.
    chunk_keys: ChunkOutputs<u64>,
    keys: Vec<u64>,
    sorted_keys: SortedKeys,
    /// When keys do not fit in 64 bits: contacts by chunk, sorted after.
    chunk_contacts: ChunkOutputs<ContactPair>,
    /// Space for [`merge_sorted`].
    merged: Vec<ContactPair>,
    /// The parts of compound pairs, by chunk ([`Collisions::parts`]).
    chunk_parts: ChunkOutputs<PairParts>,
    /// The parts of each candidate's contact, beside `by_candidate`, when
    /// there are compounds.
    parts_by_candidate: Vec<ContactParts>,
    /// The neighbourhoods of big static compounds gathered again, by chunk.
    chunk_gathered: Vec<Vec<Neighbourhood>>,
}

impl SortedContacts {
    /// Sets `pairs` to the contacts of `candidates`, sorted by entity pair
    /// (with `sort_space` when the keys do not fit in 64 bits). With
    /// `parts` (there are compounds), also appends which parts the
    /// contacts of compound pairs are on, sorted, and says whether it did
    /// (not when the keys do not fit).
    #[allow(clippy::too_many_arguments)]
    fn find<'a>(
        &mut self,
        colliders: impl ColliderSource<'a>,
        candidates: &[(u32, u32)],
        runner: &impl RunChunks,
        pairs: &mut Vec<ContactPair>,
        sort_space: &mut PairSortSpace<ContactPair>,
        parts: Option<&mut Vec<PairParts>>,
        neighbourhoods: &mut PartNeighbourhoods,
    ) -> bool {
        // Every entity of a contact is one of the detection's.
        let varying = colliders.entity_varying_bits();
        let Some(packing) = PairKeys::new(varying, varying, candidates.len()) else {
            pairs.clear();
            test_in_chunks(
                candidates,
                runner,
                &mut self.chunk_contacts,
                pairs,
                // The same contact as the keyed path's, ties among a
                // compound's parts included.
                |candidate| {
                    let mut parts = ContactParts::NONE;
                    contact_pair_with_parts(colliders, candidate, &mut parts, None)
                },
            );
            sort_by_unique_pair(pairs, sort_space, entity_pair);
            return false;
        };
        // Resizing only writes when the count grows.
        self.by_candidate.resize(candidates.len(), UNSET_PAIR);
        let with_parts = parts.is_some();
        if with_parts {
            self.parts_by_candidate
                .resize(candidates.len(), ContactParts::NONE);
        }
        let part_slots = (self.parts_by_candidate.chunks_mut(CANDIDATES_PER_CHUNK))
            .filter(|_| with_parts)
            .map(Some)
            .chain(core::iter::repeat_with(|| None));
        let chunks = candidates.len().div_ceil(CANDIDATES_PER_CHUNK);
        if self.chunk_gathered.len() < chunks {
            self.chunk_gathered.resize_with(chunks, Vec::new);
        }
        self.chunk_gathered.iter_mut().for_each(Vec::clear);
        let slots = (self.by_candidate.chunks_mut(CANDIDATES_PER_CHUNK))
            .zip(part_slots)
            .zip(self.chunk_gathered.iter_mut())
            .map(|((slots, part_slots), gathered)| (slots, part_slots, gathered))
            .collect();
        self.keys.clear();
        let kept = &*neighbourhoods;
        self.chunk_keys.collect_parts(
            runner,
            slots,
            |k,
             (slots, part_slots, gathered): (
                &mut [ContactPair],
                Option<&mut [ContactParts]>,
                &mut Vec<Neighbourhood>,
            ),
             keys| {
                let first = k * CANDIDATES_PER_CHUNK;
                let ahead = &candidates[first..];
                let mut keep = |at: usize, pair: ContactPair| {
                    keys.push(packing.key(entity_pair(&pair), first + at));
                };
                // Two loops, so that the common one (no compound) stays as
                // tight as before compounds came.
                match part_slots {
                    None => fill_slots(colliders, slots, ahead, &mut keep, |_, candidate| {
                        contact_pair(colliders, candidate)
                    }),
                    Some(part_slots) => {
                        fill_slots(colliders, slots, ahead, &mut keep, |at, candidate| {
                            prefetch_compound_pairs(colliders, ahead, at);
                            let near = Some((kept, &mut *gathered));
                            contact_pair_with_parts(colliders, candidate, &mut part_slots[at], near)
                        })
                    }
                }
            },
            &mut self.keys,
        );
        neighbourhoods.keep(self.chunk_gathered.iter_mut().flat_map(std::mem::take));
        let sorted = self.sorted_keys.sort(&self.keys, packing.bits());
        if let Some(part_pairs) = parts {
            // In entity-pair order, as `sorted` is.
            part_pairs.extend(sorted.iter().filter_map(|&key| {
                let at = packing.index(key);
                let parts = self.parts_by_candidate[at];
                (parts != ContactParts::NONE)
                    .then_some(PairParts::of(&self.by_candidate[at], parts))
            }));
        }
        pairs.resize(sorted.len(), UNSET_PAIR);
        let by_candidate = &self.by_candidate;
        for_each_chunk_mut(runner, pairs, CONTACTS_PER_CHUNK, |k, chunk| {
            let keys = &sorted[k * CONTACTS_PER_CHUNK..];
            // The contacts are read in entity order, all over memory.
            for (at, (pair, &key)) in chunk.iter_mut().zip(keys).enumerate() {
                if let Some(&ahead) = keys.get(at + PREFETCH_DISTANCE) {
                    prefetch(&by_candidate[packing.index(ahead)]);
                }
                *pair = by_candidate[packing.index(key)];
            }
        });
        true
    }
}

/// Puts `test`'s contact for each of the chunk's candidates (the first of
/// `ahead`) into its slot, and tells `keep` where it found one.
#[inline(always)]
fn fill_slots<'a>(
    colliders: impl ColliderSource<'a>,
    slots: &mut [ContactPair],
    ahead: &[(u32, u32)],
    keep: &mut impl FnMut(usize, ContactPair),
    mut test: impl FnMut(usize, (u32, u32)) -> Option<ContactPair>,
) {
    for (at, (slot, &candidate)) in slots.iter_mut().zip(ahead).enumerate() {
        // Static colliders are read out of order: one cache miss each
        // unless asked for ahead.
        if let Some(&(i, j)) = ahead.get(at + PREFETCH_DISTANCE) {
            prefetch(colliders.collider(i as usize));
            prefetch(colliders.collider(j as usize));
        }
        if let Some(pair) = test(at, candidate) {
            *slot = pair;
            keep(at, pair);
        }
    }
}

/// The candidates of a detection with swept colliders, split by path, and
/// the swept path's results.
#[derive(Default)]
pub(crate) struct SweptSplit {
    plain: Vec<(u32, u32)>,
    swept: Vec<(u32, u32)>,
    chunk_contacts: ChunkOutputs<SweptContact>,
    /// The swept path's contacts, sorted by entity pair.
    contacts: Vec<SweptContact>,
    contact_sort_space: PairSortSpace<SweptContact>,
    /// Those still touching at the end of the step.
    touching: Vec<ContactPair>,
    /// Those still touching that were apart at the start of their paths.
    reentered: Vec<(Entity, Entity)>,
    /// For each pair of [`Collisions::passing`], whether it was apart at the
    /// start of its path.
    passing_apart_at_start: Vec<bool>,
}

impl SweptSplit {
    /// Forgets the previous detection's swept results.
    fn clear(&mut self) {
        self.touching.clear();
        self.reentered.clear();
        self.passing_apart_at_start.clear();
    }

    /// Splits `candidates` into those with a swept collider and the others.
    fn split_candidates(&mut self, colliders: DetectionColliders<'_>, candidates: &[(u32, u32)]) {
        let Self { plain, swept, .. } = self;
        plain.clear();
        swept.clear();
        for &(i, j) in candidates {
            if colliders.is_swept(i as usize) || colliders.is_swept(j as usize) {
                swept.push((i, j));
            } else {
                plain.push((i, j));
            }
        }
    }

    /// The contacts of the swept candidates along their paths, sorted by
    /// entity pair.
    fn test_swept<'a>(
        &mut self,
        source: impl ColliderSource<'a>,
        previous: &PreviousPairs,
        workers: &Workers,
    ) {
        let Self {
            swept,
            chunk_contacts,
            contacts,
            contact_sort_space,
            ..
        } = self;
        contacts.clear();
        test_in_chunks(swept, workers, chunk_contacts, contacts, |candidate| {
            swept_contact_pair(source, previous, candidate)
        });
        sort_by_unique_pair(contacts, contact_sort_space, |c| entity_pair(&c.pair));
    }

    /// Notes the swept contacts' paths, and sorts them into those touching
    /// at the end (and which of them re-entered) and the `passing` ones.
    fn sort_out_swept(
        &mut self,
        colliders: DetectionColliders<'_>,
        swept_paths: &mut Vec<PairPaths>,
        passing: &mut Vec<ContactPair>,
    ) {
        let Self {
            contacts,
            touching,
            reentered,
            passing_apart_at_start,
            ..
        } = self;
        for contact in contacts.iter() {
            swept_paths.push(PairPaths {
                a: contact.pair.a,
                b: contact.pair.b,
                time_of_impact: contact.pair.time_of_impact,
                path_a: colliders.sweep(contact.colliders.0 as usize),
                path_b: colliders.sweep(contact.colliders.1 as usize),
            });
            if contact.touching_at_end {
                touching.push(contact.pair);
                if contact.apart_at_start {
                    reentered.push((contact.pair.a, contact.pair.b));
                }
            } else {
                passing.push(contact.pair);
                passing_apart_at_start.push(contact.apart_at_start);
            }
        }
    }
}

/// The results of `test` on `candidates` that are `Some`, appended to
/// `results` in candidate order, computed in chunks by `workers`.
fn test_in_chunks<T: Copy + Send>(
    candidates: &[(u32, u32)],
    workers: &impl RunChunks,
    chunk_results: &mut ChunkOutputs<T>,
    results: &mut Vec<T>,
    test: impl Fn((u32, u32)) -> Option<T> + Sync,
) {
    chunk_results.collect_over(
        workers,
        candidates,
        CANDIDATES_PER_CHUNK,
        |_, chunk, output| output.extend(chunk.iter().filter_map(|&c| test(c))),
        results,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::snapshot::SnapshotCollider;
    use crate::stages::snapshot::SnapshotShape;
    use crate::util::parallel::InOrder;

    /// 300 overlapping colliders whose entities have the generations
    /// `k * generation_step`, in a scrambled order.
    /// `snapshot` as every collider of a detection, none static.
    fn moving_only(snapshot: &ColliderSnapshot) -> DetectionColliders<'_> {
        static NONE: std::sync::LazyLock<ColliderSnapshot> =
            std::sync::LazyLock::new(Default::default);
        DetectionColliders {
            moving: snapshot,
            statics: &NONE,
        }
    }

    fn crowd(generation_step: u64) -> ColliderSnapshot {
        let colliders: Vec<SnapshotCollider> = (0..300u64)
            .map(|k| {
                let generation = (k * generation_step) % (1 << 31);
                SnapshotCollider {
                    entity: Entity::from_bits((k * 37 % 300 + 1) | (generation << 32)),
                    shape: if k % 2 == 0 {
                        SnapshotShape::Circle { radius: 1.0 }
                    } else {
                        SnapshotShape::Rect {
                            half_size: Vec2::new(1.0, 0.6),
                        }
                    },
                    pose: Isometry2d::new(
                        Vec2::new((k % 20) as f32 * 1.5, (k / 20) as f32 * 1.7),
                        Rot2::radians(k as f32),
                    ),
                }
            })
            .collect();
        ColliderSnapshot::of(&colliders)
    }

    /// Every pair tested, sorted by entity pair with a comparison sort,
    /// against the keyed path (entities of one generation, of a few) and the
    /// fallback (generations far apart, too many bits to pack).
    #[test]
    fn contacts_come_out_in_entity_order_packed_or_not() {
        for (generation_step, packs) in [(0, true), (1, true), (0x9E37_79B9, false)] {
            let snapshot = crowd(generation_step);
            let candidates: Vec<(u32, u32)> = (0..300)
                .flat_map(|i| (i + 1..300).map(move |j| (j, i)))
                .collect();
            let varying = snapshot.entity_varying_bits();
            assert_eq!(
                PairKeys::new(varying, varying, candidates.len()).is_some(),
                packs
            );
            let mut expected: Vec<ContactPair> = (candidates.iter())
                .filter_map(|&candidate| contact_pair(moving_only(&snapshot), candidate))
                .collect();
            expected.sort_by_key(entity_pair);
            assert!(expected.len() > 300, "{} contacts", expected.len());
            let (mut found, mut sort_space) = (SortedContacts::default(), PairSortSpace::default());
            let mut pairs = vec![UNSET_PAIR; 7];
            for _ in 0..2 {
                found.find(
                    moving_only(&snapshot),
                    &candidates,
                    &InOrder,
                    &mut pairs,
                    &mut sort_space,
                    None,
                    &mut PartNeighbourhoods::default(),
                );
                assert_eq!(pairs, expected, "generation step {generation_step}");
            }
        }
    }

    /// Each entity's contacts, as `a` and as `b`, seen from it, whatever
    /// the entity order; the same again once the index is built.
    #[test]
    fn contacts_of_an_entity_are_seen_from_it() {
        let snapshot = crowd(1);
        let mut pairs: Vec<ContactPair> = (0..300)
            .flat_map(|i| (i + 1..300).map(move |j| (i, j)))
            .filter_map(|candidate| contact_pair(moving_only(&snapshot), candidate))
            .collect();
        pairs.sort_by_key(entity_pair);
        let collisions = Collisions {
            pairs,
            ..Default::default()
        };
        for _ in 0..2 {
            for collider in &snapshot.colliders {
                let entity = collider.entity;
                let mut expected: Vec<(Entity, Contact)> = (collisions.iter())
                    .filter_map(|pair| {
                        let other = if pair.a == entity { pair.b } else { pair.a };
                        (pair.a == entity || pair.b == entity)
                            .then(|| (other, collisions.get(entity, other).unwrap()))
                    })
                    .collect();
                let mut actual: Vec<(Entity, Contact)> = collisions.contacts_of(entity).collect();
                expected.sort_by_key(|&(other, _)| other);
                actual.sort_by_key(|&(other, _)| other);
                assert_eq!(actual, expected, "{entity}");
            }
        }
        let absent = Entity::from_raw_u32(1000).unwrap();
        assert_eq!(collisions.contacts_of(absent).count(), 0);
    }

    #[test]
    fn merging_keeps_entity_order() {
        let snapshot = crowd(1);
        let mut all: Vec<ContactPair> = (0..300)
            .flat_map(|i| (i + 1..300).map(move |j| (i, j)))
            .filter_map(|candidate| contact_pair(moving_only(&snapshot), candidate))
            .collect();
        all.sort_by_key(entity_pair);
        for every in [1, 3, 1000] {
            let (mut pairs, mut extra) = (Vec::new(), Vec::new());
            for (k, &pair) in all.iter().enumerate() {
                if k % every == 1 {
                    extra.push(pair)
                } else {
                    pairs.push(pair)
                }
            }
            merge_sorted(&mut pairs, &extra, &mut Vec::new());
            assert_eq!(pairs, all, "every {every}");
        }
    }

    /// Pairs only before end, pairs only now start, pairs in both go on
    /// unlisted unless they re-entered along a swept path.
    #[test]
    fn the_diff_says_what_happened_to_each_pair() {
        let e = |i: u32| Entity::from_raw_u32(i).unwrap();
        let pair = |a: u32, b: u32| ContactPair {
            a: e(a),
            b: e(b),
            ..UNSET_PAIR
        };
        // Both lists sorted in `Entity` order, as the narrow phase keeps them.
        let mut previous = [(1, 2), (1, 3), (2, 5), (3, 4)].map(|(a, b)| (e(a), e(b)));
        previous.sort();
        let mut current = [pair(1, 3), pair(2, 4), pair(2, 5), pair(3, 4), pair(6, 7)];
        current.sort_by_key(|p| (p.a, p.b));
        let reentered = [(e(2), e(5))];
        let mut changes = Vec::new();
        diff_pairs(&previous, &current, &reentered, &mut changes);
        let mut expected = vec![
            PairChange::Ended(e(1), e(2)),
            PairChange::Started(pair(2, 4)),
            PairChange::Restarted(pair(2, 5)),
            PairChange::Started(pair(6, 7)),
        ];
        expected.sort_by_key(|change| match *change {
            PairChange::Ended(a, b) => (a, b),
            PairChange::Started(p) | PairChange::Restarted(p) | PairChange::Passed(p) => (p.a, p.b),
        });
        assert_eq!(changes, expected);
        changes.clear();
        diff_pairs(&previous, &[], &[], &mut changes);
        assert_eq!(changes.len(), previous.len());
    }
}
