//! Shapes as the tests take them: borrowed, small and `Copy`, so that
//! detection can keep polygons' points in one table per frame; and the one
//! check of a shape and of its placement (a pose). Their queries are in
//! `query/`, a file each.

use bevy::math::Vec2;

use bevy::math::Isometry2d;

use crate::geometry::shape::checked::{
    MAX_MAGNITUDE, ShapeError, checked_pose, positive_size, validate_pose, within_magnitude,
};
use crate::geometry::shape::compound::Compound;

/// A [`Shape`](crate::geometry::Shape) seen without owning a polygon's
/// points: what every query runs on, so that detection can keep polygons in
/// one table per frame. A compound is apart from the convex kinds, so that
/// code for convex shapes takes a [`ConvexRef`] and cannot be handed one.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ShapeView<'a> {
    Convex(ConvexRef<'a>),
    Compound(&'a Compound),
}

/// A convex shape, borrowed: what the pair tests (`pairs/`), the convex
/// cores (`convex/`) and a compound's parts are.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ConvexRef<'a> {
    Circle { radius: f32 },
    Rect { half_size: Vec2 },
    Capsule { radius: f32, half_length: f32 },
    Segment { a: Vec2, b: Vec2 },
    Polygon(PolygonRef<'a>),
}

impl<'a> From<ConvexRef<'a>> for ShapeView<'a> {
    #[inline(always)]
    fn from(convex: ConvexRef<'a>) -> Self {
        Self::Convex(convex)
    }
}

/// A polygon's vertices followed by as many normals, borrowed: one slice,
/// so that a [`ShapeView`] stays small.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PolygonRef<'a>(&'a [Vec2]);

impl<'a> PolygonRef<'a> {
    /// `points` holds the vertices, then their normals.
    #[inline]
    pub(crate) fn new(points: &'a [Vec2]) -> Self {
        Self(points)
    }

    #[inline]
    pub(crate) fn vertices(self) -> &'a [Vec2] {
        &self.0[..self.0.len() / 2]
    }

    #[inline]
    pub(crate) fn normals(self) -> &'a [Vec2] {
        &self.0[self.0.len() / 2..]
    }
}

/// Checks `shape`, then `pose`: the shape's error is the one given when both
/// are invalid. The pose is taken as it is (see [`checked_placement`] to
/// also renormalise it).
#[inline]
pub(in crate::geometry) fn validate_placement(
    shape: ShapeView<'_>,
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
    shape: ShapeView<'_>,
    pose: Isometry2d,
) -> Result<Isometry2d, ShapeError> {
    shape.validate()?;
    checked_pose(pose)
}

impl<'a> ShapeView<'a> {
    /// The shape if it is convex, `None` for a compound.
    #[inline(always)]
    pub(crate) fn convex(self) -> Option<ConvexRef<'a>> {
        match self {
            ShapeView::Convex(convex) => Some(convex),
            ShapeView::Compound(_) => None,
        }
    }

    /// Checks that the shape's size is finite and strictly positive (a
    /// capsule's length may be 0), and its points finite: the one shape
    /// check, behind [`Shape::validate`](crate::geometry::Shape::validate) and
    /// `Collider::validate`.
    #[inline(always)]
    pub(crate) fn validate(&self) -> Result<(), ShapeError> {
        match self {
            ShapeView::Convex(convex) => convex.validate(),
            ShapeView::Compound(compound) => compound.validity(),
        }
    }
}

impl ConvexRef<'_> {
    /// [`ShapeView::validate`] for a convex shape.
    #[inline(always)]
    pub(crate) fn validate(&self) -> Result<(), ShapeError> {
        match *self {
            ConvexRef::Circle { radius } => positive_size(radius)
                .then_some(())
                .ok_or(ShapeError::InvalidRadius(radius)),
            ConvexRef::Rect { half_size } => (positive_size(half_size.x)
                && positive_size(half_size.y))
            .then_some(())
            .ok_or(ShapeError::InvalidHalfSize(half_size)),
            ConvexRef::Capsule {
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
            ConvexRef::Segment { a, b } => {
                match [a, b].into_iter().find(|&p| !within_magnitude(p)) {
                    Some(bad) => Err(ShapeError::InvalidVertex(bad)),
                    None => Ok(()),
                }
            }
            ConvexRef::Polygon(polygon) => {
                let (vertices, normals) = (polygon.vertices(), polygon.normals());
                if let Some(&bad) = vertices.iter().find(|&&p| !within_magnitude(p)) {
                    Err(ShapeError::InvalidVertex(bad))
                } else if vertices.len() < 3 || normals.len() != vertices.len() {
                    Err(ShapeError::DegeneratePolygon)
                } else {
                    Ok(())
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::shape::checked::{checked_pose, validate_pose};
    use bevy::math::Rot2;

    const GOOD: ShapeView<'static> = ShapeView::Convex(ConvexRef::Circle { radius: 1.0 });
    const BAD: ShapeView<'static> = ShapeView::Convex(ConvexRef::Circle { radius: -1.0 });

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
