//! The checks every entry point runs on a shape or a pose from outside,
//! and the errors that say why one cannot take part in collision tests.
//!
//! A check is written once here and called, never written out again: a
//! shape is valid by [`ShapeView::validate`], a pose by [`validate_pose`];
//! `view.rs`'s `Placed` holds a shape and a pose that passed both. Nothing
//! here depends on the shapes' methods or on polygons, so that `shape.rs`
//! and `polygon.rs` both depend on it rather than on each other.

use bevy::math::{Isometry2d, Vec2};
use core::fmt;

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
    /// A ray whose origin is not finite, whose direction is not a finite
    /// non-zero vector, or whose `max_distance` is NaN or negative.
    InvalidRay {
        /// Where it starts.
        origin: Vec2,
        /// Which way it goes, as given.
        direction: Vec2,
        /// How far it reaches.
        max_distance: f32,
    },
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
            Self::InvalidRay {
                origin,
                direction,
                max_distance,
            } => write!(
                f,
                "a ray needs a finite origin, a unit direction and a max distance >= 0, got origin {origin} direction {direction} max distance {max_distance}"
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

/// Finite and at most [`MAX_MAGNITUDE`] on both axes.
pub(crate) fn within_magnitude(v: Vec2) -> bool {
    v.is_finite() && v.abs().max_element() <= MAX_MAGNITUDE
}

/// `0 < value <= MAX_MAGNITUDE` (NaN fails).
pub(in crate::geometry) fn positive_size(value: f32) -> bool {
    value > 0.0 && value <= MAX_MAGNITUDE
}
