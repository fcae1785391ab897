//! Where each collider's path over a step starts: its pose at the previous
//! detection. Kept for every collider while any is `Swept`, since a swept
//! collider's partners move along their own paths too; a new collider, or a
//! `Swept` one inserted again (a teleport), has no path and stands still.

use bevy::math::Isometry2d;
use bevy::prelude::*;

use crate::components::Swept;
use crate::geometry::{TransformReading, validate_pose};

/// The pose of every collider at the detections that kept paths, by entity
/// index, so that finding a collider's previous pose is one array read.
#[derive(Resource, Default, Debug)]
pub(crate) struct PreviousPoses {
    slots: Vec<PoseSlot>,
    /// The number of the current detection (every detection counts, whether
    /// it keeps paths or not, so that a pose two detections old is stale).
    detection: u32,
}

/// Entity indices from here on get no path (they stand still) rather than
/// slots: 16 million entities, 512 MB of slots.
const MAX_SLOTS: usize = 1 << 24;

/// A collider's pose as recorded at detection `detection`.
#[derive(Clone, Copy, Debug)]
struct PoseSlot {
    entity: Entity,
    detection: u32,
    /// Whether it was `Swept` then.
    swept: bool,
    pose: Isometry2d,
}

impl PoseSlot {
    const EMPTY: Self = Self {
        entity: Entity::PLACEHOLDER,
        detection: 0,
        swept: false,
        pose: Isometry2d::IDENTITY,
    };
}

impl PreviousPoses {
    /// Starts a detection; `keeps_paths` if it will call
    /// [`Self::path_start`] for its colliders.
    pub(super) fn begin_detection(&mut self, keeps_paths: bool) {
        // Detection 0 is never recorded: empty slots hold it. A wrap after
        // 2^32 detections merely leaves old poses stale.
        self.detection = self.detection.wrapping_add(1).max(1);
        if !keeps_paths {
            // Nothing from before this detection can be a previous pose any
            // more; free the memory of a scene that no longer sweeps.
            self.slots = Vec::new();
        }
    }

    /// The start of `entity`'s path ending at `pose`: its pose at the
    /// previous detection if it was recorded there, else `pose` itself (it
    /// stands still). Records `pose` as the start of its next path.
    #[inline]
    pub(super) fn path_start(
        &mut self,
        entity: Entity,
        pose: Isometry2d,
        swept: bool,
    ) -> Isometry2d {
        let index = entity.index_u32() as usize;
        if index >= self.slots.len() {
            if index >= MAX_SLOTS {
                return pose;
            }
            self.slots.resize(index + 1, PoseSlot::EMPTY);
        }
        let slot = &mut self.slots[index];
        let start = if slot.entity == entity && slot.detection == self.detection.wrapping_sub(1) {
            slot.pose
        } else {
            pose
        };
        *slot = PoseSlot {
            entity,
            detection: self.detection,
            swept,
            pose,
        };
        start
    }

    /// Starts `entity`'s next path at `pose`, where it is now, if it was
    /// swept at the last detection; otherwise (a new `Swept`, or no usable
    /// pose) it has no path at the next detection.
    fn restart(&mut self, entity: Entity, pose: Option<Isometry2d>) {
        let Some(slot) = self.slots.get_mut(entity.index_u32() as usize) else {
            return;
        };
        if slot.entity != entity || slot.detection != self.detection {
            return;
        }
        match pose {
            Some(pose) if slot.swept => slot.pose = pose,
            _ => *slot = PoseSlot::EMPTY,
        }
    }
}

/// `Swept` inserted again starts the collider's next path where it is now
/// (its `Transform` within its parent as last propagated); a new `Swept`
/// starts it at the next detection.
pub(crate) fn restart_swept_path(
    insert: On<Insert<Swept>>,
    transforms: Query<(&Transform, Option<&ChildOf>)>,
    globals: Query<&GlobalTransform>,
    mut poses: ResMut<PreviousPoses>,
) {
    let entity = insert.entity;
    let pose = transforms
        .get(entity)
        .ok()
        .and_then(|(transform, child_of)| {
            let global = match child_of {
                Some(child_of) => globals
                    .get(child_of.parent())
                    .ok()?
                    .mul_transform(*transform),
                None => GlobalTransform::from(*transform),
            };
            let pose = TransformReading::of(&global.affine()).pose;
            validate_pose(pose).ok().map(|()| pose)
        });
    poses.restart(entity, pose);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(index: u32, generation: u32) -> Entity {
        let first = Entity::from_raw_u32(index).unwrap();
        Entity::from_bits(first.to_bits() | (u64::from(generation) << 32))
    }

    fn at(x: f32) -> Isometry2d {
        Isometry2d::from_translation(Vec2::new(x, 0.0))
    }

    #[test]
    fn a_path_starts_at_the_previous_detection_only() {
        let mut poses = PreviousPoses::default();
        let (a, reused) = (entity(3, 0), entity(3, 1));
        poses.begin_detection(true);
        // New: stands still.
        assert_eq!(poses.path_start(a, at(1.0), false), at(1.0));
        poses.begin_detection(true);
        assert_eq!(poses.path_start(a, at(2.0), false), at(1.0));
        // A detection without paths makes every pose stale.
        poses.begin_detection(false);
        poses.begin_detection(true);
        assert_eq!(poses.path_start(a, at(5.0), false), at(5.0));
        // Another entity in the same slot (index reused) has no path.
        poses.begin_detection(true);
        assert_eq!(poses.path_start(reused, at(9.0), false), at(9.0));
        // Nor does an entity beyond the slots it keeps.
        let far = entity(MAX_SLOTS as u32, 0);
        for _ in 0..2 {
            poses.begin_detection(true);
            assert_eq!(poses.path_start(far, at(7.0), false), at(7.0));
        }
        assert!(poses.slots.len() < MAX_SLOTS);
    }

    #[test]
    fn restart_moves_a_swept_start_and_drops_a_new_one() {
        let mut poses = PreviousPoses::default();
        let (swept, plain) = (entity(1, 0), entity(2, 0));
        poses.begin_detection(true);
        poses.path_start(swept, at(0.0), true);
        poses.path_start(plain, at(0.0), false);
        // Between detections: `Swept` inserted again on both.
        poses.restart(swept, Some(at(50.0)));
        poses.restart(plain, Some(at(50.0)));
        poses.begin_detection(true);
        assert_eq!(poses.path_start(swept, at(51.0), true), at(50.0));
        assert_eq!(poses.path_start(plain, at(51.0), true), at(51.0));
    }
}
