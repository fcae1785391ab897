//! Exact overlap tests and contacts for every pair of shapes.
//!
//! Each pair has an `*_intersects` function (yes/no, cheapest) and a
//! `*_contact` function; both agree exactly on the yes/no answer because they
//! make the same comparison. Touching counts as intersecting (`<=`), as in
//! `bevy_shape`.

use bevy::math::{Dir2, Vec2};

pub(in crate::geometry) mod circle_circle;
pub(in crate::geometry) mod circle_rect;
pub(in crate::geometry) mod rect_rect;
pub(in crate::geometry) mod sticks;

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
pub(super) fn normalizable(length_squared: f32) -> bool {
    length_squared >= f32::MIN_POSITIVE
}

/// `v` normalised, or `fallback` when it is too short (or not finite).
#[inline]
pub(super) fn unit_or(v: Vec2, length_squared: f32, fallback: Dir2) -> Dir2 {
    if normalizable(length_squared) && length_squared.is_finite() {
        Dir2::new_unchecked(v / length_squared.sqrt())
    } else {
        fallback
    }
}

#[cfg(test)]
mod tests {
    use super::circle_circle::*;
    use super::circle_rect::*;
    use super::rect_rect::*;
    use super::*;
    use bevy::math::{Isometry2d, Rot2};
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
