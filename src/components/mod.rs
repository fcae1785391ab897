//! The components a game puts on its entities (the [`Collider`] itself in
//! `collider.rs`), and how a pose is read from a `GlobalTransform`.

use smallvec::SmallVec;

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::math::{Isometry2d, Vec2};
use bevy::prelude::*;

use crate::geometry::TransformReading;

mod collider;

pub use collider::Collider;
pub(crate) use collider::Unusable;

/// Makes a collider's motion count: each detection also tests the path it
/// took since the previous detection, so a fast small shape cannot pass
/// through a thin one between two frames (tunnelling).
///
/// The path runs from the pose at the previous detection to the current one,
/// its origin in a straight line while it turns the shortest way about its
/// origin, as a rigid body: every point of it, a compound's parts far from
/// its origin included, sweeps the arc the turn gives it. Every other collider
/// in a pair with a swept one moves along its own path too, `Swept` or not,
/// so a follower or a carrying platform moving with it is seen where it was
/// at each moment; a collider that did not exist at the previous detection
/// stands still at its pose. While any collider is `Swept`, every collider's
/// pose is therefore kept from one detection to the next (one array write
/// each), and bounding boxes cover paths. When a pair first touches during
/// the step, [`CollisionEvent::Started`](crate::CollisionEvent) carries the
/// contact at the moment of first touch, with a
/// [`Collisions::time_of_impact`](crate::Collisions::time_of_impact) below 1; if
/// they are apart again at the end of the step, `Ended` follows in the same
/// detection. [`Collisions::impact_pose`](crate::Collisions::impact_pose)
/// gives its pose at the touch, to rewind to it; [`Collisions`](crate::Collisions)
/// lists which contact a swept pair holds in each case. See
/// [`geometry::time_of_impact`](crate::geometry::time_of_impact) for how exact
/// each pair of shapes is.
///
/// A teleport is a motion too. To move a swept collider without sweeping
/// (a respawn, a rewind), move it and insert `Swept` again: its next path
/// starts where its `Transform` puts it when `Swept` is inserted (within its
/// parent as last propagated). Commands are applied after the system that
/// queued them, so moving and inserting in the same system works in either
/// order. A collider's first path, when `Swept` is new, starts where it is
/// at the next detection. A collider without `Swept` has no such reset: if
/// it jumps far in one step, a swept partner sees it move along the jump.
///
/// A pair that was touching at the previous detection but is apart at the
/// start of the new path (the collider was teleported away) and touches
/// again on the way gets `Ended`, then `Started` with the new contact.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_collide2d::prelude::*;
/// # fn spawn(mut commands: Commands) {
/// commands.spawn((Collider::circle(4.0), Swept, Transform::default()));
/// # }
/// ```
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq, Clone)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", reflect(Serialize, Deserialize))]
pub struct Swept;

/// Marks a collider as level geometry: walls, floors, tiles, anything that
/// (almost) never moves.
///
/// Two static colliders are never tested against each other, so walls that
/// touch report nothing. Static colliders are kept from one detection to the
/// next and read again only when one is added, removed, moved or changed,
/// so a level of many tiles costs almost nothing per frame. A static
/// collider against a moving one is reported like any pair, on both sides,
/// with contacts. Moving a static collider is allowed: it is seen where it
/// is at the next detection (without a path, even by a [`Swept`] partner).
///
/// [`TilemapCollider`](crate::TilemapCollider) spawns its tiles with it.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_collide2d::prelude::*;
/// # fn spawn(mut commands: Commands) {
/// commands.spawn((
///     Collider::rect(800.0, 20.0),
///     StaticCollider,
///     Transform::from_xyz(0.0, -200.0, 0.0),
/// ));
/// # }
/// ```
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq, Clone)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", reflect(Serialize, Deserialize))]
pub struct StaticCollider;

/// Takes a collider out of detection and [`SpatialQuery`](crate::SpatialQuery)
/// while present, without hiding its entity from the rest of the game (as
/// Bevy's `Disabled` would).
///
/// At the next detection its contacts end: [`CollisionEvent::Ended`]
/// messages, [`CollisionEnded`] on both sides (and their
/// [`CollisionBody`]s), and both [`CollidingEntities`] lose each other.
/// Removing it brings the collider back: contacts that hold then start
/// again. A pooled bullet, a dodge roll's invulnerability, a door held open.
/// Entities disabled with Bevy's `Disabled` (or any disabling component)
/// behave the same in detection. Bevy's transform propagation skips
/// disabled entities, so when `Disabled` is removed from a collider (or a
/// [`CollisionBody`]) the plugin marks its `Transform` changed: one moved
/// while hidden comes back where it was moved to. (A game's own disabling
/// component gets no such help: move what it hides after showing it, or
/// use `ColliderDisabled`, which hides the collider only.)
///
/// [`CollisionEvent::Ended`]: crate::CollisionEvent::Ended
/// [`CollisionEnded`]: crate::CollisionEnded
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_collide2d::prelude::*;
/// fn dodge(mut commands: Commands, player: Single<Entity, With<Collider>>) {
///     commands.entity(*player).insert(ColliderDisabled);
/// }
/// # bevy::ecs::system::assert_is_system(dodge);
/// ```
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq, Clone)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", reflect(Serialize, Deserialize))]
pub struct ColliderDisabled;

/// Makes an entity a body: it owns the colliders of its subtree (itself
/// included, if it has a [`Collider`]) down to the next `CollisionBody`.
///
/// Colliders of one body never collide with each other: a player's hitbox,
/// hurtbox and feet sensor can overlap freely. Their collisions with others
/// are reported as usual on each collider, and [`CollisionStarted`] /
/// [`CollisionEnded`] are also triggered on the body, with `collider`
/// naming the part that touched, so one observer on the body hears them
/// all. A collider moved to another parent belongs to its new body from the
/// next detection on (contacts that go on end on the old body and start on
/// the new one). Ownership follows the hierarchy alone: a part or a body
/// disabled with Bevy's `Disabled` and enabled again is still the same
/// body's.
///
/// [`CollisionStarted`]: crate::CollisionStarted
/// [`CollisionEnded`]: crate::CollisionEnded
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_collide2d::prelude::*;
/// # fn spawn(mut commands: Commands) {
/// commands
///     .spawn((CollisionBody, Transform::default()))
///     .with_children(|player| {
///         player.spawn(Collider::capsule(6.0, 12.0));
///         player.spawn((Collider::rect(10.0, 2.0), Transform::from_xyz(0.0, -13.0, 0.0)));
///     })
///     .observe(|hit: On<CollisionStarted>| {
///         info!("part {} of the player touched {}", hit.collider, hit.other);
///     });
/// # }
/// ```
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq, Clone)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", reflect(Serialize, Deserialize))]
pub struct CollisionBody;

/// Makes a collider a one-way platform for
/// [`SpatialQuery::move_and_slide`](crate::SpatialQuery::move_and_slide):
/// it blocks a moving collider only from the side its `normal` faces.
///
/// A move is blocked only when it goes against `normal` (a fall onto a
/// platform whose normal is up), where it meets the platform's side that
/// faces `normal`, and when the moving collider does not already overlap
/// the platform: a jump up through it passes, and so does a fall that
/// starts while still inside it. `normal` is in the collider's own space
/// and turns with it. Detection and the other queries treat the collider
/// as any other.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_collide2d::prelude::*;
/// # fn spawn(mut commands: Commands) {
/// commands.spawn((
///     Collider::rect(96.0, 8.0),
///     StaticCollider,
///     OneWayPlatform::default(), // blocks from above
///     Transform::from_xyz(0.0, 64.0, 0.0),
/// ));
/// # }
/// ```
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq, Clone)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", reflect(Serialize, Deserialize))]
pub struct OneWayPlatform {
    /// The side that blocks, as a unit direction in the collider's space
    /// (default: up, `Dir2::Y`).
    pub normal: Dir2,
}

impl Default for OneWayPlatform {
    fn default() -> Self {
        Self { normal: Dir2::Y }
    }
}

/// Which colliders interact: two colliders are tested when each one's
/// `memberships` share a bit with the other's `filters`.
///
/// The default is every bit in both, so everything interacts with everything.
///
/// ```
/// # use bevy_collide2d::prelude::*;
/// const PLAYER: u32 = 1 << 0;
/// const ENEMY: u32 = 1 << 1;
/// const PICKUP: u32 = 1 << 2;
/// let player = CollisionLayers::new(PLAYER, ENEMY | PICKUP);
/// let pickup = CollisionLayers::new(PICKUP, PLAYER);
/// let other_pickup = CollisionLayers::new(PICKUP, PLAYER);
/// assert!(player.interacts_with(&pickup));
/// assert!(!pickup.interacts_with(&other_pickup));
/// ```
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash, Reflect)]
#[reflect(Component, Debug, PartialEq, Default, Clone)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", reflect(Serialize, Deserialize))]
#[component(summary_tick)] // as on `Collider`
pub struct CollisionLayers {
    /// The layers this collider belongs to.
    pub memberships: u32,
    /// The layers this collider interacts with.
    pub filters: u32,
}

impl CollisionLayers {
    /// Member of every layer, interacting with every layer (the default).
    pub const ALL: Self = Self::new(u32::MAX, u32::MAX);
    /// Member of no layer and interacting with none: never collides.
    pub const NONE: Self = Self::new(0, 0);

    /// Layers from membership and filter bit masks.
    pub const fn new(memberships: u32, filters: u32) -> Self {
        Self {
            memberships,
            filters,
        }
    }

    /// Whether colliders with these layers and `other` are tested against
    /// each other (symmetric).
    #[inline]
    pub const fn interacts_with(&self, other: &Self) -> bool {
        (self.memberships & other.filters) != 0 && (other.memberships & self.filters) != 0
    }
}

impl Default for CollisionLayers {
    fn default() -> Self {
        Self::ALL
    }
}

/// The entities this collider touches now, updated by the plugin each
/// detection from the same contact changes that send the collision events.
///
/// Iteration order is ascending [`Entity`] order, so it is deterministic.
///
/// It always starts empty when inserted, also when an entity is cloned or
/// spawned from a scene: its contacts are its own and are found by the next
/// detection. Inserted again mid-contact (re-inserting a bundle that holds
/// it, say), it is filled again at the next detection with the contacts that
/// go on, without new events. A disabled entity's contacts end and its list
/// empties like anyone else's.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq, Reflect)]
#[component(on_insert = clear_on_insert)]
#[reflect(Component, Debug, Default, PartialEq, Clone)]
pub struct CollidingEntities {
    /// Kept inline for the few contacts most colliders have, so that updating
    /// it reads the component's own row instead of a heap block elsewhere.
    sorted: SmallVec<[Entity; INLINE_CONTACTS]>,
}

/// Touching entities a [`CollidingEntities`] holds without allocating.
const INLINE_CONTACTS: usize = 4;

impl CollidingEntities {
    /// The touching entities, in ascending [`Entity`] order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Entity> + '_ {
        self.sorted.iter().copied()
    }

    /// Whether this collider touches `entity`.
    pub fn contains(&self, entity: &Entity) -> bool {
        self.sorted.binary_search(entity).is_ok()
    }

    /// How many entities this collider touches.
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// Whether this collider touches nothing.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    pub(crate) fn insert(&mut self, entity: Entity) {
        if let Err(at) = self.sorted.binary_search(&entity) {
            self.sorted.insert(at, entity);
        }
    }

    pub(crate) fn remove(&mut self, entity: Entity) {
        if let Ok(at) = self.sorted.binary_search(&entity) {
            self.sorted.remove(at);
        }
    }

    /// Replaces the entities with `sorted` (ascending, no repeats).
    pub(crate) fn set_sorted(&mut self, sorted: impl Iterator<Item = Entity>) {
        self.sorted.clear();
        self.sorted.extend(sorted);
    }

    /// Adds `entity` if `started`, else removes it.
    pub(crate) fn update(&mut self, entity: Entity, started: bool) {
        if started {
            self.insert(entity);
        } else {
            self.remove(entity);
        }
    }
}

/// A copied list would name partners that never started touching this entity
/// and would never be told it ended.
fn clear_on_insert(mut world: DeferredWorld, context: HookContext) {
    if let Some(mut colliding) = world.get_mut::<CollidingEntities>(context.entity) {
        colliding.sorted.clear();
    }
}

/// A 2D pose and scale read from a [`GlobalTransform`], as detection reads
/// it: the translation, the rotation of its x axis about z, and the lengths
/// of its x and y axes projected on the xy plane (shear is ignored), the y
/// length negative when the transform mirrors. [`Shape::scaled`](crate::geometry::Shape::scaled) with this
/// scale, placed by this pose, is where detection sees the collider.
pub fn pose_and_scale(transform: &GlobalTransform) -> (Isometry2d, Vec2) {
    let reading = read_transform(transform);
    (reading.pose, reading.signed_scale())
}

/// The pose detection and queries see for an entity whose `Transform` is
/// `transform` and that has no parent: the translation's x and y and the
/// rotation about z (read from where the transform turns the x axis, as
/// detection reads it; scale is not part of a pose). What
/// [`SpatialQuery`](crate::SpatialQuery) and the pure tests take for a
/// character moved by its own `Transform`.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_collide2d::prelude::*;
/// let transform = Transform::from_xyz(10.0, 20.0, 5.0).with_rotation(Quat::from_rotation_z(0.5));
/// let pose = pose_of(&transform);
/// assert_eq!(pose.translation, Vec2::new(10.0, 20.0));
/// assert!((pose.rotation.as_radians() - 0.5).abs() < 1e-6);
/// ```
pub fn pose_of(transform: &Transform) -> Isometry2d {
    pose_and_scale(&GlobalTransform::from(*transform)).0
}

/// `transform` read as detection reads it (see [`pose_and_scale`]).
#[inline(always)]
fn read_transform(transform: &GlobalTransform) -> TransformReading {
    TransformReading::of(&transform.affine())
}

impl<'a> IntoIterator for &'a CollidingEntities {
    type Item = &'a Entity;
    type IntoIter = core::slice::Iter<'a, Entity>;

    fn into_iter(self) -> Self::IntoIter {
        self.sorted.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colliding_entities_stay_sorted_and_unique() {
        let mut set = CollidingEntities::default();
        let [a, b, c] = [3, 1, 2].map(|i| Entity::from_raw_u32(i).unwrap());
        for e in [a, b, c, a] {
            set.insert(e);
        }
        // Entity order compares the entities' bits, which is not index order.
        let mut expected = vec![a, b, c];
        expected.sort();
        assert_eq!(set.iter().collect::<Vec<_>>(), expected);
        assert!(set.contains(&c) && set.len() == 3);
        set.remove(c);
        set.remove(c);
        expected.retain(|&e| e != c);
        assert_eq!(set.iter().collect::<Vec<_>>(), expected);
        assert!(!set.is_empty());
    }

    #[test]
    fn layers_default_to_everything() {
        assert_eq!(CollisionLayers::default(), CollisionLayers::ALL);
        assert!(CollisionLayers::ALL.interacts_with(&CollisionLayers::ALL));
        assert!(!CollisionLayers::ALL.interacts_with(&CollisionLayers::NONE));
    }
}
