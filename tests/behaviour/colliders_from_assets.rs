//! Colliders built from a sprite's image and from a 2D mesh once the asset
//! has loaded, checked against the alpha mask and the mesh's triangles by
//! sampling; bad assets give a warning and no collider, never a panic.

use bevy::asset::RenderAssetUsages;
use bevy::image::TextureFormatPixelInfo;
use bevy::mesh::{Indices, PrimitiveTopology, VertexAttributeValues};
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use bevy::sprite::Anchor;
use bevy_collide2d::prelude::*;

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        TransformPlugin,
        CollisionPlugin::default(),
    ))
    .init_asset::<Image>()
    .init_asset::<Mesh>();
    app
}

const W: u32 = 40;
const H: u32 = 30;

/// A ring (with a hole), a separate blob and a one-pixel speck.
fn solid_pixel(x: u32, y: u32) -> bool {
    let p = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
    let ring = p.distance(Vec2::new(13.0, 15.0));
    let blob = p.distance(Vec2::new(32.0, 9.0));
    (5.0..11.0).contains(&ring) || blob < 5.0 || (x, y) == (34, 25)
}

fn image(format: TextureFormat) -> Image {
    let size = Extent3d {
        width: W,
        height: H,
        depth_or_array_layers: 1,
    };
    let pixel = vec![0; format.pixel_size().unwrap()];
    let mut image = Image::new_fill(
        size,
        TextureDimension::D2,
        &pixel,
        format,
        RenderAssetUsages::MAIN_WORLD,
    );
    for y in 0..H {
        for x in 0..W {
            if solid_pixel(x, y) {
                image.set_color_at(x, y, Color::WHITE).unwrap();
            }
        }
    }
    image
}

/// Whether every pixel within `reach` pixels of pixel (x, y) is `solid`.
fn all_around(x: u32, y: u32, reach: i32, solid: bool) -> bool {
    (-reach..=reach).all(|dy| {
        (-reach..=reach).all(|dx| {
            let (px, py) = (x as i32 + dx, y as i32 + dy);
            let inside = px >= 0 && py >= 0 && (px as u32) < W && (py as u32) < H;
            (inside && solid_pixel(px as u32, py as u32)) == solid
        })
    })
}

#[test]
fn a_sprite_collides_where_its_image_is_opaque_at_its_size_flip_and_anchor() {
    let mut app = app();
    // Not loaded yet: the handle exists before its image does.
    let handle = app.world().resource::<Assets<Image>>().reserve_handle();
    let size = Vec2::new(80.0, 45.0);
    let anchor = Vec2::new(-0.5, 0.25);
    let place = Transform::from_xyz(100.0, -20.0, 0.0).with_rotation(Quat::from_rotation_z(0.3));
    let sprite = Sprite {
        image: handle.clone(),
        custom_size: Some(size),
        flip_x: true,
        ..default()
    };
    let entity = app
        .world_mut()
        .spawn((sprite, Anchor(anchor), ColliderFromImage::default(), place))
        .id();
    app.update();
    assert!(app.world().get::<Collider>(entity).is_none());
    app.world_mut()
        .resource_mut::<Assets<Image>>()
        .insert(&handle, image(TextureFormat::Rgba8UnormSrgb))
        .unwrap();
    app.update();
    let collider = app
        .world()
        .get::<Collider>(entity)
        .expect("built once loaded")
        .clone();
    let pose = pose_of(&place);
    let probe = Collider::circle(0.01);
    let (mut solid, mut empty) = (0, 0);
    for y in 0..H {
        for x in 0..W {
            // The pixel's centre in the sprite's space: rows run down,
            // flip_x mirrors, the anchor is the entity's origin.
            let normalised = Vec2::new(
                (x as f32 + 0.5) / W as f32 - 0.5,
                0.5 - (y as f32 + 0.5) / H as f32,
            );
            let local = (normalised * Vec2::new(-1.0, 1.0) - anchor) * size;
            let hit = probe.intersects(
                Isometry2d::from_translation(pose.transform_point(local)),
                &collider,
                pose,
            );
            // Within the default tolerance (1 pixel) and half a pixel of
            // marching squares, only pixels well inside or outside count.
            if all_around(x, y, 2, true) {
                assert!(hit, "opaque pixel ({x}, {y}) is not in the collider");
                solid += 1;
            } else if all_around(x, y, 2, false) {
                assert!(!hit, "clear pixel ({x}, {y}) is in the collider");
                empty += 1;
            }
        }
    }
    assert!(
        solid > 40 && empty > 300,
        "{solid} solid and {empty} empty pixels checked"
    );
    // The ring's hole is empty: a pixel at its centre is clear.
    assert!(all_around(12, 14, 2, false));

    // Changing the sprite's size rebuilds the collider.
    app.world_mut()
        .get_mut::<Sprite>(entity)
        .unwrap()
        .custom_size = Some(size * 2.0);
    app.update();
    let bigger = app.world().get::<Collider>(entity).unwrap();
    assert!(
        bigger.aabb(pose).half_size().length() > collider.aabb(pose).half_size().length() * 1.9
    );
}

#[test]
fn an_image_without_alpha_or_opaque_pixels_gives_an_error_and_no_collider() {
    assert!(matches!(
        Collider::from_image_alpha(&image(TextureFormat::R8Unorm), &ImageOutline::default()),
        Err(bevy_collide2d::ImageColliderError::NoAlphaChannel(_))
    ));
    let mut clear_image = Image::default();
    clear_image.set_color_at(0, 0, Color::NONE).unwrap();
    assert_eq!(
        Collider::from_image_alpha(&clear_image, &ImageOutline::default()),
        Err(bevy_collide2d::ImageColliderError::NoSolidPixels)
    );
    // In an app: a warning, no collider, the rest still collides.
    let mut app = app();
    let handle = app
        .world_mut()
        .resource_mut::<Assets<Image>>()
        .add(image(TextureFormat::R8Unorm));
    let bad = app
        .world_mut()
        .spawn((
            Sprite::from_image(handle),
            ColliderFromImage::default(),
            Transform::default(),
        ))
        .id();
    let a = app
        .world_mut()
        .spawn((Collider::circle(1.0), Transform::default()))
        .id();
    let b = app
        .world_mut()
        .spawn((Collider::circle(1.0), Transform::default()))
        .id();
    app.update();
    app.update();
    assert!(app.world().get::<Collider>(bad).is_none());
    assert!(app.world().resource::<Collisions>().contains(a, b));
}

/// A square 20 across with a square hole 8 across, as a mesh of triangles
/// with their own vertices each (as meshes from a file often have them).
fn frame_mesh() -> (Mesh, Vec<[Vec2; 3]>) {
    let (outer, inner) = (10.0, 4.0);
    let ring = |r: f32| {
        [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(x, y)| Vec2::new(x, y) * r)
    };
    let (o, i) = (ring(outer), ring(inner));
    let mut triangles = Vec::new();
    for k in 0..4 {
        let (o0, o1, i0, i1) = (o[k], o[(k + 1) % 4], i[k], i[(k + 1) % 4]);
        triangles.push([o0, o1, i1]);
        triangles.push([o0, i1, i0]);
    }
    let positions: Vec<[f32; 3]> = triangles
        .iter()
        .flatten()
        .map(|p| [p.x, p.y, 0.0])
        .collect();
    let mut mesh = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::MAIN_WORLD,
    );
    mesh.insert_attribute(
        Mesh::ATTRIBUTE_POSITION,
        VertexAttributeValues::Float32x3(positions),
    );
    mesh.insert_indices(Indices::U16((0..24).collect()));
    (mesh, triangles)
}

#[test]
fn a_mesh2d_collides_where_its_triangles_are() {
    let mut app = app();
    let (mesh, triangles) = frame_mesh();
    let handle = app.world_mut().resource_mut::<Assets<Mesh>>().add(mesh);
    let place = Transform::from_xyz(-30.0, 12.0, 0.0).with_rotation(Quat::from_rotation_z(-0.7));
    let entity = app
        .world_mut()
        .spawn((Mesh2d(handle), ColliderFromMesh::default(), place))
        .id();
    app.update();
    let collider = app
        .world()
        .get::<Collider>(entity)
        .expect("built from the mesh")
        .clone();
    let pose = pose_of(&place);
    let in_triangle = |p: Vec2, [a, b, c]: [Vec2; 3]| {
        let s = [(a, b), (b, c), (c, a)].map(|(u, v)| (v - u).perp_dot(p - u));
        s.iter().all(|&x| x >= 0.0) || s.iter().all(|&x| x <= 0.0)
    };
    let probe = Collider::circle(0.01);
    let mut checked = 0;
    for i in 0..60 {
        for j in 0..60 {
            let local = Vec2::new(-12.0 + i as f32 * 0.41, -12.0 + j as f32 * 0.41);
            let near_edge = [10.0f32, 4.0].iter().any(|&r| {
                let d = local.abs() - Vec2::splat(r);
                (d.x.abs() < 0.05 && local.y.abs() <= r + 0.05)
                    || (d.y.abs() < 0.05 && local.x.abs() <= r + 0.05)
            });
            if near_edge {
                continue;
            }
            let expected = triangles.iter().any(|&t| in_triangle(local, t));
            let hit = probe.intersects(
                Isometry2d::from_translation(pose.transform_point(local)),
                &collider,
                pose,
            );
            assert_eq!(hit, expected, "{local}");
            checked += 1;
        }
    }
    assert!(checked > 3000);
    // A mesh that is not a triangle list is an error, not a panic.
    let lines = Mesh::new(PrimitiveTopology::LineList, RenderAssetUsages::MAIN_WORLD);
    assert!(matches!(
        Collider::from_mesh(&lines),
        Err(bevy_collide2d::MeshColliderError::NotTriangles(_))
    ));
}

/// The example's shipped sprite: one island with a hole through it.
#[test]
fn the_shipped_asteroid_outlines_into_parts_around_its_hole() {
    use bevy::image::{CompressedImageFormats, ImageSampler, ImageType};
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/asteroid.png")).unwrap();
    let image = Image::from_buffer(
        &bytes,
        ImageType::Extension("png"),
        CompressedImageFormats::NONE,
        true,
        ImageSampler::Default,
        RenderAssetUsages::MAIN_WORLD,
    )
    .unwrap();
    let rock = Collider::from_image_alpha(&image, &ImageOutline::default()).unwrap();
    let probe = Collider::circle(0.5);
    // Pixel (58, 40) of 96 is the hole's centre; (48, 48) the rock's.
    let at = |x: f32, y: f32| Isometry2d::from_xy(x - 48.0, 48.0 - y);
    assert!(!probe.intersects(at(58.0, 40.0), &rock, Isometry2d::IDENTITY));
    assert!(probe.intersects(at(48.0, 48.0), &rock, Isometry2d::IDENTITY));
}
