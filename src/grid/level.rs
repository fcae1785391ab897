//! One level of the grid: the boxes that fit its cells, sorted by cell, and
//! the lookups the scans and walks share.

use bevy::math::{I64Vec2, IVec2, Vec2};
use bevy::shape::Aabb2d;

use super::cells::{FiledBox, Keying, aabbs_overlap, cell_at, key_of};

/// One level of the grid: the boxes that fit its cells, sorted by cell.
#[derive(Default, Debug)]
pub(super) struct Level {
    /// The boxes given to this level (indices into the caller's slice).
    pub(super) input: Vec<u32>,
    /// Those too large for this level's cells: the next level's input.
    pub(super) oversized: Vec<u32>,
    pub(super) cell_size: f32,
    /// `1 / cell_size`, so that finding a cell takes no division.
    pub(super) inverse_cell_size: f32,
    /// `(cell key << 32) | box index` of each input box, in input order
    /// (`NOT_FILED` for those that do not fit the cells).
    pub(super) keys: Vec<u64>,
    /// Where the next box of each key goes, while sorting.
    pub(super) cursors: Vec<u32>,
    /// The filed boxes in cell order: box index, cell and bounds.
    pub(super) sorted_index: Vec<u32>,
    pub(super) sorted_cell: Vec<IVec2>,
    pub(super) sorted_box: Vec<FiledBox>,
    /// Where each key's run starts in the sorted arrays (one more than keys).
    pub(super) key_starts: Vec<u32>,
    pub(super) keying: Keying,
    /// Whether this level tested its input directly instead of filing it.
    pub(super) brute_forced: bool,
    /// The smallest box holding every filed box (the world extent of this
    /// level, which clamped cells cannot tell); `None` until built.
    pub(super) bounds: Option<Aabb2d>,
    /// The lowest filed cell and the number of filed cells along x and y.
    pub(super) origin: IVec2,
    pub(super) span: I64Vec2,
    /// Scratch for choosing the cell size.
    pub(super) sizes: Vec<f32>,
    /// Scratch for filing: the min cell of each input box
    /// (`OVERSIZED` if it does not fit), written
    /// by chunks in place.
    pub(super) input_cells: Vec<IVec2>,
}

impl Level {
    pub(super) fn to_cell(&self, p: Vec2) -> IVec2 {
        cell_at(p, self.inverse_cell_size)
    }

    pub(super) fn brute_force(&self, aabbs: &[Aabb2d], report: &mut impl FnMut(u32, u32)) {
        for (k, &i) in self.input.iter().enumerate() {
            for &j in &self.input[k + 1..] {
                if aabbs_overlap(&aabbs[i as usize], &aabbs[j as usize]) {
                    report(i, j);
                }
            }
        }
    }

    /// The sorted positions of the boxes in `cell`'s key run (which may hold
    /// other cells too when hashed).
    #[inline]
    pub(super) fn run(&self, cell: IVec2) -> std::ops::Range<usize> {
        match key_of(self.keying, cell, self.origin, self.span) {
            Some(key) => {
                self.key_starts[key as usize] as usize..self.key_starts[key as usize + 1] as usize
            }
            None => 0..0,
        }
    }

    /// Whether sorted box `b`, found in `cell`'s key run, is in `cell`.
    #[inline]
    pub(super) fn holds(&self, b: usize, cell: IVec2) -> bool {
        match self.keying {
            Keying::Dense => true,
            Keying::Hashed { .. } => self.sorted_cell[b] == cell,
        }
    }
}
