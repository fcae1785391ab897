//! Circle against (rotated) rectangle: the circle's centre in the
//! rectangle's frame, clamped to the box (the tutorials' test, done right).

use bevy::math::{Dir2, Isometry2d, Vec2};

use super::{normalizable, within};
use crate::geometry::contact::Contact;

/// Circle vs rotated rectangle: the point of the rectangle nearest the circle
/// centre is at most `radius` away (zero when the centre is inside).
#[inline]
pub fn circle_rect_intersects(
    radius: f32,
    center: Vec2,
    half_size: Vec2,
    rect: Isometry2d,
) -> bool {
    // Into the rectangle's frame: rotate by -angle (the inverse), not +angle.
    let local = rect.inverse_transform_point(center);
    let outside = local - local.clamp(-half_size, half_size);
    within(outside.length_squared(), radius * radius)
}

/// Circle vs rotated rectangle, seen from the circle: the normal points from
/// the circle to the rectangle.
///
/// - Centre outside the rectangle: the normal runs from the centre to the
///   nearest point of the rectangle, depth = radius - distance.
/// - Centre inside (or on the boundary): the circle leaves through the
///   nearest face, depth = distance to that face + radius. Equal distances
///   pick the x faces; a centre on the rectangle's middle line leaves through
///   the positive face.
///
/// The point is the middle of the overlap along the contact normal through
/// the circle centre.
pub fn circle_rect_contact(
    radius: f32,
    center: Vec2,
    half_size: Vec2,
    rect: Isometry2d,
) -> Option<Contact> {
    let local = rect.inverse_transform_point(center);
    let outside = local - local.clamp(-half_size, half_size);
    let distance_squared = outside.length_squared();
    if !within(distance_squared, radius * radius) {
        return None;
    }
    let (local_normal, depth) = if normalizable(distance_squared) {
        let distance = distance_squared.sqrt();
        (
            Dir2::new_unchecked(-outside / distance),
            (radius - distance).max(0.0),
        )
    } else {
        // Inside, on the boundary, or too close to it for a direction: the
        // circle leaves through the nearest face.
        let gap = half_size - local.abs();
        let exit_sign = |v: f32| if v < 0.0 { -1.0 } else { 1.0 };
        if gap.x <= gap.y {
            // The circle exits through the face on its own side, so the
            // rectangle must move the other way: the normal is opposite.
            let n = Dir2::new_unchecked(Vec2::new(-exit_sign(local.x), 0.0));
            (n, gap.x.max(0.0) + radius)
        } else {
            let n = Dir2::new_unchecked(Vec2::new(0.0, -exit_sign(local.y)));
            (n, gap.y.max(0.0) + radius)
        }
    };
    let (chord_start, chord_end) = line_box_chord(local, *local_normal, half_size);
    let overlap_start = (-radius).max(chord_start);
    let overlap_end = radius.min(chord_end);
    let normal = rect.rotation * local_normal;
    Some(Contact::new(
        center + normal * (0.5 * (overlap_start + overlap_end)),
        normal,
        depth,
    ))
}

/// The parameter range `[start, end]` over which `origin + t * direction`
/// lies inside the box `[-half_size, half_size]` (slab method). Axes the line
/// runs parallel to do not restrict it.
pub(super) fn line_box_chord(origin: Vec2, direction: Vec2, half_size: Vec2) -> (f32, f32) {
    let mut start = f32::NEG_INFINITY;
    let mut end = f32::INFINITY;
    for axis in 0..2 {
        let d = direction[axis];
        if d != 0.0 {
            let t1 = (-half_size[axis] - origin[axis]) / d;
            let t2 = (half_size[axis] - origin[axis]) / d;
            start = start.max(t1.min(t2));
            end = end.min(t1.max(t2));
        }
    }
    (start, end)
}
