//! `--scene queries`: the same batches of spatial queries through each
//! engine's query API, on a still scene of the level's static tiles
//! (default 9,000 of side 8 in 164 x 164 cells) and N circles and rectangles
//! over them (default 1,000): 10,000 colliders.
//!
//! Three batches of `--batch` queries each (default 1,000), seeded:
//! - rays: every collider hit within 100 units of a random origin in a
//!   random direction, nearest first (ours `ray_hits`; avian2d `ray_hits`,
//!   then sorted; bevy_rapier2d `intersect_ray` into a list, then sorted),
//!   solid (a ray starting inside a collider hits it at 0);
//! - points: the nearest collider to a random point, whether the point is
//!   inside (ours `project_point`; the peers' `project_point`, solid);
//! - regions: the colliders whose bounding boxes meet a random box of side
//!   4 to 64 (ours `aabb_hits`; avian2d `aabb_intersections_with_aabb`;
//!   bevy_rapier2d `intersect_aabb_conservative`).
//!
//! Each engine's app is set up as in the detection comparison (`ours.rs`,
//! `avian.rs`, `rapier.rs`: tiles static, movers kinematic), updated twice so
//! its query structures hold the scene, and then each batch runs as a
//! one-shot system, engines in rotating order, `--frames` rounds (default
//! 30); the median time per batch is printed.
//!
//! Every answer is checked against a brute-force truth in f64 over all
//! colliders, with a tolerance of 1e-3 units: a collider counts as
//! hit (or in a region, or containing a point) when it is with every shape
//! shrunk by that much, and as not hit when it is not with every shape grown
//! by that much; in between, either answer is right. A hit's distance must
//! lie between where the ray enters the collider grown and shrunk by that
//! much, to 1e-2 (a ray that grazes a collider may enter it anywhere along
//! the graze); projection distances must agree with the truth's to 1e-2.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bevy::ecs::system::SystemId;
use bevy::math::DVec2;
use bevy::prelude::*;
use bevy::shape::Aabb2d;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::level::Level;
use crate::scene::{Body, BodyShape, CompoundParts, base_app};
use crate::{avian, ours, rapier};

/// A ray's length.
const RAY_LENGTH: f32 = 100.0;
/// More than any ray here hits, so every engine returns them all.
const MAX_HITS: usize = 1024;
const TOLERANCE: f64 = 1e-3;
const DISTANCE_TOLERANCE: f64 = 1e-2;

pub struct QueryOptions {
    pub batch: usize,
    pub rounds: usize,
    pub seed: u64,
    pub engines: Option<Vec<String>>,
}

/// A ray: origin, direction and length.
pub type Ray = (Vec2, Dir2, f32);

/// The queries every engine answers.
#[derive(Resource, Clone, Default)]
pub struct Batch {
    pub rays: Vec<Ray>,
    pub points: Vec<Vec2>,
    pub regions: Vec<Aabb2d>,
}

/// An engine's answers to the last batch it ran.
#[derive(Resource, Default)]
pub struct Answers {
    /// Each ray's hits, nearest first: entity and distance.
    pub rays: Vec<Vec<(Entity, f32)>>,
    /// Each point's nearest collider: whether the point is inside it, and
    /// its distance (0 inside, for the solid peers).
    pub points: Vec<Option<(bool, f32)>>,
    pub regions: Vec<Vec<Entity>>,
}

const KINDS: [&str; 3] = ["rays", "points", "regions"];

struct QueryEngine {
    name: &'static str,
    setup: fn(&mut App),
    spawn: fn(&mut World, &[Body]) -> Vec<Entity>,
    spawn_tiles: fn(&mut World, &Level) -> Vec<Entity>,
    /// The three batches, as systems.
    register: fn(&mut World) -> [SystemId; 3],
}

const ENGINES: [QueryEngine; 3] = [
    QueryEngine {
        name: "bevy_collide2d",
        setup: ours::setup,
        spawn: ours::spawn,
        spawn_tiles: ours::spawn_tiles,
        register: |world| {
            [
                world.register_system(ours_rays),
                world.register_system(ours_points),
                world.register_system(ours_regions),
            ]
        },
    },
    QueryEngine {
        name: "avian2d",
        setup: avian::setup,
        spawn: avian::spawn,
        spawn_tiles: avian::spawn_tiles,
        register: |world| {
            [
                world.register_system(avian_rays),
                world.register_system(avian_points),
                world.register_system(avian_regions),
            ]
        },
    },
    QueryEngine {
        name: "bevy_rapier2d",
        setup: rapier::setup,
        spawn: rapier::spawn,
        spawn_tiles: rapier::spawn_tiles,
        register: |world| {
            [
                world.register_system(rapier_rays),
                world.register_system(rapier_points),
                world.register_system(rapier_regions),
            ]
        },
    },
];

fn ours_rays(
    spatial: bevy_collide2d::SpatialQuery,
    batch: Res<Batch>,
    mut answers: ResMut<Answers>,
) {
    let filter = bevy_collide2d::QueryFilter::default();
    answers.rays = ours_ray_hits(&spatial, &batch.rays, &filter);
}

/// Every hit of each ray (ours `ray_hits`), nearest first.
pub fn ours_ray_hits(
    spatial: &bevy_collide2d::SpatialQuery,
    rays: &[Ray],
    filter: &bevy_collide2d::QueryFilter,
) -> Vec<Vec<(Entity, f32)>> {
    (rays.iter())
        .map(|&(origin, direction, length)| {
            (spatial.ray_hits(origin, direction, length, MAX_HITS, filter))
                .into_iter()
                .map(|hit| (hit.entity, hit.distance))
                .collect()
        })
        .collect()
}

fn ours_points(
    spatial: bevy_collide2d::SpatialQuery,
    batch: Res<Batch>,
    mut answers: ResMut<Answers>,
) {
    let filter = bevy_collide2d::QueryFilter::default();
    answers.points = ours_projections(&spatial, &batch.points, &filter);
}

/// The nearest collider to each point (ours `project_point`): inside, and
/// the distance (0 inside).
pub fn ours_projections(
    spatial: &bevy_collide2d::SpatialQuery,
    points: &[Vec2],
    filter: &bevy_collide2d::QueryFilter,
) -> Vec<Option<(bool, f32)>> {
    (points.iter())
        .map(|&point| {
            let found = spatial.project_point(point, filter)?;
            Some((
                found.inside,
                if found.inside { 0.0 } else { found.distance },
            ))
        })
        .collect()
}

fn ours_regions(
    spatial: bevy_collide2d::SpatialQuery,
    batch: Res<Batch>,
    mut answers: ResMut<Answers>,
) {
    let filter = bevy_collide2d::QueryFilter::default();
    answers.regions = (batch.regions.iter())
        .map(|&region| spatial.aabb_hits(region, &filter))
        .collect();
}

fn avian_rays(
    spatial: avian2d::prelude::SpatialQuery,
    batch: Res<Batch>,
    mut answers: ResMut<Answers>,
) {
    let filter = avian2d::prelude::SpatialQueryFilter::default();
    answers.rays = avian_ray_hits(&spatial, &batch.rays, &filter);
}

/// Every hit of each ray (avian2d `ray_hits`, solid), sorted nearest
/// first.
pub fn avian_ray_hits(
    spatial: &avian2d::prelude::SpatialQuery,
    rays: &[Ray],
    filter: &avian2d::prelude::SpatialQueryFilter,
) -> Vec<Vec<(Entity, f32)>> {
    (rays.iter())
        .map(|&(origin, direction, length)| {
            let hits = spatial.ray_hits(origin, direction, length, MAX_HITS as u32, true, filter);
            sorted(hits.into_iter().map(|hit| (hit.entity, hit.distance)))
        })
        .collect()
}

fn avian_points(
    spatial: avian2d::prelude::SpatialQuery,
    batch: Res<Batch>,
    mut answers: ResMut<Answers>,
) {
    let filter = avian2d::prelude::SpatialQueryFilter::default();
    answers.points = avian_projections(&spatial, &batch.points, &filter);
}

/// The nearest collider to each point (avian2d `project_point`, solid).
pub fn avian_projections(
    spatial: &avian2d::prelude::SpatialQuery,
    points: &[Vec2],
    filter: &avian2d::prelude::SpatialQueryFilter,
) -> Vec<Option<(bool, f32)>> {
    (points.iter())
        .map(|&point| {
            let found = spatial.project_point(point, true, filter)?;
            Some((found.is_inside, found.point.distance(point)))
        })
        .collect()
}

fn avian_regions(
    spatial: avian2d::prelude::SpatialQuery,
    batch: Res<Batch>,
    mut answers: ResMut<Answers>,
) {
    answers.regions = (batch.regions.iter())
        .map(|region| {
            let aabb = avian2d::prelude::ColliderAabb::from_min_max(region.min, region.max);
            spatial.aabb_intersections_with_aabb(aabb)
        })
        .collect();
}

fn rapier_rays(
    context: bevy_rapier2d::prelude::ReadRapierContext,
    batch: Res<Batch>,
    mut answers: ResMut<Answers>,
) {
    let filter = bevy_rapier2d::prelude::QueryFilter::default();
    answers.rays = rapier_ray_hits(&context, &batch.rays, filter);
}

/// Every hit of each ray (bevy_rapier2d `intersect_ray` into a list,
/// solid), sorted nearest first.
pub fn rapier_ray_hits(
    context: &bevy_rapier2d::prelude::ReadRapierContext,
    rays: &[Ray],
    filter: bevy_rapier2d::prelude::QueryFilter,
) -> Vec<Vec<(Entity, f32)>> {
    let context = context.single().expect("one rapier context");
    (rays.iter())
        .map(|&(origin, direction, length)| {
            let mut hits = Vec::new();
            context.intersect_ray(origin, *direction, length, true, filter, |e, _, hit| {
                hits.push((e, hit.time_of_impact));
                true
            });
            sorted(hits.into_iter())
        })
        .collect()
}

fn rapier_points(
    context: bevy_rapier2d::prelude::ReadRapierContext,
    batch: Res<Batch>,
    mut answers: ResMut<Answers>,
) {
    let filter = bevy_rapier2d::prelude::QueryFilter::default();
    answers.points = rapier_projections(&context, &batch.points, filter);
}

/// The nearest collider to each point (bevy_rapier2d `project_point`,
/// solid).
pub fn rapier_projections(
    context: &bevy_rapier2d::prelude::ReadRapierContext,
    points: &[Vec2],
    filter: bevy_rapier2d::prelude::QueryFilter,
) -> Vec<Option<(bool, f32)>> {
    let context = context.single().expect("one rapier context");
    (points.iter())
        .map(|&point| {
            let (_, found) = context.project_point(point, f32::MAX, true, filter)?;
            Some((found.is_inside, found.point.distance(point)))
        })
        .collect()
}

fn rapier_regions(
    context: bevy_rapier2d::prelude::ReadRapierContext,
    batch: Res<Batch>,
    mut answers: ResMut<Answers>,
) {
    let context = context.single().expect("one rapier context");
    answers.regions = (batch.regions.iter())
        .map(|&region| {
            let mut found = Vec::new();
            let filter = bevy_rapier2d::prelude::QueryFilter::default();
            context.intersect_aabb_conservative(region, filter, |e, _| {
                found.push(e);
                true
            });
            found
        })
        .collect();
}

/// Hits nearest first, as ours returns them.
fn sorted(hits: impl Iterator<Item = (Entity, f32)>) -> Vec<(Entity, f32)> {
    let mut hits: Vec<_> = hits.collect();
    hits.sort_unstable_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    hits
}

/// A collider's part in f64, for the truth: a circle, a rectangle or a
/// capsule (a segment is a capsule of radius 0), turned by its angle.
#[derive(Clone, Copy)]
pub struct TruthShape {
    centre: DVec2,
    /// The part's x axis (cos, sin of its angle).
    axis: DVec2,
    kind: TruthKind,
}

#[derive(Clone, Copy)]
enum TruthKind {
    Circle(f64),
    Rect(DVec2),
    /// The points within `radius` of the core from `(0, -half_length)` to
    /// `(0, half_length)` (local y). Radius 0 is the core itself (a
    /// segment); a negative radius, a segment shrunk by as much at both
    /// ends (for the hits that are certain).
    Capsule {
        half_length: f64,
        radius: f64,
    },
}

/// A collider for the truth: its parts (one, or a compound's or a
/// polyline's several).
pub type TruthCollider = Vec<TruthShape>;

impl TruthShape {
    /// A circle, rectangle, capsule or segment at `position`, turned by
    /// `angle`.
    pub fn new(shape: &BodyShape, position: Vec2, angle: f32) -> Self {
        let angle = angle as f64;
        let axis = DVec2::new(angle.cos(), angle.sin());
        let centre = position.as_dvec2();
        let kind = match *shape {
            BodyShape::Circle { radius } => TruthKind::Circle(radius as f64),
            BodyShape::Rect { half_size } => TruthKind::Rect(half_size.as_dvec2()),
            BodyShape::Capsule {
                radius,
                half_length,
            } => TruthKind::Capsule {
                half_length: half_length as f64,
                radius: radius as f64,
            },
            BodyShape::Segment { a, b } => {
                let place = |p: Vec2| centre + axis.rotate(p.as_dvec2());
                let (a, b) = (place(a), place(b));
                let along = (b - a).normalize();
                return Self {
                    centre: (a + b) / 2.0,
                    // Local y along the segment.
                    axis: DVec2::new(along.y, -along.x),
                    kind: TruthKind::Capsule {
                        half_length: a.distance(b) / 2.0,
                        radius: 0.0,
                    },
                };
            }
            BodyShape::Compound(_) | BodyShape::Polygon(_) => {
                panic!("{shape:?}: take a compound apart first (`parts`); no polygons here")
            }
        };
        Self { centre, axis, kind }
    }

    /// The parts of a body of `shape` at `transform` (its translation, and
    /// the angle of its matrix's x axis).
    pub fn parts(shape: &BodyShape, transform: &GlobalTransform) -> TruthCollider {
        let position = transform.translation().truncate();
        let x_axis = transform.affine().matrix3.x_axis;
        let angle = x_axis.y.atan2(x_axis.x);
        match shape {
            BodyShape::Compound(CompoundParts(parts)) => (parts.iter())
                .map(|part| {
                    let at = position + Vec2::from_angle(angle).rotate(part.offset);
                    Self::new(&part.shape.body_shape(), at, angle + part.angle)
                })
                .collect(),
            shape => vec![Self::new(shape, position, angle)],
        }
    }

    /// The shape grown by `margin` (shrunk when negative).
    fn grown(mut self, margin: f64) -> Self {
        self.kind = match self.kind {
            TruthKind::Circle(r) => TruthKind::Circle(r + margin),
            TruthKind::Rect(h) => TruthKind::Rect(h + margin),
            TruthKind::Capsule {
                half_length,
                radius,
            } => TruthKind::Capsule {
                half_length,
                radius: radius + margin,
            },
        };
        self
    }

    fn local(&self, p: DVec2) -> DVec2 {
        self.local_direction(p - self.centre)
    }

    /// `d` turned by minus the collider's angle.
    fn local_direction(&self, d: DVec2) -> DVec2 {
        DVec2::new(d.dot(self.axis), -d.perp_dot(self.axis))
    }

    fn contains(&self, p: DVec2) -> bool {
        let q = self.local(p);
        match self.kind {
            TruthKind::Circle(r) => q.length() <= r,
            TruthKind::Rect(h) => q.x.abs() <= h.x && q.y.abs() <= h.y,
            TruthKind::Capsule {
                half_length,
                radius,
            } => radius > 0.0 && core_distance(q, half_length) <= radius,
        }
    }

    /// Distance from `p` to the shape (0 inside).
    fn distance(&self, p: DVec2) -> f64 {
        let q = self.local(p);
        match self.kind {
            TruthKind::Circle(r) => (q.length() - r).max(0.0),
            TruthKind::Rect(h) => (q.abs() - h).max(DVec2::ZERO).length(),
            TruthKind::Capsule {
                half_length,
                radius,
            } => (core_distance(q, half_length) - radius).max(0.0),
        }
    }

    /// Where the solid shape first meets the ray, within `max`.
    fn ray(&self, origin: DVec2, direction: DVec2, max: f64) -> Option<f64> {
        let o = self.local(origin);
        let d = self.local_direction(direction);
        let t = match self.kind {
            TruthKind::Circle(r) => ray_circle(o, d, r)?,
            TruthKind::Rect(h) => ray_rect(o, d, h)?,
            TruthKind::Capsule {
                half_length,
                radius,
            } if radius > 0.0 => {
                // The union of the two caps and the box between them.
                let cap = |y: f64| ray_circle(o - DVec2::new(0.0, y), d, radius);
                [
                    cap(half_length),
                    cap(-half_length),
                    ray_rect(o, d, DVec2::new(radius, half_length)),
                ]
                .into_iter()
                .flatten()
                .reduce(f64::min)?
            }
            TruthKind::Capsule {
                half_length,
                radius,
            } => {
                // A segment (shortened by -radius): where the ray crosses it.
                if d.x == 0.0 {
                    return None;
                }
                let t = -o.x / d.x;
                if t < 0.0 || (o.y + t * d.y).abs() > half_length + radius {
                    return None;
                }
                t
            }
        };
        (t <= max).then_some(t)
    }

    fn aabb(&self) -> (DVec2, DVec2) {
        let (c, s) = (self.axis.x.abs(), self.axis.y.abs());
        let half = match self.kind {
            TruthKind::Circle(r) => DVec2::splat(r),
            TruthKind::Rect(h) => DVec2::new(c * h.x + s * h.y, s * h.x + c * h.y),
            TruthKind::Capsule {
                half_length,
                radius,
            } => DVec2::new(s * half_length, c * half_length) + radius.max(0.0),
        };
        (self.centre - half, self.centre + half)
    }
}

/// Distance from local point `q` to the core from `(0, -h)` to `(0, h)`.
fn core_distance(q: DVec2, h: f64) -> f64 {
    DVec2::new(q.x, q.y - q.y.clamp(-h, h)).length()
}

/// Where a ray from `o` along unit `d` enters the solid circle of radius
/// `r` about the origin (0 from inside).
fn ray_circle(o: DVec2, d: DVec2, r: f64) -> Option<f64> {
    let c = o.length_squared() - r * r;
    if c <= 0.0 {
        return Some(0.0);
    }
    let b = o.dot(d);
    let disc = b * b - c;
    if b > 0.0 || disc < 0.0 {
        return None;
    }
    Some(-b - disc.sqrt())
}

/// Where a ray from `o` along `d` enters the solid box of half size `h`
/// about the origin (0 from inside).
fn ray_rect(o: DVec2, d: DVec2, h: DVec2) -> Option<f64> {
    let (mut enter, mut exit) = (0.0f64, f64::INFINITY);
    for axis in 0..2 {
        let (o, d, h) = (o[axis], d[axis], h[axis]);
        if d == 0.0 {
            if o.abs() > h {
                return None;
            }
        } else {
            let (t1, t2) = ((-h - o) / d, (h - o) / d);
            enter = enter.max(t1.min(t2));
            exit = exit.min(t1.max(t2));
        }
    }
    (enter <= exit).then_some(enter)
}

/// Prints the first few wrong answers with `COMPARE_EXPLAIN=1`.
fn explain(what: std::fmt::Arguments) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static SHOWN: AtomicUsize = AtomicUsize::new(0);
    if std::env::var_os("COMPARE_EXPLAIN").is_some() && SHOWN.fetch_add(1, Ordering::Relaxed) < 12 {
        eprintln!("{what}");
    }
}

/// The box of all of a collider's parts.
fn collider_aabb(parts: &[TruthShape]) -> (DVec2, DVec2) {
    (parts.iter()).map(TruthShape::aabb).fold(
        (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
        |(lo, hi), (a, b)| (lo.min(a), hi.max(b)),
    )
}

fn boxes_meet(a: (DVec2, DVec2), region: &Aabb2d, margin: f64) -> bool {
    let (min, max) = (region.min.as_dvec2(), region.max.as_dvec2());
    a.0.x <= max.x + margin
        && a.1.x >= min.x - margin
        && a.0.y <= max.y + margin
        && a.1.y >= min.y - margin
}

/// How an engine's answers compare with the truth.
#[derive(Default, Debug, Clone, Copy)]
pub struct Check {
    /// Colliders the truth must have that the engine left out.
    pub missing: usize,
    /// Colliders the engine gave that the truth cannot have.
    pub extra: usize,
    /// Distances off by more than the tolerance.
    pub distance: usize,
    /// Points said inside (or outside) that are not.
    pub inside: usize,
}

impl Check {
    pub fn is_exact(&self) -> bool {
        self.missing + self.extra + self.distance + self.inside == 0
    }

    pub fn add(&mut self, other: &Self) {
        self.missing += other.missing;
        self.extra += other.extra;
        self.distance += other.distance;
        self.inside += other.inside;
    }
}

/// The answers to `batch` against the truth of `colliders` (what the
/// queries see), `index` giving each entity's collider: rays, points and
/// regions.
pub fn check(
    answers: &Answers,
    batch: &Batch,
    colliders: &[TruthCollider],
    index: &HashMap<Entity, usize>,
) -> [Check; 3] {
    let shrunk: Vec<TruthCollider> = (colliders.iter())
        .map(|parts| parts.iter().map(|s| s.grown(-TOLERANCE)).collect())
        .collect();
    let grown: Vec<TruthCollider> = (colliders.iter())
        .map(|parts| parts.iter().map(|s| s.grown(TOLERANCE)).collect())
        .collect();
    let boxes: Vec<(DVec2, DVec2)> = grown.iter().map(|parts| collider_aabb(parts)).collect();
    let first_hit = |parts: &[TruthShape], o: DVec2, d: DVec2, max: f64| {
        (parts.iter())
            .filter_map(|s| s.ray(o, d, max))
            .reduce(f64::min)
    };
    let mut result = [Check::default(), Check::default(), Check::default()];

    for (hits, &(origin, direction, length)) in answers.rays.iter().zip(&batch.rays) {
        let (o, d) = (origin.as_dvec2(), direction.as_dvec2());
        let max = length as f64;
        let end = o + d * max;
        let reach = Aabb2d {
            min: o.min(end).as_vec2(),
            max: o.max(end).as_vec2(),
        };
        let found: HashMap<usize, f32> = (hits.iter())
            .filter_map(|&(e, t)| Some((*index.get(&e)?, t)))
            .collect();
        let check = &mut result[0];
        for (i, parts) in colliders.iter().enumerate() {
            if !boxes_meet(boxes[i], &reach, TOLERANCE) {
                if found.contains_key(&i) {
                    check.extra += 1;
                }
                continue;
            }
            let sure = first_hit(&shrunk[i], o, d, max - TOLERANCE);
            let possible = first_hit(&grown[i], o, d, max + TOLERANCE);
            match (found.get(&i), possible) {
                (None, _) if sure.is_some() => check.missing += 1,
                (Some(_), None) => check.extra += 1,
                (Some(&t), Some(earliest)) => {
                    // Between where the ray enters the grown and the shrunk
                    // collider (a ray that grazes it may enter anywhere
                    // along the graze).
                    let t = t as f64;
                    let latest = first_hit(&shrunk[i], o, d, f64::INFINITY);
                    if t < earliest - DISTANCE_TOLERANCE
                        || latest.is_some_and(|latest| t > latest + DISTANCE_TOLERANCE)
                    {
                        check.distance += 1;
                        explain(format_args!(
                            "ray from {origin} along {direction:?} ({length}): hit at {t}, the truth between {earliest} and {latest:?}, on a collider of {} parts",
                            parts.len()
                        ));
                    }
                }
                (None, _) => {}
            }
        }
        check.extra += hits.len() - found.len();
    }

    for (found, &point) in answers.points.iter().zip(&batch.points) {
        let p = point.as_dvec2();
        let check = &mut result[1];
        let inside = |colliders: &[TruthCollider]| {
            (colliders.iter()).any(|parts| parts.iter().any(|s| s.contains(p)))
        };
        let (surely_inside, possibly_inside) = (inside(&shrunk), inside(&grown));
        let nearest = (colliders.iter().flatten())
            .map(|s| s.distance(p))
            .fold(f64::INFINITY, f64::min);
        match *found {
            None => check.missing += 1,
            Some((inside, distance)) => {
                if (inside && !possibly_inside) || (!inside && surely_inside) {
                    check.inside += 1;
                }
                if !inside && (distance as f64 - nearest).abs() > DISTANCE_TOLERANCE {
                    check.distance += 1;
                }
            }
        }
    }

    let exact_boxes: Vec<(DVec2, DVec2)> =
        colliders.iter().map(|parts| collider_aabb(parts)).collect();
    for (found, region) in answers.regions.iter().zip(&batch.regions) {
        let found: Vec<usize> = found.iter().filter_map(|e| index.get(e).copied()).collect();
        let check = &mut result[2];
        let mut seen = vec![false; colliders.len()];
        for &i in &found {
            seen[i] = true;
            if !boxes_meet(exact_boxes[i], region, TOLERANCE) {
                check.extra += 1;
            }
        }
        for (i, aabb) in exact_boxes.iter().enumerate() {
            if !seen[i] && boxes_meet(*aabb, region, -TOLERANCE) {
                check.missing += 1;
            }
        }
    }
    result
}

fn make_batch(options: &QueryOptions, half_side: f32) -> Batch {
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed ^ 0x0051_e7e5);
    let point = |rng: &mut ChaCha8Rng| {
        Vec2::new(
            rng.random_range(-half_side..half_side),
            rng.random_range(-half_side..half_side),
        )
    };
    let rays = (0..options.batch)
        .map(|_| {
            let origin = point(&mut rng);
            let angle = rng.random_range(0.0..std::f32::consts::TAU);
            let direction = Dir2::from_xy(angle.cos(), angle.sin()).unwrap();
            (origin, direction, RAY_LENGTH)
        })
        .collect();
    let points = (0..options.batch).map(|_| point(&mut rng)).collect();
    let regions = (0..options.batch)
        .map(|_| {
            let centre = point(&mut rng);
            let half = Vec2::new(rng.random_range(2.0..32.0), rng.random_range(2.0..32.0));
            Aabb2d::new(centre, half)
        })
        .collect();
    Batch {
        rays,
        points,
        regions,
    }
}

pub fn run(options: &QueryOptions, level: &Level, bodies: &[Body]) {
    let bodies: Vec<Body> = (bodies.iter())
        .map(|body| Body {
            velocity: Vec2::ZERO,
            spin: 0.0,
            ..*body
        })
        .collect();
    let batch = make_batch(options, level.arena().half_side);
    let shapes: Vec<TruthCollider> = (bodies.iter())
        .map(|body| vec![TruthShape::new(&body.shape, body.position, body.angle)])
        .chain(
            level
                .centres()
                .map(|c| vec![TruthShape::new(&level.tile_shape(), c, 0.0)]),
        )
        .collect();
    println!(
        "queries: {} colliders ({} movers standing still, {} static tiles); batches of {} rays of {RAY_LENGTH}, points and regions",
        shapes.len(),
        bodies.len(),
        level.solid.len(),
        options.batch
    );

    let engines: Vec<&QueryEngine> = (ENGINES.iter())
        .filter(|e| {
            (options.engines.as_ref()).is_none_or(|words| {
                words.iter().any(|w| {
                    e.name.contains(w.as_str()) || (w == "ours" && e.name == "bevy_collide2d")
                })
            })
        })
        .collect();
    let mut apps: Vec<(App, [SystemId; 3], HashMap<Entity, usize>)> = (engines.iter())
        .map(|engine| {
            let mut app = base_app(level.arena());
            (engine.setup)(&mut app);
            app.insert_resource(batch.clone())
                .init_resource::<Answers>();
            let mut entities = (engine.spawn)(app.world_mut(), &bodies);
            entities.extend((engine.spawn_tiles)(app.world_mut(), level));
            app.finish();
            app.cleanup();
            app.update();
            app.update();
            let systems = (engine.register)(app.world_mut());
            let index = entities
                .into_iter()
                .enumerate()
                .map(|(i, e)| (e, i))
                .collect();
            (app, systems, index)
        })
        .collect();

    let mut times: Vec<[Vec<Duration>; 3]> = engines.iter().map(|_| Default::default()).collect();
    for round in 0..options.rounds {
        for k in 0..engines.len() {
            let e = (k + round) % engines.len();
            let (app, systems, _) = &mut apps[e];
            for (kind, &system) in systems.iter().enumerate() {
                let start = Instant::now();
                app.world_mut()
                    .run_system(system)
                    .expect("the query system runs");
                times[e][kind].push(start.elapsed());
            }
        }
    }

    println!("| engine | rays µs | points µs | regions µs | exact |");
    println!("|---|---:|---:|---:|---|");
    let mut medians = Vec::new();
    for (e, engine) in engines.iter().enumerate() {
        let (app, _, index) = &apps[e];
        let checks = check(app.world().resource::<Answers>(), &batch, &shapes, index);
        let median = times[e].clone().map(|mut samples| {
            samples.sort_unstable();
            samples[samples.len() / 2].as_secs_f64() * 1e6
        });
        let exact: Vec<String> = (KINDS.iter().zip(&checks))
            .map(|(kind, check)| {
                if check.is_exact() {
                    format!("{kind} yes")
                } else {
                    format!("{kind} {check:?}")
                }
            })
            .collect();
        println!(
            "| {} | {:.0} | {:.0} | {:.0} | {} |",
            engine.name,
            median[0],
            median[1],
            median[2],
            exact.join("; ")
        );
        medians.push(median);
    }
    if engines.first().is_some_and(|e| e.name == "bevy_collide2d") && medians.len() > 1 {
        let ratios: Vec<String> = (0..3)
            .map(|kind| {
                let peer = (medians[1..].iter())
                    .map(|m| m[kind])
                    .fold(f64::INFINITY, f64::min);
                format!("{} {:.1}x", KINDS[kind], peer / medians[0][kind])
            })
            .collect();
        println!("ours against the faster peer: {}", ratios.join(", "));
    }
}
