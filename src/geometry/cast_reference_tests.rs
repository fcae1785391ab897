//! Translational shape casts against an f64 reference, for all 25 ordered
//! pairs of kinds.
//!
//! The reference ([`crate::reference`]) shares no code with the cast: it
//! moves the cast shape along the ray and measures the exact f64 gap to the
//! target with [`RefPair`] (the signed distance of the explicit hull of all
//! pairwise differences of core points, minus the radii). That gap is convex
//! along the ray, so a ternary search finds its smallest value (a miss if it
//! is positive) and a bisection the first distance where it reaches zero.

use bevy::math::{DVec2, Dir2, Isometry2d, Rot2, Vec2};
use rand::{Rng, SeedableRng, rngs::StdRng};

use super::reference_tests::{Kind, explore_scale, random_shape_of};
use super::{Shape, ShapeCastHit, cast_shape};
use crate::reference::{RefPair, reference};

const CASES_PER_KIND_PAIR: usize = 400;
/// Gaps closer than this to zero are too close to call in f32: whether such
/// a cast hits is not compared.
const MARGIN: f64 = 1e-3;
/// Tolerance on the distance, relative (to at least the test's scale).
const DISTANCE_TOLERANCE: f64 = 1e-4;
/// Tolerance on the point and the normal (world units).
const TOLERANCE: f64 = 1e-3;

/// One cast: `shape` from `pose` along `direction`, up to
/// `max_distance`, onto `target` at `target_pose`.
#[derive(Debug)]
struct Cast {
    shape: Shape,
    pose: Isometry2d,
    direction: Dir2,
    max_distance: f32,
    target: Shape,
    target_pose: Isometry2d,
}

/// The f64 answer: `Some(distance)` of the first touch, `None` for a miss,
/// and the smallest gap along the cast.
struct Reference {
    distance: Option<f64>,
    smallest_gap: f64,
    /// The gap along the ray at a distance.
    pair: RefPair,
    direction: DVec2,
}

impl Reference {
    fn new(cast: &Cast) -> Self {
        let pair = RefPair::new(
            &reference(&cast.target, cast.target_pose),
            &reference(&cast.shape, cast.pose),
        );
        let direction = cast.direction.as_dvec2();
        let mut reference = Self {
            distance: None,
            smallest_gap: 0.0,
            pair,
            direction,
        };
        // Beyond 1000 the shapes (within about 100 of the origin) are far
        // apart again.
        let end = f64::from(cast.max_distance).min(1000.0);
        if reference.gap(0.0) <= 0.0 {
            reference.distance = Some(0.0);
            reference.smallest_gap = reference.gap(0.0);
            return reference;
        }
        // Ternary search for the smallest gap (convex along the ray).
        let (mut lo, mut hi) = (0.0, end);
        for _ in 0..200 {
            let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
            if reference.gap(m1) < reference.gap(m2) {
                hi = m2;
            } else {
                lo = m1;
            }
        }
        let lowest = 0.5 * (lo + hi);
        // The end itself may be lowest (a cast cut short).
        let (lowest, smallest) = [(lowest, reference.gap(lowest)), (end, reference.gap(end))]
            .into_iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap();
        reference.smallest_gap = smallest;
        if smallest <= 0.0 {
            let (mut apart, mut touching) = (0.0, lowest);
            for _ in 0..200 {
                let middle = 0.5 * (apart + touching);
                if reference.gap(middle) <= 0.0 {
                    touching = middle;
                } else {
                    apart = middle;
                }
            }
            reference.distance = Some(touching);
        }
        reference
    }

    /// The gap with the cast shape moved by `distance` along the ray (the
    /// pair is (target, shape): the second one moves).
    fn gap(&self, distance: f64) -> f64 {
        self.pair.gap_after(self.direction * distance)
    }
}

fn random_pose(rng: &mut StdRng, spread: f32) -> Isometry2d {
    Isometry2d::new(
        Vec2::new(
            rng.random_range(-spread..spread),
            rng.random_range(-spread..spread),
        ),
        Rot2::radians(rng.random_range(-7.0..7.0)),
    )
}

/// Checks one cast against the reference; returns (hit, compared).
fn check_cast(what: &str, cast: &Cast, tolerance_scale: f64) -> (bool, bool) {
    let describe = || format!("{what}: {cast:?}");
    let Cast {
        ref shape,
        pose,
        direction,
        max_distance,
        ref target,
        target_pose,
    } = *cast;
    let hit = cast_shape(shape, pose, direction, max_distance, target, target_pose);
    let expected = Reference::new(cast);
    let margin = MARGIN * tolerance_scale;
    let compared = expected.smallest_gap.abs() > margin;
    if compared {
        assert_eq!(
            hit.is_some(),
            expected.distance.is_some(),
            "{}: {hit:?}, reference {:?} (smallest gap {})",
            describe(),
            expected.distance,
            expected.smallest_gap
        );
    }
    let Some(hit) = hit else {
        return (false, compared);
    };
    let ShapeCastHit {
        distance,
        point,
        normal,
    } = hit;
    let tolerance = TOLERANCE * tolerance_scale;
    assert!(
        (0.0..=max_distance).contains(&distance),
        "{}: {hit:?}",
        describe()
    );
    let normal = normal.as_dvec2();
    assert!(
        (normal.length() - 1.0).abs() < 1e-5,
        "{}: {hit:?}",
        describe()
    );
    let distance = f64::from(distance);
    // The distance: where the reference gap reaches zero. Where the gap
    // closes slowly (a glancing touch), the distance is ill-conditioned and
    // only the gap there is compared.
    if let Some(reference_distance) = expected.distance {
        let closing = (expected.gap((reference_distance - 1e-3).max(0.0))
            - expected.gap(reference_distance))
            / 1e-3;
        if reference_distance == 0.0 || closing > 0.05 {
            assert!(
                (distance - reference_distance).abs()
                    <= DISTANCE_TOLERANCE * reference_distance.max(tolerance_scale),
                "{}: {hit:?}, reference distance {reference_distance}",
                describe()
            );
        }
    }
    let gap = expected.gap(distance);
    assert!(
        gap.abs() <= tolerance || (distance == 0.0 && gap <= 0.0),
        "{}: {hit:?}: gap {gap} at the hit",
        describe()
    );
    let moved = Isometry2d::new(pose.translation + direction * hit.distance, pose.rotation);
    let (moving, still) = (reference(shape, moved), reference(target, target_pose));
    let p = point.as_dvec2();
    if distance > 0.0 {
        // On both shapes, and the normal the target's outward normal there:
        // the target reaches no farther along it than the point, the moved
        // shape no farther back; and against the direction of the cast.
        for (name, off) in [
            ("cast shape", moving.signed_distance(p)),
            ("target", still.signed_distance(p)),
        ] {
            assert!(
                off.abs() <= tolerance,
                "{}: {hit:?}: point {off} off the {name}",
                describe()
            );
        }
        let beyond_target = still.support(normal) - normal.dot(p);
        let behind_shape = moving.support(-normal) + normal.dot(p);
        assert!(
            beyond_target.abs() <= tolerance && behind_shape.abs() <= tolerance,
            "{}: {hit:?}: normal does not separate them ({beyond_target}, {behind_shape})",
            describe()
        );
        assert!(
            normal.dot(direction.as_dvec2()) <= 1e-4,
            "{}: {hit:?}: normal along the cast",
            describe()
        );
    } else {
        for off in [moving.signed_distance(p), still.signed_distance(p)] {
            assert!(
                off <= tolerance,
                "{}: {hit:?}: point {off} outside",
                describe()
            );
        }
    }
    (true, compared)
}

fn check_kinds(seed: u64, kind_a: Kind, kind_b: Kind) {
    let seed = seed + if explore_scale() > 1 { 1000 } else { 0 };
    let mut rng = StdRng::seed_from_u64(seed);
    let cases = CASES_PER_KIND_PAIR * explore_scale();
    let (mut hits, mut compared) = (0, 0);
    for case in 0..cases {
        let shape = random_shape_of(&mut rng, kind_a, 6.0);
        let target = random_shape_of(&mut rng, kind_b, 6.0);
        let target_pose = random_pose(&mut rng, 10.0);
        let pose = random_pose(&mut rng, 40.0);
        // Aimed near the target, so that about half hit; now and then
        // straight at it, or from close by (often overlapping).
        let pose = if case % 10 == 0 {
            Isometry2d::new(
                target_pose.translation
                    + Vec2::new(rng.random_range(-4.0..4.0), rng.random_range(-4.0..4.0)),
                pose.rotation,
            )
        } else {
            pose
        };
        let aim = target_pose.translation
            + Vec2::new(rng.random_range(-9.0..9.0), rng.random_range(-9.0..9.0));
        let direction = Dir2::new(aim - pose.translation).unwrap_or(Dir2::X);
        let max_distance = match case % 3 {
            0 => f32::INFINITY,
            _ => rng.random_range(0.0..70.0),
        };
        let (hit, was_compared) = check_cast(
            &format!("{kind_a:?}-{kind_b:?} case {case}"),
            &Cast {
                shape,
                pose,
                direction,
                max_distance,
                target,
                target_pose,
            },
            1.0,
        );
        hits += usize::from(hit);
        compared += usize::from(was_compared);
    }
    assert!(
        hits > cases / 5 && hits < cases * 9 / 10,
        "{kind_a:?}-{kind_b:?}: {hits} hits of {cases}"
    );
    assert!(
        compared > cases * 9 / 10,
        "{kind_a:?}-{kind_b:?}: {compared} compared of {cases}"
    );
}

#[test]
fn casts_of_every_kind_pair_match_reference() {
    for (ia, &kind_a) in Kind::ALL.iter().enumerate() {
        for (ib, &kind_b) in Kind::ALL.iter().enumerate() {
            check_kinds(300 + 10 * ia as u64 + ib as u64, kind_a, kind_b);
        }
    }
}

/// A cast of a `kinds.0` shape onto a `kinds.1` target, both about
/// `6 * scale` across: the target within `10 * scale` of `offset`, the shape
/// within `spread * scale` of it, aimed near the target, reaching infinitely.
fn aimed_cast(
    rng: &mut StdRng,
    kinds: (Kind, Kind),
    scale: f32,
    spread: f32,
    offset: Vec2,
) -> Cast {
    let shape = random_shape_of(rng, kinds.0, 6.0 * scale);
    let target = random_shape_of(rng, kinds.1, 6.0 * scale);
    let place =
        |pose: Isometry2d| Isometry2d::new(pose.translation * scale + offset, pose.rotation);
    let target_pose = place(random_pose(rng, 10.0));
    let pose = place(random_pose(rng, spread));
    let aim = target_pose.translation
        + scale * Vec2::new(rng.random_range(-9.0..9.0), rng.random_range(-9.0..9.0));
    Cast {
        shape,
        pose,
        direction: Dir2::new(aim - pose.translation).unwrap_or(Dir2::X),
        max_distance: f32::INFINITY,
        target,
        target_pose,
    }
}

/// Far from the origin (about 1e4), with tolerances scaled by how much
/// f32 rounds there (the shapes are placed in f32 world coordinates; the
/// reference sees the same rounded poses).
#[test]
fn casts_far_from_the_origin_match_reference() {
    let mut rng = StdRng::seed_from_u64(77);
    let far = Vec2::new(1.0e4, -1.3e4);
    for case in 0..500 {
        let kinds = (Kind::ALL[case % 5], Kind::ALL[(case / 5) % 5]);
        let cast = aimed_cast(&mut rng, kinds, 1.0, 30.0, far);
        // f32 steps at 1e4 are 1e-3: positions round by that much.
        check_cast(&format!("far {kinds:?} case {case}"), &cast, 10.0);
    }
}

/// Tiny shapes near the origin: everything 1e-3 the size, tolerances too.
#[test]
fn tiny_casts_match_reference() {
    let mut rng = StdRng::seed_from_u64(78);
    for case in 0..500 {
        let kinds = (Kind::ALL[case % 5], Kind::ALL[(case / 5) % 5]);
        let cast = aimed_cast(&mut rng, kinds, 1e-3, 40.0, Vec2::ZERO);
        check_cast(&format!("tiny {kinds:?} case {case}"), &cast, 1e-3);
    }
}
