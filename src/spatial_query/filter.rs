//! Which colliders a spatial query sees: [`QueryFilter`] (layers and
//! excluded entities), and a game's own predicate on top of it.

use core::fmt;
use std::sync::Arc;

use bevy::ecs::entity::{EntityHashSet, EntityMapper, MapEntities};
use bevy::prelude::*;

use crate::components::CollisionLayers;

/// Which colliders a [`SpatialQuery`](crate::SpatialQuery) sees.
///
/// The query acts like a collider with [`layers`](Self::layers): it sees
/// exactly the colliders such a collider would collide with
/// ([`CollisionLayers::interacts_with`], both ways), except the
/// [`excluded`](Self::excluded) entities. The default sees every collider
/// whose layers are not empty.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_collide2d::prelude::*;
/// # let [player, wall, coin] = [1, 2, 3].map(|i| Entity::from_raw_u32(i).unwrap());
/// const WALLS: u32 = 1 << 3;
/// const PICKUPS: u32 = 1 << 4;
/// let wall_layers = CollisionLayers::new(WALLS, u32::MAX);
/// let coin_layers = CollisionLayers::new(PICKUPS, u32::MAX);
/// // The player's line of sight: stopped by walls, not by coins or the player.
/// let sight = QueryFilter::default()
///     .with_layers(CollisionLayers::new(u32::MAX, WALLS))
///     .with_excluded([player]);
/// assert!(sight.accepts(wall, &wall_layers));
/// assert!(!sight.accepts(coin, &coin_layers));
/// assert!(!sight.accepts(player, &wall_layers));
/// ```
///
/// It is reflected (as part of [`RayCaster`](crate::RayCaster) and
/// [`ShapeCaster`](crate::ShapeCaster)) without its predicate, a closure:
/// a filter read back from a scene has none.
#[derive(Clone, Default, Reflect)]
#[reflect(Debug, Default, PartialEq, Clone)]
pub struct QueryFilter {
    /// The layers the query has, as a collider would (default: all).
    pub layers: CollisionLayers,
    /// Entities the query ignores.
    pub excluded: EntityHashSet,
    /// A game's own test of the entities the query sees
    /// ([`Self::with_predicate`]).
    #[reflect(ignore)]
    pub predicate: Option<EntityPredicate>,
}

/// The excluded entities are mapped (a filter in a scene names the scene's
/// entities).
impl MapEntities for QueryFilter {
    fn map_entities<E: EntityMapper>(&mut self, mapper: &mut E) {
        if !self.excluded.is_empty() {
            let excluded = core::mem::take(&mut self.excluded);
            self.excluded = excluded.into_iter().map(|e| mapper.get_mapped(e)).collect();
        }
    }
}

/// A test of the entities a query sees ([`QueryFilter::with_predicate`]).
pub type EntityPredicate = Arc<dyn Fn(Entity) -> bool + Send + Sync>;

impl fmt::Debug for QueryFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QueryFilter")
            .field("layers", &self.layers)
            .field("excluded", &self.excluded)
            .field(
                "predicate",
                &self.predicate.as_ref().map(|_| "Fn(Entity) -> bool"),
            )
            .finish()
    }
}

/// Two filters are equal when they have the same layers and excluded
/// entities, and the same predicate (the same shared closure) or none.
impl PartialEq for QueryFilter {
    fn eq(&self, other: &Self) -> bool {
        let same_predicate = match (&self.predicate, &other.predicate) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        self.layers == other.layers && self.excluded == other.excluded && same_predicate
    }
}

impl Eq for QueryFilter {}

impl QueryFilter {
    /// The filter with these layers.
    #[must_use]
    pub fn with_layers(mut self, layers: CollisionLayers) -> Self {
        self.layers = layers;
        self
    }

    /// The filter also ignoring these entities.
    #[must_use]
    pub fn with_excluded(mut self, entities: impl IntoIterator<Item = Entity>) -> Self {
        self.excluded.extend(entities);
        self
    }

    /// The filter also asking `predicate` of each entity it would see:
    /// "every enemy but the invisible ones", which layers cannot say. Asked
    /// only of colliders the layers and exclusions already let through,
    /// before their shapes are tested; a filter without one pays nothing
    /// for it. The predicate is kept (shared when the filter is cloned), so
    /// it owns what it reads: collect what it needs from queries first.
    ///
    /// ```
    /// # use bevy::ecs::entity::{EntityHashSet, EntityMapper, MapEntities};
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// #[derive(Component)]
    /// struct Invisible;
    ///
    /// fn look(spatial: SpatialQuery, invisible: Query<Entity, With<Invisible>>) {
    ///     let hidden: EntityHashSet = invisible.iter().collect();
    ///     let filter = QueryFilter::default().with_predicate(move |entity| !hidden.contains(&entity));
    ///     let seen = spatial.cast_ray(Vec2::ZERO, Dir2::X, 500.0, &filter);
    /// #   let _ = seen;
    /// }
    /// # bevy::ecs::system::assert_is_system(look);
    /// ```
    #[must_use]
    pub fn with_predicate(
        mut self,
        predicate: impl Fn(Entity) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.predicate = Some(Arc::new(predicate));
        self
    }

    /// Whether the query sees a collider on `entity` with `layers`.
    #[inline]
    pub fn accepts(&self, entity: Entity, layers: &CollisionLayers) -> bool {
        self.layers.interacts_with(layers)
            && (self.excluded.is_empty() || !self.excluded.contains(&entity))
            && self.predicate.as_ref().is_none_or(|keep| keep(entity))
    }
}
