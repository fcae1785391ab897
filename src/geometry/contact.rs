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
