//! The exact contact of one candidate pair: packed shapes, compounds by
//! their parts, big static compounds through their kept neighbourhoods,
//! and swept pairs by their time of impact.

use bevy::math::{Isometry2d, Vec4};
use bevy::prelude::*;

use super::super::colliders::ColliderSource;
use super::super::collisions::{ContactPair, ContactParts};
use super::super::part_neighbourhoods::{GatheredNeighbourhoods, PartNeighbourhoods, parts_near};
use super::super::snapshot::{SnapshotCollider, SnapshotShape, WorldPart};
use crate::geometry::{
    Compound, Contact, ContactOp, ConvexRef, FourBoxes, ListedPart, PairShape, PartContact,
    SMALL_COMPOUND, ShapeView, contact_with_listed_parts, deepest_possible, dispatch, keep_deepest,
    prefetch_parts, time_of_impact_from_apart,
};
use crate::util::prefetch::{PREFETCH_DISTANCE, prefetch_slice};

use super::PreviousPairs;

/// The contact of candidate `(i, j)`, ordered by entity.
#[inline]
pub(super) fn contact_pair<'a>(
    colliders: impl ColliderSource<'a>,
    (i, j): (u32, u32),
) -> Option<ContactPair> {
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
pub(super) fn contact_pair_with_parts<'a>(
    colliders: impl ColliderSource<'a>,
    (i, j): (u32, u32),
    parts: &mut ContactParts,
    near: Option<(&PartNeighbourhoods, &mut GatheredNeighbourhoods)>,
) -> Option<ContactPair> {
    let (i, j) = by_entity(colliders, (i, j));
    let (ci, cj) = (colliders.collider(i), colliders.collider(j));
    *parts = ContactParts::NONE;
    if !(ci.shape.is_compound() || cj.shape.is_compound()) {
        return packed_contact_pair(colliders, (i, ci), (j, cj));
    }
    let mut found_on = |found: Option<PartContact>| {
        let (contact, [pi, pj]) = found?;
        *parts = ContactParts::new(pi, pj);
        Some(ordered_pair(ci.entity, cj.entity, contact))
    };
    if let (Some(side_i), Some(side_j)) = (PairSide::of(colliders, i), PairSide::of(colliders, j)) {
        return found_on(deepest_placed_part_contact(side_i, side_j));
    }
    let ((_, shape_i), (_, shape_j)) = (colliders.get(i), colliders.get(j));
    let mut with_listed = |listed: [Option<&[ListedPart<'_>]>; 2]| {
        found_on(contact_with_listed_parts(
            shape_i, ci.pose, shape_j, cj.pose, listed,
        ))
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
    if let Some(parts) = kept.kept(mover_collider.entity, compound_collider.entity, aabb) {
        return with_listed(on_side(side, &parts_near(parts, aabb)));
    }
    let mover_shape = if side == 0 { shape_j } else { shape_i };
    let parts = gathered.gather(
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
    with_listed(on_side(side, &parts_near(parts, aabb)))
}

/// One side of a pair with a small compound whose parts the snapshot placed
/// in the world, as [`deepest_placed_part_contact`] reads it.
#[derive(Clone, Copy)]
enum PairSide<'a> {
    /// A shape that is not a compound, as if a part.
    Whole(WorldPart<'a>),
    /// A small compound's placed parts.
    Parts(&'a [WorldPart<'static>]),
}

impl<'a> PairSide<'a> {
    /// Collider `index` as a side of such a pair: `None` for a compound
    /// whose parts are not placed, which is walked as a compound instead.
    #[inline]
    fn of(colliders: impl ColliderSource<'a>, index: usize) -> Option<Self> {
        let (collider, shape) = match colliders.collider(index) {
            collider if collider.shape.is_compound() => {
                let (tables, at) = colliders.tables_at(index);
                return (collider.shape.placed_parts(at, tables)).map(Self::Parts);
            }
            _ => colliders.get(index),
        };
        let ShapeView::Convex(shape) = shape else {
            return None;
        };
        Some(Self::Whole(WorldPart {
            pose: collider.pose,
            shape,
            aabb: *colliders.aabb(index),
        }))
    }

    /// The parts: the whole shape alone when it is not a compound.
    #[inline]
    fn parts(&self) -> &[WorldPart<'a>] {
        match self {
            Self::Whole(whole) => std::slice::from_ref(whole),
            Self::Parts(parts) => parts,
        }
    }

    /// How part `k` is named in a contact (`None` for a whole shape).
    #[inline]
    fn part_index(&self, k: usize) -> Option<u32> {
        matches!(self, Self::Parts(_)).then_some(k as u32)
    }
}

/// The contact of a pair with a small compound, as
/// [`contact_with_listed_parts`] finds it (the deepest part pair's, equal
/// depths to the lowest part indices), from the parts the snapshot placed
/// in the world: part pairs whose boxes are apart are not tested, nor those
/// whose boxes say they cannot be as deep as a contact already found.
fn deepest_placed_part_contact(a: PairSide<'_>, b: PairSide<'_>) -> Option<PartContact> {
    let (parts_a, parts_b) = (a.parts(), b.parts());
    // Which parts of `b` each part of `a` meets by their boxes (most part
    // pairs of two compounds near each other are apart: the boxes say so
    // without a call), four of `b` at once, and the pair that looks
    // deepest (its boxes overlap most), tested first so that it bounds the
    // rest. (Which pair goes first does not change the contact kept.)
    debug_assert!(parts_a.len().max(parts_b.len()) <= SMALL_COMPOUND);
    let mut meeting = [0u32; SMALL_COMPOUND];
    let mut first: Option<((usize, usize), f32)> = None;
    for (group, of_b) in parts_b.chunks(4).enumerate() {
        let four = FourBoxes::new(std::array::from_fn(|k| {
            of_b.get(k).map_or(FourBoxes::EMPTY_LANE, |part| part.aabb)
        }));
        for ((i, part_a), meets) in parts_a.iter().enumerate().zip(&mut meeting) {
            let (meet, parting) = four.meeting(part_a.aabb);
            if !meet.any() {
                continue;
            }
            *meets |= meet.bitmask() << (4 * group);
            let parting = Vec4::select(meet, parting, Vec4::NEG_INFINITY);
            let most = parting.max_element();
            if first.is_none_or(|(_, deepest)| most > deepest) {
                let lane = parting.cmpeq(Vec4::splat(most)).bitmask().trailing_zeros() as usize;
                first = Some(((i, 4 * group + lane), most));
            }
        }
    }
    let ((first_a, first_b), _) = first?;
    let mut deepest = None;
    let test = |deepest: &mut Option<PartContact>, i: usize, j: usize| {
        let parts = [a.part_index(i), b.part_index(j)];
        part_pair_contact(deepest, &parts_a[i], &parts_b[j], parts);
    };
    test(&mut deepest, first_a, first_b);
    meeting[first_a] &= !(1 << first_b);
    for (i, (part_a, mut meets)) in parts_a.iter().zip(meeting).enumerate() {
        while meets != 0 {
            let j = meets.trailing_zeros() as usize;
            meets &= meets - 1;
            let shallower = deepest.as_ref().is_some_and(|(found, _): &PartContact| {
                deepest_possible(part_a.aabb, parts_b[j].aabb) < found.depth
            });
            if !shallower {
                test(&mut deepest, i, j);
            }
        }
    }
    deepest
}

/// Keeps in `deepest` the contact of two parts whose boxes meet, if they touch.
#[inline(never)]
fn part_pair_contact(
    deepest: &mut Option<PartContact>,
    a: &WorldPart<'_>,
    b: &WorldPart<'_>,
    parts: [Option<u32>; 2],
) {
    let (shape_a, shape_b) = (ShapeView::Convex(a.shape), ShapeView::Convex(b.shape));
    if let Some(contact) = shape_a.contact(a.pose, shape_b, b.pose) {
        keep_deepest(deepest, contact, parts);
    }
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
    (i, shape_i): (usize, ShapeView<'a>),
    (j, shape_j): (usize, ShapeView<'a>),
) -> Option<(usize, usize, usize, &'a Compound)> {
    let found = match (shape_i, shape_j) {
        (_, ShapeView::Compound(c)) if colliders.is_static(j) && !colliders.is_static(i) => {
            (1, i, j, c)
        }
        (ShapeView::Compound(c), _) if colliders.is_static(i) && !colliders.is_static(j) => {
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
pub(super) fn prefetch_compound_pairs<'a>(
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
        let (ci, cj) = (colliders.collider(i), colliders.collider(j));
        if !(ci.shape.is_compound() || cj.shape.is_compound()) {
            continue;
        }
        // Placed parts are read in full: one load each, at the first stage.
        let placed = |index: usize, collider: &SnapshotCollider| {
            let (tables, at) = colliders.tables_at(index);
            collider.shape.placed_parts(at, tables)
        };
        match (placed(i, ci), placed(j, cj)) {
            (None, None) => {
                let ((ci, shape_i), (cj, shape_j)) = (colliders.get(i), colliders.get(j));
                prefetch_parts(shape_i, ci.pose, shape_j, cj.pose, stage);
            }
            (a, b) if stage == 0 => a.into_iter().chain(b).for_each(prefetch_slice),
            _ => {}
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
    pub(super) colliders: C,
    pub(super) index: usize,
    pub(super) shape: &'a SnapshotShape,
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
    fn at_hand(self) -> Option<ConvexRef<'a>> {
        self.shape.at_hand()
    }

    #[inline(always)]
    fn view(self) -> ShapeView<'a> {
        (self.shape).view(|| self.colliders.tables(self.index))
    }
}

/// How a pair with a [`Swept`](crate::Swept) collider met during the step.
#[derive(Clone, Copy, Debug)]
pub(super) struct SweptContact {
    /// The contact reported for the step: at the end if the pair was
    /// touching all along, else at the first touch on the way.
    pub(super) pair: ContactPair,
    /// The candidate's colliders, `a`'s first, for their paths.
    pub(super) colliders: (u32, u32),
    /// Apart where the paths start: a pair touching at the previous
    /// detection was moved apart (teleported) and touched again on the way.
    pub(super) apart_at_start: bool,
    pub(super) touching_at_end: bool,
}

/// The contact of candidate `(i, j)`, at least one of them swept.
///
/// A pair already touching at the start of the step continues (or ends) as
/// usual, with its end-of-step contact, if it was touching at the previous
/// detection; if not, it started at the start (time of impact 0). Otherwise
/// the first touch along the way is reported, with its time of impact.
pub(super) fn swept_contact_pair<'a>(
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
    a: ShapeView<'_>,
    pa: Isometry2d,
    b: ShapeView<'_>,
    pb: Isometry2d,
) -> Option<Contact> {
    if matches!(a, ShapeView::Compound(_)) || matches!(b, ShapeView::Compound(_)) {
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

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::super::super::snapshot::{PlacedParts, SnapshotCompound};
    use super::*;
    use crate::geometry::Shape;
    use crate::geometry::reference_tests::{
        Kind, random_plain_compound, random_pose, random_shape_of,
    };

    /// A pair with a small compound gives, from the parts the snapshot
    /// placed, the contact and parts the compound walk gives, to the bit:
    /// two compounds, or a compound and another shape, either side first.
    #[test]
    fn placed_parts_meet_as_the_compound_walk_finds() {
        let mut rng = StdRng::seed_from_u64(48);
        let (mut touching, mut apart) = (0, 0);
        for round in 0..4_000 {
            let factor = [1.0, 1.0f32.next_down(), rng.random_range(0.5..2.0)][round % 3];
            let a = random_plain_compound(&mut rng);
            let b_is_compound = round % 2 == 0;
            let b = if b_is_compound {
                Shape::Compound(random_plain_compound(&mut rng))
            } else {
                let kind = Kind::ALL[rng.random_range(0..5)];
                random_shape_of(&mut rng, kind, 3.0)
            };
            let (pa, pb) = (random_pose(&mut rng, 8.0), random_pose(&mut rng, 8.0));
            let placed_a = SnapshotCompound::placed(a.clone(), factor);
            let mut parts = Vec::new();
            let (at_a, _) = placed_a.place(pa, &mut parts).unwrap();
            let b_aabb = b.aabb(pb);
            let placed_b = match &b {
                Shape::Compound(b) => Some(SnapshotCompound::placed(b.clone(), 1.0)),
                _ => None,
            };
            let at_b = placed_b
                .as_ref()
                .map(|b| b.place(pb, &mut parts).unwrap().0);
            let of = |at: PlacedParts| &parts[at.range().unwrap()];
            let (side_a, side_b) = (
                PairSide::Parts(of(at_a)),
                match at_b {
                    Some(at) => PairSide::Parts(of(at)),
                    None => PairSide::Whole(WorldPart {
                        pose: pb,
                        shape: b.view().convex().unwrap(),
                        aabb: b_aabb,
                    }),
                },
            );
            let view_a = ShapeView::Compound(placed_a.compound());
            let view_b = match &placed_b {
                Some(b) => ShapeView::Compound(b.compound()),
                None => b.view(),
            };
            for flip in [false, true] {
                let (found, expected) = if flip {
                    (
                        deepest_placed_part_contact(side_b, side_a),
                        contact_with_listed_parts(view_b, pb, view_a, pa, [None, None]),
                    )
                } else {
                    (
                        deepest_placed_part_contact(side_a, side_b),
                        contact_with_listed_parts(view_a, pa, view_b, pb, [None, None]),
                    )
                };
                assert_eq!(
                    format!("{found:?}"),
                    format!("{expected:?}"),
                    "round {round}, flipped {flip}"
                );
                if expected.is_some() {
                    touching += 1;
                } else {
                    apart += 1;
                }
            }
        }
        assert!(touching > 1_500 && apart > 1_500, "{touching} / {apart}");
    }
}
