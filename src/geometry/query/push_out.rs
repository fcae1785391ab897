//! Pushing a shape out of everything it overlaps: the contacts' pushes
//! combined into one translation.

use bevy::math::Vec2;
use smallvec::SmallVec;

use crate::geometry::contact::Contact;

/// Two pushes whose directions are closer than this to opposite (cosine;
/// about 18 degrees) squeeze the shape: no translation clears both, and the
/// corner of the two surfaces would lie far away.
const SQUEEZED_COS: f32 = -0.95;

/// At most this many pushes are solved exactly (every pair of them is a
/// candidate corner); more fall back to clearing them deepest first.
const MAX_EXACT: usize = 32;

/// The translation that moves a shape out of everything it overlaps, given
/// its contacts seen from it (each `normal` pointing from the shape towards
/// the other one, as [`Collisions::contacts_of`] gives them).
///
/// Each contact asks for a push of at least `depth` along `-normal`; the
/// result is the shortest translation that gives every one of them its
/// depth (the nearest point of the region they leave free):
///
/// - two surfaces facing the same way (a floor of two tiles, a wall and a
///   brick flush with it) push once, by the deeper depth, not twice;
/// - two surfaces at an angle (a ball in a corner, or resting in a shallow
///   V) push to the corner of the two surfaces when neither push alone
///   clears the other, and only as far as needed;
/// - two surfaces facing each other (squeezed between them, or less than
///   about 18 degrees from that) cannot both be cleared: the deeper one
///   wins and the other is left for the game to resolve (crush, despawn).
///
/// Exact for any number of contacts (up to 32 at once) whenever some
/// translation clears them all without going between two surfaces that
/// face each other; otherwise (surfaces all around, or more contacts) they
/// are cleared deepest first, each as far as it goes without undoing the
/// deepest. The result has no margin:
/// the shape ends up exactly touching (which counts as colliding), so a
/// game that must be clear adds a small skin.
///
/// [`Collisions::contacts_of`]: crate::Collisions::contacts_of
///
/// ```
/// # use bevy::math::{Dir2, Rot2, Vec2};
/// # use bevy_collide2d::Contact;
/// # use bevy_collide2d::geometry::push_out;
/// let into = |normal: Dir2, depth: f32| Contact::new(Vec2::ZERO, normal, depth);
/// // 3 into a floor below, 2 into a wall on the right: out of both.
/// let push = push_out([into(Dir2::NEG_Y, 3.0), into(Dir2::X, 2.0)]);
/// assert_eq!(push, Vec2::new(-2.0, 3.0));
/// // Two floor tiles under it push once, not twice.
/// let push = push_out([into(Dir2::NEG_Y, 3.0), into(Dir2::NEG_Y, 3.0)]);
/// assert_eq!(push, Vec2::new(0.0, 3.0));
/// // In a V of two walls turned 30 degrees each way: up to where both clear.
/// let wall = |degrees: f32| Dir2::new(Rot2::degrees(degrees) * Vec2::NEG_Y).unwrap();
/// let push = push_out([into(wall(-30.0), 3.1), into(wall(30.0), 3.1)]);
/// assert!((push - Vec2::new(0.0, 3.1 / 30f32.to_radians().cos())).length() < 1e-4);
/// ```
pub fn push_out(contacts: impl IntoIterator<Item = Contact>) -> Vec2 {
    // (direction out of the other shape, depth), deepest first; ties keep
    // their order, so the result never depends on sorting.
    let mut pushes: SmallVec<[(Vec2, f32); 8]> = contacts
        .into_iter()
        .filter(|contact| contact.depth > 0.0)
        .map(|contact| (-*contact.normal, contact.depth))
        .collect();
    pushes.sort_by(|a, b| b.1.total_cmp(&a.1));
    if pushes.is_empty() {
        return Vec2::ZERO;
    }
    (pushes.len() <= MAX_EXACT)
        .then(|| shortest_clearing(&pushes))
        .flatten()
        .unwrap_or_else(|| deepest_first(&pushes))
}

/// The shortest translation giving each push its depth, if one exists with
/// no two pushes facing each other: in 2D it lies on at most two of their
/// lines, so it is the shortest of the single pushes and the corners of
/// two that clear all the others.
fn shortest_clearing(pushes: &[(Vec2, f32)]) -> Option<Vec2> {
    // Rounding of the corners, relative to the depths.
    let clears =
        |p: Vec2| (pushes.iter()).all(|&(out, depth)| p.dot(out) >= depth - 1e-5 * (1.0 + depth));
    let singles = pushes.iter().map(|&(out, depth)| out * depth);
    let corners = pushes.iter().enumerate().flat_map(|(i, &first)| {
        pushes[i + 1..]
            .iter()
            .filter_map(move |&second| corner(first, second))
    });
    singles
        .chain(corners)
        .filter(|&p| clears(p))
        .fold(None, |best: Option<Vec2>, p| match best {
            Some(best) if best.length_squared() <= p.length_squared() => Some(best),
            _ => Some(p),
        })
}

/// Where the lines of two pushes meet; `None` for parallel ones and for
/// two facing each other (their corner, if any, is far away).
fn corner((a, da): (Vec2, f32), (b, db): (Vec2, f32)) -> Option<Vec2> {
    let det = a.perp_dot(b);
    if a.dot(b) < SQUEEZED_COS || det.abs() < 1e-6 {
        return None;
    }
    Some(Vec2::new(da * b.y - a.y * db, a.x * db - b.x * da) / det)
}

/// Squeezed (or too many): the deepest push, then each other one as far as
/// it can go without undoing the deepest.
fn deepest_first(pushes: &[(Vec2, f32)]) -> Vec2 {
    let (deepest_out, deepest) = pushes[0];
    let mut push = deepest_out * deepest;
    for &(out, depth) in &pushes[1..] {
        let missing = depth - push.dot(out);
        if missing <= 0.0 {
            continue;
        }
        let plain = push + out * missing;
        if plain.dot(deepest_out) >= deepest {
            push = plain;
        } else if let Some(corner) = corner((deepest_out, deepest), (out, depth)) {
            // The plain push would put the shape back into the deepest
            // surface: the corner of the two, sliding along it.
            push = corner;
        }
    }
    push
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::math::{Dir2, Rot2};

    /// A contact into a surface whose outward direction (away from it, the
    /// way the shape is pushed) is `out`.
    fn into(out: Vec2, depth: f32) -> Contact {
        Contact::new(Vec2::ZERO, Dir2::new(-out).unwrap(), depth)
    }

    fn assert_near(actual: Vec2, expected: Vec2, epsilon: f32) {
        assert!(
            actual.abs_diff_eq(expected, epsilon),
            "{actual} vs {expected}"
        );
    }

    /// Every contact is cleared: the push covers each one's depth along its
    /// direction.
    fn assert_clears(push: Vec2, contacts: &[Contact]) {
        for contact in contacts {
            let along = push.dot(-*contact.normal);
            assert!(along >= contact.depth - 1e-4, "{push} vs {contact:?}");
        }
    }

    #[test]
    fn nothing_to_push_out_of() {
        assert_eq!(push_out([]), Vec2::ZERO);
        assert_eq!(push_out([into(Vec2::Y, 0.0)]), Vec2::ZERO);
    }

    #[test]
    fn one_contact_pushes_by_its_depth() {
        let out = Rot2::degrees(30.0) * Vec2::X;
        assert_near(push_out([into(out, 2.0)]), out * 2.0, 1e-6);
    }

    #[test]
    fn surfaces_facing_the_same_way_push_once() {
        let up = Rot2::degrees(10.0) * Vec2::Y;
        let push = push_out([into(up, 1.0), into(up, 3.0), into(up, 2.0)]);
        assert_near(push, up * 3.0, 1e-6);
    }

    /// A wall and a brick at right angles, in any orientation: out of both,
    /// by exactly each depth.
    #[test]
    fn a_corner_pushes_out_of_both() {
        for degrees in [0.0, 30.0, 45.0, 170.0] {
            let rotation = Rot2::degrees(degrees);
            let contacts = [into(rotation * Vec2::X, 2.0), into(rotation * Vec2::Y, 5.0)];
            let push = push_out(contacts);
            let expected = rotation * Vec2::new(2.0, 5.0);
            assert_near(push, expected, 1e-5);
        }
    }

    /// In a wedge (surfaces 60 degrees apart) the shape goes to the corner
    /// where both are just cleared, further than either depth alone.
    #[test]
    fn a_wedge_pushes_to_the_corner_of_its_surfaces() {
        let contacts = [
            into(Rot2::degrees(60.0) * Vec2::X, 1.0),
            into(Rot2::degrees(-60.0) * Vec2::X, 1.0),
        ];
        let push = push_out(contacts);
        assert_clears(push, &contacts);
        // The corner lies on the bisector, at 1 / cos(60°) = 2.
        assert_near(push, Vec2::new(2.0, 0.0), 1e-5);
        // Slightly apart, as between two nearly coplanar tiles: a little more
        // than one depth, not two.
        let contacts = [
            into(Rot2::degrees(92.0) * Vec2::X, 1.0),
            into(Rot2::degrees(88.0) * Vec2::X, 1.0),
        ];
        let push = push_out(contacts);
        assert_clears(push, &contacts);
        assert!(push.length() < 1.01, "{push}");
    }

    #[test]
    fn squeezed_between_two_surfaces_the_deeper_wins() {
        let push = push_out([into(Vec2::X, 1.0), into(Vec2::NEG_X, 3.0)]);
        assert_eq!(push, Vec2::new(-3.0, 0.0));
    }

    /// Random contacts in two directions that are not squeezed are always
    /// cleared, whatever their order.
    #[test]
    fn two_directions_are_always_cleared() {
        let mut seed = 7_u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1 << 24) as f32
        };
        for _ in 0..2000 {
            let first = Rot2::radians(next() * 6.3) * Vec2::X;
            let second = Rot2::radians(next() * 6.3) * Vec2::X;
            if first.dot(second) < SQUEEZED_COS {
                continue;
            }
            let contacts = [
                into(first, next() * 10.0),
                into(second, next() * 10.0),
                into(first, next() * 5.0),
            ];
            assert_clears(push_out(contacts), &contacts);
            assert_clears(push_out(contacts.into_iter().rev()), &contacts);
        }
    }

    /// The push is the shortest translation that clears every contact, by
    /// the f64 reference's search over directions: two or three surfaces
    /// at any angles short of facing each other, acute ones included (a
    /// ball resting in a shallow V).
    #[test]
    fn the_push_is_the_shortest_that_clears_them_all() {
        use crate::reference::shortest_clearing_length;
        use bevy::math::DVec2;
        use rand::{Rng, SeedableRng, rngs::StdRng};

        let mut rng = StdRng::seed_from_u64(34);
        let mut checked = 0;
        for _ in 0..3000 {
            let count = rng.random_range(2..=3);
            let pushes: Vec<(Vec2, f32)> = (0..count)
                .map(|_| {
                    let out = Rot2::radians(rng.random_range(0.0..6.3)) * Vec2::X;
                    (out, rng.random_range(0.01..10.0))
                })
                .collect();
            let squeezed = pushes
                .iter()
                .enumerate()
                .any(|(i, a)| pushes[i + 1..].iter().any(|b| a.0.dot(b.0) < SQUEEZED_COS));
            if squeezed {
                continue;
            }
            let contacts: Vec<Contact> = pushes
                .iter()
                .map(|&(out, depth)| into(out, depth))
                .collect();
            let push = push_out(contacts.iter().copied());
            let exact: Vec<(DVec2, f64)> = (pushes.iter())
                .map(|&(out, depth)| (out.as_dvec2().normalize(), f64::from(depth)))
                .collect();
            // Surfaces all around: nothing clears them all.
            let Some(shortest) = shortest_clearing_length(&exact) else {
                continue;
            };
            assert_clears(push, &contacts);
            let length = f64::from(push.length());
            assert!(
                (length - shortest).abs() <= 1e-4 * (1.0 + shortest),
                "{pushes:?}: pushed {length}, shortest {shortest}"
            );
            checked += 1;
        }
        assert!(checked > 1500, "{checked}");
    }

    /// A ball resting in a V of two walls turned -30 and +30 degrees, 3.1
    /// into each: straight up to where both just clear (the push along one
    /// wall and then the other went 4.03, 0.58 past clear).
    #[test]
    fn a_ball_in_a_shallow_v_goes_straight_up_to_just_clear() {
        let wall_out = |degrees: f32| Rot2::degrees(degrees) * Vec2::Y;
        let contacts = [into(wall_out(-30.0), 3.1), into(wall_out(30.0), 3.1)];
        let push = push_out(contacts);
        let expected = 3.1 / 30f32.to_radians().cos();
        assert_near(push, Vec2::new(0.0, expected), 1e-4);
    }
}
