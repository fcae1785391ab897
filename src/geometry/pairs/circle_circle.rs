//! Circle against circle: the centres at most the summed radii apart.

use bevy::math::{Dir2, Vec2};

use super::{unit_or, within};
use crate::geometry::contact::Contact;

/// Circle vs circle: the centres are at most `ra + rb` apart.
#[inline]
pub fn circle_circle_intersects(ra: f32, ca: Vec2, rb: f32, cb: Vec2) -> bool {
    let sum = ra + rb;
    within((cb - ca).length_squared(), sum * sum)
}

/// Circle `a` vs circle `b`; the normal points from `a` to `b`.
///
/// Coincident centres have no natural direction: the normal is then `+X`.
/// The point is the middle of the overlap along the line between the centres.
pub fn circle_circle_contact(ra: f32, ca: Vec2, rb: f32, cb: Vec2) -> Option<Contact> {
    let offset = cb - ca;
    let sum = ra + rb;
    let distance_squared = offset.length_squared();
    if !within(distance_squared, sum * sum) {
        return None;
    }
    let distance = distance_squared.sqrt();
    let normal = unit_or(offset, distance_squared, Dir2::X);
    // Along the normal, a covers [-ra, ra] and b covers [d - rb, d + rb]; the
    // middle of their common part is inside both circles even when one
    // contains the other.
    let overlap_start = (-ra).max(distance - rb);
    let overlap_end = ra.min(distance + rb);
    Some(Contact::new(
        ca + normal * (0.5 * (overlap_start + overlap_end)),
        normal,
        (sum - distance).max(0.0),
    ))
}
