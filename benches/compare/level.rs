//! The level of `--scene level`: a square tile map, a seeded random choice
//! of solid cells, centred on the origin; the scene's movers wrap at its
//! edges. Every engine gets the same tiles, one axis-aligned square
//! collider each (static colliders for ours, static or fixed bodies for the
//! peers), or ours one [`TilemapCollider`](bevy_collide2d::TilemapCollider)
//! of the same cells.

use bevy::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::scene::{Arena, BodyShape};

/// A square tile map of `size` cells of side `tile`, whose solid cells are
/// `solid` (each `(col, row)` from the bottom-left, sorted row by row).
#[derive(Clone)]
pub struct Level {
    pub tile: f32,
    pub size: u32,
    pub solid: Vec<UVec2>,
}

impl Level {
    /// `tiles` solid cells out of `size * size`, chosen by `seed` (all
    /// choices equally likely: no structure, so rows merge little).
    pub fn generate(size: u32, tiles: usize, tile: f32, seed: u64) -> Self {
        let cells = size as usize * size as usize;
        assert!(
            tiles <= cells,
            "{tiles} tiles do not fit in {size}x{size} cells"
        );
        // Its own stream, so that the movers are those of the same seed
        // without a level.
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x1e7e_1000);
        let mut chosen = rand::seq::index::sample(&mut rng, cells, tiles).into_vec();
        chosen.sort_unstable();
        let solid = chosen
            .into_iter()
            .map(|i| UVec2::new((i % size as usize) as u32, (i / size as usize) as u32))
            .collect();
        Self { tile, size, solid }
    }

    /// The square the level covers, which the movers wrap in.
    pub fn arena(&self) -> Arena {
        Arena {
            half_side: self.size as f32 * self.tile / 2.0,
        }
    }

    /// Where cell `(0, 0)`'s bottom-left corner is (a
    /// `TilemapCollider`'s entity goes there).
    pub fn origin(&self) -> Vec2 {
        Vec2::splat(-self.arena().half_side)
    }

    /// The centre of every solid tile, in `solid`'s order.
    pub fn centres(&self) -> impl Iterator<Item = Vec2> + '_ {
        let origin = self.origin();
        (self.solid.iter()).map(move |cell| origin + (cell.as_vec2() + 0.5) * self.tile)
    }

    /// One tile's shape.
    pub fn tile_shape(&self) -> BodyShape {
        BodyShape::Rect {
            half_size: Vec2::splat(self.tile / 2.0),
        }
    }

    /// Share of the cells that are solid.
    pub fn fill(&self) -> f64 {
        self.solid.len() as f64 / (self.size as f64 * self.size as f64)
    }
}

/// The baseline's tiles: entities with a `Transform` and nothing else, so
/// that its transform systems walk as many entities as the engines' do.
pub fn spawn_plain_tiles(world: &mut World, level: &Level) -> Vec<Entity> {
    world
        .spawn_batch(
            level
                .centres()
                .map(|centre| Transform::from_translation(centre.extend(0.0))),
        )
        .collect()
}

/// The level's merged rectangles, as ours builds them for a
/// [`TilemapCollider`](bevy_collide2d::TilemapCollider) (rows of solid
/// cells, then equal rows stacked): each centre relative to the map's
/// origin, and its half size. The peers' compound maps get the same.
pub fn merged_rectangles(level: &Level) -> Vec<(Vec2, Vec2)> {
    let map = bevy_collide2d::TilemapCollider::from_cells(
        Vec2::splat(level.tile),
        UVec2::splat(level.size),
        level.solid.iter().copied(),
    );
    let collider = map.collider().expect("a map with solid cells");
    let bevy_collide2d::geometry::Shape::Compound(compound) = collider.shape() else {
        panic!("a tile map built {collider:?}");
    };
    (compound.parts().iter())
        .map(|part| match part.shape {
            bevy_collide2d::geometry::Shape::Rect { half_size } => {
                (part.pose.translation, half_size)
            }
            ref other => panic!("a tile map built {other:?}"),
        })
        .collect()
}

/// The rectangles of a peer's compound map, for the truth: its entity,
/// and each rectangle's shape and world transform.
#[derive(Resource, Clone)]
pub struct PeerMap(pub Vec<(Entity, BodyShape, GlobalTransform)>);

impl PeerMap {
    /// The map `entity` at `origin` made of `rectangles`.
    pub fn new(entity: Entity, origin: Vec2, rectangles: &[(Vec2, Vec2)]) -> Self {
        Self(
            (rectangles.iter())
                .map(|&(centre, half_size)| {
                    let at = Transform::from_translation((origin + centre).extend(0.0));
                    (
                        entity,
                        BodyShape::Rect { half_size },
                        GlobalTransform::from(at),
                    )
                })
                .collect(),
        )
    }
}
