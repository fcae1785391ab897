//! Circle against a capsule or a segment (a "stick": a segment grown by a
//! radius, 0 for a segment): the nearest point of the stick's core.

use bevy::math::{Dir2, Isometry2d, Vec2};

use super::{normalizable, within};
use crate::geometry::contact::Contact;

/// A capsule's or a segment's shape as the circle tests see it: the core
/// segment from `a` to `b` in the shape's own frame, grown by `radius` (0
/// for a segment).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stick {
    pub(crate) a: Vec2,
    pub(crate) b: Vec2,
    pub(crate) radius: f32,
}

impl Stick {
    /// A capsule of `radius` whose core runs `half_length` along local y.
    #[inline]
    pub(crate) fn capsule(radius: f32, half_length: f32) -> Self {
        Self {
            a: Vec2::new(0.0, -half_length),
            b: Vec2::new(0.0, half_length),
            radius,
        }
    }

    /// The segment from `a` to `b`.
    #[inline]
    pub(crate) fn segment(a: Vec2, b: Vec2) -> Self {
        Self { a, b, radius: 0.0 }
    }
}

/// A circle's `center` against `stick` placed by `pose`: the offset from
/// the centre to the nearest point of the stick's core, in the stick's
/// frame, and its squared length. `None` when the centre is within rounding
/// of the core (or not finite): no direction is reliable there, and the
/// general test decides.
///
/// These three are always inlined: called, they passed the stick through
/// memory, and reading it back stalled (a contact took 39 ns, inlined 13).
#[inline(always)]
fn circle_stick_nearest(center: Vec2, stick: Stick, pose: Isometry2d) -> Option<(Vec2, f32)> {
    let local = pose.inverse_transform_point(center);
    let along = stick.b - stick.a;
    let length_squared = along.length_squared();
    let t = if length_squared > 0.0 {
        ((local - stick.a).dot(along) / length_squared).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let offset = stick.a + along * t - local;
    let distance_squared = offset.length_squared();
    let largest = local
        .abs()
        .max(stick.a.abs())
        .max(stick.b.abs())
        .max_element();
    let noise = 64.0 * f32::EPSILON * largest;
    // Also `None` for NaN, and for a denormal distance (when `noise`
    // squared rounds to 0), whose quotient is no unit vector.
    (distance_squared > noise * noise && normalizable(distance_squared))
        .then_some((offset, distance_squared))
}

/// Circle vs capsule or segment: the centre is at most the sum of the
/// radii from the stick's core. `None` when the general test must decide
/// (see [`circle_stick_nearest`]).
#[inline(always)]
pub(crate) fn circle_stick_intersects(
    radius: f32,
    center: Vec2,
    stick: Stick,
    pose: Isometry2d,
) -> Option<bool> {
    let (_, distance_squared) = circle_stick_nearest(center, stick, pose)?;
    let sum = radius + stick.radius;
    Some(within(distance_squared, sum * sum))
}

/// Circle vs capsule or segment, seen from the circle: the normal runs from
/// the centre to the nearest point of the stick's core, and the point is the
/// middle of the overlap along it. `None` when the general test must
/// decide, `Some(None)` when they are apart.
#[inline(always)]
pub(crate) fn circle_stick_contact(
    radius: f32,
    center: Vec2,
    stick: Stick,
    pose: Isometry2d,
) -> Option<Option<Contact>> {
    let (offset, distance_squared) = circle_stick_nearest(center, stick, pose)?;
    let sum = radius + stick.radius;
    if !within(distance_squared, sum * sum) {
        return Some(None);
    }
    let distance = distance_squared.sqrt();
    let normal = pose.rotation * (offset / distance);
    let overlap_start = (-radius).max(distance - stick.radius);
    let overlap_end = radius.min(distance + stick.radius);
    Some(Some(Contact::new(
        center + normal * (0.5 * (overlap_start + overlap_end)),
        Dir2::new_unchecked(normal),
        (sum - distance).max(0.0),
    )))
}
