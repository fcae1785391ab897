//! Circle against (rotated) rectangle: the circle's centre in the
//! rectangle's frame, clamped to the box (the tutorials' test, done right).

use bevy::math::{Dir2, Isometry2d, Vec2};

use super::{normalizable, within};
use crate::geometry::contact::Contact;

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

/// The parameter range `[start, end]` over which `origin + t * direction`
/// lies inside the box `[-half_size, half_size]` (slab method). Axes the line
/// runs parallel to do not restrict it.
pub(super) fn line_box_chord(origin: Vec2, direction: Vec2, half_size: Vec2) -> (f32, f32) {
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

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;
    use core::f32::consts::{FRAC_PI_4, FRAC_PI_6};

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
}
