//! SpatialQuery: ray casts (first and every hit), shape casts, point, shape
//! and box queries and point projections over random scenes of every kind
//! of collider (compounds and polylines, static and disabled ones
//! included) agree with brute force over every collider (read from the ECS
//! with the pure geometry), in every kind of grid (dense, hashed, several
//! levels, too few colliders for a grid), through filters and predicates,
//! before the grid is rebuilt, and on bad input.

use crate::common;

use bevy::ecs::system::SystemState;
use bevy::math::Rot2;
use bevy::prelude::*;
use bevy::shape::Aabb2d;
use bevy_collide2d::geometry::{Shape, cast_shape};
use bevy_collide2d::prelude::*;
use common::*;

/// A tiny seeded generator (xorshift64*), so that scenes are reproducible
/// without a dependency.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..1`.
    fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    fn range(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.unit()
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    fn chance(&mut self, p: f32) -> bool {
        self.unit() < p
    }

    fn point(&mut self, centre: Vec2, half: f32) -> Vec2 {
        centre + Vec2::new(self.range(-half, half), self.range(-half, half))
    }

    fn direction(&mut self) -> Dir2 {
        if self.chance(0.2) {
            Dir2::CARDINALS[self.below(4)]
        } else {
            Dir2::from_angle(self.range(0.0, std::f32::consts::TAU))
        }
    }
}

/// A collider as brute force sees it: from its own components, not from the
/// plugin's snapshot.
#[derive(Clone, Debug)]
struct Placed {
    entity: Entity,
    shape: Shape,
    pose: Isometry2d,
    layers: CollisionLayers,
}

fn placed_colliders(app: &mut App) -> Vec<Placed> {
    let mut query = app.world_mut().query_filtered::<(
        Entity,
        &Collider,
        &GlobalTransform,
        Option<&CollisionLayers>,
    ), Without<ColliderDisabled>>();
    query.iter(app.world()).filter_map(as_placed).collect()
}

/// A collider as detection sees it, or `None` if it is invalid.
fn as_placed(
    (entity, collider, transform, layers): (
        Entity,
        &Collider,
        &GlobalTransform,
        Option<&CollisionLayers>,
    ),
) -> Option<Placed> {
    let (shape, pose) = collider.world_shape(transform).ok()?;
    Some(Placed {
        entity,
        shape,
        pose,
        layers: layers.copied().unwrap_or_default(),
    })
}

/// The nearest of the hits `cast` finds in the colliders `filter` accepts,
/// as `(entity, (distance, point, normal))`; equal distances go to the
/// lowest entity.
fn brute_nearest(
    colliders: &[Placed],
    filter: &QueryFilter,
    cast: impl Fn(&Placed) -> Option<(f32, Vec2, Dir2)>,
) -> Option<(Entity, (f32, Vec2, Dir2))> {
    colliders
        .iter()
        .filter(|c| filter.accepts(c.entity, &c.layers))
        .filter_map(|c| Some((c.entity, cast(c)?)))
        .min_by(|(a, hit_a), (b, hit_b)| hit_a.0.total_cmp(&hit_b.0).then(a.cmp(b)))
}

fn brute_cast_ray(
    colliders: &[Placed],
    origin: Vec2,
    direction: Dir2,
    max_distance: f32,
    filter: &QueryFilter,
) -> Option<RayHit> {
    let (entity, (distance, point, normal)) = brute_nearest(colliders, filter, |c| {
        let hit = c.shape.cast_ray(c.pose, origin, direction, max_distance)?;
        Some((hit.distance, hit.point, hit.normal))
    })?;
    Some(RayHit {
        entity,
        distance,
        point,
        normal,
    })
}

fn brute_point_hits(colliders: &[Placed], point: Vec2, filter: &QueryFilter) -> Vec<Entity> {
    let mut hits: Vec<Entity> = colliders
        .iter()
        .filter(|c| filter.accepts(c.entity, &c.layers) && c.shape.contains_point(c.pose, point))
        .map(|c| c.entity)
        .collect();
    hits.sort();
    hits
}

fn brute_shape_hits(
    colliders: &[Placed],
    collider: &Collider,
    pose: Isometry2d,
    filter: &QueryFilter,
) -> Vec<Entity> {
    let pose = Isometry2d::new(pose.translation, pose.rotation.normalize());
    let shape = collider.shape();
    let mut hits: Vec<Entity> = colliders
        .iter()
        .filter(|c| filter.accepts(c.entity, &c.layers) && shape.intersects(pose, &c.shape, c.pose))
        .map(|c| c.entity)
        .collect();
    hits.sort();
    hits
}

fn brute_cast_shape(
    colliders: &[Placed],
    collider: &Collider,
    pose: Isometry2d,
    direction: Dir2,
    max_distance: f32,
    filter: &QueryFilter,
) -> Option<ShapeHit> {
    let pose = Isometry2d::new(pose.translation, pose.rotation.normalize());
    let shape = collider.shape();
    let (entity, (distance, point, normal)) = brute_nearest(colliders, filter, |c| {
        let hit = cast_shape(shape, pose, direction, max_distance, &c.shape, c.pose)?;
        Some((hit.distance, hit.point, hit.normal))
    })?;
    Some(ShapeHit {
        entity,
        distance,
        point,
        normal,
    })
}

/// Runs `f` with a [`SpatialQuery`] on the app's world, as a system would
/// see it after the last update.
fn with_spatial<R>(app: &mut App, f: impl FnOnce(&SpatialQuery) -> R) -> R {
    let mut state = SystemState::<SpatialQuery>::new(app.world_mut());
    let spatial = state
        .get(app.world())
        .expect("the plugin adds what SpatialQuery reads");
    f(&spatial)
}

#[derive(Clone, Copy, Debug)]
enum Scene {
    /// Hundreds of small shapes with some long walls and giant discs (so
    /// the grid has coarser levels), some scaled, some children of moved
    /// and rotated parents, some with layers.
    Crowd,
    /// Too few colliders for a grid: tested directly.
    Few,
    /// Clusters a million units apart: hashed cells.
    Clusters,
}

/// Spawns a scene; returns its centres (where queries aim) and half size.
/// A convex polygon of 3 to 8 random points within `half` of a point near
/// the origin (not centred on it, as polygons need not be).
fn random_polygon(rng: &mut XorShift, half: f32) -> Collider {
    loop {
        let centre = rng.point(Vec2::ZERO, half * 0.3);
        let points: Vec<Vec2> = (0..3 + rng.below(6))
            .map(|_| rng.point(centre, half))
            .collect();
        if let Ok(polygon) = Collider::convex_polygon(&points) {
            return polygon;
        }
    }
}

fn spawn_scene(app: &mut App, rng: &mut XorShift, scene: Scene) -> (Vec<Vec2>, f32) {
    let (count, centres, half) = match scene {
        Scene::Crowd => (400, vec![Vec2::new(30.0, -20.0)], 300.0),
        Scene::Few => (12, vec![Vec2::ZERO], 60.0),
        Scene::Clusters => (
            150,
            vec![Vec2::ZERO, Vec2::new(1e6, -6e5), Vec2::new(-4e5, 8e5)],
            80.0,
        ),
    };
    for _ in 0..count {
        let centre = centres[rng.below(centres.len())];
        let collider = match rng.below(20) {
            0 if matches!(scene, Scene::Crowd) => Collider::rect(rng.range(150.0, 400.0), 4.0),
            1 if matches!(scene, Scene::Crowd) && rng.chance(0.3) => {
                Collider::circle(rng.range(80.0, 150.0))
            }
            k if k % 2 == 0 => Collider::circle(rng.range(2.0, 15.0)),
            3 | 5 => Collider::capsule(rng.range(1.0, 8.0), rng.range(0.0, 20.0)),
            7 | 9 => Collider::segment(rng.point(Vec2::ZERO, 15.0), rng.point(Vec2::ZERO, 15.0)),
            11 | 13 => random_polygon(rng, 15.0),
            15 => {
                let points: Vec<Vec2> = (0..2 + rng.below(5))
                    .map(|_| rng.point(Vec2::ZERO, 20.0))
                    .collect();
                Collider::polyline(&points).unwrap_or_else(|_| Collider::circle(3.0))
            }
            17 => Collider::compound([
                (
                    Isometry2d::from_xy(-8.0, 0.0),
                    Collider::circle(rng.range(2.0, 8.0)),
                ),
                (
                    Isometry2d::new(
                        rng.point(Vec2::ZERO, 10.0),
                        Rot2::radians(rng.range(-3.0, 3.0)),
                    ),
                    Collider::rect(rng.range(3.0, 20.0), rng.range(3.0, 20.0)),
                ),
            ]),
            _ => Collider::rect(rng.range(3.0, 30.0), rng.range(3.0, 30.0)),
        };
        let position = rng.point(centre, half);
        let angle = rng.range(-4.0, 4.0);
        let mut transform = Transform::from_translation(position.extend(0.0))
            .with_rotation(Quat::from_rotation_z(angle));
        if rng.chance(0.2) {
            transform.scale = Vec3::new(rng.range(0.5, 2.0), rng.range(0.5, 2.0), 1.0);
        }
        let mut entity = if rng.chance(0.15) {
            // A child of a rotated, moved parent, placed where `transform`
            // says in the world.
            let parent_transform = Transform::from_xyz(rng.range(-50.0, 50.0), 20.0, 0.0)
                .with_rotation(Quat::from_rotation_z(rng.range(-3.0, 3.0)));
            let local = Transform::from_matrix(parent_transform.compute_affine().inverse().into())
                * transform;
            let parent = app.world_mut().spawn(parent_transform).id();
            let child = app
                .world_mut()
                .spawn((collider, local, ChildOf(parent)))
                .id();
            app.world_mut().entity_mut(child)
        } else {
            app.world_mut().spawn((collider, transform))
        };
        if rng.chance(0.3) {
            let bits = |rng: &mut XorShift| 1u32 << rng.below(3) | 1u32 << rng.below(3);
            let layers = CollisionLayers::new(bits(rng), bits(rng));
            entity.insert(layers);
        }
        if rng.chance(0.15) {
            entity.insert(StaticCollider);
        }
        if rng.chance(0.04) {
            entity.insert(ColliderDisabled);
        }
    }
    (centres, half)
}

fn random_filter(rng: &mut XorShift, colliders: &[Placed]) -> QueryFilter {
    let mut filter = QueryFilter::default();
    if rng.chance(0.3) {
        let bits = |rng: &mut XorShift| 1u32 << rng.below(3) | 1u32 << rng.below(3);
        filter = filter.with_layers(CollisionLayers::new(bits(rng), bits(rng)));
    }
    if rng.chance(0.3) {
        let excluded = (0..1 + rng.below(20)).map(|_| colliders[rng.below(colliders.len())].entity);
        filter = filter.with_excluded(excluded);
    }
    filter
}

/// Where a ray or a cast shape starts and where it goes, by `kind`: from
/// inside the scene (0), from a collider's centre (1, inside it), or from
/// far away towards the scene (otherwise).
fn random_start(
    rng: &mut XorShift,
    kind: usize,
    colliders: &[Placed],
    centre: Vec2,
    half: f32,
) -> (Vec2, Dir2) {
    match kind {
        0 => (rng.point(centre, half * 1.2), rng.direction()),
        1 => (
            colliders[rng.below(colliders.len())].pose.translation,
            rng.direction(),
        ),
        _ => {
            let start = centre + Vec2::from_angle(rng.range(0.0, 6.3)) * rng.range(1e3, 1e5);
            let target = rng.point(centre, half);
            (start, Dir2::new(target - start).unwrap())
        }
    }
}

/// Random queries of every kind against brute force; returns how many rays
/// hit something, points found something, shapes overlapped something and
/// cast shapes hit something.
fn check_queries(app: &mut App, rng: &mut XorShift, centres: &[Vec2], half: f32) -> [usize; 4] {
    let colliders = placed_colliders(app);
    let mut found = [0; 4];
    for round in 0..400 {
        let centre = centres[rng.below(centres.len())];
        let filter = random_filter(rng, &colliders);

        // Rays: from inside the scene, from a collider's centre (inside it),
        // from far away towards the scene; any length.
        let (origin, direction) = random_start(rng, round % 4, &colliders, centre, half);
        let max_distance = match rng.below(4) {
            0 => rng.range(0.0, half),
            1 => 0.0,
            _ => f32::INFINITY,
        };
        let expected = brute_cast_ray(&colliders, origin, direction, max_distance, &filter);
        let actual = with_spatial(app, |q| {
            q.cast_ray(origin, direction, max_distance, &filter)
        });
        assert_eq!(
            actual, expected,
            "round {round}: ray {origin} {direction:?} {max_distance} {filter:?}"
        );
        found[0] += usize::from(actual.is_some());

        let point = rng.point(centre, half);
        let expected = brute_point_hits(&colliders, point, &filter);
        let actual = with_spatial(app, |q| q.point_hits(point, &filter));
        assert_eq!(actual, expected, "round {round}: point {point} {filter:?}");
        found[1] += usize::from(!actual.is_empty());

        let collider = match rng.below(6) {
            0 => Collider::circle(rng.range(0.5, 40.0)),
            1 => Collider::rect(rng.range(1.0, 80.0), rng.range(1.0, 80.0)),
            2 => Collider::capsule(rng.range(0.5, 20.0), rng.range(0.0, 60.0)),
            3 => Collider::segment(rng.point(Vec2::ZERO, 60.0), rng.point(Vec2::ZERO, 60.0)),
            4 => random_polygon(rng, 40.0),
            _ => Collider::rect(rng.range(200.0, 600.0), rng.range(1.0, 10.0)),
        };
        let pose = Isometry2d::new(rng.point(centre, half), Rot2::radians(rng.range(-4.0, 4.0)));
        let expected = brute_shape_hits(&colliders, &collider, pose, &filter);
        let actual = with_spatial(app, |q| q.shape_hits(&collider, pose, &filter));
        assert_eq!(
            actual, expected,
            "round {round}: {collider:?} at {pose:?} {filter:?}"
        );
        found[2] += usize::from(!actual.is_empty());

        // Shape casts: from anywhere in or around the scene, towards it
        // from far away, or starting inside colliders; any length.
        let collider = match rng.below(6) {
            0 => Collider::circle(rng.range(0.5, 20.0)),
            1 => Collider::rect(rng.range(1.0, 40.0), rng.range(1.0, 40.0)),
            2 => Collider::capsule(rng.range(0.5, 10.0), rng.range(0.0, 30.0)),
            3 => Collider::segment(rng.point(Vec2::ZERO, 30.0), rng.point(Vec2::ZERO, 30.0)),
            4 => random_polygon(rng, 20.0),
            _ => Collider::rect(rng.range(100.0, 300.0), rng.range(1.0, 6.0)),
        };
        let (start, direction) = random_start(rng, round % 3, &colliders, centre, half);
        let pose = Isometry2d::new(start, Rot2::radians(rng.range(-4.0, 4.0)));
        let max_distance = match rng.below(3) {
            0 => rng.range(0.0, half),
            _ => f32::INFINITY,
        };
        let expected = brute_cast_shape(
            &colliders,
            &collider,
            pose,
            direction,
            max_distance,
            &filter,
        );
        let actual = with_spatial(app, |q| {
            q.cast_shape(&collider, pose, direction, max_distance, &filter)
        });
        assert_eq!(
            actual, expected,
            "round {round}: cast {collider:?} from {pose:?} {direction:?} {max_distance} {filter:?}"
        );
        found[3] += usize::from(actual.is_some());
        // Every hit of the cast, nearest first: the first is `cast_shape`'s.
        let max_hits = [1, 3, 10_000][round % 3];
        // As the query places it (normalised once: again would move bits).
        let placed = Isometry2d::new(pose.translation, pose.rotation.normalize());
        let mut expected: Vec<ShapeHit> = (colliders.iter())
            .filter(|c| filter.accepts(c.entity, &c.layers))
            .filter_map(|c| {
                let hit = cast_shape(
                    collider.shape(),
                    placed,
                    direction,
                    max_distance,
                    &c.shape,
                    c.pose,
                )?;
                Some(ShapeHit {
                    entity: c.entity,
                    distance: hit.distance,
                    point: hit.point,
                    normal: hit.normal,
                })
            })
            .collect();
        expected.sort_by(|a, b| {
            a.distance
                .total_cmp(&b.distance)
                .then(a.entity.cmp(&b.entity))
        });
        expected.truncate(max_hits);
        let all = with_spatial(app, |q| {
            q.shape_cast_hits(&collider, pose, direction, max_distance, max_hits, &filter)
        });
        assert_eq!(
            all, expected,
            "round {round}: cast hits {collider:?} from {pose:?} {direction:?} {max_distance} {max_hits} {filter:?}"
        );
        assert_eq!(
            all.first().copied(),
            actual,
            "round {round}: first cast hit"
        );

        check_more_queries(app, rng, &colliders, &filter, (centre, half), round);
    }
    found
}

/// Every hit along a ray, the nearest point and the boxes in a region
/// against brute force, with a predicate half the time.
fn check_more_queries(
    app: &mut App,
    rng: &mut XorShift,
    colliders: &[Placed],
    filter: &QueryFilter,
    (centre, half): (Vec2, f32),
    round: usize,
) {
    let predicate = rng.chance(0.5);
    let odd = |entity: Entity| entity.index_u32() % 2 == 1;
    let accepted: Vec<&Placed> = (colliders.iter())
        .filter(|c| filter.accepts(c.entity, &c.layers) && (!predicate || odd(c.entity)))
        .collect();
    let filter = if predicate {
        filter.clone().with_predicate(odd)
    } else {
        filter.clone()
    };
    let (origin, direction) = random_start(rng, round % 4, colliders, centre, half);
    let max_distance = if rng.chance(0.5) {
        rng.range(0.0, 2.0 * half)
    } else {
        f32::INFINITY
    };
    let max_hits = [1, 3, 10_000][rng.below(3)];
    let mut expected: Vec<RayHit> = (accepted.iter())
        .filter_map(|c| {
            let hit = c.shape.cast_ray(c.pose, origin, direction, max_distance)?;
            Some(RayHit {
                entity: c.entity,
                distance: hit.distance,
                point: hit.point,
                normal: hit.normal,
            })
        })
        .collect();
    expected.sort_by(|a, b| {
        a.distance
            .total_cmp(&b.distance)
            .then(a.entity.cmp(&b.entity))
    });
    expected.truncate(max_hits);
    let actual = with_spatial(app, |q| {
        q.ray_hits(origin, direction, max_distance, max_hits, &filter)
    });
    // The snapshot scales some shapes apart from `world_shape`: a normal may
    // differ in its last bit.
    let same = |a: &RayHit, b: &RayHit| {
        (a.entity, a.distance) == (b.entity, b.distance)
            && a.point.abs_diff_eq(b.point, 1e-4)
            && a.normal.abs_diff_eq(*b.normal, 1e-5)
    };
    assert!(
        actual.len() == expected.len() && actual.iter().zip(&expected).all(|(a, b)| same(a, b)),
        "round {round}: ray hits {origin} {direction:?} {max_distance} {max_hits} {filter:?}: {actual:?} vs {expected:?}"
    );

    // Hollow: each collider where the ray enters it, or leaves it when it
    // starts inside.
    let mut expected: Vec<RayHit> = (accepted.iter())
        .filter_map(|c| {
            let hit = c
                .shape
                .cast_ray_hollow(c.pose, origin, direction, max_distance)?;
            Some(RayHit {
                entity: c.entity,
                distance: hit.distance,
                point: hit.point,
                normal: hit.normal,
            })
        })
        .collect();
    expected.sort_by(|a, b| {
        a.distance
            .total_cmp(&b.distance)
            .then(a.entity.cmp(&b.entity))
    });
    expected.truncate(max_hits);
    let (actual, first) = with_spatial(app, |q| {
        (
            q.ray_hits_hollow(origin, direction, max_distance, max_hits, &filter),
            q.cast_ray_hollow(origin, direction, max_distance, &filter),
        )
    });
    assert!(
        actual.len() == expected.len() && actual.iter().zip(&expected).all(|(a, b)| same(a, b)),
        "round {round}: hollow ray hits {origin} {direction:?} {max_distance} {max_hits} {filter:?}: {actual:?} vs {expected:?}"
    );
    assert_eq!(first, actual.first().copied(), "round {round}: hollow ray");

    let point = rng.point(centre, half * 1.5);
    let dot = Shape::Circle { radius: 0.0 };
    let mut distances: Vec<(f32, Entity, bool)> = (accepted.iter())
        .map(|c| {
            let inside = c.shape.contains_point(c.pose, point);
            let at = Isometry2d::from_translation(point);
            let distance = match dot.closest_points(at, &c.shape, c.pose) {
                Some((_, _, distance)) if !inside => distance,
                _ => 0.0,
            };
            (distance, c.entity, inside)
        })
        .collect();
    distances.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let actual = with_spatial(app, |q| q.project_point(point, &filter));
    match (distances.first(), actual) {
        (None, None) => {}
        (Some(&(distance, entity, inside)), Some(actual)) => {
            let rank = if actual.inside { 0.0 } else { actual.distance };
            // f32 rounding at the scene's coordinates (clusters 1e6 away).
            let tolerance = 1e-3 * (1.0 + distance) + 1e-6 * point.abs().max_element();
            assert!(
                (rank - distance).abs() <= tolerance,
                "round {round}: projection of {point}: {actual:?}, nearest {distances:?}"
            );
            // The nearest is told apart unless another is as near.
            let tied = (distances.get(1)).is_some_and(|next| next.0 - distance <= tolerance);
            if !tied {
                assert_eq!(actual.entity, entity, "round {round}: {point}");
            }
            // Inside or out, unless on the boundary to within rounding.
            if actual.entity == entity && actual.distance > tolerance {
                assert_eq!(actual.inside, inside, "round {round}: {point} {actual:?}");
            }
            assert!(
                (actual.point.distance(point) - actual.distance).abs() <= 1e-3 * (1.0 + distance)
            );
        }
        (expected, actual) => {
            panic!("round {round}: projection of {point}: {actual:?} vs {expected:?}")
        }
    }
    // Solid: a point inside projects to itself; the same collider answers.
    let solid = with_spatial(app, |q| q.project_point_solid(point, &filter));
    let expected_solid = actual.map(|found| match found.inside {
        true => PointProjection {
            point,
            distance: 0.0,
            ..found
        },
        false => found,
    });
    assert_eq!(
        solid, expected_solid,
        "round {round}: solid projection of {point}"
    );

    let corner = rng.point(centre, half);
    let region = Aabb2d {
        min: corner,
        max: corner + Vec2::new(rng.range(0.0, half), rng.range(0.0, half)),
    };
    let mut expected: Vec<Entity> = (accepted.iter())
        .filter(|c| {
            let aabb = c.shape.aabb(c.pose);
            aabb.min.cmple(region.max).all() && region.min.cmple(aabb.max).all()
        })
        .map(|c| c.entity)
        .collect();
    expected.sort();
    let actual = with_spatial(app, |q| q.aabb_hits(region, &filter));
    assert_eq!(actual, expected, "round {round}: boxes in {region:?}");
}

#[test]
fn random_scenes_match_brute_force() {
    for (seed, scene) in [
        (1, Scene::Crowd),
        (2, Scene::Crowd),
        (3, Scene::Few),
        (4, Scene::Few),
        (5, Scene::Clusters),
    ] {
        let mut app = test_app();
        let mut rng = XorShift::new(seed);
        let (centres, half) = spawn_scene(&mut app, &mut rng, scene);
        app.update();
        let found = check_queries(&mut app, &mut rng, &centres, half);
        // The scenes are dense enough for every kind of query to find things.
        assert!(found.iter().all(|&n| n > 40), "{scene:?}: {found:?}");

        // Everything moves and turns; queries see the new poses.
        let mut transforms = app
            .world_mut()
            .query_filtered::<&mut Transform, With<Collider>>();
        for mut transform in transforms.iter_mut(app.world_mut()) {
            transform.translation += Vec3::new(rng.range(-40.0, 40.0), rng.range(-40.0, 40.0), 0.0);
            transform.rotate_z(rng.range(-1.0, 1.0));
        }
        app.update();
        check_queries(&mut app, &mut rng, &centres, half);
    }
}

/// Queries made in the plugin's schedule between `Prepare` (new snapshot)
/// and `BroadPhase` (new grid): the grid still describes the previous
/// frame, and must not be trusted.
#[test]
fn queries_before_the_broad_phase_see_the_new_snapshot() {
    #[derive(Resource, Default)]
    struct Checked {
        queries: usize,
        hits: usize,
    }

    fn check_now(
        spatial: SpatialQuery,
        colliders: Query<
            (
                Entity,
                &Collider,
                &GlobalTransform,
                Option<&CollisionLayers>,
            ),
            Without<ColliderDisabled>,
        >,
        mut checked: ResMut<Checked>,
    ) {
        let placed: Vec<Placed> = colliders.iter().filter_map(as_placed).collect();
        let filter = QueryFilter::default();
        for c in &placed {
            let point = c.pose.translation;
            let hits = spatial.point_hits(point, &filter);
            assert_eq!(hits, brute_point_hits(&placed, point, &filter));
            let origin = point - Vec2::new(0.0, 500.0);
            let ray = spatial.cast_ray(origin, Dir2::Y, f32::INFINITY, &filter);
            assert_eq!(
                ray,
                brute_cast_ray(&placed, origin, Dir2::Y, f32::INFINITY, &filter)
            );
            checked.queries += 1;
            checked.hits += usize::from(!hits.is_empty()) + usize::from(ray.is_some());
        }
    }

    let mut app = test_app();
    app.init_resource::<Checked>().add_systems(
        PostUpdate,
        check_now
            .after(CollisionSystems::Prepare)
            .before(CollisionSystems::BroadPhase),
    );
    let mut rng = XorShift::new(9);
    spawn_scene(&mut app, &mut rng, Scene::Crowd);
    app.update();
    // Far moves: last frame's grid would look in the wrong places.
    for frame in 0..3 {
        let mut transforms = app
            .world_mut()
            .query_filtered::<&mut Transform, With<Collider>>();
        for mut transform in transforms.iter_mut(app.world_mut()) {
            transform.translation.x += 700.0 * (frame as f32 + 1.0);
        }
        app.update();
    }
    let checked = app.world().resource::<Checked>();
    // Four frames of the 400 colliders, less the few disabled ones.
    assert!(checked.queries >= 1500, "{}", checked.queries);
    assert!(checked.hits >= checked.queries, "{}", checked.hits);
}

#[test]
fn filters_select_layers_and_exclude_entities() {
    const A: u32 = 1 << 0;
    const B: u32 = 1 << 1;
    let mut app = test_app();
    // Three discs in a row along +x, then a ghost that collides with
    // nothing.
    let mut spawn = |x: f32, layers: CollisionLayers| {
        app.world_mut()
            .spawn((
                Collider::circle(1.0),
                Transform::from_xyz(x, 0.0, 0.0),
                layers,
            ))
            .id()
    };
    let first = spawn(10.0, CollisionLayers::new(A, A | B));
    let second = spawn(20.0, CollisionLayers::new(B, A | B));
    let third = spawn(30.0, CollisionLayers::default());
    let ghost = spawn(5.0, CollisionLayers::NONE);
    app.update();

    let first_hit = |app: &mut App, filter: QueryFilter| {
        with_spatial(app, |q| {
            q.cast_ray(Vec2::ZERO, Dir2::X, f32::INFINITY, &filter)
        })
        .map(|hit| (hit.entity, hit.distance))
    };
    let all = QueryFilter::default();
    assert_eq!(first_hit(&mut app, all.clone()), Some((first, 9.0)));
    let only_b = QueryFilter::default().with_layers(CollisionLayers::new(u32::MAX, B));
    assert_eq!(first_hit(&mut app, only_b.clone()), Some((second, 19.0)));
    // Layers must match both ways: `second` filters A and B, not C.
    let member_of_c = QueryFilter::default().with_layers(CollisionLayers::new(1 << 2, u32::MAX));
    assert_eq!(first_hit(&mut app, member_of_c), Some((third, 29.0)));
    let skip_two = QueryFilter::default().with_excluded([first, second]);
    assert_eq!(first_hit(&mut app, skip_two.clone()), Some((third, 29.0)));
    let nothing = only_b.clone().with_excluded([second]);
    assert_eq!(first_hit(&mut app, nothing.with_excluded([third])), None);
    // Builders keep what was set before.
    assert_eq!(skip_two.layers, CollisionLayers::ALL);
    assert_eq!(
        only_b.clone().with_excluded([first]).layers,
        CollisionLayers::new(u32::MAX, B)
    );

    // Points and shapes use the same filter. The ghost is never seen.
    let everything_near = |app: &mut App, filter: &QueryFilter| {
        with_spatial(app, |q| {
            q.shape_hits(
                &Collider::rect(100.0, 4.0),
                Isometry2d::from_xy(15.0, 0.0),
                filter,
            )
        })
    };
    let mut row = vec![first, second, third];
    row.sort();
    assert_eq!(everything_near(&mut app, &all), row);
    // `third` has the default layers: member of B too.
    let mut b_members = vec![second, third];
    b_members.sort();
    assert_eq!(everything_near(&mut app, &only_b), b_members);
    assert!(
        with_spatial(&mut app, |q| q.point_hits(Vec2::new(5.0, 0.0), &all)).is_empty(),
        "the ghost has no layers"
    );
    assert_eq!(
        with_spatial(&mut app, |q| q.point_hits(Vec2::new(20.5, 0.5), &all)),
        vec![second]
    );
    let without_second = QueryFilter::default().with_excluded([second]);
    assert!(
        with_spatial(&mut app, |q| q
            .point_hits(Vec2::new(20.5, 0.5), &without_second))
        .is_empty()
    );
    let _ = ghost;
}

#[test]
fn hits_report_point_normal_and_start_inside() {
    let mut app = test_app();
    let wall = spawn_at(&mut app, Collider::rect(2.0, 20.0), 10.0, 0.0);
    let disc = spawn_at(&mut app, Collider::circle(3.0), -10.0, 0.0);
    app.update();
    let filter = QueryFilter::default();
    let hit = with_spatial(&mut app, |q| {
        q.cast_ray(Vec2::ZERO, Dir2::X, 100.0, &filter)
    });
    assert_eq!(
        hit,
        Some(RayHit {
            entity: wall,
            distance: 9.0,
            point: Vec2::new(9.0, 0.0),
            normal: Dir2::NEG_X,
        })
    );
    let hit = with_spatial(&mut app, |q| {
        q.cast_ray(Vec2::ZERO, Dir2::NEG_X, 100.0, &filter)
    });
    assert_eq!(
        hit.map(|h| (h.entity, h.distance, h.normal)),
        Some((disc, 7.0, Dir2::X))
    );
    // Too short, and pointing away.
    assert!(with_spatial(&mut app, |q| q.cast_ray(Vec2::ZERO, Dir2::X, 8.9, &filter)).is_none());
    assert!(
        with_spatial(&mut app, |q| q.cast_ray(
            Vec2::ZERO,
            Dir2::Y,
            100.0,
            &filter
        ))
        .is_none()
    );
    // From inside the disc: distance 0, the normal against the ray.
    let inside = Vec2::new(-11.0, 1.0);
    let direction = Dir2::from_angle(0.3);
    let hit = with_spatial(&mut app, |q| q.cast_ray(inside, direction, 0.0, &filter));
    assert_eq!(
        hit,
        Some(RayHit {
            entity: disc,
            distance: 0.0,
            point: inside,
            normal: -direction,
        })
    );
    // Excluding the disc, the same ray leaves it and finds the wall.
    let hit = with_spatial(&mut app, |q| {
        q.cast_ray(
            inside,
            Dir2::X,
            f32::INFINITY,
            &QueryFilter::default().with_excluded([disc]),
        )
    });
    assert_eq!(hit.map(|h| (h.entity, h.distance)), Some((wall, 20.0)));

    // Shapes: a ball rolled at the wall stops one radius short of it; a
    // bar dropped across both finds the nearer; one already overlapping
    // the disc stops at once.
    let hit = with_spatial(&mut app, |q| {
        q.cast_shape(
            &Collider::circle(1.0),
            Isometry2d::IDENTITY,
            Dir2::X,
            f32::INFINITY,
            &filter,
        )
    });
    assert_eq!(
        hit,
        Some(ShapeHit {
            entity: wall,
            distance: 8.0,
            point: Vec2::new(9.0, 0.0),
            normal: Dir2::NEG_X,
        })
    );
    let bar = Collider::rect(40.0, 1.0);
    let hit = with_spatial(&mut app, |q| {
        q.cast_shape(
            &bar,
            Isometry2d::from_xy(0.0, 30.0),
            Dir2::NEG_Y,
            100.0,
            &filter,
        )
    });
    assert_eq!(hit.map(|h| (h.entity, h.normal)), Some((wall, Dir2::Y)));
    assert!((hit.unwrap().distance - 19.5).abs() < 1e-3, "{hit:?}");
    let hit = with_spatial(&mut app, |q| {
        q.cast_shape(
            &bar,
            Isometry2d::from_xy(-10.0, 2.5),
            Dir2::NEG_Y,
            100.0,
            &filter,
        )
    });
    assert_eq!(hit.map(|h| (h.entity, h.distance)), Some((disc, 0.0)));
}

#[test]
fn bad_input_finds_nothing() {
    let mut app = test_app();
    let filter = QueryFilter::default();
    // Before any detection: nothing to find.
    assert!(with_spatial(&mut app, |q| q.cast_ray(Vec2::ZERO, Dir2::X, 1.0, &filter)).is_none());
    spawn_at(&mut app, Collider::circle(10.0), 0.0, 0.0);
    app.update();
    with_spatial(&mut app, |q| {
        assert!(q.cast_ray(Vec2::ZERO, Dir2::X, 1.0, &filter).is_some());
        for origin in [
            Vec2::NAN,
            Vec2::new(f32::INFINITY, 0.0),
            Vec2::new(0.0, f32::NEG_INFINITY),
        ] {
            assert!(
                q.cast_ray(origin, Dir2::X, 1.0, &filter).is_none(),
                "{origin}"
            );
            assert!(q.point_hits(origin, &filter).is_empty(), "{origin}");
        }
        assert!(
            q.cast_ray(Vec2::ZERO, Dir2::from_angle(f32::NAN), 1.0, &filter)
                .is_none()
        );
        for max_distance in [-1.0, f32::NAN, f32::NEG_INFINITY] {
            assert!(
                q.cast_ray(Vec2::ZERO, Dir2::X, max_distance, &filter)
                    .is_none()
            );
        }
        for collider in [
            Collider::circle(-1.0),
            Collider::circle(f32::NAN),
            Collider::rect(0.0, 1.0),
        ] {
            assert!(
                q.shape_hits(&collider, Isometry2d::IDENTITY, &filter)
                    .is_empty()
            );
        }
        let bad_poses = [
            Isometry2d::from_xy(f32::NAN, 0.0),
            Isometry2d::from_xy(1e20, 0.0),
            Isometry2d::new(Vec2::ZERO, Rot2 { cos: 2.0, sin: 0.0 }),
        ];
        for pose in bad_poses {
            assert!(
                q.shape_hits(&Collider::circle(1.0), pose, &filter)
                    .is_empty()
            );
            assert!(
                q.cast_shape(&Collider::circle(1.0), pose, Dir2::X, 1.0, &filter)
                    .is_none()
            );
        }
        let ball = Collider::circle(1.0);
        let start = Isometry2d::from_xy(-20.0, 0.0);
        assert!(
            q.cast_shape(&ball, start, Dir2::X, 100.0, &filter)
                .is_some()
        );
        for max_distance in [-1.0, f32::NAN, f32::NEG_INFINITY] {
            assert!(
                q.cast_shape(&ball, start, Dir2::X, max_distance, &filter)
                    .is_none()
            );
        }
        let nan_direction = Dir2::from_angle(f32::NAN);
        assert!(
            q.cast_shape(&ball, start, nan_direction, 100.0, &filter)
                .is_none()
        );
        assert!(
            q.cast_shape(&Collider::circle(-1.0), start, Dir2::X, 100.0, &filter)
                .is_none()
        );
        assert_eq!(
            q.shape_hits(&Collider::circle(1.0), Isometry2d::IDENTITY, &filter)
                .len(),
            1
        );
    });
}

/// Queries whose layers meet only the static colliders, only the moving
/// ones, only a rare layer among the moving ones, or none: each finds
/// exactly what its layers allow (a query may skip a whole grid whose
/// colliders' layers it cannot meet, never one it can).
#[test]
fn layers_that_meet_one_kind_of_collider_only() {
    const LEVEL: u32 = 1 << 0;
    const CROWD: u32 = 1 << 1;
    const RARE: u32 = 1 << 2;
    let mut app = test_app();
    let wall = app
        .world_mut()
        .spawn((
            Collider::rect(10.0, 100.0),
            StaticCollider,
            CollisionLayers::new(LEVEL, CROWD),
            Transform::from_xyz(50.0, 0.0, 0.0),
        ))
        .id();
    let crowd: Vec<Entity> = (0..20)
        .map(|i| {
            app.world_mut()
                .spawn((
                    Collider::circle(2.0),
                    CollisionLayers::new(CROWD, LEVEL),
                    Transform::from_xyz(-40.0, i as f32 * 5.0 - 50.0, 0.0),
                ))
                .id()
        })
        .collect();
    let rare = app
        .world_mut()
        .spawn((
            Collider::circle(2.0),
            CollisionLayers::new(RARE, RARE),
            Transform::from_xyz(0.0, 0.0, 0.0),
        ))
        .id();
    app.update();
    let mut state = SystemState::<SpatialQuery>::new(app.world_mut());
    let spatial = state.get(app.world()).unwrap();
    let seeing =
        |filters: u32| QueryFilter::default().with_layers(CollisionLayers::new(u32::MAX, filters));
    // A ray along y = 0 from the left crosses a crowd member, the rare one
    // and the wall.
    let first_hit = |filters| {
        spatial
            .cast_ray(Vec2::new(-100.0, 0.0), Dir2::X, 500.0, &seeing(filters))
            .map(|hit| hit.entity)
    };
    assert_eq!(first_hit(LEVEL), Some(wall));
    assert_eq!(first_hit(RARE), Some(rare));
    assert_eq!(first_hit(CROWD), Some(crowd[10]));
    assert_eq!(first_hit(1 << 7), None);
    let probe = Collider::rect(200.0, 4.0);
    let overlapping = |filters| spatial.shape_hits(&probe, Isometry2d::IDENTITY, &seeing(filters));
    assert_eq!(overlapping(LEVEL), vec![wall]);
    assert_eq!(overlapping(RARE), vec![rare]);
    assert_eq!(overlapping(CROWD), vec![crowd[10]]);
    assert!(overlapping(1 << 7).is_empty());
}
