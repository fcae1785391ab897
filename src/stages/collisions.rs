//! The contacts the narrow phase found, as games read them: [`Collisions`]
//! and its [`ContactPair`]s.

use std::sync::OnceLock;

use bevy::math::Isometry2d;
use bevy::prelude::*;

pub use crate::geometry::ContactParts;
use crate::geometry::{Contact, Sweep, push_out};
use crate::util::sort::PairSortSpace;

/// Two colliders in contact, `a < b` in [`Entity`] order, with the contact
/// seen from `a` (the normal points from `a` to `b`).
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
pub struct ContactPair {
    /// The lower entity of the pair.
    pub a: Entity,
    /// The higher entity of the pair.
    pub b: Entity,
    /// Contact seen from `a`.
    pub contact: Contact,
    /// When in the detection step the contact happened, as a fraction of
    /// the step from `0` (the previous detection's poses) to `1` (this
    /// one's).
    ///
    /// `1` for every ordinary contact, found at the end of the step. Only a
    /// pair with a [`Swept`](crate::Swept) collider that first touched
    /// during the step reports less: [`Self::contact`] is then the one at
    /// the moment of first touch (`depth` 0, `point` where they met). `0`
    /// means they already overlapped at the start of the step without
    /// having touched at the previous detection (a teleport or a new
    /// collider put them together); `depth` is then how deep they were at
    /// the start. A circle against a turning rectangle may be reported up
    /// to a sub-step early, and pairs with a capsule, segment or polygon a
    /// tolerance early (see
    /// [`time_of_impact`](crate::geometry::time_of_impact)), so a small
    /// time of impact, 0 included, can also come while they are still a
    /// little apart. [`Collisions::time_of_impact`] looks it up for two
    /// entities.
    pub time_of_impact: f32,
}

impl ContactPair {
    /// The same contact seen from `b`: `a` and `b` swapped, the normal
    /// reversed. (A pair seen from `b` is no longer in the `a < b` order of
    /// [`Collisions`].)
    #[must_use]
    pub fn flipped(self) -> Self {
        Self {
            a: self.b,
            b: self.a,
            contact: self.contact.flipped(),
            time_of_impact: self.time_of_impact,
        }
    }
}

/// Every pair of colliders in contact at the last detection, sorted by
/// `(a, b)`. The source of all collision events and of [`CollidingEntities`].
///
/// Read it after detection (in the next frame's `Update`, or in systems
/// ordered after [`CollisionSystems`]): [`Self::contacts_of`] lists what
/// one collider touches, seen from it, and [`Self::push_out`] is the usual
/// way to keep a collider out of walls, every frame, whether its contacts
/// are new or go on (events only come when they start).
///
/// # Which contact a swept pair holds
///
/// A pair with a [`Swept`] collider is tested along both colliders' paths
/// since the previous detection, and holds (and its `Started` events carry)
/// one of these contacts:
///
/// - **Started on the way** (apart at the start of the paths): the *first
///   touch*, with a [time of impact](Self::time_of_impact) below 1 and a depth of about 0,
///   even though the colliders may overlap deeply at the end of the step.
///   [`Self::impact_pose`] says where each collider was then. From the next
///   detection on, while it goes on, the contact at the end of the step.
/// - **Going on** (touching at the previous detection, at the start and at
///   the end of the paths): the contact at the end of the step, time of
///   impact 1, as for a pair without `Swept`.
/// - **Started at the start** (overlapping at the start of the paths without
///   having touched at the previous detection: a new collider, or one
///   moved into the other): the contact at the start, time of impact 0,
///   with the depth there.
/// - **Restarted** (touching at both detections, but apart at the start of
///   the paths, because one was moved away and `Swept` inserted again, and
///   touching again on the way): `Ended` then `Started`, with the new first
///   touch.
/// - **Passed** (touched on the way, apart at the end: a fast ball grazing a
///   brick): `Started` and `Ended` in the same detection, with the first
///   touch; the pair is in [`Self::passing`], not in [`Self::iter`],
///   [`Self::get`] or [`Self::contacts_of`].
///
/// [`CollidingEntities`]: crate::CollidingEntities
/// [`CollisionSystems`]: crate::CollisionSystems
/// [`Swept`]: crate::Swept
#[derive(Resource, Default, Debug)]
pub struct Collisions {
    pub(super) pairs: Vec<ContactPair>,
    /// Pairs with a [`Swept`](crate::Swept) collider that touched during the
    /// step and are apart at its end, sorted by `(a, b)`.
    pub(super) passing: Vec<ContactPair>,
    /// The paths of the pairs tested along them (in `pairs` or `passing`),
    /// sorted by `(a, b)`.
    pub(super) swept_paths: Vec<PairPaths>,
    /// The indices of `pairs` sorted by `b` (then `a`), so that an entity's
    /// pairs as `b` are a range too. Built on the first call to
    /// [`Self::contacts_of`] after a detection: nothing is paid when nobody
    /// asks.
    pub(super) by_b: OnceLock<Vec<u32>>,
    /// Sorting space, kept to reuse its allocations.
    pub(super) sort_space: PairSortSpace<ContactPair>,
    /// The parts of the pairs with a compound collider, sorted by `(a, b)`;
    /// apart from `pairs`, so that scenes without compounds carry nothing
    /// more per pair.
    pub(super) part_pairs: Vec<PairParts>,
    /// Which detection wrote these pairs (each writes a new one): a
    /// different one than the last written means the game restored an
    /// older copy (a rollback), and every [`CollidingEntities`] is set
    /// again from it.
    ///
    /// [`CollidingEntities`]: crate::CollidingEntities
    pub(super) stamp: u64,
}

/// A copy of the contacts (what a rollback snapshot keeps, see
/// [`guide::determinism_and_rollback`](crate::guide::determinism_and_rollback));
/// the working space is not
/// copied.
impl Clone for Collisions {
    fn clone(&self) -> Self {
        Self {
            pairs: self.pairs.clone(),
            passing: self.passing.clone(),
            swept_paths: self.swept_paths.clone(),
            by_b: OnceLock::new(),
            sort_space: PairSortSpace::default(),
            part_pairs: self.part_pairs.clone(),
            stamp: self.stamp,
        }
    }
}

/// The parts of a pair's colliders its contact is on ([`Collisions::parts`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct PairParts {
    pub(super) a: Entity,
    pub(super) b: Entity,
    pub(super) parts: ContactParts,
}

impl PairParts {
    /// The parts of `pair`'s contact, `parts` in its `(a, b)` order.
    pub(super) fn of(pair: &ContactPair, parts: ContactParts) -> Self {
        Self {
            a: pair.a,
            b: pair.b,
            parts,
        }
    }
}

/// The paths of a pair tested along them, for [`Collisions::impact_pose`].
#[derive(Clone, Copy, Debug)]
pub(super) struct PairPaths {
    pub(super) a: Entity,
    pub(super) b: Entity,
    pub(super) time_of_impact: f32,
    pub(super) path_a: Sweep,
    pub(super) path_b: Sweep,
}

impl Collisions {
    /// Forgets the paths of pairs no longer in `pairs` or `passing` (turned
    /// down by a hook), so that [`Self::impact_pose`] has none for them.
    pub(super) fn keep_paths_of_kept_pairs(&mut self) {
        let kept = |list: &[ContactPair], paths: &PairPaths| {
            (list.binary_search_by(|pair| (pair.a, pair.b).cmp(&(paths.a, paths.b)))).is_ok()
        };
        let Self {
            pairs,
            passing,
            swept_paths,
            ..
        } = self;
        swept_paths.retain(|paths| kept(pairs, paths) || kept(passing, paths));
    }
}

/// The order of [`Collisions`]: `Entity` orders by its bits.
pub(super) fn entity_pair(pair: &ContactPair) -> (u64, u64) {
    (pair.a.to_bits(), pair.b.to_bits())
}

impl Collisions {
    /// All contact pairs, sorted by `(a, b)`.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &ContactPair> {
        self.pairs.iter()
    }

    /// All contact pairs as a slice, sorted by `(a, b)`.
    pub fn as_slice(&self) -> &[ContactPair] {
        &self.pairs
    }

    /// Number of pairs in contact.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether nothing is in contact.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The contact between `entity` and `other` seen from `entity` (normal
    /// pointing towards `other`), if they touch. For a pair with a
    /// [`Swept`](crate::Swept) collider, see [which contact it
    /// holds](Self#which-contact-a-swept-pair-holds).
    pub fn get(&self, entity: Entity, other: Entity) -> Option<Contact> {
        let (index, from_a) = self.find(entity, other)?;
        let contact = self.pairs[index].contact;
        Some(if from_a { contact } else { contact.flipped() })
    }

    /// Where the pair of `entity` and `other` is in `pairs`, and whether
    /// `entity` is its `a`.
    fn find(&self, entity: Entity, other: Entity) -> Option<(usize, bool)> {
        let key = (entity.min(other), entity.max(other));
        let index = (self.pairs)
            .binary_search_by(|pair| (pair.a, pair.b).cmp(&key))
            .ok()?;
        Some((index, entity == key.0))
    }

    /// Whether `entity` and `other` touch.
    pub fn contains(&self, entity: Entity, other: Entity) -> bool {
        self.get(entity, other).is_some()
    }

    /// Every current contact of `entity`, seen from it: `(other, contact)`
    /// with the normal pointing from `entity` towards `other` (so moving
    /// `entity` by `-normal * depth` separates them).
    ///
    /// No lookup per partner: the pairs of `entity` are two ranges of the
    /// sorted pairs, found by binary search. The first call after a
    /// detection sorts the pairs' indices once (`O(n log n)` in the number
    /// of pairs); later calls share it. Pairs that only [passed](Self::passing)
    /// during the step are not current contacts and are not listed.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// fn touching(collisions: Res<Collisions>, player: Single<Entity, With<Collider>>) {
    ///     for (other, contact) in collisions.contacts_of(*player) {
    ///         info!("{other} at {} (normal {:?})", contact.point, contact.normal);
    ///     }
    /// }
    /// # bevy::ecs::system::assert_is_system(touching);
    /// ```
    pub fn contacts_of(&self, entity: Entity) -> impl Iterator<Item = (Entity, Contact)> + '_ {
        self.pairs_of(entity).map(|pair| (pair.b, pair.contact))
    }

    /// Which part of `entity` and which part of `other` their contact is
    /// on, seen from `entity` (`a()` is `entity`'s part), if they touch:
    /// the part's index for a compound collider, `None` for any other
    /// shape. For a compound, the part of the deepest contact at the end of
    /// the step (a [`Swept`](crate::Swept) pair that only touched on the way
    /// names none).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// /// A level whose part 3 is a spike.
    /// fn spiked(collisions: Res<Collisions>, level: Single<Entity, With<Collider>>) {
    ///     for (other, _) in collisions.contacts_of(*level) {
    ///         if collisions.parts(*level, other).and_then(|parts| parts.a()) == Some(3) {
    ///             info!("{other} stepped on the spike");
    ///         }
    ///     }
    /// }
    /// # bevy::ecs::system::assert_is_system(spiked);
    /// ```
    pub fn parts(&self, entity: Entity, other: Entity) -> Option<ContactParts> {
        let (index, from_a) = self.find(entity, other)?;
        let (a, b) = (self.pairs[index].a, self.pairs[index].b);
        let parts = match (self.part_pairs).binary_search_by(|p| (p.a, p.b).cmp(&(a, b))) {
            Ok(at) => self.part_pairs[at].parts,
            Err(_) => ContactParts::NONE,
        };
        Some(if from_a { parts } else { parts.swapped() })
    }

    /// The current contacts of part `part` of the compound `entity`, seen
    /// from it: [`Self::contacts_of`], keeping those on that part.
    pub fn contacts_of_part(
        &self,
        entity: Entity,
        part: u32,
    ) -> impl Iterator<Item = (Entity, Contact)> + '_ {
        self.contacts_of(entity).filter(move |&(other, _)| {
            self.parts(entity, other).and_then(ContactParts::a) == Some(part)
        })
    }

    /// The pairs of `entity`, each turned so that `entity` is its `a`.
    fn pairs_of(&self, entity: Entity) -> impl Iterator<Item = ContactPair> + '_ {
        let as_a_start = self.pairs.partition_point(|pair| pair.a < entity);
        let as_a_end =
            as_a_start + self.pairs[as_a_start..].partition_point(|pair| pair.a == entity);
        let as_a = self.pairs[as_a_start..as_a_end].iter().copied();
        let by_b = self.by_b.get_or_init(|| {
            let mut by_b: Vec<u32> = (0..self.pairs.len() as u32).collect();
            // Stable: pairs of one `b` stay in `a` order.
            by_b.sort_by_key(|&index| self.pairs[index as usize].b);
            by_b
        });
        let pair_b = |index: &u32| self.pairs[*index as usize].b;
        let as_b_start = by_b.partition_point(|index| pair_b(index) < entity);
        let as_b_end =
            as_b_start + by_b[as_b_start..].partition_point(|index| pair_b(index) == entity);
        let as_b =
            (by_b[as_b_start..as_b_end].iter()).map(|&index| self.pairs[index as usize].flipped());
        as_a.chain(as_b)
    }

    /// The translation that moves `entity` out of everything it overlaps
    /// now: add it to its `Transform` (for a collider without a parent).
    ///
    /// This is the usual way to keep a moving thing out of walls. Call it
    /// every frame, before moving the collider again: a contact that goes on
    /// sends no more events, so reacting only to `Started` leaves a collider
    /// inside a wall it entered on a long frame. With a bouncing ball,
    /// reflect its velocity off each of [`Self::contacts_of`] that it is
    /// still moving into, so that the push and the bounce agree (the
    /// [bouncing ball recipe](crate::guide::bouncing_ball)).
    ///
    /// The pushes of all contacts are combined by [`push_out`]:
    /// deepest first, each adding only what is still missing along its own
    /// normal, so two coplanar walls push once, a corner pushes out of both,
    /// and when squeezed between two facing surfaces the deeper one wins.
    /// To leave some contacts out (triggers, pickups), use
    /// [`Self::push_out_filtered`].
    ///
    /// For a [`Swept`](crate::Swept) pair new in this detection the contact
    /// is the first touch (depth about 0), so it pushes nothing: rewind to
    /// [`Self::impact_pose`] first, or it is pushed out at the next
    /// detection.
    pub fn push_out(&self, entity: Entity) -> Vec2 {
        self.push_out_filtered(entity, |_| true)
    }

    /// [`Self::push_out`] from the contacts with the colliders for which
    /// `solid(other)` is true: walls yes, coins and trigger zones no.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// #[derive(Component)]
    /// struct Wall;
    ///
    /// fn keep_out_of_walls(
    ///     collisions: Res<Collisions>,
    ///     walls: Query<(), With<Wall>>,
    ///     mut players: Query<(Entity, &mut Transform), With<Collider>>,
    /// ) {
    ///     for (player, mut transform) in &mut players {
    ///         let push = collisions.push_out_filtered(player, |other| walls.contains(other));
    ///         transform.translation += push.extend(0.0);
    ///     }
    /// }
    /// # bevy::ecs::system::assert_is_system(keep_out_of_walls);
    /// ```
    pub fn push_out_filtered(&self, entity: Entity, mut solid: impl FnMut(Entity) -> bool) -> Vec2 {
        push_out(
            self.contacts_of(entity)
                .filter(|&(other, _)| solid(other))
                .map(|(_, contact)| contact),
        )
    }

    /// When in the last step `entity` and `other` started touching, as a
    /// fraction of the step ([`ContactPair::time_of_impact`]), if they touch
    /// or [passed](Self::passing) each other: below 1 only for a pair with a
    /// [`Swept`](crate::Swept) collider that first touched on the way (see
    /// [which contact a swept pair
    /// holds](Self#which-contact-a-swept-pair-holds)), 1 for every other
    /// contact.
    ///
    /// This is where the time of a [`CollisionEvent::Started`] lives (its
    /// [`Contact`] is pure geometry and knows no step): look it up before the
    /// next detection replaces these pairs. [`CollisionStarted`] carries it
    /// as a field.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// fn first_touch(mut events: MessageReader<CollisionEvent>, collisions: Res<Collisions>) {
    ///     for event in events.read() {
    ///         if let CollisionEvent::Started { a, b, contact } = *event {
    ///             let time = collisions.time_of_impact(a, b).unwrap_or(1.0);
    ///             info!("{a} touched {b} at {} ({time} into the step)", contact.point);
    ///         }
    ///     }
    /// }
    /// # bevy::ecs::system::assert_is_system(first_touch);
    /// ```
    ///
    /// [`CollisionEvent::Started`]: crate::CollisionEvent::Started
    /// [`CollisionStarted`]: crate::CollisionStarted
    pub fn time_of_impact(&self, entity: Entity, other: Entity) -> Option<f32> {
        let key = (entity.min(other), entity.max(other));
        let find = |pairs: &[ContactPair]| {
            let index = pairs.binary_search_by(|pair| (pair.a, pair.b).cmp(&key));
            index.ok().map(|index| pairs[index].time_of_impact)
        };
        find(&self.pairs).or_else(|| find(&self.passing))
    }

    /// Where `entity` was when it touched `other`, for a pair with a
    /// [`Swept`](crate::Swept) collider: its world pose (position and
    /// rotation, as [`pose_and_scale`](crate::pose_and_scale) reads it)
    /// along its path over the last step, at the contact's
    /// [time of impact](Self::time_of_impact).
    ///
    /// For a pair that started touching on the way, or [passed](Self::passing),
    /// this is the pose of the first touch: set the collider's translation
    /// to it to rewind to the moment of impact (and insert `Swept` again, so
    /// that its next path starts there rather than where it was detected).
    /// For a pair that goes on it is the pose at the end of the step, where
    /// the collider was detected. See [which contact a swept pair
    /// holds](Self#which-contact-a-swept-pair-holds).
    ///
    /// `None` when the two do not touch and did not pass, or when neither
    /// is `Swept`: such a pair's contact is where the colliders were
    /// detected.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// fn rewind(hit: On<CollisionStarted>, collisions: Res<Collisions>, mut transforms: Query<&mut Transform>, mut commands: Commands) {
    ///     if let Some(pose) = collisions.impact_pose(hit.collider, hit.other)
    ///         && let Ok(mut transform) = transforms.get_mut(hit.collider)
    ///     {
    ///         transform.translation = pose.translation.extend(transform.translation.z);
    ///         commands.entity(hit.collider).insert(Swept);
    ///     }
    /// }
    /// ```
    pub fn impact_pose(&self, entity: Entity, other: Entity) -> Option<Isometry2d> {
        let (a, b) = (entity.min(other), entity.max(other));
        let index = self
            .swept_paths
            .binary_search_by(|paths| (paths.a, paths.b).cmp(&(a, b)))
            .ok()?;
        let paths = &self.swept_paths[index];
        let path = if entity == a {
            paths.path_a
        } else {
            paths.path_b
        };
        Some(path.at(paths.time_of_impact))
    }

    /// Pairs with a [`Swept`](crate::Swept) collider that touched during
    /// the last step but are apart at its end (a fast ball grazing a brick,
    /// say), sorted by `(a, b)`, each with its contact at the moment of first
    /// touch. They are not in [`Self::iter`]: they get a `Started` and an
    /// `Ended` in the same detection.
    pub fn passing(&self) -> &[ContactPair] {
        &self.passing
    }
}
