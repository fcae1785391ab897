//! Contact manifolds: where two touching shapes touch, as up to two points
//! with a depth each, so that a face resting on a face is told from a
//! corner on a face (Box2D v3's `b2Manifold`, `manifold.c`).
//!
//! The normal is the contact's ([`Shape::contact`](crate::geometry::Shape::contact)):
//! a manifold only adds points along it, it never picks another direction,
//! so the two always agree (a polyline's ghost-vertex rule included). Along
//! the normal each shape's core shows a face (an edge whose outward normal
//! lies within [`FACE_COS`](super::manifold_clip::FACE_COS) of it) or a vertex. When one shows a face (the
//! reference face), the other's edge that turns most directly towards it
//! (the incident edge) is clipped to the reference face's extent across
//! the normal, and each end of what is left that still touches is a point:
//! two for a face on a face, one for a corner on a face. Every other contact
//! (a circle, corner to corner, a rounded end) is one point, the deepest.
//!
//! Unlike Box2D's clipper, the points are measured along the contact's
//! normal rather than the reference face's (the two agree to within
//! [`FACE_COS`](super::manifold_clip::FACE_COS)), and a rounded incident side (a capsule's) is clipped only
//! when it lies along the face: tilted, only its lowest end touches for
//! sure, and clipping its core would put a point inside it.

use bevy::math::Isometry2d;

use crate::geometry::contact::{Contact, ContactParts, Manifold};
use crate::geometry::query::contact::{contact_with_listed_parts, for_each_part_contact};
use crate::geometry::query::manifold_clip::convex_manifold;
use crate::geometry::shape::Shape;
use crate::geometry::shape::view::Placed;
use crate::geometry::shape::view::{ConvexRef, ShapeView};

/// The manifold of `a` at `pa` and `b` at `pb` (checked shapes and poses),
/// seen from `a`, or `None` when they are apart: of their deepest pair of
/// parts when either is a compound, with that pair's contact normal (under
/// a polyline's ghost-vertex rule).
pub(crate) fn manifold_of(a: Placed<'_>, b: Placed<'_>) -> Option<Manifold> {
    let ((a, pa), (b, pb)) = ((a.shape(), a.pose()), (b.shape(), b.pose()));
    if let (Some(convex_a), Some(convex_b)) = (a.convex(), b.convex()) {
        let contact = a.contact(pa, b, pb)?;
        return Some(convex_manifold(
            (convex_a, pa),
            (convex_b, pb),
            contact,
            ContactParts::NONE,
        ));
    }
    let (contact, parts) = contact_with_listed_parts(a, pa, b, pb, [None, None])?;
    part_manifold((a, pa), (b, pb), contact, parts)
}

/// Calls `found` with the manifold of each pair of parts of `a` at `pa`
/// and `b` at `pb` that touch (checked shapes and poses), seen from `a`:
/// one call for two shapes that are not compounds, one per touching pair
/// of parts otherwise (a box lying across two parts of a compound rests on
/// both), in the order detection visits them.
pub(crate) fn for_each_manifold(a: Placed<'_>, b: Placed<'_>, mut found: impl FnMut(Manifold)) {
    let ((a, pa), (b, pb)) = ((a.shape(), a.pose()), (b.shape(), b.pose()));
    for_each_part_contact(a, pa, b, pb, |contact, parts| {
        if let Some(manifold) = part_manifold((a, pa), (b, pb), contact, parts) {
            found(manifold);
        }
    });
}

/// The manifold of parts `i` of `a` and `j` of `b` (`None` for a shape that
/// is not a compound), touching with `contact`.
fn part_manifold(
    (a, pa): (ShapeView<'_>, Isometry2d),
    (b, pb): (ShapeView<'_>, Isometry2d),
    contact: Contact,
    [i, j]: [Option<u32>; 2],
) -> Option<Manifold> {
    let (part_a, part_b) = (part_of(a, pa, i)?, part_of(b, pb, j)?);
    Some(convex_manifold(
        part_a,
        part_b,
        contact,
        ContactParts::new(i, j),
    ))
}

/// Part `index` of `shape` at `pose` and where it is, or `shape` itself
/// when it is not a compound; `None` for a compound without an index.
fn part_of(
    shape: ShapeView<'_>,
    pose: Isometry2d,
    index: Option<u32>,
) -> Option<(ConvexRef<'_>, Isometry2d)> {
    match (shape, index) {
        (ShapeView::Compound(compound), Some(i)) => {
            let part = compound.parts().get(i as usize)?;
            Some((part.shape.view().convex()?, pose * part.pose))
        }
        (ShapeView::Compound(_), None) => None,
        (ShapeView::Convex(convex), _) => Some((convex, pose)),
    }
}

impl Shape {
    /// The contact manifold of this shape at `pose` and `other` at
    /// `other_pose`, seen from this shape: the normal of
    /// [`Shape::contact`] and the one or two points where they touch, each
    /// with its depth and a [`FeatureId`](crate::geometry::FeatureId) (Box2D's
    /// `b2Manifold`); `None` when they are apart, or when a shape or a pose
    /// is invalid (NaN, a size of zero: see [`Shape::validate`]).
    ///
    /// A face resting on a face gives two points, where the stretch they
    /// touch along ends: a box sunk into a floor gets one under each bottom
    /// corner, a box on a ramp too once it lies flat on it. A corner, a
    /// circle or a rounded end gives one, the deepest. With a compound, the
    /// manifold of its deepest pair of parts, which
    /// [`Manifold::parts`] names (a polyline's under its ghost-vertex rule:
    /// the normal is still the contact's).
    pub fn manifold(
        &self,
        pose: Isometry2d,
        other: &Shape,
        other_pose: Isometry2d,
    ) -> Option<Manifold> {
        // Checked but kept bit for bit, so that the normal is the one
        // `contact` gives for the same poses.
        let a = Placed::new(self.view(), pose).ok()?;
        let b = Placed::new(other.view(), other_pose).ok()?;
        manifold_of(a, b)
    }

    /// Every manifold of this shape at `pose` and `other` at `other_pose`,
    /// seen from this shape: [`Shape::manifold`] for two shapes that are
    /// not compounds, else one for each pair of their parts that touch
    /// (each naming its parts in [`Manifold::parts`]), each with the normal
    /// of that pair of parts' own contact. Empty when they are apart or
    /// when a shape or a pose is invalid.
    ///
    /// A box lying across two parts of a compound (two steps of a stair, a
    /// bend in a polyline) rests on both: [`Shape::manifold`] gives the
    /// deepest of the two, this gives both.
    pub fn manifolds(
        &self,
        pose: Isometry2d,
        other: &Shape,
        other_pose: Isometry2d,
    ) -> Vec<Manifold> {
        let mut found = Vec::new();
        if let (Ok(a), Ok(b)) = (
            Placed::new(self.view(), pose),
            Placed::new(other.view(), other_pose),
        ) {
            for_each_manifold(a, b, |m| found.push(m));
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use bevy::math::{Rot2, Vec2};

    use super::*;
    use crate::geometry::{Compound, ConvexPolygon, FeatureId, Shape};

    fn rect(w: f32, h: f32) -> Shape {
        Shape::Rect {
            half_size: Vec2::new(w, h) * 0.5,
        }
    }

    fn at(x: f32, y: f32) -> Isometry2d {
        Isometry2d::from_xy(x, y)
    }

    fn turned(x: f32, y: f32, angle: f32) -> Isometry2d {
        Isometry2d::new(Vec2::new(x, y), Rot2::radians(angle))
    }

    /// `a`'s manifold with `b`, checked to agree with their contact and
    /// with the pair seen the other way round.
    fn manifold(a: &Shape, pa: Isometry2d, b: &Shape, pb: Isometry2d) -> Option<Manifold> {
        let found = a.manifold(pa, b, pb);
        let contact = a.contact(pa, b, pb);
        assert_eq!(found.is_some(), contact.is_some(), "{found:?} {contact:?}");
        if let (Some(found), Some(contact)) = (found, contact) {
            assert_eq!(found.normal, contact.normal);
            assert!(found.deepest().depth <= contact.depth + 1e-5, "{found:?}");
            let back = b.manifold(pb, a, pa).unwrap().flipped();
            // Seen from the other side, the same points (unless the contact
            // itself picks another way out, as for shapes centred on each
            // other).
            if back.normal == found.normal {
                let far = pa.translation.abs().max(pb.translation.abs()).max_element();
                let tolerance = 1e-3 + 8.0 * f32::EPSILON * far;
                assert_eq!(
                    back.points().len(),
                    found.points().len(),
                    "{back:?} vs {found:?}"
                );
                for (p, q) in back.points().iter().zip(found.points()) {
                    assert_eq!(p.id, q.id, "{back:?} vs {found:?}");
                    assert!(
                        p.point.distance(q.point) < tolerance,
                        "{back:?} vs {found:?}"
                    );
                }
            }
        }
        found
    }

    fn near(found: Vec2, expected: Vec2) -> bool {
        found.distance(expected) < 1e-4
    }

    #[test]
    fn a_box_on_a_floor_touches_under_both_corners() {
        let (floor, box_) = (rect(20.0, 2.0), rect(2.0, 2.0));
        // Sunk 0.25 in; touching exactly; 1.5 deep (centre still above).
        for depth in [0.25, 0.0, 1.5] {
            let m = manifold(&floor, at(0.0, 0.0), &box_, at(3.0, 2.0 - depth)).unwrap();
            assert_eq!(*m.normal, Vec2::Y);
            let [right, left] = m.points() else {
                panic!("{m:?}")
            };
            // Ordered along the normal's perp: right to left.
            assert!(
                near(right.point, Vec2::new(4.0, 1.0 - depth / 2.0)),
                "{m:?}"
            );
            assert!(near(left.point, Vec2::new(2.0, 1.0 - depth / 2.0)), "{m:?}");
            assert!((right.depth - depth).abs() < 1e-5 && (left.depth - depth).abs() < 1e-5);
            // The floor's top corners (2: right, 3: left) over the box's
            // bottom ones (1: right, 0: left).
            assert_eq!(right.id, FeatureId { a: 2, b: 1 });
            assert_eq!(left.id, FeatureId { a: 3, b: 0 });
        }
        assert!(manifold(&floor, at(0.0, 0.0), &box_, at(3.0, 2.01)).is_none());
    }

    /// The ids stay while a box slides along a floor (and its points move
    /// with it), on a turned floor, far from the origin, from either side.
    #[test]
    fn ids_stay_while_a_box_slides_along_a_floor() {
        let (floor, box_) = (rect(400.0, 10.0), rect(30.0, 20.0));
        for (origin, angle) in [
            (Vec2::ZERO, 0.0),
            (Vec2::new(5e4, -3e4), 0.4),
            (Vec2::new(-7.0, 3.0), -2.5),
        ] {
            let rotation = Rot2::radians(angle);
            let floor_pose = Isometry2d::new(origin, rotation);
            let mut ids = None;
            for step in 0..600 {
                let x = -150.0 + step as f32 * 0.5;
                let place = |y: f32| Isometry2d::new(origin + rotation * Vec2::new(x, y), rotation);
                for (depth, first) in [(0.02, true), (0.3, false)] {
                    let pose = place(5.0 + 10.0 - depth);
                    let m = if first {
                        manifold(&floor, floor_pose, &box_, pose).unwrap()
                    } else {
                        manifold(&box_, pose, &floor, floor_pose).unwrap().flipped()
                    };
                    let now = m.points().iter().map(|p| p.id).collect::<Vec<_>>();
                    assert_eq!(now.len(), 2, "{origin} {angle} at {x}: {m:?}");
                    assert_eq!(
                        *ids.get_or_insert(now.clone()),
                        now,
                        "{origin} {angle} at {x}"
                    );
                    let width = m.points()[0].point.distance(m.points()[1].point);
                    assert!((width - 30.0).abs() < 0.05, "{m:?}");
                }
            }
        }
    }

    #[test]
    fn a_tilted_box_touches_at_its_lowest_corner_with_the_same_id() {
        let (floor, box_) = (rect(20.0, 2.0), rect(2.0, 2.0));
        let flat = manifold(&floor, at(0.0, 0.0), &box_, at(0.0, 1.9)).unwrap();
        // Turned a little clockwise: its right corner is lowest.
        let lowest_y = |angle: f32| {
            let corner = Rot2::radians(angle) * Vec2::new(1.0, -1.0);
            corner.y
        };
        let angle = -0.05;
        let pose = turned(0.0, 1.0 - lowest_y(angle) - 0.02, angle);
        let tilted = manifold(&floor, at(0.0, 0.0), &box_, pose).unwrap();
        let [corner] = tilted.points() else {
            panic!("{tilted:?}")
        };
        assert!((corner.depth - 0.02).abs() < 1e-4, "{tilted:?}");
        assert_eq!(corner.id, flat.points()[0].id);
        // Deep enough, the other corner touches too, and keeps its id.
        let deep = manifold(
            &floor,
            at(0.0, 0.0),
            &box_,
            turned(0.0, 1.0 - lowest_y(angle) - 0.2, angle),
        )
        .unwrap();
        assert_eq!(deep.points().len(), 2, "{deep:?}");
        assert_eq!(deep.points()[1].id, flat.points()[1].id);
        assert!(deep.points()[0].depth > deep.points()[1].depth);
    }

    #[test]
    fn circles_and_rounded_ends_touch_at_one_point() {
        let (circle, floor) = (Shape::Circle { radius: 1.0 }, rect(20.0, 2.0));
        let m = manifold(&floor, at(0.0, 0.0), &circle, at(3.0, 1.8)).unwrap();
        let [p] = m.points() else { panic!("{m:?}") };
        assert!(near(p.point, Vec2::new(3.0, 0.9)) && (p.depth - 0.2).abs() < 1e-5);
        let m = manifold(&circle, at(0.0, 0.0), &circle, at(1.5, 0.0)).unwrap();
        assert!(near(m.points()[0].point, Vec2::new(0.75, 0.0)) && m.points().len() == 1);
        // A capsule standing on its end.
        let capsule = Shape::Capsule {
            radius: 0.5,
            half_length: 2.0,
        };
        let m = manifold(&floor, at(0.0, 0.0), &capsule, at(1.0, 3.4)).unwrap();
        let [p] = m.points() else { panic!("{m:?}") };
        assert!(near(p.point, Vec2::new(1.0, 0.95)) && (p.depth - 0.1).abs() < 1e-5);
    }

    #[test]
    fn a_capsule_lying_on_a_face_touches_along_it_only_when_flat() {
        let (floor, capsule) = (
            rect(20.0, 2.0),
            Shape::Capsule {
                radius: 0.5,
                half_length: 2.0,
            },
        );
        let lying = core::f32::consts::FRAC_PI_2;
        let m = manifold(&floor, at(0.0, 0.0), &capsule, turned(1.0, 1.4, lying)).unwrap();
        let [p, q] = m.points() else { panic!("{m:?}") };
        assert!(
            near(p.point, Vec2::new(3.0, 0.95)) && near(q.point, Vec2::new(-1.0, 0.95)),
            "{m:?}"
        );
        assert!((p.depth - 0.1).abs() < 1e-5 && (q.depth - 0.1).abs() < 1e-5);
        // Tilted by a degree: both ends in, the lower one deeper (its cap's
        // lowest point, as deep as the contact); lifted, only the lower.
        let pose = turned(1.0, 1.45, lying + 0.02);
        let tilted = manifold(&floor, at(0.0, 0.0), &capsule, pose).unwrap();
        let [p, q] = tilted.points() else {
            panic!("{tilted:?}")
        };
        let contact = floor.contact(at(0.0, 0.0), &capsule, pose).unwrap();
        assert_eq!(p.depth.max(q.depth), contact.depth, "{tilted:?}");
        assert!(p.depth.min(q.depth) > 0.005, "{tilted:?}");
        let lifted = manifold(
            &floor,
            at(0.0, 0.0),
            &capsule,
            turned(1.0, 1.48, lying + 0.02),
        )
        .unwrap();
        assert_eq!(lifted.points().len(), 1, "{lifted:?}");
        // Hanging off the floor's end: clipped there.
        let m = manifold(&floor, at(0.0, 0.0), &capsule, turned(10.0, 1.4, lying)).unwrap();
        let [p, q] = m.points() else { panic!("{m:?}") };
        assert!(
            near(p.point, Vec2::new(10.0, 0.95)) && near(q.point, Vec2::new(8.0, 0.95)),
            "{m:?}"
        );
    }

    #[test]
    fn segments_of_no_length_standing_or_lying() {
        let floor = rect(20.0, 2.0);
        let point = Shape::Segment {
            a: Vec2::new(1.0, 0.5),
            b: Vec2::new(1.0, 0.5),
        };
        let m = manifold(&floor, at(0.0, 0.0), &point, at(0.0, 0.0)).unwrap();
        assert_eq!(m.points().len(), 1);
        assert_eq!(m.points()[0].id.b, 0);
        let standing = Shape::Segment {
            a: Vec2::new(0.0, -0.5),
            b: Vec2::new(0.0, 3.0),
        };
        let m = manifold(&floor, at(0.0, 0.0), &standing, at(2.0, 1.0)).unwrap();
        let [p] = m.points() else { panic!("{m:?}") };
        assert!((p.depth - 0.5).abs() < 1e-5, "{m:?}");
        let lying = Shape::Segment {
            a: Vec2::new(-3.0, 0.0),
            b: Vec2::new(3.0, 0.0),
        };
        let m = manifold(&floor, at(0.0, 0.0), &lying, at(12.0, 1.0)).unwrap();
        let [p, q] = m.points() else { panic!("{m:?}") };
        // Along the top face from the floor's end in to the segment's.
        assert!(
            near(p.point, Vec2::new(10.0, 1.0)) && near(q.point, Vec2::new(9.0, 1.0)),
            "{m:?}"
        );
        assert_eq!((p.depth, q.depth), (0.0, 0.0));
    }

    #[test]
    fn parallel_faces_of_different_lengths_are_clipped_to_the_shorter() {
        // A wide box on a narrow post: the points are the post's corners.
        let (post, wide) = (rect(2.0, 10.0), rect(12.0, 2.0));
        let m = manifold(&post, at(0.0, 0.0), &wide, at(3.0, 5.9)).unwrap();
        let [p, q] = m.points() else { panic!("{m:?}") };
        assert!(
            near(p.point, Vec2::new(1.0, 4.95)) && near(q.point, Vec2::new(-1.0, 4.95)),
            "{m:?}"
        );
        // Polygons and rectangles alike: a triangle's base on a box.
        let triangle = Shape::Polygon(
            ConvexPolygon::new(&[
                Vec2::new(-2.0, 0.0),
                Vec2::new(2.0, 0.0),
                Vec2::new(0.0, 3.0),
            ])
            .unwrap(),
        );
        let m = manifold(&wide, at(0.0, 0.0), &triangle, at(1.0, 0.9)).unwrap();
        let [p, q] = m.points() else { panic!("{m:?}") };
        assert!(
            near(p.point, Vec2::new(3.0, 0.95)) && near(q.point, Vec2::new(-1.0, 0.95)),
            "{m:?}"
        );
    }

    #[test]
    fn deep_overlap_keeps_the_face_and_no_point_deeper_than_the_contact() {
        let (floor, box_) = (rect(20.0, 4.0), rect(2.0, 2.0));
        // The box's centre inside the floor, nearer its top face.
        let m = manifold(&floor, at(0.0, 0.0), &box_, at(0.0, 1.2)).unwrap();
        assert_eq!(*m.normal, Vec2::Y);
        for p in m.points() {
            assert!((p.depth - 1.8).abs() < 1e-5, "{m:?}");
        }
        // Wholly inside.
        let m = manifold(&floor, at(0.0, 0.0), &box_, at(0.0, 0.0)).unwrap();
        assert_eq!(m.points().len(), 2);
    }

    #[test]
    fn compounds_name_the_deepest_pair_of_parts() {
        let steps = Shape::Compound(Compound::new([
            (at(0.0, 0.0), rect(10.0, 2.0)),
            (at(10.0, 0.5), rect(10.0, 2.0)),
        ]));
        let box_ = rect(2.0, 2.0);
        let m = manifold(&steps, at(0.0, 0.0), &box_, at(10.0, 2.3)).unwrap();
        assert_eq!((m.parts.a(), m.parts.b()), (Some(1), None));
        assert_eq!(m.points().len(), 2);
        assert!((m.points()[0].depth - 0.2).abs() < 1e-5, "{m:?}");
        let flipped = manifold(&box_, at(10.0, 2.3), &steps, at(0.0, 0.0)).unwrap();
        assert_eq!((flipped.parts.a(), flipped.parts.b()), (None, Some(1)));
    }

    /// A box sliding along a polyline with a slight bend keeps the
    /// contact's normal (the ghost-vertex rule's) and two points.
    #[test]
    fn a_polyline_gives_the_contacts_normal() {
        let line = Shape::Compound(
            Compound::polyline(&[
                Vec2::new(-50.0, 0.0),
                Vec2::new(0.0, 0.0),
                Vec2::new(50.0, 0.002),
            ])
            .unwrap(),
        );
        let box_ = rect(4.0, 2.0);
        for step in 0..200 {
            let x = -10.0 + step as f32 * 0.1;
            let m = manifold(&line, at(0.0, 0.0), &box_, at(x, 0.95)).unwrap();
            assert!(m.normal.y > 0.9999, "at {x}: {m:?}");
            assert_eq!(m.points().len(), 2, "at {x}: {m:?}");
        }
    }

    #[test]
    fn bad_input_gives_none() {
        let (floor, box_) = (rect(20.0, 2.0), rect(2.0, 2.0));
        let nan = Isometry2d::from_xy(f32::NAN, 0.0);
        assert!(floor.manifold(nan, &box_, at(0.0, 0.0)).is_none());
        assert!(floor.manifold(at(0.0, 0.0), &box_, nan).is_none());
        let bad_rotation = Isometry2d::new(
            Vec2::ZERO,
            Rot2 {
                cos: f32::NAN,
                sin: 0.0,
            },
        );
        assert!(floor.manifold(bad_rotation, &box_, at(0.0, 0.0)).is_none());
        assert!(
            floor
                .manifold(at(0.0, 0.0), &box_, at(f32::INFINITY, 1.0))
                .is_none()
        );
        for bad in [
            Shape::Circle { radius: 0.0 },
            Shape::Circle { radius: f32::NAN },
            Shape::Rect {
                half_size: Vec2::new(-1.0, 1.0),
            },
            Shape::Segment {
                a: Vec2::NAN,
                b: Vec2::ONE,
            },
            Shape::Capsule {
                radius: 1.0,
                half_length: f32::INFINITY,
            },
        ] {
            assert!(
                floor.manifold(at(0.0, 0.0), &bad, at(0.0, 0.0)).is_none(),
                "{bad:?}"
            );
            assert!(
                bad.manifold(at(0.0, 0.0), &floor, at(0.0, 0.0)).is_none(),
                "{bad:?}"
            );
        }
    }
}
