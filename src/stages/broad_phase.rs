//! Step 2 of detection: candidate pairs, the colliders whose bounding boxes
//! overlap and whose layers interact, from the grid (see [`crate::grid`]).

use bevy::prelude::*;

use super::broad_phase_grid::BroadPhaseGrid;
use super::snapshot::ColliderSnapshot;
use crate::util::parallel::Workers;

/// This detection's candidate pairs: indices into [`ColliderSnapshot`] whose
/// bounding boxes overlap and whose layers interact.
#[derive(Resource, Default, Debug)]
#[doc(hidden)]
pub struct BroadPhasePairs {
    /// Candidate pairs `(i, j)` with `i < j`.
    pub pairs: Vec<(u32, u32)>,
}

/// Finds [`BroadPhasePairs`] for the current [`ColliderSnapshot`].
pub(crate) fn find_candidate_pairs(
    snapshot: Res<ColliderSnapshot>,
    mut grid: ResMut<BroadPhaseGrid>,
    mut candidates: ResMut<BroadPhasePairs>,
    workers: Res<Workers>,
) {
    let grid = &mut grid.grid;
    let layers = &snapshot.layers;
    // Most games never set layers: then every pair interacts, and the filter
    // (two random reads per overlapping box pair) is skipped.
    let all_interact = layers
        .first()
        .is_none_or(|first| first.interacts_with(first) && layers.iter().all(|l| l == first));
    if all_interact {
        grid.overlapping_pairs_in_chunks(
            &snapshot.aabbs,
            |_, _| true,
            &*workers,
            &mut candidates.pairs,
        );
    } else {
        grid.overlapping_pairs_in_chunks(
            &snapshot.aabbs,
            |i, j| layers[i as usize].interacts_with(&layers[j as usize]),
            &*workers,
            &mut candidates.pairs,
        );
    }
}
