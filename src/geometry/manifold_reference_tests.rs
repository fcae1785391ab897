//! Contact manifolds of random pairs of every kind (and of compounds and
//! polylines) checked against the f64 reference (`crate::reference`): each
//! point lies on both shapes' boundaries, half its depth either way along
//! the normal; no point is deeper than the contact; the normal is the
//! contact's, to the bit; there is a manifold exactly when there is a
//! contact; and the pair seen from the other side gives the same points.
//!
//! Random poses rarely put a face on a face, so half the cases are placed
//! face to face: an edge of the second shape turned against an edge of the
//! first (exactly, or tilted by up to 0.3 rad), slid in to a small gap or
//! overlap. Those are the cases with two points.

use bevy::math::{DVec2, Isometry2d, Rot2, Vec2};
use rand::{Rng, SeedableRng, rngs::StdRng};

use super::query::contact::contact_with_parts;
use super::reference_tests::{Kind, explore_scale, random_shape_of};
use super::{Compound, ContactParts, Manifold, Shape};
use crate::reference::{RefShape, reference, reference_gap};

/// How far a point may be off a boundary, or deeper than the contact,
/// near the origin (shapes up to 25 across, poses within 40).
const TOLERANCE: f64 = 1e-3;

/// What was seen over many cases.
#[derive(Default, Debug)]
struct Seen {
    contacts: usize,
    two_points: usize,
    /// Cases whose manifold seen the other way round differs.
    asymmetric: usize,
}

/// The tolerance for shapes placed around `at`: f32 rounds world
/// coordinates in proportion to their size.
fn tolerance_at(at: Vec2) -> f64 {
    TOLERANCE + 16.0 * f64::from(f32::EPSILON) * f64::from(at.abs().max_element())
}

/// Checks the manifold of `a` at `pa` and `b` at `pb` against their contact
/// and the reference, both ways round.
fn check_manifold(
    case: usize,
    (a, pa): (&Shape, Isometry2d),
    (b, pb): (&Shape, Isometry2d),
    seen: &mut Seen,
) {
    let describe = || format!("case {case}: {a:?} at {pa:?} vs {b:?} at {pb:?}");
    let contact = a.contact(pa, b, pb);
    let manifold = a.manifold(pa, b, pb);
    assert_eq!(
        contact.is_some(),
        manifold.is_some(),
        "{}: {contact:?}",
        describe()
    );
    let (Some(contact), Some(manifold)) = (contact, manifold) else {
        return;
    };
    assert_eq!(manifold.normal, contact.normal, "{}", describe());
    let tolerance = tolerance_at(pa.translation.abs().max(pb.translation.abs()));
    let (ref_a, ref_b) = (reference(a, pa), reference(b, pb));
    check_points(
        &manifold,
        contact.depth,
        (&ref_a, &ref_b),
        tolerance,
        &describe,
    );
    // The other way round: the same points, flipped (when the contact is
    // the same: a graze may touch one way round only, shapes centred on
    // each other pick their own way out).
    // Where a threshold decides (an edge within half a degree of the normal
    // is a face; an end within rounding of touching is a point), the two
    // ways round may decide differently: their points are still on both
    // boundaries, and such cases must stay rare.
    if let Some(back) = b
        .manifold(pb, a, pa)
        .filter(|back| back.normal == -manifold.normal)
    {
        let back = back.flipped();
        check_points(&back, contact.depth, (&ref_a, &ref_b), tolerance, &describe);
        seen.asymmetric += usize::from(!same_points(&back, &manifold, tolerance));
    }
    seen.contacts += 1;
    seen.two_points += usize::from(manifold.points().len() == 2);
}

/// Every point of `manifold` (of shapes in contact `depth` deep) lies on
/// both boundaries, half its depth either way along the normal, and is no
/// deeper than the contact; two points are apart and in order along
/// `normal.perp()`.
fn check_points(
    manifold: &Manifold,
    depth: f32,
    (a, b): (&RefShape, &RefShape),
    tolerance: f64,
    describe: &dyn Fn() -> String,
) {
    let normal = manifold.normal.as_dvec2();
    let points = manifold.points();
    assert!((1..=2).contains(&points.len()), "{}", describe());
    for point in points {
        let (at, half) = (point.point.as_dvec2(), f64::from(point.depth) * 0.5);
        assert!(
            point.depth >= 0.0 && f64::from(point.depth) <= f64::from(depth) + tolerance,
            "{}: depth {} of a contact {depth} deep: {manifold:?}",
            describe(),
            point.depth
        );
        let on_a = a.signed_distance(at + normal * half);
        let on_b = b.signed_distance(at - normal * half);
        assert!(
            on_a.abs() <= tolerance && on_b.abs() <= tolerance,
            "{}: {point:?} is {on_a} off the first boundary, {on_b} off the second: {manifold:?}",
            describe()
        );
    }
    if let [p, q] = points {
        assert_ne!(p.id, q.id, "{}: {manifold:?}", describe());
        let along = (q.point - p.point).dot(manifold.normal.perp());
        assert!(along > 0.0, "{}: out of order: {manifold:?}", describe());
    }
}

/// Whether `found` has the points, depths and ids of `expected`, to within
/// `tolerance`.
fn same_points(found: &Manifold, expected: &Manifold, tolerance: f64) -> bool {
    found.points().len() == expected.points().len()
        && found.parts == expected.parts
        && (found.points().iter().zip(expected.points())).all(|(f, e)| {
            f.id == e.id
                && f64::from(f.point.distance(e.point)) <= tolerance
                && f64::from((f.depth - e.depth).abs()) <= tolerance
        })
}

/// A pose within `spread` of `centre`, turned at random.
fn random_pose(rng: &mut StdRng, centre: Vec2, spread: f32) -> Isometry2d {
    let offset = Vec2::new(
        rng.random_range(-spread..spread),
        rng.random_range(-spread..spread),
    );
    Isometry2d::new(centre + offset, Rot2::radians(rng.random_range(-7.0..7.0)))
}

/// An edge of `shape`'s core at `pose` (in the world, f64): its start and
/// its direction (a random direction for a point), and its outward normal.
fn random_edge(rng: &mut StdRng, shape: &Shape, pose: Isometry2d) -> (DVec2, DVec2, DVec2) {
    let core = reference(shape, pose).core().to_vec();
    let (start, along) = match core.len() {
        1 => (
            core[0],
            DVec2::from_angle(rng.random_range(0.0..core::f64::consts::TAU)),
        ),
        n => {
            let i = rng.random_range(0..n);
            (core[i], core[(i + 1) % n] - core[i])
        }
    };
    let mut normal = DVec2::new(along.y, -along.x).normalize();
    if core.len() == 2 && rng.random_bool(0.5) {
        normal = -normal;
    }
    (start, along, normal)
}

/// `b` placed against `a` at `pa` face to face: one of its edges turned
/// against one of `a`'s (tilted by nothing, a hair, or up to 0.3 rad), slid
/// in along the face's normal to a gap of 0, a hair, or an overlap; `None`
/// when the slide finds no such place.
fn face_to_face(rng: &mut StdRng, a: &Shape, pa: Isometry2d, b: &Shape) -> Option<Isometry2d> {
    let (start, along, normal) = random_edge(rng, a, pa);
    let (b_start, b_along, _) = random_edge(rng, b, Isometry2d::IDENTITY);
    let tilts = [
        0.0,
        0.0,
        0.0,
        1e-6,
        -1e-6,
        1e-3,
        5e-3,
        2e-2,
        rng.random_range(-0.3..0.3),
    ];
    let tilt = tilts[rng.random_range(0..tilts.len())];
    let rotation = Rot2::radians(((-along).to_angle() - b_along.to_angle() + tilt) as f32);
    let turned = |p: DVec2| {
        let (cos, sin) = (f64::from(rotation.cos), f64::from(rotation.sin));
        DVec2::new(cos * p.x - sin * p.y, sin * p.x + cos * p.y)
    };
    let target = start + along * rng.random_range(-0.2..1.2) + normal * 60.0;
    let origin = target - turned(b_start + b_along * rng.random_range(0.0..1.0));
    let wanted = [
        0.0,
        rng.random_range(-2e-3..2e-3),
        rng.random_range(-0.5..0.0),
        rng.random_range(-4.0..0.0),
    ][rng.random_range(0..4)];
    let pose_at = |t: f64| Isometry2d::new((origin - normal * t).as_vec2(), rotation);
    let gap_at = |t: f64| reference_gap((a, pa), (b, pose_at(t)));
    let (mut lo, mut hi) = (0.0, 60.5);
    if !(gap_at(lo) > wanted && gap_at(hi) <= wanted) {
        return None;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if gap_at(mid) > wanted {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(pose_at(hi))
}

/// Random pairs of `kind_a` and `kind_b` around `centre`: half at random
/// poses, half face to face, in either order.
fn check_kinds(seed: u64, kind_a: Kind, kind_b: Kind, centre: Vec2) -> Seen {
    let mut rng = StdRng::seed_from_u64(seed + if explore_scale() > 1 { 1000 } else { 0 });
    let mut seen = Seen::default();
    for case in 0..1500 * explore_scale() {
        let a = random_shape_of(&mut rng, kind_a, 10.0);
        let b = random_shape_of(&mut rng, kind_b, 10.0);
        let pa = random_pose(&mut rng, centre, 12.0);
        let pb = if case % 2 == 0 {
            random_pose(&mut rng, centre, 12.0)
        } else {
            let Some(pb) = face_to_face(&mut rng, &a, pa, &b) else {
                continue;
            };
            pb
        };
        check_manifold(case, (&a, pa), (&b, pb), &mut seen);
    }
    seen
}

/// Every ordered pair of kinds, one test per first kind so that they run in
/// parallel; the face-to-face cases give two points often.
fn check_kinds_from(kind_a: Kind, seed: u64) {
    for (k, &kind_b) in Kind::ALL.iter().enumerate() {
        let seen = check_kinds(seed * 10 + k as u64, kind_a, kind_b, Vec2::ZERO);
        // Two segments touch only where they cross or lie on one line.
        let segments = matches!((kind_a, kind_b), (Kind::Segment, Kind::Segment));
        let a_segment = matches!(kind_a, Kind::Segment) || matches!(kind_b, Kind::Segment);
        let fewest = if segments {
            20
        } else if a_segment {
            150
        } else {
            300
        };
        assert!(seen.contacts > fewest, "{kind_a:?}-{kind_b:?}: {seen:?}");
        assert!(
            seen.asymmetric * 100 <= seen.contacts,
            "{kind_a:?}-{kind_b:?}: {seen:?}"
        );
        let faces = |kind| !matches!(kind, Kind::Circle);
        if faces(kind_a) && faces(kind_b) && !segments {
            assert!(seen.two_points > 50, "{kind_a:?}-{kind_b:?}: {seen:?}");
        }
    }
}

#[test]
fn circle_manifolds_match_reference() {
    check_kinds_from(Kind::Circle, 70);
}

#[test]
fn rect_manifolds_match_reference() {
    check_kinds_from(Kind::Rect, 71);
}

#[test]
fn capsule_manifolds_match_reference() {
    check_kinds_from(Kind::Capsule, 72);
}

#[test]
fn segment_manifolds_match_reference() {
    check_kinds_from(Kind::Segment, 73);
}

#[test]
fn polygon_manifolds_match_reference() {
    check_kinds_from(Kind::Polygon, 74);
}

/// Far from the origin (thousands to a hundred thousand units out), the
/// points still lie on both boundaries to within the rounding of where
/// the shapes are.
#[test]
fn manifolds_far_from_the_origin_match_reference() {
    let mut seen = Seen::default();
    for (i, far) in [
        Vec2::new(3e3, -2e3),
        Vec2::new(-4e4, 7e4),
        Vec2::new(1e5, 1e5),
    ]
    .into_iter()
    .enumerate()
    {
        for (k, &kind) in Kind::ALL.iter().enumerate() {
            let found = check_kinds(800 + 10 * i as u64 + k as u64, kind, Kind::Rect, far);
            seen.contacts += found.contacts;
            seen.two_points += found.two_points;
            seen.asymmetric += found.asymmetric;
        }
    }
    assert!(seen.two_points > 500, "{seen:?}");
    // Normals rounded in world coordinates cross the thresholds more often.
    assert!(seen.asymmetric * 20 <= seen.contacts, "{seen:?}");
}

/// A random compound of two to four parts of any kind.
fn random_compound(rng: &mut StdRng) -> Shape {
    let count = rng.random_range(2..=4);
    Shape::Compound(Compound::new((0..count).map(|_| {
        let kind = Kind::ALL[rng.random_range(0..5)];
        let pose = random_pose(rng, Vec2::ZERO, 8.0);
        (pose, random_shape_of(rng, kind, 6.0))
    })))
}

/// A random polyline: a zigzag of 3 to 8 points, closed one time in five.
fn random_polyline(rng: &mut StdRng) -> Shape {
    let count = rng.random_range(3..=8);
    let mut points: Vec<Vec2> = (0..count)
        .map(|i| Vec2::new(i as f32 * 6.0 - 20.0, rng.random_range(-5.0..5.0)))
        .collect();
    if rng.random_bool(0.2) {
        points.push(points[0]);
    }
    Shape::Compound(Compound::polyline(&points).unwrap())
}

/// `shape` at `pose` as the reference of its part `part` (`None`: not a
/// compound).
fn reference_part(shape: &Shape, pose: Isometry2d, part: Option<u32>) -> RefShape {
    match (shape, part) {
        (Shape::Compound(compound), Some(i)) => {
            let part = &compound.parts()[i as usize];
            reference(&part.shape, pose * part.pose)
        }
        _ => reference(shape, pose),
    }
}

/// Compounds and polylines against every kind and each other: the
/// manifold is of the deepest pair of parts (its contact is the pair's,
/// under the ghost-vertex rule), its points on those parts' boundaries.
#[test]
fn compound_and_polyline_manifolds_match_reference() {
    let mut rng = StdRng::seed_from_u64(75);
    let mut seen = Seen::default();
    for case in 0..6000 * explore_scale() {
        let a = if case % 2 == 0 {
            random_compound(&mut rng)
        } else {
            random_polyline(&mut rng)
        };
        let pick = rng.random_range(0..7);
        let b = match pick {
            5 => random_compound(&mut rng),
            6 => random_polyline(&mut rng),
            k => random_shape_of(&mut rng, Kind::ALL[k.min(4)], 8.0),
        };
        // A polyline's normal (its ghost-vertex rule) is not always the
        // shortest way out of the segment touched: the overlap along it,
        // which the points measure, may be deeper than the contact says.
        let depth_limit = if case % 2 == 1 || pick == 6 {
            f32::INFINITY
        } else {
            f32::NEG_INFINITY
        };
        let pa = random_pose(&mut rng, Vec2::ZERO, 6.0);
        let pb = random_pose(&mut rng, Vec2::ZERO, 6.0);
        let describe = || format!("case {case}: {a:?} at {pa:?} vs {b:?} at {pb:?}");
        let contact = a.contact(pa, &b, pb);
        let manifold = a.manifold(pa, &b, pb);
        assert_eq!(contact.is_some(), manifold.is_some(), "{}", describe());
        let (Some(contact), Some(manifold)) = (contact, manifold) else {
            continue;
        };
        // The pair of parts detection names, with its contact to the bit;
        // `contact` may take equally deep pairs in another order.
        let (by_parts, [i, j]) = contact_with_parts(a.view(), pa, b.view(), pb).unwrap();
        assert_eq!(manifold.normal, by_parts.normal, "{}", describe());
        assert_eq!(manifold.parts, ContactParts::new(i, j), "{}", describe());
        assert_eq!(by_parts.depth, contact.depth, "{}", describe());
        let parts = manifold.parts;
        let (ref_a, ref_b) = (
            reference_part(&a, pa, parts.a()),
            reference_part(&b, pb, parts.b()),
        );
        check_points(
            &manifold,
            contact.depth.max(depth_limit),
            (&ref_a, &ref_b),
            TOLERANCE,
            &describe,
        );
        // Every touching pair of parts has its own, on its own parts; the
        // deepest pair's is among them.
        let all = a.manifolds(pa, &b, pb);
        assert!(all.contains(&manifold), "{}: {all:?}", describe());
        for each in &all {
            let (ref_a, ref_b) = (
                reference_part(&a, pa, each.parts.a()),
                reference_part(&b, pb, each.parts.b()),
            );
            check_points(
                each,
                contact.depth.max(depth_limit),
                (&ref_a, &ref_b),
                TOLERANCE,
                &describe,
            );
        }
        seen.contacts += 1;
        seen.two_points += usize::from(manifold.points().len() == 2);
    }
    assert!(seen.contacts > 1000 && seen.two_points > 50, "{seen:?}");
}
