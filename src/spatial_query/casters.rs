//! Casts that live on an entity: [`RayCaster`] and [`ShapeCaster`], cast
//! again after every detection into the [`RayHits`] and [`ShapeHits`] they
//! require.

use bevy::math::{Dir2, Isometry2d, Rot2, Vec2};
use bevy::prelude::*;
use bevy::shape::Ray2d;

use super::{QueryFilter, RayHit, ShapeHit};
use crate::components::Collider;

/// A ray cast from an entity after every detection, its hits kept in the
/// [`RayHits`] it requires: a ground probe, a line of sight, a laser. What
/// [`SpatialQuery::ray_hits`](crate::SpatialQuery::ray_hits) does, without
/// a system of your own.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_collide2d::prelude::*;
/// const LEVEL: u32 = 1 << 1;
///
/// #[derive(Component)]
/// struct Player;
///
/// fn spawn(mut commands: Commands) {
///     commands.spawn((
///         Player,
///         Collider::capsule(7.0, 14.0),
///         // From the feet down, up to 50 away, only the level.
///         RayCaster::new(Vec2::new(0.0, -14.0), Dir2::NEG_Y)
///             .with_max_distance(50.0)
///             .with_filter(QueryFilter::default().with_layers(CollisionLayers::new(u32::MAX, LEVEL))),
///     ));
/// }
///
/// fn height(player: Single<&RayHits, With<Player>>) {
///     match player.first() {
///         Some(ground) => info!("{} above {}", ground.distance, ground.entity),
///         None => info!("nothing below within 50"),
///     }
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// # bevy::ecs::system::assert_is_system(height);
/// ```
///
/// # Where it points
///
/// [`origin`](Self::origin) and [`direction`](Self::direction) are in the
/// entity's own space, so the ray follows its [`GlobalTransform`] (its
/// parents' included): the origin is placed as a point of the entity is
/// (moved, turned and scaled with it), and the direction is turned with it
/// and by its scale's signs and proportions, then made unit length again (a
/// character mirrored with a negative `scale.x` looks the other way; a
/// direction `(1, 1)` on an entity scaled by `(2, 1)` points along
/// `(2, 1)`). [`max_distance`](Self::max_distance) is in world units, as
/// the hits' distances are: scale does not stretch it. An entity scaled to
/// nothing on an axis casts nothing, as such a collider is not detected.
///
/// # When
///
/// Cast in the plugin's schedule in [`CollisionSystems::Casters`](crate::CollisionSystems::Casters),
/// right after [`CollisionSystems::Events`](crate::CollisionSystems::Events),
/// against the colliders that detection just read. A system in `Update`
/// reads the hits of the previous frame's detection (where things were
/// drawn); one after `CollisionSystems::Casters` the current ones.
/// [`RayHits`] is changed (in Bevy's sense) only when its hits or its ray
/// change.
///
/// # What it sees
///
/// The colliders [`filter`](Self::filter) accepts, except, while
/// [`ignore_self`](Self::ignore_self) is set (the default), the entity's own
/// collider and, when the entity is part of a
/// [`CollisionBody`](crate::CollisionBody), every collider of that body.
/// Shapes are [`solid`](Self::solid) by default, as in
/// [`SpatialQuery::cast_ray`](crate::SpatialQuery::cast_ray); a hollow ray
/// leaves the colliders it starts in
/// ([`SpatialQuery::ray_hits_hollow`](crate::SpatialQuery::ray_hits_hollow)).
///
/// A zero or NaN direction, an origin or a transform that is not finite,
/// or a NaN or negative `max_distance` casts nothing (never panics), with
/// one warning per entity while it stays so.
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq, Clone)]
#[require(RayHits, Transform)]
pub struct RayCaster {
    /// Whether it casts (default: yes); when not, its hits are empty.
    pub enabled: bool,
    /// Where the ray starts, in the entity's space.
    pub origin: Vec2,
    /// Which way it goes, in the entity's space.
    pub direction: Dir2,
    /// How far it reaches, in world units (default: endless).
    pub max_distance: f32,
    /// How many hits it keeps, nearest first (default: 1, the nearest).
    pub max_hits: usize,
    /// Whether shapes are solid, so that a ray starting inside a collider
    /// hits it at 0 (the default), or hollow, so that it hits it where it
    /// leaves.
    pub solid: bool,
    /// Whether it leaves out its own entity's collider and the colliders of
    /// its [`CollisionBody`](crate::CollisionBody) (default: yes).
    pub ignore_self: bool,
    /// Which colliders it sees.
    #[entities]
    pub filter: QueryFilter,
}

impl Default for RayCaster {
    fn default() -> Self {
        Self {
            enabled: true,
            origin: Vec2::ZERO,
            direction: Dir2::X,
            max_distance: f32::INFINITY,
            max_hits: 1,
            solid: true,
            ignore_self: true,
            filter: QueryFilter::default(),
        }
    }
}

impl RayCaster {
    /// A ray from `origin` along `direction`, both in the entity's space:
    /// endless, the nearest hit, solid, its own entity and body left out.
    pub fn new(origin: Vec2, direction: Dir2) -> Self {
        Self {
            origin,
            direction,
            ..default()
        }
    }

    /// The caster reaching `max_distance` in world units.
    #[must_use]
    pub fn with_max_distance(mut self, max_distance: f32) -> Self {
        self.max_distance = max_distance;
        self
    }

    /// The caster keeping up to `max_hits` hits, nearest first.
    #[must_use]
    pub fn with_max_hits(mut self, max_hits: usize) -> Self {
        self.max_hits = max_hits;
        self
    }

    /// The caster with shapes solid (`true`) or hollow.
    #[must_use]
    pub fn with_solid(mut self, solid: bool) -> Self {
        self.solid = solid;
        self
    }

    /// The caster leaving out its own entity and body, or not.
    #[must_use]
    pub fn with_ignore_self(mut self, ignore_self: bool) -> Self {
        self.ignore_self = ignore_self;
        self
    }

    /// The caster seeing what `filter` accepts.
    #[must_use]
    pub fn with_filter(mut self, filter: QueryFilter) -> Self {
        self.filter = filter;
        self
    }
}

/// What a [`RayCaster`] hit at the last detection, nearest first (equal
/// distances by lowest [`Entity`]), and the ray it cast.
#[derive(Component, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq, Clone)]
pub struct RayHits {
    ray: Option<Ray2d>,
    #[entities]
    hits: Vec<RayHit>,
}

impl RayHits {
    pub(crate) fn new(ray: Option<Ray2d>, hits: Vec<RayHit>) -> Self {
        Self { ray, hits }
    }

    /// The hits, nearest first.
    pub fn iter(&self) -> core::slice::Iter<'_, RayHit> {
        self.hits.iter()
    }

    /// The hits, nearest first.
    pub fn as_slice(&self) -> &[RayHit] {
        &self.hits
    }

    /// The nearest hit.
    pub fn first(&self) -> Option<&RayHit> {
        self.hits.first()
    }

    /// How many hits there are.
    pub fn len(&self) -> usize {
        self.hits.len()
    }

    /// Whether the ray hit nothing.
    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }

    /// The ray cast, in world space; `None` when none was (disabled, not
    /// cast yet, or bad input).
    pub fn ray(&self) -> Option<Ray2d> {
        self.ray
    }
}

impl<'a> IntoIterator for &'a RayHits {
    type Item = &'a RayHit;
    type IntoIter = core::slice::Iter<'a, RayHit>;

    fn into_iter(self) -> Self::IntoIter {
        self.hits.iter()
    }
}

/// A shape cast from an entity after every detection, its hits kept in the
/// [`ShapeHits`] it requires: will the character fit, what does a dash
/// sweep through. What
/// [`SpatialQuery::shape_cast_hits`](crate::SpatialQuery::shape_cast_hits)
/// does (with one hit, [`SpatialQuery::cast_shape`](crate::SpatialQuery::cast_shape)),
/// without a system of your own.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_collide2d::prelude::*;
/// #[derive(Component)]
/// struct Ship;
///
/// fn spawn(mut commands: Commands) {
///     commands.spawn((
///         Ship,
///         Collider::circle(8.0),
///         // The ship's own outline, a little ahead: how far can it go?
///         ShapeCaster::new(Collider::circle(8.0), Vec2::ZERO, Dir2::Y).with_max_distance(200.0),
///     ));
/// }
///
/// fn clearance(ship: Single<&ShapeHits, With<Ship>>) {
///     if let Some(hit) = ship.first() {
///         info!("{} ahead in {}", hit.entity, hit.distance);
///     }
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// # bevy::ecs::system::assert_is_system(clearance);
/// ```
///
/// # Where it goes
///
/// The [`shape`](Self::shape) is placed as a collider on a child entity at
/// [`origin`](Self::origin), turned by
/// [`shape_rotation`](Self::shape_rotation), would be: it moves and turns
/// with the entity, and is scaled by the entity's scale as such a collider
/// is (see [`Collider`]). It slides along [`direction`](Self::direction)
/// without turning; the direction and [`max_distance`](Self::max_distance)
/// read as a [`RayCaster`]'s. When and what it sees are as for a
/// [`RayCaster`] too.
///
/// Each collider is hit once, where the shape first touches it, as if the
/// others were not there ([`SpatialQuery::shape_cast_hits`](crate::SpatialQuery::shape_cast_hits));
/// the distances are exact for every pair of kinds but a few (see
/// [`cast_shape`](crate::geometry::cast_shape)). A collider the shape
/// touches or overlaps where it starts is hit at 0, unless
/// [`ignore_origin_penetration`](Self::ignore_origin_penetration) is set and
/// the shape does not move deeper into it (the direction does not point
/// against the hit's normal): then that collider is left out of the cast
/// altogether (all its parts, for a compound).
///
/// Bad input casts nothing, with one warning per entity while it stays so,
/// as for a [`RayCaster`], and so does a shape that detection would skip
/// (an invalid size).
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component, Debug, PartialEq, Clone)]
#[require(ShapeHits, Transform)]
pub struct ShapeCaster {
    /// Whether it casts (default: yes); when not, its hits are empty.
    pub enabled: bool,
    /// The shape cast, in the entity's space before scaling.
    pub shape: Collider,
    /// Where the shape starts, in the entity's space.
    pub origin: Vec2,
    /// The shape's rotation in the entity's space (default: none).
    pub shape_rotation: Rot2,
    /// Which way it goes, in the entity's space.
    pub direction: Dir2,
    /// How far it goes, in world units (default: endless).
    pub max_distance: f32,
    /// How many hits it keeps, nearest first (default: 1, the nearest).
    pub max_hits: usize,
    /// Whether the colliders it starts in and moves out of (or along) are
    /// left out (default: no, they are hit at 0).
    pub ignore_origin_penetration: bool,
    /// Whether it leaves out its own entity's collider and the colliders of
    /// its [`CollisionBody`](crate::CollisionBody) (default: yes).
    pub ignore_self: bool,
    /// Which colliders it sees.
    #[entities]
    pub filter: QueryFilter,
}

impl ShapeCaster {
    /// `shape` cast from `origin` along `direction`, both in the entity's
    /// space: endless, the nearest hit, its own entity and body left out.
    pub fn new(shape: impl Into<Collider>, origin: Vec2, direction: Dir2) -> Self {
        Self {
            enabled: true,
            shape: shape.into(),
            origin,
            shape_rotation: Rot2::IDENTITY,
            direction,
            max_distance: f32::INFINITY,
            max_hits: 1,
            ignore_origin_penetration: false,
            ignore_self: true,
            filter: QueryFilter::default(),
        }
    }

    /// The caster with the shape turned by `rotation` in the entity's space.
    #[must_use]
    pub fn with_shape_rotation(mut self, rotation: Rot2) -> Self {
        self.shape_rotation = rotation;
        self
    }

    /// The caster going up to `max_distance` in world units.
    #[must_use]
    pub fn with_max_distance(mut self, max_distance: f32) -> Self {
        self.max_distance = max_distance;
        self
    }

    /// The caster keeping up to `max_hits` hits, nearest first.
    #[must_use]
    pub fn with_max_hits(mut self, max_hits: usize) -> Self {
        self.max_hits = max_hits;
        self
    }

    /// The caster leaving out what it starts in and moves out of, or not.
    #[must_use]
    pub fn with_ignore_origin_penetration(mut self, ignore: bool) -> Self {
        self.ignore_origin_penetration = ignore;
        self
    }

    /// The caster leaving out its own entity and body, or not.
    #[must_use]
    pub fn with_ignore_self(mut self, ignore_self: bool) -> Self {
        self.ignore_self = ignore_self;
        self
    }

    /// The caster seeing what `filter` accepts.
    #[must_use]
    pub fn with_filter(mut self, filter: QueryFilter) -> Self {
        self.filter = filter;
        self
    }
}

/// What a [`ShapeCaster`] hit at the last detection, nearest first (equal
/// distances by lowest [`Entity`]), and where the cast started.
#[derive(Component, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq, Clone)]
pub struct ShapeHits {
    start: Option<Isometry2d>,
    direction: Option<Dir2>,
    #[entities]
    hits: Vec<ShapeHit>,
}

impl ShapeHits {
    pub(crate) fn new(start: Option<(Isometry2d, Dir2)>, hits: Vec<ShapeHit>) -> Self {
        Self {
            start: start.map(|(pose, _)| pose),
            direction: start.map(|(_, direction)| direction),
            hits,
        }
    }

    /// The hits, nearest first.
    pub fn iter(&self) -> core::slice::Iter<'_, ShapeHit> {
        self.hits.iter()
    }

    /// The hits, nearest first.
    pub fn as_slice(&self) -> &[ShapeHit] {
        &self.hits
    }

    /// The nearest hit.
    pub fn first(&self) -> Option<&ShapeHit> {
        self.hits.first()
    }

    /// How many hits there are.
    pub fn len(&self) -> usize {
        self.hits.len()
    }

    /// Whether the shape touched nothing.
    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }

    /// The shape's world pose where the cast started; `None` when nothing
    /// was cast (disabled, not cast yet, or bad input).
    pub fn start(&self) -> Option<Isometry2d> {
        self.start
    }

    /// The world direction of the cast; `None` when nothing was cast.
    pub fn direction(&self) -> Option<Dir2> {
        self.direction
    }
}

impl<'a> IntoIterator for &'a ShapeHits {
    type Item = &'a ShapeHit;
    type IntoIter = core::slice::Iter<'a, ShapeHit>;

    fn into_iter(self) -> Self::IntoIter {
        self.hits.iter()
    }
}
