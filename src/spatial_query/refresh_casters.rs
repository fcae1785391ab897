//! The systems that cast every [`RayCaster`] and [`ShapeCaster`] after a
//! detection, in [`CollisionSystems::Casters`](crate::CollisionSystems::Casters),
//! and the warnings about the ones that cannot cast.

use core::fmt;
use std::borrow::Cow;

use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::system::SystemParam;
use bevy::math::{Affine3A, Dir2, Isometry2d, Quat, Vec2};
use bevy::prelude::*;
use bevy::shape::Ray2d;

use super::casters::{RayCaster, RayHits, ShapeCaster, ShapeHits};
use super::{QueryFilter, ShapeCast, SpatialQuery};
use crate::components::{Collider, CollisionBody};
use crate::geometry::{Placed, Shape, ShapeError, TransformReading, validate_pose};

/// The casters warned about and still unable to cast, so that each is
/// reported once (again only if it is fixed and then breaks again).
#[derive(Resource, Default, Debug)]
pub(crate) struct WarnedCasters {
    rays: EntityHashSet,
    shapes: EntityHashSet,
}

/// Why a caster casts nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum BadCaster {
    Transform,
    Origin,
    Direction,
    MaxDistance,
    Shape(ShapeError),
}

impl fmt::Display for BadCaster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Transform => f.write_str("its transform is not finite"),
            Self::Origin => f.write_str("its origin is not finite"),
            Self::Direction => f.write_str("its direction is zero or not finite"),
            Self::MaxDistance => f.write_str("its max_distance is negative or NaN"),
            Self::Shape(error) => write!(f, "its shape cannot be used: {error}"),
        }
    }
}

/// Casts every enabled [`RayCaster`] into its [`RayHits`].
pub(crate) fn refresh_ray_casters(
    mut casters: Query<(Entity, &RayCaster, &GlobalTransform, &mut RayHits)>,
    spatial: SpatialQuery,
    owners: CasterOwners,
    mut warned: ResMut<WarnedCasters>,
) {
    let before = core::mem::take(&mut warned.rays);
    let mut own = Vec::new();
    for (entity, caster, transform, mut hits) in &mut casters {
        let ray = caster.enabled.then(|| world_ray(caster, transform));
        let ray = match ray {
            Some(Err(bad)) => {
                warn_once(&before, &mut warned.rays, "RayCaster", entity, bad);
                None
            }
            Some(Ok(ray)) => ray,
            None => None,
        };
        let found = ray.map_or_else(Vec::new, |ray| {
            let filter = owners.filter_for(entity, caster.ignore_self, &caster.filter, &mut own);
            spatial.ray_hits_as(
                ray.origin,
                ray.direction,
                caster.max_distance,
                caster.max_hits,
                caster.solid,
                &filter,
            )
        });
        hits.set_if_neq(RayHits::new(ray, found));
    }
}

/// Casts every enabled [`ShapeCaster`] into its [`ShapeHits`].
pub(crate) fn refresh_shape_casters(
    mut casters: Query<(Entity, &ShapeCaster, &GlobalTransform, &mut ShapeHits)>,
    spatial: SpatialQuery,
    owners: CasterOwners,
    mut warned: ResMut<WarnedCasters>,
) {
    let before = core::mem::take(&mut warned.shapes);
    let mut own = Vec::new();
    for (entity, caster, transform, mut hits) in &mut casters {
        let cast = caster.enabled.then(|| world_cast(caster, transform));
        let cast = match cast {
            Some(Err(bad)) => {
                warn_once(&before, &mut warned.shapes, "ShapeCaster", entity, bad);
                None
            }
            Some(Ok(cast)) => cast,
            None => None,
        };
        let found = cast
            .as_ref()
            .and_then(|(shape, pose, direction)| {
                // Checked by `world_shape` already: never empty here.
                Some((Placed::new(shape.view(), *pose).ok()?, *direction))
            })
            .map_or_else(Vec::new, |(moving, direction)| {
                let filter =
                    owners.filter_for(entity, caster.ignore_self, &caster.filter, &mut own);
                let cast = ShapeCast {
                    moving,
                    direction,
                    max_distance: caster.max_distance,
                    ignore_origin_penetration: caster.ignore_origin_penetration,
                };
                spatial.shape_cast_hits_of(&cast, caster.max_hits, &filter)
            });
        let start = cast.map(|(_, pose, direction)| (pose, direction));
        hits.set_if_neq(ShapeHits::new(start, found));
    }
}

/// Warns that `entity`'s caster casts nothing, unless it was already warned
/// about at the previous detection (`before`), and keeps it in `warned`.
fn warn_once(
    before: &EntityHashSet,
    warned: &mut EntityHashSet,
    kind: &str,
    entity: Entity,
    bad: BadCaster,
) {
    if !before.contains(&entity) {
        warn!("bevy_collide2d: {kind} on {entity} casts nothing until fixed: {bad}");
    }
    warned.insert(entity);
}

/// Where a caster on an entity with `transform` starts and which way it
/// goes, in world space: its `origin` placed as a point of the entity, its
/// `direction` turned and scaled as the entity is, then made unit length.
/// `None` for an entity scaled to nothing on an axis, an error for bad
/// input.
fn placement(
    transform: &GlobalTransform,
    origin: Vec2,
    direction: Dir2,
    max_distance: f32,
) -> Result<Option<Ray2d>, BadCaster> {
    let reading = TransformReading::of(&transform.affine());
    let TransformReading { pose, scale, .. } = reading;
    if validate_pose(pose).is_err() || !scale.is_finite() {
        return Err(BadCaster::Transform);
    }
    if scale.cmpeq(Vec2::ZERO).any() {
        return Ok(None);
    }
    let local_direction = direction.as_vec2();
    if !(local_direction.is_finite() && local_direction != Vec2::ZERO) {
        return Err(BadCaster::Direction);
    }
    if max_distance.is_nan() || max_distance < 0.0 {
        return Err(BadCaster::MaxDistance);
    }
    let signed_scale = reading.signed_scale();
    let world_origin = pose.transform_point(origin * signed_scale);
    if !world_origin.is_finite() {
        return Err(BadCaster::Origin);
    }
    let world_direction = Dir2::new(pose.rotation * (local_direction * signed_scale))
        .map_err(|_| BadCaster::Direction)?;
    Ok(Some(Ray2d::new(world_origin, world_direction)))
}

/// The world ray of `caster` on an entity with `transform` (see
/// [`placement`]).
fn world_ray(caster: &RayCaster, transform: &GlobalTransform) -> Result<Option<Ray2d>, BadCaster> {
    placement(
        transform,
        caster.origin,
        caster.direction,
        caster.max_distance,
    )
}

/// The world shape, its pose and the direction of `caster` on an entity
/// with `transform`: the shape scaled and placed as a collider on a child
/// entity at the caster's origin and rotation would be.
fn world_cast(
    caster: &ShapeCaster,
    transform: &GlobalTransform,
) -> Result<Option<(Shape, Isometry2d, Dir2)>, BadCaster> {
    let Some(ray) = placement(
        transform,
        caster.origin,
        caster.direction,
        caster.max_distance,
    )?
    else {
        return Ok(None);
    };
    let rotation = caster.shape_rotation;
    if !(rotation.cos.is_finite() && rotation.sin.is_finite()) {
        return Err(BadCaster::Transform);
    }
    let local = Affine3A::from_rotation_translation(
        Quat::from_rotation_z(rotation.as_radians()),
        caster.origin.extend(0.0),
    );
    let placed = GlobalTransform::from(transform.affine() * local);
    match caster.shape.world_shape(&placed) {
        Ok((shape, pose)) => Ok(Some((shape, pose, ray.direction))),
        Err(ShapeError::ZeroScale(_)) => Ok(None),
        Err(error) => Err(BadCaster::Shape(error)),
    }
}

/// What tells which colliders are a caster's own: its entity's, and those
/// of the [`CollisionBody`] it is part of.
#[derive(SystemParam)]
pub(crate) struct CasterOwners<'w, 's> {
    parents: Query<'w, 's, &'static ChildOf>,
    children: Query<'w, 's, &'static Children>,
    bodies: Query<'w, 's, (), With<CollisionBody>>,
    colliders: Query<'w, 's, (), With<Collider>>,
}

impl CasterOwners<'_, '_> {
    /// `filter`, also leaving out the caster's own colliders when
    /// `ignore_self` (borrowed when there are none to leave out); `own` is
    /// scratch space.
    fn filter_for<'f>(
        &self,
        caster: Entity,
        ignore_self: bool,
        filter: &'f QueryFilter,
        own: &mut Vec<Entity>,
    ) -> Cow<'f, QueryFilter> {
        if !ignore_self {
            return Cow::Borrowed(filter);
        }
        own.clear();
        self.own_colliders(caster, own);
        if own.is_empty() {
            Cow::Borrowed(filter)
        } else {
            Cow::Owned(filter.clone().with_excluded(own.iter().copied()))
        }
    }

    /// The colliders of the body `entity` is part of (the nearest
    /// [`CollisionBody`] among it and its ancestors, which owns its subtree
    /// down to the next body), or `entity`'s own collider when it is part
    /// of none.
    fn own_colliders(&self, entity: Entity, own: &mut Vec<Entity>) {
        let mut at = entity;
        let body = loop {
            if self.bodies.contains(at) {
                break Some(at);
            }
            match self.parents.get(at) {
                Ok(child_of) => at = child_of.parent(),
                Err(_) => break None,
            }
        };
        let Some(body) = body else {
            if self.colliders.contains(entity) {
                own.push(entity);
            }
            return;
        };
        let mut stack = vec![body];
        while let Some(next) = stack.pop() {
            if self.colliders.contains(next) {
                own.push(next);
            }
            let children = self.children.get(next).into_iter().flatten();
            stack.extend(children.filter(|&&child| !self.bodies.contains(child)));
        }
    }
}
