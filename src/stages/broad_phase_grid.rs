//! The grid kept between detections: built by the broad phase, read by the
//! next snapshot (to lay colliders out in filing order) and by spatial
//! queries.

use bevy::prelude::*;

use crate::grid::SpatialGrid;

/// The grid the broad phase built over the last snapshot's boxes. It is
/// rebuilt in [`CollisionSystems::BroadPhase`](crate::CollisionSystems), so
/// between `Prepare` and `BroadPhase` it still describes the previous
/// snapshot.
#[derive(Resource, Default, Debug)]
pub struct BroadPhaseGrid {
    pub(crate) grid: SpatialGrid,
}
