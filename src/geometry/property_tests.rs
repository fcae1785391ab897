//! Properties every pair test must have, over random shapes of all five
//! kinds and poses, with failures shrunk by `proptest` to a minimal case:
//! symmetry, invariance under moving both shapes together, a contact that
//! separates them and lies on both, closest points that measure the gap,
//! `contains_point` and boxes that agree with the f64 reference
//! ([`crate::reference`]), and no NaN or panic for any finite input.

use bevy::math::{DVec2, Isometry2d, Rot2, Vec2};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

use super::{ConvexPolygon, Shape};
use crate::Collider;
use crate::reference::{reference, reference_gap};

/// Slack for f32 sums of terms up to about 100 in size.
const EPS: f32 = 2e-3;

fn shape() -> impl Strategy<Value = Shape> {
    let point = || (-20.0f32..20.0, -20.0f32..20.0).prop_map(|(x, y)| Vec2::new(x, y));
    prop_oneof![
        (0.1f32..20.0).prop_map(|radius| Shape::Circle { radius }),
        (0.1f32..20.0, 0.1f32..20.0).prop_map(|(x, y)| Shape::Rect {
            half_size: Vec2::new(x, y)
        }),
        (
            0.1f32..10.0,
            prop_oneof![1 => Just(0.0f32), 4 => 0.0f32..20.0]
        )
            .prop_map(|(radius, half_length)| Shape::Capsule {
                radius,
                half_length
            }),
        // A zero-length segment now and then: a single point.
        (
            point(),
            prop_oneof![1 => Just(None), 9 => point().prop_map(Some)]
        )
            .prop_map(|(a, b)| Shape::Segment {
                a,
                b: b.unwrap_or(a)
            }),
        prop::collection::vec(point(), 3..8).prop_filter_map("no area", |points| {
            ConvexPolygon::new(&points).ok().map(Shape::Polygon)
        }),
    ]
}

fn pose() -> impl Strategy<Value = Isometry2d> {
    (-30.0f32..30.0, -30.0f32..30.0, -7.0f32..7.0)
        .prop_map(|(x, y, angle)| Isometry2d::new(Vec2::new(x, y), Rot2::radians(angle)))
}

/// How far `point` is outside `shape` at `pose` (0 inside), in f64, by the
/// reference.
fn distance_outside(shape: &Shape, pose: Isometry2d, point: Vec2) -> f64 {
    reference(shape, pose)
        .signed_distance(point.as_dvec2())
        .max(0.0)
}

fn moved(pose: Isometry2d, by: Vec2) -> Isometry2d {
    Isometry2d::new(pose.translation + by, pose.rotation)
}

/// 2,000 cases a property, from a fixed seed so that `cargo test` gives the
/// same answer every time; `PROPTEST_RNG_SEED=n` explores others, and
/// `PROPTEST_CASES=n` runs more.
fn config() -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 2000;
    }
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        config.rng_seed = RngSeed::Fixed(1);
    }
    config
}

proptest! {
    #![proptest_config(config())]

    /// a-b and b-a agree: same answer, same depth, and each normal pushes
    /// its second shape out.
    #[test]
    fn symmetric(a in shape(), pa in pose(), b in shape(), pb in pose()) {
        let (ab, ba) = (a.contact(pa, &b, pb), b.contact(pb, &a, pa));
        prop_assert_eq!(ab.is_some(), ba.is_some());
        prop_assert_eq!(a.intersects(pa, &b, pb), ab.is_some());
        prop_assert_eq!(b.intersects(pb, &a, pa), ba.is_some());
        if let (Some(ab), Some(ba)) = (ab, ba) {
            prop_assert!((ab.depth - ba.depth).abs() <= EPS, "{ab:?} vs {ba:?}");
        }
    }

    /// Moving and turning both shapes together moves the contact with them.
    #[test]
    fn invariant_under_rigid_motion(
        a in shape(), pa in pose(), b in shape(), pb in pose(), motion in pose(),
    ) {
        let (ma, mb) = (motion * pa, motion * pb);
        let (before, after) = (a.contact(pa, &b, pb), a.contact(ma, &b, mb));
        match (before, after) {
            // The normal and point may differ where faces tie; the depth,
            // the shortest way out, may not.
            (Some(before), Some(after)) => {
                prop_assert!((before.depth - after.depth).abs() <= EPS, "{before:?} vs {after:?}");
            }
            // Only a pair on the verge of touching may flip.
            (Some(c), None) | (None, Some(c)) => prop_assert!(c.depth <= EPS, "{c:?}"),
            (None, None) => {}
        }
    }

    /// The contact is well formed: depth >= 0, a unit normal, a point on
    /// both shapes; moving the second shape by `normal * depth` (and a hair)
    /// separates them, and a clearly shorter move along it does not.
    #[test]
    fn contact_separates_and_lies_on_both(
        a in shape(), pa in pose(), b in shape(), pb in pose(),
    ) {
        let Some(contact) = a.contact(pa, &b, pb) else {
            return Ok(());
        };
        prop_assert!(contact.depth >= 0.0 && contact.depth.is_finite());
        prop_assert!((contact.normal.length() - 1.0).abs() < 1e-4);
        prop_assert!(distance_outside(&a, pa, contact.point) <= f64::from(EPS));
        prop_assert!(distance_outside(&b, pb, contact.point) <= f64::from(EPS));
        let normal = *contact.normal;
        let out = moved(pb, normal * (contact.depth + 0.01));
        prop_assert!(!a.intersects(pa, &b, out), "{contact:?}");
        if contact.depth > 0.05 {
            let short = moved(pb, normal * (contact.depth * 0.9));
            prop_assert!(a.intersects(pa, &b, short), "{contact:?}");
        }
    }

    /// Any finite sizes and poses, valid or not: never a panic, never a NaN.
    #[test]
    fn finite_input_never_gives_nan(
        kinds in (0..5u8, 0..5u8),
        sizes in prop::array::uniform4(prop_oneof![
            Just(0.0f32), Just(-1.0), Just(1e-30), Just(1e14), Just(2e15), -1e3f32..1e3,
        ]),
        coords in prop::array::uniform6(prop_oneof![
            Just(0.0f32), Just(1e14), Just(-2e15), Just(f32::MAX), -1e4f32..1e4,
        ]),
    ) {
        let a = collider(kinds.0, sizes[0], sizes[1]);
        let b = collider(kinds.1, sizes[2], sizes[3]);
        let pa = Isometry2d::new(Vec2::new(coords[0], coords[1]), Rot2::radians(coords[2]));
        let pb = Isometry2d::new(Vec2::new(coords[3], coords[4]), Rot2::radians(coords[5]));
        if let Ok(Some(contact)) = a.try_contact(pa, &b, pb) {
            prop_assert!(contact.point.is_finite() && contact.depth.is_finite(), "{contact:?}");
            prop_assert!(contact.normal.is_finite());
        }
        let _ = a.intersects(pa, &b, pb);
    }

    /// Apart, the closest points are on the two surfaces and as far apart
    /// as the reference gap; touching or overlapping, there are none.
    #[test]
    fn closest_points_measure_the_gap(a in shape(), pa in pose(), b in shape(), pb in pose()) {
        let gap = reference_gap((&a, pa), (&b, pb));
        match a.closest_points(pa, &b, pb) {
            Some((p, q, distance)) => {
                prop_assert!(gap > -f64::from(EPS), "gap {gap}");
                prop_assert!((f64::from(distance) - gap).abs() <= f64::from(EPS), "{distance} vs {gap}");
                prop_assert!((p.distance(q) - distance).abs() <= EPS, "{p} {q} {distance}");
                let (ra, rb) = (reference(&a, pa), reference(&b, pb));
                prop_assert!(ra.signed_distance(p.as_dvec2()).abs() <= f64::from(EPS));
                prop_assert!(rb.signed_distance(q.as_dvec2()).abs() <= f64::from(EPS));
            }
            None => prop_assert!(gap <= f64::from(EPS), "gap {gap}"),
        }
    }

    /// A point is contained when the reference puts it inside or on the
    /// shape (away from the boundary, where f32 cannot tell).
    #[test]
    fn contains_point_matches_reference(
        a in shape(), pa in pose(), x in -40.0f32..40.0, y in -40.0f32..40.0,
    ) {
        let point = Vec2::new(x, y);
        let distance = reference(&a, pa).signed_distance(point.as_dvec2());
        if distance.abs() > 1e-3 {
            prop_assert_eq!(a.contains_point(pa, point), distance < 0.0, "{}", distance);
        }
    }

    /// The box holds every point of the shape as the pair tests place it in
    /// f32 (so that shapes found touching always have overlapping boxes).
    #[test]
    fn aabb_holds_the_placed_points(a in shape(), pa in pose()) {
        let aabb = a.aabb(pa);
        let points: Vec<Vec2> = match &a {
            Shape::Segment { a, b } => vec![pa.transform_point(*a), pa.transform_point(*b)],
            Shape::Polygon(polygon) => polygon.vertices().iter().map(|&v| pa.transform_point(v)).collect(),
            Shape::Rect { half_size: h } => [Vec2::new(-h.x, -h.y), Vec2::new(h.x, -h.y), *h, Vec2::new(-h.x, h.y)]
                .into_iter().map(|v| pa.rotation * v + pa.translation).collect(),
            Shape::Capsule { half_length, radius } => [Vec2::new(0.0, -half_length), Vec2::new(0.0, *half_length)]
                .into_iter().flat_map(|v| { let c = pa.rotation * v + pa.translation; [c - *radius, c + *radius] }).collect(),
            Shape::Circle { radius } => vec![pa.translation - *radius, pa.translation + *radius],
            Shape::Compound(_) => unreachable!("shape() makes no compounds"),
        };
        for p in points {
            prop_assert!(p.cmpge(aabb.min).all() && p.cmple(aabb.max).all(), "{p} outside {aabb:?}");
        }
    }

    /// The box holds the shape, tightly: each side is within a hair of the
    /// shape's extreme point that way.
    #[test]
    fn aabb_is_tight(a in shape(), pa in pose()) {
        let (aabb, reference) = (a.aabb(pa), reference(&a, pa));
        for (axis, side) in [(DVec2::X, aabb.max.x), (DVec2::Y, aabb.max.y), (DVec2::NEG_X, -aabb.min.x), (DVec2::NEG_Y, -aabb.min.y)] {
            let extreme = reference.support(axis);
            let side = f64::from(side);
            // (Below the exact extreme by f32 rounding of the placed
            // points at most: the box holds them as placed in f32, above.)
            prop_assert!(side >= extreme - 1e-5 && side <= extreme + 1e-3, "{axis}: {side} vs {extreme}");
        }
    }
}

/// A collider of kind `kind` (0 to 4) from two sizes, valid or not.
fn collider(kind: u8, s0: f32, s1: f32) -> Collider {
    match kind {
        0 => Collider::circle(s0),
        1 => Collider::rect(s0, s1),
        2 => Collider::capsule(s0, s1),
        3 => Collider::segment(Vec2::new(s0, s1), Vec2::new(-s1, 0.5 * s0)),
        _ => {
            Collider::convex_polygon(&[Vec2::new(s0, 0.0), Vec2::new(0.0, s1), Vec2::new(-s0, -s1)])
                .unwrap_or(Collider::segment(Vec2::new(s0, s1), Vec2::new(s0, s1)))
        }
    }
}

/// Found by `finite_input_never_gives_nan`: a rectangle 2e15 wide and 1e-30
/// tall inside one 2e15 square overflowed the contact point's clipping into
/// NaN.
#[test]
fn sizes_far_apart_in_magnitude_give_a_finite_point() {
    let (a, b) = (Collider::rect(2e15, 1e-30), Collider::rect(2e15, 2e15));
    for (first, second) in [(&a, &b), (&b, &a)] {
        let contact = (first.try_contact(Isometry2d::IDENTITY, second, Isometry2d::IDENTITY))
            .unwrap()
            .unwrap();
        assert!(contact.point.is_finite(), "{contact:?}");
    }
}
