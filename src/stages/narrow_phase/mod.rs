//! Step 3 of detection: exact contacts for the candidate pairs, in parallel
//! chunks when there are many, always in the same order; then what changed
//! for each pair since the previous detection ([`PairChange`]), which the
//! events step reports.

use bevy::ecs::system::{SystemParam, SystemParamItem};
use bevy::prelude::*;

use super::broad_phase::BroadPhasePairs;
use super::colliders::{ColliderSource, DetectionColliders};
use super::collisions::{Collisions, ContactPair, ContactParts, PairParts, entity_pair};
use super::hooks::{CollisionHooks, PairHooks};
use super::part_neighbourhoods::PartNeighbourhoods;
use super::snapshot::ColliderSnapshot;
use super::static_colliders::StaticColliders;
use crate::geometry::Contact;
use crate::util::parallel::Workers;

mod pair_contact;
mod sorted_contacts;

use pair_contact::contact_pair_with_parts;
use sorted_contacts::{SortedContacts, SweptSplit, test_in_chunks};

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
    hooks.apply(
        &mut state.collisions,
        &mut state.split.passing_apart_at_start,
    );
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

#[cfg(test)]
mod tests {
    use super::pair_contact::contact_pair;
    use super::*;
    use crate::stages::snapshot::SnapshotCollider;
    use crate::stages::snapshot::SnapshotShape;
    use crate::util::parallel::InOrder;
    use crate::util::sort::{PairKeys, PairSortSpace};

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
