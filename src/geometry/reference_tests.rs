//! Randomized checks of every pair test against an independent reference in
//! f64, for all five kinds of shape in both orders.
//!
//! The reference is [`crate::reference`]: it sees every shape as a rounded
//! convex core (the points within `radius` of the convex hull of a few
//! points) placed by the pose in f64, and measures the gap between two
//! shapes as the signed distance from the origin to the explicit hull of
//! their cores' pairwise differences, minus the radii (minus the penetration
//! depth when negative). Nothing there shares code with the f32 tests: no
//! separating axes, no closest features, no clipping.
//!
//! The same reference serves the other geometry tests (property tests, shape
//! casts, swept tests) through [`reference`], [`RefShape`] and
//! [`reference_gap`], and beyond them the model-based test and the
//! comparison runner's truth. The random shapes ([`Kind`],
//! [`random_shape_of`]) and [`explore_scale`] here serve the other geometry
//! tests too.

use bevy::math::{DVec2, Isometry2d, Rot2, Vec2};
use rand::{Rng, SeedableRng, rngs::StdRng};

use super::{Compound, Contact, ConvexPolygon, Shape};
// The reference itself: used here, and imported from here (beside the random
// shapes below) by the tests of ray.rs, swept.rs and shape_cast.rs.
#[allow(unused_imports)]
pub(crate) use crate::reference::{
    RefPair, RefShape, reference, reference_at, reference_gap, segment_distance,
};

/// Random pairs per ordered pair of kinds among circles and rectangles (the
/// hand-written pair tests, cheap).
const PAIRS_PER_KIND: usize = 100_000;
/// Random pairs per ordered pair of kinds with a capsule, a segment or a
/// polygon (the generic convex code and the hull reference cost more).
const CONVEX_PAIRS_PER_KIND: usize = 12_000;
/// Cases closer than this to touching are too close to call in f32; the
/// yes/no answer is not compared for them (the contact still is).
const MARGIN: f64 = 1e-3;
const DEPTH_TOLERANCE: f64 = 1e-3;

/// The five kinds of shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Circle,
    Rect,
    Capsule,
    Segment,
    Polygon,
}

impl Kind {
    pub(crate) const ALL: [Kind; 5] = [
        Kind::Circle,
        Kind::Rect,
        Kind::Capsule,
        Kind::Segment,
        Kind::Polygon,
    ];
}

/// A random convex polygon: the hull of 3 to 8 random points in a box of
/// random size around a random local point (not recentred).
pub(crate) fn random_polygon(rng: &mut StdRng, size: f32, offset: f32) -> ConvexPolygon {
    loop {
        let count = rng.random_range(3..=8);
        let center = Vec2::new(
            rng.random_range(-offset..=offset),
            rng.random_range(-offset..=offset),
        );
        let extent = Vec2::new(
            rng.random_range(0.05 * size..size),
            rng.random_range(0.05 * size..size),
        );
        let points: Vec<Vec2> = (0..count)
            .map(|_| {
                center
                    + extent * Vec2::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0))
            })
            .collect();
        if let Ok(polygon) = ConvexPolygon::new(&points) {
            return polygon;
        }
    }
}

/// A pose within `spread` of the origin on both axes, at any turn.
pub(crate) fn random_pose(rng: &mut StdRng, spread: f32) -> Isometry2d {
    let at = Vec2::new(
        rng.random_range(-spread..spread),
        rng.random_range(-spread..spread),
    );
    Isometry2d::new(at, Rot2::radians(rng.random_range(-3.2..3.2)))
}

/// A compound of one to five circles, rectangles, capsules and segments
/// within 5 of its origin: one the snapshot places part by part.
pub(crate) fn random_plain_compound(rng: &mut StdRng) -> Compound {
    Compound::new((0..rng.random_range(1..6)).map(|_| {
        let kind = Kind::ALL[rng.random_range(0..4)];
        (random_pose(rng, 5.0), random_shape_of(rng, kind, 3.0))
    }))
}

/// A random shape of `kind` at most about `size` across (half sizes,
/// radii, lengths), local points within `size` of its origin.
pub(crate) fn random_shape_of(rng: &mut StdRng, kind: Kind, size: f32) -> Shape {
    match kind {
        Kind::Circle => Shape::Circle {
            radius: rng.random_range(0.01 * size..0.8 * size),
        },
        Kind::Rect => Shape::Rect {
            half_size: Vec2::new(
                rng.random_range(0.004 * size..size),
                rng.random_range(0.004 * size..size),
            ),
        },
        Kind::Capsule => Shape::Capsule {
            radius: rng.random_range(0.01 * size..0.5 * size),
            half_length: if rng.random_bool(0.1) {
                0.0
            } else {
                rng.random_range(0.0..0.8 * size)
            },
        },
        Kind::Segment => {
            let a = Vec2::new(
                rng.random_range(-0.8 * size..0.8 * size),
                rng.random_range(-0.8 * size..0.8 * size),
            );
            let b = if rng.random_bool(0.03) {
                a
            } else {
                a + Vec2::from_angle(rng.random_range(0.0..core::f32::consts::TAU))
                    * rng.random_range(0.02 * size..1.6 * size)
            };
            Shape::Segment { a, b }
        }
        Kind::Polygon => Shape::Polygon(random_polygon(rng, 0.8 * size, 0.4 * size)),
    }
}

fn random_shape(rng: &mut StdRng, kind: Kind) -> (Shape, Isometry2d) {
    random_shape_within(rng, kind, 40.0)
}

/// A random shape of `kind` with its origin within `spread` of the world's.
fn random_shape_within(rng: &mut StdRng, kind: Kind, spread: f32) -> (Shape, Isometry2d) {
    // Circles and rectangles keep the draws (and so the cases) they have
    // always had.
    let shape = match kind {
        Kind::Circle => Shape::Circle {
            radius: rng.random_range(0.2..20.0),
        },
        Kind::Rect => Shape::Rect {
            half_size: Vec2::new(rng.random_range(0.1..25.0), rng.random_range(0.1..25.0)),
        },
        _ => random_shape_of(rng, kind, 25.0),
    };
    let pose = Isometry2d::new(
        Vec2::new(
            rng.random_range(-spread..spread),
            rng.random_range(-spread..spread),
        ),
        Rot2::radians(rng.random_range(-7.0..7.0)),
    );
    (shape, pose)
}

/// Checks one pair against the reference, and against itself in the other
/// order; returns (contact found, yes/no compared).
fn check_pair(
    case: usize,
    (sa, pa): (&Shape, Isometry2d),
    (sb, pb): (&Shape, Isometry2d),
) -> (bool, bool) {
    let contact = sa.contact(pa, sb, pb);
    assert_eq!(
        contact.is_some(),
        sa.intersects(pa, sb, pb),
        "case {case}: intersects disagrees with contact: {sa:?} {pa:?} vs {sb:?} {pb:?}"
    );
    let reversed = sb.contact(pb, sa, pa);
    let (ra, rb) = (reference(sa, pa), reference(sb, pb));
    let pair = RefPair::new(&ra, &rb);
    let gap = pair.gap();
    let compared = gap.abs() > MARGIN;
    if compared {
        assert_eq!(
            contact.is_some(),
            gap < 0.0,
            "case {case}: {sa:?} {pa:?} vs {sb:?} {pb:?}: reference gap {gap}"
        );
        assert_eq!(
            reversed.is_some(),
            gap < 0.0,
            "case {case} (reversed): {sb:?} {pb:?} vs {sa:?} {pa:?}: reference gap {gap}"
        );
    }
    if let (Some(contact), Some(reversed)) = (contact, reversed) {
        let describe = || format!("{sa:?} {pa:?} vs {sb:?} {pb:?}: {contact:?}");
        check_contact(case, &ra, &rb, &pair, contact, describe);
        // The same pair seen from the other side.
        let pair_ba = RefPair::new(&rb, &ra);
        let describe = || format!("(reversed) {sb:?} {pb:?} vs {sa:?} {pa:?}: {reversed:?}");
        check_contact(case, &rb, &ra, &pair_ba, reversed, describe);
    }
    (contact.is_some(), compared)
}

/// `REFERENCE_SCALE=n` runs n times as many random cases of the new kinds,
/// from other seeds, here and in the ray, shape cast and swept tests
/// (`cargo test` alone is repeatable).
pub(crate) fn explore_scale() -> usize {
    std::env::var("REFERENCE_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

fn check_kind(seed: u64, kind_a: Kind, kind_b: Kind) {
    let seed = if explore_scale() > 1 {
        seed + 1000
    } else {
        seed
    };
    let mut rng = StdRng::seed_from_u64(seed);
    let convex = ![kind_a, kind_b]
        .iter()
        .all(|k| matches!(k, Kind::Circle | Kind::Rect));
    // Closer together for the new kinds: segments have no area.
    let (pairs, spread) = if convex {
        (CONVEX_PAIRS_PER_KIND * explore_scale(), 20.0)
    } else {
        (PAIRS_PER_KIND, 40.0)
    };
    let (mut hits, mut compared) = (0, 0);
    for case in 0..pairs {
        let (sa, pa) = random_shape_within(&mut rng, kind_a, spread);
        let (sb, pb) = random_shape_within(&mut rng, kind_b, spread);
        let (hit, was_compared) = check_pair(case, (&sa, pa), (&sb, pb));
        hits += usize::from(hit);
        compared += usize::from(was_compared);
    }
    // The distributions must exercise both answers.
    // (Two segments, without area, meet least: 5% of the time.)
    assert!(
        hits > pairs / 40 && hits < pairs * 9 / 10,
        "{kind_a:?}-{kind_b:?}: {hits} hits of {pairs}"
    );
    assert!(
        compared > pairs * 9 / 10,
        "{kind_a:?}-{kind_b:?}: {compared} compared of {pairs}"
    );
}

/// Checks a contact against the reference: depth, normal, and the point in
/// both shapes.
fn check_contact(
    case: usize,
    a: &RefShape,
    b: &RefShape,
    pair: &RefPair,
    contact: Contact,
    describe: impl Fn() -> String,
) {
    let depth = f64::from(contact.depth);
    let normal = contact.normal.as_dvec2();
    assert!(
        depth >= 0.0 && depth.is_finite(),
        "case {case}: depth {depth}: {}",
        describe()
    );
    assert!(
        (normal.length() - 1.0).abs() < 1e-5,
        "case {case}: normal {normal}: {}",
        describe()
    );
    let expected_depth = (-pair.gap()).max(0.0);
    assert!(
        (depth - expected_depth).abs() <= DEPTH_TOLERANCE,
        "case {case}: depth {depth}, reference {expected_depth}: {}",
        describe()
    );
    // Moving b along the normal by the depth leaves them just touching: a
    // little more is clear, a little less still overlaps.
    let at = pair.gap_after(normal * depth);
    assert!(
        at.abs() <= DEPTH_TOLERANCE,
        "case {case}: gap {at} after moving by normal * depth: {}",
        describe()
    );
    let past = pair.gap_after(normal * (depth + 2.0 * DEPTH_TOLERANCE));
    assert!(
        past > 0.0,
        "case {case}: still overlapping ({past}) after moving by normal * depth: {}",
        describe()
    );
    if depth > 2.0 * DEPTH_TOLERANCE {
        let short = pair.gap_after(normal * (depth - 2.0 * DEPTH_TOLERANCE));
        assert!(
            short < 0.0,
            "case {case}: apart ({short}) before moving by normal * depth: {}",
            describe()
        );
    }
    // The point lies in the overlap.
    let point = contact.point.as_dvec2();
    for shape in [a, b] {
        let d = shape.signed_distance(point);
        assert!(
            d <= DEPTH_TOLERANCE,
            "case {case}: point {point} is {d} outside a shape: {}",
            describe()
        );
    }
}

#[test]
fn circle_circle_matches_reference() {
    check_kind(1, Kind::Circle, Kind::Circle);
}

#[test]
fn circle_rect_matches_reference() {
    check_kind(2, Kind::Circle, Kind::Rect);
}

#[test]
fn rect_circle_matches_reference() {
    check_kind(3, Kind::Rect, Kind::Circle);
}

#[test]
fn rect_rect_matches_reference() {
    check_kind(4, Kind::Rect, Kind::Rect);
}

/// Every ordered pair of kinds with a capsule, a segment or a polygon
/// (21 of them), one test per first kind so that they run in parallel.
fn check_convex_kinds_from(kind_a: Kind, seed: u64) {
    for (k, &kind_b) in Kind::ALL.iter().enumerate() {
        if matches!(kind_a, Kind::Circle | Kind::Rect)
            && matches!(kind_b, Kind::Circle | Kind::Rect)
        {
            continue;
        }
        check_kind(seed * 10 + k as u64, kind_a, kind_b);
    }
}

#[test]
fn circle_vs_new_kinds_match_reference() {
    check_convex_kinds_from(Kind::Circle, 10);
}

#[test]
fn rect_vs_new_kinds_match_reference() {
    check_convex_kinds_from(Kind::Rect, 11);
}

#[test]
fn capsule_vs_every_kind_matches_reference() {
    check_convex_kinds_from(Kind::Capsule, 12);
}

#[test]
fn segment_vs_every_kind_matches_reference() {
    check_convex_kinds_from(Kind::Segment, 13);
}

#[test]
fn polygon_vs_every_kind_matches_reference() {
    check_convex_kinds_from(Kind::Polygon, 14);
}

/// Runs every pair of `shapes` at every pair of `angles` and every offset of
/// a half-unit grid, against the reference; returns (hits, cases).
fn check_grid(shapes: &[Shape], others: &[Shape], angles: &[f32]) -> (usize, usize) {
    let offsets: Vec<Vec2> = (-4..=4)
        .flat_map(|x| (-4..=4).map(move |y| Vec2::new(x as f32 * 0.5, y as f32 * 0.5)))
        .collect();
    let mut case = 0;
    let mut hits = 0;
    for sa in shapes {
        for sb in others {
            for &angle_a in angles {
                for &angle_b in angles {
                    for &offset in &offsets {
                        let pa = Isometry2d::new(Vec2::new(3.0, -2.0), Rot2::radians(angle_a));
                        let pb = Isometry2d::new(pa.translation + offset, Rot2::radians(angle_b));
                        hits += usize::from(check_pair(case, (sa, pa), (sb, pb)).0);
                        case += 1;
                    }
                }
            }
        }
    }
    (hits, case)
}

/// The cases random poses never hit: centres on a half-unit grid (so shapes
/// touch exactly, share centres and line up edge to edge), sizes that fit
/// the grid, and angles that are exact multiples of 90 or 45 degrees or a
/// hair away from them (near-parallel edges).
#[test]
fn structured_degenerate_cases_match_reference() {
    let angles = [
        0.0,
        1e-6,
        -1e-6,
        core::f32::consts::FRAC_PI_4,
        core::f32::consts::FRAC_PI_2,
        core::f32::consts::PI,
    ];
    let shapes = [
        Shape::Circle { radius: 0.5 },
        Shape::Circle { radius: 1.0 },
        Shape::Rect {
            half_size: Vec2::splat(0.5),
        },
        Shape::Rect {
            half_size: Vec2::new(1.0, 0.5),
        },
    ];
    let (hits, cases) = check_grid(&shapes, &shapes, &angles);
    assert!(hits > cases / 4, "{hits} of {cases}");
}

/// The shapes of the grid cases for the new kinds: sizes on the half-unit
/// grid, a zero-length capsule and segment, a polygon with a vertex at its
/// origin and one that is a rectangle.
fn grid_shapes() -> Vec<Shape> {
    let polygon = |points: &[Vec2]| Shape::Polygon(ConvexPolygon::new(points).unwrap());
    vec![
        Shape::Capsule {
            radius: 0.5,
            half_length: 0.5,
        },
        Shape::Capsule {
            radius: 0.5,
            half_length: 0.0,
        },
        Shape::Segment {
            a: Vec2::new(-1.0, 0.0),
            b: Vec2::new(1.0, 0.0),
        },
        Shape::Segment {
            a: Vec2::ZERO,
            b: Vec2::new(1.0, 1.0),
        },
        Shape::Segment {
            a: Vec2::new(0.5, 0.5),
            b: Vec2::new(0.5, 0.5),
        },
        polygon(&[
            Vec2::new(-1.0, -0.5),
            Vec2::new(1.0, -0.5),
            Vec2::new(0.0, 1.0),
        ]),
        polygon(&[
            Vec2::new(-0.5, -0.5),
            Vec2::new(0.5, -0.5),
            Vec2::new(0.5, 0.5),
            Vec2::new(-0.5, 0.5),
        ]),
        polygon(&[
            Vec2::ZERO,
            Vec2::new(1.0, 0.0),
            Vec2::new(1.5, 0.5),
            Vec2::new(1.0, 1.0),
            Vec2::new(0.0, 1.0),
        ]),
    ]
}

/// [`structured_degenerate_cases_match_reference`] for every pair with a
/// capsule, a segment or a polygon: collinear segments, segments along
/// faces, capsules on corners, vertices on vertices, points on edges.
#[test]
fn structured_degenerate_cases_of_new_kinds_match_reference() {
    let angles = [
        0.0,
        1e-6,
        core::f32::consts::FRAC_PI_4,
        core::f32::consts::FRAC_PI_2,
    ];
    let old = [
        Shape::Circle { radius: 0.5 },
        Shape::Rect {
            half_size: Vec2::new(1.0, 0.5),
        },
    ];
    let new = grid_shapes();
    let (mut hits, mut cases) = (0, 0);
    for (first, second) in [
        (&new[..], &new[..]),
        (&old[..], &new[..]),
        (&new[..], &old[..]),
    ] {
        let (h, c) = check_grid(first, second, &angles);
        hits += h;
        cases += c;
    }
    assert!(hits > cases / 5, "{hits} of {cases}");
}

/// Pairs placed face to face: an edge of the second shape turned against
/// an edge of the first, parallel or nearly (by 1e-6, 1e-3 or at random),
/// and slid along the first edge's normal to a small gap or overlap (zero
/// included). Near-parallel edges, collinear segments and shapes that just
/// touch are where separating axes tie, closest points of segments lose
/// precision and clipped overlaps are slivers.
#[test]
fn face_to_face_pairs_match_reference() {
    let scale = explore_scale();
    let mut rng = StdRng::seed_from_u64(if scale > 1 { 1031 } else { 31 });
    let cases = 6_000 * scale;
    let (mut hits, mut placed) = (0, 0);
    for case in 0..cases {
        let (kind_a, kind_b) = (
            Kind::ALL[rng.random_range(0..5)],
            Kind::ALL[rng.random_range(0..5)],
        );
        let (a, pa) = random_shape_within(&mut rng, kind_a, 10.0);
        let b = random_shape_of(&mut rng, kind_b, 10.0);
        // An edge of a, in the world, and its outward normal.
        let core_a = reference(&a, pa).core().to_vec();
        let (start, along) = match core_a.len() {
            1 => (
                core_a[0],
                DVec2::from_angle(rng.random_range(0.0..core::f64::consts::TAU)),
            ),
            n => {
                let i = rng.random_range(0..n);
                (core_a[i], core_a[(i + 1) % n] - core_a[i])
            }
        };
        let mut normal = DVec2::new(along.y, -along.x).normalize();
        if core_a.len() == 2 && rng.random_bool(0.5) {
            normal = -normal;
        }
        // An edge of b, turned to run against a's edge.
        let core_b = reference(&b, Isometry2d::IDENTITY).core().to_vec();
        let (b_start, b_along) = match core_b.len() {
            1 => (
                core_b[0],
                DVec2::from_angle(rng.random_range(0.0..core::f64::consts::TAU)),
            ),
            n => {
                let j = rng.random_range(0..n);
                (core_b[j], core_b[(j + 1) % n] - core_b[j])
            }
        };
        let noise =
            [0.0, 0.0, 1e-6, -1e-6, 1e-3, rng.random_range(-0.3..0.3)][rng.random_range(0..6)];
        let angle = (-along).to_angle() - b_along.to_angle() + noise;
        let rotation = Rot2::radians(angle as f32);
        // b's edge midpoint across from a point of a's edge, far out along
        // the normal, then slid in until the gap is the one wanted.
        let turned = |p: DVec2| {
            let (cos, sin) = (f64::from(rotation.cos), f64::from(rotation.sin));
            DVec2::new(cos * p.x - sin * p.y, sin * p.x + cos * p.y)
        };
        let target = start + along * rng.random_range(-0.2..1.2) + normal * 60.0;
        let origin = target - turned(b_start + b_along * rng.random_range(0.0..1.0));
        let wanted = [
            0.0,
            rng.random_range(-0.2..0.2),
            rng.random_range(-2e-3..2e-3),
        ][rng.random_range(0..3)];
        let gap_at = |t: f64| {
            let pose = Isometry2d::new((origin - normal * t).as_vec2(), rotation);
            reference_gap((&a, pa), (&b, pose))
        };
        let (mut lo, mut hi) = (0.0, 60.5);
        if !(gap_at(lo) > wanted && gap_at(hi) <= wanted) {
            continue;
        }
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if gap_at(mid) > wanted {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let pb = Isometry2d::new((origin - normal * hi).as_vec2(), rotation);
        placed += 1;
        let pair = if rng.random_bool(0.5) {
            ((&a, pa), (&b, pb))
        } else {
            ((&b, pb), (&a, pa))
        };
        hits += usize::from(check_pair(case, pair.0, pair.1).0);
    }
    assert!(
        placed > cases / 2 && hits > placed / 3,
        "{hits} hits of {placed} placed"
    );
}

/// A rectangle given as a polygon goes through the generic code; against
/// circles and rectangles it must agree with the hand-written pair tests.
#[test]
fn rectangle_as_polygon_agrees_with_the_hand_written_pairs() {
    let mut rng = StdRng::seed_from_u64(5);
    for case in 0..20_000 {
        let (a, pa) = random_shape(
            &mut rng,
            if case % 2 == 0 {
                Kind::Circle
            } else {
                Kind::Rect
            },
        );
        let (b, pb) = random_shape(&mut rng, Kind::Rect);
        let Shape::Rect { half_size: h } = b else {
            unreachable!()
        };
        let polygon = Shape::Polygon(
            ConvexPolygon::new(&[
                Vec2::new(-h.x, -h.y),
                Vec2::new(h.x, -h.y),
                Vec2::new(h.x, h.y),
                Vec2::new(-h.x, h.y),
            ])
            .unwrap(),
        );
        let hand = a.contact(pa, &b, pb);
        let generic = a.contact(pa, &polygon, pb);
        let gap = reference_gap((&a, pa), (&b, pb));
        if gap.abs() > MARGIN {
            assert_eq!(hand.is_some(), generic.is_some(), "case {case}");
        }
        if let (Some(hand), Some(generic)) = (hand, generic) {
            assert!(
                (hand.depth - generic.depth).abs() <= 1e-3,
                "case {case}: {hand:?} vs {generic:?}"
            );
        }
    }
}

// Degenerate cases a suspicious user tries, with exact expectations.

fn segment(a: (f32, f32), b: (f32, f32)) -> Shape {
    Shape::Segment {
        a: Vec2::new(a.0, a.1),
        b: Vec2::new(b.0, b.1),
    }
}

fn at(x: f32, y: f32) -> Isometry2d {
    Isometry2d::from_xy(x, y)
}

/// The contact of `a` at `pa` and `b` at `pb`, checked against the reference
/// in both orders (see [`check_contact`]), with `intersects` agreeing.
fn checked_contact(a: &Shape, pa: Isometry2d, b: &Shape, pb: Isometry2d) -> Option<Contact> {
    let contact = a.contact(pa, b, pb);
    let reversed = b.contact(pb, a, pa);
    assert_eq!(contact.is_some(), a.intersects(pa, b, pb), "{contact:?}");
    assert_eq!(reversed.is_some(), b.intersects(pb, a, pa), "{reversed:?}");
    assert_eq!(
        contact.is_some(),
        reversed.is_some(),
        "{contact:?} vs {reversed:?}"
    );
    check_pair(0, (a, pa), (b, pb));
    if let (Some(contact), Some(reversed)) = (contact, reversed) {
        assert!(
            (contact.depth - reversed.depth).abs() < 1e-6,
            "{contact:?} vs {reversed:?}"
        );
    }
    contact
}

fn assert_near(actual: Vec2, expected: Vec2) {
    assert!(actual.abs_diff_eq(expected, 1e-5), "{actual} != {expected}");
}

/// A segment cutting a rectangle's corner: the shortest way out is along
/// the segment's normal, past the corner.
#[test]
fn segment_cutting_a_rectangle_corner() {
    let square = Shape::Rect {
        half_size: Vec2::ONE,
    };
    let cut = segment((0.0, 1.5), (1.5, 0.0));
    let contact =
        checked_contact(&square, Isometry2d::IDENTITY, &cut, Isometry2d::IDENTITY).unwrap();
    // The corner (1, 1) is 0.5 / √2 beyond the line x + y = 1.5.
    assert!(
        (contact.depth - 0.25 * 2f32.sqrt()).abs() < 1e-6,
        "{contact:?}"
    );
    assert_near(*contact.normal, Vec2::ONE.normalize());
    // The middle of the part of the segment inside the square.
    assert_near(contact.point, Vec2::new(0.75, 0.75));
    // Exactly through the corner: touching, depth 0.
    let through = segment((0.0, 2.0), (2.0, 0.0));
    let contact = checked_contact(
        &square,
        Isometry2d::IDENTITY,
        &through,
        Isometry2d::IDENTITY,
    )
    .unwrap();
    assert_eq!(contact.depth, 0.0);
    assert_near(*contact.normal, Vec2::ONE.normalize());
    assert_near(contact.point, Vec2::ONE);
    // A hair beyond the corner: apart.
    let beyond = segment((0.0, 2.0001), (2.0001, 0.0));
    assert!(
        checked_contact(&square, Isometry2d::IDENTITY, &beyond, Isometry2d::IDENTITY).is_none()
    );
}

/// Collinear segments that overlap touch (depth 0, normal across the
/// line); in line but apart, they do not.
#[test]
fn collinear_segments() {
    let a = segment((0.0, 0.0), (2.0, 0.0));
    let overlapping = segment((1.0, 0.0), (3.0, 0.0));
    let contact =
        checked_contact(&a, Isometry2d::IDENTITY, &overlapping, Isometry2d::IDENTITY).unwrap();
    assert_eq!(contact.depth, 0.0);
    assert!(contact.normal.y.abs() == 1.0, "{contact:?}");
    assert!(
        contact.point.y == 0.0 && (1.0..=2.0).contains(&contact.point.x),
        "{contact:?}"
    );
    // End to end: touching counts.
    let end_to_end = segment((2.0, 0.0), (3.0, 0.0));
    let contact =
        checked_contact(&a, Isometry2d::IDENTITY, &end_to_end, Isometry2d::IDENTITY).unwrap();
    assert_eq!((contact.depth, contact.point), (0.0, Vec2::new(2.0, 0.0)));
    // In line, apart.
    let apart = segment((2.5, 0.0), (3.0, 0.0));
    assert!(checked_contact(&a, Isometry2d::IDENTITY, &apart, Isometry2d::IDENTITY).is_none());
    // The same on a diagonal, placed by rotated poses (rounding included).
    let pose = Isometry2d::new(Vec2::new(3.0, -1.0), Rot2::degrees(37.0));
    let moved = |x: f32| {
        Isometry2d::new(
            pose.translation + pose.rotation * Vec2::new(x, 0.0),
            pose.rotation,
        )
    };
    let contact = checked_contact(&a, pose, &a, moved(1.0)).unwrap();
    assert!(contact.depth <= 1e-5, "{contact:?}");
    assert!(
        contact.normal.dot(pose.rotation * Vec2::X).abs() < 1e-5,
        "{contact:?}"
    );
    assert!(checked_contact(&a, pose, &a, moved(2.5)).is_none());
    // Two capsules in line overlap by their whole radius, across the line.
    let capsule = Shape::Capsule {
        radius: 0.5,
        half_length: 0.5,
    };
    let tilted = Rot2::degrees(45.0);
    let contact = checked_contact(
        &capsule,
        Isometry2d::new(Vec2::new(3.0, -2.0), tilted),
        &capsule,
        Isometry2d::new(Vec2::new(2.5, -1.5), tilted),
    )
    .unwrap();
    assert!((contact.depth - 1.0).abs() < 1e-5, "{contact:?}");
    assert!(
        contact.normal.dot(Vec2::new(-1.0, 1.0)).abs() < 1e-5,
        "{contact:?}"
    );
}

/// A circle whose centre is on a segment: the segment must move out by the
/// whole radius, across itself; at the segment's end, anywhere but inwards.
#[test]
fn circle_centred_on_a_segment() {
    let circle = Shape::Circle { radius: 1.0 };
    let line = segment((0.0, 0.0), (3.0, 0.0));
    let contact = checked_contact(&circle, at(1.0, 0.0), &line, Isometry2d::IDENTITY).unwrap();
    assert_eq!(contact.depth, 1.0);
    assert_eq!(contact.normal.y.abs(), 1.0, "{contact:?}");
    assert_eq!(contact.point, Vec2::new(1.0, 0.0));
    // The same with a rotated segment (no exact zero distance).
    let pose = Isometry2d::new(Vec2::new(-2.0, 5.0), Rot2::degrees(33.0));
    let on = pose.transform_point(Vec2::new(1.3, 0.0));
    let contact = checked_contact(&circle, Isometry2d::from_translation(on), &line, pose).unwrap();
    assert!((contact.depth - 1.0).abs() < 1e-5, "{contact:?}");
    assert!(
        contact.normal.dot(pose.rotation * Vec2::X).abs() < 1e-5,
        "{contact:?}"
    );
    // On the end.
    let contact = checked_contact(&circle, at(3.0, 0.0), &line, Isometry2d::IDENTITY).unwrap();
    assert_eq!(contact.depth, 1.0);
    assert!(contact.normal.x <= 1e-6, "{contact:?}");
}

/// A capsule standing on a rectangle's corner touches it there; a little
/// lower, it overlaps along the line from the corner to the cap's centre.
#[test]
fn capsule_standing_on_a_rectangle_corner() {
    let square = Shape::Rect {
        half_size: Vec2::ONE,
    };
    let capsule = Shape::Capsule {
        radius: 0.5,
        half_length: 1.0,
    };
    let contact = checked_contact(&square, Isometry2d::IDENTITY, &capsule, at(1.0, 2.5)).unwrap();
    assert_eq!(contact.depth, 0.0);
    assert_eq!(*contact.normal, Vec2::Y);
    assert_eq!(contact.point, Vec2::ONE);
    let contact = checked_contact(&square, Isometry2d::IDENTITY, &capsule, at(1.0, 2.4)).unwrap();
    assert!((contact.depth - 0.1).abs() < 1e-6, "{contact:?}");
    assert_eq!(*contact.normal, Vec2::Y);
    // Off to the side, resting on the corner with its rounded cap: the
    // normal runs from the corner through the cap's centre (0.3, 0.4)/0.5.
    let contact = checked_contact(&square, Isometry2d::IDENTITY, &capsule, at(1.3, 2.39)).unwrap();
    let expected_depth = 0.5 - Vec2::new(0.3, 0.39).length();
    assert!((contact.depth - expected_depth).abs() < 1e-5, "{contact:?}");
    assert_near(*contact.normal, Vec2::new(0.3, 0.39).normalize());
    assert!(checked_contact(&square, Isometry2d::IDENTITY, &capsule, at(1.3, 2.41)).is_none());
}

/// A polygon inside another: the shortest way out is through the nearest
/// side of the outer one.
#[test]
fn polygon_inside_another() {
    let outer = Shape::Polygon(
        ConvexPolygon::new(&[
            Vec2::new(-5.0, -5.0),
            Vec2::new(5.0, -5.0),
            Vec2::new(5.0, 5.0),
            Vec2::new(-5.0, 5.0),
        ])
        .unwrap(),
    );
    let inner = Shape::Polygon(
        ConvexPolygon::new(&[
            Vec2::new(-1.0, -1.0),
            Vec2::new(1.0, -1.0),
            Vec2::new(0.0, 1.0),
        ])
        .unwrap(),
    );
    let contact = checked_contact(&outer, Isometry2d::IDENTITY, &inner, at(3.0, 0.0)).unwrap();
    // The inner triangle reaches x = 2: 3 more to the right side at 5.
    assert_eq!(contact.depth, 3.0);
    assert_eq!(*contact.normal, Vec2::X);
    assert!(
        inner.contains_point(at(3.0, 0.0), contact.point),
        "{contact:?}"
    );
    let reversed = checked_contact(&inner, at(3.0, 0.0), &outer, Isometry2d::IDENTITY).unwrap();
    assert_eq!((reversed.depth, *reversed.normal), (3.0, Vec2::NEG_X));
    assert!(
        inner.contains_point(at(3.0, 0.0), reversed.point),
        "{reversed:?}"
    );
}

/// A zero-length segment is a point: it collides with what covers it,
/// touching included, and with nothing else.
#[test]
fn zero_length_segment_is_a_point() {
    let point = segment((1.0, 1.0), (1.0, 1.0));
    let square = Shape::Rect {
        half_size: Vec2::splat(2.0),
    };
    let contact =
        checked_contact(&square, Isometry2d::IDENTITY, &point, Isometry2d::IDENTITY).unwrap();
    // 1 from the right side and from the top one.
    assert_eq!(contact.depth, 1.0);
    assert!(
        *contact.normal == Vec2::X || *contact.normal == Vec2::Y,
        "{contact:?}"
    );
    assert_eq!(contact.point, Vec2::ONE);
    // On a circle's edge: touching.
    let circle = Shape::Circle { radius: 1.0 };
    let contact = checked_contact(&circle, at(1.0, 2.0), &point, Isometry2d::IDENTITY).unwrap();
    assert_eq!(contact.depth, 0.0);
    assert_eq!(*contact.normal, Vec2::NEG_Y);
    // On a segment, on a point, on a capsule's side; just off them.
    let line = segment((0.0, 1.0), (2.0, 1.0));
    assert_eq!(
        checked_contact(&line, Isometry2d::IDENTITY, &point, Isometry2d::IDENTITY).map(|c| c.depth),
        Some(0.0)
    );
    assert_eq!(
        checked_contact(&point, Isometry2d::IDENTITY, &point, Isometry2d::IDENTITY)
            .map(|c| c.depth),
        Some(0.0)
    );
    let capsule = Shape::Capsule {
        radius: 0.5,
        half_length: 3.0,
    };
    assert!(checked_contact(&capsule, at(1.5, 0.0), &point, Isometry2d::IDENTITY).is_some());
    for other in [at(0.0, 0.01), at(1.0, 1.0)] {
        assert!(checked_contact(&line, other, &point, Isometry2d::IDENTITY).is_none());
    }
    assert!(checked_contact(&point, at(0.0, 0.01), &point, Isometry2d::IDENTITY).is_none());
    assert!(checked_contact(&capsule, at(1.5001, 0.0), &point, Isometry2d::IDENTITY).is_none());
    // A point inside a polygon, and contains_point agrees.
    let triangle = Shape::Polygon(
        ConvexPolygon::new(&[Vec2::ZERO, Vec2::new(4.0, 0.0), Vec2::new(0.0, 4.0)]).unwrap(),
    );
    let contact = checked_contact(
        &triangle,
        Isometry2d::IDENTITY,
        &point,
        Isometry2d::IDENTITY,
    )
    .unwrap();
    assert_eq!(contact.depth, 1.0);
    assert!(point.contains_point(Isometry2d::IDENTITY, Vec2::ONE));
    assert!(!point.contains_point(Isometry2d::IDENTITY, Vec2::new(1.0, 1.001)));
}

/// A zero-length capsule is a circle: the same answers as the circle,
/// against every kind.
#[test]
fn zero_length_capsule_is_a_circle() {
    let capsule = Shape::Capsule {
        radius: 1.5,
        half_length: 0.0,
    };
    let circle = Shape::Circle { radius: 1.5 };
    let mut rng = StdRng::seed_from_u64(9);
    for case in 0..2_000 {
        let kind = Kind::ALL[case % 5];
        let (other, other_pose) = random_shape_within(&mut rng, kind, 10.0);
        let pose = Isometry2d::new(
            Vec2::new(rng.random_range(-10.0..10.0), rng.random_range(-10.0..10.0)),
            Rot2::radians(rng.random_range(-4.0..4.0)),
        );
        let as_circle = circle.contact(pose, &other, other_pose);
        let as_capsule = capsule.contact(pose, &other, other_pose);
        let gap = reference_gap((&circle, pose), (&other, other_pose));
        if gap.abs() > 1e-4 {
            assert_eq!(as_circle.is_some(), as_capsule.is_some(), "case {case}");
        }
        if let (Some(c), Some(k)) = (as_circle, as_capsule) {
            assert!(
                (c.depth - k.depth).abs() < 1e-4,
                "case {case}: {c:?} vs {k:?}"
            );
        }
    }
}

/// A segment tangent to a circle touches it.
#[test]
fn segment_tangent_to_a_circle() {
    let circle = Shape::Circle { radius: 1.0 };
    let tangent = segment((-2.0, 1.0), (2.0, 1.0));
    let contact = checked_contact(
        &circle,
        Isometry2d::IDENTITY,
        &tangent,
        Isometry2d::IDENTITY,
    )
    .unwrap();
    assert_eq!(
        (contact.depth, *contact.normal, contact.point),
        (0.0, Vec2::Y, Vec2::Y)
    );
    let reversed = checked_contact(
        &tangent,
        Isometry2d::IDENTITY,
        &circle,
        Isometry2d::IDENTITY,
    )
    .unwrap();
    assert_eq!((reversed.depth, *reversed.normal), (0.0, Vec2::NEG_Y));
    // Ending exactly on the circle, pointing away.
    let ending = segment((0.0, 1.0), (0.0, 3.0));
    assert_eq!(
        checked_contact(&circle, Isometry2d::IDENTITY, &ending, Isometry2d::IDENTITY)
            .map(|c| c.depth),
        Some(0.0)
    );
    // A hair above: apart.
    let above = segment((-2.0, 1.0001), (2.0, 1.0001));
    assert!(checked_contact(&circle, Isometry2d::IDENTITY, &above, Isometry2d::IDENTITY).is_none());
}

/// Two capsules side by side, parallel: they overlap by the radii less the
/// distance between their axes, straight across.
#[test]
fn parallel_capsules_side_by_side() {
    let capsule = Shape::Capsule {
        radius: 0.6,
        half_length: 2.0,
    };
    let contact = checked_contact(&capsule, Isometry2d::IDENTITY, &capsule, at(1.0, 0.5)).unwrap();
    assert!((contact.depth - 0.2).abs() < 1e-6, "{contact:?}");
    assert_eq!(*contact.normal, Vec2::X);
    assert!((contact.point - Vec2::new(0.5, contact.point.y)).length() < 1e-6);
}

/// Nearly parallel segments at a grazing distance: their closest points
/// (found by review: `a e - b²` of Ericson's formula cancels in f32 and
/// the ends were compared instead, 3e-3 off the distance).
#[test]
fn nearly_parallel_capsule_and_rectangle_depth() {
    let a = Shape::Capsule {
        radius: 7.743828,
        half_length: 3.7738705,
    };
    let pa = Isometry2d::new(
        Vec2::new(-17.3941, -12.417297),
        Rot2 {
            cos: 0.56106484,
            sin: -0.82777184,
        },
    );
    let b = Shape::Rect {
        half_size: Vec2::new(13.111047, 10.78999),
    };
    let pb = Isometry2d::new(
        Vec2::new(-19.093876, 6.2632084),
        Rot2 {
            cos: 0.8279657,
            sin: 0.5607788,
        },
    );
    let contact = checked_contact(&a, pa, &b, pb).unwrap();
    let reference = -reference_gap((&a, pa), (&b, pb));
    assert!(
        (f64::from(contact.depth) - reference).abs() < 1e-4,
        "{contact:?} vs {reference}"
    );
    let (p, q, distance) = Shape::Capsule {
        radius: 1.0,
        half_length: 3.7738705,
    }
    .closest_points(pa, &b, pb)
    .unwrap();
    let reference = reference_gap(
        (
            &Shape::Capsule {
                radius: 1.0,
                half_length: 3.7738705,
            },
            pa,
        ),
        (&b, pb),
    );
    assert!(
        (f64::from(distance) - reference).abs() < 1e-4,
        "{p} {q} {distance} vs {reference}"
    );
}
