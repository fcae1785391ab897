//! Sprites sized by scale: `Collider::rect(1.0, 1.0)` under
//! `Transform::scale`.
//!
//! Bevy's breakout draws its bricks, paddle and walls as 1x1 sprites
//! stretched by `Transform::scale`. A collider is scaled by the same
//! transform (see [`Collider`] for the rule of each shape), so it is sized
//! like the sprite's *unscaled* size: `Collider::rect(1.0, 1.0)`, and for a
//! circle sprite of diameter 1, `Collider::circle(0.5)`. Writing the pixel
//! size instead, `Collider::rect(100.0, 30.0)` under a scale of
//! `(100, 30)`, gives a collider 100 times too wide and 30 times too tall,
//! and nothing warns: it is a valid, huge rectangle. The debug overlay
//! (the `debug_overlay` page) shows it at once.
//!
//! A collider on a child entity without the scale, or a sprite sized with
//! `Sprite::custom_size`, takes the size in world units instead.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_collide2d::prelude::*;
//!
//! let brick = Transform::default().with_scale(Vec3::new(100.0, 30.0, 1.0));
//! let ball_at = |x: f32| Transform::from_xyz(x, 0.0, 0.0).with_scale(Vec3::new(30.0, 30.0, 1.0));
//!
//! // As detection sees them: a 100 x 30 rectangle and a circle of radius 15.
//! let (brick_shape, brick_pose) = Collider::rect(1.0, 1.0).world_shape(&brick.into()).unwrap();
//! let ball = Collider::circle(0.5);
//! let (ball_shape, touching) = ball.world_shape(&ball_at(64.0).into()).unwrap();
//! let (_, apart) = ball.world_shape(&ball_at(66.0).into()).unwrap();
//! assert!(brick_shape.intersects(brick_pose, &ball_shape, touching));
//! assert!(!brick_shape.intersects(brick_pose, &ball_shape, apart));
//!
//! // The pixel size under the same scale: 10,000 units wide.
//! let (huge, _) = Collider::rect(100.0, 30.0).world_shape(&brick.into()).unwrap();
//! let far_away = Isometry2d::from_xy(4000.0, 0.0);
//! assert!(huge.intersects(brick_pose, &ball_shape, far_away));
//!
//! // In a game: the sprite's size is in the scale, the collider is 1 x 1.
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()));
//! app.world_mut().spawn((Collider::rect(1.0, 1.0), brick));
//! let ball = app.world_mut().spawn((Collider::circle(0.5), ball_at(64.0))).id();
//! app.update();
//! assert_eq!(app.world().get::<CollidingEntities>(ball).unwrap().len(), 1);
//! ```
//!
//! [`Collider`]: crate::Collider
