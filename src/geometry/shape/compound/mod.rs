//! Compound shapes: several shapes at poses relative to one, moved as one.
//!
//! Every pair operation reaches a compound through the pair dispatch
//! (`query/dispatch.rs`, its walk over the parts in `query/parts.rs`): it
//! runs on each part against the other shape and keeps the best answer (any
//! overlap, the deepest contact, the earliest touch, the nearest hit).

use core::fmt;
use std::sync::Arc;

use bevy::math::{Isometry2d, Rot2, Vec2};
use bevy::reflect::Reflect;
#[cfg(feature = "serialize")]
use bevy::reflect::{ReflectDeserialize, ReflectSerialize};
use bevy::shape::Aabb2d;

use crate::geometry::shape::Shape;
use crate::geometry::shape::checked::ShapeError;
use crate::geometry::shape::checked::{validate_pose, within_magnitude};
use crate::geometry::shape::part_grid::PartGrid;
use crate::geometry::shape::polyline::ChainSegment;
use crate::util::prefetch::{prefetch, prefetch_slice};

mod scale;

/// Compounds of at most this many parts keep their parts' bounding circles,
/// and two of them are tested part pair by part pair
/// ([`Compound::visit_near_part_pairs`]).
pub(crate) const SMALL_COMPOUND: usize = 16;

/// One part of a [`Compound`]: a shape placed at `pose` relative to the
/// compound's own pose.
#[derive(Clone, Debug, PartialEq, Reflect)]
#[reflect(Debug, PartialEq, Clone)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", reflect(Serialize, Deserialize))]
pub struct CompoundPart {
    /// Where the part is relative to the compound.
    pub pose: Isometry2d,
    /// The part's shape, never itself a compound.
    pub shape: Shape,
}

/// Several shapes moved as one: an L-shaped wall, a ship's hull and wings,
/// a concave outline cut into convex pieces. Tests against a compound test
/// each part and keep the deepest contact (the earliest, for times of
/// impact and casts).
///
/// Cloning is cheap: the parts are shared. A compound of many parts keeps a
/// grid over them, so that a test looks only at the parts near the other
/// shape.
#[derive(Clone, Reflect)]
#[reflect(opaque)]
#[reflect(Debug, PartialEq, Clone)]
#[cfg_attr(feature = "serialize", reflect(Serialize, Deserialize))]
#[cfg_attr(
    feature = "serialize",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "CompoundData", into = "CompoundData")
)]
pub struct Compound {
    inner: Arc<Parts>,
}

/// A compound's parts and the grid over them. In this order: what the
/// snapshot reads of every small compound every frame (where the parts
/// are, the scale bounds, the box) comes first, in one cache line or two.
#[derive(Debug)]
#[repr(C)]
struct Parts {
    parts: Box<[CompoundPart]>,
    /// When detection places the parts in the world itself
    /// ([`Compound::placeable_factor`]), the bounds its scale is checked
    /// against: a valid compound of a few parts (`part_radii`), without a
    /// grid, whose parts are all circles, rectangles, capsules or segments
    /// (whose shapes own no memory).
    placeable: Option<ScaleBounds>,
    /// The box around the parts unturned ([`parts_extent`] at the
    /// identity): its centre and half extents.
    local_extent: (Vec2, Vec2),
    grid: Option<PartGrid>,
    /// The parts checked once: they never change, and a check walks them
    /// all (a polyline of a level has thousands).
    validity: Result<(), ShapeError>,
    /// For a valid compound of a few parts (not a polyline), the radius of
    /// each part's bounding circle about its origin: two such compounds
    /// test only the part pairs whose circles meet
    /// ([`Compound::visit_near_part_pairs`]).
    part_radii: Option<[f32; SMALL_COMPOUND]>,
    /// A polyline's points (the last equal to the first when closed): part
    /// `i` is the segment from point `i` to `i + 1`.
    polyline: Option<Box<[Vec2]>>,
    /// A heightfield's samples and scale, kept to save it as it was made.
    heightfield: Option<Box<Heightfield>>,
}

/// The samples of a [`Compound::heightfield`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
struct Heightfield {
    heights: Box<[f32]>,
    scale: Vec2,
}

/// How a compound is saved: its parts, or a polyline's points (rebuilt, and
/// checked, when loaded).
#[cfg(feature = "serialize")]
#[derive(serde::Serialize, serde::Deserialize)]
enum CompoundData {
    Parts(Vec<CompoundPart>),
    Polyline(Vec<Vec2>),
    Heightfield(Heightfield),
}

#[cfg(feature = "serialize")]
impl From<Compound> for CompoundData {
    fn from(compound: Compound) -> Self {
        if let Some(samples) = &compound.inner.heightfield {
            return Self::Heightfield(Heightfield::clone(samples));
        }
        match compound.polyline_points() {
            Some(points) => Self::Polyline(points.to_vec()),
            None => Self::Parts(compound.parts().to_vec()),
        }
    }
}

#[cfg(feature = "serialize")]
impl TryFrom<CompoundData> for Compound {
    type Error = ShapeError;

    fn try_from(data: CompoundData) -> Result<Self, ShapeError> {
        match data {
            CompoundData::Parts(parts) => Ok(Self::new(
                parts.into_iter().map(|part| (part.pose, part.shape)),
            )),
            CompoundData::Polyline(points) => Self::polyline(&points),
            CompoundData::Heightfield(samples) => {
                Self::heightfield(&samples.heights, samples.scale)
            }
        }
    }
}

impl PartialEq for Compound {
    fn eq(&self, other: &Self) -> bool {
        self.parts() == other.parts() && self.polyline_points() == other.polyline_points()
    }
}

impl fmt::Debug for Compound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.parts().iter()).finish()
    }
}

impl Compound {
    /// The shapes at their poses, in order: part `i` is the `i`-th one. A
    /// part that is itself a compound is replaced by its own parts, placed
    /// where they are in it (so part numbers count the flattened parts).
    /// Sizes and poses are checked where the compound is used
    /// ([`Shape::validate`]), as for any shape.
    pub fn new(parts: impl IntoIterator<Item = (Isometry2d, Shape)>) -> Self {
        let mut flat = Vec::new();
        for (pose, shape) in parts {
            match shape {
                Shape::Compound(inner) => {
                    flat.extend(inner.parts().iter().map(|part| CompoundPart {
                        pose: pose * part.pose,
                        shape: part.shape.clone(),
                    }))
                }
                shape => flat.push(CompoundPart { pose, shape }),
            }
        }
        Self::from_flat(flat)
    }

    /// The segments joining `points` in order, as one polyline (a chain):
    /// closed when the last point equals the first. Part `i` is the segment
    /// from the `i`-th point to the next, once repeated neighbouring points
    /// are dropped.
    ///
    /// Unlike a compound of the same segments, a shape moving along it gets
    /// no sideways normal at an interior vertex: a contact whose normal
    /// tilts towards a vertex where the line runs straight on or bends
    /// towards the shape is taken as one with the segment's face, and one
    /// beyond a convex corner is left to the neighbouring segment (Box2D's
    /// ghost-vertex rule for chains). Both sides collide.
    ///
    /// Fails for a point that is NaN, infinite or too large
    /// ([`ShapeError::InvalidVertex`]) and for fewer than two distinct
    /// points ([`ShapeError::EmptyCompound`]). A polyline put into another
    /// compound ([`Compound::new`]) becomes plain segments there.
    pub fn polyline(points: &[Vec2]) -> Result<Self, ShapeError> {
        if let Some(&bad) = points.iter().find(|&&p| !within_magnitude(p)) {
            return Err(ShapeError::InvalidVertex(bad));
        }
        let mut kept: Vec<Vec2> = Vec::with_capacity(points.len());
        for &point in points {
            if kept.last() != Some(&point) {
                kept.push(point);
            }
        }
        if kept.len() < 2 {
            return Err(ShapeError::EmptyCompound);
        }
        let parts = (kept.windows(2))
            .map(|ends| CompoundPart {
                pose: Isometry2d::IDENTITY,
                shape: Shape::Segment {
                    a: ends[0],
                    b: ends[1],
                },
            })
            .collect();
        Ok(Self::from_parts(parts, Some(kept.into())))
    }

    /// Terrain from evenly spaced height samples: the polyline through
    /// `(x_i, heights[i] * scale.y)`, the `x_i` evenly spaced from
    /// `-scale.x / 2` to `scale.x / 2` (as parry's heightfields). Part `i`
    /// is the segment from sample `i` to `i + 1`, with the polyline's
    /// ghost-vertex rule: nothing catches at a sample.
    ///
    /// Fails for fewer than two samples ([`ShapeError::EmptyCompound`]), a
    /// height that is NaN or infinite, or whose point is too large
    /// ([`ShapeError::InvalidVertex`]), and a scale that is not finite with
    /// `scale.x > 0` ([`ShapeError::InvalidHeightfieldScale`]).
    pub fn heightfield(heights: &[f32], scale: Vec2) -> Result<Self, ShapeError> {
        if !(scale.is_finite() && scale.x > 0.0) {
            return Err(ShapeError::InvalidHeightfieldScale(scale));
        }
        if heights.len() < 2 {
            return Err(ShapeError::EmptyCompound);
        }
        let step = scale.x / (heights.len() - 1) as f32;
        let points: Vec<Vec2> = (heights.iter().enumerate())
            .map(|(i, &h)| Vec2::new(i as f32 * step - scale.x * 0.5, h * scale.y))
            .collect();
        // The polyline checks the points.
        let mut terrain = Self::polyline(&points)?;
        if terrain.parts().len() != heights.len() - 1 {
            // Samples closer than a float step merged: the parts no longer
            // match the samples one for one.
            return Err(ShapeError::InvalidHeightfieldScale(scale));
        }
        if let Some(inner) = Arc::get_mut(&mut terrain.inner) {
            inner.heightfield = Some(Box::new(Heightfield {
                heights: heights.into(),
                scale,
            }));
        }
        Ok(terrain)
    }

    /// A heightfield's samples and scale, as given to [`Self::heightfield`].
    pub fn heightfield_samples(&self) -> Option<(&[f32], Vec2)> {
        (self.inner.heightfield.as_deref()).map(|h| (&*h.heights, h.scale))
    }

    /// The compound of parts none of which is a compound, with its grid.
    fn from_flat(parts: Vec<CompoundPart>) -> Self {
        Self::from_parts(parts, None)
    }

    fn from_parts(parts: Vec<CompoundPart>, polyline: Option<Box<[Vec2]>>) -> Self {
        let grid = PartGrid::new((parts.iter()).map(|part| part.shape.aabb(part.pose)));
        let validity = validate_parts(&parts);
        let local_extent = match validity {
            Ok(()) => parts_extent(&parts, Isometry2d::IDENTITY),
            Err(_) => (Vec2::ZERO, Vec2::ZERO),
        };
        // Kept inline: the snapshot rebuilds a compound whenever its scale
        // changes, so another allocation would be paid every frame.
        let part_radii = (validity.is_ok() && polyline.is_none() && parts.len() <= SMALL_COMPOUND)
            .then(|| {
                let mut radii = [0.0; SMALL_COMPOUND];
                for (radius, part) in radii.iter_mut().zip(&parts) {
                    *radius = part.shape.view().bounding_radius();
                }
                radii
            });
        let placeable = (part_radii.is_some() && grid.is_none())
            .then(|| ScaleBounds::of(&parts))
            .flatten();
        Self {
            inner: Arc::new(Parts {
                parts: parts.into(),
                grid,
                validity,
                local_extent,
                part_radii,
                placeable,
                polyline,
                heightfield: None,
            }),
        }
    }

    /// Whether the parts are valid: at least one, each pose and shape
    /// valid (checked once, when built).
    pub(crate) fn validity(&self) -> Result<(), ShapeError> {
        self.inner.validity
    }

    /// The centre (relative to `pose.translation`) and half extents of the
    /// box around the parts at `pose`: from the box worked out when built
    /// when `pose` does not turn them, part by part otherwise.
    pub(crate) fn extent_at(&self, pose: Isometry2d) -> (Vec2, Vec2) {
        let parts = self.parts();
        self.extent_of(self.inner.local_extent, pose, || parts_extent(parts, pose))
    }

    /// [`Self::extent_at`] from the box around the parts unturned,
    /// `local_extent`, or, under a turn, `parts_extent`.
    #[inline]
    fn extent_of(
        &self,
        (offset, extent): (Vec2, Vec2),
        pose: Isometry2d,
        parts_extent: impl FnOnce() -> (Vec2, Vec2),
    ) -> (Vec2, Vec2) {
        if pose.rotation == Rot2::IDENTITY {
            // Each part's own box is widened for rounding where it is;
            // widen as much, so that the compound's holds theirs.
            let centre = pose.translation + offset;
            let slack =
                (centre.abs().max_element() + 2.0 * extent.max_element()) * (8.0 * f32::EPSILON);
            (offset, extent + slack)
        } else {
            parts_extent()
        }
    }

    /// The parts, in order.
    pub fn parts(&self) -> &[CompoundPart] {
        &self.inner.parts
    }

    /// A polyline's points, in order (the last equal to the first when it is
    /// closed), without repeats; `None` for other compounds.
    pub fn polyline_points(&self) -> Option<&[Vec2]> {
        self.inner.polyline.as_deref()
    }

    /// Part `i` of a polyline with its neighbours' far ends; `None` for
    /// other compounds.
    #[inline]
    pub(crate) fn chain_segment(&self, i: u32) -> Option<ChainSegment> {
        let points = self.inner.polyline.as_deref()?;
        let (i, last) = (i as usize, points.len() - 1);
        let closed = last >= 3 && points[0] == points[last];
        let before = match i {
            0 if closed => Some(points[last - 1]),
            0 => None,
            _ => Some(points[i - 1]),
        };
        let after = match i + 2 {
            j if j <= last => Some(points[j]),
            _ if closed => Some(points[1]),
            _ => None,
        };
        Some(ChainSegment {
            a: points[i],
            b: points[i + 1],
            before,
            after,
        })
    }

    /// Calls `visit` with each part (and its index) whose box may overlap
    /// the box `near` gives, in the compound's frame; with every part when it
    /// gives `None`, or when there are too few parts for a grid.
    #[inline]
    pub(crate) fn visit_parts(
        &self,
        near: impl FnOnce() -> Option<Aabb2d>,
        mut visit: impl FnMut(u32, &CompoundPart),
    ) {
        let parts = self.parts();
        // The box is only worked out for a grid to look it up in.
        match (self.inner.grid.as_ref()).and_then(|grid| Some((grid, near()?))) {
            Some((grid, near)) => {
                grid.visit_overlapping(&near, |i| visit(i as u32, &parts[i]));
            }
            None => (parts.iter().enumerate()).for_each(|(i, part)| visit(i as u32, part)),
        }
    }

    /// The grid over its parts, when it has many.
    #[inline]
    pub(crate) fn part_grid(&self) -> Option<&PartGrid> {
        self.inner.grid.as_ref()
    }

    /// Whether the compound keeps a grid over its parts (it has many): then
    /// the parts near a collider are worth keeping between detections.
    #[inline]
    pub(crate) fn has_part_grid(&self) -> bool {
        self.inner.grid.is_some()
    }

    /// For two compounds of a few parts each (neither a polyline), at poses
    /// `pa` and `pb`, calls `visit(i, j)` with each part `i` of `a` and `j` of
    /// `b` whose bounding circles meet, in order of `i` then `j`, and returns
    /// `true`; returns `false` without a call for other compounds. Cheaper
    /// than a walk over the parts near each part: no box is turned.
    #[inline]
    pub(crate) fn visit_near_part_pairs(
        a: &Self,
        pa: Isometry2d,
        b: &Self,
        pb: Isometry2d,
        mut visit: impl FnMut(u32, u32),
    ) -> bool {
        let (Some(radii_a), Some(radii_b)) = (&a.inner.part_radii, &b.inner.part_radii) else {
            return false;
        };
        let mut centres_b = [Vec2::ZERO; SMALL_COMPOUND];
        for (centre, part) in centres_b.iter_mut().zip(b.parts()) {
            *centre = pb.transform_point(part.pose.translation);
        }
        for (i, (part, &radius_a)) in a.parts().iter().zip(radii_a.iter()).enumerate() {
            let centre_a = pa.transform_point(part.pose.translation);
            let near_b = centres_b.iter().zip(radii_b).take(b.parts().len());
            for (j, (&centre_b, &radius_b)) in near_b.enumerate() {
                let reach = radius_a + radius_b;
                // Rounding of the centres and radii, relative to their size;
                // and rotations a little off unit length (allowed as
                // normalized, up to 1e-4), which grow the parts as tested.
                let slack = (centre_a.abs().max_element() + centre_b.abs().max_element())
                    * (64.0 * f32::EPSILON)
                    + reach * 1e-3;
                if centre_a.distance_squared(centre_b) <= (reach + slack) * (reach + slack) {
                    visit(i as u32, j as u32);
                }
            }
        }
        true
    }

    /// Starts loading one level of what [`Self::visit_parts`] will read for
    /// the box `near` gives (see `PartGrid::prefetch`); nothing without a
    /// grid.
    #[inline]
    pub(crate) fn prefetch_parts(&self, near: impl FnOnce() -> Option<Aabb2d>, stage: u8) {
        if let Some(grid) = self.inner.grid.as_ref()
            && let Some(near) = near()
        {
            let parts = self.parts();
            grid.prefetch(&near, stage, |i| prefetch(&parts[i]));
        }
    }

    /// Starts loading what a walk over all the parts reads: at `stage` 0
    /// the compound's own record, at stage 1 (reading it) the parts.
    #[inline]
    pub(crate) fn prefetch_all_parts(&self, stage: u8) {
        if stage == 0 {
            // The fields `parts` and `Self::extent_at` read, which the
            // record's first and last lines need not hold.
            prefetch(&self.inner.parts);
            prefetch(&self.inner.local_extent);
        } else {
            prefetch_slice(self.parts());
        }
    }

    /// Starts loading what [`Self::check_scaled_alike`] reads first.
    #[inline]
    pub(crate) fn prefetch_scale_bounds(&self) {
        prefetch(&self.inner.placeable);
    }

    /// Whether `other` is this very compound (a clone of it), not only
    /// equal to it.
    #[inline]
    pub(crate) fn same_parts(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

/// [`points_extent`] for a compound: the box around its parts' boxes.
#[inline(never)]
fn parts_extent(parts: &[CompoundPart], pose: Isometry2d) -> (Vec2, Vec2) {
    boxes_extent(
        (parts.iter()).map(|part| part.shape.aabb(pose * part.pose)),
        pose,
    )
}

/// The centre (relative to `pose.translation`) and half extents of the box
/// around `boxes`, the parts' boxes of a compound at `pose`.
#[inline]
pub(crate) fn boxes_extent(boxes: impl Iterator<Item = Aabb2d>, pose: Isometry2d) -> (Vec2, Vec2) {
    let (lo, hi) = boxes.fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), aabb| {
        (lo.min(aabb.min), hi.max(aabb.max))
    });
    ((lo + hi) * 0.5 - pose.translation, (hi - lo) * 0.5)
}

/// Whether every part is a circle, rectangle, capsule or segment: a shape
/// that owns no memory, so that scaling it never allocates or fails.
fn all_plain(parts: &[CompoundPart]) -> bool {
    (parts.iter()).all(|part| {
        matches!(
            part.shape,
            Shape::Circle { .. }
                | Shape::Rect { .. }
                | Shape::Capsule { .. }
                | Shape::Segment { .. }
        )
    })
}

/// Of a compound of plain parts: the largest number its check bounds by
/// [`MAX_MAGNITUDE`](crate::geometry::MAX_MAGNITUDE) (sizes, coordinates),
/// and the smallest it requires positive (radii, half sizes). Scaled by a
/// positive factor, the parts are valid exactly when these two are, scaled:
/// rounding keeps the order of products by one factor.
#[derive(Clone, Copy, Debug)]
struct ScaleBounds {
    largest: f32,
    smallest: f32,
}

impl ScaleBounds {
    /// The bounds of `parts`, if all are plain.
    fn of(parts: &[CompoundPart]) -> Option<Self> {
        let (mut largest, mut smallest) = (0.0f32, f32::INFINITY);
        for part in parts {
            // Numbers required positive, and others bounded only.
            let (positive, bounded) = match part.shape {
                Shape::Circle { radius } => (Vec2::splat(radius), Vec2::ZERO),
                Shape::Rect { half_size } => (half_size, Vec2::ZERO),
                Shape::Capsule {
                    radius,
                    half_length,
                } => (Vec2::splat(radius), Vec2::splat(half_length)),
                Shape::Segment { a, b } => (Vec2::INFINITY, a.abs().max(b.abs())),
                _ => return None,
            };
            smallest = smallest.min(positive.min_element());
            let positive = Vec2::select(positive.cmplt(Vec2::INFINITY), positive, Vec2::ZERO);
            largest = (largest.max(positive.max_element()))
                .max(bounded.max_element())
                .max(part.pose.translation.abs().max_element());
        }
        Some(Self { largest, smallest })
    }

    /// Whether the parts scaled by `factor` (positive) pass their checks.
    #[inline]
    fn hold_under(self, factor: f32) -> bool {
        self.largest * factor <= crate::geometry::MAX_MAGNITUDE && self.smallest * factor > 0.0
    }
}

/// Checks a compound's parts: at least one, each pose and shape valid.
fn validate_parts(parts: &[CompoundPart]) -> Result<(), ShapeError> {
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
    use std::ops::Range;

    use bevy::math::Dir2;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::*;
    use crate::geometry::query::contact::contact_with_parts;
    use crate::geometry::reference_tests::{Kind, random_shape_of};
    use crate::geometry::{Contact, MAX_MAGNITUDE, ShapeView, Sweep, cast_shape, time_of_impact};

    fn random_pose(rng: &mut StdRng, spread: f32) -> Isometry2d {
        Isometry2d::new(
            Vec2::new(
                rng.random_range(-spread..spread),
                rng.random_range(-spread..spread),
            ),
            Rot2::radians(rng.random_range(-3.2..3.2)),
        )
    }

    fn random_compound(rng: &mut StdRng) -> (Vec<(Isometry2d, Shape)>, Shape) {
        random_compound_of(rng, 1..5, 6.0)
    }

    /// A compound of `count` random parts within `spread` of its origin.
    fn random_compound_of(
        rng: &mut StdRng,
        count: Range<usize>,
        spread: f32,
    ) -> (Vec<(Isometry2d, Shape)>, Shape) {
        let parts: Vec<_> = (0..rng.random_range(count))
            .map(|_| {
                let kind = Kind::ALL[rng.random_range(0..5)];
                (random_pose(rng, spread), random_shape_of(rng, kind, 4.0))
            })
            .collect();
        let compound = Shape::Compound(Compound::new(parts.clone()));
        (parts, compound)
    }

    /// Every operation on a compound (first or second of the pair) gives
    /// what its best part gives: any overlap, the deepest contact, the
    /// nearest points, ray hit and cast hit, the earliest touch.
    #[test]
    fn a_compound_answers_as_its_best_part() {
        answers_as_best_part(41, 1..5, 6.0);
    }

    /// The same with enough parts for the grid over them, which must skip
    /// no part that touches.
    #[test]
    fn a_compound_with_a_part_grid_answers_as_its_best_part() {
        answers_as_best_part(44, 17..120, 30.0);
    }

    fn answers_as_best_part(seed: u64, count: Range<usize>, spread: f32) {
        let mut rng = StdRng::seed_from_u64(seed);
        let (mut overlapping, mut apart) = (0, 0);
        for case in 0..600 {
            let (parts, compound) = random_compound_of(&mut rng, count.clone(), spread);
            let other = random_shape_of(&mut rng, Kind::ALL[case % 5], 4.0);
            let (pose, other_pose) = (random_pose(&mut rng, spread), random_pose(&mut rng, spread));
            let placed = || parts.iter().map(|(p, s)| (pose * *p, s));
            let what =
                format!("case {case}: {compound:?} at {pose:?}, {other:?} at {other_pose:?}");

            let any = placed().any(|(p, s)| s.intersects(p, &other, other_pose));
            assert_eq!(compound.intersects(pose, &other, other_pose), any, "{what}");
            assert_eq!(other.intersects(other_pose, &compound, pose), any, "{what}");
            if any {
                overlapping += 1
            } else {
                apart += 1
            }

            let deepest = placed()
                .filter_map(|(p, s)| s.contact(p, &other, other_pose))
                .fold(None, |found: Option<Contact>, c| match found {
                    Some(f) if f.depth >= c.depth => Some(f),
                    _ => Some(c),
                });
            assert_eq!(
                compound.contact(pose, &other, other_pose),
                deepest,
                "{what}"
            );
            // Seen from the other side, the pair test may round differently.
            let flipped = other
                .contact(other_pose, &compound, pose)
                .map(Contact::flipped);
            match (flipped, deepest) {
                (Some(f), Some(d)) => assert!(
                    (f.depth - d.depth).abs() < 1e-4
                        && f.point.distance(d.point) < 1e-4
                        && f.normal.dot(*d.normal) > 0.9999,
                    "{what}: {f:?} against {d:?}"
                ),
                (f, d) => assert_eq!(f, d, "{what}"),
            }

            // None when any part overlaps.
            let nearest = placed()
                .map(|(p, s)| s.closest_points(p, &other, other_pose).map(|c| c.2))
                .collect::<Option<Vec<f32>>>()
                .and_then(|distances| distances.into_iter().min_by(f32::total_cmp));
            let found = compound.closest_points(pose, &other, other_pose);
            assert_eq!(found.map(|c| c.2), nearest, "{what}");

            let direction = Dir2::from_xy(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0))
                .unwrap_or(Dir2::X);
            let origin = other_pose.translation;
            let ray = placed()
                .filter_map(|(p, s)| s.cast_ray(p, origin, direction, 50.0))
                .map(|hit| hit.distance)
                .min_by(f32::total_cmp);
            let found = compound.cast_ray(pose, origin, direction, 50.0);
            assert_eq!(found.map(|hit| hit.distance), ray, "{what}");

            let cast = placed()
                .filter_map(|(p, s)| cast_shape(&other, other_pose, direction, 50.0, s, p))
                .map(|hit| hit.distance)
                .min_by(f32::total_cmp);
            let found = cast_shape(&other, other_pose, direction, 50.0, &compound, pose);
            assert_eq!(found.map(|hit| hit.distance), cast, "{what}");

            // The compound moving, not turning (its parts' paths are exact).
            let moved = Isometry2d::new(pose.translation + direction * 20.0, pose.rotation);
            let sweep = Sweep::new(pose, moved);
            let still = Sweep::stationary(other_pose);
            let earliest = parts
                .iter()
                .filter_map(|(p, s)| {
                    time_of_impact(s, Sweep::new(pose * *p, moved * *p), &other, still)
                })
                .map(|c| c.time)
                .min_by(f32::total_cmp);
            let found = time_of_impact(&compound, sweep, &other, still);
            assert_eq!(found.map(|c| c.time), earliest, "{what}");
        }
        assert!(overlapping > 100 && apart > 100, "{overlapping} / {apart}");
    }

    /// Two compounds: any pair of parts, the deepest pair's contact, and
    /// which parts it is on. Close enough that most pairs of parts are near
    /// touching, where a part pair wrongly skipped would show.
    #[test]
    fn two_compounds_meet_where_two_parts_do() {
        let mut rng = StdRng::seed_from_u64(42);
        let (mut touching, mut apart) = (0, 0);
        for case in 0..3000 {
            let (parts_a, a) = random_compound(&mut rng);
            let (mut parts_b, mut b) = random_compound(&mut rng);
            let (pa, mut pb) = (random_pose(&mut rng, 9.0), random_pose(&mut rng, 9.0));
            if case % 2 == 0 {
                // Scaled alike on both axes: parts, box and circles grow.
                let Shape::Compound(compound) = &b else {
                    unreachable!()
                };
                let scaled = compound
                    .scaled(Vec2::splat(rng.random_range(0.5..2.0)))
                    .unwrap();
                parts_b = (scaled.parts().iter())
                    .map(|p| (p.pose, p.shape.clone()))
                    .collect();
                b = Shape::Compound(scaled);
                if case % 4 == 0 {
                    pb.rotation = Rot2::IDENTITY;
                }
                let aabb = b.aabb(pb);
                for (q, part) in &parts_b {
                    let part_box = part.aabb(pb * *q);
                    assert!(
                        aabb.min.cmple(part_box.min).all() && aabb.max.cmpge(part_box.max).all(),
                        "case {case}: {aabb:?} does not hold {part_box:?}"
                    );
                }
            }
            let what = format!("case {case}: {a:?} at {pa:?}, {b:?} at {pb:?}");
            let part_pairs = || {
                (parts_a.iter().enumerate()).flat_map(|(i, (qa, sa))| {
                    (parts_b.iter().enumerate()).map(move |(j, (qb, sb))| {
                        ([i as u32, j as u32], (pa * *qa, sa), (pb * *qb, sb))
                    })
                })
            };
            let any = part_pairs().any(|(_, (qa, sa), (qb, sb))| sa.intersects(qa, sb, qb));
            assert_eq!(a.intersects(pa, &b, pb), any, "{what}");
            // The first of the deepest, as the walk over the parts keeps it.
            let deepest = part_pairs()
                .filter_map(|(ij, (qa, sa), (qb, sb))| Some((sa.contact(qa, sb, qb)?, ij)))
                .fold(
                    None,
                    |found: Option<(Contact, [u32; 2])>, (c, ij)| match found {
                        Some(f) if f.0.depth >= c.depth => Some(f),
                        _ => Some((c, ij)),
                    },
                );
            assert_eq!(a.contact(pa, &b, pb), deepest.map(|d| d.0), "{what}");
            let with_parts = contact_with_parts(a.view(), pa, b.view(), pb);
            let expected = deepest.map(|(c, [i, j])| (c, [Some(i), Some(j)]));
            assert_eq!(with_parts, expected, "{what}");
            // Cast: parts apart where they start may meet on the way.
            let direction = Dir2::from_angle(rng.random_range(-3.2..3.2));
            let nearest = part_pairs()
                .filter_map(|(_, (qa, sa), (qb, sb))| cast_shape(sa, qa, direction, 20.0, sb, qb))
                .map(|hit| hit.distance)
                .min_by(f32::total_cmp);
            let found = cast_shape(&a, pa, direction, 20.0, &b, pb);
            assert_eq!(
                found.map(|hit| hit.distance),
                nearest,
                "{what}, cast {direction:?}"
            );
            if any { touching += 1 } else { apart += 1 }
        }
        assert!(touching > 500 && apart > 500, "{touching} / {apart}");
    }

    /// Two small compounds apart where a cast starts: their parts' circles
    /// do not meet there, and the cast still finds the hit on the way.
    #[test]
    fn a_compound_cast_at_a_compound_hits_parts_apart_at_the_start() {
        let ball = |x: f32| {
            let part = (Isometry2d::from_xy(x, 0.0), Shape::Circle { radius: 1.0 });
            Shape::Compound(Compound::new([part]))
        };
        let hit = cast_shape(
            &ball(0.0),
            Isometry2d::IDENTITY,
            Dir2::X,
            20.0,
            &ball(10.0),
            Isometry2d::IDENTITY,
        );
        assert!(
            hit.is_some_and(|hit| (hit.distance - 8.0).abs() < 1e-4),
            "{hit:?}"
        );
    }

    #[test]
    fn an_l_shaped_wall_touches_on_both_arms() {
        let wall = Shape::Compound(Compound::new([
            (
                Isometry2d::IDENTITY,
                Shape::Rect {
                    half_size: Vec2::new(50.0, 5.0),
                },
            ),
            (
                Isometry2d::from_xy(-45.0, 30.0),
                Shape::Rect {
                    half_size: Vec2::new(5.0, 25.0),
                },
            ),
        ]));
        let ball = Shape::Circle { radius: 5.0 };
        // Resting 1 deep on the floor, and 3 deep in the post.
        let on_floor = wall.contact(Isometry2d::IDENTITY, &ball, Isometry2d::from_xy(10.0, 9.0));
        let on_floor = on_floor.unwrap();
        assert!(
            (on_floor.depth - 1.0).abs() < 1e-5 && on_floor.normal == Dir2::Y,
            "{on_floor:?}"
        );
        let at_post = wall.contact(
            Isometry2d::IDENTITY,
            &ball,
            Isometry2d::from_xy(-38.0, 40.0),
        );
        let at_post = at_post.unwrap();
        assert!(
            (at_post.depth - 3.0).abs() < 1e-5 && at_post.normal == Dir2::X,
            "{at_post:?}"
        );
        assert!(!wall.intersects(Isometry2d::IDENTITY, &ball, Isometry2d::from_xy(0.0, 40.0)));
        let aabb = wall.aabb(Isometry2d::IDENTITY);
        assert!(
            aabb.min.abs_diff_eq(Vec2::new(-50.0, -5.0), 1e-3),
            "{aabb:?}"
        );
        assert!(
            aabb.max.abs_diff_eq(Vec2::new(50.0, 55.0), 1e-3),
            "{aabb:?}"
        );
    }

    /// Scaling a compound moves its parts and scales each by its rule; a
    /// mirror mirrors every part (points checked inside and out).
    #[test]
    fn scale_applies_per_part() {
        let mut rng = StdRng::seed_from_u64(43);
        for case in 0..200 {
            let (_, compound) = random_compound(&mut rng);
            let k = rng.random_range(0.3..3.0);
            let scale = [
                Vec2::splat(k),
                Vec2::new(-k, k),
                Vec2::new(k, -k),
                Vec2::splat(-k),
            ][case % 4];
            let scaled = compound.scaled(scale).unwrap();
            let pose = random_pose(&mut rng, 5.0);
            for _ in 0..20 {
                let local = Vec2::new(rng.random_range(-12.0..12.0), rng.random_range(-12.0..12.0));
                let inside = compound.contains_point(Isometry2d::IDENTITY, local);
                // Away from the boundary, where rounding could tip it.
                let near_edge = [Vec2::X, Vec2::Y, -Vec2::X, -Vec2::Y].iter().any(|&d| {
                    compound.contains_point(Isometry2d::IDENTITY, local + d * 1e-3) != inside
                });
                if near_edge {
                    continue;
                }
                assert_eq!(
                    scaled.contains_point(pose, pose * (local * scale)),
                    inside,
                    "case {case}: {local} in {compound:?} scaled by {scale}"
                );
            }
        }
    }

    #[test]
    fn nesting_is_flattened_and_parts_are_checked() {
        let inner = Shape::Compound(Compound::new([
            (Isometry2d::from_xy(1.0, 0.0), Shape::Circle { radius: 1.0 }),
            (Isometry2d::from_xy(0.0, 2.0), Shape::Circle { radius: 1.0 }),
        ]));
        let outer = Compound::new([
            (Isometry2d::from_xy(10.0, 0.0), inner),
            (
                Isometry2d::IDENTITY,
                Shape::Rect {
                    half_size: Vec2::ONE,
                },
            ),
        ]);
        let poses: Vec<Vec2> = outer.parts().iter().map(|p| p.pose.translation).collect();
        assert_eq!(
            poses,
            [Vec2::new(11.0, 0.0), Vec2::new(10.0, 2.0), Vec2::ZERO]
        );
        assert!(Shape::Compound(outer).validate().is_ok());
        assert_eq!(
            Shape::Compound(Compound::new([])).validate(),
            Err(ShapeError::EmptyCompound)
        );
        let bad = Compound::new([(Isometry2d::IDENTITY, Shape::Circle { radius: -1.0 })]);
        assert_eq!(
            Shape::Compound(bad).validate(),
            Err(ShapeError::InvalidRadius(-1.0))
        );
        let nan = Compound::new([(
            Isometry2d::from_xy(f32::NAN, 0.0),
            Shape::Circle { radius: 1.0 },
        )]);
        assert!(matches!(
            Shape::Compound(nan).validate(),
            Err(ShapeError::InvalidPose(_))
        ));
    }

    /// A compound's box, from the box worked out when built (unturned) or
    /// part by part (turned), holds every part's box and is no larger than
    /// the box around them by more than rounding.
    #[test]
    fn the_box_is_the_box_around_the_parts() {
        let mut rng = StdRng::seed_from_u64(45);
        for round in 0..2_000 {
            let (parts, compound) = random_compound_of(&mut rng, 1..40, 20.0);
            let mut pose = random_pose(&mut rng, 1e3);
            if round % 2 == 0 {
                pose.rotation = Rot2::IDENTITY;
            }
            let aabb = compound.aabb(pose);
            let (mut lo, mut hi) = (Vec2::INFINITY, Vec2::NEG_INFINITY);
            for (part_pose, shape) in &parts {
                let part = shape.aabb(pose * *part_pose);
                assert!(
                    aabb.min.cmple(part.min).all() && aabb.max.cmpge(part.max).all(),
                    "round {round}: {aabb:?} does not hold {part:?}"
                );
                (lo, hi) = (lo.min(part.min), hi.max(part.max));
            }
            let slack = 1e-4 * (1.0 + pose.translation.abs().max_element());
            assert!(
                (aabb.min - lo).abs().max_element() <= slack
                    && (aabb.max - hi).abs().max_element() <= slack,
                "round {round}: {aabb:?} vs {lo} {hi}"
            );
        }
    }

    /// A placeable compound's parts scaled one by one, as the snapshot
    /// places them, are the parts `scaled` builds, to the bit, with the same
    /// validity and, placed anywhere, the same box; other compounds and
    /// scales are not placeable.
    #[test]
    fn parts_scaled_one_by_one_as_scaled_builds_them() {
        let mut rng = StdRng::seed_from_u64(47);
        let (mut placed, mut invalid) = (0, 0);
        for round in 0..3_000 {
            // Polygons (kind 4) now and then, and too many parts for the
            // part circles now and then: neither is placeable.
            let count = if round % 40 == 0 { 17..30 } else { 1..6 };
            let kinds = 4 + usize::from(round % 7 == 0);
            let mut parts: Vec<_> = (0..rng.random_range(count))
                .map(|_| {
                    let kind = Kind::ALL[rng.random_range(0..kinds)];
                    (
                        random_pose(&mut rng, 6.0),
                        random_shape_of(&mut rng, kind, 4.0),
                    )
                })
                .collect();
            if round % 11 == 0 {
                // Valid, but too large once scaled up.
                parts[0].1 = Shape::Circle {
                    radius: 0.75 * MAX_MAGNITUDE,
                };
            }
            let source = Compound::new(parts);
            let factor = match round % 13 {
                0 => 1.0,
                1 => 1.0f32.next_up(),
                2 => [f32::NAN, 0.0, -1.0, f32::INFINITY, 1e-30, 1e-45][round % 6],
                3 => 2.0,
                _ => rng.random_range(0.1..4.0),
            };
            let scale = match round % 17 {
                0 => Vec2::new(factor, factor * 1.5),
                1 => Vec2::new(factor, -factor),
                _ => Vec2::splat(factor),
            };
            let plain = (source.parts().iter()).all(|p| !matches!(p.shape, Shape::Polygon(_)));
            let expected = source.scaled(scale).and_then(|c| c.validity().map(|()| c));
            let Some(factor) = source.placeable_factor(scale) else {
                assert!(
                    !plain
                        || source.parts().len() > SMALL_COMPOUND
                        || scale.x != scale.y
                        || scale.x.is_nan()
                        || scale.x <= 0.0,
                    "round {round}: not placeable"
                );
                continue;
            };
            let checked = source.check_scaled_alike(factor);
            assert_eq!(
                checked,
                expected.as_ref().map(|_| ()).map_err(|e| *e),
                "round {round}"
            );
            let Ok(scaled) = expected else {
                invalid += 1;
                continue;
            };
            placed += 1;
            let pose = match round % 3 {
                0 => Isometry2d::from_translation(random_pose(&mut rng, 50.0).translation),
                _ => random_pose(&mut rng, 50.0),
            };
            let mut boxes = Vec::new();
            for (part, scaled_part) in source.parts().iter().zip(scaled.parts()) {
                let (local, shape) = part.scaled_alike(factor).unwrap();
                assert_eq!(local, scaled_part.pose, "round {round}");
                assert_eq!(shape.to_owned(), scaled_part.shape, "round {round}");
                boxes.push(ShapeView::Convex(shape).aabb(pose * local));
            }
            let extent = source
                .scaled_extent_from(factor, pose, || boxes_extent(boxes.iter().copied(), pose));
            assert_eq!(extent, scaled.extent_at(pose), "round {round}");
        }
        assert!(
            placed > 1_000 && invalid > 50,
            "{placed} placed, {invalid} invalid"
        );
    }

    /// Rescaled in its own memory, a compound is what `scaled` builds, to
    /// the bit (parts, validity, box, part circles), whatever it was built
    /// at before; shared, with a polygon part or a part grid, or under a
    /// factor that is not positive, it is left alone.
    #[test]
    fn rescaled_in_place_as_scaled_builds_it() {
        let bits = |compound: &Compound| {
            let inner = &*compound.inner;
            format!(
                "{:?} {:?} {:?} {:?} {} {}",
                inner.parts,
                inner.validity,
                inner.local_extent,
                inner.part_radii,
                inner.grid.is_some(),
                inner.polyline.is_some()
            )
        };
        let mut rng = StdRng::seed_from_u64(46);
        let (mut in_place, mut left) = (0, 0);
        for round in 0..3_000 {
            let count = if round % 50 == 0 { 40..60 } else { 1..6 };
            let mut parts: Vec<_> = (0..rng.random_range(count))
                .map(|_| {
                    let kind = Kind::ALL[rng.random_range(0..4 + usize::from(round % 4 == 0))];
                    (
                        random_pose(&mut rng, 6.0),
                        random_shape_of(&mut rng, kind, 4.0),
                    )
                })
                .collect();
            match round % 9 {
                // Invalid, and still invalid scaled.
                0 => parts[0].1 = Shape::Circle { radius: -1.0 },
                // Too large, but valid scaled down.
                1 => {
                    parts[0].1 = Shape::Circle {
                        radius: 1.5 * MAX_MAGNITUDE,
                    }
                }
                _ => {}
            }
            let source = Compound::new(parts);
            // Built before at a scale alike or not, then drifted alike.
            let before = match round % 3 {
                0 => Vec2::new(rng.random_range(0.1..4.0), rng.random_range(0.1..4.0)),
                _ => Vec2::splat(rng.random_range(0.1..4.0)),
            };
            let next = match round % 23 {
                0 => [f32::NAN, 0.0, -1.0, f32::INFINITY][round % 4],
                _ if round % 9 == 1 => 0.5,
                _ => rng.random_range(0.1..4.0),
            };
            let Ok(mut target) = source.scaled(before) else {
                continue;
            };
            let address = target.parts().as_ptr();
            let shared = (round % 5 == 0).then(|| target.clone());
            let was = bits(&target);
            if target.rescale_alike_in_place(&source, next) {
                in_place += 1;
                assert!(shared.is_none() && next > 0.0, "round {round}");
                assert_eq!(target.parts().as_ptr(), address, "round {round}: moved");
                let expected = source.scaled(Vec2::splat(next)).unwrap();
                assert_eq!(bits(&target), bits(&expected), "round {round}");
            } else {
                left += 1;
                let plain =
                    (source.parts().iter()).all(|part| !matches!(part.shape, Shape::Polygon(_)));
                let grid = source.inner.grid.is_some();
                assert!(
                    shared.is_some() || !plain || grid || next.is_nan() || next <= 0.0,
                    "round {round}"
                );
                assert_eq!(bits(&target), was, "round {round}: changed");
            }
        }
        assert!(
            in_place > 1_000 && left > 500,
            "{in_place} in place, {left} left"
        );
    }
}
