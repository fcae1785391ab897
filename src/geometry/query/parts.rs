//! The one walk over the parts of compounds that every pair operation
//! shares: which parts of a compound are near the other shape of a pair
//! (each part of one near each part of the other when both are compounds),
//! and where a part is when its compound is at a pose or moving.

use bevy::math::{Isometry2d, Vec2};
use bevy::shape::{Aabb2d, IntersectsVolume};

use crate::geometry::shape::compound::{Compound, CompoundPart};
use crate::geometry::shape::view::ShapeView;

/// A part of a compound known to be near the other side of a pair, and its
/// index ([`visit_part_pairs`]).
pub(crate) type ListedPart<'a> = (u32, &'a CompoundPart);

/// One side of a pair as [`visit_part_pairs`] hands it on: a part (or the
/// shape itself), its place, and the compound and index it is part of.
type PairSide<'a, P> = (ShapeView<'a>, P, Option<(&'a Compound, u32)>);

/// Calls `visit` with each pair of a part of `a` (or `a` itself when it is
/// not a compound) and a part of `b` that may meet: the parts of a compound
/// near the other side (`reach_a` / `reach_b` give the world box the shape
/// of the first / second side can reach), each part of one near each part
/// of the other when both are compounds; for a compound side with a
/// `listed` set of parts (known to hold every part near the other side),
/// those parts instead. The one walk over compound parts that every pair
/// operation shares.
#[allow(clippy::too_many_arguments)]
pub(crate) fn visit_part_pairs<'a, P: PartPlace>(
    a: ShapeView<'a>,
    pa: P,
    b: ShapeView<'a>,
    pb: P,
    listed: [Option<&[ListedPart<'a>]>; 2],
    reach_a: impl Fn((ShapeView<'a>, P)) -> Aabb2d,
    reach_b: impl Fn((ShapeView<'a>, P)) -> Aabb2d,
    mut visit: impl FnMut(PairSide<'a, P>, PairSide<'a, P>),
) {
    // The parts of `compound` at `place` near `other` (reached by `reach`),
    // or the `listed` ones.
    fn near_parts<'a, P: PartPlace>(
        compound: &'a Compound,
        place: P,
        other: (ShapeView<'a>, P),
        reach: &impl Fn((ShapeView<'a>, P)) -> Aabb2d,
        listed: Option<&[ListedPart<'a>]>,
        mut visit: impl FnMut(PairSide<'a, P>),
    ) {
        let mut part_side = |i: u32, part: &'a CompoundPart| {
            let part_place = place.of_part(part.pose);
            visit((part.shape.view(), part_place, Some((compound, i))));
        };
        match listed {
            Some(listed) => listed.iter().for_each(|&(i, part)| part_side(i, part)),
            None => {
                let parts = compound.parts();
                let near = || place.local_box(reach(other));
                compound.visit_parts(near, |i, _| part_side(i, &parts[i as usize]));
            }
        }
    }
    let [listed_a, listed_b] = listed;
    match (a, b) {
        (ShapeView::Compound(ca), ShapeView::Compound(cb)) => {
            near_parts(ca, pa, (b, pb), &reach_b, listed_a, |side_a| {
                let part_a = (side_a.0, side_a.1);
                near_parts(cb, pb, part_a, &reach_a, listed_b, |side_b| {
                    visit(side_a, side_b)
                });
            });
        }
        (ShapeView::Compound(ca), _) => {
            near_parts(ca, pa, (b, pb), &reach_b, listed_a, |side_a| {
                visit(side_a, (b, pb, None))
            });
        }
        (_, ShapeView::Compound(cb)) => {
            near_parts(cb, pb, (a, pa), &reach_a, listed_b, |side_b| {
                visit((a, pa, None), side_b)
            });
        }
        _ => visit((a, pa, None), (b, pb, None)),
    }
}

/// Calls `visit` with each part of `compound` at `pose` whose world box
/// overlaps `world` (its index, the part and that box).
pub(crate) fn visit_parts_in(
    compound: &Compound,
    pose: Isometry2d,
    world: &Aabb2d,
    mut visit: impl FnMut(u32, &CompoundPart, Aabb2d),
) {
    compound.visit_parts(
        || pose.local_box(*world),
        |i, part| {
            let aabb = part.shape.aabb(pose * part.pose);
            if aabb.intersects(world) {
                visit(i, part, aabb);
            }
        },
    );
}

/// Starts loading one level (`stage` 0, 1, then 2, some pairs apart) of
/// what [`contact_with_parts`] will read for a pair with a compound of many
/// parts: a narrow phase asking for the pairs ahead finds them in cache.
#[inline]
pub(crate) fn prefetch_parts(
    a: ShapeView<'_>,
    pa: Isometry2d,
    b: ShapeView<'_>,
    pb: Isometry2d,
    stage: u8,
) {
    match (a, b) {
        (ShapeView::Compound(compound), _) => {
            compound.prefetch_parts(|| pa.local_box(b.aabb(pb)), stage)
        }
        (_, ShapeView::Compound(compound)) => {
            compound.prefetch_parts(|| pb.local_box(a.aabb(pa)), stage)
        }
        _ => {}
    }
}

/// Where a part of a compound is, given where the compound is: a pose, or a
/// motion over the step.
pub(crate) trait PartPlace: Copy + 'static {
    /// The place of a part at `part` relative to the compound.
    fn of_part(self, part: Isometry2d) -> Self;

    /// A box in the compound's frame holding every point of the world box
    /// `world` as seen from the compound at this place (over the whole
    /// motion); `None` when there is no useful one (infinite, or the
    /// compound turns), meaning every part.
    fn local_box(self, world: Aabb2d) -> Option<Aabb2d>;

    /// The pose, when the place is one (not a motion).
    fn pose(self) -> Option<Isometry2d>;
}

impl PartPlace for Isometry2d {
    #[inline]
    fn of_part(self, part: Isometry2d) -> Self {
        self * part
    }

    #[inline]
    fn pose(self) -> Option<Isometry2d> {
        Some(self)
    }

    fn local_box(self, world: Aabb2d) -> Option<Aabb2d> {
        if !(world.min.is_finite() && world.max.is_finite()) {
            return None;
        }
        let corners = [
            world.min,
            Vec2::new(world.max.x, world.min.y),
            world.max,
            Vec2::new(world.min.x, world.max.y),
        ];
        let (lo, hi) =
            corners
                .into_iter()
                .fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), c| {
                    let local = self.inverse_transform_point(c);
                    (lo.min(local), hi.max(local))
                });
        // Rounding of the turn, relative to the magnitudes involved.
        let slack = (lo.abs().max(hi.abs()).max_element() + 1.0) * (16.0 * f32::EPSILON);
        Some(Aabb2d {
            min: lo - slack,
            max: hi + slack,
        })
    }
}
