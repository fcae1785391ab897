//! Rectangle against rectangle: separating axes over the four face
//! normals, and the contact point from the clipped overlap.

use bevy::math::{Dir2, Isometry2d, Rot2, Vec2};

use super::circle_rect::line_box_chord;
use super::within;
use crate::geometry::contact::Contact;

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
pub(in crate::geometry) fn rect_rect_separations(
    ha: Vec2,
    a: Isometry2d,
    hb: Vec2,
    b: Isometry2d,
) -> [f32; 4] {
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
    use super::super::test_support::*;
    use super::*;
    use core::f32::consts::FRAC_PI_4;

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
