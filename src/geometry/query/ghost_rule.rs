//! The ghost-vertex rule of polylines applied to a contact found against
//! one of their segments (the rule itself, which vertex is a corner, is the
//! polyline's: [`ChainSegment::classify`]): a shape touching a segment near
//! a flat or hollow vertex gets the face's normal, never a sideways one.

use bevy::math::{Dir2, Isometry2d, Vec2};

use crate::geometry::contact::Contact;
use crate::geometry::convex::cores::Core;
use crate::geometry::shape::polyline::{ChainSegment, GhostRule};
use crate::geometry::shape::view::ShapeView;

impl ChainSegment {
    /// The contact of `other` at `other_pose` with this segment's face on
    /// `side` (unit, in the polyline's frame), the polyline at `chain`: how
    /// far `other` reaches past the segment's line, seen from the
    /// polyline (0 when it only touches, or misses it by a rounding error:
    /// it is only asked for shapes found touching the segment).
    pub(crate) fn face_contact(
        &self,
        side: Vec2,
        chain: Isometry2d,
        other: ShapeView<'_>,
        other_pose: Isometry2d,
    ) -> Contact {
        line_contact(self.a, side, chain, other, other_pose, Some(self.b))
    }
}

/// The contact of `other` at `other_pose` with the line through `origin`
/// with unit normal `side` (in the polyline's frame, the polyline at
/// `chain`), its point kept on the segment to `end` if there is one.
fn line_contact(
    origin: Vec2,
    side: Vec2,
    chain: Isometry2d,
    other: ShapeView<'_>,
    other_pose: Isometry2d,
    end: Option<Vec2>,
) -> Contact {
    let a = chain.transform_point(origin);
    let normal = chain.rotation * side;
    let (lowest, at) = lowest_along(other, other_pose, normal, a);
    // Where the deepest point meets the line, kept on the segment.
    let mut point = at - normal * lowest;
    if let Some(b) = end.map(|end| chain.transform_point(end)) {
        let edge = b - a;
        let t = ((point - a).dot(edge) / edge.length_squared()).clamp(0.0, 1.0);
        point = a + edge * t;
    }
    Contact::new(point, Dir2::new_unchecked(normal), (-lowest).max(0.0))
}

/// `contact` of a polyline's segment at `chain` and `other` at `other_pose`
/// (seen from the pair's first shape, the polyline when `chain_first`)
/// under the ghost-vertex rule: as it is, or the contact with the
/// segment's face (or its neighbour's line) at the same poses.
pub(crate) fn ghost_contact(
    contact: Contact,
    segment: &ChainSegment,
    chain: Isometry2d,
    other: ShapeView<'_>,
    other_pose: Isometry2d,
    chain_first: bool,
) -> Contact {
    let normal = if chain_first {
        *contact.normal
    } else {
        -*contact.normal
    };
    let GhostRule::Skip { end, out } = segment.classify_at(chain, normal) else {
        return contact;
    };
    // Each line's face on the side the other shape reaches less far past
    // it (the side it comes from; the normal's side on a tie): not the side
    // of its origin, which a polygon need not contain, and a normal lying
    // nearly along a line says little of the side.
    let local_normal = chain.rotation.inverse() * normal;
    let shallower = |face: Vec2, contact_with: &dyn Fn(Vec2) -> Contact| {
        let (up, down) = (contact_with(face), contact_with(-face));
        let tie_up = up.depth == down.depth && local_normal.dot(face) >= 0.0;
        if up.depth < down.depth || tie_up {
            up
        } else {
            down
        }
    };
    let own = (segment.b - segment.a).normalize();
    let face = shallower(own.perp(), &|side| {
        segment.face_contact(side, chain, other, other_pose)
    });
    let past_end = shallower(out.perp(), &|side| {
        line_contact(end, side, chain, other, other_pose, None)
    });
    let face = if past_end.depth < face.depth {
        past_end
    } else {
        face
    };
    // The segment's own point stays: it lies in the overlap of the segment
    // and the shape, where the line's may not.
    let face = Contact {
        point: contact.point,
        ..face
    };
    if chain_first { face } else { face.flipped() }
}

/// A contact between two polylines' segments under both their rules:
/// `original` as found, `x` and `y` as each segment's rule left it. Each
/// rule may only make a contact shallower (or turn its normal to a face),
/// so the stricter of the two holds for both, whichever polyline comes
/// first in the pair.
pub(crate) fn stricter_contact(original: Contact, x: Contact, y: Contact) -> Contact {
    match (x == original, y == original) {
        (true, _) => y,
        (_, true) => x,
        _ if y.depth < x.depth => y,
        _ => x,
    }
}

/// The least height of `shape` at `pose` above the line through `origin`
/// with unit normal `normal`, and a point of the shape at that height.
fn lowest_along(shape: ShapeView<'_>, pose: Isometry2d, normal: Vec2, origin: Vec2) -> (f32, Vec2) {
    let convex = match shape {
        ShapeView::Convex(convex) => convex,
        ShapeView::Compound(compound) => {
            return (compound.parts().iter())
                .map(|part| lowest_along(part.shape.view(), pose * part.pose, normal, origin))
                .min_by(|x, y| x.0.total_cmp(&y.0))
                .unwrap_or((f32::INFINITY, origin));
        }
    };
    let core = Core::new(convex, pose);
    let (height, point) = (core.points().iter())
        .map(|&p| ((p - origin).dot(normal), p))
        .min_by(|x, y| x.0.total_cmp(&y.0))
        .unwrap_or((f32::INFINITY, origin));
    (height - core.radius(), point - normal * core.radius())
}

#[cfg(test)]
mod tests {
    use bevy::math::{Isometry2d, Rot2, Vec2};

    use crate::geometry::{Compound, ConvexPolygon, Shape};

    /// A polygon whose origin is on its base (polygons are not recentred),
    /// turned a little and sunk 0.4 into a flat polyline across a vertex,
    /// its origin just below the line: pushed back up by how far it sank,
    /// not down through the line by its whole height.
    #[test]
    fn a_polygon_off_its_origin_is_pushed_back_the_way_it_came() {
        let points = [Vec2::new(-100.0, 0.0), Vec2::ZERO, Vec2::new(100.0, 0.0)];
        let ground = Shape::Compound(Compound::polyline(&points).unwrap());
        let base = [
            Vec2::new(-10.0, 0.0),
            Vec2::new(10.0, 0.0),
            Vec2::new(0.0, 15.0),
        ];
        let rock = Shape::Polygon(ConvexPolygon::new(&base).unwrap());
        let turn = Rot2::radians(-0.03);
        let pose = Isometry2d::new(Vec2::new(5.0, -0.4) - turn * Vec2::new(10.0, 0.0), turn);
        assert!(pose.translation.y < 0.0);
        let from_ground = ground.contact(Isometry2d::IDENTITY, &rock, pose).unwrap();
        assert!(from_ground.normal.y > 0.99, "{from_ground:?}");
        assert!((from_ground.depth - 0.4).abs() < 0.01, "{from_ground:?}");
        let from_rock = rock.contact(pose, &ground, Isometry2d::IDENTITY).unwrap();
        assert!(from_rock.normal.y < -0.99, "{from_rock:?}");
        assert!((from_rock.depth - 0.4).abs() < 0.01, "{from_rock:?}");
    }
}
