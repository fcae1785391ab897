//! Colliders from a game's assets: a sprite's image (feature `image`) and
//! a 2D mesh (feature `mesh`), built from the asset as plain data, and by a
//! component once the asset has loaded.

mod contour;
#[cfg(feature = "image")]
mod image;
#[cfg(feature = "mesh")]
mod mesh;

use bevy::platform::collections::HashSet;
use bevy::prelude::*;

#[cfg(feature = "image")]
pub use image::{ColliderFromImage, ImageColliderError, ImageOutline};
#[cfg(feature = "mesh")]
pub use mesh::{ColliderFromMesh, MeshColliderError};

/// Adds the systems that build colliders from loaded assets, in
/// `PostUpdate` before transform propagation (a collider built there is in
/// that frame's detection).
pub(crate) fn add_asset_collider_systems(app: &mut App) {
    #[cfg(feature = "image")]
    app.register_type::<ColliderFromImage>().add_systems(
        PostUpdate,
        image::build_colliders_from_images.before(bevy::transform::TransformSystems::Propagate),
    );
    #[cfg(feature = "mesh")]
    app.register_type::<ColliderFromMesh>().add_systems(
        PostUpdate,
        mesh::build_colliders_from_meshes.before(bevy::transform::TransformSystems::Propagate),
    );
}

/// The entities already warned about, so that a bad asset is reported
/// once, not every frame.
#[derive(Default)]
struct WarnedAssets(HashSet<Entity>);

impl WarnedAssets {
    fn warn(&mut self, entity: Entity, message: impl FnOnce() -> String) {
        if self.0.insert(entity) {
            warn!("{}", message());
        }
    }
}
