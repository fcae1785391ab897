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
use bevy::shape::{Aabb2d, BoundingVolume, IntersectsVolume};
use smallvec::SmallVec;

use crate::components::{Collider, OneWayPlatform};
use crate::geometry::{
    Contact, MAX_MAGNITUDE, ShapeRef, cast_shape_of, checked_placement, for_each_part_contact,
    push_out, within_magnitude,
};
use crate::spatial_query::{QueryFilter, SpatialQuery};

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
    /// [`OneWayPlatform`] blocks only from its side.
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
    /// [`OneWayPlatform`]s are left alone. With
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
    /// Whether any collider is a [`OneWayPlatform`]:
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

impl<'a, 'w, 's> Slider<'a, 'w, 's> {
    /// The slider of `collider` from `pose`, and the pose checked; `None`
    /// for an invalid collider, pose or config.
    fn checked(
        spatial: &'a SpatialQuery<'w, 's>,
        collider: &'a Collider,
        pose: Isometry2d,
        config: &MoveAndSlideConfig,
        filter: &'a QueryFilter,
    ) -> Option<(Self, Isometry2d)> {
        let shape = collider.shape_ref();
        let pose = checked_placement(shape, pose).ok()?;
        config.is_valid().then(|| {
            (
                Self::new(spatial, shape, pose.rotation, config, filter),
                pose,
            )
        })
    }

    fn new(
        spatial: &'a SpatialQuery<'w, 's>,
        shape: ShapeRef<'a>,
        rotation: Rot2,
        config: &MoveAndSlideConfig,
        filter: &'a QueryFilter,
    ) -> Self {
        let up = config.up.as_vec2().normalize();
        // The box of the shape turned so that `up` is +y: its bottom is the
        // lowest point along `up`.
        let to_up_frame = Rot2::from_sin_cos(up.x, up.y);
        let upright = shape.aabb(Isometry2d::new(Vec2::ZERO, to_up_frame * rotation));
        Self {
            spatial,
            shape,
            rotation,
            filter,
            up,
            skin: config.skin,
            step_height: config.step_height,
            snap_to_ground: config.snap_to_ground,
            max_iterations: config.max_iterations,
            min_ground_up: config.min_ground_up(),
            foot_reach: -upright.min.y,
            one_way: !spatial.one_way_platforms.is_empty(),
            nearby: None,
        }
    }

    /// Moves from `start` by `motion`: out of what it overlaps, along the
    /// surfaces it meets, then onto the ground under its end position.
    fn run(
        &self,
        start: Vec2,
        motion: Vec2,
        on_hit: &mut impl FnMut(&SlideHit, &mut Vec2),
    ) -> MoveAndSlideOutput {
        let gathered = Self {
            nearby: self.gather(start, motion),
            ..*self
        };
        let mut touched = Touched::default();
        let at = gathered.depenetrate(start, &mut touched);
        gathered.run_from(at, motion, touched, on_hit)
    }

    /// [`Self::run`] after depenetrating to `at`.
    fn run_from(
        &self,
        at: Vec2,
        motion: Vec2,
        mut touched: Touched,
        on_hit: &mut impl FnMut(&SlideHit, &mut Vec2),
    ) -> MoveAndSlideOutput {
        // Only stepping and snapping ask whether it starts on the ground.
        let starts_on_ground = (self.step_height > 0.0 || self.snap_to_ground > 0.0)
            && self.ground_below(at, 2.0 * self.skin).is_some();
        let at = self.slide_along(at, motion, starts_on_ground, &mut touched, on_hit);
        let (at, ground) = self.settle(at, motion, starts_on_ground);
        MoveAndSlideOutput {
            translation: at,
            moved: Vec2::ZERO,
            hits: touched.hits,
            grounded: ground.is_some(),
            ground,
            surfaces: touched.surfaces,
            up: self.up,
        }
    }

    /// Moves from `at` by `motion`, stepping over ledges or sliding along
    /// each surface met (at most `max_iterations`), noting them in `hits`;
    /// where it stops.
    fn slide_along(
        &self,
        mut at: Vec2,
        motion: Vec2,
        starts_on_ground: bool,
        touched: &mut Touched,
        on_hit: &mut impl FnMut(&SlideHit, &mut Vec2),
    ) -> Vec2 {
        // Stepping needs a foot on the ground: at the start, or met since.
        let mut on_ground = starts_on_ground;
        let mut remaining = motion;
        let mut planes: Vec<Vec2> = Vec::new();
        let still = STILL * self.skin;
        for _ in 0..self.max_iterations {
            let length = remaining.length();
            if length <= still {
                break;
            }
            let direction = Dir2::new_unchecked(remaining / length);
            let Some(blocked) = self.cast(at, direction, length + self.skin) else {
                at += remaining;
                break;
            };
            let normal = blocked.hit.normal.as_vec2();
            let travel = self.travel(&blocked, direction, length);
            let touch = at + direction * blocked.distance;
            at += direction * travel;
            remaining = direction * (length - travel);
            let walkable = self.is_ground(&blocked, touch);
            touched.push(blocked.hit, walkable, self.up, self.min_ground_up);
            if walkable {
                on_ground = true;
            } else if on_ground
                && self.step_height > 0.0
                && let Some((stepped, ground, left)) = self.step_up(at, remaining, normal)
            {
                at = stepped;
                touched.push(ground.hit, true, self.up, self.min_ground_up);
                remaining = left;
                continue;
            }
            remaining = self.slide(remaining, motion, normal, walkable);
            // In 2D, two surfaces that both oppose the motion make a corner
            // it cannot leave.
            let tolerance = -1e-4 * remaining.length();
            if planes.iter().any(|&plane| remaining.dot(plane) < tolerance) {
                remaining = Vec2::ZERO;
            }
            planes.push(normal);
            on_hit(&blocked.hit, &mut remaining);
            if !within_magnitude(remaining) {
                remaining = Vec2::ZERO;
            }
        }
        at
    }

    /// Settles the end position `at` on the ground under it, snapping down
    /// onto it or backing up to a skin above it: the position, and the
    /// ground if it stands on some.
    fn settle(
        &self,
        mut at: Vec2,
        motion: Vec2,
        starts_on_ground: bool,
    ) -> (Vec2, Option<SlideHit>) {
        // The ground under the end position: twice the skin deep, so that a
        // collider resting a skin above the floor stays grounded, or as far
        // as it may snap down.
        let mut ground = None;
        let reach = self.skin + self.snap_to_ground.max(self.skin);
        if let Some(below) = self.ground_below(at, reach) {
            let down = Dir2::new_unchecked(-self.up);
            let drop = self.travel(&below, down, reach);
            let snaps = motion.dot(self.up) <= 0.0
                && ((starts_on_ground && self.snap_to_ground > 0.0) || drop <= self.skin);
            let mut drop = if snaps { drop } else { 0.0 };
            // Closer than a skin (rolling over a tile's corner tilts the
            // slide a hair down): back up to a skin, so that the gap cannot
            // wear away seam after seam.
            let into = below.hit.normal.dot(self.up);
            let short = (self.skin / into - below.distance).min(self.skin);
            if short > 0.0 {
                let up = Dir2::new_unchecked(self.up);
                drop = -match self.cast(at, up, short + self.skin) {
                    Some(ceiling) => self.travel(&ceiling, up, short),
                    None => short,
                };
            }
            at -= self.up * drop;
            let gap = (below.distance - drop) * into;
            if gap <= 2.0 * self.skin {
                ground = Some(below.hit);
            }
        }
        (at, ground)
    }

    /// How far to move along `direction` towards `blocked`: up to where the
    /// gap along the surface's normal is a skin, at most `length`.
    fn travel(&self, blocked: &Blocked, direction: Dir2, length: f32) -> f32 {
        let into = -blocked.hit.normal.dot(*direction);
        (blocked.distance - self.skin / into).clamp(0.0, length)
    }

    /// What is left of `remaining` after meeting a surface with `normal`;
    /// `motion` is the whole call's.
    fn slide(&self, remaining: Vec2, motion: Vec2, normal: Vec2, walkable: bool) -> Vec2 {
        slide_by_policy(remaining, motion, normal, walkable, self.up)
    }

    /// Whether `blocked`, met with the collider at `touch`, is walkable
    /// ground: its normal is within the maximum slope of `up`, or it is a
    /// corner no higher than a step above the collider's lowest point with
    /// walkable ground just past it (a rounded collider on a ledge's edge).
    fn is_ground(&self, blocked: &Blocked, touch: Vec2) -> bool {
        let normal = blocked.hit.normal.as_vec2();
        let normal_up = normal.dot(self.up);
        if normal_up >= self.min_ground_up {
            return true;
        }
        if normal_up <= 1e-3 {
            return false;
        }
        let point = blocked.hit.point;
        let feet = touch.dot(self.up) - self.foot_reach;
        if point.dot(self.up) - feet > self.step_height + self.skin {
            return false;
        }
        // Look down at the surface just past the contact, inside the
        // target: a corner has its top face there, a steep slope has the
        // ray start inside it.
        let side = (normal - self.up * normal_up).normalize_or_zero();
        let probe = self.skin;
        let origin = point - side * probe + self.up * probe;
        let (target, target_shape) = self.spatial.colliders().get(blocked.index);
        let down = Dir2::new_unchecked(-self.up);
        target_shape
            .cast_ray_valid(target.pose, origin, down, 2.0 * probe)
            .is_some_and(|ray| ray.distance > 0.0 && ray.normal.dot(self.up) >= self.min_ground_up)
    }

    /// The walkable ground within `reach` below `at`, if the first thing
    /// there is walkable.
    fn ground_below(&self, at: Vec2, reach: f32) -> Option<Blocked> {
        let down = Dir2::new_unchecked(-self.up);
        let below = self.cast(at, down, reach)?;
        self.is_ground(&below, at - self.up * below.distance)
            .then_some(below)
    }

    /// Tries to step over what blocks `remaining` (a wall with `normal`) at
    /// `at`: up by the step height, forward by the horizontal part of the
    /// motion, down onto walkable ground. The position, the ground and the
    /// motion left, if it gets further than sliding would (which stops the
    /// horizontal motion at a wall).
    fn step_up(&self, at: Vec2, remaining: Vec2, normal: Vec2) -> Option<(Vec2, Blocked, Vec2)> {
        let up = Dir2::new_unchecked(self.up);
        if remaining.dot(self.up) > 0.0 {
            // Rising: a jump against a wall slides up it instead.
            return None;
        }
        let lateral = remaining - self.up * remaining.dot(self.up);
        let length = lateral.length();
        if length <= STILL * self.skin || lateral.dot(normal) >= 0.0 {
            return None;
        }
        let forward = Dir2::new_unchecked(lateral / length);
        let rise = match self.cast(at, up, self.step_height + self.skin) {
            Some(ceiling) => self.travel(&ceiling, up, self.step_height),
            None => self.step_height,
        };
        let raised = at + self.up * rise;
        let advance = match self.cast(raised, forward, length + self.skin) {
            Some(wall) => self.travel(&wall, forward, length),
            None => length,
        };
        if advance <= 0.5 * length.min(self.skin) {
            return None;
        }
        let ahead = raised + forward * advance;
        let down = Dir2::new_unchecked(-self.up);
        let reach = rise + 2.0 * self.skin;
        let ground = self.cast(ahead, down, reach)?;
        // Measured from where the step started: landing on a corner higher
        // than a step (a rounded collider's side can reach over one) is
        // climbing, not stepping.
        let feet = at.dot(self.up) - self.foot_reach;
        if ground.hit.point.dot(self.up) - feet > self.step_height + self.skin
            || !self.is_ground(&ground, ahead - self.up * ground.distance)
        {
            return None;
        }
        let landed = ahead - self.up * self.travel(&ground, down, reach);
        Some((landed, ground, forward * (length - advance)))
    }

    /// The first collider that blocks the collider moved from `at` along
    /// `direction` by up to `max_distance`. Not blocking: what it only
    /// grazes or already overlaps and is moving out of, and one-way
    /// platforms crossed from their open side.
    fn cast(&self, at: Vec2, direction: Dir2, max_distance: f32) -> Option<Blocked> {
        let pose = Isometry2d::new(at, self.rotation);
        let start = self.shape.aabb(pose);
        // Only colliders whose boxes meet the path are cast at, either
        // way: the grids also hand on boxes near it, where a cast's
        // rounding far from the origin could find a hit the gathered
        // colliders would not.
        let path = path_box(start, direction, max_distance);
        let colliders = self.spatial.colliders();
        let (entity, distance, (point, normal, index)) = match &self.nearby {
            Some(nearby) if nearby.region.contains(&path) => {
                // As `nearest_along`: the nearest hit, equal distances to the
                // lowest entity, whatever the order looked in.
                let mut nearest: Option<(Entity, f32, (Vec2, Dir2, usize))> = None;
                for &(index, aabb) in &nearby.colliders {
                    if !aabb.intersects(&path) {
                        continue;
                    }
                    let entity = colliders.entity(index);
                    if !self.filter.accepts(entity, colliders.layers(index)) {
                        continue;
                    }
                    let Some((distance, hit)) = self.hit(pose, direction, max_distance, index)
                    else {
                        continue;
                    };
                    if nearest.is_none_or(|(best_entity, best, _)| {
                        distance < best || (distance == best && entity < best_entity)
                    }) {
                        nearest = Some((entity, distance, hit));
                    }
                }
                nearest?
            }
            _ => self.spatial.nearest_along(
                start,
                direction,
                max_distance,
                self.filter,
                |index, _| {
                    (colliders.aabb(index).intersects(&path))
                        .then(|| self.hit(pose, direction, max_distance, index))
                        .flatten()
                },
            )?,
        };
        Some(Blocked {
            hit: SlideHit {
                entity,
                point,
                normal,
            },
            distance,
            index,
        })
    }

    /// The hit of the collider at `pose` moved along `direction` by up to
    /// `max_distance` in collider `index`, if it blocks: its distance, point,
    /// normal and `index`.
    fn hit(
        &self,
        pose: Isometry2d,
        direction: Dir2,
        max_distance: f32,
        index: usize,
    ) -> Option<(f32, (Vec2, Dir2, usize))> {
        let (target, target_shape) = self.spatial.colliders().get(index);
        // The whole way, as `cast_shape` does, so that the result does not
        // depend on the order of the search.
        let hit = cast_shape_of(
            self.shape,
            pose,
            direction,
            max_distance,
            target_shape,
            target.pose,
        )?;
        if -hit.normal.dot(*direction) <= GRAZE {
            return None;
        }
        if let Some(platform) = self.one_way_platform(target.entity) {
            let open_side = target.pose.rotation * platform.normal.as_vec2();
            let blocks = direction.dot(open_side) < 0.0
                && hit.normal.dot(open_side) > 0.0
                && !(hit.distance == 0.0 && self.overlaps(pose, target_shape, target.pose));
            if !blocks {
                return None;
            }
        }
        Some((hit.distance, (hit.point, hit.normal, index)))
    }

    /// The colliders around the collider at `at` and what `motion`, steps
    /// and the snap can reach from there ([`Nearby`]); `None` for a motion
    /// too long, or too many colliders around, for it to pay.
    fn gather(&self, at: Vec2, motion: Vec2) -> Option<Nearby> {
        let own = self.shape.aabb(Isometry2d::new(at, self.rotation));
        let size = (own.max - own.min).max_element();
        let reach =
            2.0 * motion.length() + self.step_height + self.snap_to_ground + 4.0 * self.skin;
        // Also false for a NaN reach: nothing is gathered then.
        let short = reach <= NEARBY_REACH * size;
        if !short {
            return None;
        }
        let region = Aabb2d {
            min: own.min - Vec2::splat(reach),
            max: own.max + Vec2::splat(reach),
        };
        let mut colliders = Vec::new();
        (self.spatial).visit_overlapping(&region, self.filter, |index, aabb| {
            colliders.push((index, *aabb));
        });
        (colliders.len() <= NEARBY_MOST).then_some(Nearby { region, colliders })
    }

    /// The one-way platform on `entity`, if it is one.
    fn one_way_platform(&self, entity: Entity) -> Option<&OneWayPlatform> {
        if !self.one_way {
            return None;
        }
        self.spatial.one_way_platforms.get(entity).ok()
    }

    /// Whether the collider at `pose` is inside `target` by more than half
    /// the skin (less is resting on it, within rounding).
    fn overlaps(&self, pose: Isometry2d, target: ShapeRef<'_>, target_pose: Isometry2d) -> bool {
        self.shape
            .contact(pose, target, target_pose)
            .is_some_and(|contact| contact.depth > 0.5 * self.skin)
    }

    /// The collider pushed out of what it overlaps or touches at `start`, a
    /// skin clear of it: every contact's push combined by [`push_out`] (the
    /// one [`Collisions::push_out`](crate::Collisions::push_out) uses, so a
    /// collider wedged where two surfaces meet goes out between them), in
    /// a few rounds for what the first push runs into; `start` itself if
    /// they do not get it all the way out. One-way platforms are left
    /// alone: being inside one is how it is crossed.
    fn depenetrate(&self, start: Vec2, touched: &mut Touched) -> Vec2 {
        let contacts = self.contacts(start);
        // First the deepest alone: an edge of the next tile of a floor,
        // overlapped a hair from the side, must not push it sideways.
        let Some(&deepest) = (contacts.iter()).max_by(|a, b| a.2.depth.total_cmp(&b.2.depth))
        else {
            return start;
        };
        // Each surface pushed out of, as a push from `start`: out of it by
        // its depth and a skin beyond where the collider was when it met it.
        let mut pushes: Vec<Contact> = Vec::new();
        let mut pushed: Vec<(Entity, Option<u32>, SlideHit)> = Vec::new();
        let skin = self.skin;
        let mut met = |pushes: &mut Vec<Contact>, at: Vec2, found: PartContact| {
            let (entity, part, contact) = found;
            let out = -*contact.normal;
            pushes.push(Contact {
                depth: contact.depth + skin + (at - start).dot(out),
                ..contact
            });
            if pushed.iter().all(|&(e, p, _)| (e, p) != (entity, part)) {
                let hit = SlideHit {
                    entity,
                    point: contact.point,
                    normal: Dir2::new_unchecked(out),
                };
                pushed.push((entity, part, hit));
            }
        };
        met(&mut pushes, start, deepest);
        let mut at = start;
        for _ in 0..DEPENETRATION_ROUNDS {
            // Out of everything met so far at once (a V valley's two sides
            // push out upward between them), then what that runs into.
            at = start + push_out(pushes.iter().copied());
            let mut overlapped = self.contacts(at);
            overlapped.retain(|(_, _, contact)| contact.depth > 0.0);
            if overlapped.is_empty() {
                break;
            }
            for found in overlapped {
                met(&mut pushes, at, found);
            }
        }
        // Part of the way out is no way out: it would only trade one
        // overlap for another.
        let still_in = (self.contacts(at).iter()).any(|(_, _, contact)| contact.depth > 0.0);
        if still_in || !at.is_finite() {
            return start;
        }
        for (_, _, hit) in pushed {
            let walkable = hit.normal.dot(self.up) >= self.min_ground_up;
            touched.push(hit, walkable, self.up, self.min_ground_up);
        }
        at
    }

    /// The colliders (not one-way platforms) that the collider at `at`
    /// overlaps or touches, with their contacts seen from it: a contact
    /// per part touched of a compound (both sides of a polyline's valley),
    /// with the part.
    fn contacts(&self, at: Vec2) -> Vec<PartContact> {
        let pose = Isometry2d::new(at, self.rotation);
        let colliders = self.spatial.colliders();
        let mut found = Vec::new();
        let query: Aabb2d = self.shape.aabb(pose);
        self.visit_overlapping(&query, |index| {
            let (target, target_shape) = colliders.get(index);
            if !self.filter.accepts(target.entity, colliders.layers(index))
                || self.one_way_platform(target.entity).is_some()
            {
                return;
            }
            for_each_part_contact(
                self.shape,
                pose,
                target_shape,
                target.pose,
                |contact, parts| {
                    found.push((target.entity, parts[1], contact));
                },
            );
        });
        // The search order is the grid's; the pushes must not depend on it.
        found.sort_by_key(|&(entity, part, _)| (entity, part));
        found
    }

    /// Calls `visit` with the index of each collider whose box overlaps
    /// `query` (in the sets the filter's layers can meet), from the
    /// gathered ones when `query` lies in their region, else from the
    /// grids.
    fn visit_overlapping(&self, query: &Aabb2d, mut visit: impl FnMut(usize)) {
        match &self.nearby {
            Some(nearby) if nearby.region.contains(query) => {
                (nearby.colliders.iter())
                    .filter(|(_, aabb)| aabb.intersects(query))
                    .for_each(|&(index, _)| visit(index));
            }
            _ => (self.spatial).visit_overlapping(query, self.filter, |index, _| visit(index)),
        }
    }
}

/// The box that `start` sweeps moved along `direction` by up to
/// `max_distance` (a cast's path), widened for rounding.
fn path_box(start: Aabb2d, direction: Dir2, max_distance: f32) -> Aabb2d {
    let end = direction * max_distance;
    let (min, max) = (
        start.min + end.min(Vec2::ZERO),
        start.max + end.max(Vec2::ZERO),
    );
    let slack = (min.abs().max(max.abs()).max_element() + max_distance) * (16.0 * f32::EPSILON);
    Aabb2d {
        min: min - Vec2::splat(slack),
        max: max + Vec2::splat(slack),
    }
}

#[cfg(test)]
mod tests {
    use bevy::ecs::system::SystemState;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::*;
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
