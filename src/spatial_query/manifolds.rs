//! Contact manifolds of colliders as detection saw them, computed when a
//! game asks: detection finds and keeps none.

use bevy::prelude::*;

use super::SpatialQuery;
use crate::geometry::{Manifold, for_each_manifold, manifold_of};
use crate::stages::collisions::{Collisions, ContactPair};

impl SpatialQuery<'_, '_> {
    /// The contact manifold of `entity`'s collider and `other`'s, where the
    /// last detection saw them, seen from `entity`: the normal (towards
    /// `other`) and the one or two points where they touch, each with its
    /// depth and a [`FeatureId`](crate::FeatureId) that stays the same
    /// while the same features touch (Box2D's `b2Manifold`; see
    /// [`Shape::manifold`](crate::geometry::Shape::manifold)). A box resting
    /// flat on a floor or a ramp gets two points, one under each corner; a
    /// corner, a circle or a capsule's end gets one. For a compound, the
    /// manifold of the part pair [`Collisions::parts`](crate::Collisions::parts)
    /// names ([`Manifold::parts`]).
    ///
    /// Computed on request from the shapes and poses of the last detection
    /// (what the other queries see, see [what it sees](Self#what-it-sees)):
    /// detection computes and keeps no manifold, so a game that never asks
    /// pays nothing. The first call after a detection sorts the colliders by
    /// entity once (`O(n log n)`); each call is then two lookups and the
    /// pair's own contact test and clipping.
    ///
    /// For a pair in [`Collisions`](crate::Collisions), the normal is
    /// exactly that of its contact (seen from `entity`) and no point is
    /// deeper than it, except for a [`Swept`](crate::Swept) pair that
    /// touched on the way: its contact is the first touch, the manifold is
    /// where the step ended (rewind with
    /// [`Collisions::impact_pose`](crate::Collisions::impact_pose) and ask
    /// [`Collider::manifold`](crate::Collider::manifold) there).
    ///
    /// Geometry only: any two colliders that touch have one, whatever their
    /// layers and bodies (read the pairs from `Collisions`). `None` when
    /// they do not touch, when `entity == other`, or when either is not a
    /// collider detection saw (invalid, disabled, despawned or spawned
    /// since).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// #[derive(Component)]
    /// struct Crate;
    ///
    /// /// Whether each crate rests flat on something: two points as deep.
    /// fn resting(crates: Query<Entity, With<Crate>>, collisions: Res<Collisions>, spatial: SpatialQuery) {
    ///     for crate_ in &crates {
    ///         for (other, _) in collisions.contacts_of(crate_) {
    ///             let Some(manifold) = spatial.manifold(crate_, other) else { continue };
    ///             if let [p, q] = manifold.points() && (p.depth - q.depth).abs() < 0.5 {
    ///                 info!("{crate_} lies flat on {other}, from {} to {}", p.point, q.point);
    ///             }
    ///         }
    ///     }
    /// }
    /// # bevy::ecs::system::assert_is_system(resting);
    /// ```
    pub fn manifold(&self, entity: Entity, other: Entity) -> Option<Manifold> {
        if entity == other {
            return None;
        }
        let colliders = self.colliders();
        let (i, j) = (colliders.index_of(entity)?, colliders.index_of(other)?);
        // From the lower entity, as detection tests the pair: the same
        // contact, to the bit.
        let (first, second) = if entity < other { (i, j) } else { (j, i) };
        let manifold = manifold_of(colliders.placed(first), colliders.placed(second))?;
        Some(if entity < other {
            manifold
        } else {
            manifold.flipped()
        })
    }

    /// Every manifold of `entity`'s collider and `other`'s, where the last
    /// detection saw them, seen from `entity`: [`Self::manifold`] for two
    /// colliders that are not compounds, else one for each pair of their
    /// parts that touch, each naming its parts in [`Manifold::parts`] and
    /// with that pair of parts' own normal
    /// ([`Shape::manifolds`](crate::geometry::Shape::manifolds)). A crate
    /// lying across two tiles of a [`TilemapCollider`](crate::TilemapCollider)
    /// of different kinds, or across a bend of a polyline, rests on both.
    ///
    /// Computed on request, as [`Self::manifold`]; empty when they do not
    /// touch or either is not a collider detection saw.
    pub fn manifolds(&self, entity: Entity, other: Entity) -> Vec<Manifold> {
        let mut found = Vec::new();
        if entity == other {
            return found;
        }
        let colliders = self.colliders();
        let (Some(i), Some(j)) = (colliders.index_of(entity), colliders.index_of(other)) else {
            return found;
        };
        // From the lower entity, as detection tests the pair.
        let (first, second) = if entity < other { (i, j) } else { (j, i) };
        for_each_manifold(
            colliders.placed(first),
            colliders.placed(second),
            |manifold| {
                found.push(if entity < other {
                    manifold
                } else {
                    manifold.flipped()
                });
            },
        );
        found
    }
}

impl Collisions {
    /// The contact manifold of `entity` and `other` if they are a pair of
    /// these contacts, seen from `entity`: the normal (towards `other`) and
    /// the one or two points where they touch, each with its depth and a
    /// [`FeatureId`](crate::FeatureId) (Box2D's `b2Manifold`; see
    /// [`SpatialQuery::manifold`], which computes it). `None` when they are
    /// not a pair of [`Self::iter`] (apart, filtered out by their layers,
    /// bodies or hooks, or passed on a [`Swept`](crate::Swept) path).
    ///
    /// [`Collisions`] holds only what events need (the deepest point of each
    /// pair, [`ContactPair::contact`]); the manifold is computed when asked,
    /// from the shapes and poses of the same detection, which
    /// [`SpatialQuery`] holds. Nothing is paid for it otherwise.
    ///
    /// The manifold is the shapes' own: a hook's
    /// [`modify_contact`](crate::CollisionHooks::modify_contact) edits the
    /// pair's contact, not its manifold, and a swept pair that touched on
    /// the way holds its first touch where the manifold is where the step
    /// ended (see [`SpatialQuery::manifold`]).
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// #[derive(Component)]
    /// struct Crate;
    ///
    /// /// Whether each crate rests flat on something: two points as deep.
    /// fn resting(crates: Query<Entity, With<Crate>>, collisions: Res<Collisions>, spatial: SpatialQuery) {
    ///     for crate_ in &crates {
    ///         for (other, _) in collisions.contacts_of(crate_) {
    ///             let Some(manifold) = collisions.manifold(crate_, other, &spatial) else { continue };
    ///             if let [p, q] = manifold.points() && (p.depth - q.depth).abs() < 0.5 {
    ///                 info!("{crate_} lies flat on {other}, from {} to {}", p.point, q.point);
    ///             }
    ///         }
    ///     }
    /// }
    /// # bevy::ecs::system::assert_is_system(resting);
    /// ```
    pub fn manifold(
        &self,
        entity: Entity,
        other: Entity,
        spatial: &SpatialQuery,
    ) -> Option<Manifold> {
        self.get(entity, other)?;
        spatial.manifold(entity, other)
    }
}

impl ContactPair {
    /// The contact manifold of this pair, seen from its `a` (the normal is
    /// that of [`Self::contact`], but for a pair whose contact a hook
    /// edited): see [`Collisions::manifold`].
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// fn count_points(collisions: Res<Collisions>, spatial: SpatialQuery) {
    ///     let points: usize = (collisions.iter())
    ///         .filter_map(|pair| pair.manifold(&spatial))
    ///         .map(|manifold| manifold.points().len())
    ///         .sum();
    ///     info!("{} pairs touch at {points} points", collisions.len());
    /// }
    /// # bevy::ecs::system::assert_is_system(count_points);
    /// ```
    pub fn manifold(&self, spatial: &SpatialQuery) -> Option<Manifold> {
        spatial.manifold(self.a, self.b)
    }
}
