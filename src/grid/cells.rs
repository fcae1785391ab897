//! Cell arithmetic and the box tests of the grid: which cell a point is in,
//! how a cell becomes a sort key, and one-compare overlap tests.

use bevy::math::{I64Vec2, IVec2, Vec2, Vec4, Vec4Swizzles};
use bevy::shape::Aabb2d;

/// Cell coordinates are clamped to this range so that far-away or huge
/// bounds cannot overflow; clamping only merges distant cells, which costs
/// speed, never correctness.
pub(super) const CELL_COORD_LIMIT: i32 = 1 << 24;

/// How a cell becomes a sort key.
#[derive(Clone, Copy, Debug, Default)]
pub(super) enum Keying {
    /// Row-major index into the cells spanned by the boxes: neighbours have
    /// nearby keys and no two cells share one.
    #[default]
    Dense,
    /// A hash into `mask + 1` keys, for sparse worlds whose cells would be
    /// too many to index; cells sharing a key are told apart by coordinates.
    Hashed { mask: u32 },
}

/// The cell holding `p` in cells of `1 / inverse_cell_size`, clamped.
#[inline]
pub(super) fn cell_at(p: Vec2, inverse_cell_size: f32) -> IVec2 {
    let c = p * inverse_cell_size;
    IVec2::new(floor_clamped(c.x), floor_clamped(c.y))
}

/// `p` in cell units, at most the highest cell coordinate: its cell is the
/// floor of this (for `p` at least the lowest).
#[inline]
pub(super) fn scaled_to_cells(p: Vec2, inverse_cell_size: f32) -> Vec2 {
    (p * inverse_cell_size).min(Vec2::splat(CELL_COORD_LIMIT as f32))
}

/// `x.floor() as i32`, clamped to about `-CELL_COORD_LIMIT..=CELL_COORD_LIMIT`
/// (0 for NaN), without a libm call: `as` saturates, and clamping the integer
/// is cheaper than clamping the float.
#[inline]
pub(super) fn floor_clamped(x: f32) -> i32 {
    let truncated = (x as i32).clamp(-CELL_COORD_LIMIT, CELL_COORD_LIMIT);
    truncated - i32::from(x < truncated as f32)
}

/// The sort key of `cell`, or `None` when a dense grid has no such cell.
///
/// Dense keys are row-major over the filed cells framed by empty ones: a
/// row below, a row above and a column to the right, so that the pair scan
/// can look at the neighbours of any filed cell without bounds checks.
#[inline]
pub(super) fn key_of(keying: Keying, cell: IVec2, origin: IVec2, span: I64Vec2) -> Option<u32> {
    match keying {
        Keying::Dense => {
            let offset = (cell - origin).as_i64vec2();
            (offset.cmpge(I64Vec2::ZERO).all() && offset.cmplt(span).all())
                .then(|| ((offset.y + 1) * dense_row_length(span) + offset.x) as u32)
        }
        Keying::Hashed { mask } => Some(cell_hash(cell) & mask),
    }
}

/// Keys per row of a dense grid spanning `span` cells: one more than its
/// width, for the empty column on the right.
#[inline]
pub(super) fn dense_row_length(span: I64Vec2) -> i64 {
    span.x + 1
}

/// Keys of a dense grid spanning `span` cells, with the empty frame.
pub(super) fn dense_key_count(span: I64Vec2) -> i64 {
    dense_row_length(span) * (span.y + 2)
}

#[inline]
pub(super) fn cell_hash(cell: IVec2) -> u32 {
    // Two large odd multipliers mix x and y, and the shifts fold the high
    // bits into the low ones that the mask keeps.
    let h = (cell.x as u32).wrapping_mul(0x9E37_79B1) ^ (cell.y as u32).wrapping_mul(0x85EB_CA77);
    let h = (h ^ (h >> 16)).wrapping_mul(0x2C1B_3C6D);
    h ^ (h >> 15)
}

/// A filed box as the pair scan compares it: `(min.x, min.y, -max.x,
/// -max.y)`, so that a test is one vector compare with nothing to rearrange.
#[derive(Clone, Copy, Debug)]
pub(super) struct FiledBox(pub(super) Vec4);

impl FiledBox {
    #[inline]
    pub(super) fn new(aabb: &Aabb2d) -> Self {
        Self(Vec4::new(aabb.min.x, aabb.min.y, -aabb.max.x, -aabb.max.y))
    }

    #[inline]
    pub(super) fn min(&self) -> Vec2 {
        self.0.xy()
    }

    #[inline]
    pub(super) fn max(&self) -> Vec2 {
        -self.0.zw()
    }
}

/// One box, set up to be tested against many filed boxes with one vector
/// compare each: `(max.x, max.y, -min.x, -min.y)`.
pub(super) struct OverlapTest(Vec4);

impl OverlapTest {
    /// The test of a filed box against others.
    #[inline]
    pub(super) fn new(filed: &FiledBox) -> Self {
        Self(-filed.0.zwxy())
    }

    #[inline]
    pub(super) fn of_aabb(aabb: &Aabb2d) -> Self {
        Self(Vec4::new(aabb.max.x, aabb.max.y, -aabb.min.x, -aabb.min.y))
    }

    /// [`aabbs_overlap`]: `other.min <= max` and `min <= other.max`, the
    /// latter as `-other.max <= -min`.
    #[inline]
    pub(super) fn overlaps(&self, other: &FiledBox) -> bool {
        other.0.cmple(self.0).all()
    }
}

/// Inclusive overlap: touching boxes overlap, as touching shapes collide.
#[inline]
pub(super) fn aabbs_overlap(a: &Aabb2d, b: &Aabb2d) -> bool {
    // `&`, not `&&`: four compares are cheaper than up to four branches.
    (a.min.x <= b.max.x) & (b.min.x <= a.max.x) & (a.min.y <= b.max.y) & (b.min.y <= a.max.y)
}
