//! The ECS read of the snapshot: each collider's components, table by table
//! (or one by one), checked and staged in query order, with warnings about
//! the invalid ones; then laid out by [`lay_out`].

use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::query::ArchetypeFilter;
use bevy::math::{Isometry2d, Vec2};
use bevy::prelude::*;

use std::ops::Range;

use super::layout::lay_out;
use super::{
    COLLIDERS_PER_CHUNK, ColliderSnapshot, CompoundEntry, PlacedParts, SnapshotCollider,
    SnapshotCompound, SnapshotShape, StagedCollider,
};
use crate::components::{Collider, CollisionLayers, Swept, Unusable};
use crate::geometry::{ShapeError, ShapeView, scaled_points_into};
use crate::grid::SpatialGrid;
use crate::stages::swept_paths::PreviousPoses;
use crate::util::parallel::{ChunkOutputs, Workers};
use crate::util::prefetch::PREFETCH_DISTANCE;

/// Sheared transforms are tolerated up to this cosine (about 0.06 degrees).
const SHEAR_TOLERANCE: f32 = 1e-3;

/// Entities warned about and still invalid, so each bad collider is reported
/// once (again only if it is fixed and then breaks again), and entities
/// warned about a sheared transform (once).
#[derive(Resource, Default, Debug)]
pub(crate) struct WarnedColliders {
    /// Warned about and still invalid.
    pub(in crate::stages) invalid: EntityHashSet,
    /// Warned about a sheared transform.
    pub(in crate::stages) sheared: EntityHashSet,
}

/// What the snapshot reads of each collider entity.
pub(crate) type ColliderData = (
    Entity,
    &'static Collider,
    &'static GlobalTransform,
    Option<&'static CollisionLayers>,
    Has<Swept>,
);

/// What the snapshot makes of one collider.
enum Reading {
    /// Usable; `sheared` if its transform shears it (worth a warning only).
    Valid {
        shape: SnapshotShape,
        pose: Isometry2d,
        sheared: bool,
    },
    /// A small compound under a scale `factor` alike on both axes, checked:
    /// its parts are placed in the world as the colliders are laid out.
    Placed {
        pose: Isometry2d,
        factor: f32,
        sheared: bool,
    },
    /// A segment, a polygon or a compound tested as it is, whose points or
    /// parts are scaled after the chunks (into one table), with `scale`
    /// (signed: negative when mirrored).
    WithPoints {
        pose: Isometry2d,
        scale: Vec2,
        sheared: bool,
    },
    /// Scaled to nothing (a common way to hide or grow things in): skipped
    /// without a warning.
    Hidden,
    /// Skipped until fixed, with a warning.
    Invalid(ShapeError),
}

/// What the snapshot makes of `collider` on an entity with `transform`, read
/// as [`Collider::world_shape`] reads it: circles, rectangles and capsules
/// scaled and checked here, segments and polygons left to be scaled into the
/// snapshot's table.
#[inline]
fn read_collider(collider: &Collider, transform: &GlobalTransform) -> Reading {
    let (reading, scaled) = collider.read_as_detection(transform, |reading| {
        let shape = collider.shape_view();
        if let ShapeView::Compound(compound) = shape
            && let Some(factor) = compound.placeable_factor(reading.signed_scale())
        {
            // Checked here, in parallel; its parts are placed as laid out,
            // and the scaled compound built only if asked for (`compounds`).
            return compound.check_scaled_alike(factor).map(|()| None);
        }
        SnapshotShape::of_scaled(shape.scaled_in_place(reading.scale))
    });
    let sheared = reading.shear > SHEAR_TOLERANCE;
    match scaled {
        Ok(Some(shape)) => Reading::Valid {
            shape,
            pose: reading.pose,
            sheared,
        },
        Ok(None) => match collider.shape_view() {
            ShapeView::Compound(compound)
                if let Some(factor) = compound.placeable_factor(reading.signed_scale()) =>
            {
                Reading::Placed {
                    pose: reading.pose,
                    factor,
                    sheared,
                }
            }
            _ => Reading::WithPoints {
                pose: reading.pose,
                scale: reading.signed_scale(),
                sheared,
            },
        },
        Err(unusable) => Reading::skipped(unusable),
    }
}

impl Reading {
    /// A collider detection cannot use ([`Collider::unusable`]): hidden when
    /// scaled to nothing on an axis (a common way to hide things), else
    /// invalid.
    fn skipped(unusable: Unusable) -> Self {
        if unusable.hidden {
            Reading::Hidden
        } else {
            Reading::Invalid(unusable.error)
        }
    }
}

/// Something about a collider the snapshot reports after its chunks are done.
#[derive(Clone, Copy)]
enum Note {
    /// Kept, but its transform is sheared.
    Sheared(Entity),
    /// A segment or polygon at `position`, row `row` of table `table`,
    /// whose points are to be scaled by `scale` into the snapshot.
    Points {
        position: usize,
        table: u32,
        row: u32,
        entity: Entity,
        scale: Vec2,
    },
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
pub(crate) struct TableColliders<'w> {
    entities: &'w [Entity],
    colliders: &'w [Collider],
    transforms: &'w [GlobalTransform],
    /// `None` where `CollisionLayers` was removed: the default applies.
    layers: Option<&'w [CollisionLayers]>,
    swept: bool,
}

/// Reads `rows` of `table` into `slots` (one per row; the first is at
/// `start` in the snapshot), noting what is to report. Chunk `chunk` of the
/// read puts its small compounds in `placed` (over last detection's).
fn fill(
    slots: &mut [StagedCollider],
    start: usize,
    (table_index, table): (usize, &TableColliders),
    rows: Range<usize>,
    (chunk, placed): (usize, &mut Vec<SnapshotCompound>),
    notes: &mut Vec<Note>,
) {
    let mut kept = 0;
    for ((at, row), slot) in rows.enumerate().zip(slots) {
        // A compound's scale bounds are a load away from its collider.
        if let Some(ahead) = table.colliders.get(row + PREFETCH_DISTANCE)
            && let ShapeView::Compound(compound) = ahead.shape_view()
        {
            compound.prefetch_scale_bounds();
        }
        let entity = table.entities[row];
        let (shape, pose, sheared) =
            match read_collider(&table.colliders[row], &table.transforms[row]) {
                Reading::Valid {
                    shape,
                    pose,
                    sheared,
                } => (shape, pose, sheared),
                Reading::Placed {
                    pose,
                    factor,
                    sheared,
                } => {
                    let entry = (chunk, &mut *placed, kept);
                    kept += 1;
                    let shape = SnapshotShape::Compound {
                        index: put_placed(&table.colliders[row], factor, entry),
                        placed: PlacedParts::NONE,
                    };
                    (shape, pose, sheared)
                }
                Reading::WithPoints {
                    pose,
                    scale,
                    sheared,
                } => {
                    notes.push(Note::Points {
                        position: start + at,
                        table: table_index as u32,
                        row: row as u32,
                        entity,
                        scale,
                    });
                    // The shape is filled in with its points after the chunks.
                    (SnapshotShape::Circle { radius: 0.0 }, pose, sheared)
                }
                Reading::Hidden => {
                    notes.push(Note::Skipped {
                        position: start + at,
                        entity,
                        error: None,
                    });
                    continue;
                }
                Reading::Invalid(error) => {
                    notes.push(Note::Skipped {
                        position: start + at,
                        entity,
                        error: Some(error),
                    });
                    continue;
                }
            };
        *slot = StagedCollider {
            collider: SnapshotCollider {
                entity,
                shape,
                pose,
            },
            // A removed CollisionLayers means the default: everything.
            layers: table.layers.map_or_else(Default::default, |l| l[row]),
            swept: table.swept,
        };
        if sheared {
            notes.push(Note::Sheared(entity));
        }
    }
    placed.truncate(kept);
}

/// Puts the small compound of `collider` under `factor` at `at` in the
/// list `placed` of chunk `chunk`, over last detection's entry there;
/// returns its shape's index. Out of line: the loop over plain colliders
/// stays small.
#[inline(never)]
fn put_placed(
    collider: &Collider,
    factor: f32,
    (chunk, placed, at): (usize, &mut Vec<SnapshotCompound>, usize),
) -> u32 {
    let ShapeView::Compound(compound) = collider.shape_view() else {
        unreachable!("only compounds are placed");
    };
    match placed.get_mut(at) {
        Some(entry) => entry.put_placed(compound, factor),
        None => placed.push(SnapshotCompound::placed(compound.clone(), factor)),
    }
    CompoundEntry::Placed { chunk, at }.index()
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

/// Reusable space of [`take_snapshot`].
#[derive(Default)]
pub(crate) struct NoteScratch {
    notes: ChunkOutputs<Note>,
    all_notes: Vec<Note>,
    skipped: Vec<usize>,
    layout: Vec<u32>,
}

/// Colliders read one by one, laid out like the rows of a table.
#[derive(Default)]
pub(crate) struct ReadRows {
    entities: Vec<Entity>,
    colliders: Vec<Collider>,
    transforms: Vec<GlobalTransform>,
    layers: Vec<CollisionLayers>,
}

/// Reads the colliders one by one into `groups` (plain ones first, then
/// `Swept` ones), as two tables. For queries that cannot be read table by
/// table: a sparse-set component among their filters (a disabling component
/// registered with `World::register_disabling_component`, say) does that.
fn read_one_by_one<'a, F: ArchetypeFilter>(
    colliders: &Query<ColliderData, F>,
    groups: &'a mut [ReadRows; 2],
) -> Vec<TableColliders<'a>> {
    for group in groups.iter_mut() {
        group.entities.clear();
        group.colliders.clear();
        group.transforms.clear();
        group.layers.clear();
    }
    for (entity, collider, transform, layers, swept) in colliders {
        let group = &mut groups[usize::from(swept)];
        group.entities.push(entity);
        group.colliders.push(collider.clone());
        group.transforms.push(*transform);
        group.layers.push(layers.copied().unwrap_or_default());
    }
    (groups.iter().enumerate())
        .map(|(swept, group)| TableColliders {
            entities: &group.entities,
            colliders: &group.colliders,
            transforms: &group.transforms,
            layers: Some(&group.layers),
            swept: swept == 1,
        })
        .collect()
}

/// The colliders `query` matches, table by table, or read one by one into
/// `one_by_one` when the query cannot be read table by table.
pub(crate) fn read_tables<'a, F: ArchetypeFilter>(
    query: &'a Query<ColliderData, F>,
    one_by_one: &'a mut [ReadRows; 2],
) -> Vec<TableColliders<'a>> {
    match query.contiguous_iter() {
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
        Err(_) => read_one_by_one(query, one_by_one),
    }
}

/// What [`take_snapshot`] fills: the snapshot, with the warnings it keeps
/// between detections and its reusable space.
pub(crate) struct SnapshotTarget<'a> {
    /// The snapshot to fill.
    pub(in crate::stages) snapshot: &'a mut ColliderSnapshot,
    /// The colliders already warned about.
    pub(in crate::stages) warned: &'a mut WarnedColliders,
    /// Reusable space.
    pub(in crate::stages) scratch: &'a mut NoteScratch,
}

/// Where the colliders' paths over this step start.
pub(crate) enum Paths<'a> {
    /// No paths: every collider stands still (the static colliders).
    StandStill,
    /// Paths from `poses` while any collider is [`Swept`] (or a static one is: `static_swept`).
    FromPrevious {
        poses: &'a mut PreviousPoses,
        static_swept: bool,
    },
}

/// Fills the snapshot of `target` with the valid colliders of `tables`,
/// laid out in the order `grid` filed the last snapshot, their paths as
/// `paths` says.
pub(crate) fn take_snapshot(
    tables: &[TableColliders],
    target: SnapshotTarget,
    paths: Paths,
    grid: &SpatialGrid,
    workers: &Workers,
) {
    let SnapshotTarget {
        snapshot,
        warned,
        scratch,
    } = target;
    let NoteScratch {
        notes,
        all_notes,
        skipped,
        layout,
    } = scratch;
    // The colliders are laid out anew: a lookup by entity sorts them again.
    snapshot.by_entity.take();
    let placed = &mut snapshot.tables.placed_compounds;
    stage_rows(
        tables,
        &mut snapshot.staged,
        placed,
        workers,
        notes,
        all_notes,
    );
    let invalid_points = apply_notes(tables, all_notes, snapshot, warned, skipped);
    start_paths(tables, snapshot, paths);
    lay_out(snapshot, grid, workers, layout);
    warned.forget_valid_again(all_notes, invalid_points);
}

/// A chunk of staging work: the index of a table, some of its rows, where
/// the first of them goes in the snapshot, and their slots.
type RowChunk<'s> = (usize, Range<usize>, usize, &'s mut [StagedCollider]);

/// Reads the rows of `tables` into `staged`, in chunks shared by `workers`, noting what to report.
fn stage_rows(
    tables: &[TableColliders],
    staged: &mut Vec<StagedCollider>,
    placed: &mut Vec<Vec<SnapshotCompound>>,
    workers: &Workers,
    notes: &mut ChunkOutputs<Note>,
    all_notes: &mut Vec<Note>,
) {
    // Slots for every collider, overwritten (the lengths rarely change, so
    // this rarely writes anything); skipped ones are removed afterwards.
    let total: usize = tables.iter().map(|table| table.entities.len()).sum();
    staged.resize(total, StagedCollider::PLACEHOLDER);
    let chunks = row_chunks(tables, staged);
    placed.resize_with(chunks.len(), Vec::new);
    let chunks: Vec<_> = chunks.into_iter().zip(placed.iter_mut()).collect();
    all_notes.clear();
    notes.collect_parts(
        workers,
        chunks,
        |k, ((table, rows, start, slots), placed), notes| {
            fill(
                slots,
                start,
                (table, &tables[table]),
                rows,
                (k, placed),
                notes,
            );
        },
        all_notes,
    );
}

/// Cuts `staged` into the slots of chunks of one table's rows, so that workers fill them apart.
fn row_chunks<'s>(
    tables: &[TableColliders],
    staged: &'s mut [StagedCollider],
) -> Vec<RowChunk<'s>> {
    // Chunks of at most COLLIDERS_PER_CHUNK rows of one table, each with its
    // own slots.
    let mut chunks = Vec::new();
    let (mut rest, mut start) = (staged, 0);
    for (index, table) in tables.iter().enumerate() {
        let rows = table.entities.len();
        for first in (0..rows).step_by(COLLIDERS_PER_CHUNK) {
            let last = (first + COLLIDERS_PER_CHUNK).min(rows);
            let (slots, after) = rest.split_at_mut(last - first);
            chunks.push((index, first..last, start, slots));
            (rest, start) = (after, start + last - first);
        }
    }
    chunks
}

/// Acts on the staging `notes`: scales the points, leaves out the skipped colliders and warns;
/// returns the segments and polygons found invalid (unknown to the notes).
fn apply_notes(
    tables: &[TableColliders],
    notes: &[Note],
    snapshot: &mut ColliderSnapshot,
    warned: &mut WarnedColliders,
    skipped: &mut Vec<usize>,
) -> Vec<Entity> {
    // Leave out the skipped colliders, warning about the invalid ones.
    skipped.clear();
    snapshot.tables.points.clear();
    // Compounds are put back over last detection's, mostly the same ones.
    snapshot.tables.compounds_kept = 0;
    let mut invalid_points = Vec::new();
    for note in notes {
        match *note {
            Note::Points {
                position,
                table,
                row,
                entity,
                scale,
            } => {
                let collider = &tables[table as usize].colliders[row as usize];
                if let Err(error) = scale_points(snapshot, position, entity, collider, scale) {
                    skipped.push(position);
                    let unusable = collider.unusable(error, scale);
                    if let Reading::Invalid(error) = Reading::skipped(unusable) {
                        invalid_points.push(entity);
                        warned.warn_invalid(entity, error);
                    }
                }
            }
            Note::Sheared(entity) => warned.warn_sheared(entity),
            Note::Skipped {
                position,
                entity,
                error,
            } => {
                skipped.push(position);
                if let Some(error) = error {
                    warned.warn_invalid(entity, error);
                }
            }
        }
    }
    let tables = &mut snapshot.tables;
    tables.compounds.truncate(tables.compounds_kept);
    tables.rescaled.finish_detection();
    remove_positions(&mut snapshot.staged, skipped);
    invalid_points
}

/// Scales `collider`'s points into the snapshot as the shape staged at `position`, or fails.
#[inline]
fn scale_points(
    snapshot: &mut ColliderSnapshot,
    position: usize,
    entity: Entity,
    collider: &Collider,
    scale: Vec2,
) -> Result<(), ShapeError> {
    let tables = &mut snapshot.tables;
    snapshot.staged[position].collider.shape = match collider.shape_view() {
        ShapeView::Compound(compound) => {
            // A compound tested as it is (its parts are not placed).
            // Unscaled, the collider's own parts are shared, not copied;
            // scaled, the ones kept for it (rescaled in place when the scale
            // drifted alike on both axes).
            let scaled = if scale == Vec2::ONE {
                compound.clone()
            } else {
                tables.rescaled.scaled(entity, compound, scale)?
            };
            ShapeView::Compound(&scaled).validate()?;
            let index = tables.compounds_kept;
            match tables.compounds.get_mut(index) {
                Some(kept) => *kept = SnapshotCompound::scaled(scaled),
                None => tables.compounds.push(SnapshotCompound::scaled(scaled)),
            }
            tables.compounds_kept += 1;
            SnapshotShape::Compound {
                index: CompoundEntry::Scaled(index).index(),
                placed: PlacedParts::NONE,
            }
        }
        ShapeView::Convex(convex) => {
            let first = tables.points.len() as u32;
            let count = scaled_points_into(convex, scale, &mut tables.points)?;
            SnapshotShape::Points {
                first,
                count: count as u32,
            }
        }
    };
    Ok(())
}

/// Starts each staged collider's path at its last pose if `paths` keeps them (swept tests).
fn start_paths(tables: &[TableColliders], snapshot: &mut ColliderSnapshot, paths: Paths) {
    // With any collider swept, every collider's path starts where it was at
    // the previous detection: partners of swept ones move along theirs too.
    let ColliderSnapshot {
        staged,
        staged_starts,
        ..
    } = snapshot;
    staged_starts.clear();
    if let Paths::FromPrevious {
        poses,
        static_swept,
    } = paths
    {
        let keep_paths = static_swept
            || tables
                .iter()
                .any(|table| table.swept && !table.entities.is_empty());
        poses.begin_detection(keep_paths);
        if keep_paths {
            staged_starts.extend(staged.iter().map(|staged| {
                let SnapshotCollider { entity, pose, .. } = staged.collider;
                poses.path_start(entity, pose, staged.swept)
            }));
        }
    }
}

impl WarnedColliders {
    /// Warns that `entity`'s collider is skipped for `error`, unless already (it is still invalid).
    fn warn_invalid(&mut self, entity: Entity, error: ShapeError) {
        if self.invalid.insert(entity) {
            warn!("bevy_collide2d: collider on {entity} is skipped until fixed: {error}");
        }
    }

    /// Warns once that `entity`'s collider has a sheared transform.
    fn warn_sheared(&mut self, entity: Entity) {
        if self.sheared.insert(entity) {
            warn!(
                "bevy_collide2d: collider on {entity} has a sheared transform (a non-uniform scale above a rotation); it is treated as an unsheared shape with the same axis lengths"
            );
        }
    }

    /// Forgets invalid colliders not skipped this time, to warn again if they break again.
    fn forget_valid_again(&mut self, notes: &[Note], invalid_points: Vec<Entity>) {
        // Warned colliders that are valid again are warned about again if they
        // break again; those that no longer exist are forgotten.
        let invalid = &mut self.invalid;
        if !invalid.is_empty() {
            let skipped_entities: EntityHashSet = notes
                .iter()
                .filter_map(|note| match *note {
                    Note::Skipped { entity, .. } => Some(entity),
                    Note::Sheared(_) | Note::Points { .. } => None,
                })
                .chain(invalid_points)
                .collect();
            invalid.retain(|entity| skipped_entities.contains(entity));
        }
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
