//! Asteroids whose colliders come from their sprite: [`ColliderFromImage`]
//! outlines the opaque pixels of `assets/asteroid.png` (its hole and its
//! dent included) once the image has loaded, at each sprite's size and
//! flip. The collision overlay draws the outlines; rocks that touch turn
//! red and push apart.
//!
//! ```sh
//! cargo run --example asteroids --features image
//! cargo run --example asteroids --features image -- --headless
//! ```

#[path = "common/mod.rs"]
mod common;

use bevy::image::{CompressedImageFormats, ImageLoader};
use bevy::prelude::*;
use bevy_collide2d::prelude::*;

fn main() -> AppExit {
    if common::headless() {
        let mut app = headless_app();
        (0..300).for_each(|_| app.update());
        let rocks = app.world_mut().query::<&Rock>().iter(app.world()).count();
        let built = app
            .world_mut()
            .query::<(&Rock, &Collider)>()
            .iter(app.world())
            .count();
        println!("asteroids: {built} of {rocks} rocks have a collider from their image");
        return AppExit::Success;
    }
    common::windowed_app(CollisionPlugin::default(), Asteroids).run()
}

/// The example without a window: assets are read from disk as in a game.
pub fn headless_app() -> App {
    let mut app = common::headless_app(CollisionPlugin::default(), Asteroids);
    // Without a renderer, nothing registers the PNG loader: do it here.
    app.add_plugins((AssetPlugin::default(), ImagePlugin::default()))
        .register_asset_loader(ImageLoader::new(CompressedImageFormats::NONE));
    app
}

pub struct Asteroids;

impl Plugin for Asteroids {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, spawn_rocks)
            .add_systems(Update, (drift, push_apart, tint).chain());
    }
}

#[derive(Component)]
pub struct Rock {
    velocity: Vec2,
    spin: f32,
}

fn spawn_rocks(mut commands: Commands, assets: Res<AssetServer>) {
    let image = assets.load("asteroid.png");
    for k in 0..6 {
        let size = 70.0 + 25.0 * (k % 3) as f32;
        let angle = k as f32 * 1.05;
        commands.spawn((
            Rock {
                velocity: Vec2::from_angle(angle + 2.0) * 60.0,
                spin: 0.4 - 0.15 * k as f32,
            },
            Sprite {
                image: image.clone(),
                custom_size: Some(Vec2::splat(size)),
                flip_x: k % 2 == 1,
                ..default()
            },
            ColliderFromImage::default(),
            Transform::from_translation((Vec2::from_angle(angle) * 180.0).extend(0.0)),
        ));
    }
}

/// Rocks drift, spin, and come back from the other side of the field.
fn drift(time: Res<Time>, mut rocks: Query<(&Rock, &mut Transform)>) {
    let dt = time.delta_secs();
    for (rock, mut transform) in &mut rocks {
        transform.translation += (rock.velocity * dt).extend(0.0);
        transform.rotate_z(rock.spin * dt);
        let p = transform.translation.truncate();
        if p.length() > 320.0 {
            transform.translation = (-p.normalize() * 319.0).extend(0.0);
        }
    }
}

/// Overlapping rocks move apart along the contact normal and bounce.
fn push_apart(mut rocks: Query<(Entity, &mut Rock, &mut Transform)>, collisions: Res<Collisions>) {
    for (entity, mut rock, mut transform) in &mut rocks {
        for (_, contact) in collisions.contacts_of(entity) {
            let normal = *contact.normal;
            transform.translation -= (normal * contact.depth * 0.5).extend(0.0);
            if rock.velocity.dot(normal) > 0.0 {
                rock.velocity = rock.velocity.reflect(normal);
            }
        }
    }
}

fn tint(mut rocks: Query<(&mut Sprite, &CollidingEntities), With<Rock>>) {
    for (mut sprite, touching) in &mut rocks {
        sprite.color = if touching.is_empty() {
            Color::WHITE
        } else {
            Color::srgb(1.0, 0.45, 0.4)
        };
    }
}
