//! Convex polygons: built as the convex hull of any points, kept with their
//! outward edge normals so that every test can use them as they are.

use bevy::math::Vec2;
use bevy::reflect::Reflect;
#[cfg(feature = "serialize")]
use bevy::reflect::{ReflectDeserialize, ReflectSerialize};
use core::fmt;
use std::sync::Arc;

use crate::geometry::shape::checked::{ShapeError, within_magnitude};
use crate::geometry::shape::view::ConvexRef;
use crate::geometry::shape::view::PolygonRef;

/// A convex polygon in local coordinates: its vertices counter-clockwise,
/// no three on a line, and the outward unit normal of each edge (edge `i`
/// runs from vertex `i` to vertex `i + 1`).
///
/// Built by [`ConvexPolygon::new`] as the convex hull of the given points,
/// not recentred: the entity's origin stays where the points put it.
///
/// ```
/// # use bevy::math::Vec2;
/// # use bevy_collide2d::geometry::ConvexPolygon;
/// // The inner point and the repeated corner are dropped.
/// let triangle = ConvexPolygon::new(&[
///     Vec2::new(0.0, 0.0),
///     Vec2::new(2.0, 0.0),
///     Vec2::new(0.5, 0.5),
///     Vec2::new(0.0, 2.0),
///     Vec2::new(2.0, 0.0),
/// ])
/// .unwrap();
/// assert_eq!(triangle.vertices().len(), 3);
/// ```
///
/// Cloning it is cheap: the points are shared, and a `Collider` holding it is
/// as small as one holding a segment.
#[derive(Clone, PartialEq, Reflect)]
#[reflect(opaque)]
#[reflect(Debug, PartialEq, Clone)]
#[cfg_attr(feature = "serialize", reflect(Serialize, Deserialize))]
#[cfg_attr(
    feature = "serialize",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "Vec<Vec2>", into = "Vec<Vec2>")
)]
pub struct ConvexPolygon {
    /// The vertices, then as many normals.
    points: Arc<[Vec2]>,
}

// Saved as its vertices; loaded through `new`, so a file cannot make a
// polygon that is not convex.
#[cfg(feature = "serialize")]
impl From<ConvexPolygon> for Vec<Vec2> {
    fn from(polygon: ConvexPolygon) -> Self {
        polygon.vertices().to_vec()
    }
}

#[cfg(feature = "serialize")]
impl TryFrom<Vec<Vec2>> for ConvexPolygon {
    type Error = ShapeError;

    fn try_from(points: Vec<Vec2>) -> Result<Self, ShapeError> {
        Self::new(&points)
    }
}

impl fmt::Debug for ConvexPolygon {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConvexPolygon")
            .field("vertices", &self.vertices())
            .finish()
    }
}

impl ConvexPolygon {
    /// The convex hull of `points`. Fails for a point that is NaN, infinite or
    /// beyond [`MAX_MAGNITUDE`](crate::geometry::MAX_MAGNITUDE), and when fewer than three of the points are
    /// not on one line (the hull would have no area).
    pub fn new(points: &[Vec2]) -> Result<Self, ShapeError> {
        if let Some(&bad) = points.iter().find(|&&p| !within_magnitude(p)) {
            return Err(ShapeError::InvalidVertex(bad));
        }
        let vertices = convex_hull(points);
        if vertices.len() < 3 {
            return Err(ShapeError::DegeneratePolygon);
        }
        Self::from_hull(vertices)
    }

    /// A polygon from vertices already counter-clockwise and convex: their
    /// normals are computed; a hull with no area is an error.
    fn from_hull(vertices: Vec<Vec2>) -> Result<Self, ShapeError> {
        let normals = edge_normals(&vertices).ok_or(ShapeError::DegeneratePolygon)?;
        Ok(Self::from_parts(&vertices, &normals))
    }

    /// A polygon from vertices and normals known to belong together.
    pub(crate) fn from_parts(vertices: &[Vec2], normals: &[Vec2]) -> Self {
        Self {
            points: vertices.iter().chain(normals).copied().collect(),
        }
    }

    /// The points as the tests borrow them.
    pub(crate) fn points_ref(&self) -> PolygonRef<'_> {
        PolygonRef::new(&self.points)
    }

    /// The vertices, counter-clockwise.
    pub fn vertices(&self) -> &[Vec2] {
        &self.points[..self.points.len() / 2]
    }

    /// The outward unit normal of each edge; edge `i` runs from vertex `i` to
    /// vertex `i + 1` (the last one back to the first).
    pub fn normals(&self) -> &[Vec2] {
        &self.points[self.points.len() / 2..]
    }

    /// The polygon with every vertex multiplied by `scale` (a negative
    /// component mirrors it; the order is kept counter-clockwise). Fails when
    /// the result has no area (a zero scale) or is too large.
    pub fn scaled(&self, scale: Vec2) -> Result<Self, ShapeError> {
        // The same scaling detection applies, so that both give the same
        // polygon to the last bit.
        let shape = ConvexRef::Polygon(self.points_ref());
        let mut points = Vec::with_capacity(self.points.len());
        scaled_points_into(shape, scale, &mut points)?;
        Ok(Self {
            points: points.into(),
        })
    }
}

/// The outward unit normals of a counter-clockwise polygon's edges, `None`
/// when an edge is too short to have one or the polygon turns clockwise
/// somewhere (no area).
pub(crate) fn edge_normals(vertices: &[Vec2]) -> Option<Vec<Vec2>> {
    let n = vertices.len();
    let normals: Vec<Vec2> = (0..n)
        .map(|i| {
            let edge = vertices[(i + 1) % n] - vertices[i];
            // A denormal squared length rounds too coarsely to normalise by.
            let normal = Vec2::new(edge.y, -edge.x);
            (normal.length_squared() >= f32::MIN_POSITIVE)
                .then(|| normal.try_normalize())
                .flatten()
        })
        .collect::<Option<_>>()?;
    let turns_left = (0..n).all(|i| normals[i].perp_dot(normals[(i + 1) % n]) > 0.0);
    turns_left.then_some(normals)
}

/// Appends the points of a segment (its two ends) or a polygon (its
/// vertices, then its normals) scaled by `scale` (signed) to `out`, and
/// returns how many ends or vertices there are. Nothing is appended when
/// the scaled shape is invalid.
pub(crate) fn scaled_points_into(
    shape: ConvexRef<'_>,
    scale: Vec2,
    out: &mut Vec<Vec2>,
) -> Result<usize, ShapeError> {
    let first = out.len();
    let result = match shape {
        ConvexRef::Segment { a, b } => {
            out.extend([a * scale, b * scale]);
            Ok(2)
        }
        ConvexRef::Polygon(polygon) => {
            let (vertices, normals) = (polygon.vertices(), polygon.normals());
            let n = vertices.len();
            out.extend(vertices.iter().map(|&v| v * scale));
            if scale.x * scale.y < 0.0 {
                out[first..].reverse();
            }
            // A uniform scale keeps the normals; transforms drift from it by
            // float noise, which moves a normal by as little.
            let uniform = scale.x > 0.0 && (scale.x - scale.y).abs() <= 1e-6 * scale.x;
            if uniform {
                out.extend_from_slice(normals);
                Ok(n)
            } else {
                match edge_normals(&out[first..]) {
                    Some(scaled) => {
                        out.extend(scaled);
                        Ok(n)
                    }
                    None => Err(ShapeError::DegeneratePolygon),
                }
            }
        }
        _ => Ok(0),
    };
    let result =
        result.and_then(
            |count| match out[first..].iter().find(|&&p| !within_magnitude(p)) {
                Some(&bad) => Err(ShapeError::InvalidVertex(bad)),
                None => Ok(count),
            },
        );
    if result.is_err() {
        out.truncate(first);
    }
    result
}

/// The convex hull, counter-clockwise, starting from the lowest-leftmost
/// point, without collinear or repeated points (Andrew's monotone chain).
fn convex_hull(points: &[Vec2]) -> Vec<Vec2> {
    let mut sorted = points.to_vec();
    sorted.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    sorted.dedup();
    if sorted.len() < 3 {
        return sorted;
    }
    // Turning strictly left keeps a point; collinear ones are dropped.
    let keeps = |hull: &[Vec2], p: Vec2| {
        let [.., a, b] = hull else { return true };
        (*b - *a).perp_dot(p - *a) > 0.0
    };
    let mut hull: Vec<Vec2> = Vec::with_capacity(sorted.len() + 1);
    for &p in &sorted {
        while hull.len() >= 2 && !keeps(&hull, p) {
            hull.pop();
        }
        hull.push(p);
    }
    let lower_len = hull.len() + 1;
    for &p in sorted.iter().rev().skip(1) {
        while hull.len() >= lower_len && !keeps(&hull, p) {
            hull.pop();
        }
        hull.push(p);
    }
    hull.pop(); // The first point again.
    hull
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hull_drops_inner_collinear_and_repeated_points() {
        let square = ConvexPolygon::new(&[
            Vec2::new(1.0, 1.0),
            Vec2::new(-1.0, -1.0),
            Vec2::new(0.0, -1.0), // on an edge
            Vec2::new(1.0, -1.0),
            Vec2::new(0.2, 0.3), // inside
            Vec2::new(-1.0, 1.0),
            Vec2::new(1.0, 1.0), // repeated
        ])
        .unwrap();
        assert_eq!(
            square.vertices(),
            &[
                Vec2::new(-1.0, -1.0),
                Vec2::new(1.0, -1.0),
                Vec2::new(1.0, 1.0),
                Vec2::new(-1.0, 1.0)
            ]
        );
        assert_eq!(
            square.normals(),
            &[Vec2::NEG_Y, Vec2::X, Vec2::Y, Vec2::NEG_X]
        );
    }

    #[test]
    fn too_few_or_bad_points_are_errors() {
        let line = [Vec2::ZERO, Vec2::ONE, Vec2::splat(2.0), Vec2::ONE];
        for points in [&[][..], &[Vec2::ZERO], &[Vec2::ZERO, Vec2::X], &line] {
            assert!(
                matches!(
                    ConvexPolygon::new(points),
                    Err(ShapeError::DegeneratePolygon)
                ),
                "{points:?}"
            );
        }
        for bad in [f32::NAN, f32::INFINITY, 2e15] {
            let points = [Vec2::ZERO, Vec2::X, Vec2::new(0.0, bad)];
            assert!(matches!(
                ConvexPolygon::new(&points),
                Err(ShapeError::InvalidVertex(_))
            ));
        }
    }

    #[test]
    fn a_mirror_keeps_the_order_counter_clockwise() {
        let triangle = ConvexPolygon::new(&[Vec2::ZERO, Vec2::X, Vec2::new(0.0, 2.0)]).unwrap();
        let mirrored = triangle.scaled(Vec2::new(-2.0, 1.0)).unwrap();
        assert!(edge_normals(mirrored.vertices()).is_some());
        assert!(mirrored.vertices().contains(&Vec2::new(-2.0, 0.0)));
        assert!(triangle.scaled(Vec2::new(0.0, 1.0)).is_err());
    }
}
