//! Pickups and triggers: colliders that are touched but never push.
//!
//! Nothing in this crate pushes: a coin, a door's trigger zone or a
//! checkpoint is a plain [`Collider`], and only the game decides what
//! touching it does. Two habits keep them apart from solid things:
//!
//! - react to them with an observer on the pickup itself (it collects
//!   itself), or read [`CollidingEntities`] for "while inside" logic;
//! - leave them out of the push-out with
//!   [`Collisions::push_out_filtered`], so that a player is not pushed out
//!   of a coin.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! #[derive(Component)]
//! struct Player;
//! #[derive(Component)]
//! struct Coin;
//! #[derive(Component)]
//! struct Zone;
//! #[derive(Resource, Default)]
//! struct Coins(u32);
//!
//! fn spawn_coin(commands: &mut Commands, x: f32) {
//!     commands
//!         .spawn((Coin, Collider::circle(4.0), Transform::from_xyz(x, 0.0, 0.0)))
//!         // The coin collects itself when the player touches it.
//!         .observe(|hit: On<CollisionStarted>, players: Query<(), With<Player>>, mut coins: ResMut<Coins>, mut commands: Commands| {
//!             if players.contains(hit.other) {
//!                 coins.0 += 1;
//!                 commands.entity(hit.entity).despawn();
//!             }
//!         });
//! }
//!
//! /// "While inside": the zone's `CollidingEntities` is what is in it now.
//! fn player_in_zone(zones: Query<&CollidingEntities, With<Zone>>, player: Single<Entity, With<Player>>) -> bool {
//!     zones.iter().any(|inside| inside.contains(&player))
//! }
//!
//! # use bevy::time::TimeUpdateStrategy;
//! # use std::time::Duration;
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()))
//! #   .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(16)))
//!     .init_resource::<Coins>()
//!     .add_systems(Update, |mut player: Single<&mut Transform, With<Player>>| player.translation.x += 5.0);
//! let world = app.world_mut();
//! world.spawn((Player, Collider::circle(8.0), Transform::default()));
//! world.spawn((Zone, Collider::rect(20.0, 40.0), Transform::from_xyz(100.0, 0.0, 0.0)));
//! let mut commands = world.commands();
//! spawn_coin(&mut commands, 30.0);
//! spawn_coin(&mut commands, 60.0);
//! let mut was_in_zone = false;
//! for _ in 0..25 {
//!     app.update();
//!     was_in_zone |= app.world_mut().run_system_cached(player_in_zone).unwrap();
//! }
//! assert_eq!(app.world().resource::<Coins>().0, 2);
//! assert!(was_in_zone);
//! ```
//!
//! [`Collider`]: crate::Collider
//! [`CollidingEntities`]: crate::CollidingEntities
//! [`Collisions::push_out_filtered`]: crate::Collisions::push_out_filtered
