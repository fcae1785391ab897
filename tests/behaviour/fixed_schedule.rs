//! `CollisionPlugin::new(FixedPostUpdate)` sees the poses that `FixedUpdate`
//! just wrote, including through the hierarchy.

use crate::common;

use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

#[derive(Component)]
struct Mover;

/// The number of touching pairs, read right after each fixed detection.
#[derive(Resource, Default)]
struct FixedStepContacts(Vec<usize>);

#[test]
fn fixed_post_update_detection_sees_current_poses() {
    let mut app = app_with(CollisionPlugin::new(FixedPostUpdate));
    // One fixed step per 1/60 s update.
    app.insert_resource(Time::<Fixed>::from_hz(60.0))
        .init_resource::<FixedStepContacts>()
        .add_systems(
            FixedUpdate,
            |mut movers: Query<&mut Transform, With<Mover>>| {
                for mut transform in &mut movers {
                    transform.translation.x += 10.0;
                }
            },
        )
        .add_systems(
            FixedPostUpdate,
            (|colliding: Query<&CollidingEntities>, mut seen: ResMut<FixedStepContacts>| {
                // Each touching pair is listed on both of its entities.
                seen.0
                    .push(colliding.iter().map(|c| c.len()).sum::<usize>() / 2);
            })
            .after(CollisionSystems::Events),
        );
    // The mover is a parent: its child's collider moves through the
    // hierarchy, which only propagation in the fixed schedule can see.
    let parent = app
        .world_mut()
        .spawn((
            Mover,
            Collider::circle(1.0),
            Transform::from_xyz(-30.0, 0.0, 0.0),
        ))
        .id();
    let child = app
        .world_mut()
        .spawn((
            Collider::circle(1.0),
            Transform::from_xyz(0.0, 5.0, 0.0),
            ChildOf(parent),
        ))
        .id();
    let wall = spawn_at(&mut app, Collider::rect(2.0, 20.0), 0.0, 0.0);

    let mut log = MessageLog::default();
    let mut started = Vec::new();
    let mut updates = 0;
    while app.world().resource::<FixedStepContacts>().0.len() < 4 && updates < 20 {
        app.update();
        updates += 1;
        started.extend(
            log.read(&app)
                .into_iter()
                .filter(|e| matches!(e, CollisionEvent::Started { .. }))
                .map(|e| e.entities()),
        );
    }
    // Fixed steps move the parent to -20, -10, 0 (onto the wall, its child
    // too), 10: both pairs are seen in the very step that made them.
    let seen = &app.world().resource::<FixedStepContacts>().0;
    assert_eq!(
        &seen[..4],
        &[0, 0, 2, 0],
        "contacts seen in the step that made them"
    );
    // The child followed its parent into the wall.
    assert!(started.contains(&ordered(parent, wall)), "{started:?}");
    assert!(started.contains(&ordered(child, wall)), "{started:?}");
}

#[derive(Component)]
struct Walker {
    velocity: Vec2,
}

/// A character spawned standing on the floor and moved by `move_and_slide`
/// in `FixedUpdate`, with detection in `FixedPostUpdate`: its very first
/// step, before any detection has run, already sees the floor, so it never
/// sinks into it.
#[test]
fn queries_in_the_first_fixed_step_see_the_colliders() {
    let mut app = app_with(CollisionPlugin::new(FixedPostUpdate));
    app.insert_resource(Time::<Fixed>::from_hz(60.0))
        .add_systems(
            FixedUpdate,
            |mut walkers: Query<(Entity, &mut Walker, &mut Transform, &Collider)>,
             spatial: SpatialQuery,
             time: Res<Time>| {
                for (entity, mut walker, mut transform, collider) in &mut walkers {
                    walker.velocity.y -= 900.0 * time.delta_secs();
                    let motion = walker.velocity * time.delta_secs();
                    let filter = QueryFilter::default().with_excluded([entity]);
                    let config = MoveAndSlideConfig::default();
                    let out = spatial.move_and_slide(
                        collider,
                        pose_of(&transform),
                        motion,
                        &config,
                        &filter,
                    );
                    transform.translation = out.translation.extend(0.0);
                    if out.grounded {
                        walker.velocity.y = 0.0;
                    }
                }
            },
        );
    let floor = spawn_at(&mut app, Collider::rect(400.0, 20.0), 0.0, -10.0);
    // Standing on the floor (its bottom at y = 0), already falling fast.
    let walker = app
        .world_mut()
        .spawn((
            Walker {
                velocity: Vec2::new(0.0, -300.0),
            },
            Collider::rect(10.0, 20.0),
            Transform::from_xyz(0.0, 10.05, 0.0),
        ))
        .id();
    for update in 0..10 {
        app.update();
        let y = app.world().get::<Transform>(walker).unwrap().translation.y;
        assert!(y > 10.0 - 1e-3, "update {update}: sank to {y}");
        let colliding = app.world().get::<CollidingEntities>(floor).unwrap();
        assert!(colliding.is_empty() || colliding.contains(&walker));
    }
}

/// What the first fixed steps' queries found.
#[derive(Resource, Default)]
struct FirstStepHits(Vec<Vec<Entity>>);

/// A tile map and a plain collider spawned in `Startup`, with detection in
/// `FixedPostUpdate`: the first `FixedUpdate`, before any detection, finds
/// both (the map's collider is built before the startup snapshot).
#[test]
fn a_tile_map_spawned_at_startup_is_seen_by_the_first_fixed_step() {
    let mut app = app_with(CollisionPlugin::new(FixedPostUpdate));
    app.insert_resource(Time::<Fixed>::from_hz(60.0))
        .init_resource::<FirstStepHits>()
        .add_systems(Startup, |mut commands: Commands| {
            let map = TilemapCollider::from_ascii(Vec2::splat(10.0), "...\n###");
            commands.spawn((map, Transform::default()));
            commands.spawn((Collider::circle(2.0), Transform::from_xyz(15.0, 15.0, 0.0)));
        })
        .add_systems(
            FixedUpdate,
            |spatial: SpatialQuery, mut seen: ResMut<FirstStepHits>| {
                let filter = QueryFilter::default();
                let mut hits = spatial.point_hits(Vec2::new(15.0, 5.0), &filter);
                hits.extend(spatial.point_hits(Vec2::new(15.0, 15.0), &filter));
                seen.0.push(hits);
            },
        );
    for _ in 0..3 {
        app.update();
    }
    let mut maps = app
        .world_mut()
        .query_filtered::<Entity, With<TilemapCollider>>();
    let map = maps.single(app.world()).unwrap();
    let seen = &app.world().resource::<FirstStepHits>().0;
    assert!(!seen.is_empty());
    for (step, hits) in seen.iter().enumerate() {
        assert_eq!(hits.len(), 2, "step {step}: {hits:?}");
        assert_eq!(hits[0], map, "step {step}");
    }
}

/// A fixed step every fourth frame still sees what was removed from a
/// static collider between its runs (Bevy forgets removals after two
/// frames), whichever frame the removal falls on.
#[test]
fn static_removals_between_rare_fixed_steps_are_seen() {
    for frames_before in 8..12 {
        let mut app = app_with(CollisionPlugin::new(FixedPostUpdate));
        app.insert_resource(Time::<Fixed>::from_hz(60.0))
            .insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
                std::time::Duration::from_secs_f64(1.0 / 240.0),
            ));
        let wall = app
            .world_mut()
            .spawn((
                Collider::rect(20.0, 20.0),
                StaticCollider,
                CollisionLayers::new(1, 1),
                Transform::default(),
            ))
            .id();
        let ball = spawn_at(&mut app, Collider::circle(5.0), 12.0, 0.0);
        app.world_mut()
            .entity_mut(ball)
            .insert(CollisionLayers::new(2, 2));
        for _ in 0..frames_before {
            app.update();
        }
        assert!(colliding(&app, ball).is_empty());
        // Default layers (every bit) meet the ball's.
        app.world_mut().entity_mut(wall).remove::<CollisionLayers>();
        for _ in 0..8 {
            app.update();
        }
        assert_eq!(colliding(&app, ball), vec![wall], "{frames_before}");
    }
}
