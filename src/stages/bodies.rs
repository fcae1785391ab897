//! Which [`CollisionBody`] owns each collider: kept in a map rebuilt only
//! when the hierarchy, a body or a collider is added or changed, and copied
//! per detection into the snapshot (one body per collider index) for the
//! broad phase to leave out pairs of one body.

use bevy::ecs::entity::EntityHashMap;
use bevy::ecs::entity_disabling::Disabled;
use bevy::ecs::query::Allow;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use super::snapshot::ColliderSnapshot;
use crate::components::{Collider, CollisionBody};

/// The body of every collider that has one.
#[derive(Resource, Default, Debug)]
pub(crate) struct ColliderBodies {
    /// Collider to body, as of this detection.
    current: EntityHashMap<Entity>,
    /// As of the previous detection, when this one rebuilt the map.
    previous: EntityHashMap<Entity>,
    /// Whether this detection rebuilt the map with a different result.
    changed: bool,
    /// The colliders whose body changed in this detection.
    moved: Vec<Entity>,
    /// Something the map depends on changed since it was built.
    stale: bool,
}

impl ColliderBodies {
    /// The body of `collider` now, if it has one.
    pub(crate) fn body_of(&self, collider: Entity) -> Option<Entity> {
        if self.current.is_empty() {
            return None;
        }
        self.current.get(&collider).copied()
    }

    /// The body of `collider` at the previous detection: the one that heard
    /// its contacts start.
    pub(crate) fn previous_body_of(&self, collider: Entity) -> Option<Entity> {
        let map = if self.changed {
            &self.previous
        } else {
            &self.current
        };
        map.get(&collider).copied()
    }

    /// Whether any collider has a body.
    pub(crate) fn any(&self) -> bool {
        !self.current.is_empty()
    }

    /// The colliders whose body changed in this detection (none unless the
    /// map was rebuilt with a different result).
    pub(crate) fn moved(&self) -> &[Entity] {
        &self.moved
    }

    /// The body of each collider of `snapshot`, by index, into its
    /// `bodies`; left empty when no collider has a body.
    pub(crate) fn fill(&self, snapshot: &mut ColliderSnapshot) {
        snapshot.bodies.clear();
        if self.any() {
            let bodies = snapshot
                .colliders
                .iter()
                .map(|collider| self.current.get(&collider.entity).copied());
            snapshot.bodies.extend(bodies);
        }
    }
}

/// Marks [`ColliderBodies`] stale: a collider, a body or a parent link was
/// added, changed or removed.
pub(crate) fn mark_bodies_stale(
    _: On<Add<(Collider, CollisionBody)>>,
    bodies: ResMut<ColliderBodies>,
) {
    mark_stale(bodies);
}

/// As [`mark_bodies_stale`], for a parent set, changed or removed, or a
/// body removed.
pub(crate) fn mark_bodies_stale_on_discard(
    _: On<Discard<(ChildOf, CollisionBody)>>,
    bodies: ResMut<ColliderBodies>,
) {
    mark_stale(bodies);
}

/// As [`mark_bodies_stale`], for a parent set.
pub(crate) fn mark_bodies_stale_on_insert(_: On<Insert<ChildOf>>, bodies: ResMut<ColliderBodies>) {
    mark_stale(bodies);
}

fn mark_stale(mut bodies: ResMut<ColliderBodies>) {
    // Written only when it flips, so that spawning many children costs a read.
    if !bodies.stale {
        bodies.stale = true;
    }
}

/// What rebuilding [`ColliderBodies`] reads. Entities disabled with Bevy's
/// `Disabled` are read too: ownership follows the hierarchy alone, so that
/// a part enabled again is still its body's (enabling changes nothing the
/// map depends on, and sets off no rebuild).
#[derive(SystemParam)]
pub(crate) struct BodyInputs<'w, 's> {
    bodies: Query<'w, 's, Entity, (With<CollisionBody>, Allow<Disabled>)>,
    children: Query<'w, 's, &'static Children, Allow<Disabled>>,
    is_body: Query<'w, 's, (), (With<CollisionBody>, Allow<Disabled>)>,
    is_collider: Query<'w, 's, (), (With<Collider>, Allow<Disabled>)>,
    map: ResMut<'w, ColliderBodies>,
}

impl BodyInputs<'_, '_> {
    /// Rebuilds the map if anything it depends on changed, and notes which
    /// colliders changed body. Returns the map.
    pub(crate) fn update(&mut self) -> &ColliderBodies {
        let map = &mut *self.map;
        map.changed = false;
        map.moved.clear();
        if map.stale {
            map.stale = false;
            let mut built = EntityHashMap::default();
            let mut stack = Vec::new();
            for body in &self.bodies {
                stack.push(body);
                while let Some(entity) = stack.pop() {
                    if self.is_collider.contains(entity) {
                        built.insert(entity, body);
                    }
                    let Ok(children) = self.children.get(entity) else {
                        continue;
                    };
                    // A nested body owns its own subtree.
                    stack.extend(children.iter().filter(|&c| !self.is_body.contains(c)));
                }
            }
            if built != map.current {
                let moved = (built.iter())
                    .filter(|&(collider, body)| map.current.get(collider) != Some(body))
                    .map(|(&collider, _)| collider);
                let left = (map.current.keys()).filter(|collider| !built.contains_key(*collider));
                map.moved.extend(moved.chain(left.copied()));
                map.moved.sort_unstable();
                map.previous = std::mem::replace(&mut map.current, built);
                map.changed = true;
            }
        }
        map
    }
}
