//! The f64 reference of the shapes: exact distances, gaps and touching
//! tests between any two kinds, in f64, that the crate's answers are
//! checked against. Not public API: it is here for the crate's own tests
//! and benchmarks, hidden from the docs, with no semver promise (it may
//! change or go in any release).
//!
//! One reference serves every judge: the unit tests of the geometry (pair
//! tests, shape casts, property tests, rays and sweeps), the model-based
//! test (`tests/model_based.rs`) and the comparison runner's truth
//! (`benches/compare/truth.rs`). It is always compiled (it needs nothing but
//! Bevy's math and transforms) so that the integration tests and the
//! benchmark crate can reach it; nothing in the library itself uses it.
//! There are no tolerances here: each judge keeps its own (how close to
//! touching is too close to call in f32).
//!
//! The reference sees every shape as a rounded convex core (the points
//! within `radius` of the convex hull of a few points): a circle is its
//! centre, a capsule its inner segment, a segment its two ends, a rectangle
//! its four corners and a polygon its vertices, each placed in f64. Two such
//! shapes overlap when the origin is within `ra + rb` of their cores'
//! Minkowski difference, which is built explicitly as the convex hull of all
//! the pairwise differences of core points. The signed distance from the
//! origin to that hull, minus the radii, is the gap between the shapes when
//! positive and minus the penetration depth when negative (the distance from
//! the origin to the boundary of the rounded difference is the shortest
//! move that separates them). Nothing here shares code with the f32 pair
//! tests, and the gap takes no separating axes, no closest features, no
//! clipping.
//!
//! - [`RefShape`], [`RefPair`] and [`reference_gap`]: the exact signed
//!   distances and gaps.
//! - [`circles_touch`], [`circle_touches_rect`], [`rects_touch`] and
//!   [`cores_touch`]: whether two shapes overlap or touch (touching counts),
//!   by comparisons of squared distances, a separating axis test of two
//!   rectangles and exact orientation tests on the placed points: the
//!   comparison runner's truth calls every pair, just touching included,
//!   and keeps circles and rectangles on tests of their own (most of its
//!   bodies, up to 100,000 a frame).
//! - [`shortest_clearing_length`]: how far the shortest translation that
//!   clears a set of contacts goes, by a search over directions (the judge
//!   of `push_out`).
//!
//! The callers place shapes as they read them, and these readings differ on
//! purpose: [`reference()`] takes a pose's cosine and sine as given (the
//! rotation the f32 code uses, without its rounding), [`reference_at`] any
//! centre and rotation (the model-based test turns by an angle, along a
//! path), and [`MatrixPose`] reads a body as Bevy draws it, from its
//! `GlobalTransform`'s matrix (the comparison runner's truth).

use bevy::math::{DVec2, Isometry2d, Vec2, Vec3A};
use bevy::prelude::GlobalTransform;

use crate::geometry::Shape;

// ---------------------------------------------------------------------------
// Exact signed distances and gaps.
// ---------------------------------------------------------------------------

/// A shape placed in the world, in f64: the points within `radius` of the
/// convex hull of `core`.
#[derive(Clone, Debug)]
pub struct RefShape {
    /// The core as its own convex hull: one point, two distinct points (a
    /// segment), or three or more counter-clockwise.
    core: Vec<DVec2>,
    radius: f64,
}

/// `shape` at `pose` in f64, with the same rotation the f32 code uses
/// (the pose's cosine and sine as given) but without its rounding.
pub fn reference(shape: &Shape, pose: Isometry2d) -> RefShape {
    let (cos, sin) = (f64::from(pose.rotation.cos), f64::from(pose.rotation.sin));
    reference_at(shape, pose.translation.as_dvec2(), cos, sin)
}

/// `shape` at `pose` as convex reference shapes: a compound's parts, or the
/// shape alone.
pub fn reference_parts(shape: &Shape, pose: Isometry2d) -> Vec<RefShape> {
    match shape {
        Shape::Compound(compound) => (compound.parts().iter())
            .flat_map(|part| reference_parts(&part.shape, pose * part.pose))
            .collect(),
        _ => vec![reference(shape, pose)],
    }
}

/// `shape` placed at `center` turned by the rotation `(cos, sin)`, in f64.
pub fn reference_at(shape: &Shape, center: DVec2, cos: f64, sin: f64) -> RefShape {
    let place = |p: DVec2| center + DVec2::new(cos * p.x - sin * p.y, sin * p.x + cos * p.y);
    let (points, radius): (Vec<DVec2>, f64) = match shape {
        Shape::Circle { radius } => (vec![center], f64::from(*radius)),
        Shape::Rect { half_size } => {
            let h = half_size.as_dvec2();
            (
                [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
                    .into_iter()
                    .map(|(sx, sy)| place(DVec2::new(sx * h.x, sy * h.y)))
                    .collect(),
                0.0,
            )
        }
        Shape::Capsule {
            radius,
            half_length,
        } => {
            let h = f64::from(*half_length);
            (
                vec![place(DVec2::new(0.0, -h)), place(DVec2::new(0.0, h))],
                f64::from(*radius),
            )
        }
        Shape::Segment { a, b } => (vec![place(a.as_dvec2()), place(b.as_dvec2())], 0.0),
        Shape::Polygon(polygon) => (
            polygon
                .vertices()
                .iter()
                .map(|v| place(v.as_dvec2()))
                .collect(),
            0.0,
        ),
        Shape::Compound(_) => panic!("a compound is not convex: see reference_parts"),
    };
    RefShape::from_core(points, radius)
}

impl RefShape {
    /// The points within `radius` of the convex hull of `points`, already
    /// placed in the world (at least one).
    pub fn from_core(points: Vec<DVec2>, radius: f64) -> Self {
        Self {
            core: hull(points),
            radius,
        }
    }

    /// Signed distance from a point: positive outside, negative inside (a
    /// shape without area is never negative).
    pub fn signed_distance(&self, p: DVec2) -> f64 {
        hull_signed_distance(&self.core, p) - self.radius
    }

    /// The core: one point, two (a segment), or a counter-clockwise polygon.
    pub fn core(&self) -> &[DVec2] {
        &self.core
    }

    /// How far the shape reaches along `direction` (a unit vector).
    pub fn support(&self, direction: DVec2) -> f64 {
        self.core
            .iter()
            .map(|p| p.dot(direction))
            .fold(f64::NEG_INFINITY, f64::max)
            + self.radius
    }
}

/// Two shapes seen as one: the hull of the differences of their core points
/// (`b - a`) and the sum of their radii.
#[derive(Clone, Debug)]
pub struct RefPair {
    difference: Vec<DVec2>,
    radii: f64,
}

impl RefPair {
    /// The pair of `a` and `b` where they are.
    pub fn new(a: &RefShape, b: &RefShape) -> Self {
        let differences = a
            .core
            .iter()
            .flat_map(|&p| b.core.iter().map(move |&q| q - p))
            .collect();
        Self {
            difference: hull(differences),
            radii: a.radius + b.radius,
        }
    }

    /// The gap between the shapes with the second moved by `by`: their
    /// distance when apart, minus the penetration depth when overlapping.
    pub fn gap_after(&self, by: DVec2) -> f64 {
        hull_signed_distance(&self.difference, -by) - self.radii
    }

    /// [`Self::gap_after`] where they are.
    pub fn gap(&self) -> f64 {
        self.gap_after(DVec2::ZERO)
    }
}

/// The gap between two shapes (see [`RefPair::gap_after`]).
pub fn reference_gap(a: (&Shape, Isometry2d), b: (&Shape, Isometry2d)) -> f64 {
    RefPair::new(&reference(a.0, a.1), &reference(b.0, b.1)).gap()
}

/// The convex hull in f64, counter-clockwise (Andrew's monotone chain),
/// without repeated or collinear points: one point, two, or three or more.
fn hull(mut points: Vec<DVec2>) -> Vec<DVec2> {
    points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    points.dedup();
    if points.len() < 3 {
        return points;
    }
    let turns_left = |o: DVec2, a: DVec2, b: DVec2| (a - o).perp_dot(b - o) > 0.0;
    let mut lower: Vec<DVec2> = Vec::new();
    for &p in &points {
        while lower.len() >= 2 && !turns_left(lower[lower.len() - 2], lower[lower.len() - 1], p) {
            lower.pop();
        }
        lower.push(p);
    }
    let mut upper: Vec<DVec2> = Vec::new();
    for &p in points.iter().rev() {
        while upper.len() >= 2 && !turns_left(upper[upper.len() - 2], upper[upper.len() - 1], p) {
            upper.pop();
        }
        upper.push(p);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    lower
}

/// Signed distance from `p` to the convex hull `hull` (as [`hull`] returns
/// it): negative inside a hull with area, never negative for a point or a
/// segment.
fn hull_signed_distance(hull: &[DVec2], p: DVec2) -> f64 {
    match hull {
        [] => f64::INFINITY,
        [a] => p.distance(*a),
        [a, b] => segment_distance(p, *a, *b),
        _ => {
            let n = hull.len();
            let edges = (0..n).map(|i| (hull[i], hull[(i + 1) % n]));
            let to_edges = edges
                .clone()
                .map(|(s, e)| segment_distance(p, s, e))
                .fold(f64::INFINITY, f64::min);
            let inside = edges
                .into_iter()
                .all(|(s, e)| (e - s).perp_dot(p - s) >= 0.0);
            if inside { -to_edges } else { to_edges }
        }
    }
}

/// The distance from `p` to the segment from `s` to `e` (a point when they
/// are equal).
pub fn segment_distance(p: DVec2, s: DVec2, e: DVec2) -> f64 {
    segment_distance_squared(p, s, e).sqrt()
}

/// The squared distance from `p` to the segment from `s` to `e` (a point
/// when they are equal): exact comparisons of distances with sums of radii
/// take no square root.
pub fn segment_distance_squared(p: DVec2, s: DVec2, e: DVec2) -> f64 {
    let d = e - s;
    let length_squared = d.length_squared();
    let t = if length_squared > 0.0 {
        ((p - s).dot(d) / length_squared).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let closest = s + d * t;
    (p - closest).length_squared()
}

// ---------------------------------------------------------------------------
// Reading a body as Bevy draws it.
// ---------------------------------------------------------------------------

/// A body's placement as Bevy draws it: from its `GlobalTransform`'s
/// matrix, read in f64. A body spun with `Transform::rotate_z` has a
/// quaternion that drifts from unit length by a few 1e-6 over hundreds of
/// frames; the matrix of such a quaternion is a rotation scaled by that
/// much, with its x axis turned by about as much. Taking the angle from the
/// quaternion instead moves edges by up to about 1e-4 and calls pairs that
/// close to touching differently from what is drawn (and from the design's
/// rule: poses and scales come from the `GlobalTransform`).
#[derive(Clone, Copy, Debug)]
pub struct MatrixPose {
    /// The matrix's translation.
    pub centre: DVec2,
    /// The matrix's x axis as a unit vector (cos, sin).
    pub axis: DVec2,
    /// The lengths of the matrix's x and y axes.
    pub scale: DVec2,
}

impl MatrixPose {
    /// The placement `transform` draws with.
    pub fn of(transform: &GlobalTransform) -> Self {
        let matrix = transform.affine();
        let column = |c: Vec3A| DVec2::new(f64::from(c.x), f64::from(c.y));
        let (x_axis, y_axis) = (column(matrix.matrix3.x_axis), column(matrix.matrix3.y_axis));
        let scale = DVec2::new(x_axis.dot(x_axis).sqrt(), y_axis.dot(y_axis).sqrt());
        let centre = DVec2::new(
            f64::from(matrix.translation.x),
            f64::from(matrix.translation.y),
        );
        let axis = DVec2::new(x_axis.x / scale.x, x_axis.y / scale.x);
        Self {
            centre,
            axis,
            scale,
        }
    }

    /// A local point scaled along the body's axes, then turned and moved
    /// as a rectangle's corners are ([`RefRect::corners`]).
    pub fn place(&self, p: Vec2) -> DVec2 {
        let (x, y) = (f64::from(p.x) * self.scale.x, f64::from(p.y) * self.scale.y);
        DVec2::new(
            self.centre.x + self.axis.x * x - self.axis.y * y,
            self.centre.y + self.axis.y * x + self.axis.x * y,
        )
    }
}

// ---------------------------------------------------------------------------
// Exact touching tests (touching counts).
// ---------------------------------------------------------------------------

/// A rectangle in the world, in f64: its centre, its unit x axis (cos, sin)
/// and its half sizes along its own axes.
#[derive(Clone, Copy, Debug)]
pub struct RefRect {
    /// The centre.
    pub centre: DVec2,
    /// The unit x axis (cos, sin).
    pub axis: DVec2,
    /// Half the width (along `axis`) and half the height.
    pub half_size: DVec2,
}

impl RefRect {
    /// The corners, counter-clockwise from `(-x, -y)`.
    pub fn corners(&self) -> [DVec2; 4] {
        let (ux, uy) = (self.axis, self.axis.perp());
        let (hx, hy) = (self.half_size.x, self.half_size.y);
        let corner = |sx: f64, sy: f64| {
            DVec2::new(
                self.centre.x + ux.x * sx * hx + uy.x * sy * hy,
                self.centre.y + ux.y * sx * hx + uy.y * sy * hy,
            )
        };
        [
            corner(-1.0, -1.0),
            corner(1.0, -1.0),
            corner(1.0, 1.0),
            corner(-1.0, 1.0),
        ]
    }
}

/// Whether two circles overlap or touch.
pub fn circles_touch(a: DVec2, radius_a: f64, b: DVec2, radius_b: f64) -> bool {
    let d = b - a;
    let r = radius_a + radius_b;
    d.dot(d) <= r * r
}

/// Whether a circle overlaps or touches a rectangle: its centre within its
/// radius of the rectangle's closest point, in the rectangle's frame.
pub fn circle_touches_rect(centre: DVec2, radius: f64, rect: &RefRect) -> bool {
    let d = centre - rect.centre;
    let (ux, uy) = (rect.axis, rect.axis.perp());
    let (lx, ly) = (d.dot(ux), d.dot(uy));
    let half = rect.half_size;
    let cx = lx.clamp(-half.x, half.x);
    let cy = ly.clamp(-half.y, half.y);
    let (ex, ey) = (lx - cx, ly - cy);
    ex * ex + ey * ey <= radius * radius
}

/// Whether two rectangles overlap or touch: no separating axis among their
/// four face normals.
pub fn rects_touch(a: &RefRect, b: &RefRect) -> bool {
    let d = b.centre - a.centre;
    let axes_a = [a.axis, a.axis.perp()];
    let axes_b = [b.axis, b.axis.perp()];
    // Separating axis test on the four face normals.
    let radius = |axes: &[DVec2; 2], half: DVec2, n: DVec2| {
        half.x * axes[0].dot(n).abs() + half.y * axes[1].dot(n).abs()
    };
    axes_a.iter().chain(axes_b.iter()).all(|&n| {
        d.dot(n).abs() <= radius(&axes_a, a.half_size, n) + radius(&axes_b, b.half_size, n)
    })
}

/// Whether two rounded convex shapes overlap or touch: cores `a` and `b` (in
/// world coordinates: one point, two (a segment) or a convex polygon's
/// vertices, counter-clockwise) grown by `radius_a` and `radius_b`. They
/// touch when the cores intersect (exact orientation tests) or when the
/// distance between the cores is at most the sum of the radii.
pub fn cores_touch(a: &[DVec2], radius_a: f64, b: &[DVec2], radius_b: f64) -> bool {
    if cores_intersect(a, b) {
        return true;
    }
    let radii = radius_a + radius_b;
    radii > 0.0 && core_distance_squared(a, b) <= radii * radii
}

/// Whether the cores share a point: two of their edges meet, or one core
/// lies inside the other (which then has an area).
pub fn cores_intersect(a: &[DVec2], b: &[DVec2]) -> bool {
    edges(a).any(|(p0, p1)| edges(b).any(|(q0, q1)| segments_intersect(p0, p1, q0, q1)))
        || (a.len() >= 3 && contains(a, b[0]))
        || (b.len() >= 3 && contains(b, a[0]))
}

/// The core's edges: its point (as a segment of length 0), its segment,
/// or its polygon's edges.
fn edges(core: &[DVec2]) -> impl Iterator<Item = (DVec2, DVec2)> {
    let n = core.len();
    let count = if n <= 2 { 1 } else { n };
    (0..count).map(move |i| (core[i], core[(i + 1) % n]))
}

/// Whether `p` is inside or on `core`, which must have an area.
fn contains(core: &[DVec2], p: DVec2) -> bool {
    edges(core).all(|(a, b)| (b - a).perp_dot(p - a) >= 0.0)
}

/// Whether segments `p0..p1` and `q0..q1` (either may be a point) share a
/// point, by the signs of orientations.
fn segments_intersect(p0: DVec2, p1: DVec2, q0: DVec2, q1: DVec2) -> bool {
    let orient = |a: DVec2, b: DVec2, c: DVec2| (b - a).perp_dot(c - a);
    // `c` on the line through `a` and `b`: is it between them?
    let within = |a: DVec2, b: DVec2, c: DVec2| {
        (a.x.min(b.x)..=a.x.max(b.x)).contains(&c.x) && (a.y.min(b.y)..=a.y.max(b.y)).contains(&c.y)
    };
    let (d1, d2) = (orient(q0, q1, p0), orient(q0, q1, p1));
    let (d3, d4) = (orient(p0, p1, q0), orient(p0, p1, q1));
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
        && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
    {
        return true;
    }
    (d1 == 0.0 && within(q0, q1, p0))
        || (d2 == 0.0 && within(q0, q1, p1))
        || (d3 == 0.0 && within(p0, p1, q0))
        || (d4 == 0.0 && within(p0, p1, q1))
}

/// The squared distance between the cores, from the closest points of
/// every edge of one and every edge of the other (0 or more when they
/// intersect; only meaningful when they do not).
fn core_distance_squared(a: &[DVec2], b: &[DVec2]) -> f64 {
    let mut best = f64::INFINITY;
    for (p0, p1) in edges(a) {
        for (q0, q1) in edges(b) {
            best = best.min(segments_distance_squared(p0, p1, q0, q1));
        }
    }
    best
}

/// The squared distance between segments that do not cross: the smallest
/// distance from an end of one to the other.
fn segments_distance_squared(p0: DVec2, p1: DVec2, q0: DVec2, q1: DVec2) -> f64 {
    segment_distance_squared(p0, q0, q1)
        .min(segment_distance_squared(p1, q0, q1))
        .min(segment_distance_squared(q0, p0, p1))
        .min(segment_distance_squared(q1, p0, p1))
}

/// The length of the shortest translation `p` with `p · out >= depth` for
/// every `(out, depth)` (unit `out`, `depth > 0`), or `None` when no
/// direction clears them all. A search over directions, not a solve: along
/// a unit direction `u` the shortest clearing length is the largest
/// `depth / (u · out)` (infinite when some `u · out <= 0`); 7,200 directions,
/// then the best one's neighbourhood narrowed down by golden sections.
pub fn shortest_clearing_length(pushes: &[(DVec2, f64)]) -> Option<f64> {
    let along = |angle: f64| {
        let u = DVec2::from_angle(angle);
        pushes.iter().fold(0.0f64, |longest, &(out, depth)| {
            let cos = u.dot(out);
            if cos <= 0.0 {
                f64::INFINITY
            } else {
                longest.max(depth / cos)
            }
        })
    };
    let steps = 7200;
    let step = std::f64::consts::TAU / steps as f64;
    let best = (0..steps)
        .map(|k| k as f64 * step)
        .min_by(|&x, &y| along(x).total_cmp(&along(y)))?;
    if !along(best).is_finite() {
        return None;
    }
    let (mut lo, mut hi) = (best - step, best + step);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..100 {
        let (x1, x2) = (hi - ratio * (hi - lo), lo + ratio * (hi - lo));
        if along(x1) <= along(x2) {
            hi = x2;
        } else {
            lo = x1;
        }
    }
    Some(along(best).min(along((lo + hi) / 2.0)))
}
