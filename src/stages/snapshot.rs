//! Step 1 of detection: copy every valid collider's world shape, pose, bounds
//! and layers into flat arrays that the later steps read as plain data.

use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::query::ArchetypeFilter;
use bevy::ecs::system::SystemParam;
use bevy::math::{Isometry2d, Vec2};
use bevy::prelude::*;
use bevy::shape::Aabb2d;

use std::ops::Range;

use super::broad_phase_grid::BroadPhaseGrid;
use super::swept_paths::PreviousPoses;
use crate::components::{Collider, ColliderDisabled, CollisionLayers, StaticCollider, Swept};
use crate::geometry::{
    BasicShape, PolygonRef, ShapeError, ShapeRef, Sweep, TransformReading, scaled_points_into,
    swept_aabb_of, validate_pose,
};
use crate::grid::SpatialGrid;
use crate::util::parallel::{ChunkOutputs, RunChunks, Workers, map_parts};
use crate::util::prefetch::{PREFETCH_DISTANCE, prefetch};
use crate::util::sort::BitsSeen;

/// One collider as detection sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SnapshotCollider {
    /// The collider's entity.
    pub(crate) entity: Entity,
    /// Its shape, scaled (see [`ColliderSnapshot::shape`]).
    pub(crate) shape: SnapshotShape,
    /// Its world pose: position and rotation about z.
    pub(crate) pose: Isometry2d,
}

// Scenes of circles and rectangles keep the per-collider record they had
// before segments and polygons existed.
const _: () = assert!(size_of::<SnapshotCollider>() == 40);

/// A collider's shape with scale applied, as compact as a circle's or a
/// rectangle's: the points of segments and polygons are in
/// [`ColliderSnapshot::points`], so that scenes without them carry nothing
/// more per collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum SnapshotShape {
    Circle {
        radius: f32,
    },
    Rect {
        half_size: Vec2,
    },
    Capsule {
        radius: f32,
        half_length: f32,
    },
    /// A segment (`count == 2`: its ends) or a polygon (its vertices, then
    /// as many normals), from `first` in the points.
    Points {
        first: u32,
        count: u32,
    },
}

/// This detection's colliders as plain data, one index per collider. Rebuilt
/// every detection; allocations are reused.
///
/// The colliders are laid out in the order the last detection's grid filed
/// them, cell by cell, so that colliders near each other in the world are
/// mostly near each other in memory too, and the later steps, which look at
/// neighbours, read memory nearly in order. The order has no other meaning.
#[derive(Resource, Default, Debug)]
pub struct ColliderSnapshot {
    /// The colliders: entity, world shape and pose, side by side so that a
    /// pair test reads one place per collider.
    pub(crate) colliders: Vec<SnapshotCollider>,
    /// World-space bounding boxes (of the whole path when paths are kept).
    pub(crate) aabbs: Vec<Aabb2d>,
    /// Collision layers.
    pub(crate) layers: Vec<CollisionLayers>,
    /// Whether each collider is [`Swept`].
    pub(crate) swept: Vec<bool>,
    /// The scaled points of segments and polygons (see [`SnapshotShape`]).
    pub(crate) points: Vec<Vec2>,
    /// The [`CollisionBody`](crate::CollisionBody) of each collider, if it
    /// has one; empty when none has.
    pub(crate) bodies: Vec<Option<Entity>>,
    /// Where each collider's path over this step starts, when any collider
    /// is [`Swept`] (its partners move along their own paths too); empty
    /// otherwise, when every collider stands at its pose.
    pub(crate) path_starts: Vec<Isometry2d>,
    /// For each collider, its position among the valid colliders in the
    /// order the query yielded them: where the next detection, which reads
    /// them in the same order as long as no collider is added, removed or
    /// moved to other storage, finds each of them.
    query_positions: Vec<u32>,
    /// The colliders in query order, before they are laid out.
    staged: Vec<StagedCollider>,
    /// Their path starts, in query order, when paths are kept.
    staged_starts: Vec<Isometry2d>,
    /// The bits in which the colliders' entities differ ([`Entity::to_bits`]),
    /// so that pairs of them pack into small sort keys.
    entity_varying_bits: u64,
    /// The bits of the colliders' layers that any has and that all have.
    layers_seen: LayerBits,
}

/// A collider as read from the ECS, before it is laid out: one record, so
/// that laying it out reads one place.
#[derive(Clone, Copy, Debug)]
struct StagedCollider {
    collider: SnapshotCollider,
    layers: CollisionLayers,
    swept: bool,
}

impl StagedCollider {
    /// What a slot holds until it is filled (or removed, if skipped).
    const PLACEHOLDER: Self = Self {
        collider: SnapshotCollider {
            entity: Entity::PLACEHOLDER,
            shape: SnapshotShape::Circle { radius: 0.0 },
            pose: Isometry2d::IDENTITY,
        },
        layers: CollisionLayers::ALL,
        swept: false,
    };
}

impl ColliderSnapshot {
    /// Number of colliders.
    pub(crate) fn len(&self) -> usize {
        self.colliders.len()
    }

    /// `shape` with its points, if any, from this snapshot.
    #[inline(always)]
    pub(crate) fn shape_of(&self, shape: &SnapshotShape) -> ShapeRef<'_> {
        shape.with_points(&self.points)
    }

    /// The motion of collider `index` over this step: from its pose at the
    /// previous detection when paths are kept, else standing still.
    pub(crate) fn sweep(&self, index: usize) -> Sweep {
        let end = self.colliders[index].pose;
        match self.path_starts.get(index) {
            Some(&start) => Sweep::new(start, end),
            None => Sweep::stationary(end),
        }
    }

    /// Whether colliders `i` and `j` belong to one body, so that they are
    /// never paired.
    #[inline]
    pub(crate) fn same_body(&self, i: usize, other: &Self, j: usize) -> bool {
        match (self.bodies.get(i), other.bodies.get(j)) {
            (Some(Some(a)), Some(Some(b))) => a == b,
            _ => false,
        }
    }

    /// Whether any collider is [`Swept`], so that paths are kept.
    pub(crate) fn has_paths(&self) -> bool {
        !self.path_starts.is_empty()
    }

    /// Whether collider `index` is [`Swept`].
    #[inline]
    pub(crate) fn is_swept(&self, index: usize) -> bool {
        self.swept[index]
    }

    /// The bits in which the colliders' entities differ
    /// ([`Entity::to_bits`]).
    pub(crate) fn entity_varying_bits(&self) -> u64 {
        self.entity_varying_bits
    }

    /// Whether a collider with `layers` may interact with any of these
    /// colliders (if not, none of them needs looking at).
    pub(crate) fn may_interact(&self, layers: &CollisionLayers) -> bool {
        layers.interacts_with(&self.layers_seen.any)
    }

    /// The layers of every collider, when there are some and they all have
    /// the same (always, for a game that sets none).
    pub(crate) fn uniform_layers(&self) -> Option<CollisionLayers> {
        let LayerBits { any, all } = self.layers_seen;
        (!self.colliders.is_empty() && any == all).then_some(any)
    }
}

/// The OR and the AND of some colliders' layers, bit by bit: a query whose
/// layers meet none of the OR can skip them, and where the two agree every
/// collider has the same layers.
#[derive(Clone, Copy, Debug)]
struct LayerBits {
    any: CollisionLayers,
    all: CollisionLayers,
}

impl Default for LayerBits {
    fn default() -> Self {
        Self::NONE
    }
}

impl LayerBits {
    /// Those of no collider.
    const NONE: Self = Self {
        any: CollisionLayers::NONE,
        all: CollisionLayers::ALL,
    };

    fn union(self, other: Self) -> Self {
        let (a, b) = (self, other);
        Self {
            any: CollisionLayers::new(
                a.any.memberships | b.any.memberships,
                a.any.filters | b.any.filters,
            ),
            all: CollisionLayers::new(
                a.all.memberships & b.all.memberships,
                a.all.filters & b.all.filters,
            ),
        }
    }

    fn of(layers: CollisionLayers) -> Self {
        Self {
            any: layers,
            all: layers,
        }
    }
}

impl SnapshotShape {
    /// A circle or rectangle, whose pair tests are dispatched on directly.
    #[inline(always)]
    pub(crate) fn basic(self) -> Option<BasicShape> {
        match self {
            Self::Circle { radius } => Some(BasicShape::Circle { radius }),
            Self::Rect { half_size } => Some(BasicShape::Rect { half_size }),
            _ => None,
        }
    }

    /// A scaled circle, rectangle or capsule, checked; `None` for shapes
    /// with points, which are scaled into the snapshot's table.
    #[inline(always)]
    fn of_scaled(shape: ShapeRef<'_>) -> Result<Option<Self>, ShapeError> {
        let flat = match shape {
            ShapeRef::Circle { radius } => Self::Circle { radius },
            ShapeRef::Rect { half_size } => Self::Rect { half_size },
            ShapeRef::Capsule {
                radius,
                half_length,
            } => Self::Capsule {
                radius,
                half_length,
            },
            ShapeRef::Segment { .. } | ShapeRef::Polygon(_) => return Ok(None),
        };
        shape.validate().map(|()| Some(flat))
    }

    /// The shape as the tests take it, its points from `points`.
    #[inline(always)]
    fn with_points(self, points: &[Vec2]) -> ShapeRef<'_> {
        match self {
            Self::Circle { radius } => ShapeRef::Circle { radius },
            Self::Rect { half_size } => ShapeRef::Rect { half_size },
            Self::Capsule {
                radius,
                half_length,
            } => ShapeRef::Capsule {
                radius,
                half_length,
            },
            Self::Points { first, count } => {
                let (first, count) = (first as usize, count as usize);
                if count == 2 {
                    ShapeRef::Segment {
                        a: points[first],
                        b: points[first + 1],
                    }
                } else {
                    ShapeRef::Polygon(PolygonRef::new(&points[first..first + 2 * count]))
                }
            }
        }
    }
}

/// Sheared transforms are tolerated up to this cosine (about 0.06 degrees).
const SHEAR_TOLERANCE: f32 = 1e-3;

/// Entities warned about and still invalid, so each bad collider is reported
/// once (again only if it is fixed and then breaks again), and entities
/// warned about a sheared transform (once).
#[derive(Resource, Default, Debug)]
pub(crate) struct WarnedColliders(pub(super) EntityHashSet, pub(super) EntityHashSet);

/// What the snapshot reads of each collider entity.
pub(crate) type ColliderData = (
    Entity,
    &'static Collider,
    &'static GlobalTransform,
    Option<&'static CollisionLayers>,
    Has<Swept>,
);

/// Colliders per chunk of snapshot work.
const COLLIDERS_PER_CHUNK: usize = 1024;

/// What the snapshot makes of one collider.
enum Reading {
    /// Usable; `sheared` if its transform shears it (worth a warning only).
    Valid {
        shape: SnapshotShape,
        pose: Isometry2d,
        sheared: bool,
    },
    /// A segment or a polygon, whose points are scaled after the chunks
    /// (into one table), with `scale` (signed: negative when mirrored).
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

fn read_collider(collider: &Collider, transform: &GlobalTransform) -> Reading {
    let reading = TransformReading::of(&transform.affine());
    let sheared = reading.shear > SHEAR_TOLERANCE;
    // Only the scaled shape is checked on the way; the collider's own size
    // only matters to tell why a check failed.
    let scaled = validate_pose(reading.pose).and_then(|()| {
        SnapshotShape::of_scaled(collider.shape_ref().scaled_in_place(reading.scale))
    });
    match scaled {
        Ok(Some(shape)) => Reading::Valid {
            shape,
            pose: reading.pose,
            sheared,
        },
        Ok(None) => Reading::WithPoints {
            pose: reading.pose,
            scale: reading.signed_scale(),
            sheared,
        },
        Err(error) => unusable(collider, error, reading.scale),
    }
}

/// A collider that failed a check with `error` under `scale`: invalid if its
/// own size is, else hidden when scaled to nothing on an axis (a common way
/// to hide things), else invalid.
#[cold]
fn unusable(collider: &Collider, error: ShapeError, scale: Vec2) -> Reading {
    match collider.validate() {
        Err(own) => Reading::Invalid(own),
        Ok(()) if scale.cmpeq(Vec2::ZERO).any() => Reading::Hidden,
        Ok(()) => Reading::Invalid(error),
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
/// `start` in the snapshot), noting what is to report.
fn fill(
    slots: &mut [StagedCollider],
    start: usize,
    (table_index, table): (usize, &TableColliders),
    rows: Range<usize>,
    notes: &mut Vec<Note>,
) {
    for ((at, row), slot) in rows.enumerate().zip(slots) {
        let entity = table.entities[row];
        let (shape, pose, sheared) =
            match read_collider(&table.colliders[row], &table.transforms[row]) {
                Reading::Valid {
                    shape,
                    pose,
                    sheared,
                } => (shape, pose, sheared),
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
}

/// Where a chunk of laid-out colliders goes in [`ColliderSnapshot`]: one
/// slot per collider, starting at `start`.
struct SnapshotSlots<'a> {
    start: usize,
    colliders: &'a mut [SnapshotCollider],
    aabbs: &'a mut [Aabb2d],
    layers: &'a mut [CollisionLayers],
    swept: &'a mut [bool],
    /// Empty when no paths are kept.
    path_starts: &'a mut [Isometry2d],
    /// The OR and the AND of the entity bits gathered into these slots.
    entity_bits: BitsSeen,
    /// The bits of their layers that any has and that all have.
    layers_seen: LayerBits,
}

impl SnapshotSlots<'_> {
    /// The slots cut into chunks of `len` (the last one shorter).
    fn into_chunks(self, len: usize) -> Vec<Self> {
        let mut chunks = Vec::new();
        let mut rest = self;
        while !rest.colliders.is_empty() {
            let first = len.min(rest.colliders.len());
            let (colliders, more_colliders) = rest.colliders.split_at_mut(first);
            let (aabbs, more_aabbs) = rest.aabbs.split_at_mut(first);
            let (layers, more_layers) = rest.layers.split_at_mut(first);
            let (swept, more_swept) = rest.swept.split_at_mut(first);
            let (path_starts, more_path_starts) =
                (rest.path_starts).split_at_mut(first.min(rest.path_starts.len()));
            chunks.push(Self {
                start: rest.start,
                colliders,
                aabbs,
                layers,
                swept,
                path_starts,
                entity_bits: BitsSeen::NONE,
                layers_seen: LayerBits::NONE,
            });
            rest = Self {
                start: rest.start + first,
                colliders: more_colliders,
                aabbs: more_aabbs,
                layers: more_layers,
                swept: more_swept,
                path_starts: more_path_starts,
                entity_bits: BitsSeen::NONE,
                layers_seen: LayerBits::NONE,
            };
        }
        chunks
    }

    /// Fills these slots with the staged colliders at `positions`, in order,
    /// and their path starts (from `staged_starts`, when paths are kept),
    /// with their bounding boxes (of the whole path), and sets their entity
    /// bits.
    fn gather(
        &mut self,
        staged: &[StagedCollider],
        staged_starts: &[Isometry2d],
        positions: &[u32],
        points: &[Vec2],
    ) {
        // The reads jump around memory. A loop that only copies, and asks
        // for the records it will read a few steps ahead, keeps many of them
        // in flight at once; one that also computed the boxes would wait for
        // each in turn. The boxes follow, from memory just written.
        for (at, &from) in positions.iter().enumerate() {
            if let Some(&ahead) = positions.get(at + PREFETCH_DISTANCE) {
                prefetch(&staged[ahead as usize]);
            }
            let StagedCollider {
                collider,
                layers,
                swept,
            } = staged[from as usize];
            self.colliders[at] = collider;
            self.layers[at] = layers;
            self.swept[at] = swept;
        }
        let mut entity_bits = BitsSeen::NONE;
        let mut layers_seen = LayerBits::NONE;
        let keeps_paths = !self.path_starts.is_empty();
        for (at, (aabb, collider)) in self.aabbs.iter_mut().zip(&*self.colliders).enumerate() {
            entity_bits = entity_bits.union(BitsSeen::of(collider.entity.to_bits()));
            layers_seen = layers_seen.union(LayerBits::of(self.layers[at]));
            *aabb = if keeps_paths {
                let start = staged_starts[positions[at] as usize];
                self.path_starts[at] = start;
                swept_aabb_of(
                    collider.shape.with_points(points),
                    Sweep::new(start, collider.pose),
                )
            } else {
                collider.shape.with_points(points).aabb(collider.pose)
            };
        }
        self.entity_bits = entity_bits;
        self.layers_seen = layers_seen;
    }
}

/// Lays the staged colliders out into the snapshot's arrays, in the order
/// the last detection's grid filed them when it was built over as many
/// colliders, otherwise in query order.
fn lay_out(
    snapshot: &mut ColliderSnapshot,
    grid: &SpatialGrid,
    runner: &impl RunChunks,
    layout: &mut Vec<u32>,
) {
    let ColliderSnapshot {
        colliders,
        aabbs,
        layers,
        swept,
        path_starts,
        query_positions,
        staged,
        staged_starts,
        entity_varying_bits,
        layers_seen,
        points,
        bodies: _,
    } = snapshot;
    let count = staged.len();
    layout.clear();
    // With as many colliders as last time, each is assumed to be at the
    // same query position as then. When that is wrong (one collider removed
    // and another added, say), only locality suffers: the layout is a
    // permutation either way, as each grid position names a different
    // collider of the last snapshot.
    if grid.len() == count && query_positions.len() == count {
        layout.extend(
            grid.filing_order()
                .map(|index| query_positions[index as usize]),
        );
    } else {
        layout.extend(0..count as u32);
    }
    let Some(&first) = staged.first() else {
        colliders.clear();
        aabbs.clear();
        layers.clear();
        swept.clear();
        path_starts.clear();
        query_positions.clear();
        *entity_varying_bits = 0;
        *layers_seen = LayerBits::NONE;
        return;
    };
    // Overwritten below; resizing only writes when the count grows.
    colliders.resize(count, first.collider);
    aabbs.resize(count, Aabb2d::new(Vec2::ZERO, Vec2::ZERO));
    layers.resize(count, first.layers);
    swept.resize(count, false);
    path_starts.resize(staged_starts.len(), Isometry2d::IDENTITY);
    let chunks = SnapshotSlots {
        start: 0,
        colliders,
        aabbs,
        layers,
        swept,
        path_starts,
        entity_bits: BitsSeen::NONE,
        layers_seen: LayerBits::NONE,
    }
    .into_chunks(COLLIDERS_PER_CHUNK);
    let (staged, staged_starts, layout_ref, points) =
        (&*staged, &*staged_starts, &*layout, &*points);
    let entity_bits = map_parts(runner, chunks, |_, mut slots| {
        let positions = &layout_ref[slots.start..slots.start + slots.colliders.len()];
        slots.gather(staged, staged_starts, positions, points);
        (slots.entity_bits, slots.layers_seen)
    })
    .into_iter()
    .fold(
        (BitsSeen::NONE, LayerBits::NONE),
        |(bits, seen), (more_bits, more)| (bits.union(more_bits), seen.union(more)),
    );
    let (entity_bits, seen) = entity_bits;
    *entity_varying_bits = entity_bits.varying();
    *layers_seen = seen;
    std::mem::swap(query_positions, layout);
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

/// Reusable space of [`MovingInputs::take`].
#[derive(Default)]
pub(crate) struct SnapshotScratch {
    notes: NoteScratch,
    /// The colliders read one by one, when tables cannot be read whole.
    one_by_one: [ReadRows; 2],
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

/// What reading the moving colliders into [`ColliderSnapshot`] needs.
#[derive(SystemParam)]
pub(crate) struct MovingInputs<'w, 's> {
    colliders: Query<'w, 's, ColliderData, (Without<StaticCollider>, Without<ColliderDisabled>)>,
    snapshot: ResMut<'w, ColliderSnapshot>,
    warned: ResMut<'w, WarnedColliders>,
    previous_poses: ResMut<'w, PreviousPoses>,
    grid: Res<'w, BroadPhaseGrid>,
    scratch: Local<'s, SnapshotScratch>,
}

impl MovingInputs<'_, '_> {
    /// The snapshot being filled.
    pub(crate) fn snapshot_mut(&mut self) -> &mut ColliderSnapshot {
        &mut self.snapshot
    }

    /// Fills [`ColliderSnapshot`] from the ECS, in chunks shared by
    /// `workers`, skipping (and warning once about) colliders with invalid
    /// sizes, scales or transforms. Static colliders are not in it; with
    /// `static_swept`, one of them is [`Swept`], so paths are kept.
    pub(crate) fn take(&mut self, workers: &Workers, static_swept: bool) {
        let SnapshotScratch { notes, one_by_one } = &mut *self.scratch;
        let tables = read_tables(&self.colliders, one_by_one);
        take_snapshot(
            &tables,
            &mut self.snapshot,
            &mut self.warned,
            Some((&mut self.previous_poses, static_swept)),
            &self.grid.grid,
            workers,
            notes,
        );
        let sheared = &mut self.warned.1;
        if !sheared.is_empty() {
            sheared.retain(|entity| self.colliders.contains(*entity));
        }
    }
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

/// Fills `snapshot` with the valid colliders of `tables`, laid out in the
/// order `grid` filed the last snapshot. With `previous_poses`, paths are
/// kept while any collider is [`Swept`] (or a static one is: the flag);
/// without (static colliders), every collider stands still.
pub(crate) fn take_snapshot(
    tables: &[TableColliders],
    snapshot: &mut ColliderSnapshot,
    warned: &mut WarnedColliders,
    previous_poses: Option<(&mut PreviousPoses, bool)>,
    grid: &SpatialGrid,
    workers: &Workers,
    scratch: &mut NoteScratch,
) {
    let NoteScratch {
        notes,
        all_notes,
        skipped,
        layout,
    } = scratch;
    // Slots for every collider, overwritten (the lengths rarely change, so
    // this rarely writes anything); skipped ones are removed afterwards.
    let total: usize = tables.iter().map(|table| table.entities.len()).sum();
    snapshot.staged.resize(total, StagedCollider::PLACEHOLDER);
    // Chunks of at most COLLIDERS_PER_CHUNK rows of one table, each with its
    // own slots.
    let mut chunks = Vec::new();
    let (mut rest, mut start) = (&mut snapshot.staged[..], 0);
    for (index, table) in tables.iter().enumerate() {
        let rows = table.entities.len();
        for first in (0..rows).step_by(COLLIDERS_PER_CHUNK) {
            let last = (first + COLLIDERS_PER_CHUNK).min(rows);
            let (slots, after) = rest.split_at_mut(last - first);
            chunks.push((index, first..last, start, slots));
            (rest, start) = (after, start + last - first);
        }
    }
    all_notes.clear();
    notes.collect_parts(
        workers,
        chunks,
        |_, (table, rows, start, slots), notes| {
            fill(slots, start, (table, &tables[table]), rows, notes);
        },
        all_notes,
    );
    // Leave out the skipped colliders, warning about the invalid ones.
    skipped.clear();
    snapshot.points.clear();
    let mut invalid_points = Vec::new();
    for note in all_notes.iter() {
        match *note {
            Note::Points {
                position,
                table,
                row,
                entity,
                scale,
            } => {
                let collider = &tables[table as usize].colliders[row as usize];
                let first = snapshot.points.len() as u32;
                match scaled_points_into(collider.shape_ref(), scale, &mut snapshot.points) {
                    Ok(count) => {
                        snapshot.staged[position].collider.shape = SnapshotShape::Points {
                            first,
                            count: count as u32,
                        };
                    }
                    Err(error) => {
                        skipped.push(position);
                        if let Reading::Invalid(error) = unusable(collider, error, scale) {
                            invalid_points.push(entity);
                            if warned.0.insert(entity) {
                                warn!(
                                    "bevy_collide2d: collider on {entity} is skipped until fixed: {error}"
                                );
                            }
                        }
                    }
                }
            }
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
    remove_positions(&mut snapshot.staged, skipped);
    // With any collider swept, every collider's path starts where it was at
    // the previous detection: partners of swept ones move along theirs too.
    let ColliderSnapshot {
        staged,
        staged_starts,
        ..
    } = snapshot;
    staged_starts.clear();
    if let Some((previous_poses, static_swept)) = previous_poses {
        let keep_paths = static_swept
            || tables
                .iter()
                .any(|table| table.swept && !table.entities.is_empty());
        previous_poses.begin_detection(keep_paths);
        if keep_paths {
            staged_starts.extend(staged.iter().map(|staged| {
                let SnapshotCollider { entity, pose, .. } = staged.collider;
                previous_poses.path_start(entity, pose, staged.swept)
            }));
        }
    }
    lay_out(snapshot, grid, workers, layout);
    // Warned colliders that are valid again are warned about again if they
    // break again; those that no longer exist are forgotten.
    let invalid = &mut warned.0;
    if !invalid.is_empty() {
        let skipped_entities: EntityHashSet = all_notes
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

#[cfg(test)]
impl ColliderSnapshot {
    /// A snapshot of `colliders` in that order, none of them swept.
    pub(crate) fn of(colliders: &[SnapshotCollider]) -> Self {
        let mut snapshot = Self {
            staged: (colliders.iter())
                .map(|&collider| StagedCollider {
                    collider,
                    layers: CollisionLayers::ALL,
                    swept: false,
                })
                .collect(),
            ..default()
        };
        let grid = SpatialGrid::default();
        lay_out(
            &mut snapshot,
            &grid,
            &crate::util::parallel::InOrder,
            &mut Vec::new(),
        );
        snapshot
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::parallel::InOrder;

    /// The OR and AND of layers agree exactly when every collider has the
    /// same layers; the OR is what a query can meet.
    #[test]
    fn layer_bits_tell_uniform_layers() {
        let of = |layers: &[CollisionLayers]| {
            (layers.iter()).fold(LayerBits::NONE, |bits, l| bits.union(LayerBits::of(*l)))
        };
        let a = CollisionLayers::new(0b0110, 0b0011);
        let same = of(&[a, a, a]);
        assert_eq!((same.any, same.all), (a, a));
        // Differing in one filter bit, or one membership bit.
        for b in [
            CollisionLayers::new(0b0110, 0b0001),
            CollisionLayers::new(0b0010, 0b0011),
        ] {
            let mixed = of(&[a, b, a]);
            assert_ne!(mixed.any, mixed.all, "{b:?}");
            assert_eq!(mixed.any, a);
        }
        // Halves joined in either order give the same bits.
        let b = CollisionLayers::new(0b1000, 0b0100);
        let (left, right) = (of(&[a, b]), of(&[b, a, a]));
        let joined = left.union(right);
        assert_eq!(
            (joined.any, joined.all),
            (CollisionLayers::new(0b1110, 0b0111), CollisionLayers::NONE)
        );
        let none = of(&[]);
        assert_eq!(
            (none.any, none.all),
            (CollisionLayers::NONE, CollisionLayers::ALL)
        );
    }

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

    fn staged_colliders(count: u32, first_entity: u32) -> Vec<StagedCollider> {
        (0..count)
            .map(|k| {
                let x = ((k * 7919) % count) as f32 * 3.0;
                StagedCollider {
                    collider: SnapshotCollider {
                        entity: Entity::from_raw_u32(first_entity + k).unwrap(),
                        shape: if k % 2 == 0 {
                            SnapshotShape::Circle { radius: 1.0 }
                        } else {
                            SnapshotShape::Rect {
                                half_size: Vec2::new(1.0, 0.5),
                            }
                        },
                        pose: Isometry2d::new(Vec2::new(x, (k % 5) as f32), Rot2::radians(0.3)),
                    },
                    layers: CollisionLayers::new(k, u32::MAX),
                    swept: false,
                }
            })
            .collect()
    }

    /// The first detection keeps query order; the next ones lay the
    /// colliders out in the grid's filing order, each exactly once with its
    /// own data and box; a different count starts again from query order.
    #[test]
    fn colliders_are_laid_out_in_the_last_grid_order() {
        let (mut snapshot, mut grid, mut layout) = (
            ColliderSnapshot::default(),
            SpatialGrid::default(),
            Vec::new(),
        );
        let staged = staged_colliders(500, 1);
        let check = |snapshot: &ColliderSnapshot, expected: &[StagedCollider]| {
            assert_eq!(snapshot.len(), expected.len());
            let bits = expected.iter().map(|s| s.collider.entity.to_bits());
            let (or, and) = bits.fold((0, u64::MAX), |(or, and), b| (or | b, and & b));
            let varying = if expected.is_empty() { 0 } else { or ^ and };
            assert_eq!(snapshot.entity_varying_bits(), varying);
            for (p, want) in expected.iter().enumerate() {
                assert_eq!(snapshot.colliders[p], want.collider);
                assert_eq!(snapshot.layers[p], want.layers);
                assert_eq!(snapshot.swept[p], want.swept);
                assert_eq!(
                    snapshot.aabbs[p],
                    snapshot
                        .shape_of(&want.collider.shape)
                        .aabb(want.collider.pose)
                );
            }
        };
        snapshot.staged = staged.clone();
        lay_out(&mut snapshot, &grid, &InOrder, &mut layout);
        check(&snapshot, &staged);
        for _ in 0..3 {
            grid.overlapping_pairs(&snapshot.aabbs, |_, _| true, &mut Vec::new());
            // Where the grid put each of the last snapshot's colliders.
            let expected: Vec<StagedCollider> = grid
                .filing_order()
                .map(|index| {
                    let entity = snapshot.colliders[index as usize].entity;
                    *staged.iter().find(|s| s.collider.entity == entity).unwrap()
                })
                .collect();
            snapshot.staged = staged.clone();
            lay_out(&mut snapshot, &grid, &InOrder, &mut layout);
            check(&snapshot, &expected);
        }
        assert!(
            (snapshot.colliders.iter().zip(&staged)).any(|(laid, s)| *laid != s.collider),
            "never reordered"
        );
        // Another set of colliders of another count: query order again.
        let other = staged_colliders(499, 1000);
        snapshot.staged = other.clone();
        lay_out(&mut snapshot, &grid, &InOrder, &mut layout);
        check(&snapshot, &other);
        // Nothing at all.
        snapshot.staged.clear();
        lay_out(&mut snapshot, &grid, &InOrder, &mut layout);
        check(&snapshot, &[]);
    }
}
