//! How a [`TilemapCollider`] is saved (the `serialize` feature): its rows
//! as text, top first, as [`TilemapCollider::from_ascii_with_kinds`] reads
//! them, so a saved level can be read and edited by hand.

use bevy::math::{UVec2, Vec2};

use super::tiles::SolidCells;
use super::{TilemapCollider, TilemapError, kind_symbols};
use crate::components::CollisionLayers;

#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct SavedTilemap {
    tile_size: Vec2,
    /// The rows, top first: `'#'` or a kind's symbol for a solid tile,
    /// any other character for an empty one.
    rows: Vec<String>,
    kinds: Vec<(char, CollisionLayers)>,
    /// Why the map's data was bad, for a map saved with bad data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<TilemapError>,
}

impl From<TilemapCollider> for SavedTilemap {
    fn from(map: TilemapCollider) -> Self {
        let symbols = kind_symbols(&map.kinds);
        // Not whitespace: a blank row at the top or bottom would be dropped.
        let empty = ('.'..='~')
            .chain('!'..'.')
            .find(|c| !symbols.contains(c))
            .unwrap_or('.');
        let size = map.size();
        let rows = (0..size.y)
            .rev()
            .map(|row| {
                (0..size.x)
                    .map(|col| map.kind_at(UVec2::new(col, row)).unwrap_or(empty))
                    .collect()
            })
            .collect();
        Self {
            tile_size: map.tile_size,
            rows,
            error: map.cells.as_ref().err().copied(),
            kinds: map.kinds,
        }
    }
}

impl From<SavedTilemap> for TilemapCollider {
    fn from(saved: SavedTilemap) -> Self {
        let cells = match saved.error {
            Some(error) => Err(error),
            None => SolidCells::from_ascii(&saved.rows.join("\n"), &kind_symbols(&saved.kinds)),
        };
        Self::new(saved.tile_size, cells, saved.kinds)
    }
}
