use core::num::NonZeroU32;

use bevy::math::{Dir2, Vec2};
use bevy::reflect::Reflect;

/// Where and how deeply two shapes overlap.
///
/// Seen from the first shape of the pair: `normal` points from the first shape
/// towards the second, and moving the second shape by `normal * depth` (or the
/// first by `-normal * depth`) just separates them.
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
pub struct Contact {
    /// A world-space point inside the overlap of the two shapes (on its boundary
    /// when they only touch).
    pub point: Vec2,
    /// Unit direction from the first shape to the second along which they are
    /// least deeply overlapping.
    pub normal: Dir2,
    /// Penetration depth along `normal`, `>= 0`; `0` when the shapes touch.
    pub depth: f32,
}

impl Contact {
    /// A contact at `point` with `normal` (from the first shape to the
    /// second) and `depth`.
    #[inline]
    pub const fn new(point: Vec2, normal: Dir2, depth: f32) -> Self {
        Self {
            point,
            normal,
            depth,
        }
    }

    /// A placeholder for "touching" where only the yes/no answer is used.
    pub(crate) const TOUCHING: Self = Self::new(Vec2::ZERO, Dir2::X, 0.0);

    /// The same contact seen from the second shape: the normal is reversed,
    /// point and depth are unchanged.
    #[inline]
    #[must_use]
    pub fn flipped(self) -> Self {
        Self {
            normal: -self.normal,
            ..self
        }
    }
}

/// Which part of each collider of a pair a contact is on: the part's index
/// for a compound collider (its order in [`Collider::compound`]), `None` for
/// any other shape. See [`Collisions::parts`] and [`Manifold::parts`].
///
/// [`Collider::compound`]: crate::Collider::compound
/// [`Collisions::parts`]: crate::Collisions::parts
/// [`Manifold::parts`]: crate::geometry::Manifold::parts
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Reflect)]
pub struct ContactParts {
    // The index plus one, so that a pair stays as small as before.
    a: Option<NonZeroU32>,
    b: Option<NonZeroU32>,
}

impl ContactParts {
    /// Neither collider is a compound.
    pub const NONE: Self = Self { a: None, b: None };

    /// The parts `a` and `b`, each `None` for a collider that is not a
    /// compound.
    pub fn new(a: Option<u32>, b: Option<u32>) -> Self {
        let packed = |part: Option<u32>| part.and_then(|i| NonZeroU32::new(i.saturating_add(1)));
        Self {
            a: packed(a),
            b: packed(b),
        }
    }

    /// The part of the pair's `a` the contact is on.
    pub fn a(self) -> Option<u32> {
        self.a.map(|i| i.get() - 1)
    }

    /// The part of the pair's `b` the contact is on.
    pub fn b(self) -> Option<u32> {
        self.b.map(|i| i.get() - 1)
    }

    /// The same parts seen from the other collider.
    #[must_use]
    pub fn swapped(self) -> Self {
        Self {
            a: self.b,
            b: self.a,
        }
    }
}
