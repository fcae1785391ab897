use bevy::math::{Isometry2d, Vec2, bounding::Aabb2d};
use core::fmt;

use super::{Contact, pairs};

/// A collision shape centred on its local origin, in world units (scale
/// already applied).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// A disc of the given radius.
    Circle {
        /// Radius, `> 0`.
        radius: f32,
    },
    /// A rectangle of the given half extents, rotated with its pose about its
    /// centre.
    Rect {
        /// Half width and half height, both `> 0`.
        half_size: Vec2,
    },
}

/// The largest size or coordinate accepted, in world units. Beyond it, squared
/// distances could overflow `f32` and the tests would lose all meaning; such
/// shapes and poses are rejected as invalid.
pub const MAX_MAGNITUDE: f32 = 1e15;

/// Why a shape or a pose cannot take part in collision tests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ShapeError {
    /// A circle radius that is zero, negative, NaN, or above [`MAX_MAGNITUDE`].
    InvalidRadius(f32),
    /// A rectangle half size with a component that is zero, negative, NaN, or
    /// above [`MAX_MAGNITUDE`].
    InvalidHalfSize(Vec2),
    /// A pose whose translation is NaN or beyond [`MAX_MAGNITUDE`], or whose
    /// rotation is NaN or not of unit length.
    InvalidPose(Isometry2d),
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidRadius(r) => {
                write!(
                    f,
                    "circle radius must be > 0 and at most {MAX_MAGNITUDE:e}, got {r}"
                )
            }
            Self::InvalidHalfSize(h) => write!(
                f,
                "rectangle half size must be > 0 and at most {MAX_MAGNITUDE:e} on both axes, got {h}"
            ),
            Self::InvalidPose(p) => write!(
                f,
                "pose must have coordinates of at most {MAX_MAGNITUDE:e} and a unit rotation, got translation {} rotation (cos {}, sin {})",
                p.translation, p.rotation.cos, p.rotation.sin
            ),
        }
    }
}

impl std::error::Error for ShapeError {}

/// Checks that a pose can be used: finite, with a unit-length rotation.
pub fn validate_pose(pose: Isometry2d) -> Result<(), ShapeError> {
    // `is_normalized` tolerates float noise (length within 1e-4 of 1) and
    // rejects NaN; anything beyond would skew the shape.
    // `max_element` skips NaN, so finiteness is checked on its own.
    let translation_ok =
        pose.translation.is_finite() && pose.translation.abs().max_element() <= MAX_MAGNITUDE;
    if translation_ok && pose.rotation.is_normalized() {
        Ok(())
    } else {
        Err(ShapeError::InvalidPose(pose))
    }
}

impl Shape {
    /// Checks that the shape's size is finite and strictly positive.
    pub fn validate(&self) -> Result<(), ShapeError> {
        match *self {
            Shape::Circle { radius } => {
                if radius > 0.0 && radius <= MAX_MAGNITUDE {
                    Ok(())
                } else {
                    Err(ShapeError::InvalidRadius(radius))
                }
            }
            Shape::Rect { half_size } => {
                if half_size.cmpgt(Vec2::ZERO).all()
                    && half_size.cmple(Vec2::splat(MAX_MAGNITUDE)).all()
                {
                    Ok(())
                } else {
                    Err(ShapeError::InvalidHalfSize(half_size))
                }
            }
        }
    }

    /// The shape scaled by a transform's `scale.xy`: a rectangle's half size by
    /// `|scale|` per axis, a circle's radius by the larger of `|scale.x|`,
    /// `|scale.y|` (so the circle covers what a scaled sprite covers).
    #[must_use]
    pub fn scaled(&self, scale: Vec2) -> Self {
        let scale = scale.abs();
        match *self {
            Shape::Circle { radius } => Shape::Circle {
                radius: radius * scale.max_element(),
            },
            Shape::Rect { half_size } => Shape::Rect {
                half_size: half_size * scale,
            },
        }
    }

    /// An axis-aligned box that contains the shape at `pose`: the tightest
    /// one, widened by a few float steps so that shapes the exact tests find
    /// touching always have overlapping boxes despite rounding.
    pub fn aabb(&self, pose: Isometry2d) -> Aabb2d {
        let tight = match *self {
            Shape::Circle { radius } => Vec2::splat(radius),
            Shape::Rect { half_size } => {
                let (sin, cos) = (pose.rotation.sin.abs(), pose.rotation.cos.abs());
                Vec2::new(
                    cos * half_size.x + sin * half_size.y,
                    sin * half_size.x + cos * half_size.y,
                )
            }
        };
        // Rounding of `centre +- extent` and of the narrow-phase arithmetic is
        // relative to the magnitudes involved.
        let slack =
            (pose.translation.abs().max_element() + tight.max_element()) * (8.0 * f32::EPSILON);
        let half_extents = tight + slack;
        Aabb2d {
            min: pose.translation - half_extents,
            max: pose.translation + half_extents,
        }
    }

    /// Whether the shape at `pose` contains `point` (boundary included).
    pub fn contains_point(&self, pose: Isometry2d, point: Vec2) -> bool {
        match *self {
            Shape::Circle { radius } => {
                (point - pose.translation).length_squared() <= radius * radius
            }
            Shape::Rect { half_size } => {
                let local = pose.inverse_transform_point(point);
                local.abs().cmple(half_size).all()
            }
        }
    }

    /// Whether this shape at `pose` and `other` at `other_pose` overlap or
    /// touch. Same answer as [`Shape::contact`]`.is_some()`, cheaper.
    pub fn intersects(&self, pose: Isometry2d, other: &Shape, other_pose: Isometry2d) -> bool {
        match (*self, *other) {
            (Shape::Circle { radius: ra }, Shape::Circle { radius: rb }) => {
                pairs::circle_circle_intersects(ra, pose.translation, rb, other_pose.translation)
            }
            (Shape::Circle { radius }, Shape::Rect { half_size }) => {
                pairs::circle_rect_intersects(radius, pose.translation, half_size, other_pose)
            }
            (Shape::Rect { half_size }, Shape::Circle { radius }) => {
                pairs::circle_rect_intersects(radius, other_pose.translation, half_size, pose)
            }
            (Shape::Rect { half_size: ha }, Shape::Rect { half_size: hb }) => {
                pairs::rect_rect_intersects(ha, pose, hb, other_pose)
            }
        }
    }

    /// The contact between this shape at `pose` and `other` at `other_pose`,
    /// seen from this shape (the normal points towards `other`), or `None`
    /// when they are apart. Touching counts as a contact of depth 0.
    pub fn contact(
        &self,
        pose: Isometry2d,
        other: &Shape,
        other_pose: Isometry2d,
    ) -> Option<Contact> {
        match (*self, *other) {
            (Shape::Circle { radius: ra }, Shape::Circle { radius: rb }) => {
                pairs::circle_circle_contact(ra, pose.translation, rb, other_pose.translation)
            }
            (Shape::Circle { radius }, Shape::Rect { half_size }) => {
                pairs::circle_rect_contact(radius, pose.translation, half_size, other_pose)
            }
            (Shape::Rect { half_size }, Shape::Circle { radius }) => {
                pairs::circle_rect_contact(radius, other_pose.translation, half_size, pose)
                    .map(Contact::flipped)
            }
            (Shape::Rect { half_size: ha }, Shape::Rect { half_size: hb }) => {
                pairs::rect_rect_contact(ha, pose, hb, other_pose)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::math::Rot2;

    #[test]
    fn invalid_sizes_are_errors() {
        for radius in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert!(Shape::Circle { radius }.validate().is_err(), "{radius}");
        }
        for half_size in [
            Vec2::new(0.0, 1.0),
            Vec2::new(1.0, -1.0),
            Vec2::new(f32::NAN, 1.0),
        ] {
            assert!(Shape::Rect { half_size }.validate().is_err(), "{half_size}");
        }
        assert!(Shape::Circle { radius: 0.1 }.validate().is_ok());
        assert!(Shape::Circle { radius: 1e19 }.validate().is_err());
        assert!(
            Shape::Rect {
                half_size: Vec2::new(1.0, 1e16)
            }
            .validate()
            .is_err()
        );
        for (x, y) in [
            (f32::NAN, 0.0),
            (0.0, f32::NAN),
            (f32::INFINITY, 0.0),
            (2e15, 0.0),
        ] {
            assert!(
                validate_pose(Isometry2d::from_xy(x, y)).is_err(),
                "({x}, {y})"
            );
        }
        assert!(validate_pose(Isometry2d::new(Vec2::ZERO, Rot2 { cos: 2.0, sin: 0.0 })).is_err());
        assert!(validate_pose(Isometry2d::new(Vec2::ZERO, Rot2::radians(1.0))).is_ok());
    }

    #[test]
    fn scale_multiplies_the_shape() {
        let rect = Shape::Rect {
            half_size: Vec2::new(2.0, 1.0),
        };
        assert_eq!(
            rect.scaled(Vec2::new(-3.0, 0.5)),
            Shape::Rect {
                half_size: Vec2::new(6.0, 0.5)
            }
        );
        let circle = Shape::Circle { radius: 2.0 };
        assert_eq!(
            circle.scaled(Vec2::new(0.5, -3.0)),
            Shape::Circle { radius: 6.0 }
        );
    }

    #[test]
    fn aabb_of_a_rotated_rectangle_is_tight() {
        let rect = Shape::Rect {
            half_size: Vec2::new(2.0, 1.0),
        };
        let aabb = rect.aabb(Isometry2d::new(Vec2::new(1.0, 1.0), Rot2::degrees(90.0)));
        assert!(aabb.min.abs_diff_eq(Vec2::new(0.0, -1.0), 1e-5), "{aabb:?}");
        assert!(aabb.max.abs_diff_eq(Vec2::new(2.0, 3.0), 1e-5), "{aabb:?}");
        let circle = Shape::Circle { radius: 2.0 }.aabb(Isometry2d::from_xy(1.0, 0.0));
        assert!(
            circle.min.abs_diff_eq(Vec2::new(-1.0, -2.0), 1e-5),
            "{circle:?}"
        );
        assert!(
            circle.max.abs_diff_eq(Vec2::new(3.0, 2.0), 1e-5),
            "{circle:?}"
        );
    }

    #[test]
    fn boxes_of_exactly_touching_shapes_overlap() {
        // Found by review: c + r and c' - r' round apart although the exact
        // test says these circles touch.
        let (ra, ca) = (7.806_582_f32, Vec2::new(1.685_297_6, 0.0));
        let (rb, cb) = (5.257_290_4_f32, Vec2::new(14.749_17, 0.0));
        let (a, b) = (Shape::Circle { radius: ra }, Shape::Circle { radius: rb });
        let (pa, pb) = (
            Isometry2d::from_translation(ca),
            Isometry2d::from_translation(cb),
        );
        assert!(a.intersects(pa, &b, pb));
        let (box_a, box_b) = (a.aabb(pa), b.aabb(pb));
        assert!(box_a.max.x >= box_b.min.x, "{box_a:?} {box_b:?}");
    }

    #[test]
    fn contains_point_includes_the_boundary() {
        let rect = Shape::Rect {
            half_size: Vec2::new(2.0, 1.0),
        };
        let pose = Isometry2d::new(Vec2::ZERO, Rot2::degrees(90.0));
        assert!(rect.contains_point(pose, Vec2::new(0.0, 1.9)));
        assert!(!rect.contains_point(pose, Vec2::new(1.9, 0.0)));
        let circle = Shape::Circle { radius: 1.0 };
        assert!(circle.contains_point(Isometry2d::IDENTITY, Vec2::X));
        assert!(!circle.contains_point(Isometry2d::IDENTITY, Vec2::new(1.0, 0.01)));
    }

    #[test]
    fn rect_circle_is_circle_rect_flipped() {
        let circle = Shape::Circle { radius: 1.0 };
        let rect = Shape::Rect {
            half_size: Vec2::new(2.0, 1.0),
        };
        let (cp, rp) = (
            Isometry2d::from_xy(2.5, 0.5),
            Isometry2d::new(Vec2::ZERO, Rot2::radians(0.2)),
        );
        let from_circle = circle.contact(cp, &rect, rp).unwrap();
        let from_rect = rect.contact(rp, &circle, cp).unwrap();
        assert_eq!(from_rect, from_circle.flipped());
        assert!(rect.intersects(rp, &circle, cp) && circle.intersects(cp, &rect, rp));
    }
}
