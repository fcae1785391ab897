//! Levels from editors and files: Tiled, LDtk, terrain samples, saved
//! scenes.
//!
//! A level editor's map is data: a grid of tile ids, and objects
//! (rectangles, ellipses, polygons, polylines) with positions. Turn the
//! tile layer into one [`TilemapCollider`] (one entity however many
//! tiles) and each object into a collider; the crate needs nothing from
//! the editor's loader, so it works with any version of it.
//!
//! | Editor data | Collider |
//! |---|---|
//! | a tile layer, tiles with a "kind" property | [`TilemapCollider::from_cells_with_kinds`], one kind per property value, with its layers |
//! | a rectangle object | [`Collider::rect`] at its centre |
//! | an ellipse object | [`Collider::circle`] (or a [`Collider::capsule`] for a long one) |
//! | a polygon object | [`Collider::concave_polygon`], or [`Collider::polygon_with_holes`] |
//! | a polyline object, terrain | [`Collider::polyline`]; evenly spaced heights: [`Collider::heightfield`] |
//!
//! Editors count rows from the top and y downwards; the tile map counts
//! from the bottom-left: flip the row (`height - 1 - row`) and the object
//! y coordinates (`map_height - y`).
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! const HAZARD: u32 = 1 << 1;
//!
//! // What a Tiled or LDtk loader hands over: the map's size in tiles, each
//! // tile's (column, row from the top) and its "kind" property, and objects.
//! let (width, height) = (8u32, 4u32);
//! let tiles = [(0, 3, "ground"), (1, 3, "ground"), (2, 3, "ground"), (5, 2, "spikes")];
//! let ramp = [Vec2::new(96.0, 64.0), Vec2::new(128.0, 32.0), Vec2::new(128.0, 64.0)];
//!
//! let cells = tiles.iter().map(|&(col, row, kind)| {
//!     let symbol = if kind == "spikes" { '^' } else { '#' };
//!     (UVec2::new(col, height - 1 - row), symbol)
//! });
//! let map = TilemapCollider::from_cells_with_kinds(
//!     Vec2::splat(32.0),
//!     UVec2::new(width, height),
//!     cells,
//!     [('^', CollisionLayers::new(HAZARD, u32::MAX))],
//! );
//! assert_eq!(map.error(), None);
//! // Tiled's y runs down: flip it into the map's space.
//! let map_height = height as f32 * 32.0;
//! let ramp: Vec<Vec2> = ramp.iter().map(|p| Vec2::new(p.x, map_height - p.y)).collect();
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()));
//! let level = app.world_mut().spawn(map).id();
//! app.world_mut().spawn((
//!     Collider::concave_polygon(&ramp).unwrap(),
//!     StaticCollider,
//!     ChildOf(level),
//! ));
//! app.update();
//! // The ground ('#', on the map's entity) and the spikes (a child with
//! // the hazard layer).
//! let mut kinds: Vec<char> = app.world_mut().query::<&TilemapKind>().iter(app.world()).map(|k| k.0).collect();
//! kinds.sort();
//! assert_eq!(kinds, ['#', '^']);
//! ```
//!
//! The repository's `tiled_level` example does this with the `tiled`
//! crate and a `.tmx` file. For LDtk (`ldtk_rust`, `bevy_ecs_ldtk`), the
//! same steps read an IntGrid layer (its values as kinds) and the entity
//! layer's fields. `bevy_ecs_tiled` has physics backends for avian2d and
//! rapier through its `TiledPhysicsBackend` trait; once it supports Bevy
//! 0.20, a backend for this crate is the same conversion in its
//! `spawn_colliders`, returning the entities it spawned.
//!
//! A bad map (a tile outside the map, a kind the map was not given) builds
//! no collider and is reported once with a warning; check
//! [`TilemapCollider::error`] to report it in the game's own way.
//!
//! # Saving levels in scenes
//!
//! With the `serialize` feature, colliders of every kind, their layers, the
//! markers and [`TilemapCollider`] save in a Bevy scene
//! (`bevy::world_serialization::DynamicWorld`, saved to RON) and load back
//! as they were: a polygon as its vertices, a compound as its parts, a
//! polyline as its points, a heightfield as its samples, a tile map as its
//! rows of text. Each is checked again when loaded: a file with a
//! degenerate polygon fails to load with the shape's error, never builds a
//! broken collider. Without the feature, the types still reflect, but a
//! polygon, a compound and a tile map reflect as opaque values, which a
//! scene can hold in memory and not write to a file. `tests/behaviour/scenes.rs` in
//! the repository saves and loads one of each.
//!
//! [`TilemapCollider`]: crate::TilemapCollider
//! [`TilemapCollider::from_cells_with_kinds`]: crate::TilemapCollider::from_cells_with_kinds
//! [`TilemapCollider::error`]: crate::TilemapCollider::error
//! [`Collider::rect`]: crate::Collider::rect
//! [`Collider::circle`]: crate::Collider::circle
//! [`Collider::capsule`]: crate::Collider::capsule
//! [`Collider::concave_polygon`]: crate::Collider::concave_polygon
//! [`Collider::polygon_with_holes`]: crate::Collider::polygon_with_holes
//! [`Collider::polyline`]: crate::Collider::polyline
//! [`Collider::heightfield`]: crate::Collider::heightfield
