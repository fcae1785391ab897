//! One dispatch over the pair of shape kinds for every pair operation, so
//! that the hand-written tests of circles and rectangles (most pairs of most
//! scenes) are chosen in one place.
//!
//! As Box2D v3's `s_registers` table (`contact.c`), but with generics rather
//! than function pointers, so that the hot pairs still inline: each
//! operation (overlap, contact, time of impact, translational cast) is a
//! [`PairOp`] with a method per special pair and a [`PairOp::general`]
//! fallback, and [`dispatch`] holds the only `match` over the two kinds.
//! A special pair an operation has no hand-written test for goes to its
//! `general` fallback (the default method).
//!
//! Adding a kind of shape touches its variant in [`Shape`](crate::geometry::Shape)
//! and [`ShapeRef`] (with their conversions), the snapshot's packed shape
//! if it is not made of points, and the per-shape code (box, scaling, validation,
//! rays, `convex::Core`); every pair operation then reaches it through
//! `general`, with nothing to change here. A hand-written test for a pair
//! with it adds one method to [`PairOp`] (defaulting to `general`), one arm
//! to [`dispatch`], and an override in each operation that has that test.

use bevy::math::{Isometry2d, Vec2};
use bevy::shape::{Aabb2d, IntersectsVolume};

use crate::geometry::contact::Contact;
use crate::geometry::pairs::Stick;
use crate::geometry::shape::compound::{Compound, CompoundPart};
use crate::geometry::shape::polyline::{ChainSegment, ghost_contact, stricter_contact};
use crate::geometry::shape::shape_ref::ShapeRef;
use crate::geometry::{convex, pairs};

/// One operation on a pair of shapes, as [`dispatch`] takes it: one method
/// per pair with a hand-written test, each `a` then `b` (`rect_circle` is
/// the rectangle first, as given: an operation whose answer can be seen
/// from the other side swaps the shapes for `circle_rect` and flips the
/// result), and [`Self::general`] for every other pair.
///
/// The special pairs default to [`Self::general`], so that an operation
/// overrides only the pairs it has a test for.
pub(crate) trait PairOp: Copy {
    /// Where each shape is: a pose, or its motion over the step.
    type Place: PartPlace;
    /// What the operation finds.
    type Out: Copy;

    /// Whether it looks at the shapes only where they are (no motion, no
    /// cast): then two parts apart there cannot count, and two small
    /// compounds test only their parts whose bounding circles meet.
    const AT_PLACE: bool = false;

    /// What it finds for shapes that are apart (a compound without parts).
    fn apart(self) -> Self::Out;

    /// The better of what it found for two parts of a compound: any
    /// overlap, the deeper contact, the earlier touch, the nearer hit.
    fn better(self, found: Self::Out, next: Self::Out) -> Self::Out;

    /// The world box `shape` at `place` can reach during the operation
    /// (`first` if it is the pair's first shape), relative to the other
    /// shape: the parts of a compound other shape outside it are skipped.
    fn reach(self, shape: ShapeRef<'_>, place: Self::Place, first: bool) -> Aabb2d;

    /// What it found against one segment of a polyline at `chain`, under
    /// the ghost-vertex rule (`polyline.rs`), `other` at `other_place`
    /// being the rest of the pair (`chain_first`: the polyline is the
    /// pair's first shape). As found for an operation with no normal.
    fn ghost_rule(
        self,
        found: Self::Out,
        _segment: &ChainSegment,
        _chain: Self::Place,
        _other: ShapeRef<'_>,
        _other_place: Self::Place,
        _chain_first: bool,
    ) -> Self::Out {
        found
    }

    /// What a pair of segments of two polylines comes to when the first
    /// one's rule made `original` into `x` and the second one's into `y`:
    /// what holds under both.
    fn stricter(self, _original: Self::Out, x: Self::Out, _y: Self::Out) -> Self::Out {
        x
    }

    /// Any two shapes.
    fn general(
        self,
        a: ShapeRef<'_>,
        pa: Self::Place,
        b: ShapeRef<'_>,
        pb: Self::Place,
    ) -> Self::Out;

    /// Two circles.
    #[inline(always)]
    fn circle_circle(self, ra: f32, pa: Self::Place, rb: f32, pb: Self::Place) -> Self::Out {
        self.general(
            ShapeRef::Circle { radius: ra },
            pa,
            ShapeRef::Circle { radius: rb },
            pb,
        )
    }

    /// A circle, then a rectangle.
    #[inline(always)]
    fn circle_rect(
        self,
        radius: f32,
        pa: Self::Place,
        half_size: Vec2,
        pb: Self::Place,
    ) -> Self::Out {
        self.general(
            ShapeRef::Circle { radius },
            pa,
            ShapeRef::Rect { half_size },
            pb,
        )
    }

    /// A rectangle, then a circle.
    #[inline(always)]
    fn rect_circle(
        self,
        half_size: Vec2,
        pa: Self::Place,
        radius: f32,
        pb: Self::Place,
    ) -> Self::Out {
        self.general(
            ShapeRef::Rect { half_size },
            pa,
            ShapeRef::Circle { radius },
            pb,
        )
    }

    /// Two rectangles.
    #[inline(always)]
    fn rect_rect(self, ha: Vec2, pa: Self::Place, hb: Vec2, pb: Self::Place) -> Self::Out {
        self.general(
            ShapeRef::Rect { half_size: ha },
            pa,
            ShapeRef::Rect { half_size: hb },
            pb,
        )
    }

    /// A circle, then a capsule or segment; `None` when the operation has
    /// no test for it or its test leaves the pair to [`Self::general`].
    #[inline(always)]
    fn circle_stick(
        self,
        _radius: f32,
        _pa: Self::Place,
        _stick: Stick,
        _pb: Self::Place,
    ) -> Option<Self::Out> {
        None
    }

    /// A capsule or segment, then a rectangle, as [`Self::circle_stick`].
    #[inline(always)]
    fn stick_rect(
        self,
        _stick: Stick,
        _pa: Self::Place,
        _half_size: Vec2,
        _pb: Self::Place,
    ) -> Option<Self::Out> {
        None
    }

    /// A capsule or segment, then a circle, as [`Self::circle_stick`].
    #[inline(always)]
    fn stick_circle(
        self,
        _stick: Stick,
        _pa: Self::Place,
        _radius: f32,
        _pb: Self::Place,
    ) -> Option<Self::Out> {
        None
    }
}

/// The kinds [`dispatch`] has hand-written tests for; every other kind is
/// `Other`.
#[derive(Clone, Copy)]
pub(crate) enum SpecialKind {
    Circle(f32),
    Rect(Vec2),
    /// A capsule or a segment.
    Stick(Stick),
    Other,
}

/// A shape as [`dispatch`] reads it: its special kind first, and the whole
/// shape only for [`PairOp::general`]. A packed form can answer the first
/// without building the second (the narrow phase's snapshot shapes).
pub(crate) trait PairShape<'a>: Copy {
    /// Its kind, if [`dispatch`] has hand-written tests for it.
    fn special_kind(self) -> SpecialKind;
    /// The whole shape.
    fn view(self) -> ShapeRef<'a>;
}

impl<'a> PairShape<'a> for ShapeRef<'a> {
    #[inline(always)]
    fn special_kind(self) -> SpecialKind {
        match self {
            ShapeRef::Circle { radius } => SpecialKind::Circle(radius),
            ShapeRef::Rect { half_size } => SpecialKind::Rect(half_size),
            ShapeRef::Capsule {
                radius,
                half_length,
            } => SpecialKind::Stick(Stick::capsule(radius, half_length)),
            ShapeRef::Segment { a, b } => SpecialKind::Stick(Stick::segment(a, b)),
            _ => SpecialKind::Other,
        }
    }

    #[inline(always)]
    fn view(self) -> ShapeRef<'a> {
        self
    }
}

/// `op` on `a` at `pa` and `b` at `pb`: the hand-written test of their pair
/// of kinds if there is one, else [`PairOp::general`]. The only place that
/// matches on a pair of kinds for the fast paths; always inlined, so that
/// a caller that knows its operation gets the pair tests inline.
#[inline(always)]
pub(crate) fn dispatch<'a, O: PairOp>(
    op: O,
    a: impl PairShape<'a>,
    pa: O::Place,
    b: impl PairShape<'a>,
    pb: O::Place,
) -> O::Out {
    use SpecialKind::{Circle, Rect, Stick};
    let special = match (a.special_kind(), b.special_kind()) {
        (Circle(ra), Circle(rb)) => return op.circle_circle(ra, pa, rb, pb),
        (Circle(radius), Rect(half_size)) => return op.circle_rect(radius, pa, half_size, pb),
        (Rect(half_size), Circle(radius)) => return op.rect_circle(half_size, pa, radius, pb),
        (Rect(ha), Rect(hb)) => return op.rect_rect(ha, pa, hb, pb),
        (Circle(radius), Stick(stick)) => op.circle_stick(radius, pa, stick, pb),
        (Stick(stick), Circle(radius)) => op.stick_circle(stick, pa, radius, pb),
        (Stick(stick), Rect(half_size)) => op.stick_rect(stick, pa, half_size, pb),
        _ => None,
    };
    if let Some(found) = special {
        return found;
    }
    match (a.view(), b.view()) {
        (a @ ShapeRef::Compound(_), b) | (a, b @ ShapeRef::Compound(_)) => {
            over_parts(op, a, pa, b, pb)
        }
        (a, b) => op.general(a, pa, b, pb),
    }
}

/// `op` on a pair with a compound: on each of its parts near the other
/// shape (each of both compounds' when both are) against the other shape,
/// keeping the best. Out of line: the rare case, and [`dispatch`] is inlined
/// everywhere.
#[inline(never)]
fn over_parts<O: PairOp>(
    op: O,
    a: ShapeRef<'_>,
    pa: O::Place,
    b: ShapeRef<'_>,
    pb: O::Place,
) -> O::Out {
    let mut found = op.apart();
    if O::AT_PLACE
        && let (ShapeRef::Compound(ca), ShapeRef::Compound(cb)) = (a, b)
        && let (Some(pose_a), Some(pose_b)) = (pa.pose(), pb.pose())
    {
        let (parts_a, parts_b) = (ca.parts(), cb.parts());
        let small = Compound::visit_near_part_pairs(ca, pose_a, cb, pose_b, |i, j| {
            let (part_a, part_b) = (&parts_a[i as usize], &parts_b[j as usize]);
            let (place_a, place_b) = (pa.of_part(part_a.pose), pb.of_part(part_b.pose));
            let next = dispatch(op, &part_a.shape, place_a, &part_b.shape, place_b);
            found = op.better(found, next);
        });
        if small {
            return found;
        }
    }
    visit_part_pairs(
        a,
        pa,
        b,
        pb,
        [None, None],
        |shape| op.reach(shape.0, shape.1, true),
        |shape| op.reach(shape.0, shape.1, false),
        |(part_a, place_a, in_a), (part_b, place_b, in_b)| {
            let next = dispatch(op, part_a, place_a, part_b, place_b);
            // Each polyline's rule, against the other side's very part.
            let segment =
                |side: Option<(&Compound, u32)>| side.and_then(|(chain, i)| chain.chain_segment(i));
            let by_a = segment(in_a).map(|s| op.ghost_rule(next, &s, pa, part_b, place_b, true));
            let by_b = segment(in_b).map(|s| op.ghost_rule(next, &s, pb, part_a, place_a, false));
            let next = match (by_a, by_b) {
                (Some(x), Some(y)) => op.stricter(next, x, y),
                (Some(x), None) | (None, Some(x)) => x,
                (None, None) => next,
            };
            found = op.better(found, next);
        },
    );
    found
}

/// A part of a compound known to be near the other side of a pair, and its
/// index ([`visit_part_pairs`]).
pub(crate) type ListedPart<'a> = (u32, &'a CompoundPart);

/// One side of a pair as [`visit_part_pairs`] hands it on: a part (or the
/// shape itself), its place, and the compound and index it is part of.
type PairSide<'a, P> = (ShapeRef<'a>, P, Option<(&'a Compound, u32)>);

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
    a: ShapeRef<'a>,
    pa: P,
    b: ShapeRef<'a>,
    pb: P,
    listed: [Option<&[ListedPart<'a>]>; 2],
    reach_a: impl Fn((ShapeRef<'a>, P)) -> Aabb2d,
    reach_b: impl Fn((ShapeRef<'a>, P)) -> Aabb2d,
    mut visit: impl FnMut(PairSide<'a, P>, PairSide<'a, P>),
) {
    // The parts of `compound` at `place` near `other` (reached by `reach`),
    // or the `listed` ones.
    fn near_parts<'a, P: PartPlace>(
        compound: &'a Compound,
        place: P,
        other: (ShapeRef<'a>, P),
        reach: &impl Fn((ShapeRef<'a>, P)) -> Aabb2d,
        listed: Option<&[ListedPart<'a>]>,
        mut visit: impl FnMut(PairSide<'a, P>),
    ) {
        let mut part_side = |i: u32, part: &'a CompoundPart| {
            let part_place = place.of_part(part.pose);
            visit((part.shape.as_ref(), part_place, Some((compound, i))));
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
        (ShapeRef::Compound(ca), ShapeRef::Compound(cb)) => {
            near_parts(ca, pa, (b, pb), &reach_b, listed_a, |side_a| {
                let part_a = (side_a.0, side_a.1);
                near_parts(cb, pb, part_a, &reach_a, listed_b, |side_b| {
                    visit(side_a, side_b)
                });
            });
        }
        (ShapeRef::Compound(ca), _) => {
            near_parts(ca, pa, (b, pb), &reach_b, listed_a, |side_a| {
                visit(side_a, (b, pb, None))
            });
        }
        (_, ShapeRef::Compound(cb)) => {
            near_parts(cb, pb, (a, pa), &reach_a, listed_b, |side_b| {
                visit((a, pa, None), side_b)
            });
        }
        _ => visit((a, pa, None), (b, pb, None)),
    }
}

/// Calls `visit` with each part of `compound` at `pose` whose world box
/// overlaps `world`, and that box.
pub(crate) fn visit_parts_in(
    compound: &Compound,
    pose: Isometry2d,
    world: &Aabb2d,
    mut visit: impl FnMut(u32, Aabb2d),
) {
    let parts = compound.parts();
    compound.visit_parts(
        || pose.local_box(*world),
        |i, _| {
            let part = &parts[i as usize];
            let aabb = part.shape.aabb(pose * part.pose);
            if aabb.intersects(world) {
                visit(i, aabb);
            }
        },
    );
}

/// Whether two shapes at their poses overlap or touch
/// ([`Shape::intersects`](crate::geometry::Shape::intersects)).
#[derive(Clone, Copy, Debug)]
pub(crate) struct IntersectsOp;

impl PairOp for IntersectsOp {
    const AT_PLACE: bool = true;
    type Place = Isometry2d;
    type Out = bool;

    fn apart(self) -> bool {
        false
    }

    fn better(self, found: bool, next: bool) -> bool {
        found || next
    }

    fn reach(self, shape: ShapeRef<'_>, place: Isometry2d, _: bool) -> Aabb2d {
        shape.aabb(place)
    }

    #[inline(always)]
    fn general(self, a: ShapeRef<'_>, pa: Isometry2d, b: ShapeRef<'_>, pb: Isometry2d) -> bool {
        convex::intersects_at(a, pa, b, pb)
    }

    #[inline(always)]
    fn circle_circle(self, ra: f32, pa: Isometry2d, rb: f32, pb: Isometry2d) -> bool {
        pairs::circle_circle_intersects(ra, pa.translation, rb, pb.translation)
    }

    #[inline(always)]
    fn circle_rect(self, radius: f32, pa: Isometry2d, half_size: Vec2, pb: Isometry2d) -> bool {
        pairs::circle_rect_intersects(radius, pa.translation, half_size, pb)
    }

    /// The circle–rectangle test with the shapes swapped: a yes/no answer
    /// needs no flipping.
    #[inline(always)]
    fn rect_circle(self, half_size: Vec2, pa: Isometry2d, radius: f32, pb: Isometry2d) -> bool {
        self.circle_rect(radius, pb, half_size, pa)
    }

    #[inline(always)]
    fn rect_rect(self, ha: Vec2, pa: Isometry2d, hb: Vec2, pb: Isometry2d) -> bool {
        pairs::rect_rect_intersects(ha, pa, hb, pb)
    }

    #[inline(always)]
    fn circle_stick(
        self,
        radius: f32,
        pa: Isometry2d,
        stick: Stick,
        pb: Isometry2d,
    ) -> Option<bool> {
        pairs::circle_stick_intersects(radius, pa.translation, stick, pb)
    }

    #[inline(always)]
    fn stick_circle(
        self,
        stick: Stick,
        pa: Isometry2d,
        radius: f32,
        pb: Isometry2d,
    ) -> Option<bool> {
        self.circle_stick(radius, pb, stick, pa)
    }
}

/// The contact of two shapes at their poses, seen from the first
/// ([`Shape::contact`](crate::geometry::Shape::contact)).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactOp;

impl PairOp for ContactOp {
    const AT_PLACE: bool = true;
    type Place = Isometry2d;
    type Out = Option<Contact>;

    fn apart(self) -> Option<Contact> {
        None
    }

    fn better(self, found: Option<Contact>, next: Option<Contact>) -> Option<Contact> {
        deeper(found, next)
    }

    fn ghost_rule(
        self,
        found: Option<Contact>,
        segment: &ChainSegment,
        chain: Isometry2d,
        other: ShapeRef<'_>,
        other_place: Isometry2d,
        chain_first: bool,
    ) -> Option<Contact> {
        found.map(|contact| ghost_contact(contact, segment, chain, other, other_place, chain_first))
    }

    fn stricter(
        self,
        original: Option<Contact>,
        x: Option<Contact>,
        y: Option<Contact>,
    ) -> Option<Contact> {
        Some(stricter_contact(original?, x?, y?))
    }

    fn reach(self, shape: ShapeRef<'_>, place: Isometry2d, _: bool) -> Aabb2d {
        shape.aabb(place)
    }

    #[inline(always)]
    fn general(
        self,
        a: ShapeRef<'_>,
        pa: Isometry2d,
        b: ShapeRef<'_>,
        pb: Isometry2d,
    ) -> Option<Contact> {
        convex::contact_at(a, pa, b, pb)
    }

    #[inline(always)]
    fn circle_circle(self, ra: f32, pa: Isometry2d, rb: f32, pb: Isometry2d) -> Option<Contact> {
        pairs::circle_circle_contact(ra, pa.translation, rb, pb.translation)
    }

    #[inline(always)]
    fn circle_rect(
        self,
        radius: f32,
        pa: Isometry2d,
        half_size: Vec2,
        pb: Isometry2d,
    ) -> Option<Contact> {
        pairs::circle_rect_contact(radius, pa.translation, half_size, pb)
    }

    /// The circle–rectangle contact, seen from the rectangle.
    #[inline(always)]
    fn rect_circle(
        self,
        half_size: Vec2,
        pa: Isometry2d,
        radius: f32,
        pb: Isometry2d,
    ) -> Option<Contact> {
        self.circle_rect(radius, pb, half_size, pa)
            .map(Contact::flipped)
    }

    #[inline(always)]
    fn rect_rect(self, ha: Vec2, pa: Isometry2d, hb: Vec2, pb: Isometry2d) -> Option<Contact> {
        pairs::rect_rect_contact(ha, pa, hb, pb)
    }

    #[inline(always)]
    fn circle_stick(
        self,
        radius: f32,
        pa: Isometry2d,
        stick: Stick,
        pb: Isometry2d,
    ) -> Option<Option<Contact>> {
        pairs::circle_stick_contact(radius, pa.translation, stick, pb)
    }

    #[inline(always)]
    fn stick_circle(
        self,
        stick: Stick,
        pa: Isometry2d,
        radius: f32,
        pb: Isometry2d,
    ) -> Option<Option<Contact>> {
        let found = self.circle_stick(radius, pb, stick, pa)?;
        Some(found.map(Contact::flipped))
    }
}

/// The deeper of two contacts (the first when equally deep), or the one
/// there is.
pub(crate) fn deeper(found: Option<Contact>, next: Option<Contact>) -> Option<Contact> {
    match (found, next) {
        (Some(f), Some(n)) if n.depth > f.depth => Some(n),
        (None, n) => n,
        (f, _) => f,
    }
}

/// The contact of `a` at `pa` and `b` at `pb` (the deepest of their parts',
/// equally deep ones to the lowest part indices, so that the answer does
/// not depend on the order the parts are looked at in), and the index of
/// the part of each that it is on (`None` for a shape that is not a
/// compound).
#[cfg(test)]
pub(crate) fn contact_with_parts(
    a: ShapeRef<'_>,
    pa: Isometry2d,
    b: ShapeRef<'_>,
    pb: Isometry2d,
) -> Option<(Contact, [Option<u32>; 2])> {
    contact_with_listed_parts(a, pa, b, pb, [None, None])
}

/// [`contact_with_parts`], with the parts of a compound side `listed` when
/// they are known ([`visit_part_pairs`]).
pub(crate) fn contact_with_listed_parts<'a>(
    a: ShapeRef<'a>,
    pa: Isometry2d,
    b: ShapeRef<'a>,
    pb: Isometry2d,
    listed: [Option<&[ListedPart<'a>]>; 2],
) -> Option<(Contact, [Option<u32>; 2])> {
    let mut deepest: Option<(Contact, [Option<u32>; 2])> = None;
    for_each_listed_part_contact(a, pa, b, pb, listed, |contact, parts| {
        let deeper = deepest.is_none_or(|(d, found)| {
            contact.depth > d.depth || (contact.depth == d.depth && parts < found)
        });
        if deeper {
            deepest = Some((contact, parts));
        }
    });
    deepest
}

/// Calls `found` with the contact of each pair of parts of `a` at `pa` and
/// `b` at `pb` that touch (seen from `a`, under the polylines' ghost-vertex
/// rule) and the index of the part of each (`None` for a shape that is not
/// a compound): a compound's every contact, where [`contact_with_parts`]
/// keeps the deepest (pushing a shape out of a polyline's valley needs both
/// sides).
pub(crate) fn for_each_part_contact(
    a: ShapeRef<'_>,
    pa: Isometry2d,
    b: ShapeRef<'_>,
    pb: Isometry2d,
    found: impl FnMut(Contact, [Option<u32>; 2]),
) {
    for_each_listed_part_contact(a, pa, b, pb, [None, None], found);
}

/// [`for_each_part_contact`], with the parts of a compound side `listed`
/// when they are known ([`visit_part_pairs`]).
fn for_each_listed_part_contact<'a>(
    a: ShapeRef<'a>,
    pa: Isometry2d,
    b: ShapeRef<'a>,
    pb: Isometry2d,
    listed: [Option<&[ListedPart<'a>]>; 2],
    mut found: impl FnMut(Contact, [Option<u32>; 2]),
) {
    if let (ShapeRef::Compound(ca), ShapeRef::Compound(cb)) = (a, b) {
        let (parts_a, parts_b) = (ca.parts(), cb.parts());
        let small = Compound::visit_near_part_pairs(ca, pa, cb, pb, |i, j| {
            let (part_a, part_b) = (&parts_a[i as usize], &parts_b[j as usize]);
            let (place_a, place_b) = (pa * part_a.pose, pb * part_b.pose);
            let contact = (part_a.shape.as_ref()).contact(place_a, part_b.shape.as_ref(), place_b);
            if let Some(contact) = contact {
                found(contact, [Some(i), Some(j)]);
            }
        });
        if small {
            return;
        }
    }
    let aabb = |(shape, pose): (ShapeRef<'_>, Isometry2d)| shape.aabb(pose);
    visit_part_pairs(
        a,
        pa,
        b,
        pb,
        listed,
        aabb,
        aabb,
        |(part_a, place_a, in_a), (part_b, place_b, in_b)| {
            let Some(contact) = part_a.contact(place_a, part_b, place_b) else {
                return;
            };
            let segment =
                |side: Option<(&Compound, u32)>| side.and_then(|(chain, i)| chain.chain_segment(i));
            let by_a = segment(in_a).map(|s| ghost_contact(contact, &s, pa, part_b, place_b, true));
            let by_b =
                segment(in_b).map(|s| ghost_contact(contact, &s, pb, part_a, place_a, false));
            let contact = match (by_a, by_b) {
                (Some(x), Some(y)) => stricter_contact(contact, x, y),
                (Some(x), None) | (None, Some(x)) => x,
                (None, None) => contact,
            };
            found(contact, [in_a.map(|(_, i)| i), in_b.map(|(_, i)| i)]);
        },
    );
}

/// Starts loading one level (`stage` 0, 1, then 2, some pairs apart) of
/// what [`contact_with_parts`] will read for a pair with a compound of many
/// parts: a narrow phase asking for the pairs ahead finds them in cache.
#[inline]
pub(crate) fn prefetch_parts(
    a: ShapeRef<'_>,
    pa: Isometry2d,
    b: ShapeRef<'_>,
    pb: Isometry2d,
    stage: u8,
) {
    match (a, b) {
        (ShapeRef::Compound(compound), _) => {
            compound.prefetch_parts(|| pa.local_box(b.aabb(pb)), stage)
        }
        (_, ShapeRef::Compound(compound)) => {
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
