//! A [`bevy_picking`](bevy::picking) backend for colliders (feature
//! `picking`): pointers hover, click and drag colliders, sprite or not.

use bevy::camera::visibility::RenderLayers;
use bevy::picking::PickingSystems;
use bevy::picking::backend::ray::RayMap;
use bevy::picking::backend::{HitData, PointerHits};
use bevy::prelude::*;

use crate::spatial_query::{QueryFilter, SpatialQuery};

/// Lets pointers pick colliders: Bevy's pointer events ([`PointerOver`],
/// [`PointerOut`], [`PointerClick`], [`PointerDrag`], ...) reach the
/// colliders under the cursor, whether or not they have a sprite or mesh
/// (an invisible trigger, a level editor's handles). Add it beside
/// `DefaultPlugins` (which bring Bevy's picking when its `bevy_picking`
/// feature is on) and [`CollisionPlugin`](crate::CollisionPlugin).
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_collide2d::prelude::*;
/// App::new()
///     .add_plugins((DefaultPlugins, CollisionPlugin::default(), CollisionPickingPlugin))
///     .add_systems(Startup, |mut commands: Commands| {
///         commands.spawn(Camera2d);
///         commands
///             .spawn((Collider::circle(40.0), Transform::default()))
///             .observe(|click: On<PointerClick>| info!("clicked {}", click.entity));
///     })
///     .run();
/// ```
///
/// A collider is under a pointer when it contains the point where the
/// pointer's ray (from [`RayMap`]: any camera, viewport and DPI) crosses
/// the plane `z = 0`; with a 2D orthographic camera that is the cursor's
/// world position, whatever the colliders' `z`. The colliders are seen as
/// [`SpatialQuery`] sees them (the last detection's poses, what was drawn),
/// through [`CollisionPickingSettings::filter`]. Each hit's depth is the
/// distance along the ray to the collider's own `z`, so a collider drawn
/// in front (a higher `z`) is on top, among colliders and sprites alike;
/// its position is that point at the collider's `z`, its normal `+Z`.
/// [`Pickable`] (blocking, hoverable) is honoured by Bevy's picking, and a
/// camera's [`RenderLayers`] as for sprites: a collider without them is on
/// layer 0.
pub struct CollisionPickingPlugin;

impl Plugin for CollisionPickingPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<CollisionPickingSettings>()
            .register_type::<CollisionPickable>()
            .add_systems(PreUpdate, pick_colliders.in_set(PickingSystems::Backend));
    }
}

/// What [`CollisionPickingPlugin`] lets pointers pick.
#[derive(Resource, Clone, Debug, Default)]
pub struct CollisionPickingSettings {
    /// Only cameras and colliders with [`CollisionPickable`] pick and are
    /// picked (default: every camera, every collider).
    pub require_markers: bool,
    /// The colliders pointers see, as a spatial query would (default:
    /// every collider with layers): for example only the layers an editor
    /// selects, or a predicate.
    pub filter: QueryFilter,
}

/// Marks the cameras that pick and the colliders that are picked, when
/// [`CollisionPickingSettings::require_markers`] is set.
#[derive(Component, Clone, Copy, Debug, Default, Reflect)]
#[reflect(Component, Default)]
pub struct CollisionPickable;

/// One [`PointerHits`] per pointer ray of an active camera: the colliders
/// containing the ray's point on `z = 0`.
fn pick_colliders(
    rays: Res<RayMap>,
    cameras: Query<(&Camera, Has<CollisionPickable>, Option<&RenderLayers>)>,
    colliders: Query<(
        &GlobalTransform,
        Has<CollisionPickable>,
        Option<&RenderLayers>,
    )>,
    settings: Res<CollisionPickingSettings>,
    spatial: SpatialQuery,
    mut output: MessageWriter<PointerHits>,
) {
    for (&ray_id, ray) in rays.iter() {
        let Ok((camera, camera_marked, camera_layers)) = cameras.get(ray_id.camera) else {
            continue;
        };
        if !camera.is_active || (settings.require_markers && !camera_marked) {
            continue;
        }
        // A ray along the plane (a camera looking sideways) crosses no 2D
        // point; a ray crossing it behind its origin sees nothing either.
        let Some(to_plane) = ray.intersect_plane(Vec3::ZERO, InfinitePlane3d::new(Vec3::Z)) else {
            continue;
        };
        let point = ray.get_point(to_plane).truncate();
        let camera_layers = camera_layers.unwrap_or_default();
        let picks = spatial
            .point_hits(point, &settings.filter)
            .into_iter()
            .filter_map(|entity| {
                // Despawned since the last detection: nothing to pick.
                let (transform, marked, layers) = colliders.get(entity).ok()?;
                if (settings.require_markers && !marked)
                    || !camera_layers.intersects(layers.unwrap_or_default())
                {
                    return None;
                }
                let z = transform.translation().z;
                let depth = (z - ray.origin.z) / ray.direction.z;
                (depth >= 0.0).then(|| {
                    let position = point.extend(z);
                    let hit = HitData::new(ray_id.camera, depth, Some(position), Some(Vec3::Z));
                    (entity, hit)
                })
            })
            .collect();
        output.write(PointerHits::new(ray_id.pointer, picks, camera.order as f32));
    }
}
