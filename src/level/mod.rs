//! Level helpers: [`TilemapCollider`] turns a tile map into one static
//! compound collider of a few rectangles.

#[cfg(feature = "serialize")]
mod saved;
mod tiles;

use bevy::math::{URect, UVec2, Vec2};
use bevy::prelude::*;

use bevy::ecs::change_detection::Tick;
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;

use crate::components::{Collider, CollisionLayers, StaticCollider};
use tiles::SolidCells;
pub use tiles::{MAX_TILE_KINDS, TilemapError};

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
/// [`CollisionLayers`] apply. Changing the component rebuilds the collider;
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
/// // (Rows on one line here only because rustdoc reads a doc line that
/// // starts with "##" as an escape; in a game, a raw multi-line string.)
/// let map = TilemapCollider::from_ascii(
///     Vec2::splat(16.0),
///     "#..........#\n#....###...#\n############",
/// );
/// assert_eq!((map.error(), map.size()), (None, UVec2::new(12, 3)));
/// commands.spawn((map, Transform::from_xyz(-96.0, -24.0, 0.0)));
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
#[cfg_attr(feature = "serialize", reflect(Serialize, Deserialize))]
#[cfg_attr(
    feature = "serialize",
    derive(serde::Serialize, serde::Deserialize),
    serde(from = "saved::SavedTilemap", into = "saved::SavedTilemap")
)]
#[require(Transform)]
#[component(on_remove = remove_map_collider)]
pub struct TilemapCollider {
    tile_size: Vec2,
    cells: Result<SolidCells, TilemapError>,
    /// The kinds of solid tile beyond `'#'`, with their layers: kind `k + 1`
    /// of the cells.
    kinds: Vec<(char, CollisionLayers)>,
    /// Each kind's merged rectangles, worked out once (a contact's part is
    /// looked up in them); empty for a bad map.
    merged: Vec<Vec<URect>>,
}

/// Marks the colliders a [`TilemapCollider`] built (on its own entity, and
/// on a child per kind of tile beyond `'#'`), so that a game can tell a hit
/// on the level from one on anything else.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq, Clone)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", reflect(Serialize, Deserialize))]
pub struct TilemapTile;

/// The kind of tile a [`TilemapCollider`]'s collider is made of: the
/// character that draws it in the map (`'#'` for the map's own collider).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Reflect)]
#[reflect(Component, Debug, PartialEq, Clone)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", reflect(Serialize, Deserialize))]
pub struct TilemapKind(pub char);

impl TilemapCollider {
    /// A map drawn in text: `'#'` is solid, any other character (`.`, a
    /// space, anything) is empty; the first line is the top row. Blank lines
    /// before the first row and after the last are ignored, so a raw string
    /// can start on its own line.
    pub fn from_ascii(tile_size: Vec2, rows: &str) -> Self {
        Self::from_ascii_with_kinds(tile_size, rows, [])
    }

    /// A map drawn in text with several kinds of solid tile: `'#'`, as in
    /// [`Self::from_ascii`], and each `(symbol, layers)` of `kinds` (ground,
    /// spikes on a hazard layer, ledges). Each kind is merged on its own
    /// into one compound collider: `'#'` on this entity, every other kind on
    /// a child entity with its layers, [`TilemapTile`] and
    /// [`TilemapKind`], so a game tells a spike from the floor by the entity
    /// it touched.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// const HAZARD: u32 = 0b10;
    /// let map = TilemapCollider::from_ascii_with_kinds(
    ///     Vec2::splat(16.0),
    ///     "#......#\n#..^^..#\n########",
    ///     [('^', CollisionLayers::new(HAZARD, u32::MAX))],
    /// );
    /// assert_eq!(map.kind_at(UVec2::new(3, 1)), Some('^'));
    /// assert_eq!(map.kind_at(UVec2::new(0, 0)), Some('#'));
    /// assert_eq!(map.kind_rects('^'), vec![URect::new(3, 1, 5, 2)]);
    /// ```
    pub fn from_ascii_with_kinds(
        tile_size: Vec2,
        rows: &str,
        kinds: impl IntoIterator<Item = (char, CollisionLayers)>,
    ) -> Self {
        let kinds: Vec<(char, CollisionLayers)> = kinds.into_iter().collect();
        let symbols = kind_symbols(&kinds);
        Self::new(tile_size, SolidCells::from_ascii(rows, &symbols), kinds)
    }

    /// A map of `size` tiles whose solid tiles are `solid`, each `(col,
    /// row)` from the bottom-left: for maps that come from a file, an editor
    /// or a tile map crate.
    pub fn from_cells(
        tile_size: Vec2,
        size: UVec2,
        solid: impl IntoIterator<Item = UVec2>,
    ) -> Self {
        let cells = solid.into_iter().map(|cell| (cell, '#'));
        Self::new(
            tile_size,
            SolidCells::from_cells(size, cells, &['#']),
            Vec::new(),
        )
    }

    /// A map of `size` tiles with several kinds of solid tile, each cell
    /// `(col, row)` from the bottom-left given with its kind's symbol:
    /// `'#'`, or one of `kinds` with its layers, as in
    /// [`Self::from_ascii_with_kinds`] (for maps from an editor whose tiles
    /// say what they are: ground, spikes, ledges). A symbol that is neither
    /// is [`TilemapError::UnknownKind`].
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// const HAZARD: u32 = 0b10;
    /// let map = TilemapCollider::from_cells_with_kinds(
    ///     Vec2::splat(16.0),
    ///     UVec2::new(4, 2),
    ///     [(UVec2::new(0, 0), '#'), (UVec2::new(1, 0), '#'), (UVec2::new(2, 1), '^')],
    ///     [('^', CollisionLayers::new(HAZARD, u32::MAX))],
    /// );
    /// assert_eq!(map.error(), None);
    /// assert_eq!(map.rects(), vec![URect::new(0, 0, 2, 1)]);
    /// assert_eq!(map.kind_at(UVec2::new(2, 1)), Some('^'));
    /// ```
    pub fn from_cells_with_kinds(
        tile_size: Vec2,
        size: UVec2,
        cells: impl IntoIterator<Item = (UVec2, char)>,
        kinds: impl IntoIterator<Item = (char, CollisionLayers)>,
    ) -> Self {
        let kinds: Vec<(char, CollisionLayers)> = kinds.into_iter().collect();
        let symbols = kind_symbols(&kinds);
        Self::new(
            tile_size,
            SolidCells::from_cells(size, cells, &symbols),
            kinds,
        )
    }

    /// The map of these cells and kinds, its rectangles merged.
    fn new(
        tile_size: Vec2,
        cells: Result<SolidCells, TilemapError>,
        kinds: Vec<(char, CollisionLayers)>,
    ) -> Self {
        let mut map = Self {
            tile_size,
            cells,
            kinds,
            merged: Vec::new(),
        };
        if let (Ok(cells), None) = (&map.cells, map.error()) {
            map.merged = (0..=map.kinds.len())
                .map(|kind| cells.merged_rects_of(kind))
                .collect();
        }
        map
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

    /// The kind of the solid tile `cell` (from the bottom-left): the
    /// character that draws it, `'#'` for maps built from cells.
    pub fn kind_at(&self, cell: UVec2) -> Option<char> {
        let kind = self.cells.as_ref().ok()?.kind(cell)?;
        Some(self.symbol(kind))
    }

    /// The character of kind `kind`.
    fn symbol(&self, kind: usize) -> char {
        kind.checked_sub(1).map_or('#', |k| self.kinds[k].0)
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
        self.kind_rects('#')
    }

    /// The rectangles of the tiles of kind `symbol`, in tiles (`max`
    /// exclusive): part `i` of that kind's collider is `kind_rects(symbol)[i]`
    /// ([`Self::rects`] for `'#'`). Empty for a kind the map does not have.
    pub fn kind_rects(&self, symbol: char) -> Vec<URect> {
        let kind = match symbol {
            '#' => Some(0),
            _ => (self.kinds.iter())
                .position(|k| k.0 == symbol)
                .map(|k| k + 1),
        };
        kind.and_then(|kind| self.merged.get(kind))
            .cloned()
            .unwrap_or_default()
    }

    /// The tiles of part `part` of the map's collider (`max` exclusive), as
    /// [`Collisions::parts`](crate::Collisions::parts) names it; `None` for
    /// no such part.
    pub fn part_cells(&self, part: u32) -> Option<URect> {
        self.merged.first()?.get(part as usize).copied()
    }

    /// The tile holding `point`, given in this entity's space (before its
    /// transform), if it is on the map.
    pub fn cell_at(&self, point: Vec2) -> Option<UVec2> {
        let cell = (point / self.tile_size).floor();
        let size = self.size().as_vec2();
        (cell.cmpge(Vec2::ZERO).all() && cell.cmplt(size).all()).then(|| cell.as_uvec2())
    }

    /// The map's collider: a compound of its `'#'` rectangles, `None` for a
    /// bad map or one without them.
    pub fn collider(&self) -> Option<Collider> {
        self.kind_collider('#')
    }

    /// The collider of the tiles of kind `symbol`: a compound of their
    /// rectangles, `None` for a bad map or one without them.
    pub fn kind_collider(&self, symbol: char) -> Option<Collider> {
        let tile = self.tile_size;
        let rects = self.kind_rects(symbol);
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

/// The symbols of a map's kinds, by kind index: `'#'`, then `kinds`'.
fn kind_symbols(kinds: &[(char, CollisionLayers)]) -> Vec<char> {
    std::iter::once('#')
        .chain(kinds.iter().map(|k| k.0))
        .collect()
}

/// Whether a [`TilemapCollider`] was added or changed since the last frame:
/// the condition of [`build_tilemap_colliders`].
pub(crate) fn any_tilemap_changed(maps: Query<(), Changed<TilemapCollider>>) -> bool {
    !maps.is_empty()
}

/// The change of a [`TilemapCollider`] its colliders were last built for,
/// so that the build at startup and the one in `PostUpdate` do not both
/// build the same map (a second build would replace its kind children, and
/// with them end and restart their contacts).
#[derive(Component, Clone, Copy, Debug)]
pub(crate) struct TilemapBuilt(Tick);

/// What [`build_tilemap_colliders`] reads of a changed map.
type ChangedMap = (
    Entity,
    Ref<'static, TilemapCollider>,
    Option<&'static TilemapBuilt>,
    Option<&'static Children>,
);

/// Gives new or changed [`TilemapCollider`]s their colliders (the `'#'`
/// one on the map, one child per other kind), or takes them away from a bad
/// or empty map.
pub(crate) fn build_tilemap_colliders(
    mut commands: Commands,
    maps: Query<ChangedMap, Changed<TilemapCollider>>,
    kind_children: Query<(), (With<TilemapTile>, With<TilemapKind>)>,
) {
    for (map, tilemap, built, children) in &maps {
        let change = tilemap.last_changed();
        if built.is_some_and(|built| built.0 == change) {
            continue;
        }
        commands.entity(map).insert(TilemapBuilt(change));
        if let Some(error) = tilemap.error() {
            warn!("bevy_collide2d: TilemapCollider on {map} builds no collider: {error}");
        }
        for &child in children.into_iter().flatten() {
            if kind_children.contains(child) {
                commands.entity(child).despawn();
            }
        }
        match tilemap.collider() {
            Some(collider) => {
                commands.entity(map).insert((
                    collider,
                    StaticCollider,
                    TilemapTile,
                    TilemapKind('#'),
                ));
            }
            None => {
                commands.entity(map).remove::<MapCollider>();
            }
        }
        for &(symbol, layers) in &tilemap.kinds {
            if let Some(collider) = tilemap.kind_collider(symbol) {
                commands.spawn((
                    collider,
                    StaticCollider,
                    TilemapTile,
                    TilemapKind(symbol),
                    layers,
                    Transform::default(),
                    ChildOf(map),
                ));
            }
        }
    }
}

/// What a [`TilemapCollider`] puts on its entity.
type MapCollider = (Collider, StaticCollider, TilemapTile, TilemapKind);

/// Takes the colliders away with the map (the map's own, and its children
/// of other kinds); nothing to do when the entity is despawned.
fn remove_map_collider(mut world: DeferredWorld, context: HookContext) {
    let kinds: Vec<Entity> = (world.get::<Children>(context.entity).into_iter().flatten())
        .copied()
        .filter(|&child| world.get::<TilemapKind>(child).is_some())
        .collect();
    let mut commands = world.commands();
    if let Ok(mut entity) = commands.get_entity(context.entity) {
        entity.try_remove::<(MapCollider, TilemapBuilt)>();
    }
    for child in kinds {
        if let Ok(mut child) = commands.get_entity(child) {
            child.try_despawn();
        }
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
