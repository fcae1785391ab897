//! Step 3 of detection: exact contacts for the candidate pairs, in parallel
//! chunks when there are many, always in the same order.

use bevy::prelude::*;

use crate::broad_phase::BroadPhasePairs;
use crate::events::PreviousPairs;
use crate::geometry::{Contact, time_of_impact_from_apart};
use crate::parallel::{ChunkOutputs, Workers};
use crate::radix_sort::{PairSortSpace, sort_by_unique_pair};
use crate::snapshot::ColliderSnapshot;

/// Candidate pairs per chunk of parallel work: a thread that joins late
/// still finds chunks left, and claiming one costs next to nothing.
const CANDIDATES_PER_CHUNK: usize = 512;

/// Two colliders in contact, `a < b` in [`Entity`] order, with the contact
/// seen from `a` (the normal points from `a` to `b`).
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
pub struct ContactPair {
    /// The lower entity of the pair.
    pub a: Entity,
    /// The higher entity of the pair.
    pub b: Entity,
    /// Contact seen from `a`.
    pub contact: Contact,
}

/// Every pair of colliders in contact at the last detection, sorted by
/// `(a, b)`. The source of all collision events and of [`CollidingEntities`].
///
/// [`CollidingEntities`]: crate::collider::CollidingEntities
#[derive(Resource, Default, Debug)]
pub struct Collisions {
    pairs: Vec<ContactPair>,
    /// Pairs with a [`Swept`](crate::Swept) collider that touched during the
    /// step and are apart at its end, sorted by `(a, b)`.
    passing: Vec<ContactPair>,
    /// Sorting space, kept to reuse its allocations.
    sort_space: PairSortSpace<ContactPair>,
}

impl Collisions {
    /// All contact pairs, sorted by `(a, b)`.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &ContactPair> {
        self.pairs.iter()
    }

    /// All contact pairs as a slice, sorted by `(a, b)`.
    pub fn as_slice(&self) -> &[ContactPair] {
        &self.pairs
    }

    /// Number of pairs in contact.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether nothing is in contact.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The contact between `entity` and `other` seen from `entity` (normal
    /// pointing towards `other`), if they touch.
    pub fn get(&self, entity: Entity, other: Entity) -> Option<Contact> {
        let (a, b) = if entity < other {
            (entity, other)
        } else {
            (other, entity)
        };
        let index = self
            .pairs
            .binary_search_by(|pair| (pair.a, pair.b).cmp(&(a, b)))
            .ok()?;
        let contact = self.pairs[index].contact;
        Some(if entity == a {
            contact
        } else {
            contact.flipped()
        })
    }

    /// Whether `entity` and `other` touch.
    pub fn contains(&self, entity: Entity, other: Entity) -> bool {
        self.get(entity, other).is_some()
    }

    /// Pairs with a [`Swept`](crate::Swept) collider that touched during
    /// the last step but are apart at its end (a fast ball grazing a brick,
    /// say), sorted by `(a, b)`, each with its contact at the moment of first
    /// touch. They are not in [`Self::iter`]: they get a `Started` and an
    /// `Ended` in the same detection.
    pub fn passing(&self) -> &[ContactPair] {
        &self.passing
    }
}

/// The contact of candidate `(i, j)`, ordered by entity.
#[inline]
fn contact_pair(snapshot: &ColliderSnapshot, (i, j): (u32, u32)) -> Option<ContactPair> {
    let (i, j) = (i as usize, j as usize);
    let (ci, cj) = (&snapshot.colliders[i], &snapshot.colliders[j]);
    let contact = ci.shape.contact(ci.pose, &cj.shape, cj.pose)?;
    Some(ordered_pair(ci.entity, cj.entity, contact))
}

/// The contact of candidate `(i, j)`, at least one of them swept, and
/// whether they still touch at the end of the step.
///
/// A pair already touching at the start of the step continues (or ends) as
/// usual, with its end-of-step contact, if it was touching at the previous
/// detection; if not, it started at the start (time of impact 0). Otherwise
/// the first touch along the way is reported, with its time of impact.
fn swept_contact_pair(
    snapshot: &ColliderSnapshot,
    previous: &PreviousPairs,
    (i, j): (u32, u32),
) -> Option<(ContactPair, bool)> {
    let (i, j) = (i as usize, j as usize);
    let (ci, cj) = (&snapshot.colliders[i], &snapshot.colliders[j]);
    let (shape_i, shape_j) = (&ci.shape, &cj.shape);
    let (sweep_i, sweep_j) = (snapshot.sweep(i), snapshot.sweep(j));
    let end = shape_i.contact(sweep_i.end, shape_j, sweep_j.end);
    let (contact, touching_at_end) = if shape_i.intersects(sweep_i.start, shape_j, sweep_j.start) {
        match end {
            // Touching at the start and at the end: an ongoing contact,
            // reported as it is at the end, unless it was not touching at
            // the previous detection (a teleport or a new collider put them
            // together): then it started at the start.
            Some(end) if previous.contains(ci.entity, cj.entity) => (end, true),
            // Started at the start; apart at the end when passing.
            _ => {
                let start = shape_i.contact(sweep_i.start, shape_j, sweep_j.start)?;
                let first = Contact {
                    time_of_impact: 0.0,
                    ..start
                };
                (first, end.is_some())
            }
        }
    } else {
        match time_of_impact_from_apart(shape_i, sweep_i, shape_j, sweep_j) {
            // The first touch on the way; apart at the end when passing.
            Some(first) => (first, end.is_some()),
            None => (end?, true),
        }
    };
    Some((ordered_pair(ci.entity, cj.entity, contact), touching_at_end))
}

/// `contact` (seen from `ei`) as the pair of `ei` and `ej` in entity order.
#[inline]
fn ordered_pair(ei: Entity, ej: Entity, contact: Contact) -> ContactPair {
    if ei < ej {
        ContactPair {
            a: ei,
            b: ej,
            contact,
        }
    } else {
        ContactPair {
            a: ej,
            b: ei,
            contact: contact.flipped(),
        }
    }
}

/// Computes exact contacts for [`BroadPhasePairs`] into [`Collisions`].
pub(crate) fn compute_contacts(
    snapshot: Res<ColliderSnapshot>,
    candidates: Res<BroadPhasePairs>,
    mut collisions: ResMut<Collisions>,
    previous: Res<PreviousPairs>,
    workers: Res<Workers>,
    mut split: Local<SweptSplit>,
    mut chunk_contacts: Local<ChunkOutputs<ContactPair>>,
) {
    let snapshot = &*snapshot;
    let Collisions {
        pairs,
        passing,
        sort_space,
    } = &mut *collisions;
    pairs.clear();
    passing.clear();
    let mut candidates = candidates.pairs.as_slice();
    if !snapshot.sweep_starts.is_empty() {
        // Pairs with a swept collider take the slower path.
        let SweptSplit {
            plain,
            swept,
            chunk_contacts,
            contacts,
        } = &mut *split;
        plain.clear();
        swept.clear();
        for &(i, j) in candidates {
            if snapshot.is_swept(i as usize) || snapshot.is_swept(j as usize) {
                swept.push((i, j));
            } else {
                plain.push((i, j));
            }
        }
        contacts.clear();
        test_in_chunks(swept, &workers, chunk_contacts, contacts, |candidate| {
            swept_contact_pair(snapshot, &previous, candidate)
        });
        for &(pair, touching_at_end) in contacts.iter() {
            if touching_at_end {
                pairs.push(pair);
            } else {
                passing.push(pair);
            }
        }
        candidates = plain;
    }
    test_in_chunks(
        candidates,
        &workers,
        &mut chunk_contacts,
        pairs,
        |candidate| contact_pair(snapshot, candidate),
    );
    // `Entity` orders by its bits, so this is `(a, b)` order.
    let key = |p: &ContactPair| (p.a.to_bits(), p.b.to_bits());
    sort_by_unique_pair(pairs, sort_space, key);
    sort_by_unique_pair(passing, sort_space, key);
}

/// The candidates of a detection with swept colliders, split by path, and
/// the swept path's results.
#[derive(Default)]
pub(crate) struct SweptSplit {
    plain: Vec<(u32, u32)>,
    swept: Vec<(u32, u32)>,
    chunk_contacts: ChunkOutputs<(ContactPair, bool)>,
    contacts: Vec<(ContactPair, bool)>,
}

/// The results of `test` on `candidates` that are `Some`, appended to
/// `results` in candidate order, computed in chunks by `workers`.
fn test_in_chunks<T: Copy + Send>(
    candidates: &[(u32, u32)],
    workers: &Workers,
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
