//! The benchmark scene, shared by every engine: N colliders, half circles and
//! half rotated rectangles (or, with `--scene five-shapes`, circles,
//! rectangles, capsules, segments and convex polygons in equal numbers),
//! moving and spinning by writing `Transform`.

use bevy::prelude::*;
use bevy::shape::Aabb2d;
use bevy::time::TimeUpdateStrategy;
use bevy_collide2d::geometry::{Compound, ConvexPolygon, Shape};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

/// The fixed step every app advances by.
pub const STEP: Duration = Duration::from_nanos(1_000_000_000 / 60);

/// A collider's shape, in world units (no scale).
#[derive(Clone, Copy, Debug)]
pub enum BodyShape {
    Circle {
        radius: f32,
    },
    Rect {
        half_size: Vec2,
    },
    /// Upright (along local y): the points within `radius` of the segment
    /// from `(0, -half_length)` to `(0, half_length)`.
    Capsule {
        radius: f32,
        half_length: f32,
    },
    /// From `a` to `b` in local coordinates, no thickness.
    Segment {
        a: Vec2,
        b: Vec2,
    },
    /// A convex polygon in local coordinates, its vertices counter-clockwise
    /// and all on its hull.
    Polygon(PolygonPoints),
    /// Circles and rectangles at local poses, one collider (`--scene
    /// compounds`).
    Compound(CompoundParts),
}

/// The parts of a compound body, kept inline so that [`BodyShape`] stays
/// `Copy`.
#[derive(Clone, Copy, Debug)]
pub struct CompoundParts(pub [CompoundPart; PARTS]);

/// Parts per compound body.
pub const PARTS: usize = 4;

/// One part of a compound body: a circle or rectangle at a local pose.
#[derive(Clone, Copy, Debug)]
pub struct CompoundPart {
    pub offset: Vec2,
    pub angle: f32,
    /// A `Circle` or a `Rect`.
    pub shape: PartShape,
}

/// The shape of a compound's part.
#[derive(Clone, Copy, Debug)]
pub enum PartShape {
    Circle { radius: f32 },
    Rect { half_size: Vec2 },
}

impl CompoundPart {
    /// The part's pose in its body.
    pub fn pose(&self) -> Isometry2d {
        Isometry2d::new(self.offset, Rot2::radians(self.angle))
    }
}

impl PartShape {
    /// The part's shape as a body of its own.
    pub fn body_shape(self) -> BodyShape {
        match self {
            PartShape::Circle { radius } => BodyShape::Circle { radius },
            PartShape::Rect { half_size } => BodyShape::Rect { half_size },
        }
    }
}

/// Up to 8 polygon vertices, kept inline so that [`BodyShape`] stays `Copy`.
#[derive(Clone, Copy, Debug)]
pub struct PolygonPoints {
    points: [Vec2; 8],
    len: u8,
}

impl PolygonPoints {
    pub fn as_slice(&self) -> &[Vec2] {
        &self.points[..self.len as usize]
    }
}

/// Which shapes the scene's colliders have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SceneShapes {
    /// Half circles, half rectangles (the default, and the scene of every
    /// figure measured before the three other shapes existed).
    CirclesRects,
    /// Circles, rectangles, capsules, segments and convex polygons, one
    /// fifth each, in turn.
    FiveShapes,
    /// Compounds of four circles and rectangles each (`random_compound`).
    Compounds,
}

impl SceneShapes {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "circles-rects" => Some(Self::CirclesRects),
            "five-shapes" => Some(Self::FiveShapes),
            "compounds" => Some(Self::Compounds),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::CirclesRects => "circles-rects",
            Self::FiveShapes => "five-shapes",
            Self::Compounds => "compounds",
        }
    }
}

/// One collider of the scene: where it starts and how it moves.
#[derive(Clone, Copy, Debug)]
pub struct Body {
    pub shape: BodyShape,
    pub position: Vec2,
    pub angle: f32,
    pub velocity: Vec2,
    pub spin: f32,
}

/// The motion of a scene body, applied to its `Transform` every frame.
#[derive(Component, Clone, Copy)]
pub struct Mover {
    pub velocity: Vec2,
    pub spin: f32,
}

/// The square the bodies move in, wrapping at the edges: side `sqrt(n) * 16`,
/// centred on the origin, so the density (and contacts per body) does not
/// depend on `n`.
#[derive(Resource, Clone, Copy)]
pub struct Arena {
    pub half_side: f32,
}

impl Arena {
    pub fn for_count(n: usize) -> Self {
        Self {
            half_side: (n as f32).sqrt() * 16.0 / 2.0,
        }
    }
}

/// The seeded bodies of the default scene (circles and rectangles) of `n`.
pub fn generate(n: usize, seed: u64) -> Vec<Body> {
    generate_scene(n, seed, SceneShapes::CirclesRects)
}

/// The seeded bodies of a scene of `n` with the given shapes. Every body
/// moves the same way in both scenes (20–60 units/s, up to 2 rad/s).
///
/// The five-shape scene keeps the circles and rectangles of the default
/// one and adds shapes of about their size:
/// - capsules of radius 1.5–4 and length 2–8 between the cap centres
///   (3–8 wide, 5–16 tall);
/// - segments 4–12 long, through a point up to 1 from the body's origin;
/// - convex polygons of 5–8 vertices on an ellipse of half axes 2–6 (all on
///   the hull), spaced unevenly, the whole moved up to 1 from the origin
///   (not recentred).
pub fn generate_scene(n: usize, seed: u64, scene: SceneShapes) -> Vec<Body> {
    generate_in(n, seed, scene, Arena::for_count(n))
}

/// [`generate_scene`] with the bodies spread over `arena` instead of the
/// square of their count (`--scene level`: over the level). The same seed
/// gives the same shapes and motions in any arena.
pub fn generate_in(n: usize, seed: u64, scene: SceneShapes, arena: Arena) -> Vec<Body> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            // Which kind body `i` is: each scene's kinds in turn.
            let kind = match scene {
                SceneShapes::CirclesRects => i % 2,
                SceneShapes::FiveShapes => i % 5,
                SceneShapes::Compounds => 5,
            };
            let shape = match kind {
                0 => BodyShape::Circle {
                    radius: rng.random_range(2.0..=6.0),
                },
                1 => BodyShape::Rect {
                    half_size: Vec2::new(rng.random_range(2.0..=6.0), rng.random_range(2.0..=6.0)),
                },
                2 => BodyShape::Capsule {
                    radius: rng.random_range(1.5..=4.0),
                    half_length: rng.random_range(1.0..=4.0),
                },
                3 => {
                    let centre = small_offset(&mut rng);
                    let half = Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU))
                        * rng.random_range(2.0..=6.0);
                    BodyShape::Segment {
                        a: centre - half,
                        b: centre + half,
                    }
                }
                4 => BodyShape::Polygon(random_polygon(&mut rng)),
                _ => BodyShape::Compound(random_compound(&mut rng)),
            };
            let h = arena.half_side;
            let speed = rng.random_range(20.0..=60.0);
            let heading = rng.random_range(0.0..std::f32::consts::TAU);
            Body {
                shape,
                position: Vec2::new(rng.random_range(-h..h), rng.random_range(-h..h)),
                angle: rng.random_range(0.0..std::f32::consts::TAU),
                velocity: Vec2::from_angle(heading) * speed,
                spin: rng.random_range(-2.0..=2.0),
            }
        })
        .collect()
}

/// A point up to 1 from the origin along each axis.
fn small_offset(rng: &mut ChaCha8Rng) -> Vec2 {
    Vec2::new(rng.random_range(-1.0..=1.0), rng.random_range(-1.0..=1.0))
}

/// Four parts, each a circle of radius 1.5-3 or a rectangle of half sides
/// 1-3 (half each, at random), turned at random and centred up to 4 from
/// the body's origin: about the size of the other scenes' bodies (6-14
/// across), so that the density is alike.
fn random_compound(rng: &mut ChaCha8Rng) -> CompoundParts {
    CompoundParts(std::array::from_fn(|_| {
        let shape = if rng.random_bool(0.5) {
            PartShape::Circle {
                radius: rng.random_range(1.5..=3.0),
            }
        } else {
            PartShape::Rect {
                half_size: Vec2::new(rng.random_range(1.0..=3.0), rng.random_range(1.0..=3.0)),
            }
        };
        CompoundPart {
            offset: Vec2::new(rng.random_range(-4.0..=4.0), rng.random_range(-4.0..=4.0)),
            angle: rng.random_range(0.0..std::f32::consts::TAU),
            shape,
        }
    }))
}

/// 5 to 8 points on an ellipse (so all on their convex hull),
/// counter-clockwise, each within 30% of an even step from the last.
fn random_polygon(rng: &mut ChaCha8Rng) -> PolygonPoints {
    let count = rng.random_range(5..=8_usize);
    let axes = Vec2::new(rng.random_range(2.0..=6.0), rng.random_range(2.0..=6.0));
    let centre = small_offset(rng);
    let phase = rng.random_range(0.0..std::f32::consts::TAU);
    let step = std::f32::consts::TAU / count as f32;
    let mut points = [Vec2::ZERO; 8];
    for (i, point) in points.iter_mut().enumerate().take(count) {
        let angle = phase + step * (i as f32 + rng.random_range(-0.3..=0.3));
        *point = centre + Vec2::from_angle(angle) * axes;
    }
    PolygonPoints {
        points,
        len: count as u8,
    }
}

/// The collision shape of a body, as `bevy_collide2d`'s geometry has it.
pub fn geometry_shape(shape: &BodyShape) -> Shape {
    match *shape {
        BodyShape::Circle { radius } => Shape::Circle { radius },
        BodyShape::Rect { half_size } => Shape::Rect { half_size },
        BodyShape::Capsule {
            radius,
            half_length,
        } => Shape::Capsule {
            radius,
            half_length,
        },
        BodyShape::Segment { a, b } => Shape::Segment { a, b },
        BodyShape::Polygon(points) => Shape::Polygon(
            ConvexPolygon::new(points.as_slice()).expect("points on an ellipse have an area"),
        ),
        BodyShape::Compound(CompoundParts(parts)) => Shape::Compound(Compound::new(
            parts.map(|part| (part.pose(), geometry_shape(&part.shape.body_shape()))),
        )),
    }
}

/// The bounding boxes of the seeded bodies of a scene of `n`, where they
/// start: what the broad phase sees (for benchmarks of it alone).
#[allow(dead_code)] // not used by the comparison runner itself
pub fn start_aabbs(n: usize, seed: u64) -> Vec<Aabb2d> {
    generate(n, seed)
        .iter()
        .map(|body| {
            geometry_shape(&body.shape)
                .aabb(Isometry2d::new(body.position, Rot2::radians(body.angle)))
        })
        .collect()
}

/// Moves and spins every body by one step, wrapping at the arena's edges.
pub fn move_bodies(
    time: Res<Time>,
    arena: Res<Arena>,
    mut bodies: Query<(&mut Transform, &Mover)>,
) {
    let dt = time.delta_secs();
    let side = arena.half_side * 2.0;
    bodies.par_iter_mut().for_each(|(mut transform, mover)| {
        let mut p = transform.translation.truncate() + mover.velocity * dt;
        // Wrap into [-h, h).
        p = (p + arena.half_side).rem_euclid(Vec2::splat(side)) - arena.half_side;
        transform.translation = p.extend(0.0);
        transform.rotate_z(mover.spin * dt);
    });
}

/// The engine-independent part of every app: a headless app with a manual
/// 1/60 s clock, transforms, and the mover system in `Update`, wrapping the
/// bodies in `arena`.
pub fn base_app(arena: Arena) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(STEP))
        .insert_resource(arena)
        .add_systems(Update, move_bodies);
    app
}

/// The transform and motion of a body, for spawning.
pub fn body_bundle(body: &Body) -> (Transform, Mover) {
    (
        Transform::from_translation(body.position.extend(0.0))
            .with_rotation(Quat::from_rotation_z(body.angle)),
        Mover {
            velocity: body.velocity,
            spin: body.spin,
        },
    )
}

/// Start and end events an engine reported, counted by its event reader.
/// `started - ended` is the number of pairs the events say are touching.
#[derive(Resource, Default, Clone, Copy, Debug)]
pub struct EventTally {
    pub started: u64,
    pub ended: u64,
}
