//! Exact overlap tests and contacts for every pair of shapes.
//!
//! Each pair has an `*_intersects` function (yes/no, cheapest) and a
//! `*_contact` function; both agree exactly on the yes/no answer because they
//! make the same comparison. Touching counts as intersecting (`<=`), as in
//! `bevy_shape`.

use bevy::math::{Dir2, Isometry2d, Rot2, Vec2};

use crate::geometry::contact::Contact;

/// Circle vs circle: the centres are at most `ra + rb` apart.
#[inline]
pub fn circle_circle_intersects(ra: f32, ca: Vec2, rb: f32, cb: Vec2) -> bool {
    let sum = ra + rb;
    within((cb - ca).length_squared(), sum * sum)
}

/// Circle `a` vs circle `b`; the normal points from `a` to `b`.
///
/// Coincident centres have no natural direction: the normal is then `+X`.
/// The point is the middle of the overlap along the line between the centres.
pub fn circle_circle_contact(ra: f32, ca: Vec2, rb: f32, cb: Vec2) -> Option<Contact> {
    let offset = cb - ca;
    let sum = ra + rb;
    let distance_squared = offset.length_squared();
    if !within(distance_squared, sum * sum) {
        return None;
    }
    let distance = distance_squared.sqrt();
    let normal = unit_or(offset, distance_squared, Dir2::X);
    // Along the normal, a covers [-ra, ra] and b covers [d - rb, d + rb]; the
    // middle of their common part is inside both circles even when one
    // contains the other.
    let overlap_start = (-ra).max(distance - rb);
    let overlap_end = ra.min(distance + rb);
    Some(Contact::new(
        ca + normal * (0.5 * (overlap_start + overlap_end)),
        normal,
        (sum - distance).max(0.0),
    ))
}

/// The one comparison every test makes: `value <= limit`, touching included.
/// The `*_contact` functions reject with `!within(..)` so that they are the
/// exact negation of the `*_intersects` functions, NaN included (a NaN is
/// never within).
#[inline]
pub(super) fn within(value: f32, limit: f32) -> bool {
    value <= limit
}

/// Whether a vector with this squared length can be normalised accurately:
/// below the smallest normal f32 the square root loses precision and the
/// "unit" vector can be 20% off.
#[inline]
fn normalizable(length_squared: f32) -> bool {
    length_squared >= f32::MIN_POSITIVE
}

/// `v` normalised, or `fallback` when it is too short (or not finite).
#[inline]
fn unit_or(v: Vec2, length_squared: f32, fallback: Dir2) -> Dir2 {
    if normalizable(length_squared) && length_squared.is_finite() {
        Dir2::new_unchecked(v / length_squared.sqrt())
    } else {
        fallback
    }
}

/// Circle vs rotated rectangle: the point of the rectangle nearest the circle
/// centre is at most `radius` away (zero when the centre is inside).
#[inline]
pub fn circle_rect_intersects(
    radius: f32,
    center: Vec2,
    half_size: Vec2,
    rect: Isometry2d,
) -> bool {
    // Into the rectangle's frame: rotate by -angle (the inverse), not +angle.
    let local = rect.inverse_transform_point(center);
    let outside = local - local.clamp(-half_size, half_size);
    within(outside.length_squared(), radius * radius)
}

/// Circle vs rotated rectangle, seen from the circle: the normal points from
/// the circle to the rectangle.
///
/// - Centre outside the rectangle: the normal runs from the centre to the
///   nearest point of the rectangle, depth = radius - distance.
/// - Centre inside (or on the boundary): the circle leaves through the
///   nearest face, depth = distance to that face + radius. Equal distances
///   pick the x faces; a centre on the rectangle's middle line leaves through
///   the positive face.
///
/// The point is the middle of the overlap along the contact normal through
/// the circle centre.
pub fn circle_rect_contact(
    radius: f32,
    center: Vec2,
    half_size: Vec2,
    rect: Isometry2d,
) -> Option<Contact> {
    let local = rect.inverse_transform_point(center);
    let outside = local - local.clamp(-half_size, half_size);
    let distance_squared = outside.length_squared();
    if !within(distance_squared, radius * radius) {
        return None;
    }
    let (local_normal, depth) = if normalizable(distance_squared) {
        let distance = distance_squared.sqrt();
        (
            Dir2::new_unchecked(-outside / distance),
            (radius - distance).max(0.0),
        )
    } else {
        // Inside, on the boundary, or too close to it for a direction: the
        // circle leaves through the nearest face.
        let gap = half_size - local.abs();
        let exit_sign = |v: f32| if v < 0.0 { -1.0 } else { 1.0 };
        if gap.x <= gap.y {
            // The circle exits through the face on its own side, so the
            // rectangle must move the other way: the normal is opposite.
            let n = Dir2::new_unchecked(Vec2::new(-exit_sign(local.x), 0.0));
            (n, gap.x.max(0.0) + radius)
        } else {
            let n = Dir2::new_unchecked(Vec2::new(0.0, -exit_sign(local.y)));
            (n, gap.y.max(0.0) + radius)
        }
    };
    let (chord_start, chord_end) = line_box_chord(local, *local_normal, half_size);
    let overlap_start = (-radius).max(chord_start);
    let overlap_end = radius.min(chord_end);
    let normal = rect.rotation * local_normal;
    Some(Contact::new(
        center + normal * (0.5 * (overlap_start + overlap_end)),
        normal,
        depth,
    ))
}

/// A capsule's or a segment's shape as the circle tests see it: the core
/// segment from `a` to `b` in the shape's own frame, grown by `radius` (0
/// for a segment).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stick {
    pub(crate) a: Vec2,
    pub(crate) b: Vec2,
    pub(crate) radius: f32,
}

impl Stick {
    /// A capsule of `radius` whose core runs `half_length` along local y.
    #[inline]
    pub(crate) fn capsule(radius: f32, half_length: f32) -> Self {
        Self {
            a: Vec2::new(0.0, -half_length),
            b: Vec2::new(0.0, half_length),
            radius,
        }
    }

    /// The segment from `a` to `b`.
    #[inline]
    pub(crate) fn segment(a: Vec2, b: Vec2) -> Self {
        Self { a, b, radius: 0.0 }
    }
}

/// A circle's `center` against `stick` placed by `pose`: the offset from
/// the centre to the nearest point of the stick's core, in the stick's
/// frame, and its squared length. `None` when the centre is within rounding
/// of the core (or not finite): no direction is reliable there, and the
/// general test decides.
///
/// These three are always inlined: called, they passed the stick through
/// memory, and reading it back stalled (a contact took 39 ns, inlined 13).
#[inline(always)]
fn circle_stick_nearest(center: Vec2, stick: Stick, pose: Isometry2d) -> Option<(Vec2, f32)> {
    let local = pose.inverse_transform_point(center);
    let along = stick.b - stick.a;
    let length_squared = along.length_squared();
    let t = if length_squared > 0.0 {
        ((local - stick.a).dot(along) / length_squared).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let offset = stick.a + along * t - local;
    let distance_squared = offset.length_squared();
    let largest = local
        .abs()
        .max(stick.a.abs())
        .max(stick.b.abs())
        .max_element();
    let noise = 64.0 * f32::EPSILON * largest;
    // Also `None` for NaN.
    (distance_squared > noise * noise).then_some((offset, distance_squared))
}

/// Circle vs capsule or segment: the centre is at most the sum of the
/// radii from the stick's core. `None` when the general test must decide
/// (see [`circle_stick_nearest`]).
#[inline(always)]
pub(crate) fn circle_stick_intersects(
    radius: f32,
    center: Vec2,
    stick: Stick,
    pose: Isometry2d,
) -> Option<bool> {
    let (_, distance_squared) = circle_stick_nearest(center, stick, pose)?;
    let sum = radius + stick.radius;
    Some(within(distance_squared, sum * sum))
}

/// Circle vs capsule or segment, seen from the circle: the normal runs from
/// the centre to the nearest point of the stick's core, and the point is the
/// middle of the overlap along it. `None` when the general test must
/// decide, `Some(None)` when they are apart.
#[inline(always)]
pub(crate) fn circle_stick_contact(
    radius: f32,
    center: Vec2,
    stick: Stick,
    pose: Isometry2d,
) -> Option<Option<Contact>> {
    let (offset, distance_squared) = circle_stick_nearest(center, stick, pose)?;
    let sum = radius + stick.radius;
    if !within(distance_squared, sum * sum) {
        return Some(None);
    }
    let distance = distance_squared.sqrt();
    let normal = pose.rotation * (offset / distance);
    let overlap_start = (-radius).max(distance - stick.radius);
    let overlap_end = radius.min(distance + stick.radius);
    Some(Some(Contact::new(
        center + normal * (0.5 * (overlap_start + overlap_end)),
        Dir2::new_unchecked(normal),
        (sum - distance).max(0.0),
    )))
}

/// The parameter range `[start, end]` over which `origin + t * direction`
/// lies inside the box `[-half_size, half_size]` (slab method). Axes the line
/// runs parallel to do not restrict it.
fn line_box_chord(origin: Vec2, direction: Vec2, half_size: Vec2) -> (f32, f32) {
    let mut start = f32::NEG_INFINITY;
    let mut end = f32::INFINITY;
    for axis in 0..2 {
        let d = direction[axis];
        if d != 0.0 {
            let t1 = (-half_size[axis] - origin[axis]) / d;
            let t2 = (half_size[axis] - origin[axis]) / d;
            start = start.max(t1.min(t2));
            end = end.min(t1.max(t2));
        }
    }
    (start, end)
}

/// The separating-axis data of two rectangles: their centre offset and the
/// orientation of `b` in `a`'s frame.
struct RectPair {
    /// Centre of `b` in `a`'s frame.
    offset: Vec2,
    /// `b`'s x and y axes in `a`'s frame.
    b_x: Vec2,
    b_y: Vec2,
}

impl RectPair {
    #[inline]
    fn new(a: Isometry2d, b: Isometry2d) -> Self {
        let to_a = a.rotation.inverse();
        let relative: Rot2 = to_a * b.rotation;
        Self {
            offset: to_a * (b.translation - a.translation),
            b_x: Vec2::new(relative.cos, relative.sin),
            b_y: Vec2::new(-relative.sin, relative.cos),
        }
    }

    /// Signed separations along the four face normals (a.x, a.y, b.x, b.y):
    /// positive means a gap, negative an overlap of that size. The rectangles
    /// intersect exactly when none is positive.
    #[inline]
    fn separations(&self, ha: Vec2, hb: Vec2) -> [f32; 4] {
        let (bx, by, d) = (self.b_x.abs(), self.b_y.abs(), self.offset);
        // Components of d along b's axes (b's frame, expressed from a's).
        let d_on_bx = d.dot(self.b_x);
        let d_on_by = d.dot(self.b_y);
        [
            d.x.abs() - (ha.x + bx.x * hb.x + by.x * hb.y),
            d.y.abs() - (ha.y + bx.y * hb.x + by.y * hb.y),
            d_on_bx.abs() - (hb.x + bx.x * ha.x + bx.y * ha.y),
            d_on_by.abs() - (hb.y + by.x * ha.x + by.y * ha.y),
        ]
    }
}

/// The four face-normal separations of two rectangles, along a's x and y
/// axes then b's: each a lower bound of the distance between them when
/// positive (every separating axis gap is at most the true distance); they
/// overlap when none is positive.
#[inline]
pub(super) fn rect_rect_separations(ha: Vec2, a: Isometry2d, hb: Vec2, b: Isometry2d) -> [f32; 4] {
    RectPair::new(a, b).separations(ha, hb)
}

/// Rotated rectangle vs rotated rectangle by separating axes on the four face
/// normals.
#[inline]
pub fn rect_rect_intersects(ha: Vec2, a: Isometry2d, hb: Vec2, b: Isometry2d) -> bool {
    RectPair::new(a, b)
        .separations(ha, hb)
        .iter()
        .all(|&s| within(s, 0.0))
}

/// Rotated rectangle `a` vs rotated rectangle `b`; the normal points from `a`
/// to `b`.
///
/// The normal is the face normal with the smallest overlap, which for convex
/// polygons is the true penetration depth. Ties pick the first of a.x, a.y,
/// b.x, b.y; a zero offset along the chosen axis picks its positive side. The
/// point is the middle of the part of the incident face (the other
/// rectangle's face most opposed to the normal) that lies inside the
/// reference rectangle (whose face gives the normal), as in Box2D's clipping;
/// when none of that face is inside (one rectangle deep inside the other),
/// the centroid of the overlap region.
pub fn rect_rect_contact(ha: Vec2, a: Isometry2d, hb: Vec2, b: Isometry2d) -> Option<Contact> {
    let pair = RectPair::new(a, b);
    let separations = pair.separations(ha, hb);
    let mut best = 0;
    for (axis, &separation) in separations.iter().enumerate() {
        if !within(separation, 0.0) {
            return None;
        }
        if separation > separations[best] {
            best = axis;
        }
    }
    // The chosen axis in a's frame.
    let axis = match best {
        0 => Vec2::X,
        1 => Vec2::Y,
        2 => pair.b_x,
        _ => pair.b_y,
    };
    let local_normal = if pair.offset.dot(axis) < 0.0 {
        -axis
    } else {
        axis
    };
    let point = if best < 2 {
        incident_face_middle(ha, &pair, hb, local_normal).map(|p| a.transform_point(p))
    } else {
        // b's face is the reference: the same seen from b.
        let seen_from_b = RectPair::new(b, a);
        let normal_in_b = Vec2::new(local_normal.dot(pair.b_x), local_normal.dot(pair.b_y));
        incident_face_middle(hb, &seen_from_b, ha, -normal_in_b).map(|p| b.transform_point(p))
    };
    // Sizes of very different magnitudes (1e15 against 1e-30) can overflow
    // the clipping into NaN: then the fallbacks below, which stay finite.
    let point = point.filter(|p| p.is_finite()).unwrap_or_else(|| {
        let centroid = overlap_centroid(ha, &pair, hb).filter(|p| p.is_finite());
        let local_point = centroid.unwrap_or_else(|| {
            // Reachable when rounding clips a touching contact away: b's
            // corner deepest towards a, pulled into a.
            let corner = pair.offset
                - pair.b_x * (hb.x * pair.b_x.dot(local_normal).signum())
                - pair.b_y * (hb.y * pair.b_y.dot(local_normal).signum());
            corner.clamp(-ha, ha)
        });
        a.transform_point(local_point)
    });
    Some(Contact::new(
        point,
        Dir2::new_unchecked(a.rotation * local_normal),
        (-separations[best]).max(0.0),
    ))
}

/// The middle of the part of `b`'s face most opposed to `normal` (which
/// points from `a` towards `b`) that lies inside rectangle `a`, in `a`'s
/// frame, or `None` if no part of it does. Liang–Barsky clipping of one
/// segment: a few multiplies instead of clipping a polygon four times.
#[inline]
fn incident_face_middle(ha: Vec2, pair: &RectPair, hb: Vec2, normal: Vec2) -> Option<Vec2> {
    // b's face whose outward normal is most opposed to `normal`: the face
    // normal is ±b_x or ±b_y, whichever has the most negative dot product.
    let (on_x, on_y) = (normal.dot(pair.b_x), normal.dot(pair.b_y));
    let (face_normal, face_half, along, along_half) = if on_x.abs() >= on_y.abs() {
        (pair.b_x * -on_x.signum(), hb.x, pair.b_y, hb.y)
    } else {
        (pair.b_y * -on_y.signum(), hb.y, pair.b_x, hb.x)
    };
    let centre = pair.offset + face_normal * face_half;
    let start = centre - along * along_half;
    let direction = along * (2.0 * along_half);
    // Widened so that a face lying exactly on a's edge is not clipped away
    // by rounding.
    let (t0, t1) = segment_box_chord(start, direction, ha + clip_slack(ha, pair, hb));
    (t0 <= t1).then(|| start + direction * (0.5 * (t0 + t1)))
}

/// The parameter range `[start, end]` within `[0, 1]` over which
/// `origin + t * direction` lies inside the box `[-half_size, half_size]`;
/// empty (`start > end`) when it never does.
#[inline]
fn segment_box_chord(origin: Vec2, direction: Vec2, half_size: Vec2) -> (f32, f32) {
    // `line_box_chord` leaves axes the segment runs parallel to free.
    if (direction.cmpeq(Vec2::ZERO) & origin.abs().cmpgt(half_size)).any() {
        return (1.0, 0.0);
    }
    let (start, end) = line_box_chord(origin, direction, half_size);
    (start.max(0.0), end.min(1.0))
}

/// How far clipping against `a`'s sides widens them: a few float steps at
/// the scale of the pair, so that rounding cannot clip a touching contact
/// away.
#[inline]
fn clip_slack(ha: Vec2, pair: &RectPair, hb: Vec2) -> f32 {
    (pair.offset.abs().max_element() + ha.max_element() + hb.max_element()) * (8.0 * f32::EPSILON)
}

/// Centroid of the intersection of rectangle `b` with rectangle `a`, in `a`'s
/// frame (Sutherland–Hodgman clipping of b's corners by a's four sides). For
/// a degenerate (zero-area) intersection, the average of its vertices.
fn overlap_centroid(ha: Vec2, pair: &RectPair, hb: Vec2) -> Option<Vec2> {
    let ex = pair.b_x * hb.x;
    let ey = pair.b_y * hb.y;
    let c = pair.offset;
    let mut polygon =
        ClipPolygon::from_corners([c + ex + ey, c - ex + ey, c - ex - ey, c + ex - ey]);
    // Clip by x <= ha.x, -x <= ha.x, y <= ha.y, -y <= ha.y, each widened:
    // shapes that only touch then leave a thin sliver along the shared edge
    // instead of nothing at all.
    let slack = clip_slack(ha, pair, hb);
    let (hx, hy) = (ha.x + slack, ha.y + slack);
    for (axis, limit) in [
        (Vec2::X, hx),
        (Vec2::NEG_X, hx),
        (Vec2::Y, hy),
        (Vec2::NEG_Y, hy),
    ] {
        polygon = polygon.clip(axis, limit);
        if polygon.len == 0 {
            return None;
        }
    }
    Some(polygon.centroid())
}

/// A convex polygon of at most 8 vertices (a quad clipped by four lines),
/// kept on the stack.
#[derive(Clone, Copy)]
struct ClipPolygon {
    vertices: [Vec2; 8],
    len: usize,
}

impl ClipPolygon {
    fn from_corners(corners: [Vec2; 4]) -> Self {
        let mut vertices = [Vec2::ZERO; 8];
        vertices[..4].copy_from_slice(&corners);
        Self { vertices, len: 4 }
    }

    fn push(&mut self, v: Vec2) {
        // A quad clipped by 4 half-planes has at most 8 vertices; the guard
        // only matters if rounding ever produced more, which would drop a
        // duplicate-like vertex rather than panic.
        if self.len < self.vertices.len() {
            self.vertices[self.len] = v;
            self.len += 1;
        }
    }

    /// Keeps the part where `v.dot(normal) <= limit`. Each edge is walked
    /// from the previous vertex, so no index wraps with a division.
    fn clip(&self, normal: Vec2, limit: f32) -> Self {
        let mut out = Self {
            vertices: [Vec2::ZERO; 8],
            len: 0,
        };
        let vertices = &self.vertices[..self.len];
        let Some(&last) = vertices.last() else {
            return out;
        };
        let (mut previous, mut dp) = (last, last.dot(normal) - limit);
        for &current in vertices {
            let dc = current.dot(normal) - limit;
            if (dp < 0.0 && dc > 0.0) || (dp > 0.0 && dc < 0.0) {
                out.push(previous + (current - previous) * (dp / (dp - dc)));
            }
            if dc <= 0.0 {
                out.push(current);
            }
            (previous, dp) = (current, dc);
        }
        out
    }

    fn centroid(&self) -> Vec2 {
        let vertices = &self.vertices[..self.len];
        let average = vertices.iter().copied().sum::<Vec2>() / self.len as f32;
        // Shoelace formula relative to the average, for precision.
        let mut twice_area = 0.0;
        let mut weighted = Vec2::ZERO;
        let mut scale = 0.0f32;
        let mut p = vertices[self.len - 1] - average;
        for &vertex in vertices {
            let q = vertex - average;
            let cross = p.perp_dot(q);
            twice_area += cross;
            weighted += (p + q) * cross;
            scale = scale.max(q.length_squared());
            p = q;
        }
        if twice_area.abs() <= scale * 1e-6 {
            average
        } else {
            average + weighted / (3.0 * twice_area)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::f32::consts::{FRAC_PI_4, FRAC_PI_6};

    const EPS: f32 = 1e-5;

    fn pose(x: f32, y: f32, radians: f32) -> Isometry2d {
        Isometry2d::new(Vec2::new(x, y), Rot2::radians(radians))
    }

    fn assert_close(actual: f32, expected: f32) {
        assert!(
            (actual - expected).abs() <= EPS * expected.abs().max(1.0),
            "{actual} != {expected}"
        );
    }

    fn assert_vec_close(actual: Vec2, expected: Vec2) {
        assert!(
            actual.abs_diff_eq(expected, EPS * expected.length().max(1.0)),
            "{actual} != {expected}"
        );
    }

    fn inside_rect(point: Vec2, half_size: Vec2, rect: Isometry2d) -> bool {
        rect.inverse_transform_point(point)
            .abs()
            .cmple(half_size + EPS)
            .all()
    }

    // ---- circle vs circle ----

    #[test]
    fn circles_apart_touching_and_overlapping() {
        assert!(circle_circle_contact(1.0, Vec2::ZERO, 2.0, Vec2::new(3.01, 0.0)).is_none());
        assert!(!circle_circle_intersects(
            1.0,
            Vec2::ZERO,
            2.0,
            Vec2::new(3.01, 0.0)
        ));

        let touching = circle_circle_contact(1.0, Vec2::ZERO, 2.0, Vec2::new(3.0, 0.0)).unwrap();
        assert!(circle_circle_intersects(
            1.0,
            Vec2::ZERO,
            2.0,
            Vec2::new(3.0, 0.0)
        ));
        assert_eq!(touching.depth, 0.0);
        assert_eq!(touching.normal, Dir2::X);
        assert_vec_close(touching.point, Vec2::new(1.0, 0.0));

        let c = circle_circle_contact(1.0, Vec2::new(1.0, 1.0), 1.0, Vec2::new(1.0, 2.5)).unwrap();
        assert_vec_close(*c.normal, Vec2::Y);
        assert_close(c.depth, 0.5);
        assert_vec_close(c.point, Vec2::new(1.0, 1.75));
    }

    #[test]
    fn coincident_circles_push_along_x() {
        let c = circle_circle_contact(1.0, Vec2::splat(4.0), 3.0, Vec2::splat(4.0)).unwrap();
        assert_eq!(c.normal, Dir2::X);
        assert_close(c.depth, 4.0);
        assert!(c.point.is_finite());
    }

    #[test]
    fn small_circle_inside_large_circle_has_point_inside_both() {
        let (ra, ca, rb, cb) = (10.0, Vec2::ZERO, 1.0, Vec2::new(-3.0, 0.0));
        let c = circle_circle_contact(ra, ca, rb, cb).unwrap();
        assert_eq!(c.normal, Dir2::NEG_X);
        assert_close(c.depth, 8.0);
        assert!(
            c.point.distance(ca) <= ra + EPS && c.point.distance(cb) <= rb + EPS,
            "{}",
            c.point
        );
    }

    // ---- circle vs rectangle ----

    #[test]
    fn rotation_is_counter_clockwise_radians_about_the_centre() {
        // A long thin plank turned +30 degrees (counter-clockwise): its right
        // end is up and to the right, not down.
        let plank = pose(0.0, 0.0, FRAC_PI_6);
        let half = Vec2::new(100.0, 10.0);
        let up_right = Vec2::new(90.0 * FRAC_PI_6.cos(), 90.0 * FRAC_PI_6.sin());
        let down_right = Vec2::new(up_right.x, -up_right.y);
        assert!(circle_rect_intersects(1.0, up_right, half, plank));
        assert!(!circle_rect_intersects(1.0, down_right, half, plank));
        // 30 is radians here, not degrees: 30 rad is about -78 degrees.
        assert!(!circle_rect_intersects(
            1.0,
            up_right,
            half,
            pose(0.0, 0.0, 30.0)
        ));
        // Centred on the pose: both ends reach 100 units from it.
        let shifted = pose(500.0, -200.0, 0.0);
        assert!(circle_rect_intersects(
            1.0,
            Vec2::new(401.0, -200.0),
            half,
            shifted
        ));
        assert!(circle_rect_intersects(
            1.0,
            Vec2::new(599.0, -200.0),
            half,
            shifted
        ));
        assert!(!circle_rect_intersects(
            1.0,
            Vec2::new(602.0, -200.0),
            half,
            shifted
        ));
    }

    #[test]
    fn circle_beside_a_face() {
        let rect = pose(0.0, 0.0, 0.0);
        let half = Vec2::new(2.0, 1.0);
        let c = circle_rect_contact(1.0, Vec2::new(0.5, 1.75), half, rect).unwrap();
        assert_vec_close(*c.normal, Vec2::NEG_Y);
        assert_close(c.depth, 0.25);
        assert!(
            inside_rect(c.point, half, rect) && c.point.distance(Vec2::new(0.5, 1.75)) <= 1.0 + EPS
        );
        // Touching the face exactly collides with depth 0.
        let touching = circle_rect_contact(1.0, Vec2::new(3.0, 0.0), half, rect).unwrap();
        assert_eq!(touching.depth, 0.0);
        assert_vec_close(*touching.normal, Vec2::NEG_X);
        assert_vec_close(touching.point, Vec2::new(2.0, 0.0));
    }

    #[test]
    fn corner_inside_the_bounding_box_but_outside_the_shape() {
        let half = Vec2::ONE;
        let rect = Isometry2d::IDENTITY;
        // Bounding boxes overlap (1.8 - 1 < 1), the circle misses the corner.
        assert!(!circle_rect_intersects(1.0, Vec2::splat(1.8), half, rect));
        assert!(circle_rect_contact(1.0, Vec2::splat(1.8), half, rect).is_none());
        // Closer in, it hits the corner and is pushed out diagonally.
        let c = circle_rect_contact(1.0, Vec2::splat(1.6), half, rect).unwrap();
        assert_vec_close(*c.normal, Vec2::splat(-FRAC_PI_4.cos()));
        assert_close(c.depth, 1.0 - 0.6 * 2f32.sqrt());
        assert!(inside_rect(c.point, half, rect));
    }

    #[test]
    fn circle_centre_inside_the_rectangle_leaves_through_the_nearest_face() {
        let half = Vec2::new(4.0, 2.0);
        let rect = pose(10.0, 0.0, FRAC_PI_6);
        // Centre 0.5 below the top face in the rectangle's frame.
        let center = rect.transform_point(Vec2::new(-1.0, 1.5));
        let c = circle_rect_contact(1.0, center, half, rect).unwrap();
        // The circle goes up (+y of the rectangle), so the rectangle is
        // pushed the other way: the normal from circle to rectangle is -y.
        assert_vec_close(*c.normal, rect.rotation * Vec2::NEG_Y);
        assert_close(c.depth, 0.5 + 1.0);
        assert!(inside_rect(c.point, half, rect) && c.point.distance(center) <= 1.0 + EPS);
        // Moving the rectangle by normal * depth leaves them just touching.
        let moved = Isometry2d::new(rect.translation + c.normal * c.depth, rect.rotation);
        let after = circle_rect_contact(1.0, center, half, moved).unwrap();
        assert!(after.depth < 1e-4, "{}", after.depth);
    }

    #[test]
    fn big_circle_swallowing_a_small_rectangle() {
        let half = Vec2::splat(0.5);
        let c =
            circle_rect_contact(10.0, Vec2::new(0.0, -0.2), half, Isometry2d::IDENTITY).unwrap();
        assert_vec_close(*c.normal, Vec2::Y);
        // Out through the nearer (bottom) face: 0.3 to go, plus the radius.
        assert_close(c.depth, 0.3 + 10.0);
        assert!(inside_rect(c.point, half, Isometry2d::IDENTITY));
    }

    #[test]
    fn circle_at_the_rectangle_centre() {
        // Nearest faces are the y faces (half height 1 < half width 2).
        let c = circle_rect_contact(0.5, Vec2::ZERO, Vec2::new(2.0, 1.0), Isometry2d::IDENTITY)
            .unwrap();
        assert_eq!(*c.normal, Vec2::NEG_Y);
        assert_close(c.depth, 1.5);
        // On a square the x faces win the tie.
        let c = circle_rect_contact(0.5, Vec2::ZERO, Vec2::ONE, Isometry2d::IDENTITY).unwrap();
        assert_eq!(*c.normal, Vec2::NEG_X);
        assert!(c.point.is_finite());
    }

    #[test]
    fn circle_centre_exactly_on_an_edge() {
        let c = circle_rect_contact(
            1.0,
            Vec2::new(2.0, 0.3),
            Vec2::new(2.0, 1.0),
            Isometry2d::IDENTITY,
        )
        .unwrap();
        assert_eq!(*c.normal, Vec2::NEG_X);
        assert_close(c.depth, 1.0);
    }

    #[test]
    fn tiny_offsets_give_unit_normals() {
        // Offsets whose squares are subnormal would normalise up to 20% off;
        // they are treated like coincident centres / a centre on the edge.
        let c = circle_circle_contact(1.0, Vec2::ZERO, 1.0, Vec2::new(3e-23, 0.0)).unwrap();
        assert!(c.normal.is_normalized());
        let c = circle_rect_contact(
            1.0,
            Vec2::new(1e-16 + 3.3e-23, 0.0),
            Vec2::new(1e-16, 1.0),
            Isometry2d::IDENTITY,
        )
        .unwrap();
        assert!(c.normal.is_normalized() && c.point.is_finite(), "{c:?}");
    }

    #[test]
    fn non_finite_input_is_never_a_contact() {
        let far = Isometry2d::from_xy(-3e38, 0.0);
        let center = Vec2::new(3e38, 0.0);
        assert_eq!(
            circle_rect_intersects(1.0, center, Vec2::ONE, far),
            circle_rect_contact(1.0, center, Vec2::ONE, far).is_some()
        );
        let nan = Vec2::new(f32::NAN, 0.0);
        assert!(circle_circle_contact(1.0, Vec2::ZERO, 1.0, nan).is_none());
        assert!(
            rect_rect_contact(
                Vec2::ONE,
                Isometry2d::from_translation(nan),
                Vec2::ONE,
                Isometry2d::IDENTITY
            )
            .is_none()
        );
    }

    // ---- rectangle vs rectangle ----

    #[test]
    fn aligned_rectangles() {
        let half = Vec2::ONE;
        let (a, b) = (Isometry2d::IDENTITY, pose(1.5, 0.2, 0.0));
        let c = rect_rect_contact(half, a, half, b).unwrap();
        assert_eq!(*c.normal, Vec2::X);
        assert_close(c.depth, 0.5);
        // b's left face (x = 0.5) is the incident face; its part inside a
        // runs from y = -0.8 to y = 1.
        assert_vec_close(c.point, Vec2::new(0.5, 0.1));
        // Edges touching exactly.
        let touching = rect_rect_contact(half, a, half, pose(2.0, 1.5, 0.0)).unwrap();
        assert_eq!(touching.depth, 0.0);
        assert_eq!(*touching.normal, Vec2::X);
        assert!(inside_rect(touching.point, half, a));
        assert!(rect_rect_contact(half, a, half, pose(2.001, 0.0, 0.0)).is_none());
    }

    #[test]
    fn diamond_corner_into_a_face() {
        let half = Vec2::ONE;
        let b = pose(1.0 + 2f32.sqrt() - 0.1, 0.0, FRAC_PI_4);
        let c = rect_rect_contact(half, Isometry2d::IDENTITY, half, b).unwrap();
        assert_vec_close(*c.normal, Vec2::X);
        assert_close(c.depth, 0.1);
        assert!(inside_rect(c.point, half, Isometry2d::IDENTITY) && inside_rect(c.point, half, b));
        // Seen from the diamond, the normal is reversed.
        let flipped = rect_rect_contact(half, b, half, Isometry2d::IDENTITY).unwrap();
        assert_vec_close(*flipped.normal, Vec2::NEG_X);
        assert_close(flipped.depth, 0.1);
    }

    #[test]
    fn corner_to_corner_bounding_boxes_overlap_but_shapes_do_not() {
        let half = Vec2::ONE;
        let b = pose(2.3, 2.3, FRAC_PI_4);
        assert!(!rect_rect_intersects(half, Isometry2d::IDENTITY, half, b));
        assert!(rect_rect_contact(half, Isometry2d::IDENTITY, half, b).is_none());
        assert!(rect_rect_intersects(
            half,
            Isometry2d::IDENTITY,
            half,
            pose(1.6, 1.6, FRAC_PI_4)
        ));
    }

    #[test]
    fn coincident_and_contained_rectangles() {
        let c = rect_rect_contact(
            Vec2::ONE,
            Isometry2d::IDENTITY,
            Vec2::ONE,
            Isometry2d::IDENTITY,
        )
        .unwrap();
        assert_eq!(*c.normal, Vec2::X);
        assert_close(c.depth, 2.0);
        // The middle of b's incident (left) face, which lies on a's left edge.
        assert_vec_close(c.point, Vec2::new(-1.0, 0.0));

        let big = Vec2::new(10.0, 5.0);
        let small = Vec2::new(1.0, 0.5);
        let inner = pose(2.0, -3.5, 0.3);
        let c = rect_rect_contact(big, Isometry2d::IDENTITY, small, inner).unwrap();
        // Nearest way out for the small one is down through the bottom face.
        assert_vec_close(*c.normal, Vec2::NEG_Y);
        let small_extent_y = 0.3f32.sin() * 1.0 + 0.3f32.cos() * 0.5;
        assert_close(c.depth, 5.0 - 3.5 + small_extent_y);
        assert!(
            inside_rect(c.point, big, Isometry2d::IDENTITY) && inside_rect(c.point, small, inner)
        );
    }

    #[test]
    fn rotated_parallel_edges() {
        // Two rectangles turned by the same angle, side by side along their
        // own x axis and overlapping by 0.25.
        let angle = 0.7;
        let half = Vec2::new(1.0, 0.5);
        let a = pose(3.0, 4.0, angle);
        let b = Isometry2d::new(
            a.transform_point(Vec2::new(1.75, 0.1)),
            Rot2::radians(angle),
        );
        let c = rect_rect_contact(half, a, half, b).unwrap();
        assert_vec_close(*c.normal, a.rotation * Vec2::X);
        assert_close(c.depth, 0.25);
        assert!(inside_rect(c.point, half, a) && inside_rect(c.point, half, b));
    }
}
