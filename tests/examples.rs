//! Every small example, and the playground, run headless for a few frames
//! through their own code, so that none of them rots: each test checks that
//! what the example shows actually happens. The playground's tests are in
//! `examples/playground/tests.rs`, which its `main.rs` brings in here.

// Each example brings in the shared harness, `examples/common/`, as its own
// module, as it does when built alone.
#![allow(clippy::duplicate_mod)]

use bevy::prelude::*;
use bevy_collide2d::prelude::*;

#[allow(dead_code)]
#[path = "../examples/minimal.rs"]
mod minimal;

#[allow(dead_code)]
#[path = "../examples/observers_and_layers.rs"]
mod observers_and_layers;

#[allow(dead_code)]
#[path = "../examples/spatial_queries.rs"]
mod spatial_queries;

#[allow(dead_code)]
#[path = "../examples/fixed_timestep_swept.rs"]
mod fixed_timestep_swept;

#[allow(dead_code)]
#[path = "../examples/playground/main.rs"]
mod playground;

#[allow(dead_code)]
#[path = "../examples/level.rs"]
mod level;

/// Every `CollisionEvent` message, as the examples' readers see them.
#[derive(Resource, Default)]
struct Heard(Vec<CollisionEvent>);

/// Every `CollisionStarted` observer event, as `(entity, other)`.
#[derive(Resource, Default)]
struct Started(Vec<(Entity, Entity)>);

fn record(app: &mut App) {
    app.init_resource::<Heard>()
        .init_resource::<Started>()
        .add_systems(
            Last,
            |mut events: MessageReader<CollisionEvent>, mut seen: ResMut<Heard>| {
                seen.0.extend(events.read().copied());
            },
        )
        .add_observer(|event: On<CollisionStarted>, mut seen: ResMut<Started>| {
            seen.0.push((event.entity, event.other));
        });
}

fn run(app: &mut App, frames: u32) {
    for _ in 0..frames {
        app.update();
    }
}

/// The single entity with component `C`.
fn single<C: Component>(app: &mut App) -> Entity {
    app.world_mut()
        .query_filtered::<Entity, With<C>>()
        .single(app.world())
        .expect("exactly one")
}

fn position(app: &App, entity: Entity) -> Vec2 {
    app.world()
        .get::<Transform>(entity)
        .unwrap()
        .translation
        .truncate()
}

/// The ball rolls through the box once in 100 frames: one `Started`, whose
/// normal is the box's tilted face (not the ball's direction), then one
/// `Ended`.
#[test]
fn minimal_prints_one_started_then_one_ended() {
    let mut app = minimal::headless_app();
    record(&mut app);
    run(&mut app, 100);
    let ball = single::<minimal::Ball>(&mut app);
    let events = &app.world().resource::<Heard>().0;
    let [
        CollisionEvent::Started { a, b, contact },
        CollisionEvent::Ended { .. },
    ] = events[..]
    else {
        panic!("expected Started then Ended, got {events:?}");
    };
    assert!(a == ball || b == ball, "{events:?}");
    // Seen from the ball, the normal points into the box's face.
    let normal = if a == ball {
        *contact.normal
    } else {
        -*contact.normal
    };
    assert!(normal.dot(Vec2::from_angle(0.4)) > 0.999, "{normal}");
    assert!(contact.depth >= 0.0, "{contact:?}");
}

/// In 150 frames the player picks up the three coins, bounces off the right
/// wall, and walks through the ghost without a single event with it.
#[test]
fn observers_pick_up_coins_and_layers_let_the_ghost_through() {
    let mut app = observers_and_layers::headless_app();
    record(&mut app);
    run(&mut app, 150);
    assert_eq!(
        app.world().resource::<observers_and_layers::Score>().coins,
        3
    );
    let player = single::<observers_and_layers::Player>(&mut app);
    let velocity = app
        .world()
        .get::<observers_and_layers::Player>(player)
        .unwrap()
        .velocity;
    assert!(velocity.x < 0.0, "bounced off the right wall: {velocity}");
    // Never into the right wall (its face at x = 240, the player's radius 16).
    assert!(position(&app, player).x <= 224.0 + 0.01);

    let ghost = single::<observers_and_layers::Ghost>(&mut app);
    // The player walked through the ghost at x = 0 (twice by now).
    let started = &app.world().resource::<Started>().0;
    assert!(
        started
            .iter()
            .all(|&(entity, other)| entity != ghost && other != ghost),
        "{started:?}"
    );
    assert!(
        started.len() >= 3 * 2 + 2,
        "coins and the wall: {started:?}"
    );
}

/// The turret sees the enemy in the open, not the one behind the crate, and
/// ignores the one out of range.
#[test]
fn spatial_queries_see_the_open_enemy_and_the_crate_hides_the_other() {
    use spatial_queries::{Crate, Enemy, Patrol, Sightlines};
    let mut app = spatial_queries::headless_app();
    run(&mut app, 3);
    let crate_ = single::<Crate>(&mut app);
    let hidden = single::<Patrol>(&mut app);
    let (open, far) = {
        let world = app.world_mut();
        let mut enemies =
            world.query_filtered::<(Entity, &Transform), (With<Enemy>, Without<Patrol>)>();
        let mut open = None;
        let mut far = None;
        for (entity, transform) in enemies.iter(world) {
            if transform.translation.x > 0.0 {
                open = Some(entity);
            } else {
                far = Some(entity);
            }
        }
        (open.unwrap(), far.unwrap())
    };
    let sightlines = &app.world().resource::<Sightlines>().0;
    let hit_towards = |enemy| {
        sightlines
            .iter()
            .find(|(target, _)| *target == enemy)
            .map(|(_, hit)| hit.entity)
    };
    assert_eq!(sightlines.len(), 2, "two enemies in range");
    assert_eq!(hit_towards(open), Some(open));
    assert_eq!(hit_towards(hidden), Some(crate_));
    assert_eq!(hit_towards(far), None);
}

/// Both bullets move 80 units per step against a 6-unit wall: the `Swept`
/// one stops at it, the other passes through.
#[test]
fn fixed_timestep_swept_bullet_stops_at_the_thin_wall() {
    use fixed_timestep_swept::Bullet;
    let mut app = fixed_timestep_swept::headless_app();
    record(&mut app);
    run(&mut app, 60);
    let wall = single::<fixed_timestep_swept::Wall>(&mut app);
    let world = app.world_mut();
    let bullets: Vec<(Entity, Vec2, Vec2, bool)> = world
        .query::<(Entity, &Bullet, &Transform, Has<Swept>)>()
        .iter(world)
        .map(|(entity, bullet, transform, swept)| {
            (
                entity,
                transform.translation.truncate(),
                bullet.velocity,
                swept,
            )
        })
        .collect();
    let &(swept, at, velocity, _) = bullets.iter().find(|b| b.3).unwrap();
    let &(plain, plain_at, ..) = bullets.iter().find(|b| !b.3).unwrap();
    // Touching the wall's left face (x = 197) with its radius of 4.
    assert!((at.x - 193.0).abs() < 0.05, "swept bullet at {at}");
    assert_eq!(velocity, Vec2::ZERO);
    assert!(plain_at.x > 203.0, "plain bullet at {plain_at}");

    let started = &app.world().resource::<Started>().0;
    assert!(started.contains(&(swept, wall)), "{started:?}");
    assert!(!started.contains(&(plain, wall)), "{started:?}");
}

/// The level's walls are one static collider of a few merged rectangles,
/// and ten seconds of balls bouncing inside never lets one out.
#[test]
fn level_walls_are_merged_and_hold_every_ball() {
    let mut app = level::headless_app();
    record(&mut app);
    run(&mut app, 600);
    let world = app.world_mut();
    let mut maps = world.query_filtered::<&Collider, (With<TilemapTile>, With<StaticCollider>)>();
    let maps: Vec<&Collider> = maps.iter(world).collect();
    assert_eq!(maps.len(), 1, "the map is one collider");
    let bevy_collide2d::geometry::Shape::Compound(walls) = maps[0].shape() else {
        panic!("{:?}", maps[0]);
    };
    let tiles = walls.parts().len();
    // 12 rows of 26 tiles, 108 of them solid, in far fewer rectangles.
    assert!((10..40).contains(&tiles), "{tiles} rectangles");
    assert_eq!(level::escaped_balls(world), 0);
    let heard = &app.world().resource::<Heard>().0;
    assert!(heard.len() > 50, "{} events", heard.len());
    // Detection is in Bevy's diagnostics beside the frame time.
    let store = app.world().resource::<bevy::diagnostic::DiagnosticsStore>();
    let latest = |path| store.get(&path).and_then(|d| d.value());
    assert_eq!(latest(CollisionDiagnosticsPlugin::COLLIDERS), Some(13.0));
    assert!(latest(CollisionDiagnosticsPlugin::DETECTION).is_some_and(|ms| ms > 0.0));
    assert!(latest(CollisionDiagnosticsPlugin::CONTACT_PAIRS).is_some());
    let text = level::diagnostics_text(store);
    assert!(text.contains("13 colliders"), "{text}");
}

#[allow(dead_code)]
#[path = "../examples/platformer/main.rs"]
mod platformer;

/// The autoplayed route: every coin, the goal, never inside a wall or
/// below the floor, never reset by the spikes.
#[test]
fn platformer_route_is_completed() {
    let report = platformer::run_headless(3600);
    assert!(report.completed, "{report}");
    assert_eq!(report.coins, 4, "{report}");
    assert_eq!(report.resets, 0, "{report}");
    assert!(report.deepest_overlap < 1e-3, "{report}");
    assert!(report.lowest > platformer::SPAWN.y - 2.0, "{report}");
}

/// Standing still on the floor for two seconds: grounded every frame, no
/// drift, the ground probe on the floor; dropped onto the spikes (no
/// floor below): back at the start.
#[test]
fn platformer_player_stands_still_and_spikes_reset_it() {
    let mut app = platformer::headless_app(false);
    run(&mut app, 30);
    let player = single::<platformer::Player>(&mut app);
    let rest = position(&app, player);
    for _ in 0..120 {
        app.update();
        assert!(
            app.world()
                .get::<platformer::Player>(player)
                .unwrap()
                .grounded
        );
        assert!(position(&app, player).distance(rest) < 1e-3);
    }
    // Its ground probe sees the floor right under its feet.
    let below = app
        .world()
        .get::<platformer::Player>(player)
        .unwrap()
        .ground_below;
    assert!(below.is_some_and(|d| d < 1.0), "{below:?}");
    // Over the spike pit, falling: no floor below (the spikes are not on
    // the level's layer).
    let mut transform = app.world_mut().get_mut::<Transform>(player).unwrap();
    transform.translation.x = 660.0;
    app.update();
    let below = app
        .world()
        .get::<platformer::Player>(player)
        .unwrap()
        .ground_below;
    assert_eq!(below, None);
    run(&mut app, 60);
    assert_eq!(app.world().resource::<platformer::Game>().resets, 1);
    assert!(position(&app, player).distance(platformer::SPAWN) < 30.0);
}

#[cfg(feature = "image")]
#[allow(dead_code)]
#[path = "../examples/asteroids.rs"]
mod asteroids;

/// Every rock gets a collider from the shipped image once it has loaded
/// from disk: several convex parts, the image's hole left out.
#[cfg(feature = "image")]
#[test]
fn asteroids_get_their_colliders_from_their_image() {
    let mut app = asteroids::headless_app();
    let built = |app: &mut App| {
        let world = app.world_mut();
        world
            .query::<(&asteroids::Rock, &Collider)>()
            .iter(world)
            .count()
    };
    // The image is read from disk on another thread.
    for _ in 0..500 {
        app.update();
        if built(&mut app) == 6 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(built(&mut app), 6);
    let world = app.world_mut();
    let mut rocks = world.query::<(&Collider, &Sprite, &Transform)>();
    for (collider, sprite, transform) in rocks.iter(world) {
        let bevy_collide2d::geometry::Shape::Compound(parts) = collider.shape() else {
            panic!("{collider:?}");
        };
        assert!(parts.parts().len() > 3);
        // The hole through the rock, 8 pixels round pixel (58, 40) of 96:
        // a probe at its centre touches nothing, one beside it the rock.
        let size = sprite.custom_size.unwrap();
        let flip = if sprite.flip_x { -1.0 } else { 1.0 };
        let at =
            |pixel: Vec2| Vec2::new(flip * (pixel.x / 96.0 - 0.5), 0.5 - pixel.y / 96.0) * size;
        let pose = pose_of(transform);
        let probe = Collider::circle(0.5);
        let touches = |pixel: Vec2| {
            let place = Isometry2d::from_translation(pose.transform_point(at(pixel)));
            probe.intersects(place, collider, pose)
        };
        assert!(!touches(Vec2::new(58.0, 40.0)));
        assert!(touches(Vec2::new(48.0, 48.0)));
    }
    run(&mut app, 120);
}

#[allow(dead_code)]
#[path = "../examples/tiled_level.rs"]
mod tiled_level;

/// The Tiled level: the tile layer is one map with its spikes and ledges
/// as kinds, the objects are colliders, and the walker crosses it all to
/// the far wall without falling through, hearing the spikes.
#[test]
fn tiled_level_is_read_and_walked_across() {
    let mut app = tiled_level::headless_app();
    run(&mut app, 900);
    let world = app.world_mut();
    let kinds: Vec<char> = world
        .query::<&TilemapKind>()
        .iter(world)
        .map(|k| k.0)
        .collect();
    // The map's own '#' tiles, and a child per other kind.
    assert_eq!(kinds.len(), 3, "{kinds:?}");
    let ledges = world
        .query_filtered::<&TilemapKind, With<OneWayPlatform>>()
        .iter(world)
        .count();
    assert_eq!(ledges, 1);
    // Rectangle, ellipse, polygon, polyline.
    let objects = world
        .query_filtered::<&Collider, (With<StaticCollider>, With<ChildOf>, Without<TilemapKind>)>()
        .iter(world)
        .count();
    assert_eq!(objects, 4);
    let walker = world.query::<&tiled_level::Walker>().single(world).unwrap();
    // The map is 640 wide, centred: the far wall's inside is at x = 304.
    assert!(walker.farthest > 290.0, "got to {}", walker.farthest);
    // The floor's top is at y = -96 + 16; the capsule's centre stays 9 above.
    assert!(walker.lowest > -72.0, "fell to {}", walker.lowest);
    assert!(walker.spikes >= 1);
}
