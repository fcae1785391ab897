//! Something moved in `Update` is detected in the same frame, and the
//! detection systems can be ordered against.

use crate::common;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

#[derive(Component)]
struct Mover;

#[derive(Resource, Default)]
struct SeenAfterDetection(Vec<usize>);

#[test]
fn update_move_is_seen_by_the_same_frame_detection() {
    let mut app = test_app();
    app.init_resource::<SeenAfterDetection>()
        .add_systems(Update, |mut movers: Query<&mut Transform, With<Mover>>| {
            for mut transform in &mut movers {
                transform.translation.x += 10.0;
            }
        })
        .add_systems(
            PostUpdate,
            (|query: Query<&CollidingEntities, With<Mover>>,
              mut seen: ResMut<SeenAfterDetection>| {
                seen.0.push(query.single().unwrap().len());
            })
            .after(CollisionSystems::Events),
        );
    app.world_mut().spawn((
        Mover,
        Collider::circle(1.0),
        Transform::from_xyz(-30.0, 0.0, 0.0),
    ));
    app.world_mut()
        .spawn((Collider::rect(2.0, 2.0), Transform::default()));

    // Update moves the circle to x = -20, -10, then 0, onto the box: the
    // PostUpdate system after detection sees the contact in that same frame.
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(
        app.world().resource::<SeenAfterDetection>().0,
        vec![0, 0, 1]
    );
    assert_eq!(
        take_observed(&mut app).len(),
        2,
        "observers ran in the same frame"
    );
}
