//! Collision hooks: a game's own rule, asked inside detection, whether a
//! touching pair counts and what its contact is ([`CollisionHooks`]), for
//! the pairs that opt in ([`ActiveCollisionHooks`]).

use bevy::ecs::system::{ReadOnlySystemParam, StaticSystemParam, SystemParam, SystemParamItem};
use bevy::prelude::*;

use super::collisions::{Collisions, ContactPair};
use crate::geometry::Contact;

/// A game's own rule for pairs of touching colliders, asked by the narrow
/// phase after it found their contact and before any event is sent: a
/// one-way platform that a character jumping up through it does not
/// touch, a bullet that ignores its shooter, teams beyond the 32 bits of
/// [`CollisionLayers`](crate::CollisionLayers).
///
/// Implement it on a [`SystemParam`] (read-only: the hooks see the world
/// as detection does, and may not change it) and register it with
/// [`CollisionPlugin::with_hooks`](crate::CollisionPlugin::with_hooks). It
/// is asked only for touching pairs in which either collider has
/// [`ActiveCollisionHooks`] with the hook's flag; a game without hooks, or
/// whose colliders have none, pays nothing for them.
///
/// A pair a hook turns down is not touching as far as detection goes: no
/// `Started`, not in [`Collisions`] or
/// [`CollidingEntities`](crate::CollidingEntities), and an `Ended` if it
/// was touching before. Hooks run on the detection's own thread, one pair
/// after another, in entity-pair order.
///
/// ```
/// use bevy::ecs::system::SystemParam;
/// use bevy::prelude::*;
/// use bevy_collide2d::prelude::*;
///
/// /// Whose bullet this is.
/// #[derive(Component)]
/// struct Shooter(Entity);
///
/// #[derive(SystemParam)]
/// struct BulletHooks<'w, 's> {
///     bullets: Query<'w, 's, &'static Shooter>,
/// }
///
/// impl CollisionHooks for BulletHooks<'_, '_> {
///     /// A bullet does not hit whoever shot it.
///     fn filter_pair(&self, a: Entity, b: Entity) -> bool {
///         let shot_by = |bullet: Entity, other: Entity| {
///             self.bullets.get(bullet).is_ok_and(|shooter| shooter.0 == other)
///         };
///         !(shot_by(a, b) || shot_by(b, a))
///     }
/// }
///
/// let mut app = App::new();
/// app.add_plugins((
///     MinimalPlugins,
///     TransformPlugin,
///     CollisionPlugin::default().with_hooks::<BulletHooks>(),
/// ));
/// let hero = app.world_mut().spawn((Collider::circle(8.0), Transform::default())).id();
/// let bullet = app
///     .world_mut()
///     .spawn((Collider::circle(1.0), Shooter(hero), ActiveCollisionHooks::FILTER_PAIRS))
///     .id();
/// let enemy = app.world_mut().spawn((Collider::circle(8.0), Transform::from_xyz(8.0, 0.0, 0.0))).id();
/// app.update();
/// let touching = app.world().get::<CollidingEntities>(bullet).unwrap();
/// assert!(!touching.contains(&hero) && touching.contains(&enemy));
/// ```
pub trait CollisionHooks: ReadOnlySystemParam + Send + Sync {
    /// Whether there are hooks to ask (`false` only for `()`, no hooks).
    #[doc(hidden)]
    const ANY: bool = true;

    /// Whether touching colliders `a` and `b` (`a < b`) count as touching.
    /// Asked when either has [`ActiveCollisionHooks::FILTER_PAIRS`].
    fn filter_pair(&self, a: Entity, b: Entity) -> bool {
        let _ = (a, b);
        true
    }

    /// Edits the contact of touching colliders `a` and `b` (`a < b`, the
    /// contact seen from `a`), or turns the pair down by returning
    /// `false`. Asked, after [`Self::filter_pair`] let the pair through,
    /// when either has [`ActiveCollisionHooks::MODIFY_CONTACTS`].
    fn modify_contact(&self, a: Entity, b: Entity, contact: &mut Contact) -> bool {
        let _ = (a, b, contact);
        true
    }
}

/// No hooks: what [`CollisionPlugin`](crate::CollisionPlugin) runs without
/// [`with_hooks`](crate::CollisionPlugin::with_hooks).
impl CollisionHooks for () {
    const ANY: bool = false;
}

/// Which of the registered [`CollisionHooks`] are asked about the pairs of
/// this collider (either collider of a pair opting in is enough).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Reflect)]
#[reflect(Component, Debug, Default, PartialEq, Clone)]
pub struct ActiveCollisionHooks {
    /// [`CollisionHooks::filter_pair`].
    pub filter_pairs: bool,
    /// [`CollisionHooks::modify_contact`].
    pub modify_contacts: bool,
}

impl ActiveCollisionHooks {
    /// Only [`CollisionHooks::filter_pair`].
    pub const FILTER_PAIRS: Self = Self {
        filter_pairs: true,
        modify_contacts: false,
    };
    /// Only [`CollisionHooks::modify_contact`].
    pub const MODIFY_CONTACTS: Self = Self {
        filter_pairs: false,
        modify_contacts: true,
    };
    /// Both hooks.
    pub const ALL: Self = Self {
        filter_pairs: true,
        modify_contacts: true,
    };

    fn or(self, other: Self) -> Self {
        Self {
            filter_pairs: self.filter_pairs || other.filter_pairs,
            modify_contacts: self.modify_contacts || other.modify_contacts,
        }
    }
}

/// What the narrow phase reads to ask the hooks `H`.
#[derive(SystemParam)]
pub(crate) struct PairHooks<'w, 's, H: CollisionHooks + 'static> {
    hooks: StaticSystemParam<'w, 's, H>,
    active: Query<'w, 's, &'static ActiveCollisionHooks>,
}

impl<H: CollisionHooks + 'static> PairHooks<'_, '_, H>
where
    for<'w, 's> SystemParamItem<'w, 's, H>: CollisionHooks,
{
    /// Asks the hooks about this detection's touching pairs (and those
    /// that touched on the way), dropping the ones they turn down, with
    /// what is kept beside them: a passing pair's `apart_at_start` flag
    /// (a list parallel to [`Collisions::passing`]) and its paths.
    pub(crate) fn apply(&self, collisions: &mut Collisions, apart_at_start: &mut Vec<bool>) {
        if !H::ANY {
            return;
        }
        let listed = collisions.pairs.len() + collisions.passing.len();
        collisions.pairs.retain_mut(|pair| self.keeps(pair));
        debug_assert_eq!(apart_at_start.len(), collisions.passing.len());
        let (mut index, mut kept) = (0, 0);
        collisions.passing.retain_mut(|pair| {
            let keep = self.keeps(pair);
            if keep {
                apart_at_start.swap(kept, index);
                kept += 1;
            }
            index += 1;
            keep
        });
        apart_at_start.truncate(kept);
        // Paths are looked up pair by pair: only when a pair was dropped.
        if collisions.pairs.len() + collisions.passing.len() < listed {
            collisions.keep_paths_of_kept_pairs();
        }
    }

    /// Whether the hooks keep `pair`, its contact as they edit it.
    fn keeps(&self, pair: &mut ContactPair) -> bool {
        let flags = |entity| self.active.get(entity).copied().unwrap_or_default();
        let active = flags(pair.a).or(flags(pair.b));
        let hooks = &*self.hooks;
        (!active.filter_pairs || hooks.filter_pair(pair.a, pair.b))
            && (!active.modify_contacts || hooks.modify_contact(pair.a, pair.b, &mut pair.contact))
    }
}
