//! What the pair queries answer, as data: a [`Contact`], which parts of
//! two compounds it is on ([`ContactParts`]), and a contact [`Manifold`]
//! (its points and their [`FeatureId`]s). Pure geometry: no step, no
//! entity.

use core::num::NonZeroU32;

use bevy::math::{Dir2, Vec2};
use bevy::reflect::Reflect;
use bevy::reflect::std_traits::ReflectDefault;

/// Where and how deeply two shapes overlap.
///
/// Seen from the first shape of the pair: `normal` points from the first shape
/// towards the second, and moving the second shape by `normal * depth` (or the
/// first by `-normal * depth`) just separates them.
///
/// A shape made of parts (a compound, and so a concave polygon, a polygon
/// with holes, a polyline or a tile map) answers with its deepest part's
/// contact, as the physics engines do: that move separates that part, and
/// may leave another one overlapping. A ball pressed into the inner corner
/// of an L overlaps both arms; the contact names one arm, and a controller
/// pushes out of the other at the next step (as `move_and_slide` does).
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
pub struct Contact {
    /// A world-space point inside the overlap of the two shapes (on its boundary
    /// when they only touch).
    pub point: Vec2,
    /// Unit direction from the first shape to the second along which they are
    /// least deeply overlapping.
    pub normal: Dir2,
    /// Penetration depth along `normal`, `>= 0`; `0` when the shapes touch.
    pub depth: f32,
}

impl Contact {
    /// A contact at `point` with `normal` (from the first shape to the
    /// second) and `depth`.
    #[inline]
    pub const fn new(point: Vec2, normal: Dir2, depth: f32) -> Self {
        Self {
            point,
            normal,
            depth,
        }
    }

    /// A placeholder for "touching" where only the yes/no answer is used.
    pub(crate) const TOUCHING: Self = Self::new(Vec2::ZERO, Dir2::X, 0.0);

    /// The same contact seen from the second shape: the normal is reversed,
    /// point and depth are unchanged.
    #[inline]
    #[must_use]
    pub fn flipped(self) -> Self {
        Self {
            normal: -self.normal,
            ..self
        }
    }
}

/// Which part of each collider of a pair a contact is on: the part's index
/// for a compound collider (its order in [`Collider::compound`]), `None` for
/// any other shape. See [`Collisions::parts`] and [`Manifold::parts`].
///
/// [`Collider::compound`]: crate::Collider::compound
/// [`Collisions::parts`]: crate::Collisions::parts
/// [`Manifold::parts`]: Manifold::parts
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Reflect)]
pub struct ContactParts {
    // The index plus one, so that a pair stays as small as before.
    a: Option<NonZeroU32>,
    b: Option<NonZeroU32>,
}

impl ContactParts {
    /// Neither collider is a compound.
    pub const NONE: Self = Self { a: None, b: None };

    /// The parts `a` and `b`, each `None` for a collider that is not a
    /// compound.
    pub fn new(a: Option<u32>, b: Option<u32>) -> Self {
        let packed = |part: Option<u32>| part.and_then(|i| NonZeroU32::new(i.saturating_add(1)));
        Self {
            a: packed(a),
            b: packed(b),
        }
    }

    /// The part of the pair's `a` the contact is on.
    pub fn a(self) -> Option<u32> {
        self.a.map(|i| i.get() - 1)
    }

    /// The part of the pair's `b` the contact is on.
    pub fn b(self) -> Option<u32> {
        self.b.map(|i| i.get() - 1)
    }

    /// The same parts seen from the other collider.
    #[must_use]
    pub fn swapped(self) -> Self {
        Self {
            a: self.b,
            b: self.a,
        }
    }
}

/// Where two shapes touch: the contact normal and one or two points, each
/// with how deeply the shapes overlap there (Box2D's `b2Manifold`).
///
/// Seen from the first shape of the pair, as its [`Contact`]: `normal`
/// points from the first shape towards the second, and is the normal of
/// the pair's contact. A face resting on a face gives two points, at the
/// ends of the stretch where they touch; a corner, a circle or a rounded
/// end gives one, the deepest. Points are ordered along
/// `normal.perp()` (a quarter turn counter-clockwise from the normal).
///
/// Get one from [`Shape::manifold`](crate::geometry::Shape::manifold),
/// [`Collider::manifold`](crate::Collider::manifold), or, for colliders as
/// detection saw them, [`SpatialQuery::manifold`](crate::SpatialQuery::manifold).
///
/// ```
/// # use bevy::math::{Isometry2d, Vec2};
/// # use bevy_collide2d::geometry::Shape;
/// // A 2x2 box sunk 0.1 into a floor: two points, one under each corner.
/// let floor = Shape::Rect { half_size: Vec2::new(10.0, 1.0) };
/// let crate_ = Shape::Rect { half_size: Vec2::new(1.0, 1.0) };
/// let manifold = floor
///     .manifold(Isometry2d::IDENTITY, &crate_, Isometry2d::from_xy(3.0, 1.9))
///     .unwrap();
/// assert_eq!(manifold.normal.y, 1.0);
/// let [left, right] = manifold.points() else { unreachable!() };
/// assert!((left.point.x - 4.0).abs() < 1e-5 && (right.point.x - 2.0).abs() < 1e-5);
/// assert!((left.depth - 0.1).abs() < 1e-5 && (right.depth - 0.1).abs() < 1e-5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Debug, PartialEq, Clone)]
pub struct Manifold {
    /// Unit direction from the first shape to the second: the normal of
    /// their [`Contact`].
    pub normal: Dir2,
    /// Which part of each shape the points are on, for compounds: the
    /// manifold of a pair with a compound is the one of its deepest pair of
    /// parts (the parts [`Collisions::parts`](crate::Collisions::parts)
    /// names), `None` for a shape that is not a compound.
    pub parts: ContactParts,
    points: [ManifoldPoint; 2],
    len: u8,
}

/// One point of a [`Manifold`].
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Debug, PartialEq, Clone)]
pub struct ManifoldPoint {
    /// The world point midway between the two surfaces along the normal:
    /// `point + normal * depth / 2` is on the first shape's boundary and
    /// `point - normal * depth / 2` on the second's (they overlap by
    /// `depth` there; both are `point` when they only touch).
    pub point: Vec2,
    /// How far the shapes overlap at this point along the normal, `>= 0`;
    /// `0` where they only touch. At most the contact's depth, but against
    /// a polyline: its normal (the ghost-vertex rule's, see
    /// [`Collider::polyline`](crate::Collider::polyline)) is not always the
    /// shortest way out of the segment touched, and the overlap along it
    /// may be deeper.
    pub depth: f32,
    /// Which vertices of the two shapes the point comes from: the same id
    /// from one detection to the next means the same point (a box sliding
    /// along a floor keeps its two ids).
    pub id: FeatureId,
}

/// Which features of the two shapes a [`ManifoldPoint`] comes from, as
/// Box2D's contact ids: the index of a vertex of each shape's core, seen
/// from the first shape (`a`) and the second (`b`).
///
/// For a face on a face, a point is where one of the two faces ends, and its
/// id names the vertex of each face at that end (the point is at whichever
/// of the two is nearer the middle). For a single point it names the
/// vertex of each shape that touches, or, for a shape touching with a face,
/// that face's vertex at the same end (its first vertex, counter-clockwise,
/// when the other shape touches with a circle or a rounded end, so that a
/// ball rolling along a face keeps its id).
///
/// A core's vertices are numbered as follows: a rectangle's corners
/// counter-clockwise from the one at `(-x, -y)` (local); a polygon's
/// vertices in [`ConvexPolygon::vertices`](crate::geometry::ConvexPolygon::vertices)
/// order; a segment's `a` then `b`; a capsule's bottom cap centre then its
/// top one; a circle's centre (and a segment or capsule of no length) is 0.
/// Compare ids, rather than reading meaning into them, to follow points
/// from frame to frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Reflect)]
#[reflect(Debug, PartialEq, Hash, Clone, Default)]
pub struct FeatureId {
    /// The vertex of the first shape.
    pub a: u32,
    /// The vertex of the second shape.
    pub b: u32,
}

impl FeatureId {
    /// The same features seen from the other shape.
    #[must_use]
    pub fn swapped(self) -> Self {
        Self {
            a: self.b,
            b: self.a,
        }
    }
}

impl Manifold {
    /// A manifold of `points` (one or two, ordered along `normal.perp()`).
    pub(in crate::geometry) fn new(
        normal: Dir2,
        points: &[ManifoldPoint],
        parts: ContactParts,
    ) -> Self {
        debug_assert!((1..=2).contains(&points.len()));
        let mut kept = [points[0]; 2];
        kept[..points.len()].copy_from_slice(points);
        Self {
            normal,
            parts,
            points: kept,
            len: points.len() as u8,
        }
    }

    /// The points: one or two, ordered along `normal.perp()`.
    pub fn points(&self) -> &[ManifoldPoint] {
        &self.points[..usize::from(self.len)]
    }

    /// The deepest point (the first of equally deep ones).
    pub fn deepest(&self) -> &ManifoldPoint {
        (self.points().iter())
            .reduce(|deepest, p| if p.depth > deepest.depth { p } else { deepest })
            .unwrap_or(&self.points[0])
    }

    /// The same manifold seen from the second shape: the normal reversed,
    /// the ids and parts swapped, the points in reverse order (so that they
    /// still run along `normal.perp()`); positions and depths unchanged.
    #[must_use]
    pub fn flipped(self) -> Self {
        let mut flipped = self;
        flipped.normal = -self.normal;
        flipped.parts = self.parts.swapped();
        let points = self.points();
        for (to, from) in flipped.points.iter_mut().zip(points.iter().rev()) {
            *to = ManifoldPoint {
                id: from.id.swapped(),
                ..*from
            };
        }
        flipped
    }
}
