//! The ray tests of each convex kind: where a ray enters one (the public
//! [`ray_circle`], [`ray_rect`], [`ray_segment`], and the rest through
//! `ConvexRef::cast_ray`) and where the line leaves one from inside (for
//! the hollow casts). A new convex kind's ray code is here. Rays come in
//! checked (`Ray`): nothing here checks them again.

use bevy::math::{Dir2, Isometry2d, Vec2};

use crate::geometry::query::ray::{Ray, RayIntersection};
use crate::geometry::shape::view::ConvexRef;

impl ConvexRef<'_> {
    /// [`ShapeView::cast_ray`] for a convex shape.
    #[inline]
    pub(crate) fn cast_ray(&self, pose: Isometry2d, ray: Ray) -> Option<RayIntersection> {
        match *self {
            ConvexRef::Circle { radius } => circle_hit(ray, pose.translation, radius),
            ConvexRef::Rect { half_size } => rect_hit(ray, half_size, pose),
            ConvexRef::Capsule {
                radius,
                half_length,
            } => {
                // A capsule is its middle rectangle and its two end discs: the
                // first hit on any of them is the first hit on the capsule.
                let cap = pose.rotation * Vec2::new(0.0, half_length);
                let middle = (half_length > 0.0)
                    .then(|| rect_hit(ray, Vec2::new(radius, half_length), pose))
                    .flatten();
                [pose.translation + cap, pose.translation - cap]
                    .into_iter()
                    .filter_map(|center| circle_hit(ray, center, radius))
                    .chain(middle)
                    .min_by(|p, q| p.distance.total_cmp(&q.distance))
            }
            ConvexRef::Segment { a, b } => {
                segment_hit(ray, pose.transform_point(a), pose.transform_point(b))
            }
            ConvexRef::Polygon(polygon) => {
                polygon_hit(ray, polygon.vertices(), polygon.normals(), pose)
            }
        }
    }
}

/// The ray's origin and direction in the frame of `pose`; `None` when
/// they are not finite there.
fn in_frame(origin: Vec2, direction: Dir2, pose: Isometry2d) -> Option<(Vec2, Vec2)> {
    let inverse = pose.rotation.inverse();
    let local_origin = inverse * (origin - pose.translation);
    let local_direction = inverse * *direction;
    (local_origin.is_finite() && local_direction.is_finite())
        .then_some((local_origin, local_direction))
}

/// The hit of a ray whose origin is inside the shape.
fn inside_hit(origin: Vec2, direction: Dir2) -> RayIntersection {
    RayIntersection {
        distance: 0.0,
        point: origin,
        normal: -direction,
    }
}

/// Ray vs the circle of `radius` centred on `center`. See [`Shape::cast_ray`](crate::geometry::Shape::cast_ray).
pub fn ray_circle(
    origin: Vec2,
    direction: Dir2,
    max_distance: f32,
    center: Vec2,
    radius: f32,
) -> Option<RayIntersection> {
    let ray = Ray::new(origin, direction, max_distance).ok()?;
    // Also rejects a NaN centre or radius.
    if !(center.is_finite() && radius > 0.0 && radius.is_finite()) {
        return None;
    }
    circle_hit(ray, center, radius)
}

/// [`ray_circle`] for a checked ray and circle.
fn circle_hit(ray: Ray, center: Vec2, radius: f32) -> Option<RayIntersection> {
    let (origin, direction, max_distance) = ray.parts();
    let offset = origin - center;
    let radius_squared = radius * radius;
    if offset.length_squared() <= radius_squared {
        return Some(inside_hit(origin, direction));
    }
    // Along the ray, the centre is closest at `-along`; outside and not
    // closing in (`along >= 0`), the ray can only move away.
    let along = offset.dot(*direction);
    if along >= 0.0 {
        return None;
    }
    // The distance from the centre to the ray's line is `|across|`, computed
    // directly rather than as `|offset|^2 - along^2`, which cancels badly
    // for far origins. Tangent rays (`half_chord_squared == 0`) hit.
    let across = offset.perp_dot(*direction);
    let half_chord_squared = radius_squared - across * across;
    if half_chord_squared.is_nan() || half_chord_squared < 0.0 {
        return None;
    }
    let distance = (-along - half_chord_squared.sqrt()).max(0.0);
    if distance > max_distance {
        return None;
    }
    let normal = Dir2::new(offset + *direction * distance).unwrap_or(-direction);
    Some(RayIntersection {
        distance,
        point: origin + *direction * distance,
        normal,
    })
}

/// Ray vs the rectangle of `half_size` placed by `pose` (rotated about its
/// centre). See [`Shape::cast_ray`](crate::geometry::Shape::cast_ray).
pub fn ray_rect(
    origin: Vec2,
    direction: Dir2,
    max_distance: f32,
    half_size: Vec2,
    pose: Isometry2d,
) -> Option<RayIntersection> {
    let ray = Ray::new(origin, direction, max_distance).ok()?;
    if !(half_size.cmpgt(Vec2::ZERO).all() && half_size.is_finite()) {
        return None;
    }
    rect_hit(ray, half_size, pose)
}

/// [`ray_rect`] for a checked ray and rectangle.
fn rect_hit(ray: Ray, half_size: Vec2, pose: Isometry2d) -> Option<RayIntersection> {
    let (origin, direction, max_distance) = ray.parts();
    // Into the rectangle's frame: rotate by the inverse of its rotation.
    // A NaN pose makes every slab bound NaN, which `f32::min` would skip.
    let (local_origin, local_direction) = in_frame(origin, direction, pose)?;
    if local_origin.abs().cmple(half_size).all() {
        return Some(inside_hit(origin, direction));
    }
    // Slabs: the ray is between the two sides of an axis for `near..=far`.
    // It enters the rectangle when it has entered both slabs and leaves when
    // it leaves either.
    let (mut enter, mut exit) = (f32::NEG_INFINITY, f32::INFINITY);
    let mut entered_axis = 0;
    for axis in 0..2 {
        let (start, step, half) = (local_origin[axis], local_direction[axis], half_size[axis]);
        if step == 0.0 {
            // Parallel to this axis's sides: inside the slab for ever
            // (along a side included) or never.
            if start.abs() > half {
                return None;
            }
            continue;
        }
        // Divisions, not a reciprocal: with a subnormal `step` the
        // reciprocal is infinite and `0 * inf` would be NaN.
        let (a, b) = ((-half - start) / step, (half - start) / step);
        let (near, far) = if a <= b { (a, b) } else { (b, a) };
        if near > enter {
            enter = near;
            entered_axis = axis;
        }
        exit = exit.min(far);
    }
    // Touching a corner (`enter == exit`) hits. The origin is outside, so a
    // rectangle ahead has `enter > 0`; `exit < 0` means it is behind.
    if enter.is_nan() || exit.is_nan() || enter > exit || exit < 0.0 {
        return None;
    }
    let distance = enter.max(0.0);
    if distance > max_distance {
        return None;
    }
    // The side crossed last faces against the ray along that axis.
    let mut local_normal = Vec2::ZERO;
    local_normal[entered_axis] = -local_direction[entered_axis].signum();
    let normal = Dir2::new(pose.rotation * local_normal).unwrap_or(-direction);
    Some(RayIntersection {
        distance,
        point: origin + *direction * distance,
        normal,
    })
}

/// Ray vs the segment from `a` to `b` (world space). A ray along the
/// segment's line hits its nearer end; one starting on it hits at 0.
pub fn ray_segment(
    origin: Vec2,
    direction: Dir2,
    max_distance: f32,
    a: Vec2,
    b: Vec2,
) -> Option<RayIntersection> {
    let ray = Ray::new(origin, direction, max_distance).ok()?;
    if !(a.is_finite() && b.is_finite()) {
        return None;
    }
    segment_hit(ray, a, b)
}

/// [`ray_segment`] for a checked ray and segment.
fn segment_hit(ray: Ray, a: Vec2, b: Vec2) -> Option<RayIntersection> {
    let (origin, direction, max_distance) = ray.parts();
    let (edge, to_a) = (b - a, a - origin);
    let crossing = direction.perp_dot(edge);
    let hit = |distance: f32, normal: Vec2| {
        (distance <= max_distance).then(|| RayIntersection {
            distance,
            point: origin + *direction * distance,
            normal: Dir2::new(normal).unwrap_or(-direction),
        })
    };
    if crossing == 0.0 {
        // Parallel: a hit only along the same line, at the nearer end ahead.
        if to_a.perp_dot(*direction) != 0.0 {
            return None;
        }
        let (ta, tb) = (to_a.dot(*direction), (b - origin).dot(*direction));
        if ta.min(tb) <= 0.0 && ta.max(tb) >= 0.0 {
            return Some(inside_hit(origin, direction));
        }
        let nearest = ta.min(tb);
        return if nearest > 0.0 {
            hit(nearest, -*direction)
        } else {
            None
        };
    }
    let distance = to_a.perp_dot(edge) / crossing;
    let along = to_a.perp_dot(*direction) / crossing;
    if !(distance >= 0.0 && (0.0..=1.0).contains(&along)) {
        return None;
    }
    if distance == 0.0 {
        // Starting on the segment, as starting on any shape's boundary.
        return Some(inside_hit(origin, direction));
    }
    // The side of the segment facing the ray.
    let normal = Vec2::new(edge.y, -edge.x) * -crossing.signum();
    hit(distance, normal)
}

/// Ray vs a convex polygon (local vertices and outward normals, placed by
/// `pose`): the ray is inside every edge's half-plane from where it has
/// entered all of them until it leaves any.
fn polygon_hit(
    ray: Ray,
    vertices: &[Vec2],
    normals: &[Vec2],
    pose: Isometry2d,
) -> Option<RayIntersection> {
    let (origin, direction, max_distance) = ray.parts();
    let (local_origin, local_direction) = in_frame(origin, direction, pose)?;
    let (mut enter, mut exit) = (f32::NEG_INFINITY, f32::INFINITY);
    let mut entered = None;
    for (i, (&vertex, &normal)) in vertices.iter().zip(normals).enumerate() {
        // How far inside this edge's half-plane the origin is, and how fast
        // the ray closes in on its line, both along the edge turned a
        // quarter: the ratio is the same as along the unit normal, but
        // exact for exact vertices (a ray through a vertex meets both of
        // its edges at the same distance, so it grazes rather than misses).
        let edge = vertices[(i + 1) % vertices.len()] - vertex;
        let across = Vec2::new(edge.y, -edge.x);
        let inside = across.dot(vertex - local_origin);
        let closing = across.dot(local_direction);
        if closing == 0.0 {
            if inside < 0.0 {
                return None;
            }
            continue;
        }
        let t = inside / closing;
        if closing < 0.0 {
            if t > enter {
                enter = t;
                entered = Some(normal);
            }
        } else {
            exit = exit.min(t);
        }
    }
    if enter.is_nan() || exit.is_nan() || enter > exit || exit < 0.0 {
        return None;
    }
    let Some(normal) = entered.filter(|_| enter > 0.0) else {
        return Some(inside_hit(origin, direction));
    };
    (enter <= max_distance).then(|| RayIntersection {
        distance: enter,
        point: origin + *direction * enter,
        normal: Dir2::new(pose.rotation * normal).unwrap_or(-direction),
    })
}

/// Where the line through `origin` along `direction` leaves the convex
/// `shape` at `pose`, as a distance along it (never before `entered`, where
/// the ray is known to be in the shape) and the outward normal there.
/// Rounding that loses the line altogether leaves it at `entered`.
pub(in crate::geometry) fn convex_exit(
    shape: ConvexRef<'_>,
    pose: Isometry2d,
    origin: Vec2,
    direction: Dir2,
    entered: f32,
) -> (f32, Dir2) {
    let exit = match shape {
        ConvexRef::Circle { radius } => circle_exit(origin, direction, pose.translation, radius),
        ConvexRef::Rect { half_size } => rect_exit(origin, direction, half_size, pose),
        ConvexRef::Capsule {
            radius,
            half_length,
        } => capsule_exit(origin, direction, radius, half_length, pose),
        ConvexRef::Segment { a, b } => Some(segment_exit(
            origin,
            direction,
            pose.transform_point(a),
            pose.transform_point(b),
            entered,
        )),
        ConvexRef::Polygon(polygon) => polygon_exit(
            origin,
            direction,
            polygon.vertices(),
            polygon.normals(),
            pose,
        ),
    };
    match exit {
        Some((distance, normal)) => (distance.max(entered), normal),
        None => (entered, direction),
    }
}

/// Where the line through `origin` along `direction` leaves the circle of
/// `radius` about `center`, and the radius direction there; `None` when it
/// misses it.
fn circle_exit(origin: Vec2, direction: Dir2, center: Vec2, radius: f32) -> Option<(f32, Dir2)> {
    let offset = origin - center;
    let along = offset.dot(*direction);
    // As in the solid cast: the line's distance from the centre directly,
    // which stays accurate for far origins.
    let across = offset.perp_dot(*direction);
    let half_chord_squared = radius * radius - across * across;
    if half_chord_squared.is_nan() || half_chord_squared < 0.0 {
        return None;
    }
    let distance = -along + half_chord_squared.sqrt();
    let normal = Dir2::new(offset + *direction * distance).unwrap_or(direction);
    Some((distance, normal))
}

/// Where the line through `origin` along `direction` leaves the rectangle of
/// `half_size` at `pose`, and the normal of the side it leaves through (the
/// x side on a tie, at a corner); `None` when it misses it.
fn rect_exit(
    origin: Vec2,
    direction: Dir2,
    half_size: Vec2,
    pose: Isometry2d,
) -> Option<(f32, Dir2)> {
    let (local_origin, local_direction) = in_frame(origin, direction, pose)?;
    let (mut enter, mut exit, mut axis) = (f32::NEG_INFINITY, f32::INFINITY, 0);
    for k in 0..2 {
        let (start, step, half) = (local_origin[k], local_direction[k], half_size[k]);
        if step == 0.0 {
            if start.is_nan() || start.abs() > half {
                return None;
            }
            continue;
        }
        let (a, b) = ((-half - start) / step, (half - start) / step);
        let (near, far) = if a <= b { (a, b) } else { (b, a) };
        enter = enter.max(near);
        if far < exit {
            (exit, axis) = (far, k);
        }
    }
    if enter.is_nan() || exit.is_nan() || enter > exit {
        return None;
    }
    let mut local_normal = Vec2::ZERO;
    local_normal[axis] = local_direction[axis].signum();
    Some((
        exit,
        Dir2::new(pose.rotation * local_normal).unwrap_or(direction),
    ))
}

/// Where the line leaves a capsule: the farthest exit of its middle
/// rectangle and its two end discs (it is their union, and convex).
fn capsule_exit(
    origin: Vec2,
    direction: Dir2,
    radius: f32,
    half_length: f32,
    pose: Isometry2d,
) -> Option<(f32, Dir2)> {
    let cap = pose.rotation * Vec2::new(0.0, half_length);
    let middle = (half_length > 0.0)
        .then(|| rect_exit(origin, direction, Vec2::new(radius, half_length), pose))
        .flatten();
    [pose.translation + cap, pose.translation - cap]
        .into_iter()
        .filter_map(|center| circle_exit(origin, direction, center, radius))
        .chain(middle)
        .max_by(|p, q| p.0.total_cmp(&q.0))
}

/// Where a ray that meets the segment from `a` to `b` at `entered` leaves
/// it: at its far end when it runs along it (the normal along the ray, out
/// of that end), else where it crosses it (the normal of the side it goes
/// on to).
fn segment_exit(origin: Vec2, direction: Dir2, a: Vec2, b: Vec2, entered: f32) -> (f32, Dir2) {
    let edge = b - a;
    let crossing = direction.perp_dot(edge);
    if crossing == 0.0 {
        let far = (a - origin)
            .dot(*direction)
            .max((b - origin).dot(*direction));
        return (far, direction);
    }
    let normal = Vec2::new(edge.y, -edge.x) * crossing.signum();
    (entered, Dir2::new(normal).unwrap_or(direction))
}

/// Where the line leaves a convex polygon (local vertices and outward
/// normals, placed by `pose`): the nearest of the edges it moves out of.
fn polygon_exit(
    origin: Vec2,
    direction: Dir2,
    vertices: &[Vec2],
    normals: &[Vec2],
    pose: Isometry2d,
) -> Option<(f32, Dir2)> {
    let (local_origin, local_direction) = in_frame(origin, direction, pose)?;
    let mut exit: Option<(f32, Vec2)> = None;
    for (i, (&vertex, &normal)) in vertices.iter().zip(normals).enumerate() {
        // As in the solid cast: along the edge turned a quarter, exact for
        // exact vertices.
        let edge = vertices[(i + 1) % vertices.len()] - vertex;
        let across = Vec2::new(edge.y, -edge.x);
        let closing = across.dot(local_direction);
        if closing > 0.0 {
            let t = across.dot(vertex - local_origin) / closing;
            if exit.is_none_or(|(best, _)| t < best) {
                exit = Some((t, normal));
            }
        }
    }
    let (distance, normal) = exit?;
    Some((
        distance,
        Dir2::new(pose.rotation * normal).unwrap_or(direction),
    ))
}
