//! Disabling colliders, and bodies made of several colliders.
//!
//! **[`ColliderDisabled`]** takes a collider out of detection and queries
//! while present, without hiding the entity from the game: its contacts
//! end (with `Ended` events on both sides), and start again when it is
//! removed, if they still hold. Invulnerability frames, a pooled bullet, a
//! door held open. (Bevy's `Disabled` hides the whole entity and ends its
//! contacts the same way.)
//!
//! **[`CollisionBody`]** groups the colliders of its subtree: a player's
//! hurtbox, feet sensor and sword. They never collide with each other, and
//! each one's [`CollisionStarted`] / [`CollisionEnded`] is also triggered on
//! the body, with `collider` naming the part that touched: one observer on
//! the body hears them all.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! #[derive(Component)]
//! struct Feet;
//!
//! #[derive(Resource, Default)]
//! struct Touches(Vec<(bool, Entity)>);
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()))
//!     .init_resource::<Touches>();
//! let world = app.world_mut();
//! let floor = world.spawn((Collider::rect(200.0, 10.0), Transform::from_xyz(0.0, -20.0, 0.0))).id();
//! let player = world
//!     .spawn((CollisionBody, Transform::default()))
//!     .with_children(|player| {
//!         player.spawn(Collider::capsule(6.0, 12.0)); // hurtbox, down to y = -12
//!         player.spawn((Feet, Collider::rect(10.0, 4.0), Transform::from_xyz(0.0, -14.0, 0.0)));
//!     })
//!     .observe(|hit: On<CollisionStarted>, feet: Query<(), With<Feet>>, mut touches: ResMut<Touches>| {
//!         touches.0.push((feet.contains(hit.collider), hit.other));
//!     })
//!     .id();
//! app.update();
//! // Only the feet reach the floor; the hurtbox and the feet never collide.
//! assert_eq!(app.world().resource::<Touches>().0, [(true, floor)]);
//!
//! // Feet off (dropping through the floor): their contact ends, and starts
//! // again when they are back.
//! let feet = app.world_mut().query_filtered::<Entity, With<Feet>>().single(app.world()).unwrap();
//! app.world_mut().entity_mut(feet).insert(ColliderDisabled);
//! app.update();
//! assert!(app.world().get::<CollidingEntities>(floor).unwrap().is_empty());
//! app.world_mut().entity_mut(feet).remove::<ColliderDisabled>();
//! app.update();
//! assert_eq!(app.world().resource::<Touches>().0, [(true, floor), (true, floor)]);
//! # let _ = player;
//! ```
//!
//!
//! ## Pooling colliders
//!
//! A pool hides an entity, moves it, and shows it again. Either way of
//! hiding works: `ColliderDisabled` hides the collider only, Bevy's
//! `Disabled` the whole entity. Bevy's transform propagation skips
//! disabled entities, so the plugin marks the `Transform` of a collider (or
//! [`CollisionBody`]) changed when `Disabled` is removed: it comes back
//! where it was moved to, not where it was hidden.
//!
//! ```
//! use bevy::ecs::entity_disabling::Disabled;
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()));
//! let target = app.world_mut().spawn((Collider::circle(5.0), Transform::from_xyz(100.0, 0.0, 0.0))).id();
//! let touching = |app: &App| !app.world().get::<CollidingEntities>(target).unwrap().is_empty();
//! for hide in ["ColliderDisabled", "Disabled"] {
//!     let bullet = app.world_mut().spawn((Collider::circle(2.0), Transform::default())).id();
//!     app.update();
//!     // Back to the pool, moved onto the target, out of the pool.
//!     match hide {
//!         "ColliderDisabled" => app.world_mut().entity_mut(bullet).insert(ColliderDisabled),
//!         _ => app.world_mut().entity_mut(bullet).insert(Disabled),
//!     };
//!     app.update();
//!     app.world_mut().entity_mut(bullet).insert(Transform::from_xyz(100.0, 0.0, 0.0));
//!     app.update();
//!     app.world_mut().entity_mut(bullet).remove::<(ColliderDisabled, Disabled)>();
//!     app.update();
//!     // Back on the target, where it was moved while hidden.
//!     assert!(touching(&app), "{hide}");
//!     app.world_mut().despawn(bullet);
//!     app.update();
//! }
//! ```
//!
//! [`ColliderDisabled`]: crate::ColliderDisabled
//! [`CollisionBody`]: crate::CollisionBody
//! [`CollisionStarted`]: crate::CollisionStarted
//! [`CollisionEnded`]: crate::CollisionEnded
