//! Hollow rays ([`Shape::cast_ray_hollow`]) against the f64 reference, for
//! every kind, compounds and polylines.
//!
//! The reference ([`crate::reference`]) sees a shape as its convex parts
//! and shares no code with the casts. Along the ray, each part's signed
//! distance is convex: a golden-section search finds its lowest point and
//! two bisections the stretch where it is at most a level. The ray leaves
//! the union of the parts at the end of the run of stretches that starts at
//! the origin, each starting before the run so far ends. A ray whose origin
//! is clearly outside must give exactly the solid cast's hit; one whose
//! origin is clearly inside must leave between the exits of the shape
//! shrunk and grown by a margin, at the point that far along, with a unit
//! normal along the ray that leads out of the part it leaves.

use bevy::math::{DVec2, Dir2, Isometry2d, Rot2, Vec2};
use rand::{Rng, SeedableRng, rngs::StdRng};

use super::Shape;
use super::chain_reference_tests::{Family, random_shape as random_family_shape};
use super::reference_tests::{Kind, explore_scale, random_shape_of};
use crate::reference::{RefShape, reference_parts};

/// Origins closer than this to a boundary are too close to call in f32.
const MARGIN: f64 = 1e-3;
/// Exits of the shrunk and grown shapes farther apart than this (a ray
/// leaving at a glancing angle, a gap between parts the margin bridges)
/// are too close to call.
const SPREAD: f64 = 0.05;
/// How far the reference looks along a ray: well past every shape.
const HORIZON: f64 = 300.0;

/// The stretch of distances `enter..=exit` within `0..=HORIZON` over which
/// the ray from `o` along `d` is within `level` of `part` (its signed
/// distance at most `level`), if any.
fn part_stretch(part: &RefShape, o: DVec2, d: DVec2, level: f64) -> Option<(f64, f64)> {
    let f = |t: f64| part.signed_distance(o + d * t) - level;
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut lo, mut hi) = (0.0, HORIZON);
    for _ in 0..100 {
        let (m1, m2) = (hi - ratio * (hi - lo), lo + ratio * (hi - lo));
        if f(m1) <= f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let lowest = [0.0, 0.5 * (lo + hi)]
        .into_iter()
        .min_by(|&a, &b| f(a).total_cmp(&f(b)))
        .unwrap();
    if f(lowest) > 0.0 {
        return None;
    }
    // The first inside and the last inside, by bisection from each side.
    let bisect = |mut inside: f64, mut outside: f64| {
        for _ in 0..80 {
            let middle = 0.5 * (inside + outside);
            if f(middle) <= 0.0 {
                inside = middle;
            } else {
                outside = middle;
            }
        }
        inside
    };
    let enter = if f(0.0) <= 0.0 {
        0.0
    } else {
        bisect(lowest, 0.0)
    };
    Some((enter, bisect(lowest, HORIZON)))
}

/// Where the ray from `o` along `d`, starting within `level` of some part,
/// leaves the union of the parts each grown by `level`.
fn reference_exit(parts: &[RefShape], o: DVec2, d: DVec2, level: f64) -> f64 {
    let mut stretches: Vec<(f64, f64)> = (parts.iter())
        .filter_map(|part| part_stretch(part, o, d, level))
        .collect();
    stretches.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut run = 0.0f64;
    for (enter, exit) in stretches {
        if enter > run {
            break;
        }
        run = run.max(exit);
    }
    run
}

/// How the random rays went.
#[derive(Debug, Default)]
struct Tally {
    /// From clearly outside: the solid cast's answer.
    outside: usize,
    /// From clearly inside: a hit compared with the reference's exit.
    exits: usize,
    /// From clearly inside, leaving beyond the ray's length: no hit.
    beyond: usize,
    skipped: usize,
}

/// A random shape of each of the seven families: the five kinds, a
/// compound of them, a polyline.
#[derive(Clone, Copy, Debug)]
enum Draw {
    Kind(Kind),
    Family(Family),
}

fn random_case(rng: &mut StdRng, draw: Draw) -> (Shape, Isometry2d, Vec2, Dir2, f32) {
    let (shape, reach) = match draw {
        Draw::Kind(kind) => (random_shape_of(rng, kind, 6.0), 6.0),
        Draw::Family(family) => (random_family_shape(rng, family), 9.0),
    };
    let pose = Isometry2d::new(
        Vec2::new(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0)),
        Rot2::radians(rng.random_range(-4.0..4.0)),
    );
    // Most origins within the shape's reach, half of them drawn until one
    // is inside (small shapes are mostly missed otherwise).
    let parts = reference_parts(&shape, pose);
    let inside = |p: Vec2| {
        let p = p.as_dvec2();
        parts.iter().any(|part| part.signed_distance(p) < -MARGIN)
    };
    let near = |rng: &mut StdRng| {
        let local = Vec2::new(
            rng.random_range(-reach..reach),
            rng.random_range(-reach..reach),
        );
        pose.transform_point(local)
    };
    let origin = if rng.random_bool(0.5) {
        let mut origin = near(rng);
        for _ in 0..30 {
            if inside(origin) {
                break;
            }
            origin = near(rng);
        }
        origin
    } else if rng.random_bool(0.6) {
        near(rng)
    } else {
        Vec2::new(rng.random_range(-20.0..20.0), rng.random_range(-20.0..20.0))
    };
    let direction = if rng.random_bool(0.25) {
        Dir2::CARDINALS[rng.random_range(0..4)]
    } else {
        Dir2::from_angle(rng.random_range(0.0..core::f32::consts::TAU))
    };
    // Short rays too, many of which end inside.
    let max_distance = if rng.random_bool(0.3) {
        rng.random_range(0.0..reach)
    } else {
        f32::INFINITY
    };
    (shape, pose, origin, direction, max_distance)
}

/// Casts `cases` random hollow rays at shapes drawn by `draw` and checks
/// each against the reference (see the module).
fn check_hollow_rays(seed: u64, cases: usize, draw: Draw) -> Tally {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tally = Tally::default();
    for case in 0..cases {
        let (shape, pose, origin, direction, max_distance) = random_case(&mut rng, draw);
        let actual = shape.cast_ray_hollow(pose, origin, direction, max_distance);
        let describe = || {
            format!(
                "{draw:?} case {case}: {shape:?} {pose:?} {origin} {direction:?} {max_distance}: {actual:?}"
            )
        };
        let parts = reference_parts(&shape, pose);
        let (o, d) = (origin.as_dvec2(), direction.as_vec2().as_dvec2());
        let depth = (parts.iter())
            .map(|part| part.signed_distance(o))
            .fold(f64::INFINITY, f64::min);
        if depth > MARGIN {
            tally.outside += 1;
            let solid = shape.cast_ray(pose, origin, direction, max_distance);
            assert_eq!(actual, solid, "{}", describe());
            continue;
        }
        let (inner, outer) = (
            reference_exit(&parts, o, d, -MARGIN),
            reference_exit(&parts, o, d, MARGIN),
        );
        if depth > -MARGIN || outer - inner > SPREAD {
            tally.skipped += 1;
            continue;
        }
        let limit = f64::from(max_distance);
        if inner > limit + 1e-4 {
            tally.beyond += 1;
            assert_eq!(actual, None, "{}: leaves at {inner}", describe());
            continue;
        }
        if outer > limit - 1e-4 {
            tally.skipped += 1;
            continue;
        }
        tally.exits += 1;
        let hit = actual.unwrap_or_else(|| panic!("{}: leaves at {inner}", describe()));
        let t = f64::from(hit.distance);
        assert!(
            t >= inner - 1e-4 && t <= outer + 1e-4,
            "{}: {t} not in {inner}..={outer}",
            describe()
        );
        let point = hit.point.as_dvec2();
        assert!(point.distance(o + d * t) < 1e-4, "{}", describe());
        let normal = hit.normal.as_vec2().as_dvec2();
        assert!((normal.length() - 1.0).abs() < 1e-5, "{}", describe());
        assert!(normal.dot(d) >= -1e-6, "{}: against the ray", describe());
        // Out of the part it leaves: stepping along the normal clears that
        // part by as much.
        let step = 1e-2;
        let leads_out = parts.iter().any(|part| {
            part.signed_distance(point).abs() <= 1e-3
                && part.signed_distance(point + normal * step) >= 0.9 * step - 1e-4
        });
        assert!(leads_out, "{}: the normal leads out of no part", describe());
    }
    tally
}

/// Every kind, compounds and polylines: clearly outside, as solid; clearly
/// inside, out where the reference leaves.
#[test]
fn hollow_rays_match_an_f64_reference() {
    let scale = explore_scale();
    let cases = 4_000 * scale;
    let draws = Kind::ALL
        .map(Draw::Kind)
        .into_iter()
        .chain([Family::Compound, Family::Polyline].map(Draw::Family));
    for (i, draw) in draws.enumerate() {
        let seed = 4800 + i as u64 + if scale > 1 { 1000 } else { 0 };
        let tally = check_hollow_rays(seed, cases, draw);
        assert!(tally.outside > cases / 20, "{draw:?}: {tally:?}");
        assert!(tally.skipped < cases / 8, "{draw:?}: {tally:?}");
        // Segments and polylines have no inside.
        if !matches!(
            draw,
            Draw::Kind(Kind::Segment) | Draw::Family(Family::Polyline)
        ) {
            assert!(
                tally.exits > cases / 5 && tally.beyond > cases / 100,
                "{draw:?}: {tally:?}"
            );
        }
    }
}
