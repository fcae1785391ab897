//! The manifold of one pair of convex shapes (no compound): the reference
//! face, the incident edge clipped to it, and the points that still touch
//! (Box2D v3's `b2ClipPolygons`); see `query/manifold.rs` for the
//! rules.

use bevy::math::{Dir2, Isometry2d, Vec2};

use crate::geometry::contact::{Contact, ContactParts, FeatureId, Manifold, ManifoldPoint};
use crate::geometry::convex::cores::Core;
use crate::geometry::query::ray::Ray;
use crate::geometry::shape::view::ConvexRef;

/// How close an edge's outward normal must be to the contact normal for the
/// edge to count as a face along it: the cosine of the angle between them,
/// that of an angle whose sine is 0.01 (about half a degree, Box2D's
/// `sinTol`). Normals from closest points are rounding noise off a face's
/// (more so far along a long edge); a genuine corner contact this close to
/// a face's normal differs from the face's by at most `radius * 0.01^2 / 2`.
pub(in crate::geometry) const FACE_COS: f32 = 0.99995;

/// Two cores in the first one's frame, the contact normal between them
/// (from the first to the second) and its depth, and how far rounding
/// blurs their coordinates.
struct Pair<'s> {
    a: Core,
    b: Core,
    /// The shapes themselves: the first at the origin, the second at
    /// `pose_b` (for the rays of [`Pair::single_point`]).
    shape_a: ConvexRef<'s>,
    shape_b: ConvexRef<'s>,
    pose_b: Isometry2d,
    normal: Vec2,
    depth: f32,
    /// The contact's point: inside the overlap.
    contact_point: Vec2,
    slack: f32,
    /// How far from a shape's boundary a point found from the other's
    /// vertex may be and still be taken as on it (rounding).
    near: f32,
    /// How far world coordinates are rounded where the pair is: the
    /// contact's normal is found there, and turned off the line between
    /// two vertices by as much.
    world_rounding: f32,
    /// Farther than any point of either shape from any of their points.
    reach: f32,
}

/// An edge of a core, by the indices of its ends, and the direction it
/// runs in: the first shape's feature edge runs along `normal.perp()`, the
/// second's against it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Edge {
    start: usize,
    end: usize,
}

impl Edge {
    /// Edge `i` of `core`: from point `i` to the next.
    fn of(core: &Core, i: usize) -> Self {
        Self {
            start: i,
            end: (i + 1) % core.points().len(),
        }
    }
}

/// The features the two cores show each other along the normal when one
/// shows a face: that face, and the other's incident edge (`None` for a
/// point core).
#[derive(Clone, Copy, Debug)]
struct Faces {
    a: Option<Edge>,
    b: Option<Edge>,
    /// The first shape's face is the reference face (else the second's).
    reference_a: bool,
    /// The incident edge is a rounded side (a capsule's) tilted off the
    /// face: its core is clipped moved out to its flat side, which is its
    /// boundary, and its rounded lowest end replaces that side's end where
    /// it is deeper.
    tilted_round: bool,
}

/// The manifold of two shapes that are not compounds, touching with
/// `contact` (seen from `a`), on parts `parts` of theirs.
pub(in crate::geometry) fn convex_manifold(
    (a, pa): (ConvexRef<'_>, Isometry2d),
    (b, pb): (ConvexRef<'_>, Isometry2d),
    contact: Contact,
    parts: ContactParts,
) -> Manifold {
    // In `a`'s frame: near the origin, where the contact itself is found.
    let pose_b = pa.inverse() * pb;
    let (core_a, core_b) = (Core::local(a), Core::new(b, pose_b));
    let largest = (core_a.points().iter().chain(core_b.points()))
        .fold(0.0f32, |m, p| m.max(p.abs().max_element()));
    let size = largest + core_a.radius() + core_b.radius();
    let pair = Pair {
        slack: 32.0 * f32::EPSILON * size,
        near: 256.0 * f32::EPSILON * size,
        world_rounding: 16.0
            * f32::EPSILON
            * (pa.translation.abs().max(pb.translation.abs())).max_element(),
        reach: 4.0 * size + 1.0,
        a: core_a,
        b: core_b,
        shape_a: a,
        shape_b: b,
        pose_b,
        normal: pa.rotation.inverse() * *contact.normal,
        depth: contact.depth,
        contact_point: pa.inverse().transform_point(contact.point),
    };
    let faces = pair.faces();
    let clipped = match faces {
        Some(
            found @ Faces {
                a: Some(edge_a),
                b: Some(edge_b),
                ..
            },
        ) => pair.clipped_points(found, edge_a, edge_b),
        _ => None,
    };
    let mut clipped = clipped.unwrap_or_default();
    let deepest = pair.single_point(faces);
    if clipped.len == 0 {
        // Always one point: a contact is there.
        let deepest = ManifoldPoint {
            depth: deepest.depth.max(0.0),
            ..deepest
        };
        clipped.push(deepest, &pair);
    } else if faces.is_some_and(|faces| faces.tilted_round) {
        clipped.take_deeper(deepest, &pair);
    }
    let mut points = [ManifoldPoint {
        point: Vec2::ZERO,
        depth: 0.0,
        id: FeatureId::default(),
    }; 2];
    for (to, from) in points.iter_mut().zip(clipped.points.iter().flatten()) {
        *to = ManifoldPoint {
            point: pa.transform_point(from.point),
            ..*from
        };
    }
    Manifold::new(contact.normal, &points[..clipped.len], parts)
}

impl Pair<'_> {
    /// The reference face and the incident edge, or `None` when neither
    /// core shows a face along the normal.
    fn faces(&self) -> Option<Faces> {
        let n = self.normal;
        let face_a = facing_edge(&self.a, n).filter(|&(_, cos)| cos >= FACE_COS);
        let face_b = facing_edge(&self.b, -n).filter(|&(_, cos)| cos >= FACE_COS);
        let reference_a = match (face_a, face_b) {
            (Some((_, cos_a)), Some((_, cos_b))) => cos_a >= cos_b,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return None,
        };
        let (reference, incident) = if reference_a {
            (&self.a, &self.b)
        } else {
            (&self.b, &self.a)
        };
        let (face, _) = if reference_a { face_a } else { face_b }?;
        let face_normal = reference.normals()[face];
        // The incident edge: the one turned most directly towards the face.
        let incident_edge = (incident.normals().iter().enumerate())
            .map(|(i, m)| (i, m.dot(face_normal)))
            .reduce(|best, next| if next.1 < best.1 { next } else { best });
        let tilted_round =
            incident.radius() > 0.0 && incident_edge.is_some_and(|(_, cos)| -cos < FACE_COS);
        let incident_edge = incident_edge.map(|(i, _)| Edge::of(incident, i));
        let face = Some(Edge::of(reference, face));
        let (a, b) = if reference_a {
            (face, incident_edge)
        } else {
            (incident_edge, face)
        };
        Some(Faces {
            a,
            b,
            reference_a,
            tilted_round,
        })
    }

    /// The incident edge clipped to the reference face across the normal:
    /// the ends of the stretch they share that still touch (one when the
    /// stretch is a point), in order along the tangent; `None` when no end
    /// touches.
    fn clipped_points(&self, faces: Faces, edge_a: Edge, edge_b: Edge) -> Option<Points> {
        let tangent = self.normal.perp();
        let (mut a0, mut a1) = (self.a.points()[edge_a.start], self.a.points()[edge_a.end]);
        let (mut b0, mut b1) = (self.b.points()[edge_b.start], self.b.points()[edge_b.end]);
        let (mut radius_a, mut radius_b) = (self.a.radius(), self.b.radius());
        if faces.tilted_round {
            // The incident side's flat boundary, with no radius left.
            if faces.reference_a {
                let out = self.b.normals()[edge_b.start] * radius_b;
                (b0, b1, radius_b) = (b0 + out, b1 + out, 0.0);
            } else {
                let out = self.a.normals()[edge_a.start] * radius_a;
                (a0, a1, radius_a) = (a0 + out, a1 + out, 0.0);
            }
        }
        let (sa0, sa1) = (a0.dot(tangent), a1.dot(tangent));
        let (sb0, sb1) = (b0.dot(tangent), b1.dot(tangent));
        // The first edge runs along the tangent, the second against it; an
        // edge standing across the face (a segment on its end) has no
        // stretch to clip.
        if !(sa1 - sa0 > self.slack && sb0 - sb1 > self.slack) {
            return None;
        }
        let (lower, upper) = (sa0.max(sb1), sa1.min(sb0));
        if upper < lower - self.slack {
            return None;
        }
        let at = |s: f32, id: FeatureId| {
            let on_a = along(a0, a1, sa0, sa1, s) + self.normal * radius_a;
            let on_b = along(b1, b0, sb1, sb0, s) - self.normal * radius_b;
            self.point_between(on_a, on_b, id)
        };
        let lower_point = at(lower, end_id(edge_a, edge_b, true));
        let upper_point = at(upper, end_id(edge_a, edge_b, false));
        let mut points = Points::default();
        if upper - lower <= self.slack {
            // A stretch of no length: its deeper end.
            let deeper = if upper_point.depth > lower_point.depth {
                upper_point
            } else {
                lower_point
            };
            points.push(deeper, self);
        } else {
            points.push(lower_point, self);
            points.push(upper_point, self);
        }
        (points.len > 0).then_some(points)
    }

    /// The point midway between `surface_a` and `surface_b` (one above
    /// the other along the normal), with the depth there.
    fn point_between(&self, surface_a: Vec2, surface_b: Vec2, id: FeatureId) -> ManifoldPoint {
        ManifoldPoint {
            point: (surface_a + surface_b) * 0.5,
            depth: (surface_a - surface_b).dot(self.normal),
            id,
        }
    }

    /// The deepest point: on the line along the normal through the vertex
    /// that touches, of the shape that shows no face (of the second one when
    /// neither does), where that line leaves the other shape. When the
    /// line misses it (a polyline's normal is not always the way its
    /// segment's vertices face), on the line through the contact's point.
    ///
    /// Its id names the touching vertices, or, for a shape that shows a
    /// face, the face's vertex at the end the other touches (the face's
    /// first vertex when the other is a point: a circle rolling along a
    /// face keeps its id).
    fn single_point(&self, faces: Option<Faces>) -> ManifoldPoint {
        let n = self.normal;
        let (index_a, top_a) = support(&self.a, n);
        let (index_b, bottom_b) = support(&self.b, -n);
        let id = match faces {
            None => FeatureId {
                a: index_a as u32,
                b: index_b as u32,
            },
            Some(faces) => {
                // Which end of the features the touching vertex is at.
                let lower = if faces.reference_a {
                    faces.b.map(|e| index_b == e.end)
                } else {
                    faces.a.map(|e| index_a == e.start)
                };
                let end = |edge: Option<Edge>, first: bool| {
                    edge.map_or(0, |e| match lower {
                        Some(lower) if first != lower => e.end,
                        _ => e.start,
                    }) as u32
                };
                FeatureId {
                    a: end(faces.a, true),
                    b: end(faces.b, false),
                }
            }
        };
        // The touching vertex's surface point, and the other shape's level
        // along the normal: with a face (or a rounded end) across the line
        // through the vertex, that is where the other's surface is.
        let top = top_a + n * self.a.radius();
        let bottom = bottom_b - n * self.b.radius();
        let level = (top - bottom).dot(n);
        let on_vertex = if faces.is_none_or(|faces| faces.reference_a) {
            let over = bottom + n * level;
            (boundary_distance(&self.a, over).abs() <= self.near).then_some((over, bottom))
        } else {
            let under = top - n * level;
            (boundary_distance(&self.b, under).abs() <= self.near).then_some((top, under))
        };
        // Else, two vertices (or rounded ends) facing each other across the
        // normal: the two are the surface points, a little to either side
        // of one line where the normal is a little off theirs (it is
        // rounded in world coordinates).
        let across = (top - bottom).perp_dot(n).abs();
        let facing = (across <= 4.0 * self.near + self.world_rounding).then_some((top, bottom));
        // Else (a polyline's normal is not always the way its segment's
        // vertices face) the line through the contact's point, which is in
        // both shapes. A ray that misses grazes the shape at the contact's
        // point (the end of a segment, a corner): the point itself is on it
        // then.
        let through_contact = || {
            let at = self.contact_point;
            let top = self.surface_a_along(at).unwrap_or(at);
            let bottom = self.surface_b_along(at).unwrap_or(at);
            ((top - bottom).dot(n) >= -self.slack).then_some((top, bottom))
        };
        match on_vertex.or(facing).or_else(through_contact) {
            Some((top, bottom)) => self.point_between(top, bottom, id),
            // Neither (only ever within rounding of a graze): the
            // contact's point, touching.
            None => ManifoldPoint {
                point: self.contact_point,
                depth: 0.0,
                id,
            },
        }
    }

    /// Where the line along the normal through `at` leaves the first shape
    /// on the second's side: the first shape's boundary above `at`.
    fn surface_a_along(&self, at: Vec2) -> Option<Vec2> {
        let down = Dir2::new_unchecked(-self.normal);
        let ray = Ray::new(at - *down * self.reach, down, 2.0 * self.reach).ok()?;
        let hit = self.shape_a.cast_ray(Isometry2d::IDENTITY, ray)?;
        Some(hit.point)
    }

    /// Where the line along the normal through `at` leaves the second shape
    /// on the first's side: the second shape's boundary below `at`.
    fn surface_b_along(&self, at: Vec2) -> Option<Vec2> {
        let up = Dir2::new_unchecked(self.normal);
        let ray = Ray::new(at - *up * self.reach, up, 2.0 * self.reach).ok()?;
        let hit = self.shape_b.cast_ray(self.pose_b, ray)?;
        Some(hit.point)
    }
}

/// Up to two points, those that touch (to within rounding), their depths
/// kept between 0 and the contact's.
#[derive(Clone, Copy, Default)]
struct Points {
    points: [Option<ManifoldPoint>; 2],
    len: usize,
}

impl Points {
    /// `deepest` (the contact's deepest point, which touches) in place of
    /// the point nearer it along the tangent, if it is deeper than that one
    /// (by more than rounding), kept in order along the tangent.
    fn take_deeper(&mut self, deepest: ManifoldPoint, pair: &Pair<'_>) {
        let tangent = pair.normal.perp();
        let along = |p: &ManifoldPoint| p.point.dot(tangent);
        let kept = &mut self.points[..self.len];
        let Some(nearest) = (kept.iter_mut().flatten()).min_by(|p, q| {
            (along(p) - along(&deepest))
                .abs()
                .total_cmp(&(along(q) - along(&deepest)).abs())
        }) else {
            return;
        };
        if deepest.depth > nearest.depth + pair.slack {
            *nearest = ManifoldPoint {
                id: nearest.id,
                ..deepest
            };
        }
        if let [Some(p), Some(q)] = &mut self.points
            && along(q) < along(p)
        {
            core::mem::swap(p, q);
        }
    }

    fn push(&mut self, mut point: ManifoldPoint, pair: &Pair<'_>) {
        if point.depth >= -pair.slack {
            // Rounding kept out: touching is 0, and no point deeper than
            // the contact (but where a polyline's normal, which is not the
            // shortest way out of its segment, makes it so).
            point.depth = point.depth.max(0.0);
            if point.depth <= pair.depth + pair.near {
                point.depth = point.depth.min(pair.depth.max(0.0));
            }
            self.points[self.len] = Some(point);
            self.len += 1;
        }
    }
}

/// The id of the lower (along the tangent) or the upper end of the first
/// shape's edge and the second's (each running as [`Edge`] says).
fn end_id(edge_a: Edge, edge_b: Edge, lower: bool) -> FeatureId {
    let (a, b) = if lower {
        (edge_a.start, edge_b.end)
    } else {
        (edge_a.end, edge_b.start)
    };
    FeatureId {
        a: a as u32,
        b: b as u32,
    }
}

/// The point of the segment from `p0` (at `s0` along the tangent) to `p1`
/// (at `s1`) at `s`, kept to the segment: an end exactly when `s` is at
/// or past it.
fn along(p0: Vec2, p1: Vec2, s0: f32, s1: f32, s: f32) -> Vec2 {
    if s <= s0 {
        p0
    } else if s >= s1 {
        p1
    } else {
        p0 + (p1 - p0) * ((s - s0) / (s1 - s0))
    }
}

/// The edge of `core` whose outward normal is nearest `direction`, and the
/// cosine between them; `None` for a point.
fn facing_edge(core: &Core, direction: Vec2) -> Option<(usize, f32)> {
    (core.normals().iter().enumerate())
        .map(|(i, normal)| (i, normal.dot(direction)))
        .reduce(|best, next| if next.1 > best.1 { next } else { best })
}

/// How far `p` is from the boundary of `core`'s shape (the core grown by
/// its radius): positive outside, negative inside.
fn boundary_distance(core: &Core, p: Vec2) -> f32 {
    let points = core.points();
    let to_segment = |a: Vec2, b: Vec2| {
        let along = b - a;
        let t = (p - a).dot(along) / along.length_squared().max(f32::MIN_POSITIVE);
        p.distance(a + along * t.clamp(0.0, 1.0))
    };
    let from_core = match points {
        [] => return f32::INFINITY,
        [point] => p.distance(*point),
        [a, b] => to_segment(*a, *b),
        _ => {
            let deepest = (core.normals().iter().zip(points))
                .map(|(normal, vertex)| normal.dot(p - *vertex))
                .fold(f32::NEG_INFINITY, f32::max);
            if deepest <= 0.0 {
                deepest
            } else {
                (0..points.len())
                    .map(|i| to_segment(points[i], points[(i + 1) % points.len()]))
                    .fold(f32::INFINITY, f32::min)
            }
        }
    };
    from_core - core.radius()
}

/// The vertex of `core` farthest along `direction` (the first of equals)
/// and its index.
fn support(core: &Core, direction: Vec2) -> (usize, Vec2) {
    let points = core.points();
    let mut best = (0, points[0]);
    for (i, &p) in points.iter().enumerate().skip(1) {
        if p.dot(direction) > best.1.dot(direction) {
            best = (i, p);
        }
    }
    best
}
