//! Step 2 of detection: candidate pairs, the colliders whose bounding boxes
//! overlap and whose layers interact, from the grid (see [`crate::grid`]).

use bevy::prelude::*;

use super::broad_phase_grid::BroadPhaseGrid;
use super::snapshot::ColliderSnapshot;
use super::static_colliders::StaticColliders;
use crate::util::parallel::{ChunkOutputs, Workers};

/// This detection's candidate pairs: colliders whose bounding boxes overlap
/// and whose layers interact, as indices into the moving colliders'
/// [`ColliderSnapshot`] followed by the static ones (a static collider `k`
/// is index `moving + k`).
#[derive(Resource, Default, Debug)]
#[doc(hidden)]
pub struct BroadPhasePairs {
    /// Candidate pairs `(i, j)` with `i < j`.
    pub pairs: Vec<(u32, u32)>,
}

/// Moving colliders per chunk when pairing them with the static ones.
const MOVING_PER_CHUNK: usize = 512;

/// Finds [`BroadPhasePairs`] for the current [`ColliderSnapshot`] and the
/// static colliders: every moving pair from this detection's grid, and
/// every moving collider against the static ones through theirs. Two
/// static colliders are never a candidate.
pub(crate) fn find_candidate_pairs(
    snapshot: Res<ColliderSnapshot>,
    statics: Res<StaticColliders>,
    mut grid: ResMut<BroadPhaseGrid>,
    mut candidates: ResMut<BroadPhasePairs>,
    workers: Res<Workers>,
    mut static_pairs: Local<ChunkOutputs<(u32, u32)>>,
) {
    let grid = &mut grid.grid;
    let layers = &snapshot.layers;
    let moving = &*snapshot;
    // Most games never set layers nor group colliders into bodies: then
    // every pair interacts, and the filter (two random reads per
    // overlapping box pair) is skipped.
    let all_interact = snapshot.bodies.is_empty()
        && (snapshot.uniform_layers()).map_or(snapshot.len() == 0, |all| all.interacts_with(&all));
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
            |i, j| {
                let (i, j) = (i as usize, j as usize);
                layers[i].interacts_with(&layers[j]) && !moving.same_body(i, moving, j)
            },
            &*workers,
            &mut candidates.pairs,
        );
    }
    if statics.len() == 0 {
        return;
    }
    pair_with_statics(
        &snapshot,
        &statics,
        &workers,
        &mut static_pairs,
        &mut candidates.pairs,
    );
}

/// Appends to `pairs` every moving collider of `snapshot` against the static
/// ones it may touch, found through the static colliders' grid in chunks of
/// moving colliders on `workers`.
fn pair_with_statics(
    snapshot: &ColliderSnapshot,
    statics: &StaticColliders,
    workers: &Workers,
    static_pairs: &mut ChunkOutputs<(u32, u32)>,
    pairs: &mut Vec<(u32, u32)>,
) {
    let layers = &snapshot.layers;
    let moving = snapshot;
    let moving_count = snapshot.len();
    let fixed = &statics.snapshot;
    // As for the moving pairs: with no bodies and the static colliders all
    // on the same layers, a box found is checked against those layers, not
    // against its own (a random read).
    let uniform = (snapshot.bodies.is_empty() && fixed.bodies.is_empty())
        .then(|| fixed.uniform_layers())
        .flatten();
    let queries = &snapshot.aabbs;
    static_pairs.collect_over(
        workers,
        queries,
        MOVING_PER_CHUNK,
        |chunk, aabbs, output| {
            let first = chunk * MOVING_PER_CHUNK;
            let mine = first..first + aabbs.len();
            let mut push = |i: usize, k: u32| {
                output.push((i as u32, (moving_count + k as usize) as u32));
            };
            match uniform {
                Some(fixed_layers) => {
                    (statics.grid).visit_overlapping_each(&fixed.aabbs, queries, mine, |i, k| {
                        if layers[i].interacts_with(&fixed_layers) {
                            push(i, k);
                        }
                    });
                }
                None => {
                    (statics.grid).visit_overlapping_each(&fixed.aabbs, queries, mine, |i, k| {
                        if layers[i].interacts_with(&fixed.layers[k as usize])
                            && !moving.same_body(i, fixed, k as usize)
                        {
                            push(i, k);
                        }
                    });
                }
            }
        },
        pairs,
    );
}
