//! [`Collider`]: a collision shape, its constructors, and how its shape
//! and pose are read from its `GlobalTransform`.

use bevy::math::{Isometry2d, Vec2};
use bevy::prelude::*;
use bevy::shape::Aabb2d;

use super::{CollidingEntities, CollisionLayers, read_transform};
use crate::geometry::{
    Compound, Contact, ConvexPolygon, Manifold, Placed, Shape, ShapeError, ShapeView,
    TransformReading, convex_pieces, convex_pieces_with_holes, manifold_of, validate_pose,
};
/// A collision shape, centred on its entity.
///
/// The shape is placed by the entity's [`GlobalTransform`]: position, rotation
/// about z (counter-clockwise, in radians, about the centre) and scale, so
/// children of moved, rotated and scaled parents collide where they are drawn.
/// Scale, per shape:
/// - circle: the radius times the larger of `|scale.x|` and `|scale.y|`;
/// - rectangle: the half size times `|scale.xy|`;
/// - capsule: the radius times `|scale.x|`, the length times `|scale.y|`;
/// - segment and polygon: every point times `scale.xy`, signs included, so a
///   negative scale mirrors them (and keeps a polygon convex);
/// - compound: per part (see [`Collider::compound`]).
///
/// A scale of zero on either axis hides the collider, whatever its kind
/// (compounds included): it is left out of detection and of every
/// [`SpatialQuery`](crate::SpatialQuery) without a warning, and
/// [`Collider::world_shape`] says why.
///
/// Any two colliders whose [`CollisionLayers`] match are tested every frame;
/// no rigid body or marker is needed.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_collide2d::prelude::*;
/// let ball = Collider::circle(10.0);
/// let brick = Collider::rect(60.0, 20.0); // width, height
/// let brick_pose = Isometry2d::new(Vec2::new(0.0, 18.0), Rot2::radians(0.3));
/// assert!(ball.intersects(Isometry2d::IDENTITY, &brick, brick_pose));
///
/// let hero = Collider::capsule(8.0, 16.0); // radius, length between the caps
/// let slope = Collider::segment(Vec2::new(-50.0, 0.0), Vec2::new(50.0, 25.0));
/// let rock = Collider::convex_polygon(&[
///     Vec2::new(-10.0, 0.0),
///     Vec2::new(10.0, 0.0),
///     Vec2::new(0.0, 15.0),
/// ])
/// .unwrap();
/// // The slope is at y = 12.5 under the hero; its feet reach down to 11.
/// let on_slope = Isometry2d::from_xy(0.0, 27.0);
/// assert!(hero.intersects(on_slope, &slope, Isometry2d::IDENTITY));
/// assert!(!rock.intersects(Isometry2d::from_xy(40.0, 0.0), &hero, on_slope));
/// ```
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component, Debug, PartialEq, Clone)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", reflect(Serialize, Deserialize))]
#[require(CollidingEntities, CollisionLayers, Transform)]
// A per-table "changed since" tick: detection skips reading every static
// collider's change tick when none of a table's changed.
#[component(summary_tick)]
pub struct Collider {
    /// The geometry in local coordinates, before scaling.
    shape: Shape,
}

// Read for every collider every frame: a polygon keeps its points behind a
// pointer, so a collider is no larger than one holding a segment.
const _: () = assert!(size_of::<Collider>() <= 24);

impl Collider {
    /// A circle of the given radius.
    pub const fn circle(radius: f32) -> Self {
        Self::new(Shape::Circle { radius })
    }

    /// A rectangle `width` wide and `height` tall, centred on the entity.
    pub const fn rect(width: f32, height: f32) -> Self {
        Self::new(Shape::Rect {
            half_size: Vec2::new(width * 0.5, height * 0.5),
        })
    }

    /// A capsule along the local y axis (upright): `length` between the two
    /// cap centres, as [`Capsule2d::new`](bevy::shape::Capsule2d::new)
    /// takes it, so it is `length + 2 * radius` tall.
    pub const fn capsule(radius: f32, length: f32) -> Self {
        Self::new(Shape::Capsule {
            radius,
            half_length: length * 0.5,
        })
    }

    /// The segment from `a` to `b`, in local coordinates (not recentred).
    pub const fn segment(a: Vec2, b: Vec2) -> Self {
        Self::new(Shape::Segment { a, b })
    }

    /// The convex hull of `points`, in local coordinates (not recentred).
    /// Fails for a point that is NaN or infinite, and when fewer than three
    /// of the points are off one line.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// let ramp = Collider::convex_polygon(&[
    ///     Vec2::new(0.0, 0.0),
    ///     Vec2::new(40.0, 0.0),
    ///     Vec2::new(40.0, 20.0),
    /// ])
    /// .expect("three points off one line");
    /// assert!(Collider::convex_polygon(&[Vec2::ZERO, Vec2::X, Vec2::new(2.0, 0.0)]).is_err());
    /// ```
    pub fn convex_polygon(points: &[Vec2]) -> Result<Self, ShapeError> {
        ConvexPolygon::new(points).map(|polygon| Self::new(Shape::Polygon(polygon)))
    }

    /// The triangle with corners `a`, `b` and `c` (either winding), in local
    /// coordinates: a convex polygon of three points. Fails as
    /// [`convex_polygon`](Collider::convex_polygon) does, for a NaN or
    /// infinite corner and for three corners on one line.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// let spike = Collider::triangle(Vec2::new(-4.0, 0.0), Vec2::new(4.0, 0.0), Vec2::new(0.0, 8.0))
    ///     .expect("corners off one line");
    /// assert!(spike.shape().contains_point(Isometry2d::IDENTITY, Vec2::new(0.0, 7.0)));
    /// assert!(Collider::triangle(Vec2::ZERO, Vec2::X, Vec2::new(2.0, 0.0)).is_err());
    /// ```
    pub fn triangle(a: Vec2, b: Vec2, c: Vec2) -> Result<Self, ShapeError> {
        Self::convex_polygon(&[a, b, c])
    }

    /// The simple polygon through `points` (in order, either winding, the
    /// last joined to the first), concave or not, in local coordinates:
    /// art outlines. It is cut into convex pieces (ear clipping, then
    /// Hertel-Mehlhorn, which keeps at most 4 times the fewest pieces
    /// possible) and stored as a [compound](Collider::compound) of them, one
    /// part per piece; a convex outline is one plain polygon. Repeated points
    /// and points where the outline does not turn are dropped. Like any
    /// compound's, its contact is its deepest piece's (see
    /// [`Contact`](crate::Contact)).
    ///
    /// Fails for a point that is NaN, infinite or too large
    /// ([`ShapeError::InvalidVertex`]), an outline with no area
    /// ([`ShapeError::DegeneratePolygon`]), and one whose edges cross or
    /// touch ([`ShapeError::SelfIntersecting`]).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::{ShapeError, prelude::*};
    /// // A "U": a ball in its mouth touches nothing.
    /// let cup = Collider::concave_polygon(&[
    ///     Vec2::new(0.0, 0.0),
    ///     Vec2::new(30.0, 0.0),
    ///     Vec2::new(30.0, 30.0),
    ///     Vec2::new(20.0, 30.0),
    ///     Vec2::new(20.0, 10.0),
    ///     Vec2::new(10.0, 10.0),
    ///     Vec2::new(10.0, 30.0),
    ///     Vec2::new(0.0, 30.0),
    /// ])
    /// .unwrap();
    /// let ball = Collider::circle(4.0);
    /// assert!(!ball.intersects(Isometry2d::from_xy(15.0, 20.0), &cup, Isometry2d::IDENTITY));
    /// assert!(ball.intersects(Isometry2d::from_xy(15.0, 13.0), &cup, Isometry2d::IDENTITY));
    /// let bowtie = [Vec2::ZERO, Vec2::new(10.0, 10.0), Vec2::new(10.0, 0.0), Vec2::new(0.0, 10.0)];
    /// assert_eq!(Collider::concave_polygon(&bowtie), Err(ShapeError::SelfIntersecting));
    /// ```
    pub fn concave_polygon(points: &[Vec2]) -> Result<Self, ShapeError> {
        Self::from_convex_pieces(convex_pieces(points)?)
    }

    /// The region inside the simple polygon `outline` and outside each of
    /// `holes` (simple polygons too, concave or not, either winding): a
    /// frame, a ring-shaped arena, a sprite's outline with gaps. Cut into
    /// convex pieces that cover exactly that region, as a compound (see
    /// [`concave_polygon`](Self::concave_polygon), whose errors it shares).
    ///
    /// Also fails when a hole crosses or touches the outline or lies
    /// outside it ([`ShapeError::HoleNotInside`]) and when two holes
    /// cross, touch or nest ([`ShapeError::HolesOverlap`]).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::{ShapeError, prelude::*};
    /// let square = |half: f32| {
    ///     [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(x, y)| Vec2::new(x, y) * half)
    /// };
    /// let frame = Collider::polygon_with_holes(&square(50.0), [square(30.0)]).unwrap();
    /// let ball = Collider::circle(5.0);
    /// assert!(!ball.intersects(Isometry2d::IDENTITY, &frame, Isometry2d::IDENTITY));
    /// assert!(ball.intersects(Isometry2d::from_xy(40.0, 0.0), &frame, Isometry2d::IDENTITY));
    /// let outside = [square(5.0).map(|p| p + Vec2::new(100.0, 0.0))];
    /// assert_eq!(
    ///     Collider::polygon_with_holes(&square(50.0), outside),
    ///     Err(ShapeError::HoleNotInside(0))
    /// );
    /// ```
    pub fn polygon_with_holes<H: AsRef<[Vec2]>>(
        outline: &[Vec2],
        holes: impl IntoIterator<Item = H>,
    ) -> Result<Self, ShapeError> {
        let holes: Vec<H> = holes.into_iter().collect();
        let holes: Vec<&[Vec2]> = holes.iter().map(AsRef::as_ref).collect();
        Self::from_convex_pieces(convex_pieces_with_holes(outline, &holes)?)
    }

    /// Terrain from evenly spaced height samples: the line through
    /// `(x_i, heights[i] * scale.y)`, the `x_i` evenly spaced from
    /// `-scale.x / 2` to `scale.x / 2` in local coordinates. A
    /// [polyline](Self::polyline) of those points (part `i` from sample `i`
    /// to the next, nothing catching at a sample), which also remembers its
    /// samples ([`Compound::heightfield_samples`]) to save them as they
    /// were given.
    ///
    /// Fails for fewer than two samples ([`ShapeError::EmptyCompound`]), a
    /// height that is NaN, infinite or too large
    /// ([`ShapeError::InvalidVertex`]), and a scale that is not finite or
    /// of width `scale.x <= 0` ([`ShapeError::InvalidHeightfieldScale`]).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// // 100 units wide, samples every 25: heights 0, 10, 0, 10, 0.
    /// let hills = Collider::heightfield(&[0.0, 1.0, 0.0, 1.0, 0.0], Vec2::new(100.0, 10.0)).unwrap();
    /// let ball = Collider::circle(2.0);
    /// assert!(ball.intersects(Isometry2d::from_xy(-25.0, 11.0), &hills, Isometry2d::IDENTITY));
    /// assert!(!ball.intersects(Isometry2d::from_xy(-25.0, 13.0), &hills, Isometry2d::IDENTITY));
    /// ```
    pub fn heightfield(heights: &[f32], scale: Vec2) -> Result<Self, ShapeError> {
        Compound::heightfield(heights, scale).map(|terrain| Self::new(Shape::Compound(terrain)))
    }

    /// One convex polygon, or a compound of several.
    pub(crate) fn from_convex_pieces(pieces: Vec<Vec<Vec2>>) -> Result<Self, ShapeError> {
        let mut pieces = pieces
            .into_iter()
            .map(|piece| ConvexPolygon::new(&piece).map(Shape::Polygon))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self::new(if pieces.len() == 1 {
            pieces.remove(0)
        } else {
            Shape::Compound(Compound::new(
                pieces
                    .into_iter()
                    .map(|piece| (Isometry2d::IDENTITY, piece)),
            ))
        }))
    }

    /// The line through `points` in order, in local coordinates: terrain
    /// drawn as a line, hills and slopes. Closed when the last point equals
    /// the first. No thickness, like [`segment`](Collider::segment), and
    /// both sides collide. A [compound](Collider::compound) of its
    /// segments (part `i` from the `i`-th point to the next) with the
    /// ghost-vertex rule of Box2D's chains: a circle, capsule or box
    /// sliding along it gets no sideways normal at a vertex where the line
    /// runs on straight or bends towards it, so it does not catch on the
    /// joints (see [`Compound::polyline`]). Repeated neighbouring points
    /// are dropped.
    ///
    /// Fails for a point that is NaN, infinite or too large
    /// ([`ShapeError::InvalidVertex`]) and for fewer than two distinct
    /// points ([`ShapeError::EmptyCompound`]).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// let ground = Collider::polyline(&[
    ///     Vec2::new(-100.0, 0.0),
    ///     Vec2::new(0.0, 0.0),
    ///     Vec2::new(100.0, 0.0),
    /// ])
    /// .unwrap();
    /// // A box sunk a little into the ground, right over the joint: pushed up, not sideways.
    /// let crate_box = Collider::rect(10.0, 10.0);
    /// let contact = ground
    ///     .contact(Isometry2d::IDENTITY, &crate_box, Isometry2d::from_xy(4.9, 4.9))
    ///     .unwrap();
    /// assert_eq!(contact.normal, Dir2::Y);
    /// ```
    pub fn polyline(points: &[Vec2]) -> Result<Self, ShapeError> {
        Compound::polyline(points).map(|chain| Self::new(Shape::Compound(chain)))
    }

    /// Several colliders as one, each at a pose relative to the entity: an
    /// L-shaped wall, a ship's hull and wings. One entity, so events stay
    /// per pair of entities: one `Started` when any part starts touching
    /// the other collider, one `Ended` when none touches it any more, and
    /// the contact is the deepest part's. A part that is itself a compound
    /// is replaced by its parts (see [`Compound::new`]).
    ///
    /// Scale applies per part: each part's position is multiplied by
    /// `scale.xy`, and each part is scaled along its own axes by how much the
    /// scale stretches them, by its own kind's rule. A turned part under a
    /// scale that differs per axis keeps its kind (a rectangle stays a
    /// rectangle) rather than shearing. A compound of up to 16 circles,
    /// rectangles, capsules and segments under a scale alike on both axes
    /// (a `Transform` spun by `rotate_z` drifts its scale by a float step
    /// every frame or two) costs no rebuild: detection scales and places
    /// its parts as it reads them. Others are rebuilt when the scale changes.
    ///
    /// For a collider whose parts act differently (a hitbox and a feet
    /// sensor with other layers), use child entities and a
    /// [`CollisionBody`](super::CollisionBody) instead.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// // An L-shaped wall: a floor and a post on its left end.
    /// let wall = Collider::compound([
    ///     (Isometry2d::IDENTITY, Collider::rect(100.0, 10.0)),
    ///     (Isometry2d::from_xy(-45.0, 30.0), Collider::rect(10.0, 50.0)),
    /// ]);
    /// let ball = Collider::circle(5.0);
    /// assert!(ball.intersects(Isometry2d::from_xy(-35.0, 40.0), &wall, Isometry2d::IDENTITY));
    /// assert!(!ball.intersects(Isometry2d::from_xy(0.0, 40.0), &wall, Isometry2d::IDENTITY));
    /// ```
    pub fn compound(parts: impl IntoIterator<Item = (Isometry2d, Collider)>) -> Self {
        Self::new(Shape::Compound(Compound::new(
            (parts.into_iter()).map(|(pose, collider)| (pose, collider.shape)),
        )))
    }

    /// A collider of `shape`, in local coordinates before scaling. Sizes
    /// are checked where the collider is used: detection warns about an
    /// invalid one and leaves it out.
    pub const fn new(shape: Shape) -> Self {
        Self { shape }
    }

    /// The collider's geometry, unscaled: match on it to tell the kinds
    /// apart.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::{geometry::Shape, prelude::*};
    /// let brick = Collider::rect(60.0, 20.0);
    /// let Shape::Rect { half_size } = brick.shape() else { unreachable!() };
    /// assert_eq!(*half_size, Vec2::new(30.0, 10.0));
    /// ```
    pub const fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The collider's geometry, unscaled, without copying a polygon.
    #[inline(always)]
    pub(crate) fn shape_view(&self) -> ShapeView<'_> {
        self.shape.view()
    }

    /// This collider as detection sees it on an entity with `transform`: the
    /// shape scaled by the transform (see [`Collider`] for the rule) and its
    /// world pose, or why it cannot be used (an invalid size, a scale of
    /// zero, a NaN or infinite transform). The pair places the same points
    /// as the transform does, though not always split the same way: a
    /// mirror (one negative scale) is read as a turn with the mirror on the
    /// y axis, so `Transform::from_scale(Vec3::new(-1.0, 1.0, 1.0))` gives a
    /// pose turned by a half turn and the shape mirrored in y.
    pub fn world_shape(
        &self,
        transform: &GlobalTransform,
    ) -> Result<(Shape, Isometry2d), ShapeError> {
        let (reading, scaled) = self.read_as_detection(transform, |reading| {
            let shape = self.shape.scaled(reading.signed_scale())?;
            shape.validate().map(|()| shape)
        });
        match scaled {
            Ok(shape) => Ok((shape, reading.pose)),
            Err(unusable) => Err(unusable.error),
        }
    }

    /// Reads this collider on an entity with `transform` as detection does:
    /// the transform read, its pose checked, then `scale_and_check` makes
    /// the scaled shape from the reading and checks it (the snapshot packs
    /// it its own way, [`Collider::world_shape`] as a [`Shape`]). The
    /// reading, and the result or why the collider is unusable
    /// ([`Collider::unusable`]).
    #[inline(always)]
    pub(crate) fn read_as_detection<T>(
        &self,
        transform: &GlobalTransform,
        scale_and_check: impl FnOnce(&TransformReading) -> Result<T, ShapeError>,
    ) -> (TransformReading, Result<T, Unusable>) {
        let reading = read_transform(transform);
        // The scaled shape is what must be valid: only it is checked on the
        // way. The collider's own size only matters to tell why a check
        // failed, and an invalid one is the reason given first.
        let scaled = validate_pose(reading.pose)
            .and_then(|()| scale_and_check(&reading))
            .and_then(|shape| {
                // Flattened onto a line (or a point): hidden, whatever the
                // kind, even where the scaled shape would still be valid
                // (a circle takes the larger factor, a segment may lie along
                // the other axis).
                if reading.scale.cmpeq(Vec2::ZERO).any() {
                    Err(ShapeError::ZeroScale(reading.scale))
                } else {
                    Ok(shape)
                }
            });
        let scaled = scaled.map_err(|error| self.unusable(error, reading.scale));
        (reading, scaled)
    }

    /// Why this collider, which failed a check with `error` under `scale`,
    /// is unusable: its own invalid size if it has one, else `error`; hidden
    /// if it is valid itself but scaled to nothing on an axis.
    #[cold]
    pub(crate) fn unusable(&self, error: ShapeError, scale: Vec2) -> Unusable {
        match self.validate() {
            Err(own) => Unusable {
                error: own,
                hidden: false,
            },
            Ok(()) => Unusable {
                error,
                hidden: scale.cmpeq(Vec2::ZERO).any(),
            },
        }
    }

    /// Checks that the size is finite and strictly positive, and the points
    /// finite.
    #[inline]
    pub fn validate(&self) -> Result<(), ShapeError> {
        self.shape.validate()
    }

    /// The smallest axis-aligned box containing the collider at `pose`.
    pub fn aabb(&self, pose: Isometry2d) -> Aabb2d {
        self.shape.aabb(pose)
    }

    /// Whether this collider at `pose` and `other` at `other_pose` overlap or
    /// touch. `false` when either size or pose is invalid; see
    /// [`Collider::try_contact`] to learn why.
    pub fn intersects(&self, pose: Isometry2d, other: &Collider, other_pose: Isometry2d) -> bool {
        self.placed_pair(pose, other, other_pose)
            .is_ok_and(|(a, b)| a.shape().intersects(a.pose(), b.shape(), b.pose()))
    }

    /// The contact between this collider at `pose` and `other` at
    /// `other_pose`, seen from this one: the normal points towards `other`.
    /// `None` when they are apart or when either size or pose is invalid;
    /// see [`Collider::try_contact`] to tell these apart.
    pub fn contact(
        &self,
        pose: Isometry2d,
        other: &Collider,
        other_pose: Isometry2d,
    ) -> Option<Contact> {
        self.try_contact(pose, other, other_pose).ok().flatten()
    }

    /// Like [`Collider::contact`], but reports an invalid size or pose as an
    /// error instead of "no contact".
    pub fn try_contact(
        &self,
        pose: Isometry2d,
        other: &Collider,
        other_pose: Isometry2d,
    ) -> Result<Option<Contact>, ShapeError> {
        let (a, b) = self.placed_pair(pose, other, other_pose)?;
        Ok(a.shape().contact(a.pose(), b.shape(), b.pose()))
    }

    /// The contact manifold of this collider at `pose` and `other` at
    /// `other_pose`, seen from this one: the normal of
    /// [`Collider::contact`] and the one or two points where they touch
    /// ([`Shape::manifold`]). `None` when they are apart or when either size
    /// or pose is invalid.
    ///
    /// For colliders on entities, as detection saw them, see
    /// [`SpatialQuery::manifold`](crate::SpatialQuery::manifold).
    pub fn manifold(
        &self,
        pose: Isometry2d,
        other: &Collider,
        other_pose: Isometry2d,
    ) -> Option<Manifold> {
        let (a, b) = self.placed_pair(pose, other, other_pose).ok()?;
        manifold_of(a, b)
    }

    /// Both colliders placed, both shapes checked before both poses, the
    /// rotations renormalised (they may be up to 1e-4 off unit length,
    /// which would otherwise scale the shapes).
    fn placed_pair<'a>(
        &'a self,
        pose: Isometry2d,
        other: &'a Collider,
        other_pose: Isometry2d,
    ) -> Result<(Placed<'a>, Placed<'a>), ShapeError> {
        let (a, b) = Placed::pair((self.shape_view(), pose), (other.shape_view(), other_pose))?;
        Ok((a.renormalised(), b.renormalised()))
    }
}

/// Why detection cannot use a collider ([`Collider::unusable`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unusable {
    /// The collider's own invalid size if it has one, else what the pose or
    /// the scaled shape failed with.
    pub(crate) error: ShapeError,
    /// The collider is valid itself but scaled to nothing on an axis (a
    /// common way to hide or grow things in): skipped without a warning.
    pub(crate) hidden: bool,
}

/// A [`bevy::shape::Circle`] as a collider of the same radius.
impl From<Circle> for Collider {
    fn from(circle: Circle) -> Self {
        Self::circle(circle.radius)
    }
}

/// A [`bevy::shape::Rectangle`] as a collider of the same size,
/// centred on the entity.
impl From<Rectangle> for Collider {
    fn from(rectangle: Rectangle) -> Self {
        Self::new(Shape::Rect {
            half_size: rectangle.half_size,
        })
    }
}

/// A [`Capsule2d`] as an upright capsule
/// collider of the same radius and length.
impl From<Capsule2d> for Collider {
    fn from(capsule: Capsule2d) -> Self {
        Self::new(Shape::Capsule {
            radius: capsule.radius,
            half_length: capsule.half_length,
        })
    }
}

/// A [`Segment2d`] as a segment collider
/// between the same two points.
impl From<Segment2d> for Collider {
    fn from(segment: Segment2d) -> Self {
        Self::segment(segment.point1(), segment.point2())
    }
}

/// A [`ConvexPolygon`](bevy::shape::ConvexPolygon) as a polygon
/// collider; fails as [`Collider::convex_polygon`] does.
impl TryFrom<&bevy::shape::ConvexPolygon> for Collider {
    type Error = ShapeError;

    fn try_from(polygon: &bevy::shape::ConvexPolygon) -> Result<Self, ShapeError> {
        Self::convex_polygon(polygon.vertices())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::ShapeError;

    #[test]
    fn bevy_math_primitives_convert() {
        assert_eq!(Collider::from(Circle::new(3.0)), Collider::circle(3.0));
        assert_eq!(
            Collider::from(Rectangle::new(8.0, 2.0)),
            Collider::rect(8.0, 2.0)
        );
        assert_eq!(
            Collider::from(Capsule2d::new(1.5, 6.0)),
            Collider::capsule(1.5, 6.0)
        );
        let (a, b) = (Vec2::new(-1.0, 2.0), Vec2::new(3.0, 4.0));
        assert_eq!(
            Collider::from(Segment2d::new(a, b)),
            Collider::segment(a, b)
        );
        let points = [Vec2::ZERO, Vec2::X, Vec2::new(0.0, 2.0)];
        let primitive = bevy::shape::ConvexPolygon::new(points).unwrap();
        assert_eq!(
            Collider::try_from(&primitive),
            Collider::convex_polygon(&points)
        );
    }

    #[test]
    fn every_kind_reflects_and_clones() {
        let polygon = Collider::convex_polygon(&[Vec2::ZERO, Vec2::X, Vec2::Y]).unwrap();
        for collider in [
            Collider::circle(1.0),
            Collider::capsule(1.0, 2.0),
            Collider::segment(Vec2::ZERO, Vec2::X),
            Collider::compound([(Isometry2d::from_xy(1.0, 2.0), polygon.clone())]),
            polygon,
        ] {
            let cloned = collider.reflect_clone().unwrap();
            assert_eq!(cloned.downcast_ref::<Collider>(), Some(&collider));
            assert!(collider.reflect_partial_eq(&collider).unwrap_or(false));
        }
    }

    #[test]
    fn rect_takes_width_and_height() {
        assert_eq!(
            Collider::rect(200.0, 20.0),
            Collider::new(Shape::Rect {
                half_size: Vec2::new(100.0, 10.0)
            })
        );
    }

    #[test]
    fn invalid_input_is_an_error_not_a_contact() {
        let pose = Isometry2d::IDENTITY;
        let good = Collider::circle(1.0);
        let bad = Collider::circle(-1.0);
        assert_eq!(
            good.try_contact(pose, &bad, pose),
            Err(ShapeError::InvalidRadius(-1.0))
        );
        assert!(!good.intersects(pose, &bad, pose));
        assert!(good.contact(pose, &bad, pose).is_none());
        let nan_pose = Isometry2d::from_xy(f32::NAN, 0.0);
        assert!(matches!(
            good.try_contact(nan_pose, &good, pose),
            Err(ShapeError::InvalidPose(_))
        ));
        assert_eq!(
            good.try_contact(pose, &good, Isometry2d::from_xy(5.0, 0.0)),
            Ok(None)
        );
        assert!(good.try_contact(pose, &good, pose).unwrap().is_some());
    }

    #[test]
    fn world_shape_blames_the_collider_first_then_the_transform() {
        let nan = GlobalTransform::from_translation(Vec3::NAN);
        let flat = GlobalTransform::from_scale(Vec3::new(0.0, 1.0, 1.0));
        let bad = Collider::circle(-1.0);
        for transform in [nan, flat, GlobalTransform::IDENTITY] {
            assert_eq!(
                bad.world_shape(&transform),
                Err(ShapeError::InvalidRadius(-1.0))
            );
        }
        assert!(matches!(
            Collider::circle(1.0).world_shape(&nan),
            Err(ShapeError::InvalidPose(_))
        ));
        // Scaled to nothing: an error here, hidden (no warning) in detection.
        let rect = Collider::rect(2.0, 2.0);
        assert_eq!(
            rect.world_shape(&flat),
            Err(ShapeError::InvalidHalfSize(Vec2::new(0.0, 1.0)))
        );
        let fail = |_: &TransformReading| Err::<(), _>(ShapeError::DegeneratePolygon);
        let (_, read) = rect.read_as_detection(&flat, fail);
        assert!(read.is_err_and(
            |unusable| unusable.hidden && unusable.error == ShapeError::DegeneratePolygon
        ));
        let (_, read) = bad.read_as_detection(&flat, fail);
        assert!(read.is_err_and(
            |unusable| !unusable.hidden && unusable.error == ShapeError::InvalidRadius(-1.0)
        ));
        assert_eq!(
            rect.world_shape(&GlobalTransform::from_xyz(1.0, 2.0, 3.0)),
            Ok((
                Shape::Rect {
                    half_size: Vec2::ONE
                },
                Isometry2d::from_xy(1.0, 2.0)
            ))
        );
    }
}
