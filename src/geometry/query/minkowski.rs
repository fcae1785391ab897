//! The Minkowski difference of two convex cores, `core_B ⊖ core_A`, and
//! where a ray from the origin enters it rounded by their radii: the
//! general translational cast (see `translation_cast.rs` for the method).

use bevy::math::Vec2;
use smallvec::SmallVec;

use crate::geometry::convex::cores::Core;

/// The part of the difference's core where the rounded boundary is met.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::geometry) enum Feature {
    /// Edge `k` (from vertex `k` to `k + 1`), at the core point `q`.
    Edge { k: usize, q: Vec2 },
    /// Vertex `k`.
    Vertex(usize),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::geometry) enum RayEntry {
    Miss,
    /// The origin is in the rounded difference (touching included);
    /// `feature` and `normal` are where its boundary is nearest.
    Start {
        feature: Feature,
        normal: Vec2,
    },
    Hit {
        distance: f32,
        feature: Feature,
        normal: Vec2,
    },
}

type Points = SmallVec<[Vec2; 16]>;

/// `core_B ⊖ core_A` as a convex polygon (one point, two for a segment, or
/// more counter-clockwise), remembering which points of A and B make each
/// vertex so that a hit on it can be placed on the shapes.
pub(in crate::geometry) struct MinkowskiDifference {
    /// Vertex `k` is `b[j] - a[i]` for `(i, j) = sources[k]`.
    vertices: Points,
    sources: SmallVec<[(usize, usize); 16]>,
    /// Outward unit normal of edge `k`, from vertex `k` to vertex `k + 1`.
    normals: Points,
    /// `ra + rb`.
    radius: f32,
}

/// A monotonic stand-in for the angle of a unit vector, in `0..4` from `+x`
/// counter-clockwise: orders normals without `atan2`.
fn pseudo_angle(n: Vec2) -> f32 {
    let p = n.x / (n.x.abs() + n.y.abs());
    if n.y >= 0.0 { 1.0 - p } else { 3.0 + p }
}

/// The index of the edge whose normal (negated when `negate`) has the
/// smallest angle: where a walk around the polygon in angle order starts.
fn first_edge(normals: &[Vec2], negate: bool) -> usize {
    let sign = if negate { -1.0 } else { 1.0 };
    let mut best = (f32::INFINITY, 0);
    for (k, &n) in normals.iter().enumerate() {
        let angle = pseudo_angle(n * sign);
        if angle < best.0 {
            best = (angle, k);
        }
    }
    best.1
}

impl MinkowskiDifference {
    /// The merge of core_B's edges with `-core_A`'s by normal angle: each
    /// step moves along the edge that turns least, and each vertex is the
    /// sum of the two polygons' current vertices. Parallel edges (equal
    /// angles) make one edge.
    pub(in crate::geometry) fn new(a: &Core, b: &Core) -> Self {
        let (a_points, a_normals) = (a.points(), a.normals());
        let (b_points, b_normals) = (b.points(), b.normals());
        let (edges_a, edges_b) = (a_normals.len(), b_normals.len());
        // Both walks start at the vertex before their first edge in angle
        // order: the support of each in the direction just short of angle 0,
        // so that their sum is a vertex of the difference.
        let mut i = first_edge(a_normals, true);
        let mut j = first_edge(b_normals, false);
        let (mut done_a, mut done_b) = (0, 0);
        let mut vertices = Points::new();
        let mut sources = SmallVec::new();
        let mut normals = Points::new();
        vertices.push(b_points[j] - a_points[i]);
        sources.push((i, j));
        while done_a < edges_a || done_b < edges_b {
            let angle_a = (done_a < edges_a).then(|| pseudo_angle(-a_normals[i]));
            let angle_b = (done_b < edges_b).then(|| pseudo_angle(b_normals[j]));
            let (take_a, take_b) = match (angle_a, angle_b) {
                (Some(x), Some(y)) => (x <= y, y <= x),
                (Some(_), None) => (true, false),
                _ => (false, true),
            };
            normals.push(if take_b { b_normals[j] } else { -a_normals[i] });
            if take_a {
                i = (i + 1) % a_points.len();
                done_a += 1;
            }
            if take_b {
                j = (j + 1) % b_points.len();
                done_b += 1;
            }
            // The last edge leads back to the first vertex.
            if done_a < edges_a || done_b < edges_b {
                vertices.push(b_points[j] - a_points[i]);
                sources.push((i, j));
            }
        }
        Self {
            vertices,
            sources,
            normals,
            radius: a.radius() + b.radius(),
        }
    }

    fn next(&self, k: usize) -> usize {
        (k + 1) % self.vertices.len()
    }

    /// Where the ray from the origin along unit `d` first meets the rounded
    /// difference within `max_distance`.
    pub(in crate::geometry) fn ray_entry(&self, d: Vec2, max_distance: f32) -> RayEntry {
        let r = self.radius;
        if self.normals.is_empty() {
            return self.circle_entry(0, d, max_distance);
        }
        // Cyrus–Beck over the offset half-planes `n · x <= n · v + r`: along
        // the ray, `t (n · d) <= n · v + r`.
        let (mut enter, mut entry_edge, mut exit) = (f32::NEG_INFINITY, 0, f32::INFINITY);
        for (k, (&v, &n)) in self.vertices.iter().zip(&self.normals).enumerate() {
            let (room, speed) = (n.dot(v) + r, n.dot(d));
            if speed < 0.0 {
                let t = room / speed;
                if t > enter {
                    (enter, entry_edge) = (t, k);
                }
            } else if speed > 0.0 {
                exit = exit.min(room / speed);
            } else if room < 0.0 {
                // Parallel and outside (level with it is grazing: inside).
                return RayEntry::Miss;
            }
        }
        if enter > exit || exit < 0.0 || enter > max_distance {
            return RayEntry::Miss;
        }
        if enter <= 0.0 {
            return self.start_or_corner(d, max_distance);
        }
        // Entered the offset polygon through edge `k`: inside its normal
        // slab that is the rounded boundary; beyond its ends, the end
        // vertex's circle is. A hair beyond, by rounding, still counts as
        // the edge; and a sharp polygon (no radius) has no vertex regions at
        // all, so an entry that rounding put past a corner stays a hit
        // (a segment, without area, keeps them: its slab is unbounded).
        let regions = r > 0.0 || self.vertices.len() < 3;
        let k = entry_edge;
        let n = self.normals[entry_edge];
        let p = d * enter;
        let (v0, v1) = (self.vertices[k], self.vertices[self.next(k)]);
        let tangent = n.perp();
        let along = tangent.dot(p - v0);
        let length = tangent.dot(v1 - v0);
        let slack = self.slack();
        if regions && along < -slack {
            return self.circle_entry(k, d, max_distance);
        }
        if regions && along > length + slack {
            return self.circle_entry(self.next(k), d, max_distance);
        }
        RayEntry::Hit {
            distance: enter,
            feature: Feature::Edge { k, q: p - n * r },
            normal: n,
        }
    }

    /// The origin is inside the offset polygon: touching or overlapping at
    /// the start if it is within the radius of the core, else in a vertex's
    /// corner, where only that vertex's circle can be met.
    fn start_or_corner(&self, d: Vec2, max_distance: f32) -> RayEntry {
        // The edge the origin is farthest outside of holds the nearest point
        // of the core (for a convex polygon, it or one of its ends).
        let mut best = (f32::NEG_INFINITY, 0);
        for (k, (&v, &n)) in self.vertices.iter().zip(&self.normals).enumerate() {
            let separation = -n.dot(v);
            if separation > best.0 {
                best = (separation, k);
            }
        }
        let (separation, k) = best;
        let n = self.normals[k];
        // (A difference without area, a point or a segment, has no inside:
        // only its distance counts.)
        if separation <= 0.0 && self.vertices.len() >= 3 {
            return RayEntry::Start {
                feature: Feature::Edge {
                    k,
                    q: -n * separation,
                },
                normal: n,
            };
        }
        let (v0, v1) = (self.vertices[k], self.vertices[self.next(k)]);
        let edge = v1 - v0;
        let length_squared = edge.length_squared();
        let s = if length_squared > 0.0 {
            (-v0.dot(edge) / length_squared).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let q = v0 + edge * s;
        let r = self.radius;
        // Nearest to the middle of an edge whose offset half-plane holds the
        // origin: within the radius, up to rounding.
        if (s > 0.0 && s < 1.0) || q.length_squared() <= r * r {
            // Out of the core by `q`'s side: the rounded boundary's normal
            // points from `q` to the origin.
            let normal = (-q).try_normalize().unwrap_or(n);
            return RayEntry::Start {
                feature: Feature::Edge { k, q },
                normal,
            };
        }
        let vertex = if s > 0.0 { self.next(k) } else { k };
        self.circle_entry(vertex, d, max_distance)
    }

    /// The ray against the circle of the radius about vertex `k`.
    fn circle_entry(&self, k: usize, d: Vec2, max_distance: f32) -> RayEntry {
        let (c, r) = (self.vertices[k], self.radius);
        if c.length_squared() <= r * r {
            return RayEntry::Start {
                feature: Feature::Vertex(k),
                normal: (-c).try_normalize().unwrap_or(-d),
            };
        }
        let along = d.dot(c);
        // The ray's distance from the centre, squared, by the cross product:
        // no cancellation of `|c|² - along²` for a ray that grazes.
        let off = d.perp_dot(c);
        let chord_squared = r * r - off * off;
        if along < 0.0 || chord_squared < 0.0 {
            return RayEntry::Miss;
        }
        let t = (along - chord_squared.sqrt()).max(0.0);
        if t > max_distance {
            return RayEntry::Miss;
        }
        let normal = (d * t - c).try_normalize().unwrap_or(-d);
        if t == 0.0 {
            return RayEntry::Start {
                feature: Feature::Vertex(k),
                normal,
            };
        }
        RayEntry::Hit {
            distance: t,
            feature: Feature::Vertex(k),
            normal,
        }
    }

    /// A few float steps of the difference's coordinates: how far rounding
    /// can move a point along an edge.
    fn slack(&self) -> f32 {
        let largest = self
            .vertices
            .iter()
            .fold(self.radius, |m, v| m.max(v.abs().max_element()));
        16.0 * f32::EPSILON * largest
    }

    /// The point where the shapes touch, for a touch of the difference's
    /// core at `feature` with outward `normal`: on B's core, then out by
    /// B's radius. An edge of the difference is an edge of B with a point
    /// of A, a point of B with an edge of A, or two parallel edges; the B
    /// points that touch are those of B's part of the edge that face A's
    /// part moved by the hit (`b = a + q`), and the middle of them is taken.
    pub(in crate::geometry) fn touch_point(
        &self,
        a: &Core,
        b: &Core,
        feature: Feature,
        normal: Vec2,
    ) -> Vec2 {
        let on_b = match feature {
            Feature::Vertex(k) => b.points()[self.sources[k].1],
            Feature::Edge { k, q } => {
                let ((i0, j0), (i1, j1)) = (self.sources[k], self.sources[self.next(k)]);
                let (b0, b1) = (b.points()[j0], b.points()[j1]);
                let (a0, a1) = (a.points()[i0] + q, a.points()[i1] + q);
                let tangent = self.normals[k].perp();
                let (lo_b, hi_b) = min_max(tangent.dot(b0), tangent.dot(b1));
                let (lo_a, hi_a) = min_max(tangent.dot(a0), tangent.dot(a1));
                let middle = 0.5 * (lo_b.max(lo_a) + hi_b.min(hi_a));
                b0 + tangent * (middle - tangent.dot(b0))
            }
        };
        on_b + normal * b.radius()
    }
}

fn min_max(x: f32, y: f32) -> (f32, f32) {
    if x <= y { (x, y) } else { (y, x) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::shape::view::ConvexRef;
    use bevy::math::{Isometry2d, Rot2};

    fn rect(w: f32, h: f32) -> ConvexRef<'static> {
        ConvexRef::Rect {
            half_size: Vec2::new(w, h) / 2.0,
        }
    }

    #[test]
    fn difference_of_rect_and_capsule_has_their_edges() {
        let a = Core::local(ConvexRef::Capsule {
            radius: 1.0,
            half_length: 1.0,
        });
        let b = Core::new(rect(4.0, 2.0), Isometry2d::from_xy(10.0, 0.0));
        let difference = MinkowskiDifference::new(&a, &b);
        // The capsule's two (vertical) edges are parallel to two of the
        // rectangle's: a rectangle 4 by 4.
        assert_eq!(difference.vertices.len(), 4, "{:?}", difference.vertices);
        for v in &difference.vertices {
            assert_eq!((v.x - 10.0).abs(), 2.0);
            assert_eq!(v.y.abs(), 2.0);
        }
        assert_eq!(difference.radius, 1.0);
        // Rotated: two more edges.
        let b = Core::new(
            rect(4.0, 2.0),
            Isometry2d::new(Vec2::ZERO, Rot2::degrees(30.0)),
        );
        assert_eq!(MinkowskiDifference::new(&a, &b).vertices.len(), 6);
    }
}
