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

/// What the pair families' tests share.
#[cfg(test)]
pub(super) mod test_support {
    use bevy::math::{Isometry2d, Rot2, Vec2};

    pub(crate) const EPS: f32 = 1e-5;

    pub(crate) fn pose(x: f32, y: f32, radians: f32) -> Isometry2d {
        Isometry2d::new(Vec2::new(x, y), Rot2::radians(radians))
    }

    pub(crate) fn assert_close(actual: f32, expected: f32) {
        assert!(
            (actual - expected).abs() <= EPS * expected.abs().max(1.0),
            "{actual} != {expected}"
        );
    }

    pub(crate) fn assert_vec_close(actual: Vec2, expected: Vec2) {
        assert!(
            actual.abs_diff_eq(expected, EPS * expected.length().max(1.0)),
            "{actual} != {expected}"
        );
    }

    pub(crate) fn inside_rect(point: Vec2, half_size: Vec2, rect: Isometry2d) -> bool {
        rect.inverse_transform_point(point)
            .abs()
            .cmple(half_size + EPS)
            .all()
    }
}

#[cfg(test)]
mod tests {
    use bevy::math::{Isometry2d, Vec2};

    use super::circle_circle::circle_circle_contact;
    use super::circle_rect::{circle_rect_contact, circle_rect_intersects};
    use super::rect_rect::rect_rect_contact;

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
}
