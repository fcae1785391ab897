//! Step 1 of detection: copy every valid collider's world shape, pose, bounds
//! and layers into flat arrays that the later steps read as plain data.

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::ecs::world::DeferredWorld;
use bevy::math::{Isometry2d, Rot2, Vec2, bounding::Aabb2d};
use bevy::prelude::*;

use std::ops::Range;
use std::sync::{Mutex, PoisonError};

use crate::collider::{Collider, CollisionLayers, Swept};
use crate::geometry::{Shape, ShapeError, Sweep, swept_aabb, validate_pose};
use crate::parallel::{ChunkOutputs, Workers};

/// One collider as detection sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SnapshotCollider {
    /// The collider's entity.
    pub entity: Entity,
    /// Its world-space shape (scale applied).
    pub shape: Shape,
    /// Its world pose: position and rotation about z.
    pub pose: Isometry2d,
}

/// [`ColliderSnapshot::sweep_index`] of a collider that is not [`Swept`].
pub const NOT_SWEPT: u32 = u32::MAX;

/// This detection's colliders as plain data, one index per collider, in the
/// order the query yielded them. Rebuilt every detection; allocations are
/// reused.
#[derive(Resource, Default, Debug)]
pub struct ColliderSnapshot {
    /// The colliders: entity, world shape and pose, side by side so that a
    /// pair test reads one place per collider.
    pub colliders: Vec<SnapshotCollider>,
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
        self.colliders.len()
    }

    /// Whether there are no colliders.
    pub fn is_empty(&self) -> bool {
        self.colliders.is_empty()
    }

    /// The motion of collider `index` over this step: from its previous pose
    /// if it is [`Swept`], else standing still at its current pose.
    pub fn sweep(&self, index: usize) -> Sweep {
        let end = self.colliders[index].pose;
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

/// Colliders per chunk of snapshot work.
const COLLIDERS_PER_CHUNK: usize = 1024;

/// Marks a swept collider in [`ColliderSnapshot::sweep_index`] until its path
/// is looked up, after the chunks are done.
const SWEEP_PENDING: u32 = NOT_SWEPT - 1;

/// What the snapshot makes of one collider.
enum Reading {
    /// Usable; `sheared` if its transform shears it (worth a warning only).
    Valid {
        shape: Shape,
        pose: Isometry2d,
        sheared: bool,
    },
    /// Scaled to nothing (a common way to hide or grow things in): skipped
    /// without a warning.
    Hidden,
    /// Skipped until fixed, with a warning.
    Invalid(ShapeError),
}

fn read_collider(collider: &Collider, transform: &GlobalTransform) -> Reading {
    let reading = read_transform(transform);
    match shape_at(collider, &reading) {
        Ok((shape, pose)) => Reading::Valid {
            shape,
            pose,
            sheared: reading.shear > SHEAR_TOLERANCE,
        },
        Err(_) if collider.validate().is_ok() && reading.scale.cmpeq(Vec2::ZERO).any() => {
            Reading::Hidden
        }
        Err(error) => Reading::Invalid(error),
    }
}

/// Something about a collider the snapshot reports after its chunks are done.
#[derive(Clone, Copy)]
enum Note {
    /// Kept, but its transform is sheared.
    Sheared(Entity),
    /// Left out: its slot at `position` is removed. `error` is `None` when
    /// it is only hidden (scaled to nothing).
    Skipped {
        position: usize,
        entity: Entity,
        error: Option<ShapeError>,
    },
}

/// The colliders of one table (archetype storage): they share components.
#[derive(Clone, Copy)]
struct TableColliders<'w> {
    entities: &'w [Entity],
    colliders: &'w [Collider],
    transforms: &'w [GlobalTransform],
    /// `None` where `CollisionLayers` was removed: the default applies.
    layers: Option<&'w [CollisionLayers]>,
    swept: bool,
}

/// Where a chunk of colliders goes in [`ColliderSnapshot`]: one slot per
/// collider, starting at `start`.
struct SnapshotSlots<'a> {
    start: usize,
    colliders: &'a mut [SnapshotCollider],
    aabbs: &'a mut [Aabb2d],
    layers: &'a mut [CollisionLayers],
    sweep_index: &'a mut [u32],
}

impl<'a> SnapshotSlots<'a> {
    /// The first `len` slots, and the rest.
    fn split_off_front(self, len: usize) -> (Self, Self) {
        let (colliders, rest_colliders) = self.colliders.split_at_mut(len);
        let (aabbs, rest_aabbs) = self.aabbs.split_at_mut(len);
        let (layers, rest_layers) = self.layers.split_at_mut(len);
        let (sweep_index, rest_sweep_index) = self.sweep_index.split_at_mut(len);
        (
            Self {
                start: self.start,
                colliders,
                aabbs,
                layers,
                sweep_index,
            },
            Self {
                start: self.start + len,
                colliders: rest_colliders,
                aabbs: rest_aabbs,
                layers: rest_layers,
                sweep_index: rest_sweep_index,
            },
        )
    }

    /// Reads `rows` of `table` into these slots, noting what is to report.
    fn fill(&mut self, table: &TableColliders, rows: Range<usize>, notes: &mut Vec<Note>) {
        for (at, row) in rows.enumerate() {
            let entity = table.entities[row];
            match read_collider(&table.colliders[row], &table.transforms[row]) {
                Reading::Valid {
                    shape,
                    pose,
                    sheared,
                } => {
                    self.colliders[at] = SnapshotCollider {
                        entity,
                        shape,
                        pose,
                    };
                    // A swept collider's bounds cover its path, found later.
                    if table.swept {
                        self.sweep_index[at] = SWEEP_PENDING;
                    } else {
                        self.aabbs[at] = shape.aabb(pose);
                        self.sweep_index[at] = NOT_SWEPT;
                    }
                    // A removed CollisionLayers means the default: everything.
                    self.layers[at] = table.layers.map_or_else(Default::default, |l| l[row]);
                    if sheared {
                        notes.push(Note::Sheared(entity));
                    }
                }
                Reading::Hidden => notes.push(Note::Skipped {
                    position: self.start + at,
                    entity,
                    error: None,
                }),
                Reading::Invalid(error) => notes.push(Note::Skipped {
                    position: self.start + at,
                    entity,
                    error: Some(error),
                }),
            }
        }
    }
}

/// Removes the elements at `positions` (ascending) from `values`, keeping
/// the order of the rest.
fn remove_positions<T: Copy>(values: &mut Vec<T>, positions: &[usize]) {
    let first = positions.first().copied().unwrap_or(values.len());
    let mut kept = first;
    let mut skip = positions.iter().peekable();
    for read in first..values.len() {
        if skip.next_if_eq(&&read).is_some() {
            continue;
        }
        values[kept] = values[read];
        kept += 1;
    }
    values.truncate(kept);
}

/// Reusable space of [`snapshot_colliders`].
#[derive(Default)]
pub(crate) struct SnapshotScratch {
    notes: ChunkOutputs<Note>,
    all_notes: Vec<Note>,
    skipped: Vec<usize>,
}

/// Fills [`ColliderSnapshot`] from the ECS, in chunks shared by
/// [`Workers`], skipping (and warning once about) colliders with invalid
/// sizes, scales or transforms.
pub(crate) fn snapshot_colliders(
    colliders: Query<ColliderData>,
    mut snapshot: ResMut<ColliderSnapshot>,
    mut warned: ResMut<WarnedColliders>,
    mut swept_poses: ResMut<SweptPoses>,
    workers: Res<Workers>,
    mut scratch: Local<SnapshotScratch>,
) {
    let snapshot = &mut *snapshot;
    let SnapshotScratch {
        notes,
        all_notes,
        skipped,
    } = &mut *scratch;
    // Every queried component is stored in tables, so this always holds.
    let tables: Vec<TableColliders> = match colliders.contiguous_iter() {
        Ok(tables) => tables
            .map(
                |(entities, colliders, transforms, layers, swept)| TableColliders {
                    entities,
                    colliders,
                    transforms,
                    layers,
                    swept,
                },
            )
            .collect(),
        Err(error) => {
            error!("bevy_collide2d: colliders cannot be read: {error}");
            Vec::new()
        }
    };
    // Slots for every collider, overwritten (the lengths rarely change, so
    // this rarely writes anything); skipped ones are removed afterwards.
    let total: usize = tables.iter().map(|table| table.entities.len()).sum();
    snapshot.colliders.resize(
        total,
        SnapshotCollider {
            entity: Entity::PLACEHOLDER,
            shape: Shape::Circle { radius: 0.0 },
            pose: Isometry2d::IDENTITY,
        },
    );
    snapshot
        .aabbs
        .resize(total, Aabb2d::new(Vec2::ZERO, Vec2::ZERO));
    snapshot.layers.resize(total, CollisionLayers::default());
    snapshot.sweep_index.resize(total, NOT_SWEPT);
    snapshot.sweep_starts.clear();
    // Chunks of at most COLLIDERS_PER_CHUNK rows of one table, each with its
    // own slots.
    let mut chunks = Vec::new();
    let mut rest = SnapshotSlots {
        start: 0,
        colliders: &mut snapshot.colliders,
        aabbs: &mut snapshot.aabbs,
        layers: &mut snapshot.layers,
        sweep_index: &mut snapshot.sweep_index,
    };
    for (index, table) in tables.iter().enumerate() {
        let rows = table.entities.len();
        for first in (0..rows).step_by(COLLIDERS_PER_CHUNK) {
            let last = (first + COLLIDERS_PER_CHUNK).min(rows);
            let (slots, after) = rest.split_off_front(last - first);
            rest = after;
            chunks.push(Mutex::new((index, first..last, slots)));
        }
    }
    all_notes.clear();
    notes.collect(
        &*workers,
        chunks.len(),
        |k, notes| {
            let mut chunk = chunks[k].lock().unwrap_or_else(PoisonError::into_inner);
            let (table, rows, slots) = &mut *chunk;
            slots.fill(&tables[*table], rows.clone(), notes);
        },
        all_notes,
    );
    drop(chunks);
    // Leave out the skipped colliders, warning about the invalid ones.
    skipped.clear();
    for note in all_notes.iter() {
        match *note {
            Note::Sheared(entity) => {
                if warned.1.insert(entity) {
                    warn!(
                        "bevy_collide2d: collider on {entity} has a sheared transform (a non-uniform scale above a rotation); it is treated as an unsheared shape with the same axis lengths"
                    );
                }
            }
            Note::Skipped {
                position,
                entity,
                error,
            } => {
                skipped.push(position);
                if let Some(error) = error
                    && warned.0.insert(entity)
                {
                    warn!("bevy_collide2d: collider on {entity} is skipped until fixed: {error}");
                }
            }
        }
    }
    if !skipped.is_empty() {
        remove_positions(&mut snapshot.colliders, skipped);
        remove_positions(&mut snapshot.aabbs, skipped);
        remove_positions(&mut snapshot.layers, skipped);
        remove_positions(&mut snapshot.sweep_index, skipped);
    }
    // Swept colliders: their paths start where they were last time.
    if tables.iter().any(|table| table.swept) {
        for index in 0..snapshot.len() {
            if snapshot.sweep_index[index] == SWEEP_PENDING {
                let SnapshotCollider {
                    entity,
                    shape,
                    pose,
                } = snapshot.colliders[index];
                let start = swept_poses.path_start(entity, pose);
                snapshot.aabbs[index] = swept_aabb(&shape, Sweep::new(start, pose));
                snapshot.sweep_index[index] = snapshot.sweep_starts.len() as u32;
                snapshot.sweep_starts.push(start);
            }
        }
    }
    swept_poses.advance();
    // Warned colliders that are valid again are warned about again if they
    // break again; those that no longer exist are forgotten.
    let WarnedColliders(invalid, sheared) = &mut *warned;
    if !invalid.is_empty() {
        let skipped_entities: EntityHashSet = all_notes
            .iter()
            .filter_map(|note| match *note {
                Note::Skipped { entity, .. } => Some(entity),
                Note::Sheared(_) => None,
            })
            .collect();
        invalid.retain(|entity| skipped_entities.contains(entity));
    }
    if !sheared.is_empty() {
        sheared.retain(|entity| colliders.contains(*entity));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_positions_keeps_the_rest_in_order() {
        let cases: [(&[usize], &[u32]); 5] = [
            (&[], &[0, 1, 2, 3, 4]),
            (&[0], &[1, 2, 3, 4]),
            (&[4], &[0, 1, 2, 3]),
            (&[1, 2, 4], &[0, 3]),
            (&[0, 1, 2, 3, 4], &[]),
        ];
        for (positions, expected) in cases {
            let mut values = vec![0, 1, 2, 3, 4];
            remove_positions(&mut values, positions);
            assert_eq!(values, expected, "removing {positions:?}");
        }
    }
}
