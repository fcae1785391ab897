//! A compound scaled by a transform's scale: part by part, or, when the
//! scale is alike on both axes, all at once (reusing the part grid).

use std::sync::Arc;

use bevy::math::{Isometry2d, Rot2, Vec2};
use bevy::shape::Aabb2d;

use super::{
    Compound, CompoundPart, Parts, SMALL_COMPOUND, ScaleBounds, all_plain, parts_extent,
    validate_parts,
};
use crate::geometry::shape::checked::{ShapeError, validate_pose};
use crate::geometry::shape::view::{ConvexRef, ShapeView};
use crate::geometry::shape::{Shape, placed_extent, rect_extent};

impl Compound {
    /// The compound under a transform's `scale.xy`: each part's position
    /// times `scale` (signs included), and each part scaled along its own
    /// axes by how much `scale` stretches them, by the rule for its kind
    /// ([`Shape::scaled`]). A turned part under a scale that differs per axis
    /// keeps its kind (a rectangle stays a rectangle, stretched along its
    /// own axes) rather than shearing.
    pub(crate) fn scaled(&self, scale: Vec2) -> Result<Self, ShapeError> {
        // Unscaled, the very same parts (turning them back and forth would
        // round their poses).
        if scale == Vec2::ONE {
            return Ok(self.clone());
        }
        if let Some(points) = self.polyline_points() {
            let scaled: Vec<Vec2> = points.iter().map(|&p| p * scale).collect();
            return Self::polyline(&scaled);
        }
        if scale.x == scale.y && scale.x > 0.0 && self.inner.grid.is_none() {
            return self.scaled_alike(scale.x);
        }
        // Mirrored on one axis: the part's frame turns the other way.
        let mirrored = scale.x * scale.y < 0.0;
        let parts = self.parts().iter().map(|part| {
            let (x_axis, y_axis) = (
                (part.pose.rotation * Vec2::X) * scale,
                (part.pose.rotation * Vec2::Y) * scale,
            );
            let along = Vec2::new(x_axis.length(), y_axis.length());
            // A zero scale leaves no axis to turn to: the part has no size
            // along it, which its own check reports.
            let rotation = (Rot2 {
                sin: x_axis.y,
                cos: x_axis.x,
            })
            .try_normalize()
            .unwrap_or(Rot2::IDENTITY);
            let local = if mirrored {
                along * Vec2::new(1.0, -1.0)
            } else {
                along
            };
            Ok(CompoundPart {
                pose: Isometry2d::new(part.pose.translation * scale, rotation),
                shape: part.shape.scaled(local)?,
            })
        });
        Ok(Self::from_flat(
            parts.collect::<Result<Vec<_>, ShapeError>>()?,
        ))
    }

    /// [`Self::scaled`] by `factor` on both axes (positive), for a compound
    /// without a grid: every part keeps its turn, and its box and circle
    /// grow by `factor` too. The snapshot rescales a compound whenever its
    /// `GlobalTransform`'s scale changes, and a spinning `Transform` drifts
    /// from unit scale a little every frame, alike on both axes.
    fn scaled_alike(&self, factor: f32) -> Result<Self, ShapeError> {
        let parts = (self.parts().iter())
            .map(|part| {
                Ok(CompoundPart {
                    pose: Isometry2d::new(part.pose.translation * factor, part.pose.rotation),
                    shape: part.shape.scaled(Vec2::splat(factor))?,
                })
            })
            .collect::<Result<Vec<_>, ShapeError>>()?;
        let summary = self.inner.summary_scaled_alike(&parts, factor);
        Ok(Self {
            inner: Arc::new(Parts {
                parts: parts.into(),
                grid: None,
                validity: summary.validity,
                local_extent: summary.local_extent,
                part_radii: summary.part_radii,
                placeable: summary.placeable,
                polyline: None,
                heightfield: None,
            }),
        })
    }

    /// Makes this compound `source` scaled by `factor` on both axes, as
    /// [`Self::scaled`] builds it, in its own memory; `false`, unchanged,
    /// unless nothing else holds this compound, `factor` is positive, and
    /// `source` has no grid, is no polyline, and has as many parts as this
    /// one, all circles, rectangles, capsules or segments (owning no memory,
    /// they are written over without an allocation, and scaling them cannot
    /// fail). The snapshot rescales every spinning compound every frame or
    /// two; this one must have been built from `source`, so its parts are
    /// of the same kinds.
    pub(crate) fn rescale_alike_in_place(&mut self, source: &Self, factor: f32) -> bool {
        let from = &*source.inner;
        let plain = all_plain(&from.parts);
        let usable = factor > 0.0 && from.grid.is_none() && from.polyline.is_none() && plain;
        let Some(into) = Arc::get_mut(&mut self.inner).filter(|_| usable) else {
            return false;
        };
        if into.parts.len() != from.parts.len() {
            return false;
        }
        for (part, source_part) in into.parts.iter_mut().zip(&from.parts) {
            // As `Shape::scaled` for these kinds, which never fails.
            let Some((pose, shape)) = source_part.scaled_alike(factor) else {
                unreachable!("the parts were checked plain");
            };
            *part = CompoundPart {
                pose,
                shape: shape.to_owned(),
            };
        }
        let summary = from.summary_scaled_alike(&into.parts, factor);
        (into.grid, into.polyline) = (None, None);
        into.validity = summary.validity;
        into.local_extent = summary.local_extent;
        into.part_radii = summary.part_radii;
        into.placeable = summary.placeable;
        true
    }
}

impl Compound {
    /// The factor by which detection places this compound's parts in the
    /// world itself under a transform's signed `scale`, without building
    /// the scaled compound: `scale.x` when the scale is alike on both axes
    /// and positive, and the compound is small, valid, without a grid and
    /// of circles, rectangles, capsules and segments only.
    #[inline]
    pub(crate) fn placeable_factor(&self, scale: Vec2) -> Option<f32> {
        (self.inner.placeable.is_some() && scale.x == scale.y && scale.x > 0.0).then_some(scale.x)
    }

    /// The validity of `self.scaled(Vec2::splat(factor))`, without building
    /// it when the parts can be scaled one by one (see
    /// [`Self::placeable_factor`]).
    pub(crate) fn check_scaled_alike(&self, factor: f32) -> Result<(), ShapeError> {
        let Some(bounds) = self.inner.placeable else {
            return self.scaled(Vec2::splat(factor))?.validity();
        };
        // Valid (the common case) without reading the parts.
        if bounds.hold_under(factor) {
            return Ok(());
        }
        // The checks of `validate_parts`, in its order, on each scaled part:
        // the first to fail names the error.
        (self.parts().iter()).try_for_each(|part| match part.scaled_alike(factor) {
            Some((pose, shape)) => shape.validate().and_then(|()| validate_pose(pose)),
            None => unreachable!("a placeable compound's parts are plain"),
        })
    }

    /// [`Self::extent_at`] of `self.scaled(Vec2::splat(factor))`, a valid
    /// compound, with its parts' world boxes at `pose` from `part_boxes`
    /// when they are needed: the snapshot places the parts itself.
    #[inline]
    pub(crate) fn scaled_extent_from(
        &self,
        factor: f32,
        pose: Isometry2d,
        part_boxes: impl FnOnce() -> (Vec2, Vec2),
    ) -> (Vec2, Vec2) {
        // As `summary_scaled_alike` grows the box of two valid compounds.
        let (offset, extent) = self.inner.local_extent;
        self.extent_of((offset * factor, extent * factor), pose, part_boxes)
    }
}

impl CompoundPart {
    /// This part of a compound scaled by `factor` on both axes and placed
    /// with the compound at `pose`: its pose, shape and box, as
    /// [`Self::scaled_alike`] and `ShapeView::aabb` give them, to the bit,
    /// with one match on its kind for circles and rectangles (the snapshot
    /// places every part of every small compound each frame, and their
    /// kinds come in no order a branch predictor learns).
    #[inline(always)]
    pub(crate) fn placed_alike(
        &self,
        factor: f32,
        pose: Isometry2d,
    ) -> Option<(Isometry2d, ConvexRef<'static>, Aabb2d)> {
        let place =
            |local: Isometry2d| pose * Isometry2d::new(local.translation * factor, local.rotation);
        let boxed = |at: Isometry2d, extent: Vec2| placed_extent(at, Vec2::ZERO, extent);
        // As `ConvexRef::scaled_in_place` scales them under a scale alike on
        // both axes.
        let stretch = factor.abs();
        Some(match self.shape {
            Shape::Circle { radius } => {
                let (at, radius) = (place(self.pose), radius * stretch);
                (
                    at,
                    ConvexRef::Circle { radius },
                    boxed(at, Vec2::splat(radius)),
                )
            }
            Shape::Rect { half_size } => {
                let (at, half_size) = (place(self.pose), half_size * stretch);
                (
                    at,
                    ConvexRef::Rect { half_size },
                    boxed(at, rect_extent(at, half_size)),
                )
            }
            _ => {
                let (local, shape) = self.scaled_alike(factor)?;
                let at = pose * local;
                (at, shape, ShapeView::Convex(shape).aabb(at))
            }
        })
    }

    /// This part of a compound scaled by `factor` on both axes, as
    /// [`Compound::scaled`] builds it: its pose and shape; `None` for a
    /// polygon, whose points need memory of their own.
    #[inline]
    pub(crate) fn scaled_alike(&self, factor: f32) -> Option<(Isometry2d, ConvexRef<'static>)> {
        let ShapeView::Convex(convex) = self.shape.view() else {
            return None;
        };
        let shape = convex
            .scaled_in_place(Vec2::splat(factor))
            .without_points()?;
        let pose = Isometry2d::new(self.pose.translation * factor, self.pose.rotation);
        Some((pose, shape))
    }
}

/// What a compound knows of its parts besides them.
struct PartsSummary {
    validity: Result<(), ShapeError>,
    local_extent: (Vec2, Vec2),
    part_radii: Option<[f32; SMALL_COMPOUND]>,
    placeable: Option<ScaleBounds>,
}

impl Parts {
    /// The summary of `parts`, these parts scaled by `factor` on both axes:
    /// their validity, and their box and circles grown by `factor` from
    /// these parts' own when both are valid.
    fn summary_scaled_alike(&self, parts: &[CompoundPart], factor: f32) -> PartsSummary {
        let validity = validate_parts(parts);
        let local_extent = match (validity, self.validity) {
            (Ok(()), Ok(())) => {
                let (offset, extent) = self.local_extent;
                (offset * factor, extent * factor)
            }
            (Ok(()), Err(_)) => parts_extent(parts, Isometry2d::IDENTITY),
            (Err(_), _) => (Vec2::ZERO, Vec2::ZERO),
        };
        let part_radii = (self.part_radii)
            .filter(|_| validity.is_ok())
            .map(|radii| radii.map(|radius| radius * factor));
        PartsSummary {
            validity,
            local_extent,
            part_radii,
            // The parts keep their kinds, and no grid is built.
            placeable: part_radii.and_then(|_| ScaleBounds::of(parts)),
        }
    }
}
