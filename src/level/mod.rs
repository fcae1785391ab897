//! Level helpers: [`TilemapCollider`] turns a tile map into one static
//! compound collider of a few rectangles.

mod tiles;

use bevy::math::{URect, UVec2, Vec2};
use bevy::prelude::*;

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;

use crate::components::{Collider, StaticCollider};
use tiles::SolidCells;
pub use tiles::TilemapError;

/// The solid tiles of a tile map as one static collider on this entity: a
/// [compound](Collider::compound) of one rectangle per run of solid tiles,
/// runs merged first along rows and then stacked where rows repeat them, so
/// that a flat floor is one part and nothing catches on seams between
/// tiles. The map is one entity however many tiles it has, so Bevy's own
/// per-entity work does not grow with the level.
///
/// Tile `(col, row)`, counted from the bottom-left, has its centre at
/// `((col + 0.5) * tile_size.x, (row + 0.5) * tile_size.y)` in this entity's
/// space: move, rotate or scale the entity to place the map. The entity
/// gets [`Collider`], [`StaticCollider`] and [`TilemapTile`]; its own
/// [`CollisionLayers`](crate::CollisionLayers) apply. Changing the component rebuilds the collider;
/// removing it removes them. Which rectangle a contact is on is
/// [`Collisions::parts`](crate::Collisions::parts), and its tiles are
/// [`TilemapCollider::part_cells`].
///
/// Bad input builds no collider and is reported once with a warning: a tile
/// size that is zero, negative, NaN or infinite; rows of different lengths;
/// a solid cell outside the map. An empty map builds none either.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_collide2d::prelude::*;
/// # fn spawn(mut commands: Commands) {
/// commands.spawn((
///     TilemapCollider::from_ascii(
///         Vec2::splat(16.0),
///         "
/// #..........#
/// #....###...#
/// ############
/// ",
///     ),
///     Transform::from_xyz(-96.0, -24.0, 0.0),
/// ));
/// # }
/// ```
///
/// With a tile map crate, build it from that crate's data: the map size in
/// tiles and the positions of the solid tiles, counted from the bottom-left
/// (flip the row if the crate counts from the top), with
/// [`TilemapCollider::from_cells`].
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(opaque)]
#[reflect(Component, Debug, PartialEq, Clone)]
#[require(Transform)]
#[component(on_remove = remove_map_collider)]
pub struct TilemapCollider {
    tile_size: Vec2,
    cells: Result<SolidCells, TilemapError>,
}

/// Marks the colliders a [`TilemapCollider`] built (on its own entity), so
/// that a game can tell a hit on the level from one on anything else.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq, Clone)]
pub struct TilemapTile;

impl TilemapCollider {
    /// A map drawn in text: `'#'` is solid, any other character (`.`, a
    /// space, anything) is empty; the first line is the top row. Blank lines
    /// before the first row and after the last are ignored, so a raw string
    /// can start on its own line.
    pub fn from_ascii(tile_size: Vec2, rows: &str) -> Self {
        Self {
            tile_size,
            cells: SolidCells::from_ascii(rows),
        }
    }

    /// A map of `size` tiles whose solid tiles are `solid`, each `(col,
    /// row)` from the bottom-left: for maps that come from a file, an editor
    /// or a tile map crate.
    pub fn from_cells(
        tile_size: Vec2,
        size: UVec2,
        solid: impl IntoIterator<Item = UVec2>,
    ) -> Self {
        Self {
            tile_size,
            cells: SolidCells::from_cells(size, solid),
        }
    }

    /// The size of one tile, in this entity's units.
    pub fn tile_size(&self) -> Vec2 {
        self.tile_size
    }

    /// The map's size in tiles (zero if the data was bad).
    pub fn size(&self) -> UVec2 {
        self.cells.as_ref().map_or(UVec2::ZERO, SolidCells::size)
    }

    /// Whether tile `cell` (from the bottom-left) is solid.
    pub fn is_solid(&self, cell: UVec2) -> bool {
        self.cells.as_ref().is_ok_and(|cells| cells.is_solid(cell))
    }

    /// Why the map cannot be built, if it cannot: a bad tile size or bad
    /// data.
    pub fn error(&self) -> Option<TilemapError> {
        let size = self.tile_size;
        if !(size.is_finite() && size.cmpgt(Vec2::ZERO).all()) {
            return Some(TilemapError::InvalidTileSize(size));
        }
        self.cells.as_ref().err().copied()
    }

    /// The rectangles the map is built from, in tiles (`max` exclusive):
    /// part `i` of its collider is `rects()[i]`. Empty when [`Self::error`]
    /// says why.
    pub fn rects(&self) -> Vec<URect> {
        match (&self.cells, self.error()) {
            (Ok(cells), None) => cells.merged_rects(),
            _ => Vec::new(),
        }
    }

    /// The tiles of part `part` of the map's collider (`max` exclusive), as
    /// [`Collisions::parts`](crate::Collisions::parts) names it; `None` for
    /// no such part.
    pub fn part_cells(&self, part: u32) -> Option<URect> {
        self.rects().get(part as usize).copied()
    }

    /// The tile holding `point`, given in this entity's space (before its
    /// transform), if it is on the map.
    pub fn cell_at(&self, point: Vec2) -> Option<UVec2> {
        let cell = (point / self.tile_size).floor();
        let size = self.size().as_vec2();
        (cell.cmpge(Vec2::ZERO).all() && cell.cmplt(size).all()).then(|| cell.as_uvec2())
    }

    /// The map's collider: a compound of its rectangles, `None` for a bad or
    /// empty map.
    pub fn collider(&self) -> Option<Collider> {
        let tile = self.tile_size;
        let rects = self.rects();
        (!rects.is_empty()).then(|| {
            Collider::compound(rects.into_iter().map(|rect| {
                let (min, max) = (rect.min.as_vec2() * tile, rect.max.as_vec2() * tile);
                let size = max - min;
                (
                    Isometry2d::from_translation((min + max) * 0.5),
                    Collider::rect(size.x, size.y),
                )
            }))
        })
    }
}

/// Whether a [`TilemapCollider`] was added or changed since the last frame:
/// the condition of [`build_tilemap_colliders`].
pub(crate) fn any_tilemap_changed(maps: Query<(), Changed<TilemapCollider>>) -> bool {
    !maps.is_empty()
}

/// Gives new or changed [`TilemapCollider`]s their collider, or takes it
/// away from a bad or empty map.
pub(crate) fn build_tilemap_colliders(
    mut commands: Commands,
    maps: Query<(Entity, &TilemapCollider), Changed<TilemapCollider>>,
) {
    for (map, tilemap) in &maps {
        if let Some(error) = tilemap.error() {
            warn!("bevy_collide2d: TilemapCollider on {map} builds no collider: {error}");
        }
        match tilemap.collider() {
            Some(collider) => {
                commands
                    .entity(map)
                    .insert((collider, StaticCollider, TilemapTile));
            }
            None => {
                commands.entity(map).remove::<MapCollider>();
            }
        }
    }
}

/// What a [`TilemapCollider`] puts on its entity.
type MapCollider = (Collider, StaticCollider, TilemapTile);

/// Takes the collider away with the map (not when the entity is despawned).
fn remove_map_collider(mut world: DeferredWorld, context: HookContext) {
    if let Ok(mut entity) = world.commands().get_entity(context.entity) {
        entity.try_remove::<MapCollider>();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_tile_sizes_are_errors() {
        for size in [Vec2::ZERO, Vec2::new(-1.0, 1.0), Vec2::new(f32::NAN, 1.0)] {
            let map = TilemapCollider::from_ascii(size, "##");
            // NaN is not equal to itself: match the variant.
            assert!(matches!(
                map.error(),
                Some(TilemapError::InvalidTileSize(_))
            ));
            assert!(map.rects().is_empty());
        }
        let ragged = TilemapCollider::from_ascii(Vec2::ONE, "##\n#");
        assert!(matches!(
            ragged.error(),
            Some(TilemapError::RaggedRow { .. })
        ));
        assert_eq!(ragged.size(), UVec2::ZERO);
    }

    #[test]
    fn from_code_matches_from_ascii() {
        let ascii = TilemapCollider::from_ascii(Vec2::ONE, "#..\n###");
        let code = TilemapCollider::from_cells(
            Vec2::ONE,
            UVec2::new(3, 2),
            [
                UVec2::new(0, 0),
                UVec2::new(1, 0),
                UVec2::new(2, 0),
                UVec2::new(0, 1),
            ],
        );
        assert_eq!(ascii, code);
        assert!(code.is_solid(UVec2::new(0, 1)) && !code.is_solid(UVec2::new(1, 1)));
    }
}
