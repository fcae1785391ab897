//! The game scene's level: a 256 x 256 tile map of platforms (tiles of
//! side 8), a solid floor across it a quarter of the way up, spikes (the
//! second kind of tile) on some platforms, and bands of polyline hills
//! below the floor. Seeded.

use bevy::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::hills::Hills;
use crate::level::Level;
use crate::scene::{Arena, BodyShape};

/// Tiles along each side.
pub const SIZE: u32 = 256;
/// A tile's side.
pub const TILE: f32 = 8.0;
/// The solid row across the map; the hills are below it.
pub const FLOOR_ROW: u32 = 64;
/// Rows between two layers of platforms: 48 units, more than a
/// character (10 tall) jumps (33), so that it hits its head on the layer
/// above when it jumps under it.
const LAYER_ROWS: u32 = 6;
/// Single blocks scattered in the air.
const BLOCKS: usize = 1_500;
/// Bands of hills below the floor (`hills::SPACING` apart).
const HILL_BANDS: usize = 5;

/// An empty cell, a solid one, a spike.
const EMPTY: u8 = 0;
const SOLID: u8 = 1;
const SPIKE: u8 = 2;

pub struct GameMap {
    /// The solid tiles (`'#'`).
    pub ground: Level,
    /// The spikes (`'^'`), on a layer of their own: they hurt characters
    /// and block nothing.
    pub spikes: Level,
    pub hills: Hills,
}

impl GameMap {
    pub fn generate(seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6a3e_3a90);
        let size = SIZE as usize;
        let mut cells = vec![EMPTY; size * size];
        let at = |col: u32, row: u32| row as usize * size + col as usize;
        for col in 0..SIZE {
            cells[at(col, FLOOR_ROW)] = SOLID;
        }
        // Spikes along the floor too.
        let spikes_on = |cells: &mut [u8], rng: &mut ChaCha8Rng, row: u32, from: u32, to: u32| {
            let col = rng.random_range(from..to);
            for col in col..(col + rng.random_range(1..=3)).min(to) {
                if cells[at(col, row)] == EMPTY && cells[at(col, row - 1)] == SOLID {
                    cells[at(col, row)] = SPIKE;
                }
            }
        };
        for _ in 0..24 {
            spikes_on(&mut cells, &mut rng, FLOOR_ROW + 1, 0, SIZE);
        }
        // Layers of platforms, 4 to 28 tiles long with gaps of 2 to 10,
        // some two tiles thick, with pillars of 1 to 3 tiles and spikes
        // on top.
        for row in (FLOOR_ROW + LAYER_ROWS..SIZE - 4).step_by(LAYER_ROWS as usize) {
            let mut col = rng.random_range(0..8);
            while col < SIZE {
                let end = (col + rng.random_range(4..=28)).min(SIZE);
                let thick = rng.random_bool(0.3);
                for c in col..end {
                    cells[at(c, row)] = SOLID;
                    if thick {
                        cells[at(c, row - 1)] = SOLID;
                    }
                }
                if rng.random_bool(0.4) {
                    let left = rng.random_range(col..end);
                    let right = (left + rng.random_range(1..=2)).min(end);
                    for c in left..right {
                        for r in row + 1..=row + rng.random_range(1..=3) {
                            cells[at(c, r)] = SOLID;
                        }
                    }
                }
                if rng.random_bool(0.4) {
                    spikes_on(&mut cells, &mut rng, row + 1, col, end);
                }
                col = end + rng.random_range(2..=10);
            }
        }
        for _ in 0..BLOCKS {
            let (col, row) = (
                rng.random_range(0..SIZE),
                rng.random_range(FLOOR_ROW + 2..SIZE),
            );
            if cells[at(col, row)] == EMPTY {
                cells[at(col, row)] = SOLID;
            }
        }
        let of_kind = |kind: u8| Level {
            tile: TILE,
            size: SIZE,
            solid: (0..SIZE)
                .flat_map(|row| (0..SIZE).map(move |col| UVec2::new(col, row)))
                .filter(|cell| cells[at(cell.x, cell.y)] == kind)
                .collect(),
        };
        let (ground, spikes) = (of_kind(SOLID), of_kind(SPIKE));
        let hills = Hills::generate_bands(ground.arena().half_side, HILL_BANDS, seed);
        Self {
            ground,
            spikes,
            hills,
        }
    }

    /// The square of the map, which enemies and bullets wrap in.
    pub fn arena(&self) -> Arena {
        self.ground.arena()
    }

    /// The map drawn as `TilemapCollider::from_ascii_with_kinds` reads it:
    /// `'#'` solid, `'^'` a spike, `'.'` empty, the top row first.
    pub fn ascii(&self) -> String {
        let size = SIZE as usize;
        let mut rows = vec![vec![b'.'; size]; size];
        for (level, symbol) in [(&self.ground, b'#'), (&self.spikes, b'^')] {
            for cell in &level.solid {
                rows[size - 1 - cell.y as usize][cell.x as usize] = symbol;
            }
        }
        let rows: Vec<String> = rows
            .into_iter()
            .map(|row| String::from_utf8(row).expect("ASCII"))
            .collect();
        rows.join("\n")
    }

    /// Each hill line's segments, each placed at its middle (the truth
    /// files bodies by their boxes about their origins).
    pub fn hill_segments(
        &self,
        line: usize,
    ) -> impl Iterator<Item = (BodyShape, GlobalTransform)> + '_ {
        (self.hills.lines[line].windows(2)).map(|pair| {
            let middle = (pair[0] + pair[1]) / 2.0;
            let segment = BodyShape::Segment {
                a: pair[0] - middle,
                b: pair[1] - middle,
            };
            let at = GlobalTransform::from_translation(middle.extend(0.0));
            (segment, at)
        })
    }
}
