//! Colliders from a sprite's image: the outline of its opaque pixels.

use core::fmt;

use bevy::image::{Image, TextureAccessError};
use bevy::prelude::*;
use bevy::sprite::Anchor;

use super::WarnedAssets;
use super::contour::{Island, islands, outlines, simplified};
use crate::components::Collider;
use crate::geometry::ShapeError;

/// How [`Collider::from_image_alpha`] reads an image.
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Debug, Default, PartialEq, Clone)]
pub struct ImageOutline {
    /// A pixel whose alpha is above this is solid (default 0.5).
    pub alpha_threshold: f32,
    /// How far, in pixels, the simplified outline may stray from the
    /// pixels' outline (default 1): larger gives fewer vertices and parts.
    pub tolerance: f32,
}

impl Default for ImageOutline {
    fn default() -> Self {
        Self {
            alpha_threshold: 0.5,
            tolerance: 1.0,
        }
    }
}

/// Why an image gives no collider.
#[derive(Clone, Debug, PartialEq)]
pub enum ImageColliderError {
    /// The image's pixels are not kept on the CPU (its asset usage is
    /// render-world only), or it has none.
    NoPixelData,
    /// The image's format (named here) has no alpha channel.
    NoAlphaChannel(String),
    /// The image's pixels cannot be read in its format (named here):
    /// compressed, packed or signed formats.
    UnreadableFormat(String),
    /// No pixel is opaque enough.
    NoSolidPixels,
    /// The outline gives no valid shape (after simplification even at a
    /// tolerance of zero).
    Shape(ShapeError),
}

impl fmt::Display for ImageColliderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoPixelData => write!(
                f,
                "the image has no pixels on the CPU (load it with RenderAssetUsages::MAIN_WORLD)"
            ),
            Self::NoAlphaChannel(format) => {
                write!(f, "the image's format {format} has no alpha channel")
            }
            Self::UnreadableFormat(format) => {
                write!(f, "the image's format {format} cannot be read on the CPU")
            }
            Self::NoSolidPixels => write!(f, "no pixel of the image is opaque enough"),
            Self::Shape(error) => write!(f, "the image's outline is not a valid shape: {error}"),
        }
    }
}

impl std::error::Error for ImageColliderError {}

impl Collider {
    /// The opaque pixels of `image` as a collider: their outlines (marching
    /// squares on the alpha channel, within half a pixel of the pixels'
    /// edges), simplified within `options.tolerance` pixels, holes kept,
    /// each island cut into convex pieces, all of them one compound. One
    /// unit per pixel, centred on the image's centre, y up: where a sprite
    /// of the image's size with the default anchor draws it. For a sprite,
    /// [`ColliderFromImage`] builds it once the image has loaded, at the
    /// sprite's size.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy::asset::RenderAssetUsages;
    /// # use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
    /// # use bevy_collide2d::prelude::*;
    /// // A 16 x 16 image, clear but for an opaque disc of radius 6.
    /// let size = Extent3d { width: 16, height: 16, depth_or_array_layers: 1 };
    /// let mut image = Image::new_fill(
    ///     size,
    ///     TextureDimension::D2,
    ///     &[0, 0, 0, 0],
    ///     TextureFormat::Rgba8UnormSrgb,
    ///     RenderAssetUsages::MAIN_WORLD,
    /// );
    /// for y in 0..16 {
    ///     for x in 0..16 {
    ///         let centre = Vec2::new(x as f32 + 0.5, y as f32 + 0.5) - Vec2::splat(8.0);
    ///         if centre.length() < 6.0 {
    ///             image.set_color_at(x, y, Color::WHITE).unwrap();
    ///         }
    ///     }
    /// }
    /// let rock = Collider::from_image_alpha(&image, &ImageOutline::default()).unwrap();
    /// let probe = Collider::circle(0.1);
    /// assert!(probe.intersects(Isometry2d::from_xy(4.0, 0.0), &rock, Isometry2d::IDENTITY));
    /// assert!(!probe.intersects(Isometry2d::from_xy(7.5, 0.0), &rock, Isometry2d::IDENTITY));
    /// ```
    pub fn from_image_alpha(
        image: &Image,
        options: &ImageOutline,
    ) -> Result<Collider, ImageColliderError> {
        let centre = image.size().as_vec2() * 0.5;
        image_islands(image, options)?.build(options.tolerance, |p| p - centre)
    }
}

/// The islands of an image's opaque pixels, in pixels with y up.
struct ImageIslands(Vec<Island>);

fn image_islands(
    image: &Image,
    options: &ImageOutline,
) -> Result<ImageIslands, ImageColliderError> {
    let format = image.texture_descriptor.format;
    if image.data.is_none() {
        return Err(ImageColliderError::NoPixelData);
    }
    if format.components() < 4 {
        return Err(ImageColliderError::NoAlphaChannel(format!("{format:?}")));
    }
    let (width, height) = (image.width(), image.height());
    let mut alpha = Vec::with_capacity(width as usize * height as usize);
    for y in 0..height {
        for x in 0..width {
            match image.get_color_at(x, y) {
                Ok(color) => alpha.push(color.alpha() > options.alpha_threshold),
                Err(TextureAccessError::UnsupportedTextureFormat(_)) => {
                    return Err(ImageColliderError::UnreadableFormat(format!("{format:?}")));
                }
                Err(_) => return Err(ImageColliderError::NoPixelData),
            }
        }
    }
    // Image rows run down; the outline's y runs up.
    let solid = |x: u32, y: u32| alpha[((height - 1 - y) * width + x) as usize];
    let found = islands(outlines(width, height, solid));
    if found.is_empty() {
        return Err(ImageColliderError::NoSolidPixels);
    }
    Ok(ImageIslands(found))
}

impl ImageIslands {
    /// The islands, simplified within `tolerance` and placed by `place`,
    /// as one collider. An island whose simplified outline crosses itself
    /// or its holes is simplified again at half the tolerance, down to none
    /// (marching squares' own outlines never cross).
    fn build(
        &self,
        tolerance: f32,
        place: impl Fn(Vec2) -> Vec2,
    ) -> Result<Collider, ImageColliderError> {
        let mut pieces = Vec::new();
        for island in &self.0 {
            let mut tolerance = tolerance.max(0.0);
            loop {
                let ring = |ring: &[Vec2]| -> Vec<Vec2> {
                    simplified(ring, tolerance)
                        .into_iter()
                        .map(&place)
                        .collect()
                };
                let holes: Vec<Vec<Vec2>> = island.holes.iter().map(|hole| ring(hole)).collect();
                match crate::geometry::convex_pieces_with_holes(
                    &ring(&island.outline),
                    &holes.iter().map(Vec::as_slice).collect::<Vec<_>>(),
                ) {
                    Ok(island_pieces) => {
                        pieces.extend(island_pieces);
                        break;
                    }
                    Err(_) if tolerance > 0.0 => {
                        tolerance = if tolerance < 0.05 {
                            0.0
                        } else {
                            tolerance * 0.5
                        };
                    }
                    Err(error) => return Err(ImageColliderError::Shape(error)),
                }
            }
        }
        Collider::from_convex_pieces(pieces).map_err(ImageColliderError::Shape)
    }
}

/// Builds this entity's [`Collider`] from its [`Sprite`]'s image once the
/// image has loaded ([`Collider::from_image_alpha`]), at the sprite's size
/// (its `custom_size`, else the image's), flipped as the sprite is and
/// placed by its [`Anchor`]; again whenever the sprite's image, size, flip
/// or anchor change. The whole image is outlined: a sprite that draws a
/// part of it (`rect`, a texture atlas) needs a collider built from that
/// part. An image that gives no collider is reported once with a warning,
/// and the entity gets none.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_collide2d::prelude::*;
/// # fn spawn(mut commands: Commands, assets: Res<AssetServer>) {
/// commands.spawn((
///     Sprite::from_image(assets.load("asteroid.png")),
///     ColliderFromImage::default(),
///     Transform::from_xyz(100.0, 50.0, 0.0),
/// ));
/// # }
/// ```
#[derive(Component, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq, Clone)]
pub struct ColliderFromImage {
    /// How the image is read.
    pub outline: ImageOutline,
    /// What the collider was last built from.
    #[reflect(ignore)]
    built_for: Option<SpriteLook>,
}

impl ColliderFromImage {
    /// Reads the image with these options.
    pub fn new(outline: ImageOutline) -> Self {
        Self {
            outline,
            built_for: None,
        }
    }
}

/// What of a sprite its collider depends on.
#[derive(Clone, Debug, PartialEq)]
struct SpriteLook {
    image: AssetId<Image>,
    size: Vec2,
    flip: BVec2,
    anchor: Vec2,
    outline: ImageOutline,
}

/// Builds the colliders of [`ColliderFromImage`] sprites whose image has
/// loaded or whose look changed.
pub(crate) fn build_colliders_from_images(
    mut sprites: Query<(Entity, &mut ColliderFromImage, &Sprite, Option<&Anchor>)>,
    // Absent without `AssetPlugin` (a headless app): nothing to build from.
    images: Option<Res<Assets<Image>>>,
    mut warned: Local<WarnedAssets>,
    mut commands: Commands,
) {
    let Some(images) = images else {
        return;
    };
    for (entity, mut from_image, sprite, anchor) in &mut sprites {
        let Some(image) = images.get(&sprite.image) else {
            continue;
        };
        let image_size = image.size().as_vec2();
        let size = sprite.custom_size.unwrap_or(image_size);
        let look = SpriteLook {
            image: sprite.image.id(),
            size,
            flip: BVec2::new(sprite.flip_x, sprite.flip_y),
            anchor: anchor.map_or(Vec2::ZERO, |a| a.0),
            outline: from_image.outline,
        };
        if from_image.built_for.as_ref() == Some(&look) {
            continue;
        }
        let flip = Vec2::select(look.flip, Vec2::NEG_ONE, Vec2::ONE);
        // Pixels to the sprite's space: normalised, flipped, moved by the
        // anchor, stretched to the sprite's size.
        let place = |p: Vec2| ((p / image_size - 0.5) * flip - look.anchor) * size;
        let built = image_islands(image, &look.outline)
            .and_then(|found| found.build(look.outline.tolerance, place));
        from_image.built_for = Some(look);
        match built {
            Ok(collider) => {
                commands.entity(entity).insert(collider);
            }
            Err(error) => warned.warn(entity, || format!("ColliderFromImage on {entity}: {error}")),
        }
    }
}
