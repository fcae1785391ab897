//! Where each `Swept` collider's path starts: its pose at the previous
//! detection, or where it was put when `Swept` was inserted again.

use bevy::ecs::entity::EntityHashMap;
use bevy::math::Isometry2d;
use bevy::prelude::*;

use crate::components::Swept;
use crate::geometry::{TransformReading, validate_pose};

/// Where each [`Swept`] collider was at the last detection: the start of its
/// next path.
#[derive(Resource, Default, Debug)]
pub(crate) struct SweptPoses {
    last: EntityHashMap<Isometry2d>,
    current: EntityHashMap<Isometry2d>,
}

impl SweptPoses {
    /// The start of `entity`'s path ending at `pose` (`pose` itself the first
    /// time), remembering `pose` as the start of its next one.
    pub(super) fn path_start(&mut self, entity: Entity, pose: Isometry2d) -> Isometry2d {
        self.current.insert(entity, pose);
        self.last.get(&entity).copied().unwrap_or(pose)
    }

    /// Ends a detection: the poses seen in it start the next paths, and
    /// colliders not seen (despawned, invalid, no longer swept) are forgotten.
    pub(super) fn advance(&mut self) {
        std::mem::swap(&mut self.last, &mut self.current);
        self.current.clear();
    }

    /// Starts `entity`'s next path at `pose`, where it is now, if it was
    /// swept at the last detection; otherwise (a new `Swept`, or no usable
    /// pose) where it is at the next detection.
    fn restart(&mut self, entity: Entity, pose: Option<Isometry2d>) {
        match pose {
            Some(pose) if self.last.contains_key(&entity) => {
                self.last.insert(entity, pose);
            }
            _ => {
                self.last.remove(&entity);
            }
        }
    }
}

/// `Swept` inserted again starts the collider's next path where it is now
/// (its `Transform` within its parent as last propagated); a new `Swept`
/// starts it at the next detection.
pub(crate) fn restart_swept_path(
    insert: On<Insert, Swept>,
    transforms: Query<(&Transform, Option<&ChildOf>)>,
    globals: Query<&GlobalTransform>,
    mut poses: ResMut<SweptPoses>,
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
