//! The situation of a new user's first hour: Bevy's breakout layout, a
//! `Swept` ball, long frames (125 ms: 50 units a frame for a ball 30 wide
//! against walls 10 thick), and the ball in contact with a wall and a brick
//! at once. Reacting only to `CollisionStarted` lets the ball leave the
//! arena: it bounces off the brick while still inside the wall, no new event
//! comes for the wall, and it flies out. The guide's recipe
//! ([`bevy_collide2d::guide::bouncing_ball`]: events for new touches, and
//! every frame [`Collisions::push_out`] plus a bounce off the contacts that
//! go on) keeps it in.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_collide2d::prelude::*;

// Bevy 0.20's `examples/showcase/breakout.rs`, without the paddle (the
// bottom wall sends the ball back up).
const LEFT_WALL: f32 = -450.0;
const RIGHT_WALL: f32 = 450.0;
const BOTTOM_WALL: f32 = -300.0;
const TOP_WALL: f32 = 300.0;
const WALL_THICKNESS: f32 = 10.0;
const BALL_RADIUS: f32 = 15.0;
const BALL_SPEED: f32 = 400.0;
const BRICK_SIZE: Vec2 = Vec2::new(100.0, 30.0);
const GAP_BETWEEN_BRICKS: f32 = 5.0;
/// Less than the ball is wide: at the sides, the ball touches the wall and
/// the outer bricks at once.
const GAP_BETWEEN_BRICKS_AND_SIDES: f32 = 20.0;
const GAP_BETWEEN_BRICKS_AND_CEILING: f32 = 20.0;
const BRICKS_BOTTOM: f32 = 30.0;
/// How far short of a touch the ball is put back.
const SKIN: f32 = 0.1;
const FRAME: Duration = Duration::from_millis(125);
const FRAMES: u32 = 1000;

#[derive(Component)]
struct Ball {
    velocity: Vec2,
}

#[derive(Component)]
struct Brick;

#[derive(Component)]
struct Wall;

/// Whether [`bounce_ball`] does its per-frame half.
#[derive(Resource)]
struct PerFrame(bool);

/// Whether the game reacts yet (not while a test sets the scene up).
#[derive(Resource)]
struct Playing(bool);

/// How a run went.
#[derive(Resource, Default, Debug)]
struct Outcome {
    /// The first frame the ball's centre was beyond a wall's centre line.
    escaped_at: Option<u32>,
    /// How deep in a wall the ball was after the game's reaction, at most.
    deepest_in_wall: f32,
    bricks_hit: u32,
    frame: u32,
}

/// Which way the game reacts to collisions.
#[derive(Clone, Copy, PartialEq)]
enum Reaction {
    /// Only `CollisionStarted`, as a new user writes it from the README.
    ObserverOnly,
    /// The guide's recipe.
    Recipe,
    /// The recipe's events half alone: rewound to the first touch and
    /// bounced, but never pushed out of contacts that go on.
    EventsOnly,
}

fn arena_app(reaction: Reaction, ball: Vec2, direction: Vec2) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin, CollisionPlugin::default()))
        .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME))
        .init_resource::<Outcome>()
        .insert_resource(Playing(true))
        .add_systems(Update, watch.after(bounce_ball).before(move_ball))
        .add_systems(Update, move_ball);
    // Bevy caps a frame's virtual time at 250 ms; 125 ms frames pass whole.
    match reaction {
        Reaction::ObserverOnly => {
            app.add_observer(bounce_on_start);
        }
        Reaction::Recipe | Reaction::EventsOnly => {
            app.insert_resource(PerFrame(reaction == Reaction::Recipe))
                .add_systems(Update, (bounce_ball, break_bricks).before(move_ball));
        }
    }
    let world = app.world_mut();
    world.spawn((
        Ball {
            velocity: direction.normalize() * BALL_SPEED,
        },
        Collider::circle(BALL_RADIUS),
        Swept,
        Transform::from_translation(ball.extend(1.0)),
    ));
    let (width, height) = (RIGHT_WALL - LEFT_WALL, TOP_WALL - BOTTOM_WALL);
    for (x, y, w, h) in [
        (LEFT_WALL, 0.0, WALL_THICKNESS, height + WALL_THICKNESS),
        (RIGHT_WALL, 0.0, WALL_THICKNESS, height + WALL_THICKNESS),
        (0.0, BOTTOM_WALL, width + WALL_THICKNESS, WALL_THICKNESS),
        (0.0, TOP_WALL, width + WALL_THICKNESS, WALL_THICKNESS),
    ] {
        world.spawn((
            Wall,
            Collider::rect(w, h),
            StaticCollider,
            Transform::from_xyz(x, y, 0.0),
        ));
    }
    // Bevy's brick layout: as many columns and rows as fit, centred.
    let total_width = width - 2.0 * GAP_BETWEEN_BRICKS_AND_SIDES;
    let total_height = TOP_WALL - GAP_BETWEEN_BRICKS_AND_CEILING - BRICKS_BOTTOM;
    let columns = (total_width / (BRICK_SIZE.x + GAP_BETWEEN_BRICKS)).floor() as usize;
    let rows = (total_height / (BRICK_SIZE.y + GAP_BETWEEN_BRICKS)).floor() as usize;
    let left_edge = (LEFT_WALL + RIGHT_WALL) / 2.0
        - columns as f32 / 2.0 * BRICK_SIZE.x
        - (columns - 1) as f32 / 2.0 * GAP_BETWEEN_BRICKS;
    for row in 0..rows {
        for column in 0..columns {
            let at = Vec2::new(
                left_edge + BRICK_SIZE.x / 2.0,
                BRICKS_BOTTOM + BRICK_SIZE.y / 2.0,
            ) + Vec2::new(column as f32, row as f32) * (BRICK_SIZE + GAP_BETWEEN_BRICKS);
            world.spawn((
                Brick,
                Collider::rect(BRICK_SIZE.x, BRICK_SIZE.y),
                Transform::from_translation(at.extend(0.0)),
            ));
        }
    }
    app
}

fn move_ball(time: Res<Time>, mut balls: Query<(&Ball, &mut Transform)>) {
    for (ball, mut transform) in &mut balls {
        transform.translation += (ball.velocity * time.delta_secs()).extend(0.0);
    }
}

/// The naive version: bounce when a contact starts, and nothing else.
fn bounce_on_start(
    hit: On<CollisionStarted>,
    mut balls: Query<&mut Ball>,
    bricks: Query<(), With<Brick>>,
    mut outcome: ResMut<Outcome>,
    playing: Res<Playing>,
    mut commands: Commands,
) {
    if !playing.0 {
        return;
    }
    if let Ok(mut ball) = balls.get_mut(hit.entity) {
        ball.velocity = bounce(ball.velocity, &[hit.contact.normal]);
        if bricks.contains(hit.other) {
            outcome.bricks_hit += 1;
            commands.entity(hit.other).despawn();
        }
    }
}

/// The guide's recipe. New touches come from the events: a swept ball goes
/// back to the first touch of its step (what lies further along its path
/// was never reached). Contacts that go on send no events, so every frame
/// the ball also bounces off what it still touches and is pushed out of
/// everything it overlaps.
fn bounce_ball(
    mut events: MessageReader<CollisionEvent>,
    collisions: Res<Collisions>,
    mut balls: Query<(Entity, &mut Ball, &mut Transform)>,
    per_frame: Res<PerFrame>,
    playing: Res<Playing>,
    mut commands: Commands,
) {
    if !playing.0 {
        events.clear();
        return;
    }
    let started: Vec<CollisionEvent> = events.read().copied().collect();
    for (entity, mut ball, mut transform) in &mut balls {
        let hits: Vec<(Entity, Contact)> = (started.iter())
            .filter_map(|event| match *event {
                CollisionEvent::Started { a, b, contact } if a == entity => Some((b, contact)),
                CollisionEvent::Started { a, b, contact } if b == entity => {
                    Some((a, contact.flipped()))
                }
                _ => None,
            })
            .collect();
        // When in the step each pair touched: it travels with the pair.
        let time = |other: Entity| collisions.time_of_impact(entity, other).unwrap_or(1.0);
        let first = hits.iter().min_by(|x, y| time(x.0).total_cmp(&time(y.0)));
        let first_touch = first.map_or(1.0, |&(other, _)| time(other));
        if let Some(&(other, contact)) = first
            && let Some(pose) = collisions.impact_pose(entity, other)
        {
            // A hair short of the touch: touching counts as a contact, and
            // the next step would start with one.
            let clear = pose.translation - *contact.normal * SKIN;
            transform.translation = clear.extend(transform.translation.z);
            // Its next path starts here, not where it was detected.
            commands.entity(entity).insert(Swept);
        }
        // What it touched first (both surfaces of a corner at once).
        let mut normals: Vec<Dir2> = (hits.iter())
            .filter(|&&(other, _)| time(other) <= first_touch + 1e-4)
            .map(|(_, contact)| contact.normal)
            .collect();
        if per_frame.0 {
            // And what it still touches from before.
            normals.extend(
                (collisions.contacts_of(entity))
                    .filter(|&(other, _)| time(other) >= 1.0)
                    .map(|(_, contact)| contact.normal),
            );
            transform.translation += collisions.push_out(entity).extend(0.0);
        }
        ball.velocity = bounce(ball.velocity, &normals);
    }
}

/// `velocity` reflected off each surface (normal pointing from the ball into
/// it) that it moves into. In a corner, a reflection off one surface can
/// send it into the other: a few rounds, then back the way it came.
fn bounce(velocity: Vec2, normals: &[Dir2]) -> Vec2 {
    let mut bounced = velocity;
    for _ in 0..8 {
        let into = normals.iter().find(|normal| bounced.dot(***normal) > 0.0);
        let Some(normal) = into else {
            return bounced;
        };
        bounced -= 2.0 * bounced.dot(**normal) * **normal;
    }
    -velocity
}

/// A brick the ball touched first in its step breaks.
fn break_bricks(
    mut events: MessageReader<CollisionEvent>,
    balls: Query<(), With<Ball>>,
    bricks: Query<(), With<Brick>>,
    mut outcome: ResMut<Outcome>,
    playing: Res<Playing>,
    mut commands: Commands,
) {
    if !playing.0 {
        events.clear();
        return;
    }
    for event in events.read() {
        if let CollisionEvent::Started { a, b, .. } = *event {
            for (ball, brick) in [(a, b), (b, a)] {
                if balls.contains(ball) && bricks.contains(brick) {
                    outcome.bricks_hit += 1;
                    commands.entity(brick).despawn();
                }
            }
        }
    }
}

/// After the game's reaction, before the ball moves: notes escapes and how
/// deep in a wall the ball still is.
fn watch(balls: Query<&Transform, With<Ball>>, mut outcome: ResMut<Outcome>) {
    outcome.frame += 1;
    for transform in &balls {
        let at = transform.translation.truncate();
        let inside =
            (LEFT_WALL..=RIGHT_WALL).contains(&at.x) && (BOTTOM_WALL..=TOP_WALL).contains(&at.y);
        if !inside && outcome.escaped_at.is_none() {
            outcome.escaped_at = Some(outcome.frame);
        }
        let faces = WALL_THICKNESS / 2.0 + BALL_RADIUS;
        let depth = [
            LEFT_WALL + faces - at.x,
            at.x - (RIGHT_WALL - faces),
            BOTTOM_WALL + faces - at.y,
            at.y - (TOP_WALL - faces),
        ];
        if inside {
            outcome.deepest_in_wall = depth.into_iter().fold(outcome.deepest_in_wall, f32::max);
        }
    }
}

/// Bevy's serve: from below the bricks, down and to the right.
const SERVE: (Vec2, Vec2) = (Vec2::new(0.0, -50.0), Vec2::new(0.5, -0.5));

fn run(reaction: Reaction, (ball, direction): (Vec2, Vec2)) -> Outcome {
    let mut app = arena_app(reaction, ball, direction);
    for _ in 0..FRAMES {
        app.update();
    }
    app.world_mut().remove_resource::<Outcome>().unwrap()
}

/// The situation: the ball 2 units into the left wall since the
/// frame before (a contact that goes on, so no new event), and touching the
/// corner of the lowest left brick now (a new one), moving up and left.
/// Bouncing off the brick's corner alone leaves it moving into the wall.
fn run_from_the_corner(reaction: Reaction) -> Outcome {
    let mut app = arena_app(reaction, Vec2::new(-432.0, -30.0), Vec2::X);
    app.insert_resource(Playing(false));
    let ball = (app.world_mut().query_filtered::<Entity, With<Ball>>())
        .single(app.world())
        .unwrap();
    app.world_mut().get_mut::<Ball>(ball).unwrap().velocity = Vec2::ZERO;
    app.update();
    // Up along the wall, still in it, to the brick's corner.
    let mut entity = app.world_mut().entity_mut(ball);
    entity.get_mut::<Transform>().unwrap().translation = Vec3::new(-432.0, 27.0, 1.0);
    entity.insert(Swept);
    app.update();
    let collisions = app.world().resource::<Collisions>();
    assert_eq!(collisions.contacts_of(ball).count(), 2, "{collisions:?}");
    app.insert_resource(Playing(true));
    app.world_mut().get_mut::<Ball>(ball).unwrap().velocity =
        Vec2::new(-0.5, 0.5).normalize() * BALL_SPEED;
    *app.world_mut().resource_mut::<Outcome>() = Outcome::default();
    for _ in 0..FRAMES {
        app.update();
    }
    app.world_mut().remove_resource::<Outcome>().unwrap()
}

#[test]
fn the_recipe_keeps_the_ball_in_the_arena() {
    let outcome = run(Reaction::Recipe, SERVE);
    println!("{outcome:?}");
    assert_eq!(outcome.escaped_at, None, "{outcome:?}");
    assert!(outcome.deepest_in_wall < 0.01, "{outcome:?}");
    assert!(outcome.bricks_hit >= 40, "{outcome:?}");
}

#[test]
fn the_recipe_gets_the_ball_out_of_the_corner() {
    let outcome = run_from_the_corner(Reaction::Recipe);
    println!("{outcome:?}");
    assert_eq!(outcome.escaped_at, None, "{outcome:?}");
    // Pushed out of the wall at once (but for the skin it was put back by,
    // along the brick's normal), and never in one again.
    assert!(outcome.deepest_in_wall <= SKIN * 1.01, "{outcome:?}");
    assert!(outcome.bricks_hit >= 40, "{outcome:?}");
}

/// The recipe's per-frame half is what keeps it in: with the events alone
/// (back to the touch, bounce), the ball bounces off the brick and leaves
/// through the wall.
#[test]
fn without_the_per_frame_half_the_ball_escapes() {
    let outcome = run_from_the_corner(Reaction::EventsOnly);
    println!("{outcome:?}");
    assert!(outcome.escaped_at.is_some(), "{outcome:?}");
}

/// The tests above can fail: reacting only to `CollisionStarted`, as a new
/// user did from the README, the ball leaves the arena, from the corner
/// and from Bevy's serve.
#[test]
fn reacting_only_to_started_lets_the_ball_escape() {
    for outcome in [
        run_from_the_corner(Reaction::ObserverOnly),
        run(Reaction::ObserverOnly, SERVE),
    ] {
        println!("{outcome:?}");
        assert!(outcome.escaped_at.is_some(), "{outcome:?}");
    }
}
