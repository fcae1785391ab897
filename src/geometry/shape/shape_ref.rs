//! Shapes as the tests take them: borrowed, small and `Copy`, so that
//! detection can keep polygons' points in one table per frame. Their
//! methods are in `shape.rs`; the pair algorithms that take them are below
//! it (`convex.rs`), which is why the types sit on their own.

use bevy::math::Vec2;

use crate::geometry::shape::compound::Compound;

/// A [`Shape`](crate::geometry::Shape) seen without owning a polygon's points: what every test runs
/// on, so that detection can keep polygons in one table per frame.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ShapeRef<'a> {
    Circle { radius: f32 },
    Rect { half_size: Vec2 },
    Capsule { radius: f32, half_length: f32 },
    Segment { a: Vec2, b: Vec2 },
    Polygon(PolygonRef<'a>),
    Compound(&'a Compound),
}

/// A polygon's vertices followed by as many normals, borrowed: one slice,
/// so that a [`ShapeRef`] stays small.
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
