//! Step 1 of detection: copy every valid collider's world shape, pose, bounds
//! and layers into flat arrays that the later steps read as plain data.

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::ecs::world::DeferredWorld;
use bevy::math::{Isometry2d, Rot2, Vec2, bounding::Aabb2d};
use bevy::prelude::*;

use crate::collider::{Collider, CollisionLayers, Swept};
use crate::geometry::{Shape, ShapeError, Sweep, swept_aabb, validate_pose};

/// [`ColliderSnapshot::sweep_index`] of a collider that is not [`Swept`].
pub const NOT_SWEPT: u32 = u32::MAX;

/// This detection's colliders as plain data, one index per collider, in the
/// order the query yielded them. Rebuilt every detection; allocations are
/// reused.
#[derive(Resource, Default, Debug)]
pub struct ColliderSnapshot {
    /// The collider entities.
    pub entities: Vec<Entity>,
    /// World-space shapes (scale applied).
    pub shapes: Vec<Shape>,
    /// World poses: position and rotation about z.
    pub poses: Vec<Isometry2d>,
    /// World-space bounding boxes (of the whole path for [`Swept`] ones).
    pub aabbs: Vec<Aabb2d>,
    /// Collision layers.
    pub layers: Vec<CollisionLayers>,
    /// For each collider, its index in `sweep_starts` if it is [`Swept`],
    /// else [`NOT_SWEPT`].
    pub sweep_index: Vec<u32>,
    /// Where each swept collider was at the previous detection.
    pub sweep_starts: Vec<Isometry2d>,
}

impl ColliderSnapshot {
    /// Number of colliders.
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether there are no colliders.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The motion of collider `index` over this step: from its previous pose
    /// if it is [`Swept`], else standing still at its current pose.
    pub fn sweep(&self, index: usize) -> Sweep {
        let end = self.poses[index];
        match self.sweep_index[index] {
            NOT_SWEPT => Sweep::stationary(end),
            at => Sweep::new(self.sweep_starts[at as usize], end),
        }
    }

    /// Whether collider `index` is [`Swept`].
    #[inline]
    pub fn is_swept(&self, index: usize) -> bool {
        self.sweep_index[index] != NOT_SWEPT
    }

    fn clear(&mut self) {
        self.entities.clear();
        self.shapes.clear();
        self.poses.clear();
        self.aabbs.clear();
        self.layers.clear();
        self.sweep_index.clear();
        self.sweep_starts.clear();
    }

    /// Adds a collider; `start` is its previous pose when it is swept.
    fn push(
        &mut self,
        entity: Entity,
        shape: Shape,
        pose: Isometry2d,
        layers: CollisionLayers,
        start: Option<Isometry2d>,
    ) {
        self.entities.push(entity);
        self.shapes.push(shape);
        match start {
            Some(start) => {
                self.aabbs.push(swept_aabb(&shape, Sweep::new(start, pose)));
                self.sweep_index.push(self.sweep_starts.len() as u32);
                self.sweep_starts.push(start);
            }
            None => {
                self.aabbs.push(shape.aabb(pose));
                self.sweep_index.push(NOT_SWEPT);
            }
        }
        self.poses.push(pose);
        self.layers.push(layers);
    }
}

/// What detection needs from a [`GlobalTransform`], read in one pass.
#[derive(Clone, Copy, Debug)]
struct TransformReading {
    /// Translation and the rotation of the x axis about z.
    pose: Isometry2d,
    /// Lengths of the x and y axes projected on the xy plane.
    scale: Vec2,
    /// Cosine of the angle between those axes (0 unless sheared).
    shear: f32,
}

fn read_transform(transform: &GlobalTransform) -> TransformReading {
    let affine = transform.affine();
    let x_axis = affine.matrix3.x_axis.truncate();
    let y_axis = affine.matrix3.y_axis.truncate();
    let scale = Vec2::new(x_axis.length(), y_axis.length());
    // The x axis gives the angle; a zero-length x axis has none, so fall back
    // to the identity (such a shape has zero width and is rejected anyway).
    // Built field by field: `Rot2::from_sin_cos` asserts unit length in debug
    // builds, and a NaN transform must be reported, not panic.
    let rotation = if scale.x > 0.0 {
        Rot2 {
            cos: x_axis.x / scale.x,
            sin: x_axis.y / scale.x,
        }
    } else {
        Rot2::IDENTITY
    };
    let lengths = scale.x * scale.y;
    TransformReading {
        pose: Isometry2d::new(affine.translation.truncate(), rotation),
        scale,
        shear: if lengths > 0.0 {
            (x_axis.dot(y_axis) / lengths).abs()
        } else {
            0.0
        },
    }
}

/// A 2D pose and scale read from a [`GlobalTransform`]: translation, the
/// rotation of its x axis about z, and the lengths of its x and y axes
/// projected on the xy plane (shear is ignored).
pub fn pose_and_scale(transform: &GlobalTransform) -> (Isometry2d, Vec2) {
    let reading = read_transform(transform);
    (reading.pose, reading.scale)
}

/// How far a transform's x and y axes are from perpendicular, as the cosine
/// of the angle between them (0 for any rotation and scale, non-zero when a
/// non-uniform scale sits above a rotation in the hierarchy). Colliders cannot
/// shear: a rectangle stays a rectangle.
pub fn shear(transform: &GlobalTransform) -> f32 {
    read_transform(transform).shear
}

/// The world shape and pose of a collider, or why it cannot be used.
pub fn world_shape(
    collider: &Collider,
    transform: &GlobalTransform,
) -> Result<(Shape, Isometry2d), ShapeError> {
    shape_at(collider, &read_transform(transform))
}

fn shape_at(
    collider: &Collider,
    reading: &TransformReading,
) -> Result<(Shape, Isometry2d), ShapeError> {
    collider.validate()?;
    validate_pose(reading.pose)?;
    let shape = collider.shape().scaled(reading.scale);
    shape.validate()?;
    Ok((shape, reading.pose))
}

/// Sheared transforms are tolerated up to this cosine (about 0.06 degrees).
const SHEAR_TOLERANCE: f32 = 1e-3;

/// Entities warned about and still invalid, so each bad collider is reported
/// once (again only if it is fixed and then breaks again), and entities
/// warned about a sheared transform (once).
#[derive(Resource, Default, Debug)]
pub(crate) struct WarnedColliders(EntityHashSet, EntityHashSet);

/// Where each [`Swept`] collider was at the last detection: the start of its
/// next path.
#[derive(Resource, Default, Debug)]
pub struct SweptPoses {
    last: EntityHashMap<Isometry2d>,
    current: EntityHashMap<Isometry2d>,
}

impl SweptPoses {
    /// The start of `entity`'s path ending at `pose` (`pose` itself the first
    /// time), remembering `pose` as the start of its next one.
    fn path_start(&mut self, entity: Entity, pose: Isometry2d) -> Isometry2d {
        self.current.insert(entity, pose);
        self.last.get(&entity).copied().unwrap_or(pose)
    }

    /// Ends a detection: the poses seen in it start the next paths, and
    /// colliders not seen (despawned, invalid, no longer swept) are forgotten.
    fn advance(&mut self) {
        std::mem::swap(&mut self.last, &mut self.current);
        self.current.clear();
    }

    /// Starts `entity`'s next path at `pose`, where it is now, if it was
    /// swept at the last detection; otherwise (a new `Swept`, or no usable
    /// pose) where it is at the next detection.
    pub(crate) fn restart(&mut self, entity: Entity, pose: Option<Isometry2d>) {
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

/// Where `entity` is now, as detection would read it: its `Transform`
/// within its parent's `GlobalTransform` (as last propagated). `None` if it
/// has no usable pose.
pub(crate) fn current_pose(world: &DeferredWorld, entity: Entity) -> Option<Isometry2d> {
    let transform = *world.get::<Transform>(entity)?;
    let global = match world.get::<ChildOf>(entity) {
        Some(child_of) => world
            .get::<GlobalTransform>(child_of.parent())?
            .mul_transform(transform),
        None => GlobalTransform::from(transform),
    };
    let pose = read_transform(&global).pose;
    validate_pose(pose).ok().map(|()| pose)
}

/// What the snapshot reads of each collider entity.
type ColliderData = (
    Entity,
    &'static Collider,
    &'static GlobalTransform,
    Option<&'static CollisionLayers>,
    Has<Swept>,
);

/// Fills [`ColliderSnapshot`] from the ECS, skipping (and warning once about)
/// colliders with invalid sizes, scales or transforms.
pub(crate) fn snapshot_colliders(
    colliders: Query<ColliderData>,
    mut snapshot: ResMut<ColliderSnapshot>,
    mut warned: ResMut<WarnedColliders>,
    mut swept_poses: ResMut<SweptPoses>,
) {
    snapshot.clear();
    for (entity, collider, transform, layers, swept) in &colliders {
        let reading = read_transform(transform);
        match shape_at(collider, &reading) {
            Ok((shape, pose)) => {
                if reading.shear > SHEAR_TOLERANCE && warned.1.insert(entity) {
                    warn!(
                        "bevy_collide2d: collider on {entity} has a sheared transform (a non-uniform scale above a rotation); it is treated as an unsheared shape with the same axis lengths"
                    );
                }
                let start = swept.then(|| swept_poses.path_start(entity, pose));
                // A removed CollisionLayers means the default: everything.
                snapshot.push(
                    entity,
                    shape,
                    pose,
                    layers.copied().unwrap_or_default(),
                    start,
                );
                // Recovered: warn again if it ever goes bad again.
                if !warned.0.is_empty() {
                    warned.0.remove(&entity);
                }
            }
            // Scaled to nothing (a common way to hide or grow things in):
            // skipped without a warning.
            Err(_) if collider.validate().is_ok() && reading.scale.cmpeq(Vec2::ZERO).any() => {}
            Err(error) => {
                if warned.0.insert(entity) {
                    warn!("bevy_collide2d: collider on {entity} is skipped until fixed: {error}");
                }
            }
        }
    }
    swept_poses.advance();
    // Forget warnings about entities that no longer have a collider, so the
    // set does not grow with despawned entities.
    let WarnedColliders(invalid, sheared) = &mut *warned;
    for set in [invalid, sheared] {
        if !set.is_empty() {
            set.retain(|entity| colliders.contains(*entity));
        }
    }
}
