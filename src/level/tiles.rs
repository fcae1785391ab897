//! Tile maps as plain data: which cells are solid, read from ASCII or given
//! by code, and merged into as few rectangles as rows allow.

use bevy::math::{URect, UVec2, Vec2};
use core::fmt;

/// Which cells of a `size.x` by `size.y` map are solid, and of which kind;
/// cell `(col, row)` counts from the bottom-left.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SolidCells {
    size: UVec2,
    /// Row by row from the bottom, `size.x` per row: 0 for an empty cell,
    /// else its kind plus one.
    kinds: Vec<u8>,
}

/// Why tile map data cannot be used as given.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum TilemapError {
    /// A row of the ASCII map is longer or shorter than the first one (its
    /// line, counted from 1 at the top, and its length in characters).
    RaggedRow {
        /// The line, from 1 at the top.
        line: usize,
        /// Its length in characters.
        len: usize,
        /// The first line's length.
        expected: usize,
    },
    /// A solid cell given by code lies outside the map.
    CellOutside(UVec2),
    /// A solid cell given by code is of a kind the map was not given
    /// ([`TilemapCollider::from_cells_with_kinds`](super::TilemapCollider::from_cells_with_kinds)).
    UnknownKind {
        /// The cell, from the bottom-left.
        cell: UVec2,
        /// Its kind's symbol.
        symbol: char,
    },
    /// A tile size with a component that is zero, negative, NaN or
    /// infinite.
    InvalidTileSize(Vec2),
    /// More kinds of tile than a map holds ([`MAX_TILE_KINDS`], `'#'`
    /// included); the count given.
    TooManyKinds(usize),
}

/// The most kinds of solid tile a map holds, `'#'` included.
pub const MAX_TILE_KINDS: usize = u8::MAX as usize;

impl fmt::Display for TilemapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::RaggedRow {
                line,
                len,
                expected,
            } => write!(
                f,
                "row {line} of the map has {len} tiles where the first has {expected}"
            ),
            Self::CellOutside(cell) => write!(f, "solid tile {cell} is outside the map"),
            Self::UnknownKind { cell, symbol } => write!(
                f,
                "solid tile {cell} is of kind {symbol:?}, which is not one of the map's kinds"
            ),
            Self::TooManyKinds(count) => write!(
                f,
                "the map has {count} kinds of tile, at most {MAX_TILE_KINDS} fit"
            ),
            Self::InvalidTileSize(size) => {
                write!(
                    f,
                    "tile size must be finite and > 0 on both axes, got {size}"
                )
            }
        }
    }
}

impl std::error::Error for TilemapError {}

/// A cell keeps its kind plus one in a byte.
fn check_kinds(symbols: &[char]) -> Result<(), TilemapError> {
    if symbols.len() > MAX_TILE_KINDS {
        return Err(TilemapError::TooManyKinds(symbols.len()));
    }
    Ok(())
}

impl SolidCells {
    /// A character of `symbols` is a solid cell of that kind (its index),
    /// any other character empty; the first line is the top row. Blank
    /// lines before the first row and after the last are dropped; every
    /// other character is a tile, spaces included.
    pub(crate) fn from_ascii(rows: &str, symbols: &[char]) -> Result<Self, TilemapError> {
        check_kinds(symbols)?;
        let lines: Vec<&str> = rows.lines().collect();
        let blank = |line: &&str| line.trim().is_empty();
        let first = lines.iter().position(|line| !blank(line));
        let last = lines.iter().rposition(|line| !blank(line));
        let (Some(first), Some(last)) = (first, last) else {
            return Ok(Self::default());
        };
        let lines = &lines[first..=last];
        let width = lines[0].chars().count();
        for (k, line) in lines.iter().enumerate() {
            let len = line.chars().count();
            if len != width {
                return Err(TilemapError::RaggedRow {
                    line: first + k + 1,
                    len,
                    expected: width,
                });
            }
        }
        let kind = |c: char| {
            symbols
                .iter()
                .position(|&s| s == c)
                .map_or(0, |k| k as u8 + 1)
        };
        let kinds = lines
            .iter()
            .rev()
            .flat_map(|line| line.chars().map(kind))
            .collect();
        Ok(Self {
            size: UVec2::new(width as u32, lines.len() as u32),
            kinds,
        })
    }

    /// A `size` map whose solid cells are `cells`, each with its kind's
    /// symbol, one of `symbols`.
    pub(crate) fn from_cells(
        size: UVec2,
        cells: impl IntoIterator<Item = (UVec2, char)>,
        symbols: &[char],
    ) -> Result<Self, TilemapError> {
        check_kinds(symbols)?;
        let mut kinds = vec![0; size.x as usize * size.y as usize];
        for (cell, symbol) in cells {
            if cell.x >= size.x || cell.y >= size.y {
                return Err(TilemapError::CellOutside(cell));
            }
            let Some(kind) = symbols.iter().position(|&s| s == symbol) else {
                return Err(TilemapError::UnknownKind { cell, symbol });
            };
            kinds[cell.y as usize * size.x as usize + cell.x as usize] = kind as u8 + 1;
        }
        Ok(Self { size, kinds })
    }

    pub(crate) fn size(&self) -> UVec2 {
        self.size
    }

    pub(crate) fn is_solid(&self, cell: UVec2) -> bool {
        self.kind(cell).is_some()
    }

    /// The kind of the solid tile `cell` (an index into the map's symbols).
    pub(crate) fn kind(&self, cell: UVec2) -> Option<usize> {
        let inside = cell.x < self.size.x && cell.y < self.size.y;
        let at = cell.y as usize * self.size.x as usize + cell.x as usize;
        let kind = if inside { self.kinds[at] } else { 0 };
        (kind > 0).then(|| kind as usize - 1)
    }

    /// The solid cells of the first kind as rectangles ([`Self::merged_rects_of`]).
    #[cfg(test)]
    pub(crate) fn merged_rects(&self) -> Vec<URect> {
        self.merged_rects_of(0)
    }

    /// The cells of kind `kind` as rectangles of cells (`max` exclusive):
    /// each row's runs of them, and runs spanning the same columns in
    /// consecutive rows stacked into one. A flat floor is one rectangle, so
    /// nothing rolling along it meets a seam.
    pub(crate) fn merged_rects_of(&self, kind: usize) -> Vec<URect> {
        let mut done = Vec::new();
        // Rectangles still growing upwards, by their columns.
        let mut open: Vec<URect> = Vec::new();
        for row in 0..self.size.y {
            let runs = self.runs(row, kind);
            let mut still_open = Vec::with_capacity(runs.len());
            for (x0, x1) in runs {
                match open.iter().position(|r| r.min.x == x0 && r.max.x == x1) {
                    Some(at) => {
                        let mut rect = open.swap_remove(at);
                        rect.max.y = row + 1;
                        still_open.push(rect);
                    }
                    None => still_open.push(URect::new(x0, row, x1, row + 1)),
                }
            }
            done.append(&mut open);
            open = still_open;
        }
        done.append(&mut open);
        done.sort_by_key(|r| (r.min.y, r.min.x));
        done
    }

    /// The runs of cells of `kind` in `row`, as `(first column, last + 1)`.
    fn runs(&self, row: u32, kind: usize) -> Vec<(u32, u32)> {
        let mut runs = Vec::new();
        let mut start = None;
        for col in 0..=self.size.x {
            let solid = col < self.size.x && self.kind(UVec2::new(col, row)) == Some(kind);
            match (solid, start) {
                (true, None) => start = Some(col),
                (false, Some(s)) => {
                    runs.push((s, col));
                    start = None;
                }
                _ => {}
            }
        }
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_many_kinds_is_an_error_not_an_overflow() {
        let symbols: Vec<char> = (0..=MAX_TILE_KINDS as u32)
            .map(|k| char::from_u32(0x100 + k).unwrap())
            .collect();
        let last = *symbols.last().unwrap();
        let count = symbols.len();
        assert_eq!(
            SolidCells::from_ascii(&last.to_string(), &symbols),
            Err(TilemapError::TooManyKinds(count))
        );
        let cells = [(UVec2::ZERO, last)];
        assert_eq!(
            SolidCells::from_cells(UVec2::ONE, cells, &symbols),
            Err(TilemapError::TooManyKinds(count))
        );
        let fits = &symbols[..MAX_TILE_KINDS];
        let map = SolidCells::from_ascii(&fits[MAX_TILE_KINDS - 1].to_string(), fits).unwrap();
        assert!(map.is_solid(UVec2::ZERO));
    }

    #[test]
    fn a_floor_is_one_rectangle_and_walls_stack() {
        let map = SolidCells::from_ascii(
            "
#....#
#....#
######
",
            &['#'],
        )
        .unwrap();
        assert_eq!(map.size(), UVec2::new(6, 3));
        assert_eq!(
            map.merged_rects(),
            vec![
                URect::new(0, 0, 6, 1),
                URect::new(0, 1, 1, 3),
                URect::new(5, 1, 6, 3)
            ]
        );
    }

    #[test]
    fn identical_runs_stack_and_others_do_not() {
        let map = SolidCells::from_ascii("##..\n##..\n###.\n", &['#']).unwrap();
        // Bottom row: 3 wide; the two rows above: 2 wide, stacked.
        assert_eq!(
            map.merged_rects(),
            vec![URect::new(0, 0, 3, 1), URect::new(0, 1, 2, 3)]
        );
    }

    #[test]
    fn every_solid_cell_is_covered_exactly_once() {
        let ascii = "#.##.#\n.####.\n##..##\n#.#.#.\n";
        let map = SolidCells::from_ascii(ascii, &['#']).unwrap();
        let mut covered = [0; 24];
        for rect in map.merged_rects() {
            for y in rect.min.y..rect.max.y {
                for x in rect.min.x..rect.max.x {
                    assert!(map.is_solid(UVec2::new(x, y)));
                    covered[(y * 6 + x) as usize] += 1;
                }
            }
        }
        for y in 0..4 {
            for x in 0..6 {
                let expected = u32::from(map.is_solid(UVec2::new(x, y)));
                assert_eq!(covered[(y * 6 + x) as usize], expected, "({x}, {y})");
            }
        }
    }

    /// Kinds merge among themselves only: a spike row in a floor splits it.
    #[test]
    fn kinds_merge_apart() {
        let map = SolidCells::from_ascii("..^^..\n######", &['#', '^']).unwrap();
        assert_eq!(map.kind(UVec2::new(2, 1)), Some(1));
        assert_eq!(map.kind(UVec2::new(0, 0)), Some(0));
        assert_eq!(map.kind(UVec2::new(0, 1)), None);
        assert_eq!(map.merged_rects_of(0), vec![URect::new(0, 0, 6, 1)]);
        assert_eq!(map.merged_rects_of(1), vec![URect::new(2, 1, 4, 2)]);
        let mixed = SolidCells::from_ascii("#^^#", &['#', '^']).unwrap();
        assert_eq!(
            mixed.merged_rects_of(0),
            vec![URect::new(0, 0, 1, 1), URect::new(3, 0, 4, 1)]
        );
    }

    #[test]
    fn bad_and_odd_maps() {
        assert_eq!(
            SolidCells::from_ascii("", &['#']).unwrap().merged_rects(),
            vec![]
        );
        assert_eq!(
            SolidCells::from_ascii("\n  \n", &['#']).unwrap().size(),
            UVec2::ZERO
        );
        assert_eq!(
            SolidCells::from_ascii("###\n##\n###", &['#']),
            Err(TilemapError::RaggedRow {
                line: 2,
                len: 2,
                expected: 3
            })
        );
        // Unknown characters and spaces are empty tiles.
        let map = SolidCells::from_ascii("\n#x?#  \n####  \n   ", &['#']).unwrap();
        assert_eq!(map.size(), UVec2::new(6, 2));
        assert!(!map.is_solid(UVec2::new(1, 1)));
        assert!(map.is_solid(UVec2::new(3, 1)));
        assert_eq!(
            SolidCells::from_cells(UVec2::new(2, 2), [(UVec2::new(2, 0), '#')], &['#']),
            Err(TilemapError::CellOutside(UVec2::new(2, 0)))
        );
        assert_eq!(
            SolidCells::from_cells(UVec2::new(2, 2), [(UVec2::new(1, 0), '^')], &['#']),
            Err(TilemapError::UnknownKind {
                cell: UVec2::new(1, 0),
                symbol: '^'
            })
        );
    }
}
