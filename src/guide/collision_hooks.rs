//! Collision hooks: rules of a game's own, asked inside detection.
//!
//! [`CollisionLayers`](crate::CollisionLayers) say who may touch whom in
//! 32 bits; [`CollisionBody`](crate::CollisionBody) keeps the colliders of
//! one body apart. Anything else (whose bullet this is, which team, which
//! way a character moves through a ledge) is a [`CollisionHooks`]
//! implementation: a read-only system parameter whose `filter_pair` says
//! whether a touching pair counts and `modify_contact` edits its contact.
//! Only pairs with [`ActiveCollisionHooks`] on either collider are asked,
//! so the rest of the world pays nothing. A pair turned down is not
//! touching: no `Started` (or an `Ended` if it was touching), not in
//! [`Collisions`](crate::Collisions) nor in
//! [`CollidingEntities`](crate::CollidingEntities).
//!
//! A one-way ledge that a character jumps up through and lands on, and
//! teams (any number of them) whose members never touch:
//!
//! ```
//! use bevy::ecs::system::SystemParam;
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! #[derive(Component)]
//! struct Ledge;
//!
//! #[derive(Component)]
//! struct Team(u32);
//!
//! /// The character's velocity, as the game keeps it.
//! #[derive(Component)]
//! struct Velocity(Vec2);
//!
//! #[derive(SystemParam)]
//! struct Rules<'w, 's> {
//!     ledges: Query<'w, 's, (), With<Ledge>>,
//!     velocities: Query<'w, 's, &'static Velocity>,
//!     teams: Query<'w, 's, &'static Team>,
//! }
//!
//! impl CollisionHooks for Rules<'_, '_> {
//!     fn filter_pair(&self, a: Entity, b: Entity) -> bool {
//!         match (self.teams.get(a), self.teams.get(b)) {
//!             (Ok(x), Ok(y)) => x.0 != y.0,
//!             _ => true,
//!         }
//!     }
//!
//!     fn modify_contact(&self, a: Entity, b: Entity, contact: &mut Contact) -> bool {
//!         let (from_ledge, other) = if self.ledges.contains(a) { (true, b) } else { (false, a) };
//!         // Moving up: passes through. Otherwise the ledge only pushes up.
//!         if self.velocities.get(other).is_ok_and(|v| v.0.y > 0.0) {
//!             return false;
//!         }
//!         contact.normal = if from_ledge { Dir2::Y } else { Dir2::NEG_Y };
//!         true
//!     }
//! }
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default().with_hooks::<Rules>()));
//! let world = app.world_mut();
//! world.spawn((Ledge, ActiveCollisionHooks::MODIFY_CONTACTS, Collider::rect(100.0, 4.0), Transform::default()));
//! let hero = world
//!     .spawn((Velocity(Vec2::new(0.0, 300.0)), Collider::rect(10.0, 20.0), Transform::from_xyz(0.0, 5.0, 0.0)))
//!     .id();
//! // Jumping up through the ledge: not touching it.
//! app.update();
//! assert!(app.world().get::<CollidingEntities>(hero).unwrap().is_empty());
//! // Falling: it lands on it, pushed up.
//! app.world_mut().get_mut::<Velocity>(hero).unwrap().0.y = -300.0;
//! app.update();
//! assert_eq!(app.world().resource::<Collisions>().push_out(hero), Vec2::new(0.0, 7.0));
//!
//! // Two of team 7 overlap, and do not touch; a member of team 8 does.
//! let team = |world: &mut World, number: u32, x: f32| {
//!     let at = Transform::from_xyz(x, 200.0, 0.0);
//!     world.spawn((Team(number), ActiveCollisionHooks::FILTER_PAIRS, Collider::circle(5.0), at)).id()
//! };
//! let world = app.world_mut();
//! let (first, _second, rival) = (team(world, 7, 0.0), team(world, 7, 6.0), team(world, 8, -6.0));
//! app.update();
//! let touching: Vec<Entity> = app.world().get::<CollidingEntities>(first).unwrap().iter().collect();
//! assert_eq!(touching, vec![rival]);
//! ```
//!
//! [`CollisionHooks`]: crate::CollisionHooks
//! [`ActiveCollisionHooks`]: crate::ActiveCollisionHooks
