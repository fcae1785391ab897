//! This detection's colliders, moving and static, as the narrow phase and
//! the spatial queries read them: [`DetectionColliders`], one index space
//! over both, and [`ColliderSource`].

use bevy::ecs::entity::Entity;
use bevy::shape::Aabb2d;

use super::snapshot::{ColliderSnapshot, ShapeTables, SnapshotCollider};
use super::static_colliders::StaticColliders;
use crate::components::CollisionLayers;
use crate::geometry::{Placed, ShapeView, Sweep};

/// This detection's colliders in one index space: the moving ones first,
/// then the static ones. Candidate pairs and queries index it.
#[derive(Clone, Copy)]
pub(crate) struct DetectionColliders<'a> {
    pub(crate) moving: &'a ColliderSnapshot,
    pub(crate) statics: &'a ColliderSnapshot,
}

impl<'a> DetectionColliders<'a> {
    pub(crate) fn new(moving: &'a ColliderSnapshot, statics: &'a StaticColliders) -> Self {
        Self {
            moving,
            statics: &statics.snapshot,
        }
    }

    /// The snapshot holding collider `index`, and its index there.
    #[inline(always)]
    fn locate(&self, index: usize) -> (&'a ColliderSnapshot, usize) {
        match index.checked_sub(self.moving.len()) {
            None => (self.moving, index),
            Some(fixed) => (self.statics, fixed),
        }
    }

    /// Collider `index` and its shape.
    #[inline(always)]
    pub(crate) fn get(&self, index: usize) -> (&'a SnapshotCollider, ShapeView<'a>) {
        let (snapshot, at) = self.locate(index);
        let collider = &snapshot.colliders[at];
        (collider, snapshot.shape_of(&collider.shape))
    }

    /// Collider `index`'s shape where it is, as the queries take it.
    #[inline(always)]
    pub(crate) fn placed(&self, index: usize) -> Placed<'a> {
        let (collider, shape) = self.get(index);
        Placed::read_by_snapshot(shape, collider.pose)
    }

    /// The index of `entity`'s collider, if detection has it (see
    /// [`ColliderSnapshot::index_of`]).
    pub(crate) fn index_of(&self, entity: Entity) -> Option<usize> {
        (self.moving.index_of(entity))
            .or_else(|| Some(self.moving.len() + self.statics.index_of(entity)?))
    }

    /// Collider `index`'s entity.
    #[inline]
    pub(crate) fn entity(&self, index: usize) -> Entity {
        let (snapshot, at) = self.locate(index);
        snapshot.colliders[at].entity
    }

    /// Collider `index`'s bounding box.
    #[inline]
    pub(crate) fn aabb(&self, index: usize) -> &'a Aabb2d {
        let (snapshot, at) = self.locate(index);
        &snapshot.aabbs[at]
    }

    /// Collider `index`'s layers.
    #[inline]
    pub(crate) fn layers(&self, index: usize) -> &'a CollisionLayers {
        let (snapshot, at) = self.locate(index);
        &snapshot.layers[at]
    }

    /// Collider `index`'s motion over the step (static ones stand still).
    #[inline]
    pub(crate) fn sweep(&self, index: usize) -> Sweep {
        let (snapshot, at) = self.locate(index);
        snapshot.sweep(at)
    }

    /// Whether collider `index` is [`Swept`](crate::Swept).
    #[inline]
    pub(crate) fn is_swept(&self, index: usize) -> bool {
        let (snapshot, at) = self.locate(index);
        snapshot.is_swept(at)
    }

    /// Whether any collider is a compound.
    pub(crate) fn has_compounds(&self) -> bool {
        self.moving.tables.has_compounds() || self.statics.tables.has_compounds()
    }

    /// Whether any collider keeps a path.
    pub(crate) fn has_paths(&self) -> bool {
        self.moving.has_paths()
    }

    /// The bits in which the entities of all the colliders differ.
    pub(crate) fn entity_varying_bits(&self) -> u64 {
        // Bits that vary within either set, or between them.
        let any = |s: &ColliderSnapshot| s.colliders.first().map(|c| c.entity.to_bits());
        let between = match (any(self.moving), any(self.statics)) {
            (Some(a), Some(b)) => a ^ b,
            _ => 0,
        };
        self.moving.entity_varying_bits() | self.statics.entity_varying_bits() | between
    }
}

/// Where the narrow phase reads the colliders of candidate pairs: this
/// detection's snapshot alone (no static colliders, the common case, with
/// no lookup on the way), or the moving and static ones together.
pub(crate) trait ColliderSource<'a>: Copy + Send + Sync {
    /// Collider `index`.
    fn collider(self, index: usize) -> &'a SnapshotCollider;
    /// Collider `index` and its shape.
    fn get(self, index: usize) -> (&'a SnapshotCollider, ShapeView<'a>);
    /// Where the points and compounds of collider `index`'s shape are.
    fn tables(self, index: usize) -> &'a ShapeTables;
    /// [`Self::tables`], and collider `index`'s index in its snapshot.
    fn tables_at(self, index: usize) -> (&'a ShapeTables, usize);
    /// Collider `index`'s motion over the step.
    fn sweep(self, index: usize) -> Sweep;
    /// The bits in which the entities of all the colliders differ.
    fn entity_varying_bits(self) -> u64;
    /// Collider `index`'s bounding box.
    fn aabb(self, index: usize) -> &'a Aabb2d;
    /// Whether collider `index` is a static one.
    fn is_static(self, index: usize) -> bool;
}

impl<'a> ColliderSource<'a> for &'a ColliderSnapshot {
    #[inline(always)]
    fn collider(self, index: usize) -> &'a SnapshotCollider {
        &self.colliders[index]
    }

    #[inline(always)]
    fn get(self, index: usize) -> (&'a SnapshotCollider, ShapeView<'a>) {
        let collider = &self.colliders[index];
        (collider, self.shape_of(&collider.shape))
    }

    #[inline(always)]
    fn tables(self, _: usize) -> &'a ShapeTables {
        &self.tables
    }

    #[inline(always)]
    fn tables_at(self, index: usize) -> (&'a ShapeTables, usize) {
        (&self.tables, index)
    }

    #[inline]
    fn sweep(self, index: usize) -> Sweep {
        ColliderSnapshot::sweep(self, index)
    }

    fn entity_varying_bits(self) -> u64 {
        ColliderSnapshot::entity_varying_bits(self)
    }

    #[inline]
    fn aabb(self, index: usize) -> &'a Aabb2d {
        &self.aabbs[index]
    }

    #[inline]
    fn is_static(self, _: usize) -> bool {
        false
    }
}

impl<'a> ColliderSource<'a> for DetectionColliders<'a> {
    #[inline(always)]
    fn collider(self, index: usize) -> &'a SnapshotCollider {
        let (snapshot, at) = self.locate(index);
        &snapshot.colliders[at]
    }

    #[inline(always)]
    fn get(self, index: usize) -> (&'a SnapshotCollider, ShapeView<'a>) {
        DetectionColliders::get(&self, index)
    }

    #[inline(always)]
    fn tables(self, index: usize) -> &'a ShapeTables {
        &self.locate(index).0.tables
    }

    #[inline(always)]
    fn tables_at(self, index: usize) -> (&'a ShapeTables, usize) {
        let (snapshot, at) = self.locate(index);
        (&snapshot.tables, at)
    }

    #[inline]
    fn sweep(self, index: usize) -> Sweep {
        DetectionColliders::sweep(&self, index)
    }

    fn entity_varying_bits(self) -> u64 {
        DetectionColliders::entity_varying_bits(&self)
    }

    #[inline]
    fn aabb(self, index: usize) -> &'a Aabb2d {
        DetectionColliders::aabb(&self, index)
    }

    #[inline]
    fn is_static(self, index: usize) -> bool {
        index >= self.moving.len()
    }
}
