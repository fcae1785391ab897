//! The compounds the snapshot rescales, kept from one detection to the
//! next: rebuilding every part of a compound every frame cost more than all
//! of its tests.

use bevy::ecs::entity::EntityHashMap;
use bevy::math::Vec2;
use bevy::prelude::Entity;

use crate::geometry::{Compound, ShapeError};

/// How far a collider's scale may move, relative to the one its compound
/// was rescaled for, before the compound is rescaled again: 2^-20, about
/// eight float steps. A spinning `Transform`'s quaternion drifts off unit
/// length, so its `GlobalTransform`'s scale moves by about 1e-9 a frame;
/// rescaled every frame, every such compound was rebuilt every frame.
pub(crate) const SCALE_TOLERANCE: f32 = 1.0 / (1 << 20) as f32;

/// One collider's rescaled compound: built from `source` at `scale`, last
/// used by detection number `used`.
#[derive(Debug)]
struct Rescaled {
    source: Compound,
    scale: Vec2,
    scaled: Compound,
    used: u32,
}

/// The rescaled compound of each collider with a scaled compound, by entity.
#[derive(Default, Debug)]
pub(crate) struct RescaledCompounds {
    kept: EntityHashMap<Rescaled>,
    detection: u32,
}

impl RescaledCompounds {
    /// `compound` under `entity`'s `scale`: the one kept for it when built
    /// from the same compound at a scale within [`SCALE_TOLERANCE`], else
    /// rescaled now (and kept).
    pub(crate) fn scaled(
        &mut self,
        entity: Entity,
        compound: &Compound,
        scale: Vec2,
    ) -> Result<Compound, ShapeError> {
        if let Some(kept) = self.kept.get_mut(&entity)
            && kept.source.same_parts(compound)
            && close(kept.scale, scale)
        {
            kept.used = self.detection;
            return Ok(kept.scaled.clone());
        }
        let scaled = compound.scaled(scale)?;
        let rescaled = Rescaled {
            source: compound.clone(),
            scale,
            scaled: scaled.clone(),
            used: self.detection,
        };
        self.kept.insert(entity, rescaled);
        Ok(scaled)
    }

    /// Ends a detection: forgets the compounds it did not use (despawned,
    /// reshaped or no longer scaled colliders).
    pub(crate) fn finish_detection(&mut self) {
        let detection = self.detection;
        self.kept.retain(|_, kept| kept.used == detection);
        self.detection = detection.wrapping_add(1);
    }
}

/// Whether `scale` is within [`SCALE_TOLERANCE`] of `kept` on both axes
/// (the same signs; never for NaN).
fn close(kept: Vec2, scale: Vec2) -> bool {
    (kept - scale)
        .abs()
        .cmple(kept.abs() * SCALE_TOLERANCE)
        .all()
}

#[cfg(test)]
mod tests {
    use bevy::math::Isometry2d;

    use super::*;
    use crate::geometry::Shape;

    fn l_shape() -> Compound {
        let part = |x: f32, y: f32, half_size: Vec2| {
            (Isometry2d::from_xy(x, y), Shape::Rect { half_size })
        };
        Compound::new([
            part(0.0, 0.0, Vec2::new(4.0, 1.0)),
            part(-3.0, 3.0, Vec2::new(1.0, 2.0)),
        ])
    }

    #[test]
    fn kept_while_the_scale_stays_within_tolerance() {
        let (compound, entity) = (l_shape(), Entity::from_raw_u32(7).unwrap());
        let mut kept = RescaledCompounds::default();
        let first = kept.scaled(entity, &compound, Vec2::splat(2.0)).unwrap();
        assert_eq!(first, compound.scaled(Vec2::splat(2.0)).unwrap());
        kept.finish_detection();
        // A drift of a few float steps: the very same parts.
        let drifted = Vec2::splat(2.0 * (1.0 + 4.0 * f32::EPSILON));
        let again = kept.scaled(entity, &compound, drifted).unwrap();
        assert!(again.same_parts(&first));
        kept.finish_detection();
        // Beyond the tolerance, on one axis only: rescaled.
        let stretched = Vec2::new(2.0, 2.0 * (1.0 + 4.0 * SCALE_TOLERANCE));
        let rescaled = kept.scaled(entity, &compound, stretched).unwrap();
        assert!(!rescaled.same_parts(&first));
        assert_eq!(rescaled, compound.scaled(stretched).unwrap());
        // Mirrored: rescaled.
        let mirrored = kept
            .scaled(entity, &compound, Vec2::new(-2.0, 2.0))
            .unwrap();
        assert_eq!(mirrored, compound.scaled(Vec2::new(-2.0, 2.0)).unwrap());
    }

    #[test]
    fn another_compound_or_entity_is_rescaled_and_unused_ones_forgotten() {
        let (compound, other) = (l_shape(), l_shape());
        let (a, b) = (
            Entity::from_raw_u32(1).unwrap(),
            Entity::from_raw_u32(2).unwrap(),
        );
        let mut kept = RescaledCompounds::default();
        let first = kept.scaled(a, &compound, Vec2::splat(3.0)).unwrap();
        // Equal parts, but a new collider shape: rescaled from it.
        let from_other = kept.scaled(a, &other, Vec2::splat(3.0)).unwrap();
        assert!(!from_other.same_parts(&first));
        let for_b = kept.scaled(b, &other, Vec2::splat(3.0)).unwrap();
        assert!(!for_b.same_parts(&from_other));
        kept.finish_detection();
        kept.scaled(b, &other, Vec2::splat(3.0)).unwrap();
        kept.finish_detection();
        assert_eq!(
            kept.kept.len(),
            1,
            "a's compound was not used last detection"
        );
        assert!(kept.kept.contains_key(&b));
    }

    #[test]
    fn a_nan_scale_is_never_close() {
        assert!(close(Vec2::ONE, Vec2::ONE));
        assert!(!close(Vec2::ONE, Vec2::new(1.0, f32::NAN)));
        assert!(!close(Vec2::NAN, Vec2::NAN));
        assert!(!close(Vec2::ONE, Vec2::new(1.0, -1.0)));
    }
}
