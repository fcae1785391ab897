//! Collision hooks: a game's own filter and contact edit, asked for the
//! pairs that opt in, with the answer reflected in events, `Collisions` and
//! `CollidingEntities` alike; nothing asked without the marker.

use crate::common;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

#[derive(Component)]
struct Team(u32);

/// The platform a character may pass up through.
#[derive(Component)]
struct Ledge;

/// The character's vertical speed, as the game keeps it.
#[derive(Component)]
struct Rising(bool);

#[derive(SystemParam)]
struct GameHooks<'w, 's> {
    teams: Query<'w, 's, &'static Team>,
    ledges: Query<'w, 's, (), With<Ledge>>,
    rising: Query<'w, 's, &'static Rising>,
    asked: Res<'w, AskedCounter>,
}

/// Counts the hook calls (hooks are read-only: an atomic).
#[derive(Resource, Default)]
struct AskedCounter(std::sync::atomic::AtomicUsize);

impl CollisionHooks for GameHooks<'_, '_> {
    /// Team mates never touch (teams as numbers, beyond 32 layer bits).
    fn filter_pair(&self, a: Entity, b: Entity) -> bool {
        self.asked
            .0
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match (self.teams.get(a), self.teams.get(b)) {
            (Ok(x), Ok(y)) => x.0 != y.0,
            _ => true,
        }
    }

    /// A ledge does not touch a character moving up through it, and pushes
    /// one coming down only up.
    fn modify_contact(&self, a: Entity, b: Entity, contact: &mut Contact) -> bool {
        self.asked
            .0
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (ledge, other, from_ledge) = if self.ledges.contains(a) {
            (a, b, true)
        } else {
            (b, a, false)
        };
        let _ = ledge;
        if self.rising.get(other).is_ok_and(|rising| rising.0) {
            return false;
        }
        contact.normal = if from_ledge { Dir2::Y } else { Dir2::NEG_Y };
        true
    }
}

fn hooked_app() -> App {
    let mut app = app_with(CollisionPlugin::default().with_hooks::<GameHooks>());
    app.init_resource::<AskedCounter>();
    app
}

fn asked(app: &App) -> usize {
    let counter = &app.world().resource::<AskedCounter>().0;
    counter.load(std::sync::atomic::Ordering::Relaxed)
}

#[test]
fn team_mates_never_touch_and_others_do() {
    let mut app = hooked_app();
    let mut log = MessageLog::default();
    let marked = ActiveCollisionHooks::FILTER_PAIRS;
    let blue = app
        .world_mut()
        .spawn((Collider::circle(5.0), Team(40), marked))
        .id();
    let blue_too = spawn_at(&mut app, Collider::circle(5.0), 6.0, 0.0);
    app.world_mut()
        .entity_mut(blue_too)
        .insert((Team(40), marked));
    let red = spawn_at(&mut app, Collider::circle(5.0), -6.0, 0.0);
    app.world_mut().entity_mut(red).insert(Team(41));
    app.update();
    assert_eq!(colliding(&app, blue), vec![red]);
    assert!(colliding(&app, blue_too).is_empty());
    let started = log.read(&app);
    assert_eq!(started.len(), 1, "{started:?}");
    assert!(started[0].involves(red));
    let collisions = app.world().resource::<Collisions>();
    assert!(!collisions.contains(blue, blue_too) && collisions.contains(blue, red));
    // Changing team mid-contact: the pair starts; back again: it ends.
    app.world_mut().get_mut::<Team>(blue_too).unwrap().0 = 41;
    app.update();
    assert_eq!(log.read(&app).len(), 1);
    assert!(colliding(&app, blue_too).contains(&blue));
    app.world_mut().get_mut::<Team>(blue_too).unwrap().0 = 40;
    app.update();
    let ended = log.read(&app);
    assert!(
        matches!(ended[..], [CollisionEvent::Ended { .. }]),
        "{ended:?}"
    );
}

#[test]
fn a_ledge_is_passed_up_through_and_landed_on() {
    let mut app = hooked_app();
    let mut log = MessageLog::default();
    let ledge = spawn_at(&mut app, Collider::rect(100.0, 4.0), 0.0, 0.0);
    app.world_mut()
        .entity_mut(ledge)
        .insert((Ledge, ActiveCollisionHooks::MODIFY_CONTACTS));
    let hero = spawn_at(&mut app, Collider::rect(10.0, 20.0), 30.0, -14.0);
    app.world_mut().entity_mut(hero).insert(Rising(true));
    // Jumping up through it: no event, no contact.
    for y in [-10.0, -5.0, 0.0, 5.0, 10.0] {
        set_translation(&mut app, hero, 30.0, y);
        app.update();
        assert!(log.read(&app).is_empty(), "at {y}");
        assert!(colliding(&app, hero).is_empty(), "at {y}");
    }
    // Falling back onto its corner, overlapping its end more across than
    // down: it touches, and is pushed up, not sideways.
    app.world_mut().get_mut::<Rising>(hero).unwrap().0 = false;
    set_translation(&mut app, hero, 54.5, 10.0);
    app.update();
    let events = log.read(&app);
    let [CollisionEvent::Started { a, contact, .. }] = events[..] else {
        panic!("{events:?}")
    };
    let up = if a == ledge {
        contact.normal
    } else {
        -contact.normal
    };
    assert_eq!(up, Dir2::Y);
    assert_eq!(colliding(&app, ledge), vec![hero]);
}

#[test]
fn only_pairs_with_the_marker_are_asked() {
    let mut app = hooked_app();
    let a = spawn_at(&mut app, Collider::circle(5.0), 0.0, 0.0);
    let b = spawn_at(&mut app, Collider::circle(5.0), 6.0, 0.0);
    app.world_mut().entity_mut(a).insert(Team(1));
    app.world_mut().entity_mut(b).insert(Team(1));
    app.update();
    // Same team, but neither opted in: they touch, and no hook was asked.
    assert_eq!(colliding(&app, a), vec![b]);
    assert_eq!(asked(&app), 0);
    app.world_mut()
        .entity_mut(b)
        .insert(ActiveCollisionHooks::FILTER_PAIRS);
    app.update();
    assert!(colliding(&app, a).is_empty());
    assert_eq!(asked(&app), 1);
}

/// A passing pair turned down by a hook takes nothing of the passing pairs
/// after it: a ball leaving a wall in one swept step still gets one
/// `Ended`, not a `Started` and `Ended` of a pass, and the turned-down
/// pairs have no impact pose.
#[test]
fn passing_pair_turned_down_leaves_the_others_alone() {
    let mut app = hooked_app();
    let mut log = MessageLog::default();
    // A bullet crossing its team mate, a ghost: a pair the hook turns down.
    let ghost_and_bullet = |app: &mut App, y: f32| {
        let ghost = spawn_at(app, Collider::rect(2.0, 50.0), 0.0, y);
        let marked = ActiveCollisionHooks::FILTER_PAIRS;
        app.world_mut().entity_mut(ghost).insert((Team(7), marked));
        let bullet = spawn_at(app, Collider::circle(1.0), -50.0, y);
        app.world_mut().entity_mut(bullet).insert((Team(7), Swept));
        (ghost, bullet)
    };
    // One such pair spawned before the wall and ball, one after: one of
    // them sorts before the ball's pair, whichever way entities order.
    let first = ghost_and_bullet(&mut app, 500.0);
    let wall = spawn_at(&mut app, Collider::rect(20.0, 20.0), 0.0, 0.0);
    let ball = spawn_at(&mut app, Collider::circle(5.0), 12.0, 0.0);
    app.world_mut().entity_mut(ball).insert(Swept);
    let last = ghost_and_bullet(&mut app, -500.0);
    app.update();
    let (a, b) = ordered(wall, ball);
    assert!(
        matches!(log.read(&app)[..], [CollisionEvent::Started { a: x, b: y, .. }] if (x, y) == (a, b))
    );

    // The bullets cross the ghosts, the ball leaves the wall.
    for (_, bullet) in [first, last] {
        let y = app.world().get::<Transform>(bullet).unwrap().translation.y;
        set_translation(&mut app, bullet, 50.0, y);
    }
    set_translation(&mut app, ball, 100.0, 0.0);
    app.update();
    assert_eq!(log.read(&app), vec![CollisionEvent::Ended { a, b }]);
    let collisions = app.world().resource::<Collisions>();
    // The ball left the wall along its path: that pair passed too.
    let passing: Vec<_> = collisions.passing().iter().map(|p| (p.a, p.b)).collect();
    assert_eq!(passing, vec![(a, b)]);
    for (ghost, bullet) in [first, last] {
        assert_eq!(collisions.impact_pose(bullet, ghost), None);
        assert!(colliding(&app, ghost).is_empty());
    }
    assert!(collisions.impact_pose(ball, wall).is_some());
    assert!(colliding(&app, ball).is_empty());
}
