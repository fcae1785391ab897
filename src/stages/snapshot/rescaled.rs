//! The compounds the snapshot rescales, kept from one detection to the
//! next while their scale holds, and rescaled in their own memory when it
//! drifts alike on both axes: rebuilding every part of a compound every
//! frame costs more than all of its tests.

use bevy::ecs::entity::EntityHashMap;
use bevy::math::Vec2;
use bevy::prelude::Entity;

use crate::geometry::{Compound, ShapeError};

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
    /// from the same compound at the same scale, else rescaled now (in the
    /// kept one's memory when it can be) and kept. Always exactly what
    /// `Compound::scaled` builds for this scale: detection sees what
    /// `Collider::world_shape` gives, to the bit.
    pub(crate) fn scaled(
        &mut self,
        entity: Entity,
        compound: &Compound,
        scale: Vec2,
    ) -> Result<Compound, ShapeError> {
        if let Some(kept) = self.kept.get_mut(&entity)
            && kept.source.same_parts(compound)
        {
            // Drifted alike on both axes (a spinning `Transform`): the same
            // memory, rescaled.
            let kept_as_is = kept.scale == scale
                || (scale.x == scale.y && kept.scaled.rescale_alike_in_place(compound, scale.x));
            if kept_as_is {
                kept.scale = scale;
                kept.used = self.detection;
                return Ok(kept.scaled.clone());
            }
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
    fn kept_while_the_scale_stays_the_same() {
        let (compound, entity) = (l_shape(), Entity::from_raw_u32(7).unwrap());
        let mut kept = RescaledCompounds::default();
        let first = kept.scaled(entity, &compound, Vec2::splat(2.0)).unwrap();
        assert_eq!(first, compound.scaled(Vec2::splat(2.0)).unwrap());
        kept.finish_detection();
        let again = kept.scaled(entity, &compound, Vec2::splat(2.0)).unwrap();
        assert!(again.same_parts(&first));
        kept.finish_detection();
        // One float step off on one axis: rescaled, exactly.
        let drifted = Vec2::new(2.0, 2.0f32.next_up());
        let rescaled = kept.scaled(entity, &compound, drifted).unwrap();
        assert!(!rescaled.same_parts(&first));
        assert_eq!(rescaled, compound.scaled(drifted).unwrap());
        // Mirrored: rescaled.
        let mirrored = kept
            .scaled(entity, &compound, Vec2::new(-2.0, 2.0))
            .unwrap();
        assert_eq!(mirrored, compound.scaled(Vec2::new(-2.0, 2.0)).unwrap());
    }

    #[test]
    fn drifted_alike_on_both_axes_it_is_rescaled_in_the_same_memory() {
        let (compound, entity) = (l_shape(), Entity::from_raw_u32(3).unwrap());
        let mut kept = RescaledCompounds::default();
        let first = kept
            .scaled(entity, &compound, Vec2::splat(1.0f32.next_up()))
            .unwrap();
        let address = first.parts().as_ptr();
        // The snapshot drops its copies before the next detection.
        drop(first);
        kept.finish_detection();
        let drifted = Vec2::splat(1.0f32.next_down());
        let rescaled = kept.scaled(entity, &compound, drifted).unwrap();
        assert_eq!(rescaled.parts().as_ptr(), address);
        assert_eq!(rescaled, compound.scaled(drifted).unwrap());
        // Back at the first scale: rescaled again, not taken for the first.
        drop(rescaled);
        kept.finish_detection();
        let back = Vec2::splat(1.0f32.next_up());
        let rescaled = kept.scaled(entity, &compound, back).unwrap();
        assert_eq!(rescaled.parts().as_ptr(), address);
        assert_eq!(rescaled, compound.scaled(back).unwrap());
        // Still held elsewhere: rescaled into new memory, exactly.
        kept.finish_detection();
        let again = kept.scaled(entity, &compound, Vec2::splat(2.0)).unwrap();
        assert!(!again.same_parts(&rescaled));
        assert_eq!(again, compound.scaled(Vec2::splat(2.0)).unwrap());
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
}
