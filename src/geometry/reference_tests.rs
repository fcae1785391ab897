//! Randomized checks of every pair test against an independent reference in
//! f64: rectangles as corner polygons, distances from points to edge
//! segments, intersection from segment crossings and containment, and depth
//! from projecting all corners on every edge normal.

use bevy::math::{DVec2, Isometry2d, Rot2, Vec2};
use rand::{Rng, SeedableRng, rngs::StdRng};

use super::{Contact, Shape};

const PAIRS_PER_KIND: usize = 100_000;
/// Cases closer than this to touching are too close to call in f32; the
/// yes/no answer is not compared for them (the contact still is).
const MARGIN: f64 = 1e-3;
const DEPTH_TOLERANCE: f64 = 1e-3;

/// A shape placed in the world, in f64.
enum RefShape {
    Circle {
        center: DVec2,
        radius: f64,
    },
    /// Corners in counter-clockwise order.
    Polygon([DVec2; 4]),
}

fn reference(shape: Shape, pose: Isometry2d) -> RefShape {
    let center = pose.translation.as_dvec2();
    match shape {
        Shape::Circle { radius } => RefShape::Circle {
            center,
            radius: radius.into(),
        },
        Shape::Rect { half_size } => {
            // The same rotation the f32 code uses, without its rounding.
            let (cos, sin) = (f64::from(pose.rotation.cos), f64::from(pose.rotation.sin));
            let h = half_size.as_dvec2();
            let corner = |sx: f64, sy: f64| {
                let local = DVec2::new(sx * h.x, sy * h.y);
                center + DVec2::new(cos * local.x - sin * local.y, sin * local.x + cos * local.y)
            };
            RefShape::Polygon([
                corner(1.0, 1.0),
                corner(-1.0, 1.0),
                corner(-1.0, -1.0),
                corner(1.0, -1.0),
            ])
        }
    }
}

impl RefShape {
    fn translated(&self, by: DVec2) -> Self {
        match *self {
            RefShape::Circle { center, radius } => RefShape::Circle {
                center: center + by,
                radius,
            },
            RefShape::Polygon(corners) => RefShape::Polygon(corners.map(|c| c + by)),
        }
    }

    /// Signed distance from a point: positive outside, negative inside.
    fn signed_distance(&self, p: DVec2) -> f64 {
        match *self {
            RefShape::Circle { center, radius } => p.distance(center) - radius,
            RefShape::Polygon(corners) => {
                let edges = edges(&corners);
                let to_edges = edges
                    .iter()
                    .map(|&(s, e)| segment_distance(p, s, e))
                    .fold(f64::INFINITY, f64::min);
                let inside = edges.iter().all(|&(s, e)| (e - s).perp_dot(p - s) >= 0.0);
                if inside { -to_edges } else { to_edges }
            }
        }
    }
}

fn edges(corners: &[DVec2; 4]) -> [(DVec2, DVec2); 4] {
    core::array::from_fn(|i| (corners[i], corners[(i + 1) % 4]))
}

fn segment_distance(p: DVec2, s: DVec2, e: DVec2) -> f64 {
    let d = e - s;
    let t = ((p - s).dot(d) / d.length_squared()).clamp(0.0, 1.0);
    p.distance(s + d * t)
}

fn segments_cross(a: (DVec2, DVec2), b: (DVec2, DVec2)) -> bool {
    let side = |p: DVec2, q: DVec2, r: DVec2| (q - p).perp_dot(r - p);
    let (d1, d2) = (side(b.0, b.1, a.0), side(b.0, b.1, a.1));
    let (d3, d4) = (side(a.0, a.1, b.0), side(a.0, a.1, b.1));
    if d1 == 0.0 && d2 == 0.0 {
        // On one line: they meet only if their extents along it overlap.
        let along = a.1 - a.0;
        let (a0, a1) = (0.0, along.length_squared());
        let (b0, b1) = ((b.0 - a.0).dot(along), (b.1 - a.0).dot(along));
        return b0.min(b1) <= a1 && a0 <= b0.max(b1);
    }
    d1 * d2 <= 0.0 && d3 * d4 <= 0.0
}

/// `(gap, depth)`: the reference distance between the shapes when apart
/// (positive) and the penetration depth when overlapping (as a negative gap
/// and a positive depth).
fn reference_gap(a: &RefShape, b: &RefShape) -> f64 {
    match (a, b) {
        (RefShape::Circle { center, radius }, other)
        | (other, RefShape::Circle { center, radius }) => other.signed_distance(*center) - radius,
        (RefShape::Polygon(pa), RefShape::Polygon(pb)) => {
            let intersects = edges(pa)
                .iter()
                .any(|&ea| edges(pb).iter().any(|&eb| segments_cross(ea, eb)))
                || a.signed_distance(pb[0]) <= 0.0
                || b.signed_distance(pa[0]) <= 0.0;
            // Overlap along each edge normal from all projected corners: the
            // smallest is the penetration depth, the largest separation is
            // a lower bound on the gap (enough to tell how clear a miss is).
            let mut min_overlap = f64::INFINITY;
            for corners in [pa, pb] {
                for (s, e) in edges(corners) {
                    let axis = (e - s).perp().normalize();
                    let project = |poly: &[DVec2; 4]| {
                        poly.iter()
                            .map(|c| c.dot(axis))
                            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                                (lo.min(v), hi.max(v))
                            })
                    };
                    let ((alo, ahi), (blo, bhi)) = (project(pa), project(pb));
                    min_overlap = min_overlap.min((ahi - blo).min(bhi - alo));
                }
            }
            if intersects {
                -min_overlap.max(0.0)
            } else {
                (-min_overlap).max(0.0)
            }
        }
    }
}

fn random_shape(rng: &mut StdRng, circle: bool) -> (Shape, Isometry2d) {
    let shape = if circle {
        Shape::Circle {
            radius: rng.random_range(0.2..20.0),
        }
    } else {
        Shape::Rect {
            half_size: Vec2::new(rng.random_range(0.1..25.0), rng.random_range(0.1..25.0)),
        }
    };
    let pose = Isometry2d::new(
        Vec2::new(rng.random_range(-40.0..40.0), rng.random_range(-40.0..40.0)),
        Rot2::radians(rng.random_range(-7.0..7.0)),
    );
    (shape, pose)
}

/// Checks one pair against the reference; returns (contact found, yes/no
/// compared).
fn check_pair(
    case: usize,
    (sa, pa): (Shape, Isometry2d),
    (sb, pb): (Shape, Isometry2d),
) -> (bool, bool) {
    let contact = sa.contact(pa, &sb, pb);
    assert_eq!(
        contact.is_some(),
        sa.intersects(pa, &sb, pb),
        "case {case}: intersects disagrees with contact"
    );
    let (ra, rb) = (reference(sa, pa), reference(sb, pb));
    let gap = reference_gap(&ra, &rb);
    let compared = gap.abs() > MARGIN;
    if compared {
        assert_eq!(
            contact.is_some(),
            gap < 0.0,
            "case {case}: {sa:?} {pa:?} vs {sb:?} {pb:?}: reference gap {gap}"
        );
    }
    if let Some(contact) = contact {
        check_contact(case, &ra, &rb, contact, gap);
    }
    (contact.is_some(), compared)
}

fn check_kind(seed: u64, a_circle: bool, b_circle: bool) {
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut hits, mut compared) = (0, 0);
    for case in 0..PAIRS_PER_KIND {
        let a = random_shape(&mut rng, a_circle);
        let b = random_shape(&mut rng, b_circle);
        let (hit, was_compared) = check_pair(case, a, b);
        hits += usize::from(hit);
        compared += usize::from(was_compared);
    }
    // The distributions must exercise both answers.
    assert!(
        hits > PAIRS_PER_KIND / 10 && hits < PAIRS_PER_KIND * 9 / 10,
        "{hits} hits"
    );
    assert!(compared > PAIRS_PER_KIND * 9 / 10);
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
    let offsets: Vec<Vec2> = (-4..=4)
        .flat_map(|x| (-4..=4).map(move |y| Vec2::new(x as f32 * 0.5, y as f32 * 0.5)))
        .collect();
    let mut case = 0;
    let mut hits = 0;
    for &sa in &shapes {
        for &sb in &shapes {
            for &angle_a in &angles {
                for &angle_b in &angles {
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
    assert!(hits > case / 4, "{hits} of {case}");
}

fn check_contact(case: usize, a: &RefShape, b: &RefShape, contact: Contact, gap: f64) {
    let depth = f64::from(contact.depth);
    let normal = contact.normal.as_dvec2();
    assert!(
        depth >= 0.0 && depth.is_finite(),
        "case {case}: depth {depth}"
    );
    assert!(
        (normal.length() - 1.0).abs() < 1e-5,
        "case {case}: normal {normal}"
    );
    let expected_depth = (-gap).max(0.0);
    assert!(
        (depth - expected_depth).abs() <= DEPTH_TOLERANCE,
        "case {case}: depth {depth}, reference {expected_depth}"
    );
    // Moving b along the normal by the depth separates them: a little less
    // still overlaps, a little more is clear.
    let past = reference_gap(a, &b.translated(normal * (depth + 2.0 * DEPTH_TOLERANCE)));
    assert!(
        past > 0.0,
        "case {case}: still overlapping ({past}) after moving by normal * depth"
    );
    if depth > 2.0 * DEPTH_TOLERANCE {
        let short = reference_gap(a, &b.translated(normal * (depth - 2.0 * DEPTH_TOLERANCE)));
        assert!(
            short < 0.0,
            "case {case}: apart ({short}) before moving by normal * depth"
        );
    }
    // The point lies in the overlap.
    let point = contact.point.as_dvec2();
    for shape in [a, b] {
        let d = shape.signed_distance(point);
        assert!(
            d <= DEPTH_TOLERANCE,
            "case {case}: point {point} is {d} outside a shape"
        );
    }
}

#[test]
fn circle_circle_matches_reference() {
    check_kind(1, true, true);
}

#[test]
fn circle_rect_matches_reference() {
    check_kind(2, true, false);
}

#[test]
fn rect_circle_matches_reference() {
    check_kind(3, false, true);
}

#[test]
fn rect_rect_matches_reference() {
    check_kind(4, false, false);
}
