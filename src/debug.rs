//! [`CollisionDebugPlugin`]: draws every collider and every contact with
//! gizmos, so what the plugin detects can be seen.
//!
//! Requires Bevy's `GizmoPlugin` (part of `DefaultPlugins` when the
//! `bevy_gizmos` feature is on) and [`CollisionPlugin`](crate::CollisionPlugin).
//!
//! The overlay is a gizmo config group, [`CollisionGizmos`], so it is switched
//! on and off, recoloured and restyled at runtime through Bevy's
//! [`GizmoConfigStore`]:
//!
//! ```no_run
//! # use bevy::prelude::*;
//! # use bevy_collide2d::CollisionGizmos;
//! fn toggle_overlay(keys: Res<ButtonInput<KeyCode>>, mut store: ResMut<GizmoConfigStore>) {
//!     if keys.just_pressed(KeyCode::KeyD) {
//!         let (config, style) = store.config_mut::<CollisionGizmos>();
//!         config.enabled = !config.enabled;
//!         style.normal_length = 40.0;
//!     }
//! }
//! ```
//!
//! While the group is disabled the drawing systems do not run at all (a run
//! condition checks the flag), so a disabled overlay costs one resource read
//! per frame.
//!
//! One collider is drawn its own way with a [`DebugRender`] on its entity: a
//! colour of its own, or not at all.

use bevy::color::Color;
use bevy::gizmos::GizmoPlugin;
use bevy::gizmos::config::{GizmoConfigGroup, GizmoConfigStore};
use bevy::gizmos::gizmos::Gizmos;
use bevy::prelude::*;
use bevy::transform::TransformSystems;

use crate::components::{Collider, ColliderDisabled, CollidingEntities};
use crate::geometry::{Manifold, Shape};
use crate::plugin::CollisionSystems;
use crate::spatial_query::{QueryLog, QueryRecord, SpatialQuery};
use crate::stages::collisions::{Collisions, ContactPair};

/// Draws colliders and contacts with gizmos.
///
/// Every collider's outline is drawn at its true pose (position, rotation and
/// scale from its [`GlobalTransform`]), in
/// [`CollisionGizmos::collider_color`] or, while it touches something
/// ([`CollidingEntities`] not empty), in
/// [`CollisionGizmos::colliding_color`]. Every contact in [`Collisions`] is
/// drawn as a small circle at its point, an arrow along its normal (from the
/// first entity of the pair towards the second) and a segment as long as its
/// depth; and its [manifold](crate::Manifold) as a cross at each of its one
/// or two points, joined by a line when there are two (a face resting on a
/// face).
///
/// A [`DebugRender`] on a collider's entity gives it a colour of its own, or
/// hides it.
///
/// Drawing happens in [`PostUpdate`] after transform propagation and after
/// [`CollisionSystems::Events`], so it shows this frame's detection. When the
/// [`CollisionPlugin`](crate::CollisionPlugin) runs in another schedule
/// (e.g. `FixedPostUpdate`), the contacts drawn are the latest ones it found.
///
/// Configure it through [`GizmoConfigStore`] with
/// `store.config_mut::<CollisionGizmos>()`: the [`GizmoConfig`] half holds
/// `enabled` and the line width, the [`CollisionGizmos`] half holds colours
/// and sizes.
#[derive(Clone, Copy, Debug)]
pub struct CollisionDebugPlugin {
    /// Whether the overlay is drawn from the start (default `true`). Either
    /// way it can be toggled later through [`GizmoConfigStore`].
    pub enabled: bool,
}

impl CollisionDebugPlugin {
    /// The overlay registered but switched off, to be enabled at runtime.
    pub const fn disabled() -> Self {
        Self { enabled: false }
    }
}

impl Default for CollisionDebugPlugin {
    fn default() -> Self {
        Self { enabled: true }
    }
}

/// The gizmo config group of [`CollisionDebugPlugin`]: colours and sizes of
/// the overlay. Read and change it with
/// `GizmoConfigStore::config_mut::<CollisionGizmos>()`.
#[derive(Clone, Debug, Reflect, GizmoConfigGroup)]
#[reflect(Default, Clone)]
pub struct CollisionGizmos {
    /// Outline of a collider that touches nothing.
    pub collider_color: Color,
    /// Outline of a collider that touches at least one other.
    pub colliding_color: Color,
    /// The circle marking a contact point.
    pub point_color: Color,
    /// The arrow along a contact normal.
    pub normal_color: Color,
    /// The segment showing a contact's depth.
    pub depth_color: Color,
    /// Length of the normal arrow, in world units.
    pub normal_length: f32,
    /// Radius of the circle marking a contact point, in world units.
    pub point_radius: f32,
    /// Draw collider outlines.
    pub draw_colliders: bool,
    /// Draw contact points, normals and depths.
    pub draw_contacts: bool,
    /// Draw each contact's [manifold](crate::Manifold): a cross at each of
    /// its points, and the line between them when there are two. On by
    /// default; each is computed when drawn
    /// ([`SpatialQuery::manifolds`](crate::SpatialQuery::manifolds)), so a
    /// scene of thousands of contacts draws faster without.
    pub draw_manifolds: bool,
    /// The colour of the manifolds drawn.
    pub manifold_color: Color,
    /// Also draw each collider's axis-aligned bounding box (what the broad
    /// phase compares), faintly. Off by default.
    pub draw_aabbs: bool,
    /// Also draw the frame's [`SpatialQuery`](crate::SpatialQuery) rays
    /// (`cast_ray`, `ray_hits`), shape casts and point projections: each
    /// ray or cast to where it stopped, its hits with their normals, each
    /// projection as a line to the point found. What an AI that "can't
    /// see" the player looked along. Off by default (queries are then not
    /// kept at all).
    pub draw_queries: bool,
    /// The colour of the queries drawn.
    pub query_color: Color,
}

impl Default for CollisionGizmos {
    fn default() -> Self {
        Self {
            collider_color: Color::srgb(0.35, 0.85, 1.0),
            colliding_color: Color::srgb(1.0, 0.3, 0.25),
            point_color: Color::srgb(1.0, 0.95, 0.2),
            normal_color: Color::srgb(1.0, 0.55, 0.1),
            depth_color: Color::srgb(1.0, 0.1, 0.9),
            normal_length: 30.0,
            point_radius: 3.0,
            draw_colliders: true,
            draw_contacts: true,
            draw_manifolds: true,
            manifold_color: Color::srgb(0.3, 1.0, 0.95),
            draw_aabbs: false,
            draw_queries: false,
            query_color: Color::srgb(0.5, 1.0, 0.4),
        }
    }
}

/// How [`CollisionDebugPlugin`] draws one collider: put it on the
/// collider's entity to give it a colour of its own, or to hide it (a big
/// level whose outline hides the rest, a trigger zone).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_collide2d::prelude::*;
///
/// fn spawn(mut commands: Commands) {
///     // Always drawn in gold, touching or not.
///     commands.spawn((Collider::circle(8.0), DebugRender::colored(Color::srgb(1.0, 0.8, 0.2))));
///     // Not drawn (its contacts with colliders that are drawn still are).
///     commands.spawn((Collider::rect(2000.0, 20.0), DebugRender::hidden()));
/// }
/// # bevy::ecs::system::assert_is_system(spawn);
/// ```
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq, Clone)]
pub struct DebugRender {
    /// The outline's colour (and its bounding box's), whether it touches
    /// something or not, instead of [`CollisionGizmos::collider_color`] and
    /// [`CollisionGizmos::colliding_color`]; `None` keeps those.
    pub color: Option<Color>,
    /// Draw neither its outline nor its bounding box. The contacts and
    /// manifolds of its pairs are still drawn, unless the other collider of
    /// the pair is hidden too.
    pub hidden: bool,
}

impl DebugRender {
    /// Drawn in `color`, touching or not.
    pub const fn colored(color: Color) -> Self {
        Self {
            color: Some(color),
            hidden: false,
        }
    }

    /// Not drawn.
    pub const fn hidden() -> Self {
        Self {
            color: None,
            hidden: true,
        }
    }
}

impl Plugin for CollisionDebugPlugin {
    fn build(&self, app: &mut App) {
        app.init_gizmo_group::<CollisionGizmos>()
            .register_type::<DebugRender>();
        app.world_mut()
            .resource_mut::<GizmoConfigStore>()
            .config_mut::<CollisionGizmos>()
            .0
            .enabled = self.enabled;

        app.add_systems(
            PostUpdate,
            (draw_colliders, draw_contacts, draw_manifolds, draw_queries)
                .after(TransformSystems::Propagate)
                .after(CollisionSystems::Events)
                .run_if(collision_gizmos_enabled),
        )
        // Every frame, drawn or not: queries are kept only while drawn.
        .add_systems(Last, keep_queries_while_drawn);
    }

    fn finish(&self, app: &mut App) {
        assert!(
            app.is_plugin_added::<GizmoPlugin>(),
            "CollisionDebugPlugin needs Bevy's GizmoPlugin (in DefaultPlugins with the `bevy_gizmos` feature)"
        );
        assert!(
            app.world().contains_resource::<Collisions>(),
            "CollisionDebugPlugin needs CollisionPlugin"
        );
    }
}

/// Run condition: whether the [`CollisionGizmos`] group is enabled in the
/// [`GizmoConfigStore`]. The overlay's systems use it so that they do not run
/// at all while it is off; use it for your own debug drawing too.
pub fn collision_gizmos_enabled(store: Res<GizmoConfigStore>) -> bool {
    store
        .get_config::<CollisionGizmos>()
        .is_some_and(|(config, _)| config.enabled)
}

/// Outlines every valid collider at its world pose, coloured by whether it is
/// colliding or by its [`DebugRender`]. Invalid and disabled colliders (which
/// detection skips) and hidden ones are not drawn.
fn draw_colliders(
    mut gizmos: Gizmos<CollisionGizmos>,
    colliders: Query<
        (
            &Collider,
            &GlobalTransform,
            &CollidingEntities,
            Option<&DebugRender>,
        ),
        Without<ColliderDisabled>,
    >,
) {
    // A copy of the `&'w` reference, so `gizmos` stays free to draw with.
    let style = gizmos.config_ext;
    if !style.draw_colliders && !style.draw_aabbs {
        return;
    }
    for (collider, transform, colliding, render) in &colliders {
        let render = render.copied().unwrap_or_default();
        if render.hidden {
            continue;
        }
        // The same pose and scaled shape that detection uses.
        let Ok((shape, pose)) = collider.world_shape(transform) else {
            continue;
        };
        let color = render.color.unwrap_or(if colliding.is_empty() {
            style.collider_color
        } else {
            style.colliding_color
        });
        if style.draw_colliders {
            outline(&mut gizmos, &shape, pose, color);
        }
        if style.draw_aabbs {
            let aabb = shape.aabb(pose);
            gizmos.rect_2d(
                (aabb.min + aabb.max) * 0.5,
                aabb.max - aabb.min,
                color.with_alpha(0.3),
            );
        }
    }
}

/// Draws the queries made since the last drawing (see
/// [`CollisionGizmos::draw_queries`]).
fn draw_queries(mut gizmos: Gizmos<CollisionGizmos>, log: Res<QueryLog>) {
    let style = gizmos.config_ext;
    if !style.draw_queries {
        return;
    }
    let color = style.query_color;
    let mark = |gizmos: &mut Gizmos<CollisionGizmos>, (point, normal): (Vec2, Dir2)| {
        gizmos.circle_2d(point, style.point_radius, color);
        gizmos.line_2d(point, point + *normal * style.normal_length * 0.5, color);
    };
    for record in log.take() {
        match record {
            QueryRecord::Ray { origin, end, hits } => {
                // To the nearest hit, then faintly on.
                let stop = hits.first().map_or(end, |&(point, _)| point);
                gizmos.line_2d(origin, stop, color);
                gizmos.line_2d(stop, end, color.with_alpha(0.25));
                hits.into_iter().for_each(|hit| mark(&mut gizmos, hit));
            }
            QueryRecord::Cast {
                shape,
                start,
                end,
                hit,
            } => {
                outline(&mut gizmos, &shape, start, color.with_alpha(0.5));
                outline(
                    &mut gizmos,
                    &shape,
                    Isometry2d::new(end, start.rotation),
                    color,
                );
                gizmos.line_2d(start.translation, end, color);
                hit.into_iter().for_each(|hit| mark(&mut gizmos, hit));
            }
            QueryRecord::Projection { point, projected } => {
                gizmos.line_2d(point, projected, color);
                gizmos.circle_2d(projected, style.point_radius, color);
            }
        }
    }
}

/// Keeps the frame's queries for [`draw_queries`] only while they are drawn.
fn keep_queries_while_drawn(store: Res<GizmoConfigStore>, log: Res<QueryLog>) {
    let drawn = store
        .get_config::<CollisionGizmos>()
        .is_some_and(|(config, style)| config.enabled && style.draw_queries);
    log.set_recording(drawn);
}

/// Draws `shape` at `pose`: its outline, and a circle's radius along its
/// local x axis to show the rotation.
fn outline(gizmos: &mut Gizmos<CollisionGizmos>, shape: &Shape, pose: Isometry2d, color: Color) {
    match *shape {
        Shape::Circle { radius } => {
            gizmos.circle_2d(pose, radius, color).resolution(48);
            gizmos.line_2d(pose.translation, pose * Vec2::new(radius, 0.0), color);
        }
        Shape::Rect { half_size } => {
            gizmos.rect_2d(pose, half_size * 2.0, color);
        }
        Shape::Capsule {
            radius,
            half_length,
        } => {
            gizmos.primitive_2d(&Capsule2d::new(radius, 2.0 * half_length), pose, color);
        }
        Shape::Segment { a, b } => {
            gizmos.line_2d(pose * a, pose * b, color);
        }
        Shape::Polygon(ref polygon) => {
            let vertices = polygon.vertices();
            let closed = vertices.iter().chain(vertices.first());
            gizmos.linestrip_2d(closed.map(|&v| pose * v), color);
        }
        Shape::Compound(ref compound) => {
            for part in compound.parts() {
                outline(gizmos, &part.shape, pose * part.pose, color);
            }
        }
    }
}

/// Draws each contact of the last detection: its point, its normal (from the
/// pair's first entity to its second) and its depth along the normal.
fn draw_contacts(
    mut gizmos: Gizmos<CollisionGizmos>,
    collisions: Res<Collisions>,
    renders: Query<&DebugRender>,
) {
    let style = gizmos.config_ext;
    if !style.draw_contacts {
        return;
    }
    for pair in collisions.iter() {
        if both_hidden(pair, &renders) {
            continue;
        }
        let contact = pair.contact;
        let normal = *contact.normal;
        gizmos.circle_2d(contact.point, style.point_radius, style.point_color);
        gizmos
            .arrow_2d(
                contact.point,
                contact.point + normal * style.normal_length,
                style.normal_color,
            )
            .with_tip_length(style.normal_length * 0.3);
        if contact.depth > 0.0 {
            // The overlap along the normal, centred on the contact point.
            let half_depth = normal * (contact.depth * 0.5);
            gizmos.line_2d(
                contact.point - half_depth,
                contact.point + half_depth,
                style.depth_color,
            );
        }
    }
}

/// Whether both colliders of `pair` are hidden by their [`DebugRender`].
fn both_hidden(pair: &ContactPair, renders: &Query<&DebugRender>) -> bool {
    let hidden = |entity| renders.get(entity).is_ok_and(|render| render.hidden);
    !renders.is_empty() && hidden(pair.a) && hidden(pair.b)
}

/// Draws each contact's manifolds (computed now, from the colliders as
/// detection saw them, one per touching pair of parts): a cross at each
/// point, along the normal and across it, and the line joining two points.
fn draw_manifolds(
    mut gizmos: Gizmos<CollisionGizmos>,
    collisions: Res<Collisions>,
    spatial: SpatialQuery,
    renders: Query<&DebugRender>,
) {
    let style = gizmos.config_ext;
    if !style.draw_manifolds {
        return;
    }
    for pair in collisions.iter() {
        if both_hidden(pair, &renders) {
            continue;
        }
        // Every touching pair of parts': a crate across two tiles rests on
        // both.
        for manifold in spatial.manifolds(pair.a, pair.b) {
            draw_manifold(
                &mut gizmos,
                &manifold,
                style.point_radius,
                style.manifold_color,
            );
        }
    }
}

/// A cross of half size `size` at each point of `manifold`, along its
/// normal and across it, and the line joining two points.
fn draw_manifold(
    gizmos: &mut Gizmos<CollisionGizmos>,
    manifold: &Manifold,
    size: f32,
    color: Color,
) {
    let (along, across) = (*manifold.normal * size, manifold.normal.perp() * size);
    for point in manifold.points() {
        let at = point.point;
        gizmos.line_2d(at - across, at + across, color);
        gizmos.line_2d(at - along, at + along, color);
    }
    if let [p, q] = manifold.points() {
        gizmos.line_2d(p.point, q.point, color);
    }
}

#[cfg(test)]
mod tests {
    use bevy::asset::AssetApp;
    use bevy::ecs::system::RunSystemOnce;
    use bevy::gizmos::config::GizmoConfig;

    use super::*;

    fn overlay_enabled(world: &mut World) -> bool {
        world
            .run_system_once(collision_gizmos_enabled)
            .expect("the run condition only reads GizmoConfigStore")
    }

    #[test]
    fn run_condition_follows_the_enabled_flag() {
        let mut world = World::new();
        world.init_resource::<GizmoConfigStore>();
        // Group not registered: nothing to draw, and no panic.
        assert!(!overlay_enabled(&mut world));

        world
            .resource_mut::<GizmoConfigStore>()
            .insert(GizmoConfig::default(), CollisionGizmos::default());
        assert!(overlay_enabled(&mut world));

        world
            .resource_mut::<GizmoConfigStore>()
            .config_mut::<CollisionGizmos>()
            .0
            .enabled = false;
        assert!(!overlay_enabled(&mut world));
    }

    /// With `draw_queries` on, the frame's rays reach the overlay's drawing
    /// (and are drawn away); off, nothing is kept.
    #[test]
    fn queries_are_drawn_only_when_asked() {
        #[derive(Resource, Default)]
        struct Seen(Vec<usize>);

        for draw_queries in [true, false] {
            let mut app = App::new();
            app.add_plugins((
                MinimalPlugins,
                bevy::asset::AssetPlugin::default(),
                GizmoPlugin,
                TransformPlugin,
                crate::CollisionPlugin::default(),
                CollisionDebugPlugin::default(),
            ))
            // What GizmoPlugin's own systems read, without a renderer.
            .init_asset::<bevy::mesh::Mesh>()
            .init_asset::<bevy::mesh::skinning::SkinnedMeshInverseBindposes>()
            .init_resource::<Seen>()
            .add_systems(Update, |spatial: crate::SpatialQuery| {
                let filter = crate::QueryFilter::default();
                spatial.cast_ray(Vec2::ZERO, Dir2::X, 100.0, &filter);
            })
            .add_systems(
                PostUpdate,
                (|log: Res<QueryLog>, mut seen: ResMut<Seen>| {
                    let records = log.take();
                    seen.0.push(records.len());
                    // Put back for the overlay to draw.
                    if let Some(QueryRecord::Ray { hits, .. }) = records.first() {
                        assert_eq!(hits.len(), 1);
                    }
                    log.set_recording(true);
                    records.into_iter().for_each(|record| log.record(|| record));
                })
                .before(super::draw_queries),
            );
            app.world_mut()
                .resource_mut::<GizmoConfigStore>()
                .config_mut::<CollisionGizmos>()
                .1
                .draw_queries = draw_queries;
            app.world_mut().spawn((
                crate::Collider::rect(10.0, 10.0),
                Transform::from_xyz(50.0, 0.0, 0.0),
            ));
            for _ in 0..3 {
                app.update();
            }
            let seen = &app.world().resource::<Seen>().0;
            // The first frame's ray comes before the overlay first asks.
            let expected = if draw_queries { [0, 1, 1] } else { [0, 0, 0] };
            assert_eq!(seen[..], expected, "draw_queries {draw_queries}");
            assert!(
                app.world().resource::<QueryLog>().take().is_empty(),
                "drawn away"
            );
        }
    }

    // Building needs no GizmoPlugin (only running the app does), so this
    // checks the registration without a window or renderer.
    #[test]
    fn plugin_registers_the_group_with_its_start_state() {
        for enabled in [true, false] {
            let mut app = App::new();
            app.add_plugins(CollisionDebugPlugin { enabled });
            let store = app.world().resource::<GizmoConfigStore>();
            assert_eq!(store.config::<CollisionGizmos>().0.enabled, enabled);
            assert_eq!(store.config::<CollisionGizmos>().1.normal_length, 30.0);
        }
    }
}
