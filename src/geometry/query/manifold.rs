//! Contact manifolds: where two touching shapes touch, as up to two points
//! with a depth each, so that a face resting on a face is told from a
//! corner on a face (Box2D v3's `b2Manifold`, `manifold.c`).
//!
//! The normal is the contact's ([`Shape::contact`](crate::geometry::Shape::contact)):
//! a manifold only adds points along it, it never picks another direction,
//! so the two always agree (a polyline's ghost-vertex rule included). Along
//! the normal each shape's core shows a face (an edge whose outward normal
//! lies within [`FACE_COS`] of it) or a vertex. When one shows a face (the
//! reference face), the other's edge that turns most directly towards it
//! (the incident edge) is clipped to the reference face's extent across
//! the normal, and each end of what is left that still touches is a point:
//! two for a face on a face, one for a corner on a face. Every other contact
//! (a circle, corner to corner, a rounded end) is one point, the deepest.
//!
//! Unlike Box2D's clipper, the points are measured along the contact's
//! normal rather than the reference face's (the two agree to within
//! [`FACE_COS`]), and a rounded incident side (a capsule's) is clipped only
//! when it lies along the face: tilted, only its lowest end touches for
//! sure, and clipping its core would put a point inside it.

use bevy::math::{Dir2, Isometry2d, Vec2};
use bevy::reflect::Reflect;
use bevy::reflect::std_traits::ReflectDefault;

use crate::geometry::contact::{Contact, ContactParts};
use crate::geometry::convex::Core;
use crate::geometry::query::contact::{contact_with_listed_parts, for_each_part_contact};
use crate::geometry::shape::Shape;
use crate::geometry::shape::shape_ref::ShapeRef;
use crate::geometry::shape::shape_ref::validate_placement;

/// How close an edge's outward normal must be to the contact normal for the
/// edge to count as a face along it: the cosine of the angle between them,
/// that of an angle whose sine is 0.01 (about half a degree, Box2D's
/// `sinTol`). Normals from closest points are rounding noise off a face's
/// (more so far along a long edge); a genuine corner contact this close to
/// a face's normal differs from the face's by at most `radius * 0.01^2 / 2`.
const FACE_COS: f32 = 0.99995;

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
    fn new(normal: Dir2, points: &[ManifoldPoint], parts: ContactParts) -> Self {
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

/// The manifold of `a` at `pa` and `b` at `pb` (checked shapes and poses),
/// seen from `a`, or `None` when they are apart: of their deepest pair of
/// parts when either is a compound, with that pair's contact normal (under
/// a polyline's ghost-vertex rule).
pub(crate) fn manifold_of(
    a: ShapeRef<'_>,
    pa: Isometry2d,
    b: ShapeRef<'_>,
    pb: Isometry2d,
) -> Option<Manifold> {
    let is_compound = |shape: ShapeRef<'_>| matches!(shape, ShapeRef::Compound(_));
    if !(is_compound(a) || is_compound(b)) {
        let contact = a.contact(pa, b, pb)?;
        return Some(convex_manifold(
            (a, pa),
            (b, pb),
            contact,
            ContactParts::NONE,
        ));
    }
    let (contact, parts) = contact_with_listed_parts(a, pa, b, pb, [None, None])?;
    part_manifold((a, pa), (b, pb), contact, parts)
}

/// Calls `found` with the manifold of each pair of parts of `a` at `pa`
/// and `b` at `pb` that touch (checked shapes and poses), seen from `a`:
/// one call for two shapes that are not compounds, one per touching pair
/// of parts otherwise (a box lying across two parts of a compound rests on
/// both), in the order detection visits them.
pub(crate) fn for_each_manifold(
    a: ShapeRef<'_>,
    pa: Isometry2d,
    b: ShapeRef<'_>,
    pb: Isometry2d,
    mut found: impl FnMut(Manifold),
) {
    for_each_part_contact(a, pa, b, pb, |contact, parts| {
        if let Some(manifold) = part_manifold((a, pa), (b, pb), contact, parts) {
            found(manifold);
        }
    });
}

/// The manifold of parts `i` of `a` and `j` of `b` (`None` for a shape that
/// is not a compound), touching with `contact`.
fn part_manifold(
    (a, pa): (ShapeRef<'_>, Isometry2d),
    (b, pb): (ShapeRef<'_>, Isometry2d),
    contact: Contact,
    [i, j]: [Option<u32>; 2],
) -> Option<Manifold> {
    let (part_a, part_b) = (part_of(a, pa, i)?, part_of(b, pb, j)?);
    Some(convex_manifold(
        part_a,
        part_b,
        contact,
        ContactParts::new(i, j),
    ))
}

/// Part `index` of `shape` at `pose` and where it is, or `shape` itself
/// when it is not a compound; `None` for a compound without an index.
fn part_of(
    shape: ShapeRef<'_>,
    pose: Isometry2d,
    index: Option<u32>,
) -> Option<(ShapeRef<'_>, Isometry2d)> {
    match (shape, index) {
        (ShapeRef::Compound(compound), Some(i)) => {
            let part = compound.parts().get(i as usize)?;
            Some((part.shape.as_ref(), pose * part.pose))
        }
        (ShapeRef::Compound(_), None) => None,
        _ => Some((shape, pose)),
    }
}

/// Two cores in the first one's frame, the contact normal between them
/// (from the first to the second) and its depth, and how far rounding
/// blurs their coordinates.
struct Pair<'s> {
    a: Core,
    b: Core,
    /// The shapes themselves: the first at the origin, the second at
    /// `pose_b` (for the rays of [`Pair::single_point`]).
    shape_a: ShapeRef<'s>,
    shape_b: ShapeRef<'s>,
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
fn convex_manifold(
    (a, pa): (ShapeRef<'_>, Isometry2d),
    (b, pb): (ShapeRef<'_>, Isometry2d),
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
        (self.shape_a)
            .cast_ray_valid(
                Isometry2d::IDENTITY,
                at - *down * self.reach,
                down,
                2.0 * self.reach,
            )
            .map(|hit| hit.point)
    }

    /// Where the line along the normal through `at` leaves the second shape
    /// on the first's side: the second shape's boundary below `at`.
    fn surface_b_along(&self, at: Vec2) -> Option<Vec2> {
        let up = Dir2::new_unchecked(self.normal);
        (self.shape_b)
            .cast_ray_valid(self.pose_b, at - *up * self.reach, up, 2.0 * self.reach)
            .map(|hit| hit.point)
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

impl Shape {
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
}

#[cfg(test)]
mod tests {
    use bevy::math::Rot2;

    use super::*;
    use crate::geometry::{Compound, ConvexPolygon, Shape};

    fn rect(w: f32, h: f32) -> Shape {
        Shape::Rect {
            half_size: Vec2::new(w, h) * 0.5,
        }
    }

    fn at(x: f32, y: f32) -> Isometry2d {
        Isometry2d::from_xy(x, y)
    }

    fn turned(x: f32, y: f32, angle: f32) -> Isometry2d {
        Isometry2d::new(Vec2::new(x, y), Rot2::radians(angle))
    }

    /// `a`'s manifold with `b`, checked to agree with their contact and
    /// with the pair seen the other way round.
    fn manifold(a: &Shape, pa: Isometry2d, b: &Shape, pb: Isometry2d) -> Option<Manifold> {
        let found = a.manifold(pa, b, pb);
        let contact = a.contact(pa, b, pb);
        assert_eq!(found.is_some(), contact.is_some(), "{found:?} {contact:?}");
        if let (Some(found), Some(contact)) = (found, contact) {
            assert_eq!(found.normal, contact.normal);
            assert!(found.deepest().depth <= contact.depth + 1e-5, "{found:?}");
            let back = b.manifold(pb, a, pa).unwrap().flipped();
            // Seen from the other side, the same points (unless the contact
            // itself picks another way out, as for shapes centred on each
            // other).
            if back.normal == found.normal {
                let far = pa.translation.abs().max(pb.translation.abs()).max_element();
                let tolerance = 1e-3 + 8.0 * f32::EPSILON * far;
                assert_eq!(
                    back.points().len(),
                    found.points().len(),
                    "{back:?} vs {found:?}"
                );
                for (p, q) in back.points().iter().zip(found.points()) {
                    assert_eq!(p.id, q.id, "{back:?} vs {found:?}");
                    assert!(
                        p.point.distance(q.point) < tolerance,
                        "{back:?} vs {found:?}"
                    );
                }
            }
        }
        found
    }

    fn near(found: Vec2, expected: Vec2) -> bool {
        found.distance(expected) < 1e-4
    }

    #[test]
    fn a_box_on_a_floor_touches_under_both_corners() {
        let (floor, box_) = (rect(20.0, 2.0), rect(2.0, 2.0));
        // Sunk 0.25 in; touching exactly; 1.5 deep (centre still above).
        for depth in [0.25, 0.0, 1.5] {
            let m = manifold(&floor, at(0.0, 0.0), &box_, at(3.0, 2.0 - depth)).unwrap();
            assert_eq!(*m.normal, Vec2::Y);
            let [right, left] = m.points() else {
                panic!("{m:?}")
            };
            // Ordered along the normal's perp: right to left.
            assert!(
                near(right.point, Vec2::new(4.0, 1.0 - depth / 2.0)),
                "{m:?}"
            );
            assert!(near(left.point, Vec2::new(2.0, 1.0 - depth / 2.0)), "{m:?}");
            assert!((right.depth - depth).abs() < 1e-5 && (left.depth - depth).abs() < 1e-5);
            // The floor's top corners (2: right, 3: left) over the box's
            // bottom ones (1: right, 0: left).
            assert_eq!(right.id, FeatureId { a: 2, b: 1 });
            assert_eq!(left.id, FeatureId { a: 3, b: 0 });
        }
        assert!(manifold(&floor, at(0.0, 0.0), &box_, at(3.0, 2.01)).is_none());
    }

    /// The ids stay while a box slides along a floor (and its points move
    /// with it), on a turned floor, far from the origin, from either side.
    #[test]
    fn ids_stay_while_a_box_slides_along_a_floor() {
        let (floor, box_) = (rect(400.0, 10.0), rect(30.0, 20.0));
        for (origin, angle) in [
            (Vec2::ZERO, 0.0),
            (Vec2::new(5e4, -3e4), 0.4),
            (Vec2::new(-7.0, 3.0), -2.5),
        ] {
            let rotation = Rot2::radians(angle);
            let floor_pose = Isometry2d::new(origin, rotation);
            let mut ids = None;
            for step in 0..600 {
                let x = -150.0 + step as f32 * 0.5;
                let place = |y: f32| Isometry2d::new(origin + rotation * Vec2::new(x, y), rotation);
                for (depth, first) in [(0.02, true), (0.3, false)] {
                    let pose = place(5.0 + 10.0 - depth);
                    let m = if first {
                        manifold(&floor, floor_pose, &box_, pose).unwrap()
                    } else {
                        manifold(&box_, pose, &floor, floor_pose).unwrap().flipped()
                    };
                    let now = m.points().iter().map(|p| p.id).collect::<Vec<_>>();
                    assert_eq!(now.len(), 2, "{origin} {angle} at {x}: {m:?}");
                    assert_eq!(
                        *ids.get_or_insert(now.clone()),
                        now,
                        "{origin} {angle} at {x}"
                    );
                    let width = m.points()[0].point.distance(m.points()[1].point);
                    assert!((width - 30.0).abs() < 0.05, "{m:?}");
                }
            }
        }
    }

    #[test]
    fn a_tilted_box_touches_at_its_lowest_corner_with_the_same_id() {
        let (floor, box_) = (rect(20.0, 2.0), rect(2.0, 2.0));
        let flat = manifold(&floor, at(0.0, 0.0), &box_, at(0.0, 1.9)).unwrap();
        // Turned a little clockwise: its right corner is lowest.
        let lowest_y = |angle: f32| {
            let corner = Rot2::radians(angle) * Vec2::new(1.0, -1.0);
            corner.y
        };
        let angle = -0.05;
        let pose = turned(0.0, 1.0 - lowest_y(angle) - 0.02, angle);
        let tilted = manifold(&floor, at(0.0, 0.0), &box_, pose).unwrap();
        let [corner] = tilted.points() else {
            panic!("{tilted:?}")
        };
        assert!((corner.depth - 0.02).abs() < 1e-4, "{tilted:?}");
        assert_eq!(corner.id, flat.points()[0].id);
        // Deep enough, the other corner touches too, and keeps its id.
        let deep = manifold(
            &floor,
            at(0.0, 0.0),
            &box_,
            turned(0.0, 1.0 - lowest_y(angle) - 0.2, angle),
        )
        .unwrap();
        assert_eq!(deep.points().len(), 2, "{deep:?}");
        assert_eq!(deep.points()[1].id, flat.points()[1].id);
        assert!(deep.points()[0].depth > deep.points()[1].depth);
    }

    #[test]
    fn circles_and_rounded_ends_touch_at_one_point() {
        let (circle, floor) = (Shape::Circle { radius: 1.0 }, rect(20.0, 2.0));
        let m = manifold(&floor, at(0.0, 0.0), &circle, at(3.0, 1.8)).unwrap();
        let [p] = m.points() else { panic!("{m:?}") };
        assert!(near(p.point, Vec2::new(3.0, 0.9)) && (p.depth - 0.2).abs() < 1e-5);
        let m = manifold(&circle, at(0.0, 0.0), &circle, at(1.5, 0.0)).unwrap();
        assert!(near(m.points()[0].point, Vec2::new(0.75, 0.0)) && m.points().len() == 1);
        // A capsule standing on its end.
        let capsule = Shape::Capsule {
            radius: 0.5,
            half_length: 2.0,
        };
        let m = manifold(&floor, at(0.0, 0.0), &capsule, at(1.0, 3.4)).unwrap();
        let [p] = m.points() else { panic!("{m:?}") };
        assert!(near(p.point, Vec2::new(1.0, 0.95)) && (p.depth - 0.1).abs() < 1e-5);
    }

    #[test]
    fn a_capsule_lying_on_a_face_touches_along_it_only_when_flat() {
        let (floor, capsule) = (
            rect(20.0, 2.0),
            Shape::Capsule {
                radius: 0.5,
                half_length: 2.0,
            },
        );
        let lying = core::f32::consts::FRAC_PI_2;
        let m = manifold(&floor, at(0.0, 0.0), &capsule, turned(1.0, 1.4, lying)).unwrap();
        let [p, q] = m.points() else { panic!("{m:?}") };
        assert!(
            near(p.point, Vec2::new(3.0, 0.95)) && near(q.point, Vec2::new(-1.0, 0.95)),
            "{m:?}"
        );
        assert!((p.depth - 0.1).abs() < 1e-5 && (q.depth - 0.1).abs() < 1e-5);
        // Tilted by a degree: both ends in, the lower one deeper (its cap's
        // lowest point, as deep as the contact); lifted, only the lower.
        let pose = turned(1.0, 1.45, lying + 0.02);
        let tilted = manifold(&floor, at(0.0, 0.0), &capsule, pose).unwrap();
        let [p, q] = tilted.points() else {
            panic!("{tilted:?}")
        };
        let contact = floor.contact(at(0.0, 0.0), &capsule, pose).unwrap();
        assert_eq!(p.depth.max(q.depth), contact.depth, "{tilted:?}");
        assert!(p.depth.min(q.depth) > 0.005, "{tilted:?}");
        let lifted = manifold(
            &floor,
            at(0.0, 0.0),
            &capsule,
            turned(1.0, 1.48, lying + 0.02),
        )
        .unwrap();
        assert_eq!(lifted.points().len(), 1, "{lifted:?}");
        // Hanging off the floor's end: clipped there.
        let m = manifold(&floor, at(0.0, 0.0), &capsule, turned(10.0, 1.4, lying)).unwrap();
        let [p, q] = m.points() else { panic!("{m:?}") };
        assert!(
            near(p.point, Vec2::new(10.0, 0.95)) && near(q.point, Vec2::new(8.0, 0.95)),
            "{m:?}"
        );
    }

    #[test]
    fn segments_of_no_length_standing_or_lying() {
        let floor = rect(20.0, 2.0);
        let point = Shape::Segment {
            a: Vec2::new(1.0, 0.5),
            b: Vec2::new(1.0, 0.5),
        };
        let m = manifold(&floor, at(0.0, 0.0), &point, at(0.0, 0.0)).unwrap();
        assert_eq!(m.points().len(), 1);
        assert_eq!(m.points()[0].id.b, 0);
        let standing = Shape::Segment {
            a: Vec2::new(0.0, -0.5),
            b: Vec2::new(0.0, 3.0),
        };
        let m = manifold(&floor, at(0.0, 0.0), &standing, at(2.0, 1.0)).unwrap();
        let [p] = m.points() else { panic!("{m:?}") };
        assert!((p.depth - 0.5).abs() < 1e-5, "{m:?}");
        let lying = Shape::Segment {
            a: Vec2::new(-3.0, 0.0),
            b: Vec2::new(3.0, 0.0),
        };
        let m = manifold(&floor, at(0.0, 0.0), &lying, at(12.0, 1.0)).unwrap();
        let [p, q] = m.points() else { panic!("{m:?}") };
        // Along the top face from the floor's end in to the segment's.
        assert!(
            near(p.point, Vec2::new(10.0, 1.0)) && near(q.point, Vec2::new(9.0, 1.0)),
            "{m:?}"
        );
        assert_eq!((p.depth, q.depth), (0.0, 0.0));
    }

    #[test]
    fn parallel_faces_of_different_lengths_are_clipped_to_the_shorter() {
        // A wide box on a narrow post: the points are the post's corners.
        let (post, wide) = (rect(2.0, 10.0), rect(12.0, 2.0));
        let m = manifold(&post, at(0.0, 0.0), &wide, at(3.0, 5.9)).unwrap();
        let [p, q] = m.points() else { panic!("{m:?}") };
        assert!(
            near(p.point, Vec2::new(1.0, 4.95)) && near(q.point, Vec2::new(-1.0, 4.95)),
            "{m:?}"
        );
        // Polygons and rectangles alike: a triangle's base on a box.
        let triangle = Shape::Polygon(
            ConvexPolygon::new(&[
                Vec2::new(-2.0, 0.0),
                Vec2::new(2.0, 0.0),
                Vec2::new(0.0, 3.0),
            ])
            .unwrap(),
        );
        let m = manifold(&wide, at(0.0, 0.0), &triangle, at(1.0, 0.9)).unwrap();
        let [p, q] = m.points() else { panic!("{m:?}") };
        assert!(
            near(p.point, Vec2::new(3.0, 0.95)) && near(q.point, Vec2::new(-1.0, 0.95)),
            "{m:?}"
        );
    }

    #[test]
    fn deep_overlap_keeps_the_face_and_no_point_deeper_than_the_contact() {
        let (floor, box_) = (rect(20.0, 4.0), rect(2.0, 2.0));
        // The box's centre inside the floor, nearer its top face.
        let m = manifold(&floor, at(0.0, 0.0), &box_, at(0.0, 1.2)).unwrap();
        assert_eq!(*m.normal, Vec2::Y);
        for p in m.points() {
            assert!((p.depth - 1.8).abs() < 1e-5, "{m:?}");
        }
        // Wholly inside.
        let m = manifold(&floor, at(0.0, 0.0), &box_, at(0.0, 0.0)).unwrap();
        assert_eq!(m.points().len(), 2);
    }

    #[test]
    fn compounds_name_the_deepest_pair_of_parts() {
        let steps = Shape::Compound(Compound::new([
            (at(0.0, 0.0), rect(10.0, 2.0)),
            (at(10.0, 0.5), rect(10.0, 2.0)),
        ]));
        let box_ = rect(2.0, 2.0);
        let m = manifold(&steps, at(0.0, 0.0), &box_, at(10.0, 2.3)).unwrap();
        assert_eq!((m.parts.a(), m.parts.b()), (Some(1), None));
        assert_eq!(m.points().len(), 2);
        assert!((m.points()[0].depth - 0.2).abs() < 1e-5, "{m:?}");
        let flipped = manifold(&box_, at(10.0, 2.3), &steps, at(0.0, 0.0)).unwrap();
        assert_eq!((flipped.parts.a(), flipped.parts.b()), (None, Some(1)));
    }

    /// A box sliding along a polyline with a slight bend keeps the
    /// contact's normal (the ghost-vertex rule's) and two points.
    #[test]
    fn a_polyline_gives_the_contacts_normal() {
        let line = Shape::Compound(
            Compound::polyline(&[
                Vec2::new(-50.0, 0.0),
                Vec2::new(0.0, 0.0),
                Vec2::new(50.0, 0.002),
            ])
            .unwrap(),
        );
        let box_ = rect(4.0, 2.0);
        for step in 0..200 {
            let x = -10.0 + step as f32 * 0.1;
            let m = manifold(&line, at(0.0, 0.0), &box_, at(x, 0.95)).unwrap();
            assert!(m.normal.y > 0.9999, "at {x}: {m:?}");
            assert_eq!(m.points().len(), 2, "at {x}: {m:?}");
        }
    }

    #[test]
    fn bad_input_gives_none() {
        let (floor, box_) = (rect(20.0, 2.0), rect(2.0, 2.0));
        let nan = Isometry2d::from_xy(f32::NAN, 0.0);
        assert!(floor.manifold(nan, &box_, at(0.0, 0.0)).is_none());
        assert!(floor.manifold(at(0.0, 0.0), &box_, nan).is_none());
        let bad_rotation = Isometry2d::new(
            Vec2::ZERO,
            Rot2 {
                cos: f32::NAN,
                sin: 0.0,
            },
        );
        assert!(floor.manifold(bad_rotation, &box_, at(0.0, 0.0)).is_none());
        assert!(
            floor
                .manifold(at(0.0, 0.0), &box_, at(f32::INFINITY, 1.0))
                .is_none()
        );
        for bad in [
            Shape::Circle { radius: 0.0 },
            Shape::Circle { radius: f32::NAN },
            Shape::Rect {
                half_size: Vec2::new(-1.0, 1.0),
            },
            Shape::Segment {
                a: Vec2::NAN,
                b: Vec2::ONE,
            },
            Shape::Capsule {
                radius: 1.0,
                half_length: f32::INFINITY,
            },
        ] {
            assert!(
                floor.manifold(at(0.0, 0.0), &bad, at(0.0, 0.0)).is_none(),
                "{bad:?}"
            );
            assert!(
                bad.manifold(at(0.0, 0.0), &floor, at(0.0, 0.0)).is_none(),
                "{bad:?}"
            );
        }
    }
}
