//! Circle against circle: the centres at most the summed radii apart.

use bevy::math::{Dir2, Vec2};

use super::{unit_or, within};
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

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;

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
}
