//! The contacts of all candidates, tested in parallel chunks and put in
//! entity-pair order ([`SortedContacts`]), and the swept candidates'
//! split ([`SweptSplit`]).

use bevy::prelude::*;

use super::super::colliders::{ColliderSource, DetectionColliders};
use super::super::collisions::{ContactPair, ContactParts, PairParts, PairPaths, entity_pair};
use super::super::part_neighbourhoods::{GatheredNeighbourhoods, PartNeighbourhoods};
use crate::util::parallel::{ChunkOutputs, RunChunks, Workers, for_each_chunk_mut};
use crate::util::prefetch::{PREFETCH_DISTANCE, prefetch};
use crate::util::sort::{PairKeys, PairSortSpace, SortedKeys, sort_by_unique_pair};

use super::pair_contact::{
    SweptContact, contact_pair, contact_pair_with_parts, prefetch_compound_pairs,
    swept_contact_pair,
};
use super::{CANDIDATES_PER_CHUNK, CONTACTS_PER_CHUNK, PreviousPairs, UNSET_PAIR};

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
    pub(super) merged: Vec<ContactPair>,
    /// The parts of compound pairs, by chunk ([`Collisions::parts`]).
    pub(super) chunk_parts: ChunkOutputs<PairParts>,
    /// The parts of each candidate's contact, beside `by_candidate`, when
    /// there are compounds.
    parts_by_candidate: Vec<ContactParts>,
    /// The neighbourhoods of big static compounds gathered again, by chunk.
    chunk_gathered: Vec<GatheredNeighbourhoods>,
}

impl SortedContacts {
    /// Sets `pairs` to the contacts of `candidates`, sorted by entity pair
    /// (with `sort_space` when the keys do not fit in 64 bits). With
    /// `parts` (there are compounds), also appends which parts the
    /// contacts of compound pairs are on, sorted, and says whether it did
    /// (not when the keys do not fit).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn find<'a>(
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
            self.find_unkeyed(colliders, candidates, runner, pairs, sort_space);
            return false;
        };
        self.test_keyed(
            colliders,
            candidates,
            runner,
            packing,
            parts.is_some(),
            neighbourhoods,
        );
        self.gather_sorted(runner, packing, pairs, parts);
        true
    }

    /// [`Self::find`] when the keys do not fit in 64 bits: the contacts by
    /// chunk, sorted after.
    fn find_unkeyed<'a>(
        &mut self,
        colliders: impl ColliderSource<'a>,
        candidates: &[(u32, u32)],
        runner: &impl RunChunks,
        pairs: &mut Vec<ContactPair>,
        sort_space: &mut PairSortSpace<ContactPair>,
    ) {
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
    }

    /// Tests every candidate in chunks: each contact to its candidate's
    /// slot (and its parts beside it, `with_parts`), its key to
    /// `self.keys`; big static compounds' neighbourhoods gathered again are
    /// kept.
    fn test_keyed<'a>(
        &mut self,
        colliders: impl ColliderSource<'a>,
        candidates: &[(u32, u32)],
        runner: &impl RunChunks,
        packing: PairKeys,
        with_parts: bool,
        neighbourhoods: &mut PartNeighbourhoods,
    ) {
        // Resizing only writes when the count grows.
        self.by_candidate.resize(candidates.len(), UNSET_PAIR);
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
            self.chunk_gathered.resize_with(chunks, Default::default);
        }
        self.chunk_gathered
            .iter_mut()
            .for_each(GatheredNeighbourhoods::clear);
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
                &mut GatheredNeighbourhoods,
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
        neighbourhoods.keep(&mut self.chunk_gathered);
    }

    /// Sorts the keys and gathers the contacts in their order (entity
    /// pairs), with the compound pairs' parts when asked.
    fn gather_sorted(
        &mut self,
        runner: &impl RunChunks,
        packing: PairKeys,
        pairs: &mut Vec<ContactPair>,
        parts: Option<&mut Vec<PairParts>>,
    ) {
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
    pub(super) plain: Vec<(u32, u32)>,
    pub(super) swept: Vec<(u32, u32)>,
    pub(super) chunk_contacts: ChunkOutputs<SweptContact>,
    /// The swept path's contacts, sorted by entity pair.
    pub(super) contacts: Vec<SweptContact>,
    pub(super) contact_sort_space: PairSortSpace<SweptContact>,
    /// Those still touching at the end of the step.
    pub(super) touching: Vec<ContactPair>,
    /// Those still touching that were apart at the start of their paths.
    pub(super) reentered: Vec<(Entity, Entity)>,
    /// For each pair of [`Collisions::passing`], whether it was apart at the
    /// start of its path.
    pub(super) passing_apart_at_start: Vec<bool>,
}

impl SweptSplit {
    /// Forgets the previous detection's swept results.
    pub(super) fn clear(&mut self) {
        self.touching.clear();
        self.reentered.clear();
        self.passing_apart_at_start.clear();
    }

    /// Splits `candidates` into those with a swept collider and the others.
    pub(super) fn split_candidates(
        &mut self,
        colliders: DetectionColliders<'_>,
        candidates: &[(u32, u32)],
    ) {
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
    pub(super) fn test_swept<'a>(
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
    pub(super) fn sort_out_swept(
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
pub(super) fn test_in_chunks<T: Copy + Send>(
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
