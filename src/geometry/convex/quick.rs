//! The pairs of rounded cores answered without the general test: points
//! and segments (circles, capsules, segments) clearly apart or overlapping,
//! and a circle against a polygon.

use bevy::math::{Dir2, Isometry2d, Vec2};

use super::cores::{RECT_NORMALS, rect_corners};
use super::{closest_points_apart, closest_points_on_segments};
use crate::geometry::contact::Contact;
use crate::geometry::pairs::{normalizable, within};
use crate::geometry::shape::view::ConvexRef;
use crate::geometry::shape::view::PolygonRef;

/// A point or segment core (of a circle, capsule or segment), placed.
#[derive(Clone, Copy)]
struct Stick {
    a: Vec2,
    b: Vec2,
    radius: f32,
}

impl Stick {
    #[inline]
    fn of(shape: ConvexRef<'_>, pose: Isometry2d) -> Option<Self> {
        let (a, b, radius) = match shape {
            ConvexRef::Circle { radius } => (Vec2::ZERO, Vec2::ZERO, radius),
            ConvexRef::Capsule {
                radius,
                half_length,
            } => (
                Vec2::new(0.0, -half_length),
                Vec2::new(0.0, half_length),
                radius,
            ),
            ConvexRef::Segment { a, b } => (a, b, 0.0),
            _ => return None,
        };
        Some(Self {
            a: pose.transform_point(a),
            b: pose.transform_point(b),
            radius,
        })
    }
}

/// The pairs that need no cores, answered directly when the answer is
/// clear: two points or segments (circles, capsules, segments) whose cores
/// are apart by more than rounding, and a circle against a polygon. `None`
/// when the general test must decide; else the contact (when `want_contact`;
/// otherwise any `Some` means touching). Coordinates are taken relative to
/// `pa` for precision.
#[inline]
pub(super) fn quick_contact(
    a: ConvexRef<'_>,
    pa: Isometry2d,
    b: ConvexRef<'_>,
    pb: Isometry2d,
    want_contact: bool,
) -> Option<Option<Contact>> {
    let origin = pa.translation;
    let (ra, rb) = (
        Isometry2d::from_rotation(pa.rotation),
        Isometry2d::new(pb.translation - origin, pb.rotation),
    );
    let moved = |contact: Contact| Contact {
        point: contact.point + origin,
        ..contact
    };
    match (a, b) {
        (_, ConvexRef::Polygon(polygon)) => {
            let ConvexRef::Circle { radius } = a else {
                return None;
            };
            circle_polygon(radius, Vec2::ZERO, polygon, rb, want_contact)
                .map(|decided| decided.map(moved))
        }
        (ConvexRef::Polygon(polygon), ConvexRef::Circle { radius }) => {
            let centre = rb.translation;
            let local = Isometry2d::new(-centre, pa.rotation);
            circle_polygon(radius, Vec2::ZERO, polygon, local, want_contact).map(|decided| {
                decided.map(|c| {
                    moved(Contact {
                        point: c.point + centre,
                        ..c.flipped()
                    })
                })
            })
        }
        _ => {
            let (sa, sb) = (Stick::of(a, ra)?, Stick::of(b, rb)?);
            let (p, q) = closest_points_on_segments(sa.a, sa.b, sb.a, sb.b);
            let offset = q - p;
            let distance_squared = offset.length_squared();
            let largest = [sa.a, sa.b, sb.a, sb.b]
                .iter()
                .fold(0.0f32, |m, v| m.max(v.abs().max_element()));
            let noise = 64.0 * f32::EPSILON * largest;
            let radii = sa.radius + sb.radius;
            if distance_squared.is_nan() {
                return None;
            }
            // A denormal distance too (`noise` squared may round to 0):
            // its quotient is no unit vector.
            if within(distance_squared, noise * noise) || !normalizable(distance_squared) {
                // Touching or crossing to within rounding. Shapes rounded by
                // more than that overlap whatever it did, and segments whose
                // ends are each clearly on both sides of the other cross; the
                // rest, and every contact, the general test decides. It
                // places them by `pa.inverse() * pb`, which rounds at the
                // size of the translations: the margin covers that too.
                let far = pa.translation.abs().max(pb.translation.abs()).max_element();
                let margin = noise.max(64.0 * f32::EPSILON * far);
                let clearly = !want_contact
                    && radii >= 0.0
                    && (radii > 2.0 * margin || crossing(sa, sb, margin));
                return clearly.then_some(Some(Contact::TOUCHING));
            }
            if !within(distance_squared, radii * radii) {
                return Some(None);
            }
            if !want_contact {
                return Some(Some(Contact::TOUCHING));
            }
            let distance = distance_squared.sqrt();
            Some(Some(moved(contact_along(
                p,
                offset / distance,
                distance,
                sa.radius,
                sb.radius,
            ))))
        }
    }
}

/// Whether the segment cores of `a` and `b` cross, each one's ends more
/// than `noise` from the other's line and on both sides of it.
#[inline]
fn crossing(a: Stick, b: Stick, noise: f32) -> bool {
    let straddles = |s: Stick, t: Stick| {
        let d = s.b - s.a;
        let limit = noise * noise * d.length_squared();
        let (side0, side1) = (d.perp_dot(t.a - s.a), d.perp_dot(t.b - s.a));
        side0 * side1 < 0.0 && side0 * side0 > limit && side1 * side1 > limit
    };
    straddles(a, b) && straddles(b, a)
}

/// [`super::intersects`] of a capsule or segment against a rectangle or
/// polygon, without building their cores: the same separating axes (the
/// area's edge normals, then the stick's), and, when those leave the cores
/// apart by less than the radius, the same closest points, in the same
/// frame (the area's), so the answer is the general test's to the bit.
/// `None` for any other pair of kinds.
#[inline(never)]
pub(super) fn stick_area_intersects(
    a: ConvexRef<'_>,
    pa: Isometry2d,
    b: ConvexRef<'_>,
    pb: Isometry2d,
) -> Option<bool> {
    let is_stick = |shape| matches!(shape, ConvexRef::Capsule { .. } | ConvexRef::Segment { .. });
    let (stick, stick_pose, area, area_pose) = if is_stick(a) {
        (a, pa, b, pb)
    } else if is_stick(b) {
        (b, pb, a, pa)
    } else {
        return None;
    };
    let rect;
    let (vertices, normals) = match area {
        ConvexRef::Rect { half_size } => {
            rect = rect_corners(half_size);
            (&rect[..], &RECT_NORMALS[..])
        }
        ConvexRef::Polygon(polygon) => (polygon.vertices(), polygon.normals()),
        _ => return None,
    };
    let stick = Stick::of(stick, area_pose.inverse() * stick_pose)?;
    let ends = [stick.a, stick.b];
    let edge = stick.b - stick.a;
    // As `Core::segment`: a stick too short for a normal is its first end.
    let stick_normal = Vec2::new(edge.y, -edge.x).try_normalize();
    let points = if stick_normal.is_some() {
        &ends[..]
    } else {
        &ends[..1]
    };
    let radius = stick.radius;
    let mut best = f32::NEG_INFINITY;
    for (&vertex, &normal) in vertices.iter().zip(normals) {
        let separation = (points.iter()).fold(f32::INFINITY, |m, &p| m.min(normal.dot(p - vertex)));
        if !within(separation, radius) {
            return Some(false);
        }
        best = best.max(separation);
    }
    if let Some(normal) = stick_normal {
        for (vertex, normal) in [(stick.a, normal), (stick.b, -normal)] {
            let separation =
                (vertices.iter()).fold(f32::INFINITY, |m, &p| m.min(normal.dot(p - vertex)));
            if !within(separation, radius) {
                return Some(false);
            }
            best = best.max(separation);
        }
    }
    // The area's normals make the axes complete: none apart, the cores meet.
    if best <= 0.0 {
        return Some(true);
    }
    Some(closest_points_apart(vertices, points).0 <= radius * radius)
}

/// The contact of shapes whose cores are `distance` apart along `normal`
/// from `p`: the middle of their overlap along that line.
#[inline]
pub(super) fn contact_along(p: Vec2, normal: Vec2, distance: f32, ra: f32, rb: f32) -> Contact {
    let start = (-ra).max(distance - rb);
    let end = ra.min(distance + rb);
    Contact::new(
        p + normal * (0.5 * (start + end)),
        Dir2::new_unchecked(normal),
        (ra + rb - distance).max(0.0),
    )
}

/// A circle of `radius` at `centre` against a polygon placed by `pose` (all
/// relative to the same origin), as in [`quick_contact`]: the centre in the
/// polygon's frame, its separation from each edge (stopping at one beyond
/// the radius), then inside (the least deep edge) or outside (the nearest
/// point of the most separating edge and its neighbours).
fn circle_polygon(
    radius: f32,
    centre: Vec2,
    polygon: PolygonRef<'_>,
    pose: Isometry2d,
    want_contact: bool,
) -> Option<Option<Contact>> {
    let (vertices, normals) = (polygon.vertices(), polygon.normals());
    let local = pose.inverse_transform_point(centre);
    let mut best = (f32::NEG_INFINITY, 0);
    for (i, (&vertex, &normal)) in vertices.iter().zip(normals).enumerate() {
        let separation = normal.dot(local - vertex);
        if !within(separation, radius) {
            return Some(None);
        }
        if separation > best.0 {
            best = (separation, i);
        }
    }
    let (separation, face) = best;
    if separation < 0.0 {
        // Inside: out through the nearest edge.
        let normal = pose.rotation * -normals[face];
        let depth = radius - separation;
        return Some(Some(Contact::new(
            centre,
            Dir2::new_unchecked(normal),
            depth,
        )));
    }
    let n = vertices.len();
    let mut nearest = (f32::INFINITY, Vec2::ZERO);
    for edge in [face + n - 1, face, face + 1] {
        let (v0, v1) = (vertices[edge % n], vertices[(edge + 1) % n]);
        let (on_edge, _) = closest_points_on_segments(v0, v1, local, local);
        let distance_squared = (local - on_edge).length_squared();
        if distance_squared < nearest.0 {
            nearest = (distance_squared, on_edge);
        }
    }
    let (distance_squared, on_edge) = nearest;
    let largest = vertices.iter().fold(local.abs().max_element(), |m, v| {
        m.max(v.abs().max_element())
    });
    let noise = 64.0 * f32::EPSILON * largest;
    if within(distance_squared, noise * noise) || distance_squared.is_nan() {
        return None;
    }
    if !within(distance_squared, radius * radius) {
        return Some(None);
    }
    if !want_contact {
        return Some(Some(Contact::TOUCHING));
    }
    let distance = distance_squared.sqrt();
    let normal = pose.rotation * ((on_edge - local) / distance);
    Some(Some(contact_along(centre, normal, distance, radius, 0.0)))
}
