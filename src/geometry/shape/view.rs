//! Shapes as the tests take them: borrowed, small and `Copy`, so that
//! detection can keep polygons' points in one table per frame; and the one
//! check of a shape and of its placement (a pose). Their queries are in
//! `query/`, a file each.

use bevy::math::Vec2;

use bevy::math::Isometry2d;

use crate::geometry::shape::checked::{
    MAX_MAGNITUDE, ShapeError, positive_size, validate_pose, within_magnitude,
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

/// A shape at a pose, both checked: what a query's entry point makes of
/// its input once, so that nothing past it checks again. Built by
/// [`Placed::new`] (or [`Placed::pair`]), which checks; a detection's
/// snapshot records, checked when the snapshot read them, are the only
/// other source ([`Placed::read_by_snapshot`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Placed<'a> {
    shape: ShapeView<'a>,
    pose: Isometry2d,
}

impl<'a> Placed<'a> {
    /// `shape` at `pose`, once both are checked, shape first. The pose is
    /// kept bit for bit, so that answers agree with those of the unchecked
    /// pair tests at the same poses; see [`Self::renormalised`].
    #[inline]
    pub(crate) fn new(shape: ShapeView<'a>, pose: Isometry2d) -> Result<Self, ShapeError> {
        shape.validate()?;
        validate_pose(pose)?;
        Ok(Self { shape, pose })
    }

    /// Both placements, checked both shapes first, then both poses: the
    /// error is the first shape's, the second's, the first pose's, the
    /// second's, in that order.
    pub(crate) fn pair<'b>(
        (a, pa): (ShapeView<'a>, Isometry2d),
        (b, pb): (ShapeView<'b>, Isometry2d),
    ) -> Result<(Self, Placed<'b>), ShapeError> {
        a.validate()?;
        b.validate()?;
        validate_pose(pa)?;
        validate_pose(pb)?;
        let (a, b) = (Self { shape: a, pose: pa }, Placed { shape: b, pose: pb });
        Ok((a, b))
    }

    /// The same shape at `pose`, once the pose is checked (the shape was).
    #[inline]
    pub(crate) fn moved_to(self, pose: Isometry2d) -> Result<Self, ShapeError> {
        validate_pose(pose)?;
        Ok(Self { pose, ..self })
    }

    /// The same placement with the pose's rotation of unit length
    /// (the translation kept bit for bit): a valid rotation may be up to
    /// 1e-4 off, which
    /// would scale the shape by as much.
    #[inline]
    pub(crate) fn renormalised(self) -> Self {
        Self {
            pose: Isometry2d::new(self.pose.translation, self.pose.rotation.normalize()),
            ..self
        }
    }

    /// A collider as a detection's snapshot holds it: its scaled shape and
    /// pose were checked when the snapshot read them (`snapshot/read.rs`),
    /// and a record is made of nothing else.
    #[inline(always)]
    pub(crate) fn read_by_snapshot(shape: ShapeView<'a>, pose: Isometry2d) -> Self {
        debug_assert!(shape.validate().is_ok() && validate_pose(pose).is_ok());
        Self { shape, pose }
    }

    #[inline(always)]
    pub(crate) fn shape(self) -> ShapeView<'a> {
        self.shape
    }

    #[inline(always)]
    pub(crate) fn pose(self) -> Isometry2d {
        self.pose
    }
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
    use crate::geometry::shape::checked::validate_pose;
    use bevy::math::Rot2;

    const GOOD: ShapeView<'static> = ShapeView::Convex(ConvexRef::Circle { radius: 1.0 });
    const BAD: ShapeView<'static> = ShapeView::Convex(ConvexRef::Circle { radius: -1.0 });

    /// What checking a placement gives, as a plain result (`Placed` holds
    /// a view, which has no equality).
    fn placement(shape: ShapeView<'_>, pose: Isometry2d) -> Result<Isometry2d, ShapeError> {
        Placed::new(shape, pose).map(|placed| placed.renormalised().pose())
    }

    #[test]
    fn the_shape_is_blamed_before_the_pose() {
        let nan = Isometry2d::from_xy(f32::NAN, 0.0);
        let huge = Isometry2d::from_xy(2e15, 0.0);
        for pose in [nan, huge, Isometry2d::IDENTITY] {
            assert_eq!(placement(BAD, pose), Err(ShapeError::InvalidRadius(-1.0)));
            let pair = Placed::pair((GOOD, pose), (BAD, Isometry2d::IDENTITY));
            assert_eq!(pair.err(), Some(ShapeError::InvalidRadius(-1.0)));
        }
        // A NaN pose is reported as it was given (NaN is not equal to itself,
        // so compare its bits).
        for pose in [nan, huge] {
            for result in [
                placement(GOOD, pose).map(|_| ()),
                Placed::pair((GOOD, Isometry2d::IDENTITY), (GOOD, pose)).map(|_| ()),
                validate_pose(pose),
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
            placement(GOOD, skewed),
            Err(ShapeError::InvalidPose(skewed))
        );
        assert!(placement(GOOD, Isometry2d::from_xy(1e15, -1e15)).is_ok());
        // Of a pair, both shapes are blamed before either pose.
        let pair = Placed::pair((GOOD, skewed), (BAD, Isometry2d::IDENTITY));
        assert_eq!(pair.err(), Some(ShapeError::InvalidRadius(-1.0)));
        let pair = Placed::pair((GOOD, skewed), (GOOD, nan));
        assert_eq!(pair.err(), Some(ShapeError::InvalidPose(skewed)));
    }

    #[test]
    fn a_placement_moves_only_to_a_valid_pose() {
        let placed = Placed::new(GOOD, Isometry2d::IDENTITY).unwrap();
        let there = Isometry2d::from_xy(3.0, -4.0);
        assert_eq!(placed.moved_to(there).map(Placed::pose), Ok(there));
        let nan = Isometry2d::from_xy(f32::NAN, 0.0);
        assert!(matches!(
            placed.moved_to(nan),
            Err(ShapeError::InvalidPose(_))
        ));
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
        let (first, second) = Placed::pair((GOOD, pose), (GOOD, pose)).unwrap();
        // Checked, the pose as it was given.
        assert_eq!(first.pose(), pose);
        assert_eq!(Placed::new(GOOD, pose).unwrap().pose(), pose);
        for checked in [
            placement(GOOD, pose).unwrap(),
            first.renormalised().pose(),
            second.renormalised().pose(),
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
