//! Contacts and shape casts with compounds and polylines against the f64
//! reference, for every pair of families (a convex shape, a compound, a
//! polyline with sharp spikes and valleys).
//!
//! The reference ([`crate::reference`]) sees a compound as its parts; an
//! answer for two shapes must be the answer of some pair of their parts:
//! a contact exactly when some pair overlaps, its point inside the overlap
//! of such a pair; a cast's first touch where the first pair touches, its
//! point on both parts and its normal separating them, against the motion.
//! The ghost-vertex rule of polylines may turn a normal or a depth, never
//! these.

use bevy::math::{DVec2, Dir2, Isometry2d, Rot2, Vec2};
use rand::{Rng, SeedableRng, rngs::StdRng};

use super::reference_tests::{Kind, random_shape_of};
use super::{Compound, Shape, cast_shape};
use crate::reference::{RefPair, RefShape, reference_parts};

/// Gaps closer than this to zero are too close to call in f32.
const MARGIN: f64 = 1e-3;
/// Tolerance on points, normals and gaps (world units).
const TOLERANCE: f64 = 2e-3;

/// The three families of shapes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Family {
    Convex,
    Compound,
    Polyline,
}

const FAMILIES: [Family; 3] = [Family::Convex, Family::Compound, Family::Polyline];

/// A random polyline: 3 to 7 points, segments 3 to 10 long, each turning
/// by up to 170 degrees either way (spikes as sharp as 10 degrees), now and
/// then closed into a loop.
fn random_polyline(rng: &mut StdRng) -> Shape {
    let mut point = Vec2::new(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0));
    let mut heading = rng.random_range(0.0..core::f32::consts::TAU);
    let mut points = vec![point];
    for _ in 0..rng.random_range(2..7) {
        heading += rng.random_range(-2.97..2.97);
        point += Vec2::from_angle(heading) * rng.random_range(3.0..10.0);
        points.push(point);
    }
    if points.len() >= 4 && rng.random_bool(0.15) {
        points.push(points[0]);
    }
    Shape::Compound(Compound::polyline(&points).unwrap())
}

/// A random shape of `family`, about 12 across.
pub(super) fn random_shape(rng: &mut StdRng, family: Family) -> Shape {
    let convex = |rng: &mut StdRng| {
        let kind = Kind::ALL[rng.random_range(0..5)];
        random_shape_of(rng, kind, 4.0)
    };
    match family {
        Family::Convex => convex(rng),
        Family::Compound => {
            let parts = (0..rng.random_range(2..5))
                .map(|_| {
                    let at = Vec2::new(rng.random_range(-6.0..6.0), rng.random_range(-6.0..6.0));
                    let turn = Rot2::radians(rng.random_range(-3.2..3.2));
                    (Isometry2d::new(at, turn), convex(rng))
                })
                .collect::<Vec<_>>();
            Shape::Compound(Compound::new(parts))
        }
        Family::Polyline => random_polyline(rng),
    }
}

fn random_pose(rng: &mut StdRng, spread: f32) -> Isometry2d {
    Isometry2d::new(
        Vec2::new(
            rng.random_range(-spread..spread),
            rng.random_range(-spread..spread),
        ),
        Rot2::radians(rng.random_range(-3.2..3.2)),
    )
}

/// Every pair of parts of two placed shapes.
fn part_pairs(a: &[RefShape], b: &[RefShape]) -> Vec<(usize, usize, RefPair)> {
    (a.iter().enumerate())
        .flat_map(|(i, pa)| {
            b.iter()
                .enumerate()
                .map(move |(j, pb)| (i, j, RefPair::new(pa, pb)))
        })
        .collect()
}

/// Whether `point` is within `tolerance` of (or inside) some part of each.
fn in_some_part_of_each(point: DVec2, a: &[RefShape], b: &[RefShape], tolerance: f64) -> bool {
    let within = |parts: &[RefShape]| parts.iter().any(|p| p.signed_distance(point) <= tolerance);
    within(a) && within(b)
}

/// Random pairs with a compound or a polyline, most of them close: a
/// contact exactly when some pair of parts overlaps, with its point in
/// the overlap of such a pair (on the polyline and in the other shape).
#[test]
fn contacts_with_compounds_and_polylines_match_reference() {
    let mut rng = StdRng::seed_from_u64(4612);
    for (fa, &family_a) in FAMILIES.iter().enumerate() {
        for (fb, &family_b) in FAMILIES.iter().enumerate() {
            if family_a == Family::Convex && family_b == Family::Convex {
                continue;
            }
            let (mut touching, mut compared) = (0, 0);
            for case in 0..600 {
                let what = format!("{family_a:?}-{family_b:?} case {case} ({fa}{fb})");
                let (a, b) = (
                    random_shape(&mut rng, family_a),
                    random_shape(&mut rng, family_b),
                );
                let (pa, pb) = (random_pose(&mut rng, 3.0), random_pose(&mut rng, 8.0));
                let (parts_a, parts_b) = (reference_parts(&a, pa), reference_parts(&b, pb));
                let gap = (part_pairs(&parts_a, &parts_b).iter())
                    .map(|(_, _, pair)| pair.gap())
                    .fold(f64::INFINITY, f64::min);
                let contact = a.contact(pa, &b, pb);
                if gap.abs() > MARGIN {
                    compared += 1;
                    assert_eq!(
                        contact.is_some(),
                        gap < 0.0,
                        "{what}: gap {gap}: {contact:?}"
                    );
                }
                let Some(contact) = contact else {
                    continue;
                };
                touching += 1;
                let point = contact.point.as_dvec2();
                assert!(
                    in_some_part_of_each(point, &parts_a, &parts_b, TOLERANCE),
                    "{what}: point {point} outside the overlap: {contact:?}\n{a:?} at {pa:?}\n{b:?} at {pb:?}"
                );
                assert!(
                    contact.depth >= 0.0 && contact.depth.is_finite(),
                    "{what}: {contact:?}"
                );
                assert!(
                    (contact.normal.length() - 1.0).abs() < 1e-4,
                    "{what}: {contact:?}"
                );
                // Seen from the other side: the same contact, flipped.
                let seen = b
                    .contact(pb, &a, pa)
                    .expect("contact one way, not the other");
                assert!(
                    seen.normal.dot(*contact.normal) < -1.0 + 1e-4,
                    "{what}: {seen:?} {contact:?}"
                );
            }
            assert!(
                touching > 60 && compared > 500,
                "{family_a:?}-{family_b:?}: {touching} {compared}"
            );
        }
    }
}

/// The f64 first touch of a cast between two placed shapes as their parts:
/// the earliest first touch of any pair, and the smallest gap on the way.
struct CastReference {
    pairs: Vec<(usize, usize, RefPair)>,
    direction: DVec2,
}

impl CastReference {
    /// The gap of the pair with the cast shape moved by `distance` (pairs
    /// are (target part, cast part): the second one moves).
    fn gap(pair: &RefPair, direction: DVec2, distance: f64) -> f64 {
        pair.gap_after(direction * distance)
    }

    /// Each pair's first touch within `end`, and its smallest gap.
    fn first_touch(&self, pair: &RefPair, end: f64) -> (Option<f64>, f64) {
        let gap = |d: f64| Self::gap(pair, self.direction, d);
        if gap(0.0) <= 0.0 {
            return (Some(0.0), gap(0.0));
        }
        let (mut lo, mut hi) = (0.0, end);
        for _ in 0..200 {
            let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
            if gap(m1) < gap(m2) {
                hi = m2;
            } else {
                lo = m1;
            }
        }
        let lowest = 0.5 * (lo + hi);
        let (lowest, smallest) = [(lowest, gap(lowest)), (end, gap(end))]
            .into_iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap();
        if smallest > 0.0 {
            return (None, smallest);
        }
        let (mut apart, mut touching) = (0.0, lowest);
        for _ in 0..200 {
            let middle = 0.5 * (apart + touching);
            if gap(middle) <= 0.0 {
                touching = middle;
            } else {
                apart = middle;
            }
        }
        (Some(touching), smallest)
    }
}

/// Random casts of every pair of families with a compound or a polyline,
/// aimed near the target: a hit exactly when some pair of parts touches on
/// the way, at the first such touch; the point on a part of each (the cast
/// one moved there), the normal separating those two parts and facing the
/// motion. A start in contact gives a point in the overlap.
#[test]
fn casts_with_compounds_and_polylines_match_reference() {
    let mut rng = StdRng::seed_from_u64(4605);
    for &family_a in &FAMILIES {
        for &family_b in &FAMILIES {
            if family_a == Family::Convex && family_b == Family::Convex {
                continue;
            }
            let (mut hits, mut compared) = (0, 0);
            for case in 0..500 {
                let what = format!("{family_a:?} cast at {family_b:?}, case {case}");
                let (shape, target) = (
                    random_shape(&mut rng, family_a),
                    random_shape(&mut rng, family_b),
                );
                let target_pose = random_pose(&mut rng, 6.0);
                let pose = if case % 8 == 0 {
                    random_pose(&mut rng, 8.0)
                } else {
                    random_pose(&mut rng, 40.0)
                };
                let aim = target_pose.translation
                    + Vec2::new(rng.random_range(-8.0..8.0), rng.random_range(-8.0..8.0));
                let direction = Dir2::new(aim - pose.translation).unwrap_or(Dir2::X);
                let max_distance = if case % 3 == 0 {
                    f32::INFINITY
                } else {
                    rng.random_range(0.0..70.0)
                };
                let hit = cast_shape(&shape, pose, direction, max_distance, &target, target_pose);

                let reference = CastReference {
                    pairs: part_pairs(
                        &reference_parts(&target, target_pose),
                        &reference_parts(&shape, pose),
                    ),
                    direction: direction.as_dvec2(),
                };
                let end = f64::from(max_distance).min(1000.0);
                let touches: Vec<(Option<f64>, f64)> = (reference.pairs.iter())
                    .map(|(_, _, pair)| reference.first_touch(pair, end))
                    .collect();
                let first = touches
                    .iter()
                    .filter_map(|t| t.0)
                    .fold(f64::INFINITY, f64::min);
                let closest_call = touches
                    .iter()
                    .map(|t| t.1.abs())
                    .fold(f64::INFINITY, f64::min);
                if closest_call > MARGIN {
                    compared += 1;
                    assert_eq!(
                        hit.is_some(),
                        first.is_finite(),
                        "{what}: {hit:?}, reference {first}"
                    );
                }
                let Some(hit) = hit else {
                    continue;
                };
                hits += 1;
                let distance = f64::from(hit.distance);
                assert!(
                    (0.0..=max_distance).contains(&hit.distance),
                    "{what}: {hit:?}"
                );
                if first.is_finite() && closest_call > MARGIN {
                    assert!(
                        (distance - first).abs() <= 1e-3 * first.max(1.0),
                        "{what}: {hit:?}, reference first touch {first}"
                    );
                }
                let moved =
                    Isometry2d::new(pose.translation + direction * hit.distance, pose.rotation);
                let (moving, still) = (
                    reference_parts(&shape, moved),
                    reference_parts(&target, target_pose),
                );
                let point = hit.point.as_dvec2();
                if distance == 0.0 {
                    assert!(
                        in_some_part_of_each(point, &moving, &still, TOLERANCE),
                        "{what}: {hit:?}: point outside the overlap"
                    );
                    continue;
                }
                let normal = hit.normal.as_dvec2();
                assert!(
                    normal.dot(direction.as_dvec2()) <= 1e-4,
                    "{what}: {hit:?}: normal along the cast"
                );
                // Some pair of parts touches at the point, and the normal
                // separates them: the target's part reaches no farther
                // along it than the point, the moved part no farther back.
                let separating = still.iter().any(|target_part| {
                    moving.iter().any(|moving_part| {
                        target_part.signed_distance(point).abs() <= TOLERANCE
                            && moving_part.signed_distance(point).abs() <= TOLERANCE
                            && (target_part.support(normal) - normal.dot(point)).abs() <= TOLERANCE
                            && (moving_part.support(-normal) + normal.dot(point)).abs() <= TOLERANCE
                    })
                });
                assert!(
                    separating,
                    "{what}: {hit:?}: no pair of parts touches there with that normal\n{shape:?} at {pose:?}\n{target:?} at {target_pose:?}"
                );
            }
            assert!(
                hits > 80 && compared > 400,
                "{family_a:?}-{family_b:?}: {hits} hits, {compared} compared"
            );
        }
    }
}

/// A ball cast at the tip of a sharp spike of a polyline, from every
/// direction on its convex side: it touches the tip, and the normal points
/// from the tip to the ball (a face's normal there would let it slide into
/// the spike).
#[test]
fn a_ball_cast_at_a_spike_meets_its_tip() {
    let ball = Shape::Circle { radius: 2.0 };
    for opening in [10.0f32, 30.0, 60.0, 100.0, 150.0] {
        let half = opening.to_radians() / 2.0;
        // The tip at the origin, pointing along +x.
        let points = [
            Vec2::from_angle(core::f32::consts::PI - half) * 20.0,
            Vec2::ZERO,
            Vec2::from_angle(core::f32::consts::PI + half) * 20.0,
        ];
        let spike = Shape::Compound(Compound::polyline(&points).unwrap());
        // Directions from the tip where the tip is the nearest point of
        // both sides: at least a right angle from each.
        let reach = core::f32::consts::FRAC_PI_2 - half;
        for k in 0..=40 {
            let angle = -reach + 2.0 * reach * k as f32 / 40.0;
            let from = Vec2::from_angle(angle);
            let start = Isometry2d::from_translation(from * 30.0);
            let direction = Dir2::new(-from).unwrap();
            let hit = cast_shape(&ball, start, direction, 100.0, &spike, Isometry2d::IDENTITY)
                .unwrap_or_else(|| panic!("{opening} degrees, {angle}: missed"));
            assert!(
                (hit.distance - 28.0).abs() < 1e-3,
                "{opening} degrees, {angle}: {hit:?}"
            );
            assert!(
                hit.point.length() < 1e-3,
                "{opening} degrees, {angle}: {hit:?}"
            );
            assert!(
                (hit.normal.as_vec2() - from).length() < 1e-3,
                "{opening} degrees, {angle}: {hit:?}"
            );
            // The polyline cast at the ball meets it the same way.
            let back = cast_shape(
                &spike,
                Isometry2d::IDENTITY,
                -direction,
                100.0,
                &ball,
                start,
            )
            .unwrap_or_else(|| panic!("{opening} degrees, {angle}: missed back"));
            assert!(
                (back.distance - 28.0).abs() < 1e-3,
                "{opening} degrees, {angle}: {back:?}"
            );
            assert!(
                (back.normal.as_vec2() + from).length() < 1e-3,
                "{opening} degrees, {angle}: {back:?}"
            );
        }
    }
}

/// A box's corner cast exactly onto the vertex of a polyline's inside
/// corner, its faces clear of both segments: both segments may leave that
/// touch to the other, and the hit must still be reported.
#[test]
fn a_box_corner_cast_onto_an_inside_corner_is_not_lost() {
    let corner = Vec2::ZERO;
    for (a_deg, c_deg) in [
        (10.0f32, 260.0f32),
        (5.0, 265.0),
        (20.0, 250.0),
        (0.0, 270.0),
    ] {
        let (a, c) = (
            Vec2::from_angle(a_deg.to_radians()) * 10.0,
            Vec2::from_angle(c_deg.to_radians()) * 10.0,
        );
        let line = Shape::Compound(Compound::polyline(&[a, corner, c]).unwrap());
        let box_ = Shape::Rect {
            half_size: Vec2::splat(2.0),
        };
        // The box's top-left corner at (5, -5), moving up-left onto the vertex.
        let start = Isometry2d::from_translation(Vec2::new(5.0, -5.0) + Vec2::new(2.0, -2.0));
        let direction = Dir2::new(Vec2::new(-1.0, 1.0)).unwrap();
        let hit = cast_shape(&box_, start, direction, 100.0, &line, Isometry2d::IDENTITY)
            .unwrap_or_else(|| panic!("{a_deg} / {c_deg}: the box passed into the corner"));
        let expected = 5.0 * core::f32::consts::SQRT_2;
        assert!(
            (hit.distance - expected).abs() < 1e-3,
            "{a_deg} / {c_deg}: {hit:?}"
        );
        assert!(
            hit.normal.dot(*direction) <= 1e-4,
            "{a_deg} / {c_deg}: {hit:?}"
        );
    }
}
