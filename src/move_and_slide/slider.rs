//! One call of [`SpatialQuery::move_and_slide`]: the slide, the steps and
//! the snap. The lookups it makes (casts, contacts, the colliders gathered
//! around the call) are in `lookups`.

use bevy::math::{Dir2, Isometry2d, Rot2, Vec2};
use bevy::prelude::*;
use bevy::shape::Aabb2d;

use super::{MoveAndSlideConfig, MoveAndSlideOutput, STILL, SlideHit, Touched, slide_by_policy};
use crate::components::Collider;
use crate::geometry::{Contact, Placed, Ray, within_magnitude};
use crate::spatial_query::{QueryFilter, SpatialQuery};

mod lookups;

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
pub(super) struct Slider<'a, 'w, 's> {
    spatial: &'a SpatialQuery<'w, 's>,
    /// The collider's shape, checked, at the pose the move starts from.
    placed: Placed<'a>,
    rotation: Rot2,
    filter: &'a QueryFilter,
    pub(super) up: Vec2,
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
    pub(super) fn checked(
        spatial: &'a SpatialQuery<'w, 's>,
        collider: &'a Collider,
        pose: Isometry2d,
        config: &MoveAndSlideConfig,
        filter: &'a QueryFilter,
    ) -> Option<(Self, Isometry2d)> {
        let placed = Placed::new(collider.shape_view(), pose)
            .ok()?
            .renormalised();
        config.is_valid().then(|| {
            let pose = placed.pose();
            (Self::new(spatial, placed, config, filter), pose)
        })
    }

    fn new(
        spatial: &'a SpatialQuery<'w, 's>,
        placed: Placed<'a>,
        config: &MoveAndSlideConfig,
        filter: &'a QueryFilter,
    ) -> Self {
        let up = config.up.as_vec2().normalize();
        // The box of the shape turned so that `up` is +y: its bottom is the
        // lowest point along `up`.
        let to_up_frame = Rot2::from_sin_cos(up.x, up.y);
        let rotation = placed.pose().rotation;
        let upright = (placed.shape()).aabb(Isometry2d::new(Vec2::ZERO, to_up_frame * rotation));
        Self {
            spatial,
            placed,
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
        Ray::new(origin, down, 2.0 * probe)
            .ok()
            .and_then(|ray| target_shape.cast_ray(target.pose, ray))
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
}

#[cfg(test)]
mod tests {
    use bevy::ecs::system::SystemState;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::*;
    use crate::components::{CollisionLayers, OneWayPlatform, StaticCollider};
    use crate::plugin::CollisionPlugin;

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
