//! Every pair of shapes that has no hand-written test, handled as rounded
//! convex cores: a shape is a convex core (a point, a segment or a convex
//! polygon) grown by a radius. A circle is a point grown by its radius, a
//! capsule a segment grown by its radius; segments, rectangles and polygons
//! have a radius of 0.
//!
//! Two such shapes overlap when their cores are closer than the sum of the
//! radii. The cores are compared with separating axes (the edge normals of
//! both, the same axes as Box2D's polygon collider): when the cores overlap,
//! the axis of least overlap gives the normal and the depth exactly, because
//! every edge of their Minkowski difference is parallel to an edge of one of
//! them. When they are apart, the closest points of the two cores give the
//! distance, and the normal is along them.

use bevy::math::{Dir2, Isometry2d, Vec2};
use smallvec::SmallVec;

pub(in crate::geometry) mod cores;
mod quick;

use crate::geometry::contact::Contact;
use crate::geometry::pairs::within;
use crate::geometry::shape::view::ConvexRef;
use cores::{Core, core_size, features};
use quick::{contact_along, quick_contact, stick_area_intersects};

/// The separation of `b`'s core from each edge of `a`'s core (negative when
/// they overlap along that edge's normal), with the normal pointing from `a`
/// to `b`; `flip` reverses the normals (for `a` and `b` swapped).
fn for_each_face(a: &Core, b: &Core, flip: bool, mut visit: impl FnMut(f32, Vec2)) {
    for (&vertex, &normal) in a.points.iter().zip(&a.normals) {
        let mut separation = f32::INFINITY;
        for &p in &b.points {
            separation = separation.min(normal.dot(p - vertex));
        }
        visit(separation, if flip { -normal } else { normal });
    }
}

/// The separating axis with the largest separation of the cores: that
/// separation (negative when they overlap), the axis (from `a` to `b`), and
/// whether it is an edge normal of `a` (else of `b`). `None` when neither
/// core has an edge (two points).
fn best_axis(a: &Core, b: &Core) -> Option<(f32, Vec2, bool)> {
    best_axis_within(a, b, f32::INFINITY).unwrap_or(None)
}

/// Proof that two shapes are apart.
struct Apart;

/// [`best_axis`], or [`Apart`] as soon as one axis separates the cores by
/// more than `limit` (or by NaN): most pairs a broad phase finds stop there.
fn best_axis_within(a: &Core, b: &Core, limit: f32) -> Result<Option<(f32, Vec2, bool)>, Apart> {
    let mut best: Option<(f32, Vec2, bool)> = None;
    for (from, to, from_a) in [(a, b, true), (b, a, false)] {
        for (&vertex, &normal) in from.points.iter().zip(&from.normals) {
            let mut separation = f32::INFINITY;
            for &p in &to.points {
                separation = separation.min(normal.dot(p - vertex));
            }
            if !within(separation, limit) {
                return Err(Apart);
            }
            if best.is_none_or(|(s, ..)| separation > s) {
                let normal = if from_a { normal } else { -normal };
                best = Some((separation, normal, from_a));
            }
        }
    }
    Ok(best)
}

/// Whether the cores overlap (touching included) given their best axis:
/// a negative separation always means overlap; zero only proves a touch
/// when one core has an area (two segments, or a point and a segment, can
/// be level with each other's line and still apart).
fn cores_overlap(a: &Core, b: &Core, separation: f32) -> bool {
    separation < 0.0 || (separation <= 0.0 && (a.has_area() || b.has_area()))
}

/// The point of segment `s0..s1` (or of the point `s0`) nearest to `p`.
#[inline]
fn nearest_on_segment(p: Vec2, s0: Vec2, s1: Vec2) -> Vec2 {
    let d = s1 - s0;
    let length_squared = d.length_squared();
    let t = if length_squared > 0.0 {
        (d.dot(p - s0) / length_squared).clamp(0.0, 1.0)
    } else {
        0.0
    };
    s0 + d * t
}

/// The closest points of two cores that do not overlap (the cores with
/// these points) and their squared distance. Apart, two convex cores are
/// nearest at a point of one of them: every point of each against every
/// feature of the other, a projection each, is cheaper than segment
/// against segment (and wrong for crossing cores: see [`closest_points`]).
#[inline]
fn closest_points_apart(a: &[Vec2], b: &[Vec2]) -> (f32, Vec2, Vec2) {
    let mut best = (f32::INFINITY, a[0], b[0]);
    for &p in a {
        for (b0, b1) in features(b) {
            let q = nearest_on_segment(p, b0, b1);
            let distance_squared = (q - p).length_squared();
            if distance_squared < best.0 {
                best = (distance_squared, p, q);
            }
        }
    }
    for &q in b {
        for (a0, a1) in features(a) {
            let p = nearest_on_segment(q, a0, a1);
            let distance_squared = (q - p).length_squared();
            if distance_squared < best.0 {
                best = (distance_squared, p, q);
            }
        }
    }
    best
}

/// The closest points of the two cores (apart or not), by comparing every
/// feature of one with every feature of the other.
fn closest_points(a: &Core, b: &Core) -> (Vec2, Vec2) {
    let mut best = (f32::INFINITY, a.points[0], b.points[0]);
    for (a0, a1) in a.features() {
        for (b0, b1) in b.features() {
            let (p, q) = closest_points_on_segments(a0, a1, b0, b1);
            let distance_squared = (q - p).length_squared();
            if distance_squared < best.0 {
                best = (distance_squared, p, q);
            }
        }
    }
    (best.1, best.2)
}

/// The closest points of segments `p0..p1` and `q0..q1` (either may be a
/// point), as in Ericson, "Real-Time Collision Detection", 5.1.9.
pub(crate) fn closest_points_on_segments(p0: Vec2, p1: Vec2, q0: Vec2, q1: Vec2) -> (Vec2, Vec2) {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.length_squared(), d2.length_squared(), d2.dot(r));
    if a == 0.0 && e == 0.0 {
        return (p0, q0);
    }
    let (s, t);
    if a == 0.0 {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e == 0.0 {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            // Where the lines cross. In 2D, Ericson's `a e - b²` is
            // `(d1 × d2)²` and `b f - c e` is `(d1 × d2)(d2 × r)`; the cross
            // products keep their precision where the dot products cancel
            // (nearly parallel segments, whose `a e - b²` is all rounding).
            let cross = d1.perp_dot(d2);
            // Parallel segments: any point of the first will do to start.
            let s0 = if cross * cross > 0.0 {
                (d2.perp_dot(r) / cross).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            } else {
                (s, t) = (s0, t0);
            }
        }
    }
    (p0 + d1 * s, q0 + d2 * t)
}

/// The cores of `a` at `pa` and `b` at `pb`, in `a`'s frame: `a` as it is,
/// `b` placed relative to it. Working near the origin keeps the precision
/// that world coordinates of hundreds or thousands would cost.
#[inline(always)]
fn relative_cores(
    a: ConvexRef<'_>,
    pa: Isometry2d,
    b: ConvexRef<'_>,
    pb: Isometry2d,
) -> (Core, Core) {
    (Core::local(a), Core::new(b, pa.inverse() * pb))
}

/// [`intersects`] of two shapes placed by their poses. Out of line, so
/// that the hand-written pairs inline where the shapes are dispatched.
#[inline(never)]
pub(crate) fn intersects_at(
    a: ConvexRef<'_>,
    pa: Isometry2d,
    b: ConvexRef<'_>,
    pb: Isometry2d,
) -> bool {
    use ConvexRef::{Capsule, Polygon, Rect, Segment};
    let stick_area = match (a, b) {
        (Capsule { .. } | Segment { .. }, Rect { .. } | Polygon(_))
        | (Rect { .. } | Polygon(_), Capsule { .. } | Segment { .. }) => {
            stick_area_intersects(a, pa, b, pb)
        }
        _ => None,
    };
    stick_area.unwrap_or_else(|| general_intersects_at(a, pa, b, pb))
}

/// [`intersects`] of two shapes placed by their poses, in the frame of the
/// one with more points, so that fewer are moved.
#[inline(never)]
fn general_intersects_at(
    a: ConvexRef<'_>,
    pa: Isometry2d,
    b: ConvexRef<'_>,
    pb: Isometry2d,
) -> bool {
    if let Some(decided) = quick_contact(a, pa, b, pb, false) {
        return decided.is_some();
    }
    let (a, b) = if core_size(b) > core_size(a) {
        relative_cores(b, pb, a, pa)
    } else {
        relative_cores(a, pa, b, pb)
    };
    intersects(&a, &b)
}

/// [`contact`] of two shapes placed by their poses, as [`intersects_at`].
#[inline(never)]
pub(crate) fn contact_at(
    a: ConvexRef<'_>,
    pa: Isometry2d,
    b: ConvexRef<'_>,
    pb: Isometry2d,
) -> Option<Contact> {
    if let Some(decided) = quick_contact(a, pa, b, pb, true) {
        return decided;
    }
    let flip = core_size(b) > core_size(a);
    let (frame, local) = if flip {
        let (core_b, core_a) = relative_cores(b, pb, a, pa);
        (pb, contact(&core_b, &core_a)?.flipped())
    } else {
        let (core_a, core_b) = relative_cores(a, pa, b, pb);
        (pa, contact(&core_a, &core_b)?)
    };
    Some(Contact {
        point: frame.transform_point(local.point),
        normal: frame.rotation * local.normal,
        ..local
    })
}

/// [`closest_surface_points`] of two shapes placed by their poses.
pub(crate) fn closest_surface_points_at(
    a: ConvexRef<'_>,
    pa: Isometry2d,
    b: ConvexRef<'_>,
    pb: Isometry2d,
) -> Option<(Vec2, Vec2, f32)> {
    let (core_a, core_b) = relative_cores(a, pa, b, pb);
    let (p, q, distance) = closest_surface_points(&core_a, &core_b)?;
    Some((pa.transform_point(p), pa.transform_point(q), distance))
}

/// The closest points of two cores of at most two points each (points and
/// segments), and their distance: one segment-to-segment query answers it.
#[inline]
fn small_cores_closest(a: &Core, b: &Core) -> Option<(Vec2, Vec2)> {
    let ends = |core: &Core| match core.points.len() {
        1 => Some((core.points[0], core.points[0])),
        2 => Some((core.points[0], core.points[1])),
        _ => None,
    };
    let ((a0, a1), (b0, b1)) = (ends(a)?, ends(b)?);
    Some(closest_points_on_segments(a0, a1, b0, b1))
}

/// Whether the shapes overlap or touch. Same answer as [`contact`].
pub(crate) fn intersects(a: &Core, b: &Core) -> bool {
    let radii = a.radius + b.radius;
    // Points and segments (circles, capsules, segments) apart or touching
    // without crossing: their closest points say it all.
    // Closer than rounding, the separating axes decide (crossing segments
    // have a distance of rounding noise).
    if let Some((p, q)) = small_cores_closest(a, b) {
        let distance_squared = (q - p).length_squared();
        let noise = 4.0 * rounding_slack(&a.points, &b.points);
        if distance_squared > noise * noise {
            return within(distance_squared, radii * radii);
        }
    }
    match best_axis_within(a, b, radii) {
        Err(Apart) => return false,
        Ok(Some((separation, ..))) if cores_overlap(a, b, separation) => return true,
        Ok(_) => {}
    }
    closest_points_apart(&a.points, &b.points).0 <= radii * radii
}

/// The contact of the shapes, seen from `a`, or `None` when they are apart.
pub(crate) fn contact(a: &Core, b: &Core) -> Option<Contact> {
    let radii = a.radius + b.radius;
    // As in `intersects`: apart cores of points and segments need no
    // separating axes, only when they cross or touch.
    if let Some((p, q)) = small_cores_closest(a, b) {
        // Clearly apart cores: the direction between them is the normal.
        // Closer, rounding could turn it: the separating axes decide.
        let distance_squared = (q - p).length_squared();
        let noise = 4.0 * rounding_slack(&a.points, &b.points);
        if distance_squared > noise * noise {
            return within(distance_squared, radii * radii)
                .then(|| rounded_contact(a, b, p, q, None));
        }
    }
    let axis = best_axis_within(a, b, radii).ok()?;
    if let Some((separation, normal, from_a)) = axis
        && cores_overlap(a, b, separation)
    {
        let depth = radii - separation;
        return Some(Contact::new(
            overlap_point(a, b, normal, depth, from_a),
            Dir2::new_unchecked(normal),
            depth,
        ));
    }
    let (distance_squared, p, q) = closest_points_apart(&a.points, &b.points);
    (distance_squared <= radii * radii).then(|| rounded_contact(a, b, p, q, axis))
}

/// The contact of shapes whose cores are apart (or touch) with closest
/// points `p` (of `a`) and `q` (of `b`): along `p -> q`, or along the best
/// axis when the points coincide. The point is the middle of the overlap
/// along that line, inside both shapes (between them when they are apart;
/// used for the touch found by a time of impact).
fn rounded_contact(
    a: &Core,
    b: &Core,
    p: Vec2,
    q: Vec2,
    axis: Option<(f32, Vec2, bool)>,
) -> Contact {
    let offset = q - p;
    let distance_squared = offset.length_squared();
    let distance = distance_squared.sqrt();
    // When `q - p` runs along the best axis to within rounding, that axis is
    // the normal: the direction of `q - p` is rounding noise when the cores
    // touch or overlap without area (collinear segments, a centre on a
    // segment), and any way but the axis may not separate them.
    let noise = rounding_slack(&a.points, &b.points);
    let normal = match axis {
        Some((_, normal, _)) if offset.perp_dot(normal).abs() <= noise => normal,
        _ if distance_squared >= f32::MIN_POSITIVE => offset / distance,
        _ => axis.map_or(Vec2::X, |(_, normal, _)| normal),
    };
    contact_along(p, normal, distance, a.radius, b.radius)
}

/// A point inside both shapes when their cores overlap: the average of the
/// corners of the cores' overlap (a convex region, so the average is inside
/// it). If rounding leaves that overlap empty (a sliver), the deepest point
/// of the shape pushed into the other's edge (`from_a`: an edge of `a`),
/// moved half the depth back.
fn overlap_point(a: &Core, b: &Core, normal: Vec2, depth: f32, from_a: bool) -> Vec2 {
    let overlap = match (a.points.len(), b.points.len()) {
        (1, _) => Some(a.points[0]),
        (_, 1) => Some(b.points[0]),
        (2, 2) => {
            let (p, q) = closest_points(a, b);
            Some(0.5 * (p + q))
        }
        (2, _) => clipped_segment_middle(a.points[0], a.points[1], b),
        (_, 2) => clipped_segment_middle(b.points[0], b.points[1], a),
        _ => clipped_polygon_average(b, a),
    };
    // Rounding also empties the overlap of cores that only touch along a
    // line (a segment lying on an edge): their closest points are then a
    // hair apart, both in the overlap to within rounding.
    let touching = || {
        let (p, q) = closest_points(a, b);
        let noise = rounding_slack(&a.points, &b.points);
        ((q - p).length_squared() <= noise * noise).then(|| 0.5 * (p + q))
    };
    overlap.or_else(touching).unwrap_or_else(|| {
        if from_a {
            b.support(-normal) + normal * (0.5 * depth - b.radius)
        } else {
            a.support(normal) - normal * (0.5 * depth - a.radius)
        }
    })
}

/// The middle of the part of segment `p0..p1` inside `polygon`'s core.
fn clipped_segment_middle(p0: Vec2, p1: Vec2, polygon: &Core) -> Option<Vec2> {
    let (mut enter, mut exit) = (0.0f32, 1.0f32);
    for (&vertex, &normal) in polygon.points.iter().zip(&polygon.normals) {
        let (d0, d1) = (normal.dot(p0 - vertex), normal.dot(p1 - vertex));
        if d0 > 0.0 && d1 > 0.0 {
            return None;
        }
        if d0 > 0.0 {
            enter = enter.max(d0 / (d0 - d1));
        } else if d1 > 0.0 {
            exit = exit.min(d0 / (d0 - d1));
        }
    }
    (enter <= exit).then(|| p0 + (p1 - p0) * (0.5 * (enter + exit)))
}

/// The average of the corners of `subject`'s core clipped by `clip`'s edges
/// (Sutherland-Hodgman).
fn clipped_polygon_average(subject: &Core, clip: &Core) -> Option<Vec2> {
    // Two buffers taking turns: a new one per edge was moved out whole.
    let mut buffers: [SmallVec<[Vec2; 16]>; 2] =
        [SmallVec::from_slice(&subject.points), SmallVec::new()];
    let mut current = 0;
    for (&vertex, &normal) in clip.points.iter().zip(&clip.normals) {
        let limit = normal.dot(vertex);
        let [first, second] = &mut buffers;
        let (polygon, kept) = if current == 0 {
            (&*first, second)
        } else {
            (&*second, first)
        };
        kept.clear();
        let &last = polygon.last()?;
        let (mut previous, mut dp) = (last, last.dot(normal) - limit);
        for &point in polygon {
            let dc = point.dot(normal) - limit;
            if (dp < 0.0 && dc > 0.0) || (dp > 0.0 && dc < 0.0) {
                kept.push(previous + (point - previous) * (dp / (dp - dc)));
            }
            if dc <= 0.0 {
                kept.push(point);
            }
            (previous, dp) = (point, dc);
        }
        current = 1 - current;
    }
    let polygon = &buffers[current];
    (!polygon.is_empty()).then(|| polygon.iter().copied().sum::<Vec2>() / polygon.len() as f32)
}

/// A few float steps of the largest coordinate of `a` and `b`: how far
/// rounding can move a point off a line through them.
fn rounding_slack(a: &[Vec2], b: &[Vec2]) -> f32 {
    let largest = a
        .iter()
        .chain(b)
        .fold(0.0f32, |m, p| m.max(p.abs().max_element()));
    16.0 * f32::EPSILON * largest
}

/// The closest points of two shapes (of their surfaces), and the distance
/// between them; `None` when they overlap.
pub(crate) fn closest_surface_points(a: &Core, b: &Core) -> Option<(Vec2, Vec2, f32)> {
    if intersects(a, b) {
        return None;
    }
    let (_, p, q) = closest_points_apart(&a.points, &b.points);
    let offset = q - p;
    let distance = offset.length();
    // Apart by a rounding error while the closest points coincide: the
    // separating axis is the direction then.
    let normal = if distance > 0.0 {
        offset / distance
    } else {
        best_axis(a, b).map_or(Vec2::X, |(_, normal, _)| normal)
    };
    Some((
        p + normal * a.radius,
        q - normal * b.radius,
        distance - a.radius - b.radius,
    ))
}

/// Lower bounds of the gap between two apart shapes, each along a fixed
/// direction (from `a` to `b`): the separation along every edge normal, and
/// along the line between the closest points when the edge normals alone
/// cannot see every gap (rounded shapes, or two cores without area). The
/// largest is the distance itself, or close to it. Used by conservative
/// advancement: a gap along a fixed direction closes no faster than the
/// shapes move along it.
pub(crate) fn for_each_gap(a: &Core, b: &Core, mut visit: impl FnMut(f32, Vec2)) {
    let radii = a.radius + b.radius;
    for_each_face(a, b, false, |s, n| visit(s - radii, n));
    for_each_face(b, a, true, |s, n| visit(s - radii, n));
    if radii > 0.0 || !(a.has_area() || b.has_area()) {
        let (p, q) = closest_points(a, b);
        let offset = q - p;
        let distance = offset.length();
        if distance > 0.0 {
            visit(distance - radii, offset / distance);
        }
    }
}

/// The contact of two shapes found touching (to within a tolerance) by a
/// time of impact: their ordinary contact, or, when they are still a hair
/// apart, the one along their closest points with a depth of 0.
pub(crate) fn touch(a: &Core, b: &Core) -> Contact {
    contact(a, b).unwrap_or_else(|| {
        let (p, q) = closest_points(a, b);
        rounded_contact(a, b, p, q, best_axis(a, b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::math::Rot2;

    fn segment(a: Vec2, b: Vec2) -> Core {
        Core::new(ConvexRef::Segment { a, b }, Isometry2d::IDENTITY)
    }

    #[test]
    fn closest_points_of_segments() {
        let (p, q) = closest_points_on_segments(
            Vec2::ZERO,
            Vec2::new(2.0, 0.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(1.0, 3.0),
        );
        assert_eq!((p, q), (Vec2::new(1.0, 0.0), Vec2::new(1.0, 1.0)));
        // Parallel, side by side: end to end.
        let (p, q) = closest_points_on_segments(
            Vec2::ZERO,
            Vec2::X,
            Vec2::new(2.0, 1.0),
            Vec2::new(3.0, 1.0),
        );
        assert_eq!((p, q), (Vec2::X, Vec2::new(2.0, 1.0)));
        // A point and a segment.
        let (p, q) = closest_points_on_segments(Vec2::Y, Vec2::Y, Vec2::NEG_X, Vec2::X);
        assert_eq!((p, q), (Vec2::Y, Vec2::ZERO));
    }

    #[test]
    fn crossing_segments_overlap_by_the_shorter_way_out() {
        let a = segment(Vec2::new(-1.0, 0.0), Vec2::new(3.0, 0.0));
        let b = segment(Vec2::new(0.0, -1.0), Vec2::new(0.0, 0.5));
        let contact = contact(&a, &b).unwrap();
        // Moving b up by 1 or down by 0.5 separates them; left by 1 or right
        // by 3 too: down is shortest.
        assert!((contact.depth - 0.5).abs() < 1e-6, "{contact:?}");
        assert!(contact.normal.abs_diff_eq(Vec2::NEG_Y, 1e-6));
        assert!(contact.point.abs_diff_eq(Vec2::ZERO, 1e-6));
    }

    #[test]
    fn collinear_segments_touch_with_no_depth() {
        let a = segment(Vec2::ZERO, Vec2::new(2.0, 0.0));
        let b = segment(Vec2::new(1.0, 0.0), Vec2::new(3.0, 0.0));
        let contact = contact(&a, &b).unwrap();
        assert_eq!(contact.depth, 0.0);
        assert!(contact.normal.dot(Vec2::Y).abs() > 0.999);
        // In line but apart: no contact.
        let c = segment(Vec2::new(2.5, 0.0), Vec2::new(3.0, 0.0));
        assert!(super::contact(&a, &c).is_none() && !intersects(&a, &c));
    }

    /// The stick-against-area shortcut answers as the general test to the
    /// bit: random capsules and segments against rectangles and polygons,
    /// placed apart, overlapping and moved to touching (within rounding).
    #[test]
    fn stick_against_area_answers_as_the_general_test() {
        use crate::geometry::{ConvexPolygon, Shape};
        use rand::{Rng, SeedableRng, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(0x9e37_79b9_7f4a_7c15);
        let mut random = move |low: f32, high: f32| rng.random_range(low..high);
        let (mut touching, mut apart) = (0, 0);
        for i in 0..6000 {
            let stick = if i % 2 == 0 {
                Shape::Capsule {
                    radius: random(0.1, 3.0),
                    half_length: random(0.0, 4.0),
                }
            } else {
                let a = Vec2::new(random(-5.0, 5.0), random(-5.0, 5.0));
                Shape::Segment {
                    a,
                    b: a + Vec2::new(random(-6.0, 6.0), random(-6.0, 6.0)),
                }
            };
            let area = if i % 3 == 0 {
                Shape::Rect {
                    half_size: Vec2::new(random(0.5, 6.0), random(0.5, 6.0)),
                }
            } else {
                let points: Vec<Vec2> = (0..7)
                    .map(|_| Vec2::new(random(-6.0, 6.0), random(-6.0, 6.0)))
                    .collect();
                match ConvexPolygon::new(&points) {
                    Ok(polygon) => Shape::Polygon(polygon),
                    Err(_) => continue,
                }
            };
            let far = if i % 5 == 0 { 3000.0 } else { 0.0 };
            let pose = |random: &mut dyn FnMut(f32, f32) -> f32| {
                let at = Vec2::new(random(-9.0, 9.0) + far, random(-9.0, 9.0) - far);
                Isometry2d::new(at, Rot2::radians(random(-4.0, 4.0)))
            };
            let (p_area, mut p_stick) = (pose(&mut random), pose(&mut random));
            let (stick, area) = (
                stick.view().convex().unwrap(),
                area.view().convex().unwrap(),
            );
            // Every third pair slid along its gap until the two touch.
            if i % 3 == 1
                && let Some((p, q, _)) = closest_surface_points_at(stick, p_stick, area, p_area)
            {
                p_stick.translation += (q - p) * (1.0 + random(-1e-6, 1e-6));
            }
            let general = {
                let (core_area, core_stick) = relative_cores(area, p_area, stick, p_stick);
                intersects(&core_area, &core_stick)
            };
            for shortcut in [
                stick_area_intersects(stick, p_stick, area, p_area),
                stick_area_intersects(area, p_area, stick, p_stick),
            ] {
                assert_eq!(
                    shortcut,
                    Some(general),
                    "{stick:?} {p_stick:?} {area:?} {p_area:?}"
                );
            }
            if general {
                touching += 1;
            } else {
                apart += 1;
            }
        }
        assert!(
            touching > 1000 && apart > 1000,
            "{touching} touching, {apart} apart"
        );
    }

    /// Far from the origin, rotated, `intersects` and `contact` still give
    /// the same yes or no (a review found crossing segments near 1e6 that
    /// the shortcut for sticks within rounding called crossing and the
    /// general test, placing them by `pa.inverse() * pb`, apart).
    #[test]
    fn far_from_the_origin_intersects_agrees_with_contact() {
        use crate::geometry::{ConvexPolygon, Shape};
        use rand::{Rng, SeedableRng, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(11);
        let shape = |rng: &mut StdRng| match rng.random_range(0..4) {
            0 => Shape::Segment {
                a: Vec2::new(rng.random_range(-6.0..0.0), rng.random_range(-6.0..6.0)),
                b: Vec2::new(rng.random_range(0.0..6.0), rng.random_range(-6.0..6.0)),
            },
            1 => Shape::Capsule {
                radius: rng.random_range(0.01..2.0),
                half_length: rng.random_range(0.0..5.0),
            },
            2 => Shape::Rect {
                half_size: Vec2::new(rng.random_range(0.5..5.0), rng.random_range(0.5..5.0)),
            },
            _ => Shape::Polygon(
                ConvexPolygon::new(&[
                    Vec2::new(-3.0, -2.0),
                    Vec2::new(4.0, -1.0),
                    Vec2::new(0.0, 3.0),
                ])
                .unwrap(),
            ),
        };
        let (mut touching, mut apart) = (0, 0);
        for _ in 0..20_000 {
            let (a, b) = (shape(&mut rng), shape(&mut rng));
            let far = Vec2::new(rng.random_range(1e4..2e6), rng.random_range(-2e6..-1e4));
            let pa = Isometry2d::new(far, Rot2::radians(rng.random_range(-3.2..3.2)));
            let near = Vec2::new(rng.random_range(-8.0..8.0), rng.random_range(-8.0..8.0));
            let pb = Isometry2d::new(far + near, Rot2::radians(rng.random_range(-3.2..3.2)));
            for (a, pa, b, pb) in [(&a, pa, &b, pb), (&b, pb, &a, pa)] {
                let contact = a.contact(pa, b, pb);
                assert_eq!(
                    a.intersects(pa, b, pb),
                    contact.is_some(),
                    "{a:?} at {pa:?}, {b:?} at {pb:?}: {contact:?}"
                );
                if contact.is_some() {
                    touching += 1;
                } else {
                    apart += 1;
                }
            }
        }
        assert!(
            touching > 5000 && apart > 5000,
            "{touching} touching, {apart} apart"
        );
    }

    #[test]
    fn rotated_core_is_placed_by_its_pose() {
        let capsule = Core::new(
            ConvexRef::Capsule {
                radius: 1.0,
                half_length: 2.0,
            },
            Isometry2d::new(Vec2::new(5.0, 0.0), Rot2::degrees(90.0)),
        );
        assert!(capsule.points[0].abs_diff_eq(Vec2::new(7.0, 0.0), 1e-6));
        assert!(capsule.points[1].abs_diff_eq(Vec2::new(3.0, 0.0), 1e-6));
    }
}
