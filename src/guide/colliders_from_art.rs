//! Colliders from the art: a sprite's image, a 2D mesh (features `image`
//! and `mesh`).
//!
//! | Source | Now, as data | Once loaded, as a component |
//! |---|---|---|
//! | a sprite's image | [`Collider::from_image_alpha`] | [`ColliderFromImage`] next to the `Sprite` |
//! | a `Mesh2d`'s mesh | [`Collider::from_mesh`] | [`ColliderFromMesh`] next to the `Mesh2d` |
//!
//! An image's collider is the outline of its opaque pixels (alpha above
//! [`ImageOutline::alpha_threshold`]), simplified within
//! [`ImageOutline::tolerance`] pixels, holes kept, each island cut into
//! convex pieces, all of them one compound on the entity. The component
//! waits for the image to load, follows the sprite's `custom_size`, flip
//! and `Anchor`, and builds again when they change. An image without an
//! alpha channel, kept only on the GPU, or in a format the CPU cannot read
//! is a warning once and no collider. Outlining costs milliseconds for a
//! large image: it runs once per sprite look, not per frame, and sprites
//! sharing an image each build their own (spawn one and clone its
//! `Collider` for a crowd).
//!
//! A mesh's collider is its triangles merged into convex parts, so
//! Bevy's shape meshes (`Rectangle`, `RegularPolygon`) are one part and a
//! concave mesh a few.
//!
//! ```
//! use bevy::asset::RenderAssetUsages;
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin))
//!     .add_plugins(CollisionPlugin::default())
//!     .init_asset::<Image>()
//!     .init_asset::<Mesh>();
//! // A 2 x 1 image, one opaque pixel (in a game: `assets.load("rock.png")`).
//! let mut image = Image::default();
//! image.resize(bevy::render::render_resource::Extent3d { width: 2, height: 1, depth_or_array_layers: 1 });
//! image.set_color_at(0, 0, Color::WHITE).unwrap();
//! image.set_color_at(1, 0, Color::NONE).unwrap();
//! let image = app.world_mut().resource_mut::<Assets<Image>>().add(image);
//! let mesh = app.world_mut().resource_mut::<Assets<Mesh>>().add(Rectangle::new(30.0, 10.0));
//! let rock = app.world_mut().spawn((
//!     Sprite { image, custom_size: Some(Vec2::new(40.0, 20.0)), ..default() },
//!     ColliderFromImage::default(),
//!     Transform::from_xyz(100.0, 0.0, 0.0),
//! )).id();
//! let plank = app.world_mut().spawn((
//!     Mesh2d(mesh),
//!     ColliderFromMesh::default(),
//!     Transform::from_xyz(-100.0, 0.0, 0.0),
//! )).id();
//! app.update();
//! assert!(app.world().get::<Collider>(rock).is_some());
//! assert!(app.world().get::<Collider>(plank).is_some());
//! ```
//!
//! [`Collider::from_image_alpha`]: crate::Collider::from_image_alpha
//! [`Collider::from_mesh`]: crate::Collider::from_mesh
//! [`ColliderFromImage`]: crate::ColliderFromImage
//! [`ColliderFromMesh`]: crate::ColliderFromMesh
//! [`ImageOutline::alpha_threshold`]: crate::ImageOutline::alpha_threshold
//! [`ImageOutline::tolerance`]: crate::ImageOutline::tolerance
