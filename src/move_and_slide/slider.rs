//! The steps of one slide: stop a skin short of what blocks, turn along
//! it by the slope policy, settle on ground, step up.

use bevy::math::{Dir2, Isometry2d, Rot2, Vec2};

use super::{
    Blocked, MoveAndSlideConfig, MoveAndSlideOutput, STILL, SlideHit, Slider, Touched,
    slide_by_policy,
};
use crate::components::Collider;
use crate::geometry::{ShapeRef, checked_placement, within_magnitude};
use crate::spatial_query::{QueryFilter, SpatialQuery};

impl<'a, 'w, 's> Slider<'a, 'w, 's> {
    /// The slider of `collider` from `pose`, and the pose checked; `None`
    /// for an invalid collider, pose or config.
    pub(super) fn checked(
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

    pub(super) fn new(
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
    pub(super) fn run(
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
    pub(super) fn run_from(
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
    pub(super) fn slide_along(
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
    pub(super) fn settle(
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
    pub(super) fn travel(&self, blocked: &Blocked, direction: Dir2, length: f32) -> f32 {
        let into = -blocked.hit.normal.dot(*direction);
        (blocked.distance - self.skin / into).clamp(0.0, length)
    }

    /// What is left of `remaining` after meeting a surface with `normal`;
    /// `motion` is the whole call's.
    pub(super) fn slide(
        &self,
        remaining: Vec2,
        motion: Vec2,
        normal: Vec2,
        walkable: bool,
    ) -> Vec2 {
        slide_by_policy(remaining, motion, normal, walkable, self.up)
    }

    /// Whether `blocked`, met with the collider at `touch`, is walkable
    /// ground: its normal is within the maximum slope of `up`, or it is a
    /// corner no higher than a step above the collider's lowest point with
    /// walkable ground just past it (a rounded collider on a ledge's edge).
    pub(super) fn is_ground(&self, blocked: &Blocked, touch: Vec2) -> bool {
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
    pub(super) fn ground_below(&self, at: Vec2, reach: f32) -> Option<Blocked> {
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
    pub(super) fn step_up(
        &self,
        at: Vec2,
        remaining: Vec2,
        normal: Vec2,
    ) -> Option<(Vec2, Blocked, Vec2)> {
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
}
