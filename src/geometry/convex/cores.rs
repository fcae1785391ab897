//! A shape as the general tests see it: a convex core (a point, a segment
//! or a convex polygon) grown by a radius ([`Core`]), and how far a
//! shape reaches from its origin.

use bevy::math::{Isometry2d, Vec2};
use smallvec::SmallVec;

use crate::geometry::shape::view::{ConvexRef, ShapeView};

pub(super) type Points = SmallVec<[Vec2; 8]>;

/// A rectangle's corners, counter-clockwise from the one below left: its
/// core's points.
#[inline(always)]
pub(super) fn rect_corners(h: Vec2) -> [Vec2; 4] {
    [
        Vec2::new(-h.x, -h.y),
        Vec2::new(h.x, -h.y),
        Vec2::new(h.x, h.y),
        Vec2::new(-h.x, h.y),
    ]
}

/// The outward normals of a rectangle's edges, edge `i` from corner `i` of
/// [`rect_corners`].
pub(super) const RECT_NORMALS: [Vec2; 4] = [Vec2::NEG_Y, Vec2::X, Vec2::Y, Vec2::NEG_X];

/// A shape's core in world space.
pub(crate) struct Core {
    /// One point, the two ends of a segment, or a polygon's vertices
    /// counter-clockwise.
    pub(super) points: Points,
    /// Outward unit normals of the edges (edge `i` from point `i` to `i + 1`):
    /// none for a point, `n` and `-n` for a segment.
    pub(super) normals: Points,
    pub(super) radius: f32,
}

impl Core {
    #[inline(always)]
    pub(crate) fn new(shape: ConvexRef<'_>, pose: Isometry2d) -> Self {
        let place = |p: Vec2| pose.rotation * p + pose.translation;
        match shape {
            ConvexRef::Circle { radius } => Self::point(pose.translation, radius),
            // From arrays, not iterators: a copy into the inline storage,
            // where collecting grows the vector step by step.
            ConvexRef::Rect { half_size } => Self {
                points: SmallVec::from_slice(&rect_corners(half_size).map(place)),
                normals: SmallVec::from_slice(&RECT_NORMALS.map(|n| pose.rotation * n)),
                radius: 0.0,
            },
            ConvexRef::Capsule {
                radius,
                half_length,
            } => Self::segment(
                place(Vec2::new(0.0, -half_length)),
                place(Vec2::new(0.0, half_length)),
                radius,
            ),
            ConvexRef::Segment { a, b } => Self::segment(place(a), place(b), 0.0),
            ConvexRef::Polygon(polygon) => Self {
                points: polygon.vertices().iter().map(|&v| place(v)).collect(),
                normals: (polygon.normals().iter())
                    .map(|&n| pose.rotation * n)
                    .collect(),
                radius: 0.0,
            },
        }
    }

    /// The core in the shape's own frame: no point is moved, and a polygon's
    /// normals are copied as they are (their segments' are recomputed).
    #[inline(always)]
    pub(crate) fn local(shape: ConvexRef<'_>) -> Self {
        match shape {
            ConvexRef::Polygon(polygon) => Self {
                points: SmallVec::from_slice(polygon.vertices()),
                normals: SmallVec::from_slice(polygon.normals()),
                radius: 0.0,
            },
            ConvexRef::Rect { half_size } => Self {
                points: SmallVec::from_slice(&rect_corners(half_size)),
                normals: SmallVec::from_slice(&RECT_NORMALS),
                radius: 0.0,
            },
            _ => Self::new(shape, Isometry2d::IDENTITY),
        }
    }

    /// One point, the two ends of a segment, or a polygon's vertices
    /// counter-clockwise.
    #[inline]
    pub(crate) fn points(&self) -> &[Vec2] {
        &self.points
    }

    /// The outward unit normal of each edge, from point `i` to `i + 1`.
    #[inline]
    pub(crate) fn normals(&self) -> &[Vec2] {
        &self.normals
    }

    #[inline]
    pub(crate) fn radius(&self) -> f32 {
        self.radius
    }

    pub(super) fn point(p: Vec2, radius: f32) -> Self {
        Self {
            points: SmallVec::from_slice(&[p]),
            normals: SmallVec::new(),
            radius,
        }
    }

    /// A segment from `a` to `b`, or the point `a` when they coincide (a
    /// zero-length segment or capsule is a point or a circle).
    pub(super) fn segment(a: Vec2, b: Vec2, radius: f32) -> Self {
        let edge = b - a;
        match Vec2::new(edge.y, -edge.x).try_normalize() {
            Some(normal) => Self {
                points: SmallVec::from_slice(&[a, b]),
                normals: SmallVec::from_slice(&[normal, -normal]),
                radius,
            },
            None => Self::point(a, radius),
        }
    }

    /// Whether the core has an area (three or more points). Against such a
    /// core, the edge normals are a complete set of separating axes.
    pub(super) fn has_area(&self) -> bool {
        self.points.len() >= 3
    }

    /// The core's features for closest points: its point, its segment, or
    /// its edges.
    pub(super) fn features(&self) -> impl Iterator<Item = (Vec2, Vec2)> + '_ {
        features(&self.points)
    }

    /// The point of the core farthest along `direction`.
    pub(super) fn support(&self, direction: Vec2) -> Vec2 {
        let mut best = self.points[0];
        for &p in &self.points[1..] {
            if p.dot(direction) > best.dot(direction) {
                best = p;
            }
        }
        best
    }
}

/// How many points a shape's core has: the fewer, the cheaper to move.
pub(super) fn core_size(shape: ConvexRef<'_>) -> usize {
    match shape {
        ConvexRef::Circle { .. } => 1,
        ConvexRef::Capsule { .. } | ConvexRef::Segment { .. } => 2,
        ConvexRef::Rect { .. } => 4,
        ConvexRef::Polygon(polygon) => polygon.vertices().len(),
    }
}

/// The farthest any point of the core is from the shape's origin (how far
/// a point of it can move when the shape turns).
pub(crate) fn reach(shape: ConvexRef<'_>) -> f32 {
    match shape {
        ConvexRef::Circle { .. } => 0.0,
        ConvexRef::Rect { half_size } => half_size.length(),
        ConvexRef::Capsule { half_length, .. } => half_length,
        ConvexRef::Segment { a, b } => a.length().max(b.length()),
        ConvexRef::Polygon(polygon) => (polygon.vertices().iter())
            .map(|v| v.length())
            .fold(0.0, f32::max),
    }
}

impl ShapeView<'_> {
    /// The radius of a circle about the pose's origin that holds the shape
    /// at any rotation.
    pub(crate) fn bounding_radius(&self) -> f32 {
        match *self {
            ShapeView::Convex(convex) => convex.bounding_radius(),
            ShapeView::Compound(compound) => (compound.parts().iter())
                .map(|part| part.pose.translation.length() + part.shape.view().bounding_radius())
                .fold(0.0, f32::max),
        }
    }
}

impl ConvexRef<'_> {
    /// [`ShapeView::bounding_radius`] for a convex shape.
    pub(crate) fn bounding_radius(&self) -> f32 {
        let rounding = match *self {
            ConvexRef::Circle { radius } | ConvexRef::Capsule { radius, .. } => radius,
            _ => 0.0,
        };
        reach(*self) + rounding
    }
}

/// The features of a core with these points: its point, its segment, or
/// its edges.
pub(super) fn features(points: &[Vec2]) -> impl Iterator<Item = (Vec2, Vec2)> + '_ {
    let n = points.len();
    let edges = if n <= 2 { 1 } else { n };
    (0..edges).map(move |i| (points[i], points[(i + 1) % n]))
}
