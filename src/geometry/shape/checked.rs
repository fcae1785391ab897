//! The checks every entry point runs on a shape or a pose from outside,
//! and the errors that say why one cannot take part in collision tests.
//!
//! A check is written once here and called, never written out again: a
//! shape is valid by [`ShapeRef::validate`], a pose by [`validate_pose`],
//! and [`checked_pose`] also renormalises a valid pose's rotation. Nothing
//! here depends on the shapes' methods or on polygons, so that `shape.rs`
//! and `polygon.rs` both depend on it rather than on each other.

use bevy::math::{Isometry2d, Vec2};
use core::fmt;

use crate::geometry::shape::compound::CompoundPart;
use crate::geometry::shape::shape_ref::ShapeRef;

/// The largest size or coordinate accepted, in world units. Beyond it, squared
/// distances could overflow `f32` and the tests would lose all meaning; such
/// shapes and poses are rejected as invalid.
pub const MAX_MAGNITUDE: f32 = 1e15;

/// Why a shape or a pose cannot take part in collision tests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ShapeError {
    /// A circle or capsule radius that is zero, negative, NaN, or above
    /// [`MAX_MAGNITUDE`].
    InvalidRadius(f32),
    /// A rectangle half size with a component that is zero, negative, NaN, or
    /// above [`MAX_MAGNITUDE`].
    InvalidHalfSize(Vec2),
    /// A capsule half length that is negative, NaN or above
    /// [`MAX_MAGNITUDE`].
    InvalidLength(f32),
    /// A segment end or polygon vertex that is NaN or beyond
    /// [`MAX_MAGNITUDE`].
    InvalidVertex(Vec2),
    /// Polygon points of which fewer than three are off one line: their hull
    /// has no area.
    DegeneratePolygon,
    /// A compound with no parts.
    EmptyCompound,
    /// A concave polygon whose edges cross or touch other than at shared
    /// neighbouring vertices: not a simple polygon.
    SelfIntersecting,
    /// A pose whose translation is NaN or beyond [`MAX_MAGNITUDE`], or whose
    /// rotation is NaN or not of unit length.
    InvalidPose(Isometry2d),
    /// A transform that scales the collider to nothing on an axis (this
    /// scale): detection hides such a collider.
    ZeroScale(Vec2),
    /// Hole `i` of a polygon with holes crosses or touches the outline, or
    /// lies outside it.
    HoleNotInside(usize),
    /// Holes `i` and `j` (`i < j`) of a polygon with holes cross, touch, or
    /// one is inside the other.
    HolesOverlap(usize, usize),
    /// A heightfield scale that is not finite or whose width (`x`) is not
    /// `> 0`, or so small that neighbouring samples fall on one point.
    InvalidHeightfieldScale(Vec2),
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidRadius(r) => {
                write!(
                    f,
                    "radius must be > 0 and at most {MAX_MAGNITUDE:e}, got {r}"
                )
            }
            Self::InvalidHalfSize(h) => write!(
                f,
                "rectangle half size must be > 0 and at most {MAX_MAGNITUDE:e} on both axes, got {h}"
            ),
            Self::InvalidLength(l) => write!(
                f,
                "capsule length must be >= 0 and at most {MAX_MAGNITUDE:e}, got {}",
                2.0 * l
            ),
            Self::InvalidVertex(v) => write!(
                f,
                "points must be finite with coordinates of at most {MAX_MAGNITUDE:e}, got {v}"
            ),
            Self::DegeneratePolygon => write!(
                f,
                "a convex polygon needs at least 3 points not on one line"
            ),
            Self::EmptyCompound => write!(f, "a compound needs at least one part"),
            Self::SelfIntersecting => write!(f, "a concave polygon's edges must not cross"),
            Self::InvalidPose(p) => write!(
                f,
                "pose must have coordinates of at most {MAX_MAGNITUDE:e} and a unit rotation, got translation {} rotation (cos {}, sin {})",
                p.translation, p.rotation.cos, p.rotation.sin
            ),
            Self::ZeroScale(s) => write!(f, "scaled to nothing on an axis: scale {s}"),
            Self::HoleNotInside(i) => write!(
                f,
                "hole {i} must lie inside the outline without touching it"
            ),
            Self::InvalidHeightfieldScale(s) => write!(
                f,
                "a heightfield's scale must be finite, its width > 0 and wide enough to tell its samples apart, got {s}"
            ),
            Self::HolesOverlap(i, j) => {
                write!(f, "holes {i} and {j} must not cross, touch or nest")
            }
        }
    }
}

impl std::error::Error for ShapeError {}

/// Checks that a pose can be used: finite, with a unit-length rotation.
pub fn validate_pose(pose: Isometry2d) -> Result<(), ShapeError> {
    // `is_normalized` tolerates float noise (length within 1e-4 of 1) and
    // rejects NaN; anything beyond would skew the shape.
    // `max_element` skips NaN, so finiteness is checked on its own.
    if within_magnitude(pose.translation) && pose.rotation.is_normalized() {
        Ok(())
    } else {
        Err(ShapeError::InvalidPose(pose))
    }
}

/// The pose checked by [`validate_pose`], its rotation renormalised: a
/// valid rotation may be up to 1e-4 off unit length, which would scale the
/// shape. The translation is kept bit for bit.
#[inline]
pub(crate) fn checked_pose(pose: Isometry2d) -> Result<Isometry2d, ShapeError> {
    validate_pose(pose)?;
    Ok(Isometry2d::new(pose.translation, pose.rotation.normalize()))
}

/// Checks `shape`, then `pose`: the shape's error is the one given when both
/// are invalid. The pose is taken as it is (see [`checked_placement`] to
/// also renormalise it).
#[inline]
pub(in crate::geometry) fn validate_placement(
    shape: ShapeRef<'_>,
    pose: Isometry2d,
) -> Result<(), ShapeError> {
    shape.validate()?;
    validate_pose(pose)
}

/// `pose` for `shape` once both are checked, shape first
/// ([`validate_placement`]), with the rotation renormalised
/// ([`checked_pose`]).
#[inline]
pub(crate) fn checked_placement(
    shape: ShapeRef<'_>,
    pose: Isometry2d,
) -> Result<Isometry2d, ShapeError> {
    shape.validate()?;
    checked_pose(pose)
}

/// Finite and at most [`MAX_MAGNITUDE`] on both axes.
pub(crate) fn within_magnitude(v: Vec2) -> bool {
    v.is_finite() && v.abs().max_element() <= MAX_MAGNITUDE
}

/// `0 < value <= MAX_MAGNITUDE` (NaN fails).
fn positive_size(value: f32) -> bool {
    value > 0.0 && value <= MAX_MAGNITUDE
}

impl ShapeRef<'_> {
    /// Checks that the shape's size is finite and strictly positive (a
    /// capsule's length may be 0), and its points finite: the one shape
    /// check, behind [`Shape::validate`](crate::geometry::Shape::validate) and
    /// `Collider::validate`.
    #[inline(always)]
    pub(crate) fn validate(&self) -> Result<(), ShapeError> {
        match *self {
            ShapeRef::Circle { radius } => positive_size(radius)
                .then_some(())
                .ok_or(ShapeError::InvalidRadius(radius)),
            ShapeRef::Rect { half_size } => (positive_size(half_size.x)
                && positive_size(half_size.y))
            .then_some(())
            .ok_or(ShapeError::InvalidHalfSize(half_size)),
            ShapeRef::Capsule {
                radius,
                half_length,
            } => {
                if !positive_size(radius) {
                    Err(ShapeError::InvalidRadius(radius))
                } else if !(0.0..=MAX_MAGNITUDE).contains(&half_length) {
                    Err(ShapeError::InvalidLength(half_length))
                } else {
                    Ok(())
                }
            }
            ShapeRef::Segment { a, b } => {
                match [a, b].into_iter().find(|&p| !within_magnitude(p)) {
                    Some(bad) => Err(ShapeError::InvalidVertex(bad)),
                    None => Ok(()),
                }
            }
            ShapeRef::Polygon(polygon) => {
                let (vertices, normals) = (polygon.vertices(), polygon.normals());
                if let Some(&bad) = vertices.iter().find(|&&p| !within_magnitude(p)) {
                    Err(ShapeError::InvalidVertex(bad))
                } else if vertices.len() < 3 || normals.len() != vertices.len() {
                    Err(ShapeError::DegeneratePolygon)
                } else {
                    Ok(())
                }
            }
            ShapeRef::Compound(compound) => compound.validity(),
        }
    }
}

/// Checks a compound's parts: at least one, each pose and shape valid.
pub(crate) fn validate_parts(parts: &[CompoundPart]) -> Result<(), ShapeError> {
    if parts.is_empty() {
        return Err(ShapeError::EmptyCompound);
    }
    parts.iter().try_for_each(|part| {
        part.shape.validate()?;
        validate_pose(part.pose)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::math::Rot2;

    const GOOD: ShapeRef<'static> = ShapeRef::Circle { radius: 1.0 };
    const BAD: ShapeRef<'static> = ShapeRef::Circle { radius: -1.0 };

    #[test]
    fn the_shape_is_blamed_before_the_pose() {
        let nan = Isometry2d::from_xy(f32::NAN, 0.0);
        let huge = Isometry2d::from_xy(2e15, 0.0);
        for pose in [nan, huge, Isometry2d::IDENTITY] {
            assert_eq!(
                checked_placement(BAD, pose),
                Err(ShapeError::InvalidRadius(-1.0))
            );
            assert_eq!(
                validate_placement(BAD, pose),
                Err(ShapeError::InvalidRadius(-1.0))
            );
        }
        // A NaN pose is reported as it was given (NaN is not equal to itself,
        // so compare its bits).
        for pose in [nan, huge] {
            for result in [
                checked_placement(GOOD, pose).map(|_| ()),
                validate_placement(GOOD, pose),
                checked_pose(pose).map(|_| ()),
            ] {
                let Err(ShapeError::InvalidPose(reported)) = result else {
                    panic!("{pose:?}: {result:?}");
                };
                assert_eq!(
                    reported.translation.x.to_bits(),
                    pose.translation.x.to_bits()
                );
            }
        }
        let skewed = Isometry2d::new(Vec2::ZERO, Rot2 { cos: 2.0, sin: 0.0 });
        assert_eq!(
            checked_placement(GOOD, skewed),
            Err(ShapeError::InvalidPose(skewed))
        );
        assert!(validate_placement(GOOD, Isometry2d::from_xy(1e15, -1e15)).is_ok());
    }

    #[test]
    fn a_checked_pose_has_a_unit_rotation_and_the_same_translation() {
        // Off unit length by 5e-5: valid, and scaled by that much until
        // renormalised.
        let off = Rot2 {
            cos: 0.6 * 1.000_05,
            sin: 0.8 * 1.000_05,
        };
        let pose = Isometry2d::new(Vec2::new(3.0, -4.0), off);
        assert!(validate_pose(pose).is_ok());
        assert!((off.length() - 1.0).abs() > 1e-5);
        for checked in [
            checked_pose(pose).unwrap(),
            checked_placement(GOOD, pose).unwrap(),
        ] {
            assert_eq!(checked.translation, pose.translation);
            assert!(
                (checked.rotation.length() - 1.0).abs() < 1e-6,
                "{checked:?}"
            );
            assert!((checked.rotation.cos - 0.6).abs() < 1e-6, "{checked:?}");
            assert!((checked.rotation.sin - 0.8).abs() < 1e-6, "{checked:?}");
        }
    }
}
