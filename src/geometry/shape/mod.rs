//! The shapes as stored: [`Shape`] (this file) and the parts it is made of,
//! a file each: the borrowed view the algorithms read (`shape_ref`),
//! convex polygons, compounds and their part grid, polylines, concave
//! polygons and polygons with holes (decomposed into convex pieces), the
//! checks of sizes and poses (`checked`) and the reading of a `Transform`
//! (`pose`). Nothing here runs a query on a pair: that is `query/`.

pub(in crate::geometry) mod checked;
pub(in crate::geometry) mod compound;
pub(in crate::geometry) mod concave;
pub(in crate::geometry) mod holes;
pub(in crate::geometry) mod part_grid;
pub(in crate::geometry) mod polygon;
pub(in crate::geometry) mod polyline;
pub(in crate::geometry) mod pose;
pub(in crate::geometry) mod shape_ref;

use bevy::math::{Isometry2d, Vec2};
use bevy::reflect::Reflect;
#[cfg(feature = "serialize")]
use bevy::reflect::{ReflectDeserialize, ReflectSerialize};
use bevy::shape::Aabb2d;

use crate::geometry::contact::Contact;
use crate::geometry::convex;
use crate::geometry::pairs::Stick;
use crate::geometry::query::dispatch::PartPlace;
use crate::geometry::query::dispatch::{ContactOp, IntersectsOp, PairShape, SpecialKind, dispatch};
use crate::geometry::query::manifold::{Manifold, for_each_manifold, manifold_of};
use crate::geometry::shape::checked::{ShapeError, validate_placement};
use crate::geometry::shape::compound::{Compound, CompoundPart};
use crate::geometry::shape::polygon::ConvexPolygon;
use crate::geometry::shape::shape_ref::ShapeRef;

/// A collision shape in local coordinates, in world units (scale already
/// applied). A pose ([`Isometry2d`]) places it in the world: circles,
/// rectangles and capsules are centred on the pose's origin; segments and
/// polygons are where their points put them relative to it.
///
/// More kinds may come in minor versions: a `match` outside this crate needs
/// a `_` arm.
#[derive(Clone, Debug, PartialEq, Reflect)]
#[reflect(Debug, PartialEq, Clone)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", reflect(Serialize, Deserialize))]
#[non_exhaustive]
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
    /// The points within `radius` of the segment from `(0, -half_length)` to
    /// `(0, half_length)`: a capsule standing along the local y axis.
    Capsule {
        /// Radius of the two caps and half the width, `> 0`.
        radius: f32,
        /// Half the distance between the cap centres, `>= 0` (`0` is a
        /// circle).
        half_length: f32,
    },
    /// The segment between two points, with no thickness. Equal points are a
    /// single point: it collides with what covers it.
    Segment {
        /// One end.
        a: Vec2,
        /// The other end.
        b: Vec2,
    },
    /// A convex polygon.
    Polygon(ConvexPolygon),
    /// Several shapes at poses relative to this one's, moved as one.
    Compound(Compound),
}

/// The centre (relative to the pose) and half extents of the box around
/// `points` turned by the pose. Kept out of line: the snapshot inlines
/// [`ShapeRef::aabb`] for every collider, and most are not polygons.
#[inline(never)]
fn points_extent(points: &[Vec2], pose: Isometry2d) -> (Vec2, Vec2) {
    let (lo, hi) = points
        .iter()
        .fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), &v| {
            let v = pose.rotation * v;
            (lo.min(v), hi.max(v))
        });
    ((lo + hi) * 0.5, (hi - lo) * 0.5)
}

/// [`points_extent`] for a compound: the box around its parts' boxes.
#[inline(never)]
pub(super) fn parts_extent(parts: &[CompoundPart], pose: Isometry2d) -> (Vec2, Vec2) {
    let (lo, hi) = parts
        .iter()
        .fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), part| {
            let aabb = part.shape.aabb(pose * part.pose);
            (lo.min(aabb.min), hi.max(aabb.max))
        });
    ((lo + hi) * 0.5 - pose.translation, (hi - lo) * 0.5)
}

impl Shape {
    /// The shape seen as the tests see it. Always inlined: the snapshot
    /// reads every collider through it.
    #[inline(always)]
    pub(crate) fn as_ref(&self) -> ShapeRef<'_> {
        match *self {
            Shape::Circle { radius } => ShapeRef::Circle { radius },
            Shape::Rect { half_size } => ShapeRef::Rect { half_size },
            Shape::Capsule {
                radius,
                half_length,
            } => ShapeRef::Capsule {
                radius,
                half_length,
            },
            Shape::Segment { a, b } => ShapeRef::Segment { a, b },
            Shape::Polygon(ref polygon) => ShapeRef::Polygon(polygon.points_ref()),
            Shape::Compound(ref compound) => ShapeRef::Compound(compound),
        }
    }

    /// Checks that the shape's size is finite and strictly positive (a
    /// capsule's length may be 0), and its points finite.
    pub fn validate(&self) -> Result<(), ShapeError> {
        self.as_ref().validate()
    }

    /// The shape scaled by a transform's `scale.xy`:
    /// - a circle's radius by the larger of `|scale.x|`, `|scale.y|` (so the
    ///   circle covers what a scaled sprite covers);
    /// - a rectangle's half size by `|scale|` per axis;
    /// - a capsule's radius by `|scale.x|` and its length by `|scale.y|`;
    /// - a segment's ends and a polygon's vertices by `scale`, signs included
    ///   (a negative component mirrors them).
    ///
    /// A polygon scaled to no area (a zero component) is an error.
    pub fn scaled(&self, scale: Vec2) -> Result<Self, ShapeError> {
        match self {
            Shape::Polygon(polygon) => return polygon.scaled(scale).map(Shape::Polygon),
            Shape::Compound(compound) => return compound.scaled(scale).map(Shape::Compound),
            _ => {}
        }
        Ok(self.as_ref().scaled_in_place(scale).to_owned())
    }

    /// An axis-aligned box that contains the shape at `pose`: the tightest
    /// one, widened by a few float steps so that shapes the exact tests find
    /// touching always have overlapping boxes despite rounding.
    pub fn aabb(&self, pose: Isometry2d) -> Aabb2d {
        self.as_ref().aabb(pose)
    }

    /// Whether the shape at `pose` contains `point` (boundary included; a
    /// segment contains the points on it, to within rounding).
    pub fn contains_point(&self, pose: Isometry2d, point: Vec2) -> bool {
        self.as_ref().contains_point(pose, point)
    }

    /// Whether this shape at `pose` and `other` at `other_pose` overlap or
    /// touch. Same answer as [`Shape::contact`]`.is_some()`, cheaper.
    pub fn intersects(&self, pose: Isometry2d, other: &Shape, other_pose: Isometry2d) -> bool {
        dispatch(IntersectsOp, self, pose, other, other_pose)
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
        dispatch(ContactOp, self, pose, other, other_pose)
    }

    /// The contact manifold of this shape at `pose` and `other` at
    /// `other_pose`, seen from this shape: the normal of
    /// [`Shape::contact`] and the one or two points where they touch, each
    /// with its depth and a [`FeatureId`](crate::geometry::FeatureId) (Box2D's
    /// `b2Manifold`); `None` when they are apart, or when a shape or a pose
    /// is invalid (NaN, a size of zero: see [`Shape::validate`]).
    ///
    /// A face resting on a face gives two points, where the stretch they
    /// touch along ends: a box sunk into a floor gets one under each bottom
    /// corner, a box on a ramp too once it lies flat on it. A corner, a
    /// circle or a rounded end gives one, the deepest. With a compound, the
    /// manifold of its deepest pair of parts, which
    /// [`Manifold::parts`] names (a polyline's under its ghost-vertex rule:
    /// the normal is still the contact's).
    pub fn manifold(
        &self,
        pose: Isometry2d,
        other: &Shape,
        other_pose: Isometry2d,
    ) -> Option<Manifold> {
        // Checked but kept bit for bit, so that the normal is the one
        // `contact` gives for the same poses.
        validate_placement(self.as_ref(), pose).ok()?;
        validate_placement(other.as_ref(), other_pose).ok()?;
        manifold_of(self.as_ref(), pose, other.as_ref(), other_pose)
    }

    /// Every manifold of this shape at `pose` and `other` at `other_pose`,
    /// seen from this shape: [`Shape::manifold`] for two shapes that are
    /// not compounds, else one for each pair of their parts that touch
    /// (each naming its parts in [`Manifold::parts`]), each with the normal
    /// of that pair of parts' own contact. Empty when they are apart or
    /// when a shape or a pose is invalid.
    ///
    /// A box lying across two parts of a compound (two steps of a stair, a
    /// bend in a polyline) rests on both: [`Shape::manifold`] gives the
    /// deepest of the two, this gives both.
    pub fn manifolds(
        &self,
        pose: Isometry2d,
        other: &Shape,
        other_pose: Isometry2d,
    ) -> Vec<Manifold> {
        let mut found = Vec::new();
        if validate_placement(self.as_ref(), pose).is_ok()
            && validate_placement(other.as_ref(), other_pose).is_ok()
        {
            for_each_manifold(self.as_ref(), pose, other.as_ref(), other_pose, |m| {
                found.push(m);
            });
        }
        found
    }

    /// The closest points of this shape at `pose` and `other` at
    /// `other_pose` (on this one, on the other) and the distance between
    /// them; `None` when they overlap or touch.
    pub fn closest_points(
        &self,
        pose: Isometry2d,
        other: &Shape,
        other_pose: Isometry2d,
    ) -> Option<(Vec2, Vec2, f32)> {
        // The same yes/no answer as `intersects`, whichever test it uses.
        if self.intersects(pose, other, other_pose) {
            return None;
        }
        closest_points_of(self.as_ref(), pose, other.as_ref(), other_pose)
    }
}

/// The closest points of two shapes known to be apart: of the nearest part
/// pair when either is a compound.
fn closest_points_of(
    a: ShapeRef<'_>,
    pa: Isometry2d,
    b: ShapeRef<'_>,
    pb: Isometry2d,
) -> Option<(Vec2, Vec2, f32)> {
    let nearest =
        |found: Option<(Vec2, Vec2, f32)>, next: Option<(Vec2, Vec2, f32)>| match (found, next) {
            (Some(f), Some(n)) if n.2 < f.2 => Some(n),
            (None, n) => n,
            (f, _) => f,
        };
    match (a, b) {
        (ShapeRef::Compound(compound), _) => (compound.parts().iter())
            .map(|part| closest_points_of(part.shape.as_ref(), pa * part.pose, b, pb))
            .fold(None, nearest),
        (_, ShapeRef::Compound(compound)) => (compound.parts().iter())
            .map(|part| closest_points_of(a, pa, part.shape.as_ref(), pb * part.pose))
            .fold(None, nearest),
        _ => convex::closest_surface_points_at(a, pa, b, pb),
    }
}

/// [`ShapeRef::project_point`] for a compound: of its parts within
/// `within` of `point`, the deepest one containing `point`, else the
/// nearest. Out of line: rare.
#[inline(never)]
fn compound_projection(
    compound: &Compound,
    pose: Isometry2d,
    point: Vec2,
    within: f32,
) -> Option<(Vec2, bool)> {
    // Inside before outside; deeper inside, nearer outside.
    let rank = |(on, inside): (Vec2, bool)| {
        let distance = on.distance(point);
        (!inside, if inside { -distance } else { distance })
    };
    let mut best: Option<(Vec2, bool)> = None;
    let near = || pose.local_box(Aabb2d::new(point, Vec2::splat(within)));
    compound.visit_parts(near, |_, part| {
        let found = (part.shape.as_ref()).project_point(pose * part.pose, point, within);
        if let Some(found) = found
            && best.is_none_or(|best| rank(found) < rank(best))
        {
            best = Some(found);
        }
    });
    best
}

/// Whether a part of `compound` at `pose` near `point` contains it. Out of
/// line: rare, and the shape tests' callers stay small.
#[inline(never)]
fn compound_contains(compound: &Compound, pose: Isometry2d, point: Vec2) -> bool {
    let mut inside = false;
    let near = || pose.local_box(Aabb2d::new(point, Vec2::ZERO));
    compound.visit_parts(near, |_, part| {
        inside = inside || part.shape.contains_point(pose * part.pose, point);
    });
    inside
}

impl<'a> ShapeRef<'a> {
    /// The nearest point of the shape's boundary at `pose` to `point`, and
    /// whether `point` is inside it (boundary included; on a segment is
    /// inside). A compound answers for its parts within `within` of `point`
    /// (see [`compound_projection`]), `None` when none is.
    pub(crate) fn project_point(
        &self,
        pose: Isometry2d,
        point: Vec2,
        within: f32,
    ) -> Option<(Vec2, bool)> {
        match *self {
            ShapeRef::Compound(compound) => {
                return compound_projection(compound, pose, point, within);
            }
            // The common kinds directly (the general way below costs a
            // contact and a closest-point search); a point at a circle's
            // centre, on no one nearest boundary point, goes the general way.
            ShapeRef::Circle { radius } => {
                let offset = point - pose.translation;
                let length = offset.length();
                if length > 0.0 {
                    let on = pose.translation + offset * (radius / length);
                    return Some((on, length <= radius));
                }
            }
            ShapeRef::Rect { half_size } => {
                let local = pose.inverse_transform_point(point);
                let clamped = local.clamp(-half_size, half_size);
                if clamped != local {
                    return Some((pose.transform_point(clamped), false));
                }
                // Inside: out through the nearest side.
                let room = half_size - local.abs();
                let mut on = local;
                if room.x <= room.y {
                    on.x = half_size.x.copysign(local.x);
                } else {
                    on.y = half_size.y.copysign(local.y);
                }
                return Some((pose.transform_point(on), true));
            }
            _ => {}
        }
        self.project_point_by_contact(pose, point)
    }

    /// [`Self::project_point`] of a shape that is not a compound, the
    /// general way: the point as a circle of no size, whose contact says
    /// how it leaves the shape and whose closest points where the shape is
    /// nearest.
    fn project_point_by_contact(&self, pose: Isometry2d, point: Vec2) -> Option<(Vec2, bool)> {
        let dot = ShapeRef::Circle { radius: 0.0 };
        let at = Isometry2d::from_translation(point);
        if let Some(contact) = dot.contact(at, *self, pose) {
            return Some((point - *contact.normal * contact.depth, true));
        }
        let (_, on_shape, _) = closest_points_of(dot, at, *self, pose)?;
        Some((on_shape, false))
    }

    /// The shape scaled as [`Shape::scaled`] says, except a polygon, which
    /// is returned as it is: its scaled points need a home of their own
    /// ([`scaled_points_into`](crate::geometry::scaled_points_into)).
    #[inline(always)]
    pub(crate) fn scaled_in_place(self, scale: Vec2) -> Self {
        let abs = scale.abs();
        match self {
            ShapeRef::Circle { radius } => ShapeRef::Circle {
                radius: radius * abs.max_element(),
            },
            ShapeRef::Rect { half_size } => ShapeRef::Rect {
                half_size: half_size * abs,
            },
            ShapeRef::Capsule {
                radius,
                half_length,
            } => ShapeRef::Capsule {
                radius: radius * abs.x,
                half_length: half_length * abs.y,
            },
            ShapeRef::Segment { a, b } => ShapeRef::Segment {
                a: a * scale,
                b: b * scale,
            },
            with_points @ (ShapeRef::Polygon(_) | ShapeRef::Compound(_)) => with_points,
        }
    }

    /// An owned copy.
    pub(crate) fn to_owned(self) -> Shape {
        match self {
            ShapeRef::Circle { radius } => Shape::Circle { radius },
            ShapeRef::Rect { half_size } => Shape::Rect { half_size },
            ShapeRef::Capsule {
                radius,
                half_length,
            } => Shape::Capsule {
                radius,
                half_length,
            },
            ShapeRef::Segment { a, b } => Shape::Segment { a, b },
            ShapeRef::Polygon(polygon) => Shape::Polygon(ConvexPolygon::from_parts(
                polygon.vertices(),
                polygon.normals(),
            )),
            ShapeRef::Compound(compound) => Shape::Compound(compound.clone()),
        }
    }
}

impl ShapeRef<'_> {
    // Always inlined: the snapshot boxes every collider every frame, and a
    // call per collider costs as much as the box itself.
    #[inline(always)]
    pub(crate) fn aabb(&self, pose: Isometry2d) -> Aabb2d {
        // The box's centre relative to the pose, and its half extents.
        let (offset, extent) = match *self {
            ShapeRef::Circle { radius } => (Vec2::ZERO, Vec2::splat(radius)),
            ShapeRef::Rect { half_size } => {
                let (sin, cos) = (pose.rotation.sin.abs(), pose.rotation.cos.abs());
                let extent = Vec2::new(
                    cos * half_size.x + sin * half_size.y,
                    sin * half_size.x + cos * half_size.y,
                );
                (Vec2::ZERO, extent)
            }
            ShapeRef::Capsule {
                radius,
                half_length,
            } => {
                let tip = (pose.rotation * Vec2::new(0.0, half_length)).abs();
                (Vec2::ZERO, tip + radius)
            }
            ShapeRef::Segment { a, b } => points_extent(&[a, b], pose),
            ShapeRef::Polygon(polygon) => points_extent(polygon.vertices(), pose),
            ShapeRef::Compound(compound) => compound.extent_at(pose),
        };
        let centre = pose.translation + offset;
        // Rounding of `centre +- extent` and of the narrow-phase arithmetic is
        // relative to the magnitudes involved.
        let slack = (centre.abs().max_element() + extent.max_element()) * (8.0 * f32::EPSILON);
        let half_extents = extent + slack;
        Aabb2d {
            min: centre - half_extents,
            max: centre + half_extents,
        }
    }

    /// The radius of a circle about the pose's origin that holds the shape
    /// at any rotation.
    pub(crate) fn bounding_radius(&self) -> f32 {
        if let ShapeRef::Compound(compound) = *self {
            return (compound.parts().iter())
                .map(|part| part.pose.translation.length() + part.shape.as_ref().bounding_radius())
                .fold(0.0, f32::max);
        }
        let rounding = match *self {
            ShapeRef::Circle { radius } | ShapeRef::Capsule { radius, .. } => radius,
            _ => 0.0,
        };
        convex::reach(*self) + rounding
    }

    pub(crate) fn contains_point(&self, pose: Isometry2d, point: Vec2) -> bool {
        match *self {
            ShapeRef::Circle { radius } => {
                (point - pose.translation).length_squared() <= radius * radius
            }
            ShapeRef::Rect { half_size } => {
                let local = pose.inverse_transform_point(point);
                local.abs().cmple(half_size).all()
            }
            ShapeRef::Segment { a, b } => {
                let (a, b) = (pose.transform_point(a), pose.transform_point(b));
                let (on_segment, _) = convex::closest_points_on_segments(a, b, point, point);
                // Exactly on the line is rarely representable: a few float
                // steps of the magnitudes involved count as on it.
                let scale = a.abs().max(b.abs()).max(point.abs()).max_element();
                on_segment.distance(point) <= scale * (4.0 * f32::EPSILON)
            }
            ShapeRef::Compound(compound) => compound_contains(compound, pose, point),
            _ => convex::intersects(
                &convex::Core::new(*self, pose),
                &convex::Core::new(
                    ShapeRef::Circle { radius: 0.0 },
                    Isometry2d::from_translation(point),
                ),
            ),
        }
    }

    #[inline]
    pub(crate) fn intersects(
        &self,
        pose: Isometry2d,
        other: ShapeRef<'_>,
        other_pose: Isometry2d,
    ) -> bool {
        dispatch(IntersectsOp, *self, pose, other, other_pose)
    }

    #[inline]
    pub(crate) fn contact(
        &self,
        pose: Isometry2d,
        other: ShapeRef<'_>,
        other_pose: Isometry2d,
    ) -> Option<Contact> {
        dispatch(ContactOp, *self, pose, other, other_pose)
    }
}

/// The pure API's shapes straight into [`dispatch`]: the hand-written pairs
/// read their sizes from the shape itself, not from a [`ShapeRef`] built
/// on the stack first (whose reads back stalled the circle and capsule
/// tests).
impl<'a> PairShape<'a> for &'a Shape {
    #[inline(always)]
    fn special_kind(self) -> SpecialKind {
        match *self {
            Shape::Circle { radius } => SpecialKind::Circle(radius),
            Shape::Rect { half_size } => SpecialKind::Rect(half_size),
            Shape::Capsule {
                radius,
                half_length,
            } => SpecialKind::Stick(Stick::capsule(radius, half_length)),
            Shape::Segment { a, b } => SpecialKind::Stick(Stick::segment(a, b)),
            _ => SpecialKind::Other,
        }
    }

    #[inline(always)]
    fn view(self) -> ShapeRef<'a> {
        self.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::validate_pose;
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
            rect.scaled(Vec2::new(-3.0, 0.5)).unwrap(),
            Shape::Rect {
                half_size: Vec2::new(6.0, 0.5)
            }
        );
        let circle = Shape::Circle { radius: 2.0 };
        assert_eq!(
            circle.scaled(Vec2::new(0.5, -3.0)).unwrap(),
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

    /// The direct projections of circles and rectangles agree with the
    /// general one (a contact inside, closest points outside) on points in,
    /// on and around random shapes.
    #[test]
    fn direct_projections_match_the_general_one() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..20_000 {
            let size = Vec2::new(rng.random_range(0.1..5.0), rng.random_range(0.1..5.0));
            let shape = if rng.random_bool(0.5) {
                ShapeRef::Circle { radius: size.x }
            } else {
                ShapeRef::Rect { half_size: size }
            };
            let centre = Vec2::new(rng.random_range(-9.0..9.0), rng.random_range(-9.0..9.0));
            let pose = Isometry2d::new(centre, Rot2::radians(rng.random_range(-4.0..4.0)));
            let offset = Vec2::new(rng.random_range(-8.0..8.0), rng.random_range(-8.0..8.0));
            let point = centre + offset;
            let (direct, inside) = shape.project_point(pose, point, f32::INFINITY).unwrap();
            let (general, general_inside) = shape.project_point_by_contact(pose, point).unwrap();
            let depth = general.distance(point);
            if depth > 1e-4 {
                assert_eq!(inside, general_inside, "{shape:?} {pose:?} {point}");
            }
            // Equally near; the same point unless two sides are as near.
            assert!(
                (direct.distance(point) - depth).abs() < 1e-4,
                "{shape:?} {point}"
            );
            let tied = matches!(shape, ShapeRef::Rect { half_size } if inside
            && {
                let room = half_size - pose.inverse_transform_point(point).abs();
                (room.x - room.y).abs() < 1e-4
            });
            // (The general one's closest points are exact to about 1e-3 of
            // the distance along the side.)
            if !tied {
                assert!(
                    direct.distance(general) < 1e-3 * (1.0 + depth),
                    "{shape:?} {pose:?} {point}: {direct} vs {general}"
                );
            }
        }
    }
}
