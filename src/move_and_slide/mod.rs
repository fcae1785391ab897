//! [`SpatialQuery::move_and_slide`]: moves a collider through the colliders
//! the way a character controller needs, sliding along what it meets.
//!
//! Each step casts the collider's shape along what is left of the motion,
//! stops it a skin short of the first blocking surface, and turns the rest
//! of the motion along that surface (Godot's and rapier's approach). What
//! platformers add on top, and why:
//! - ground (a surface facing up within the maximum slope) takes away only
//!   the part of the motion along `up`, so walking keeps its horizontal
//!   speed on slopes and gravity does not slide a standing character down;
//! - walls and steep slopes take away the horizontal part, so they cannot be
//!   climbed by walking into them, but falls slide down them;
//! - the skin keeps the collider a little above floors, so that sliding
//!   along a floor made of separate tiles never touches the tiles' sides
//!   (the seams that snag other controllers), and a probe twice the skin
//!   deep finds the ground every frame (no grounded flicker).

use bevy::math::{Dir2, Isometry2d, Rot2, Vec2};
use bevy::prelude::*;
use bevy::shape::Aabb2d;
use smallvec::SmallVec;

use crate::components::Collider;
use crate::geometry::{Contact, MAX_MAGNITUDE, ShapeRef, within_magnitude};
use crate::spatial_query::{QueryFilter, SpatialQuery};

mod queries;
mod slider;

/// Options of [`SpatialQuery::move_and_slide`].
///
/// Distances are in world units (usually pixels); the defaults suit
/// characters some tens of units tall.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveAndSlideConfig {
    /// Which way is up: ground faces it, steps and snapping go along it
    /// (default `Dir2::Y`).
    pub up: Dir2,
    /// The gap kept between the collider and the surfaces it stops at
    /// (default `0.1`). Must be positive: touching surfaces exactly is what
    /// makes controllers snag on the seams between tiles.
    pub skin: f32,
    /// The steepest ground, in radians: a surface whose normal is within
    /// this angle of `up` is walkable ground (default 45°, `PI / 4`).
    pub max_slope: f32,
    /// Ledges up to this high are stepped onto while on the ground
    /// (default `0`: off). Also how far above the collider's lowest point a
    /// corner still counts as ground, so that a rounded collider can stand
    /// on the edge it just stepped onto.
    pub step_height: f32,
    /// When the collider starts on the ground and the motion does not go
    /// up, it sticks to walkable ground up to this far below its end
    /// position (walking down slopes and steps; default `0`).
    pub snap_to_ground: f32,
    /// How many surfaces one call slides along at most (default `6`).
    /// Motion left after that is dropped.
    pub max_iterations: u32,
}

impl Default for MoveAndSlideConfig {
    fn default() -> Self {
        Self {
            up: Dir2::Y,
            skin: 0.1,
            max_slope: core::f32::consts::FRAC_PI_4,
            step_height: 0.0,
            snap_to_ground: 0.0,
            max_iterations: 6,
        }
    }
}

impl MoveAndSlideConfig {
    /// Whether a surface with this outward `normal` is walkable ground to
    /// the controller: within [`Self::max_slope`] of [`Self::up`] (the
    /// same test, tolerance included, that the controller applies to
    /// faces).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// let config = MoveAndSlideConfig::default(); // 45 degrees
    /// assert!(config.is_walkable(Dir2::Y));
    /// assert!(config.is_walkable(Dir2::from_xy(-0.5, 0.866).unwrap())); // 30 degrees
    /// assert!(!config.is_walkable(Dir2::from_xy(-0.866, 0.5).unwrap())); // 60 degrees
    /// assert!(!config.is_walkable(Dir2::NEG_X));
    /// ```
    pub fn is_walkable(&self, normal: Dir2) -> bool {
        normal.dot(self.up.as_vec2()) >= self.min_ground_up()
    }

    /// `cos(max_slope)`, with a hair of tolerance so that a slope of
    /// exactly `max_slope` is ground despite rounding.
    fn min_ground_up(&self) -> f32 {
        self.max_slope.cos() - 1e-5
    }

    /// Whether every value is usable: finite, `skin` positive, the others
    /// not negative, `max_slope` at most a half turn, `up` of unit length.
    pub fn is_valid(&self) -> bool {
        let up = self.up.as_vec2();
        up.is_finite()
            && (up.length_squared() - 1.0).abs() < 1e-3
            && self.skin > 0.0
            && self.skin <= MAX_MAGNITUDE
            && (0.0..=core::f32::consts::PI).contains(&self.max_slope)
            && (0.0..=MAX_MAGNITUDE).contains(&self.step_height)
            && (0.0..=MAX_MAGNITUDE).contains(&self.snap_to_ground)
    }
}

/// A surface that [`SpatialQuery::move_and_slide`] met.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlideHit {
    /// The collider's entity.
    pub entity: Entity,
    /// Where they touched, in world space.
    pub point: Vec2,
    /// The surface's unit normal at `point`, pointing towards the moving
    /// collider.
    pub normal: Dir2,
}

/// What [`SpatialQuery::move_and_slide`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveAndSlideOutput {
    /// Where the collider ends up (its rotation is unchanged).
    pub translation: Vec2,
    /// `translation` minus the start's translation.
    pub moved: Vec2,
    /// Everything the collider touched on the way, in order: what it was
    /// pushed out of at the start, then what it slid along or stepped onto.
    pub hits: Vec<SlideHit>,
    /// Whether it stands on walkable ground at the end (within twice the
    /// skin of it).
    pub grounded: bool,
    /// That ground, when `grounded`. Its entity lets a game carry the
    /// collider along with a moving platform.
    pub ground: Option<SlideHit>,
    /// For each of `hits`, the surface the kept velocity slides along (the
    /// hit's normal, or `up` for a ledge's edge the controller stood on) and
    /// whether it was walkable ground to the controller.
    surfaces: Vec<(Vec2, bool)>,
    /// The call's `up`.
    up: Vec2,
}

impl MoveAndSlideOutput {
    /// `velocity` slid along every surface the collider met, in order, by
    /// the rule the motion itself followed: what a game keeps for the next
    /// frame. Walkable ground takes away only the part of the velocity
    /// along `up` (landing stops the fall, the run goes on); a wall or a
    /// slope steeper than the maximum takes away the horizontal part going
    /// into it and turns a fall into a slide down it, never giving upward
    /// speed the velocity did not have (running at a steep ramp does not
    /// climb it on the next frames); a ceiling is slid along. Nothing is
    /// left where two surfaces make a corner the rest would go into.
    /// [`slide_velocity`] is the plain projection, for a controller of a
    /// game's own.
    pub fn projected_velocity(&self, velocity: Vec2) -> Vec2 {
        let mut slid = velocity;
        for &(surface, walkable) in &self.surfaces {
            slid = slide_by_policy(slid, velocity, surface, walkable, self.up);
        }
        // Sliding along a later surface can lead into an earlier one (in
        // 2D, a corner), whatever the order they were met in.
        let tolerance = -1e-4 * velocity.length();
        if !slid.is_finite() || self.surfaces.iter().any(|&(s, _)| slid.dot(s) < tolerance) {
            return Vec2::ZERO;
        }
        slid
    }

    fn unmoved(translation: Vec2, up: Vec2) -> Self {
        Self {
            translation,
            moved: Vec2::ZERO,
            hits: Vec::new(),
            grounded: false,
            ground: None,
            surfaces: Vec::new(),
            up,
        }
    }
}

/// The surfaces a call met, in order, and what the kept velocity slides
/// along for each ([`MoveAndSlideOutput::surfaces`]).
#[derive(Default)]
struct Touched {
    hits: Vec<SlideHit>,
    surfaces: Vec<(Vec2, bool)>,
}

impl Touched {
    /// Notes `hit`, `walkable` or not: a ledge's edge stood on (walkable
    /// but steeper than ground) is ground facing `up` to the velocity kept,
    /// or walking onto a step would throw the character up.
    fn push(&mut self, hit: SlideHit, walkable: bool, up: Vec2, min_ground_up: f32) {
        let normal = hit.normal.as_vec2();
        let edge = walkable && normal.dot(up) < min_ground_up;
        self.hits.push(hit);
        self.surfaces
            .push((if edge { up } else { normal }, walkable));
    }
}

/// What is left of `remaining` after meeting a surface with `normal`
/// (`walkable` ground or not), `motion` being the whole move's and `up`
/// unit: the controller's rule, for the motion of a call and for the
/// velocity kept after it.
fn slide_by_policy(remaining: Vec2, motion: Vec2, normal: Vec2, walkable: bool, up: Vec2) -> Vec2 {
    let into = remaining.dot(normal);
    if into >= 0.0 {
        return remaining;
    }
    let normal_up = normal.dot(up);
    if walkable && normal_up > 1e-3 {
        // Only along `up`: the horizontal part stays whole.
        return remaining - up * (into / normal_up);
    }
    let slid = if normal_up >= 0.0 {
        // A wall or a steep slope: the horizontal part stops against it
        // rather than turning into a climb; a fall slides down it.
        let vertical = up * remaining.dot(up);
        let horizontal = remaining - vertical;
        let side = (normal - up * normal_up).normalize_or_zero();
        let across = horizontal.dot(side);
        let horizontal = if across < 0.0 {
            horizontal - side * across
        } else {
            horizontal
        };
        let fall = vertical.dot(normal);
        let vertical = if fall < 0.0 {
            vertical - normal * fall
        } else {
            vertical
        };
        horizontal + vertical
    } else {
        // A ceiling: slide along it.
        remaining - normal * into
    };
    // No rise the motion did not ask for: walking up a slope into a wall
    // stops instead of climbing the wall.
    let rise_limit = remaining.dot(up).min(motion.dot(up)).max(0.0);
    let rise = slid.dot(up);
    if rise > rise_limit {
        slid - up * (rise - rise_limit)
    } else {
        slid
    }
}

/// `velocity` slid along surfaces with these outward `normals`: the
/// velocity nearest to it that goes into none of them. The part going into
/// a surface is removed, and nothing is left when two of them make a corner
/// that the rest would go into, whichever is listed first. The plain
/// projection, for a controller of a game's own
/// ([`MoveAndSlideOutput::projected_velocity`] follows the controller's
/// rules for walls and ground).
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_collide2d::slide_velocity;
/// // Running right and falling onto a floor: the fall stops, the run goes on.
/// assert_eq!(slide_velocity(Vec2::new(100.0, -50.0), [Dir2::Y]), Vec2::new(100.0, 0.0));
/// // Into a corner of a floor and a wall: stopped.
/// assert_eq!(slide_velocity(Vec2::new(100.0, -50.0), [Dir2::Y, Dir2::NEG_X]), Vec2::ZERO);
/// // Moving away from a surface keeps the whole velocity.
/// assert_eq!(slide_velocity(Vec2::new(0.0, 30.0), [Dir2::Y]), Vec2::new(0.0, 30.0));
/// // Into the wedge of a sloping ceiling and a floor: stopped, in either order.
/// let ceiling = Dir2::new(Vec2::new(-1.0, -2.0)).unwrap();
/// let into_wedge = Vec2::new(1.0, -1.0);
/// assert_eq!(slide_velocity(into_wedge, [ceiling, Dir2::Y]), Vec2::ZERO);
/// assert_eq!(slide_velocity(into_wedge, [Dir2::Y, ceiling]), Vec2::ZERO);
/// ```
pub fn slide_velocity(velocity: Vec2, normals: impl IntoIterator<Item = Dir2>) -> Vec2 {
    let normals: SmallVec<[Vec2; 8]> = normals.into_iter().map(|n| n.as_vec2()).collect();
    // Rounding of the projections, relative to the velocity.
    let tolerance = -1e-5 * velocity.length();
    let allowed = |v: Vec2| normals.iter().all(|&normal| v.dot(normal) >= tolerance);
    if allowed(velocity) {
        return velocity;
    }
    // The allowed velocities make a cone at zero; the nearest one to a
    // velocity outside it lies on the line of a surface it goes into, or is
    // zero, where two such lines meet.
    (normals.iter())
        .filter(|&&normal| velocity.dot(normal) < 0.0)
        .map(|&normal| velocity - normal * velocity.dot(normal))
        .filter(|&slid| allowed(slid))
        .max_by(|x, y| x.length_squared().total_cmp(&y.length_squared()))
        .unwrap_or(Vec2::ZERO)
}

/// Pushes out of overlaps at the start take at most this many rounds.
const DEPENETRATION_ROUNDS: usize = 4;

/// A hit whose normal is this close to perpendicular to the motion, or
/// turned away from it, does not block: the shapes only graze (or the
/// collider is already leaving something it overlaps).
const GRAZE: f32 = 1e-6;

/// Motion shorter than this is none (relative to the skin).
const STILL: f32 = 1e-4;

impl SpatialQuery<'_, '_> {
    /// Moves `collider` from `pose` by `motion`, sliding along what it meets
    /// instead of stopping, among the colliders `filter` accepts: where it
    /// ends up, what it touched on the way, and the ground it stands on.
    ///
    /// The collider keeps `config.skin` away from the surfaces it stops at
    /// and never ends inside a collider it was outside of. Walkable ground
    /// (see [`MoveAndSlideConfig::max_slope`]) keeps the horizontal part of
    /// the motion: walking up and down slopes keeps its horizontal speed,
    /// and gravity does not slide a standing collider down a walkable slope.
    /// Walls and steep slopes stop the horizontal part of the motion and
    /// let it slide down them, never up (a steep slope cannot be walked
    /// up). A corner between two surfaces stops it. Ledges up to
    /// `config.step_height` are stepped onto, and with
    /// `config.snap_to_ground` it follows the ground down. A
    /// [`OneWayPlatform`](crate::OneWayPlatform) blocks only from its side.
    ///
    /// **Exclude the moving collider's own entity through `filter`**
    /// (`with_excluded([entity])`), or it collides with itself where
    /// detection last saw it. `collider` is taken at its own size (no
    /// transform scale applies), and the query sees colliders where the
    /// last detection saw them (see [`SpatialQuery`]).
    ///
    /// A collider that starts overlapping or touching others is first
    /// pushed out of them ([`depenetrate`](Self::depenetrate)), the
    /// shortest way out of all of them at once, a skin clear.
    /// If that does not get it all the way out (squeezed between
    /// colliders), it stays where it started rather than trade one overlap
    /// for another, and moves only away from what it overlaps.
    ///
    /// Velocity is the caller's: the output says where the collider went,
    /// and a game typically zeroes its fall speed while `grounded`. The
    /// collider's rotation never changes.
    ///
    /// Bad input (a NaN or infinite motion, pose or config value, an
    /// invalid collider, see [`MoveAndSlideConfig::is_valid`]) leaves the
    /// collider where it is with no hits and never panics.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// #[derive(Component)]
    /// struct Player {
    ///     velocity: Vec2,
    /// }
    ///
    /// fn move_player(
    ///     time: Res<Time>,
    ///     spatial: SpatialQuery,
    ///     mut players: Query<(Entity, &Collider, &mut Transform, &mut Player)>,
    /// ) {
    ///     let config = MoveAndSlideConfig {
    ///         step_height: 6.0,
    ///         snap_to_ground: 4.0,
    ///         ..default()
    ///     };
    ///     for (entity, collider, mut transform, mut player) in &mut players {
    ///         player.velocity.y -= 900.0 * time.delta_secs();
    ///         let pose = pose_of(&transform);
    ///         let motion = player.velocity * time.delta_secs();
    ///         let filter = QueryFilter::default().with_excluded([entity]);
    ///         let out = spatial.move_and_slide(collider, pose, motion, &config, &filter);
    ///         transform.translation = out.translation.extend(transform.translation.z);
    ///         if out.grounded {
    ///             player.velocity.y = 0.0;
    ///         }
    ///     }
    /// }
    /// # bevy::ecs::system::assert_is_system(move_player);
    /// ```
    pub fn move_and_slide(
        &self,
        collider: &Collider,
        pose: Isometry2d,
        motion: Vec2,
        config: &MoveAndSlideConfig,
        filter: &QueryFilter,
    ) -> MoveAndSlideOutput {
        self.move_and_slide_with(collider, pose, motion, config, filter, |_, _| {})
    }

    /// Where `collider` at `pose` ends up when pushed out of what it
    /// overlaps or touches among the colliders `filter` accepts, a
    /// `config.skin` clear of each (the first thing
    /// [`move_and_slide`](Self::move_and_slide) does), and the surfaces it
    /// was pushed out of. The pushes of all its contacts (each part of a
    /// compound on its own) are combined as
    /// [`push_out`](crate::geometry::push_out) combines them, so a collider
    /// wedged where two slopes meet goes out between them, upward. The
    /// position is `pose.translation`, with no surfaces, when a few rounds
    /// do not get it all the way out (squeezed between surfaces that face
    /// each other) or the input is invalid.
    /// [`OneWayPlatform`](crate::OneWayPlatform)s are left alone. With
    /// [`cast_shape`](Self::cast_shape) and [`slide_velocity`], a building
    /// block of a controller of a game's own.
    pub fn depenetrate(
        &self,
        collider: &Collider,
        pose: Isometry2d,
        config: &MoveAndSlideConfig,
        filter: &QueryFilter,
    ) -> (Vec2, Vec<SlideHit>) {
        let Some((slider, pose)) = Slider::checked(self, collider, pose, config, filter) else {
            return (pose.translation, Vec::new());
        };
        let mut touched = Touched::default();
        let at = slider.depenetrate(pose.translation, &mut touched);
        (at, touched.hits)
    }

    /// [`move_and_slide`](Self::move_and_slide), calling `on_hit` with each
    /// surface it slides along and the motion left after sliding along it,
    /// which `on_hit` may change: set it to zero to stop there (a wall-jump
    /// catching the wall), turn it, or keep it. Its policy of ground, steps
    /// and walls is otherwise the same.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// fn move_player(spatial: SpatialQuery, player: Single<(Entity, &Collider, &mut Transform)>) {
    ///     let (entity, collider, mut transform) = player.into_inner();
    ///     let filter = QueryFilter::default().with_excluded([entity]);
    ///     let mut on_wall = None;
    ///     let out = spatial.move_and_slide_with(
    ///         collider,
    ///         pose_of(&transform),
    ///         Vec2::new(4.0, -2.0),
    ///         &MoveAndSlideConfig::default(),
    ///         &filter,
    ///         |hit, rest| {
    ///             // Cling to walls: stop at the first one.
    ///             if hit.normal.y.abs() < 0.1 {
    ///                 on_wall = Some(hit.entity);
    ///                 *rest = Vec2::ZERO;
    ///             }
    ///         },
    ///     );
    ///     transform.translation = out.translation.extend(transform.translation.z);
    /// #   let _ = on_wall;
    /// }
    /// # bevy::ecs::system::assert_is_system(move_player);
    /// ```
    pub fn move_and_slide_with(
        &self,
        collider: &Collider,
        pose: Isometry2d,
        motion: Vec2,
        config: &MoveAndSlideConfig,
        filter: &QueryFilter,
        mut on_hit: impl FnMut(&SlideHit, &mut Vec2),
    ) -> MoveAndSlideOutput {
        let checked = Slider::checked(self, collider, pose, config, filter);
        let Some((slider, pose)) = checked.filter(|_| within_magnitude(motion)) else {
            return MoveAndSlideOutput::unmoved(pose.translation, config.up.as_vec2());
        };
        let mut out = slider.run(pose.translation, motion, &mut on_hit);
        if !out.translation.is_finite() {
            // Only reachable at magnitudes near the limits; keep the promise.
            return MoveAndSlideOutput::unmoved(pose.translation, slider.up);
        }
        out.moved = out.translation - pose.translation;
        out
    }
}

/// A contact with a collider (the part of it, for a compound).
type PartContact = (Entity, Option<u32>, Contact);

/// A blocking hit of a cast, with what the step needs beyond [`SlideHit`].
#[derive(Clone, Copy, Debug)]
struct Blocked {
    hit: SlideHit,
    /// How far along the cast the collider touches.
    distance: f32,
    /// The target's index in [`SpatialQuery::colliders`].
    index: usize,
}

/// One call's state that does not change while it runs.
struct Slider<'a, 'w, 's> {
    spatial: &'a SpatialQuery<'w, 's>,
    shape: ShapeRef<'a>,
    rotation: Rot2,
    filter: &'a QueryFilter,
    up: Vec2,
    skin: f32,
    step_height: f32,
    snap_to_ground: f32,
    max_iterations: u32,
    /// `cos(max_slope)`: ground normals have at least this much `up`.
    min_ground_up: f32,
    /// How far the collider reaches below its centre, along `-up`.
    foot_reach: f32,
    /// Whether any collider is a [`OneWayPlatform`](crate::OneWayPlatform):
    /// most worlds have none, and then no hit needs looking up.
    one_way: bool,
    /// The colliders around the motion, once gathered ([`Nearby`]).
    nearby: Option<Nearby>,
}

/// The colliders whose boxes overlap `region` (in the sets the filter's
/// layers can meet, as every lookup of the call skips the others),
/// gathered once per call: the call's lookups (the contacts it is pushed
/// out of, the ground below, each slide, each step, the snap) are short and
/// near one another, and looking through a handful of boxes costs less
/// than walking the grids for each. A lookup that leaves `region` walks the
/// grids as before, with the same result.
struct Nearby {
    region: Aabb2d,
    /// Each collider's index in [`SpatialQuery::colliders`] and box. The
    /// filter is asked only for those on a cast's path: reading a
    /// collider's entity is a cache miss.
    colliders: Vec<(usize, Aabb2d)>,
}

/// [`Nearby`] reaches this many times the collider's size beyond it at
/// most: a longer motion (a teleport) gathers nothing and casts as before.
const NEARBY_REACH: f32 = 4.0;

/// [`Nearby`] holds at most this many colliders: among tiles much smaller
/// than the collider, each cast would look through more than the grids
/// show it, and the call walks the grids instead.
const NEARBY_MOST: usize = 64;

#[cfg(test)]
mod tests {
    use bevy::ecs::system::SystemState;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::*;
    use crate::components::OneWayPlatform;
    use crate::components::{CollisionLayers, StaticCollider};
    use crate::plugin::CollisionPlugin;

    /// The nearest velocity that goes into none of the surfaces, in f64 by
    /// another route: the velocity itself if allowed, else its projection
    /// on each edge ray of the allowed cone that is allowed, else zero.
    fn nearest_allowed(velocity: Vec2, normals: &[Vec2]) -> Vec2 {
        let v = velocity.as_dvec2();
        let allowed = |p: bevy::math::DVec2| {
            normals
                .iter()
                .all(|n| p.dot(n.as_dvec2()) >= -1e-9 * v.length())
        };
        if allowed(v) {
            return velocity;
        }
        let rays = normals.iter().flat_map(|n| [n.perp(), -n.perp()]);
        rays.map(|ray| ray.as_dvec2() * v.dot(ray.as_dvec2()).max(0.0))
            .filter(|&p| allowed(p))
            .min_by(|a, b| a.distance(v).total_cmp(&b.distance(v)))
            .unwrap_or_default()
            .as_vec2()
    }

    /// Every pair of surfaces, in both orders, and velocities all around:
    /// the slid velocity goes into neither surface, is the nearest such
    /// velocity, and does not depend on the order (a sloping ceiling listed
    /// first and a floor after it made a wedge the slide went into).
    #[test]
    fn slide_velocity_is_the_nearest_velocity_into_no_surface() {
        let mut rng = StdRng::seed_from_u64(4607);
        for case in 0..20_000 {
            let normals = [0, 1].map(|_| Vec2::from_angle(rng.random_range(-3.2..3.2)));
            let velocity =
                Vec2::from_angle(rng.random_range(-3.2..3.2)) * rng.random_range(0.1..500.0);
            let dirs = normals.map(|n| Dir2::new(n).unwrap());
            let [one, other] = [dirs, [dirs[1], dirs[0]]].map(|d| slide_velocity(velocity, d));
            let what = format!("case {case}: {velocity} along {normals:?}: {one} / {other}");
            assert!(one.distance(other) <= 1e-3 * velocity.length(), "{what}");
            for n in normals {
                assert!(one.dot(n) >= -1e-4 * velocity.length(), "{what}: into {n}");
            }
            let nearest = nearest_allowed(velocity, &normals);
            assert!(
                one.distance(nearest) <= 1e-3 * velocity.length(),
                "{what}: nearest {nearest}"
            );
        }
        // The wedge of the issue: a ceiling sloping down to the right, and a
        // floor; moving down-right goes into both.
        let ceiling = Dir2::new(Vec2::new(-1.0, -2.0)).unwrap();
        assert_eq!(
            slide_velocity(Vec2::new(1.0, -1.0), [ceiling, Dir2::Y]),
            Vec2::ZERO
        );
    }

    /// The velocity kept after a call whose hits are `surfaces` (each a
    /// normal, and whether the controller walked on it), under the default
    /// config's slope limit.
    fn kept_after(surfaces: &[(Vec2, bool)], velocity: Vec2) -> Vec2 {
        let config = MoveAndSlideConfig::default();
        let mut touched = Touched::default();
        for &(normal, walkable) in surfaces {
            let hit = SlideHit {
                entity: Entity::PLACEHOLDER,
                point: Vec2::ZERO,
                normal: Dir2::new(normal).unwrap(),
            };
            touched.push(hit, walkable, Vec2::Y, config.min_ground_up());
        }
        let out = MoveAndSlideOutput {
            hits: touched.hits,
            surfaces: touched.surfaces,
            ..MoveAndSlideOutput::unmoved(Vec2::ZERO, Vec2::Y)
        };
        out.projected_velocity(velocity)
    }

    /// The kept velocity: into the wedge of a sloping ceiling and a floor
    /// in either order nothing is left; a ledge's edge stood on stops the
    /// fall without throwing the character up; a wall walkable under a
    /// slope limit of a right angle gives a finite velocity.
    #[test]
    fn projected_velocity_stops_in_wedges_and_does_not_launch_off_edges() {
        let ceiling = Vec2::new(-1.0, -2.0).normalize();
        for surfaces in [
            [(ceiling, false), (Vec2::Y, true)],
            [(Vec2::Y, true), (ceiling, false)],
        ] {
            assert_eq!(
                kept_after(&surfaces, Vec2::new(1.0, -1.0)),
                Vec2::ZERO,
                "{surfaces:?}"
            );
        }
        let edge = Vec2::new(-0.958, 0.287).normalize();
        for velocity in [Vec2::new(200.0, 0.0), Vec2::new(200.0, -30.0)] {
            let kept = kept_after(&[(edge, true)], velocity);
            assert_eq!(kept, Vec2::new(200.0, 0.0), "{velocity}");
        }
        // A steep ramp the controller does not walk: no climb either.
        let ramp = Vec2::new(-0.89, 0.45).normalize();
        let kept = kept_after(&[(ramp, false)], Vec2::new(200.0, -15.0));
        assert!(kept.y <= 0.0 && kept.x <= 0.0, "{kept}");
        // Walkable walls (a slope limit of a right angle): finite.
        let wall = slide_by_policy(
            Vec2::new(100.0, -5.0),
            Vec2::new(100.0, -5.0),
            Vec2::NEG_X,
            true,
            Vec2::Y,
        );
        assert!(wall.is_finite() && wall.x <= 0.0, "{wall}");
    }

    /// Lookups through the colliders gathered around a call find what
    /// lookups through the grids find: random calls among tiles, a ramp,
    /// turned moving capsules on a layer of their own and one-way platforms,
    /// short motions and long ones, with and without steps and snapping,
    /// with filters that exclude entities, leave out the moving colliders
    /// by layer or ask a predicate, end the same either way.
    #[test]
    fn gathered_casts_find_what_the_grids_find() {
        let mut rng = StdRng::seed_from_u64(3);
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()));
        let world = app.world_mut();
        for x in 0..40 {
            world.spawn((
                Transform::from_xyz(x as f32 * 8.0, 0.0, 0.0),
                Collider::rect(8.0, 8.0),
                StaticCollider,
            ));
        }
        for _ in 0..60 {
            let at = Vec3::new(
                rng.random_range(0.0..320.0),
                rng.random_range(8.0..80.0),
                0.0,
            );
            let tile = (Transform::from_translation(at), Collider::rect(8.0, 8.0));
            match rng.random_range(0..4) {
                0 => world.spawn((tile, StaticCollider)),
                1 => world.spawn((tile, OneWayPlatform::default())),
                // Moving capsules on a layer of their own, which a filter
                // can leave out as a whole.
                2 => world.spawn((
                    tile.0
                        .with_rotation(Quat::from_rotation_z(rng.random_range(0.0..3.0))),
                    Collider::capsule(2.0, 6.0),
                    CollisionLayers::new(0b10, u32::MAX),
                )),
                _ => world.spawn(tile),
            };
        }
        let ramp =
            Collider::convex_polygon(&[Vec2::ZERO, Vec2::new(60.0, 0.0), Vec2::new(60.0, 30.0)])
                .unwrap();
        world.spawn((Transform::from_xyz(200.0, 4.0, 0.0), ramp, StaticCollider));
        app.update();
        let entities: Vec<Entity> = (app.world_mut().query_filtered::<Entity, With<Collider>>())
            .iter(app.world())
            .collect();
        let mut state: SystemState<SpatialQuery> = SystemState::new(app.world_mut());
        let spatial = state.get(app.world()).unwrap();
        let filters = [
            QueryFilter::default(),
            QueryFilter::default().with_excluded(entities.iter().copied().step_by(3)),
            QueryFilter::default().with_layers(CollisionLayers::new(0b1, 0b1)),
            QueryFilter::default().with_predicate(|entity| entity.index_u32() % 2 == 0),
        ];
        let (mut gathered_calls, mut compared) = (0, 0);
        for case in 0..4000 {
            let filter = &filters[case % filters.len()];
            let collider = match case % 3 {
                0 => Collider::capsule(3.0, 4.0),
                1 => Collider::circle(rng.random_range(1.0..5.0)),
                _ => Collider::rect(rng.random_range(2.0..10.0), rng.random_range(2.0..10.0)),
            };
            let pose = Isometry2d::new(
                Vec2::new(rng.random_range(-10.0..330.0), rng.random_range(4.0..90.0)),
                Rot2::radians(if case % 4 == 0 {
                    rng.random_range(0.0..1.0)
                } else {
                    0.0
                }),
            );
            let reach = if case % 10 == 0 { 200.0 } else { 8.0 };
            let motion = Vec2::new(
                rng.random_range(-reach..reach),
                rng.random_range(-reach..reach),
            );
            let config = MoveAndSlideConfig {
                step_height: if rng.random_bool(0.5) { 4.0 } else { 0.0 },
                snap_to_ground: if rng.random_bool(0.5) { 4.0 } else { 0.0 },
                ..default()
            };
            let out = spatial.move_and_slide(&collider, pose, motion, &config, filter);
            // The same call, every lookup walking the grids.
            let Some((slider, pose)) = Slider::checked(&spatial, &collider, pose, &config, filter)
            else {
                continue;
            };
            gathered_calls += usize::from(slider.gather(pose.translation, motion).is_some());
            let mut touched = Touched::default();
            let at = slider.depenetrate(pose.translation, &mut touched);
            let mut walked = slider.run_from(at, motion, touched, &mut |_, _| {});
            walked.moved = walked.translation - pose.translation;
            assert_eq!(
                out, walked,
                "case {case}: {collider:?} at {pose:?} by {motion}"
            );
            compared += usize::from(!out.hits.is_empty());
        }
        assert!(
            gathered_calls > 2500 && compared > 1500,
            "{gathered_calls} {compared}"
        );
    }
}
