//! One dispatch over the pair of shape kinds for every pair operation, so
//! that the hand-written tests of circles and rectangles (most pairs of most
//! scenes) are chosen in one place.
//!
//! As Box2D v3's `s_registers` table (`contact.c`), but with generics rather
//! than function pointers, so that the hot pairs still inline: each
//! operation (overlap, contact, time of impact, translational cast) is a
//! [`PairOp`] with a method per special pair and a [`PairOp::general`]
//! fallback, and [`dispatch`] holds the only `match` over the two kinds.
//! A special pair an operation has no hand-written test for, or whose test
//! answers `None` (a case it leaves), goes to `general`.
//!
//! What adding a kind of shape or a query touches is in the module docs
//! of [`geometry`](crate::geometry).

use bevy::math::Vec2;
use bevy::shape::Aabb2d;

use crate::geometry::pairs::sticks::Stick;
use crate::geometry::query::parts::{PartPlace, visit_part_pairs};
use crate::geometry::shape::Shape;
use crate::geometry::shape::compound::Compound;
use crate::geometry::shape::polyline::ChainSegment;
use crate::geometry::shape::view::{ConvexRef, ShapeView};

/// One operation on a pair of shapes, as [`dispatch`] takes it: one method
/// per pair with a hand-written test, each `a` then `b` (`rect_circle` is
/// the rectangle first, as given: an operation whose answer can be seen
/// from the other side swaps the shapes for `circle_rect` and flips the
/// result), and [`Self::general`] for every other pair.
///
/// Each special pair answers `None` by default, which sends it to
/// [`Self::general`]: an operation overrides only the pairs it has a test
/// for, and answers `None` for the cases its test leaves.
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
    fn reach(self, shape: ShapeView<'_>, place: Self::Place, first: bool) -> Aabb2d;

    /// What it found against one segment of a polyline at `chain`, under
    /// the ghost-vertex rule (`query/ghost_rule.rs`), `other` at `other_place`
    /// being the rest of the pair (`chain_first`: the polyline is the
    /// pair's first shape). As found for an operation with no normal.
    fn ghost_rule(
        self,
        found: Self::Out,
        _segment: &ChainSegment,
        _chain: Self::Place,
        _other: ShapeView<'_>,
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

    /// Any two convex shapes.
    fn general(
        self,
        a: ConvexRef<'_>,
        pa: Self::Place,
        b: ConvexRef<'_>,
        pb: Self::Place,
    ) -> Self::Out;

    /// Two circles; `None` when the operation has no test for them or its
    /// test leaves the pair to [`Self::general`] (so for every pair below).
    #[inline(always)]
    fn circle_circle(
        self,
        _ra: f32,
        _pa: Self::Place,
        _rb: f32,
        _pb: Self::Place,
    ) -> Option<Self::Out> {
        None
    }

    /// A circle, then a rectangle.
    #[inline(always)]
    fn circle_rect(
        self,
        _radius: f32,
        _pa: Self::Place,
        _half_size: Vec2,
        _pb: Self::Place,
    ) -> Option<Self::Out> {
        None
    }

    /// A rectangle, then a circle.
    #[inline(always)]
    fn rect_circle(
        self,
        _half_size: Vec2,
        _pa: Self::Place,
        _radius: f32,
        _pb: Self::Place,
    ) -> Option<Self::Out> {
        None
    }

    /// Two rectangles.
    #[inline(always)]
    fn rect_rect(
        self,
        _ha: Vec2,
        _pa: Self::Place,
        _hb: Vec2,
        _pb: Self::Place,
    ) -> Option<Self::Out> {
        None
    }

    /// A circle, then a capsule or segment.
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

    /// A capsule or segment, then a rectangle.
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

    /// A capsule or segment, then a circle.
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

/// A shape as [`dispatch`] reads it: the convex shape at hand first, on
/// which the hand-written pairs are chosen, and the whole view only for the
/// rest. A packed form answers the first from its record alone and looks
/// its tables up only for the second (the narrow phase's snapshot shapes).
pub(crate) trait PairShape<'a>: Copy {
    /// The shape if it is convex and read without a lookup; `None` sends
    /// the pair to [`Self::view`].
    fn at_hand(self) -> Option<ConvexRef<'a>>;
    /// The shape.
    fn view(self) -> ShapeView<'a>;
}

impl<'a> PairShape<'a> for ShapeView<'a> {
    #[inline(always)]
    fn at_hand(self) -> Option<ConvexRef<'a>> {
        self.convex()
    }

    #[inline(always)]
    fn view(self) -> ShapeView<'a> {
        self
    }
}

/// A capsule or a segment as the stick tests take it.
#[inline(always)]
fn stick(shape: ConvexRef<'_>) -> Option<Stick> {
    match shape {
        ConvexRef::Capsule {
            radius,
            half_length,
        } => Some(Stick::capsule(radius, half_length)),
        ConvexRef::Segment { a, b } => Some(Stick::segment(a, b)),
        _ => None,
    }
}

/// `op` on `a` at `pa` and `b` at `pb`: the hand-written test of their pair
/// of kinds if there is one, a compound's parts one by one, else
/// [`PairOp::general`]. The only place that matches on a pair of kinds;
/// always inlined, so that a caller that knows its operation gets the pair
/// tests inline.
#[inline(always)]
pub(crate) fn dispatch<'a, O: PairOp>(
    op: O,
    a: impl PairShape<'a>,
    pa: O::Place,
    b: impl PairShape<'a>,
    pb: O::Place,
) -> O::Out {
    use ConvexRef::{Circle, Rect};
    // Matched on the shapes at hand, and each view built only after: both
    // views up front cost the circle and rectangle pairs a copy of each
    // through memory (10k scene, A/B).
    let special = match (a.at_hand(), b.at_hand()) {
        (Some(Circle { radius: ra }), Some(Circle { radius: rb })) => {
            op.circle_circle(ra, pa, rb, pb)
        }
        (Some(Circle { radius }), Some(Rect { half_size })) => {
            op.circle_rect(radius, pa, half_size, pb)
        }
        (Some(Rect { half_size }), Some(Circle { radius })) => {
            op.rect_circle(half_size, pa, radius, pb)
        }
        (Some(Rect { half_size: ha }), Some(Rect { half_size: hb })) => {
            op.rect_rect(ha, pa, hb, pb)
        }
        (Some(Circle { radius }), Some(other)) => {
            stick(other).and_then(|s| op.circle_stick(radius, pa, s, pb))
        }
        (Some(other), Some(Circle { radius })) => {
            stick(other).and_then(|s| op.stick_circle(s, pa, radius, pb))
        }
        (Some(other), Some(Rect { half_size })) => {
            stick(other).and_then(|s| op.stick_rect(s, pa, half_size, pb))
        }
        _ => None,
    };
    if let Some(found) = special {
        return found;
    }
    match (a.view(), b.view()) {
        (ShapeView::Convex(a), ShapeView::Convex(b)) => op.general(a, pa, b, pb),
        (a, b) => over_parts(op, a, pa, b, pb),
    }
}

/// `op` on a pair with a compound: on each of its parts near the other
/// shape (each of both compounds' when both are) against the other shape,
/// keeping the best. Out of line: the rare case, and [`dispatch`] is inlined
/// everywhere.
#[inline(never)]
fn over_parts<O: PairOp>(
    op: O,
    a: ShapeView<'_>,
    pa: O::Place,
    b: ShapeView<'_>,
    pb: O::Place,
) -> O::Out {
    let mut found = op.apart();
    if O::AT_PLACE
        && let (ShapeView::Compound(ca), ShapeView::Compound(cb)) = (a, b)
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

/// The pure API's shapes straight into [`dispatch`].
impl<'a> PairShape<'a> for &'a Shape {
    #[inline(always)]
    fn at_hand(self) -> Option<ConvexRef<'a>> {
        Shape::view(self).convex()
    }

    #[inline(always)]
    fn view(self) -> ShapeView<'a> {
        Shape::view(self)
    }
}
