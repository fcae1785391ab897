//! The contact of two shapes at their poses ([`Shape::contact`]) through
//! the one pair dispatch, and the contacts of a pair with a compound part
//! by part, each naming its parts (what detection and manifolds read).

use bevy::math::{BVec4A, Isometry2d, Vec2, Vec4};
use bevy::shape::Aabb2d;

use crate::geometry::contact::Contact;
use crate::geometry::convex;
use crate::geometry::pairs::circle_circle::circle_circle_contact;
use crate::geometry::pairs::circle_rect::circle_rect_contact;
use crate::geometry::pairs::rect_rect::rect_rect_contact;
use crate::geometry::pairs::sticks::{Stick, circle_stick_contact};
use crate::geometry::query::dispatch::{PairOp, dispatch};
use crate::geometry::query::ghost_rule::{ghost_contact, stricter_contact};
use crate::geometry::query::parts::{ListedPart, visit_part_pairs};
use crate::geometry::shape::Shape;
use crate::geometry::shape::compound::Compound;
use crate::geometry::shape::polyline::ChainSegment;
use crate::geometry::shape::view::{ConvexRef, ShapeView};

impl Shape {
    /// The contact between this shape at `pose` and `other` at `other_pose`,
    /// seen from this shape (the normal points towards `other`), or `None`
    /// when they are apart. Touching counts as a contact of depth 0.
    pub fn contact(
        &self,
        pose: Isometry2d,
        other: &Shape,
        other_pose: Isometry2d,
    ) -> Option<Contact> {
        dispatch(ContactOp, self, pose, other, other_pose)
    }
}

impl ShapeView<'_> {
    #[inline]
    pub(crate) fn contact(
        &self,
        pose: Isometry2d,
        other: ShapeView<'_>,
        other_pose: Isometry2d,
    ) -> Option<Contact> {
        dispatch(ContactOp, *self, pose, other, other_pose)
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
        other: ShapeView<'_>,
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

    fn reach(self, shape: ShapeView<'_>, place: Isometry2d, _: bool) -> Aabb2d {
        shape.aabb(place)
    }

    #[inline(always)]
    fn general(
        self,
        a: ConvexRef<'_>,
        pa: Isometry2d,
        b: ConvexRef<'_>,
        pb: Isometry2d,
    ) -> Option<Contact> {
        convex::contact_at(a, pa, b, pb)
    }

    #[inline(always)]
    fn circle_circle(
        self,
        ra: f32,
        pa: Isometry2d,
        rb: f32,
        pb: Isometry2d,
    ) -> Option<Option<Contact>> {
        Some(circle_circle_contact(
            ra,
            pa.translation,
            rb,
            pb.translation,
        ))
    }

    #[inline(always)]
    fn circle_rect(
        self,
        radius: f32,
        pa: Isometry2d,
        half_size: Vec2,
        pb: Isometry2d,
    ) -> Option<Option<Contact>> {
        Some(circle_rect_contact(radius, pa.translation, half_size, pb))
    }

    /// The circle–rectangle contact, seen from the rectangle.
    #[inline(always)]
    fn rect_circle(
        self,
        half_size: Vec2,
        pa: Isometry2d,
        radius: f32,
        pb: Isometry2d,
    ) -> Option<Option<Contact>> {
        Some(circle_rect_contact(radius, pb.translation, half_size, pa).map(Contact::flipped))
    }

    #[inline(always)]
    fn rect_rect(
        self,
        ha: Vec2,
        pa: Isometry2d,
        hb: Vec2,
        pb: Isometry2d,
    ) -> Option<Option<Contact>> {
        Some(rect_rect_contact(ha, pa, hb, pb))
    }

    #[inline(always)]
    fn circle_stick(
        self,
        radius: f32,
        pa: Isometry2d,
        stick: Stick,
        pb: Isometry2d,
    ) -> Option<Option<Contact>> {
        circle_stick_contact(radius, pa.translation, stick, pb)
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
    a: ShapeView<'_>,
    pa: Isometry2d,
    b: ShapeView<'_>,
    pb: Isometry2d,
) -> Option<PartContact> {
    contact_with_listed_parts(a, pa, b, pb, [None, None])
}

/// [`contact_with_parts`], with the parts of a compound side `listed` when
/// they are known ([`visit_part_pairs`]).
pub(crate) fn contact_with_listed_parts<'a>(
    a: ShapeView<'a>,
    pa: Isometry2d,
    b: ShapeView<'a>,
    pb: Isometry2d,
    listed: [Option<&[ListedPart<'a>]>; 2],
) -> Option<PartContact> {
    let mut deepest = None;
    for_each_listed_part_contact(a, pa, b, pb, listed, |contact, parts| {
        keep_deepest(&mut deepest, contact, parts);
    });
    deepest
}

/// A contact on some parts of a pair (`None` for a shape that is not a
/// compound), as [`contact_with_listed_parts`] answers.
pub(crate) type PartContact = (Contact, [Option<u32>; 2]);

/// Keeps in `deepest` the deepest contact found on a pair's parts, equally
/// deep ones to the lowest part indices, so that the answer does not depend
/// on the order the parts are looked at in.
#[inline]
pub(crate) fn keep_deepest(
    deepest: &mut Option<PartContact>,
    contact: Contact,
    parts: [Option<u32>; 2],
) {
    let deeper = deepest.is_none_or(|(d, found)| {
        contact.depth > d.depth || (contact.depth == d.depth && parts < found)
    });
    if deeper {
        *deepest = Some((contact, parts));
    }
}

/// The deepest that two shapes with boxes `a` and `b` can be in contact,
/// as [`ShapeView::contact`] works it out: the shortest move of one box, up,
/// down or sideways, that parts them (it parts the shapes too), plus what
/// rounding can add to either figure. Negative when the boxes are apart. A
/// part pair whose bound is below a depth already found cannot hold a
/// pair's deepest contact.
#[inline]
pub(crate) fn deepest_possible(a: Aabb2d, b: Aabb2d) -> f32 {
    // Boxes and depths are worked out from the same coordinates, each to
    // within a few roundings of the largest of them (in magnitude: the
    // highest or the lowest).
    let largest = (a.max.max(b.max)).max(-a.min.min(b.min)).max_element();
    shortest_parting(a, b) + largest * DEPTH_ROUNDING
}

/// The shortest move of box `b`, up, down or sideways, that parts it from
/// box `a` (negative when they are apart).
#[inline]
fn shortest_parting(a: Aabb2d, b: Aabb2d) -> f32 {
    (a.max - b.min).min(b.max - a.min).min_element()
}

/// Up to four boxes, one per lane, to test one box against all four at once
/// (a compound's part against four of another's): the lanes of a `Vec4`
/// hold each coordinate. Lanes without a box never meet.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FourBoxes {
    min_x: Vec4,
    min_y: Vec4,
    max_x: Vec4,
    max_y: Vec4,
}

impl FourBoxes {
    /// What an empty lane holds: a box below every box and above it at
    /// once, which meets none and whose parting is -inf.
    pub(crate) const EMPTY_LANE: Aabb2d = Aabb2d {
        min: Vec2::INFINITY,
        max: Vec2::NEG_INFINITY,
    };

    /// The four `boxes`, some perhaps [`Self::EMPTY_LANE`].
    #[inline]
    pub(crate) fn new(boxes: [Aabb2d; 4]) -> Self {
        let lanes = |c: fn(&Aabb2d) -> f32| Vec4::from_array(boxes.each_ref().map(c));
        Self {
            min_x: lanes(|b| b.min.x),
            min_y: lanes(|b| b.min.y),
            max_x: lanes(|b| b.max.x),
            max_y: lanes(|b| b.max.y),
        }
    }

    /// Which of the four boxes meet `aabb`, as `Aabb2d::intersects` says,
    /// and for each [`shortest_parting`]`(aabb, box)`, to the bit (-inf for
    /// an empty lane).
    #[inline]
    pub(crate) fn meeting(&self, aabb: Aabb2d) -> (BVec4A, Vec4) {
        let (low, high) = (aabb.min, aabb.max);
        let meet = Vec4::splat(low.x).cmple(self.max_x)
            & self.min_x.cmple(Vec4::splat(high.x))
            & Vec4::splat(low.y).cmple(self.max_y)
            & self.min_y.cmple(Vec4::splat(high.y));
        // As `shortest_parting`: min is exact, so the order of the four
        // moves does not change the result.
        let parting_x = (Vec4::splat(high.x) - self.min_x).min(self.max_x - Vec4::splat(low.x));
        let parting_y = (Vec4::splat(high.y) - self.min_y).min(self.max_y - Vec4::splat(low.y));
        (meet, parting_x.min(parting_y))
    }
}

/// How far, relative to the largest coordinate, a computed depth or box can
/// be off: about 80 roundings of an `f32`.
const DEPTH_ROUNDING: f32 = 1e-5;

/// Calls `found` with the contact of each pair of parts of `a` at `pa` and
/// `b` at `pb` that touch (seen from `a`, under the polylines' ghost-vertex
/// rule) and the index of the part of each (`None` for a shape that is not
/// a compound): a compound's every contact, where [`contact_with_parts`]
/// keeps the deepest (pushing a shape out of a polyline's valley needs both
/// sides).
pub(crate) fn for_each_part_contact(
    a: ShapeView<'_>,
    pa: Isometry2d,
    b: ShapeView<'_>,
    pb: Isometry2d,
    found: impl FnMut(Contact, [Option<u32>; 2]),
) {
    for_each_listed_part_contact(a, pa, b, pb, [None, None], found);
}

/// [`for_each_part_contact`], with the parts of a compound side `listed`
/// when they are known ([`visit_part_pairs`]).
fn for_each_listed_part_contact<'a>(
    a: ShapeView<'a>,
    pa: Isometry2d,
    b: ShapeView<'a>,
    pb: Isometry2d,
    listed: [Option<&[ListedPart<'a>]>; 2],
    mut found: impl FnMut(Contact, [Option<u32>; 2]),
) {
    if let (ShapeView::Compound(ca), ShapeView::Compound(cb)) = (a, b) {
        let (parts_a, parts_b) = (ca.parts(), cb.parts());
        let small = Compound::visit_near_part_pairs(ca, pa, cb, pb, |i, j| {
            let (part_a, part_b) = (&parts_a[i as usize], &parts_b[j as usize]);
            let (place_a, place_b) = (pa * part_a.pose, pb * part_b.pose);
            let contact = (part_a.shape.view()).contact(place_a, part_b.shape.view(), place_b);
            if let Some(contact) = contact {
                found(contact, [Some(i), Some(j)]);
            }
        });
        if small {
            return;
        }
    }
    let aabb = |(shape, pose): (ShapeView<'_>, Isometry2d)| shape.aabb(pose);
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

#[cfg(test)]
mod tests {
    use bevy::math::Rot2;
    use bevy::shape::IntersectsVolume;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::*;
    use crate::geometry::reference_tests::{Kind, random_pose, random_shape_of};

    /// Shapes a few 1e-23 apart, whose squared distances are denormal (too
    /// coarse to normalise by): every contact's normal is still unit, for
    /// the sticks' own tests and a tiny polygon's edges alike.
    #[test]
    fn denormal_offsets_give_unit_normals() {
        let dot = Shape::Capsule {
            radius: 1.0,
            half_length: 0.0,
        };
        let circle = Shape::Circle { radius: 1.0 };
        let tiny = [Vec2::ZERO, Vec2::new(3e-23, 0.0), Vec2::new(0.0, 3e-23)];
        let shapes = [dot.clone(), circle.clone()].into_iter().chain(
            crate::geometry::ConvexPolygon::new(&tiny)
                .ok()
                .map(Shape::Polygon),
        );
        for shape in shapes {
            for other in [&dot, &circle] {
                for offset in [Vec2::new(3e-23, 0.0), Vec2::new(1e-23, -2e-23)] {
                    let at = Isometry2d::from_translation(offset);
                    for contact in [
                        shape.contact(Isometry2d::IDENTITY, other, at),
                        other.contact(at, &shape, Isometry2d::IDENTITY),
                    ] {
                        let contact = contact.expect("overlapping");
                        assert!(contact.normal.is_normalized(), "{shape:?} {contact:?}");
                        assert!(contact.depth.is_finite() && contact.point.is_finite());
                    }
                }
            }
        }
    }

    /// Four boxes at once meet a box and part from it as one at a time
    /// does, to the bit: apart, touching at an edge or a corner, nested,
    /// and in empty lanes.
    #[test]
    fn four_boxes_meet_and_part_as_one_box_at_a_time() {
        let mut rng = StdRng::seed_from_u64(82);
        let random_box = |rng: &mut StdRng| {
            // A coarse lattice, so that edges often coincide exactly.
            let mut corner = || {
                Vec2::new(
                    rng.random_range(-4..4) as f32,
                    rng.random_range(-4..4) as f32,
                ) * 0.5
            };
            let (p, q) = (corner(), corner());
            Aabb2d {
                min: p.min(q),
                max: p.max(q),
            }
        };
        let (mut met, mut apart) = (0, 0);
        for round in 0..20_000 {
            let aabb = random_box(&mut rng);
            let count = round % 5;
            let boxes: [Aabb2d; 4] = std::array::from_fn(|k| {
                if k < count {
                    random_box(&mut rng)
                } else {
                    FourBoxes::EMPTY_LANE
                }
            });
            let (meet, parting) = FourBoxes::new(boxes).meeting(aabb);
            for (k, other) in boxes.iter().enumerate() {
                if k >= count {
                    assert!(!meet.test(k) && parting[k] == f32::NEG_INFINITY);
                    continue;
                }
                let expected = aabb.intersects(other);
                assert_eq!(meet.test(k), expected, "round {round}, lane {k}");
                assert_eq!(
                    parting[k],
                    shortest_parting(aabb, *other),
                    "round {round}, lane {k}"
                );
                if expected { met += 1 } else { apart += 1 }
            }
        }
        assert!(met > 5_000 && apart > 5_000, "{met} / {apart}");
    }

    /// No two convex shapes touch deeper than [`deepest_possible`] says
    /// from their boxes: deep or grazing, small or far from the origin.
    #[test]
    fn no_contact_is_deeper_than_its_boxes_allow() {
        let mut rng = StdRng::seed_from_u64(81);
        let mut touching = 0;
        for round in 0..60_000 {
            let kinds = [Kind::ALL[round % 5], Kind::ALL[(round / 5) % 5]];
            let size = [0.01, 1.0, 300.0][round % 3];
            let far = Vec2::splat([0.0, 1e3, -4e4][(round / 3) % 3]);
            let [a, b] = kinds.map(|kind| random_shape_of(&mut rng, kind, size));
            let [mut pa, mut pb] = [(); 2].map(|()| {
                let pose = random_pose(&mut rng, size * [0.2, 1.0, 2.0][round % 3]);
                Isometry2d::new(pose.translation + far, pose.rotation)
            });
            if round % 4 == 0 {
                // Square on, side by side: the depth is the boxes' own.
                (pa.rotation, pb.rotation) = (Rot2::IDENTITY, Rot2::IDENTITY);
                pb.translation.y = pa.translation.y;
            }
            let Some(contact) = a.contact(pa, &b, pb) else {
                continue;
            };
            touching += 1;
            let bound = deepest_possible(a.aabb(pa), b.aabb(pb));
            assert!(
                contact.depth <= bound,
                "round {round}: {a:?} at {pa:?}, {b:?} at {pb:?}: depth {} over {bound}",
                contact.depth
            );
        }
        assert!(touching > 20_000, "{touching}");
    }

    #[test]
    fn rect_circle_is_circle_rect_flipped() {
        let circle = Shape::Circle { radius: 1.0 };
        let rect = Shape::Rect {
            half_size: Vec2::new(2.0, 1.0),
        };
        let (cp, rp) = (
            Isometry2d::from_xy(2.5, 0.5),
            Isometry2d::new(Vec2::ZERO, Rot2::radians(0.2)),
        );
        let from_circle = circle.contact(cp, &rect, rp).unwrap();
        let from_rect = rect.contact(rp, &circle, cp).unwrap();
        assert_eq!(from_rect, from_circle.flipped());
        assert!(rect.intersects(rp, &circle, cp) && circle.intersects(cp, &rect, rp));
    }
}
