//! `--scene game`: one frame of a 2D action game, the same for every
//! engine, seeded (`map.rs` for the level):
//!
//! - a 256 x 256 tile map (tiles of side 8) of platforms, pillars and
//!   floating blocks above a solid floor, as one entity: ours one
//!   `TilemapCollider` whose second kind of tile, spikes (`'^'`), is on a
//!   hazard layer of its own; each peer two ways, both run: a compound of
//!   the merged rectangles (one for the solid tiles, one for the spikes,
//!   as `--scene level`'s compound maps), and a collider per merged
//!   rectangle; the faster of the two counts as the peer;
//! - five bands of polyline hills below the floor, one collider each (as
//!   `--scene hills`);
//! - 300 capsule characters (200 on the platforms, 100 on the hills) moved
//!   by each engine's own controller as in `--scene characters` (ours
//!   `move_and_slide`, avian2d `MoveAndSlide`, bevy_rapier2d
//!   `KinematicCharacterController`), seeing the solid tiles and the hills
//!   only, never each other;
//! - 200 compound enemies (`random_compound`) moving and turning through
//!   everything by `Transform`, wrapping at the map's edges;
//! - 500 bullets (circles of radius 1) flying straight at 900 to 1,500
//!   units/s (two to three tiles a frame), wrapping: ours `Swept` (`Swept`
//!   inserted again when one wraps), avian2d and bevy_rapier2d their swept
//!   CCD (`SweptCcd`, `Ccd::enabled()`), which only dynamic bodies get, so
//!   their bullets are dynamic sensor bodies with the bullet's velocity,
//!   put where the game logic says every frame (the engines sweep from
//!   there to the next frame's place);
//! - every frame, after detection, 2,000 line-of-sight rays (all hits,
//!   through everything but bullets) from each enemy towards a character,
//!   up to 256 units, and 500 point projections onto the ground (tiles and
//!   hills) around the characters; the collision events read and counted.
//!
//! Layers (ours `CollisionLayers`, avian2d `CollisionLayers`, bevy_rapier2d
//! `CollisionGroups`): characters pair with spikes, enemies and bullets;
//! enemies with the ground, characters and bullets; bullets with the
//! ground, characters and enemies. A baseline app runs the same game logic
//! (characters falling freely, enemies and bullets moving, the queries
//! planned) without any collision plugin; an engine's collision cost is its
//! median frame minus the baseline's.
//!
//! Checked after every frame against the truth (`check.rs`): each engine's
//! touching pairs against the f64 pair set of the poses it has (layers
//! applied); ours' bullets' pairs that touched on the way only against
//! their paths; the characters against the tiles and hills (the
//! characters scene's tolerance); every `QUERY_CHECK_EVERY` frames, the
//! rays' hits and the points' projections against a brute-force f64 truth
//! (`queries::check`).

mod avian;
mod check;
mod floor;
mod map;
mod ours;
mod rapier;

use std::time::{Duration, Instant};

use bevy::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::characters::{self, Character, HALF_LENGTH, OVERLAP_TOLERANCE, RADIUS};
use crate::hills::Hills;
use crate::queries::{Answers, Batch};
use crate::scene::{self, Body, BodyShape, EventTally, SceneShapes, base_app, body_bundle};
use map::GameMap;

pub const CHARACTERS_ON_TILES: usize = 200;
pub const CHARACTERS_ON_HILLS: usize = 100;
pub const CHARACTERS: usize = CHARACTERS_ON_TILES + CHARACTERS_ON_HILLS;
pub const ENEMIES: usize = 200;
pub const BULLETS: usize = 500;
pub const RAYS: usize = 2_000;
pub const POINTS: usize = 500;
/// How far an enemy sees.
const SIGHT: f32 = 256.0;
pub const BULLET_RADIUS: f32 = 1.0;
/// 15 to 25 units a frame at 60 Hz.
const BULLET_SPEED: std::ops::RangeInclusive<f32> = 900.0..=1500.0;
/// The queries are checked every this many frames (the f64 truth of 2,000
/// rays takes a while).
const QUERY_CHECK_EVERY: usize = 20;

/// Layers, the same bits in every engine. The ground (tiles and hills) is
/// the characters scene's tile layer and the characters its character
/// layer, so that the controllers' filters of `characters.rs` apply.
pub const GROUND: u32 = 1 << 0;
pub const CHARACTER: u32 = 1 << 1;
pub const HAZARD: u32 = 1 << 2;
pub const ENEMY: u32 = 1 << 3;
pub const BULLET: u32 = 1 << 4;
/// What the rays see: everything but bullets.
pub const SIGHT_MASK: u32 = GROUND | HAZARD | CHARACTER | ENEMY;

/// The layers a collider of `group` accepts. The ground accepts
/// characters so that their controllers' queries see it; characters do
/// not accept the ground, so the two never pair.
pub const fn filters(group: u32) -> u32 {
    match group {
        GROUND => CHARACTER | ENEMY | BULLET,
        HAZARD => CHARACTER,
        CHARACTER => HAZARD | ENEMY | BULLET,
        ENEMY => GROUND | CHARACTER | BULLET,
        _ => GROUND | CHARACTER | ENEMY,
    }
}

/// Whether colliders of groups `a` and `b` pair (each accepts the other).
pub fn interact(a: u32, b: u32) -> bool {
    filters(a) & b != 0 && filters(b) & a != 0
}

/// What a moving entity of the scene is, and its index among its kind.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Actor {
    Character(u32),
    Enemy(u32),
    Bullet(u32),
}

impl Actor {
    pub fn group(self) -> u32 {
        match self {
            Actor::Character(_) => CHARACTER,
            Actor::Enemy(_) => ENEMY,
            Actor::Bullet(_) => BULLET,
        }
    }
}

/// A static collider's part as the truth sees it: its entity, group,
/// shape and world transform.
pub type StaticPart = (Entity, u32, BodyShape, GlobalTransform);

/// The static parts an engine spawned (the peers' maps, every engine's
/// hills), for the truth.
#[derive(Resource, Default)]
pub struct GameStatics(pub Vec<StaticPart>);

/// Time spent answering the queries, one sample per frame.
#[derive(Resource, Default)]
pub struct QueryTimes(pub Vec<Duration>);

/// Frames since the app started, for the queries' plan.
#[derive(Resource, Default)]
pub struct GameFrame(usize);

/// Everything of the scene, generated once for every engine.
pub struct GameScene {
    pub map: GameMap,
    pub characters: Vec<(Vec2, Character)>,
    pub enemies: Vec<Body>,
    pub bullets: Vec<Body>,
}

impl GameScene {
    pub fn generate(seed: u64) -> Self {
        let map = GameMap::generate(seed);
        let arena = map.arena();
        let mut rng = characters::rng(seed);
        let min_row = (map::FLOOR_ROW + 1) as usize;
        let mut starts =
            characters::tile_starts(&map.ground, CHARACTERS_ON_TILES, &mut rng, min_row);
        starts.extend(
            map.hills
                .starts(CHARACTERS_ON_HILLS, &mut rng, RADIUS + HALF_LENGTH),
        );
        let characters = characters::with_states(starts, &mut rng);
        let enemies = scene::generate_in(ENEMIES, seed, SceneShapes::Compounds, arena);
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0b01_1e75);
        let h = arena.half_side;
        let bullets = (0..BULLETS)
            .map(|_| {
                let heading = Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU));
                Body {
                    shape: BodyShape::Circle {
                        radius: BULLET_RADIUS,
                    },
                    position: Vec2::new(rng.random_range(-h..h), rng.random_range(-h..h)),
                    angle: 0.0,
                    velocity: heading * rng.random_range(BULLET_SPEED),
                    spin: 0.0,
                }
            })
            .collect();
        Self {
            map,
            characters,
            enemies,
            bullets,
        }
    }

    /// A mover's shape.
    pub fn shape(&self, actor: Actor) -> BodyShape {
        match actor {
            Actor::Character(_) => BodyShape::Capsule {
                radius: RADIUS,
                half_length: HALF_LENGTH,
            },
            Actor::Enemy(i) => self.enemies[i as usize].shape,
            Actor::Bullet(i) => self.bullets[i as usize].shape,
        }
    }
}

/// How one engine spawns each piece of the scene.
struct Kit {
    /// The tile map and its spikes (the peers record their parts in
    /// [`GameStatics`]).
    map: fn(&mut World, &GameMap),
    hills: fn(&mut World, &Hills) -> Vec<Entity>,
    character: fn(&mut World, Vec2, Character) -> Entity,
    enemies: fn(&mut World, &[Body]) -> Vec<Entity>,
    bullets: fn(&mut World, &[Body]) -> Vec<Entity>,
    /// Puts a collider in a group (with `filters(group)`).
    layers: fn(&mut World, Entity, u32),
}

/// Reads the pairs of `Swept` colliders that touched during the step only.
type PassingPairs = fn(&World) -> Vec<(Entity, Entity)>;

/// One app of the game scene.
pub struct GameEngine {
    pub name: &'static str,
    setup: fn(&mut App),
    kit: Kit,
    /// `None` for the baseline.
    touching_pairs: Option<crate::TouchingPairs>,
    /// The static parts, read at the first check.
    statics: fn(&mut World) -> Vec<StaticPart>,
    /// Pairs that touched during the step only (ours' `Swept` bullets).
    passing: Option<PassingPairs>,
}

fn recorded_statics(world: &mut World) -> Vec<StaticPart> {
    world.resource::<GameStatics>().0.clone()
}

const BASELINE: &str = "baseline";
const OURS: &str = "bevy_collide2d";

const ENGINES: [GameEngine; 6] = [
    GameEngine {
        name: BASELINE,
        setup: |app| {
            app.add_systems(Update, characters::move_free);
        },
        kit: Kit {
            map: |world, _| {
                // The map's entity and its spikes' (ours has a child).
                world
                    .spawn(Transform::default())
                    .with_child(Transform::default());
            },
            hills: characters::ENGINES[0].spawn_hills,
            character: characters::ENGINES[0].spawn_character,
            enemies: spawn_plain,
            bullets: spawn_plain,
            layers: |_, _, _| {},
        },
        touching_pairs: None,
        statics: recorded_statics,
        passing: None,
    },
    GameEngine {
        name: OURS,
        setup: ours::setup,
        kit: Kit {
            map: ours::spawn_map,
            hills: characters::ours::spawn_hills,
            character: characters::ours::spawn_character,
            enemies: crate::ours::spawn,
            bullets: crate::ours::spawn_swept,
            layers: ours::layers,
        },
        touching_pairs: Some(crate::ours::touching_pairs),
        statics: ours::statics,
        passing: Some(ours::passing),
    },
    avian::engine(AVIAN_COMPOUND, avian::spawn_compound_map),
    avian::engine(AVIAN_RECTS, avian::spawn_rect_map),
    rapier::engine(RAPIER_COMPOUND, rapier::spawn_compound_map),
    rapier::engine(RAPIER_RECTS, rapier::spawn_rect_map),
];

const AVIAN_COMPOUND: &str = "avian2d, compound map";
const AVIAN_RECTS: &str = "avian2d, a collider per rectangle";
const RAPIER_COMPOUND: &str = "bevy_rapier2d, compound map";
const RAPIER_RECTS: &str = "bevy_rapier2d, a collider per rectangle";

/// The baseline's enemies and bullets: moved, nothing else.
fn spawn_plain(world: &mut World, bodies: &[Body]) -> Vec<Entity> {
    world.spawn_batch(bodies.iter().map(body_bundle)).collect()
}

/// Spawns the scene into an engine's world, each collider in its group.
fn spawn_scene(world: &mut World, scene: &GameScene, kit: &Kit) {
    (kit.map)(world, &scene.map);
    let lines = (kit.hills)(world, &scene.map.hills);
    for (line, &entity) in lines.iter().enumerate() {
        (kit.layers)(world, entity, GROUND);
        let parts =
            (scene.map.hill_segments(line)).map(|(segment, at)| (entity, GROUND, segment, at));
        world.resource_mut::<GameStatics>().0.extend(parts);
    }
    let tag = |world: &mut World, entity: Entity, actor: Actor| {
        (kit.layers)(world, entity, actor.group());
        world.entity_mut(entity).insert(actor);
    };
    for (i, (at, character)) in scene.characters.iter().enumerate() {
        let entity = (kit.character)(world, *at, character.clone());
        tag(world, entity, Actor::Character(i as u32));
    }
    for (i, entity) in (kit.enemies)(world, &scene.enemies).into_iter().enumerate() {
        tag(world, entity, Actor::Enemy(i as u32));
    }
    for (i, entity) in (kit.bullets)(world, &scene.bullets).into_iter().enumerate() {
        tag(world, entity, Actor::Bullet(i as u32));
    }
}

/// This frame's queries, from where the enemies and characters are after
/// moving: ray `k` from enemy `k % 200` towards the `k / 200`-th of ten
/// characters (different for each enemy and frame), up to [`SIGHT`];
/// point `j` around a character. Every app plans them (the
/// baseline too); the engines answer them after their step.
pub fn plan_queries(
    mut frame: ResMut<GameFrame>,
    actors: Query<(&Actor, &Transform)>,
    mut plan: ResMut<Batch>,
    mut places: Local<(Vec<Vec2>, Vec<Vec2>)>,
) {
    frame.0 += 1;
    let f = frame.0;
    let (characters, enemies) = &mut *places;
    characters.resize(CHARACTERS, Vec2::ZERO);
    enemies.resize(ENEMIES, Vec2::ZERO);
    for (actor, transform) in &actors {
        let at = transform.translation.truncate();
        match *actor {
            Actor::Character(i) => characters[i as usize] = at,
            Actor::Enemy(i) => enemies[i as usize] = at,
            Actor::Bullet(_) => {}
        }
    }
    plan.rays.clear();
    plan.rays.extend((0..RAYS).map(|k| {
        let (enemy, nth) = (k % ENEMIES, k / ENEMIES);
        let from = enemies[enemy];
        let towards = characters[(enemy * 7 + nth * 31 + f * 13) % CHARACTERS] - from;
        let direction = Dir2::new(towards).unwrap_or(Dir2::X);
        (from, direction, towards.length().clamp(1.0, SIGHT))
    }));
    plan.points.clear();
    plan.points.extend((0..POINTS).map(|j| {
        let around = Vec2::from_angle(j as f32 * 2.399_963) * (4.0 + (j % 13) as f32 * 2.0);
        characters[(j * 3 + f) % CHARACTERS] + around
    }));
}

pub struct GameOptions {
    pub frames: usize,
    pub warmup: usize,
    pub seed: u64,
    pub serial: bool,
    /// Also answer ours' queries with the floor model (`floor.rs`).
    pub floor: bool,
    /// Words picking engines by name (`None`: all); the baseline always runs.
    pub engines: Option<Vec<String>>,
}

/// One app of a run and what was measured of it.
struct GameRun {
    engine: &'static GameEngine,
    app: App,
    frame_times: Vec<Duration>,
    cpu: crate::CpuTimes,
    check: check::RunCheck,
}

impl GameRun {
    fn new(engine: &'static GameEngine, scene: &GameScene, parallel: bool) -> Self {
        let mut app = base_app(scene.map.arena());
        characters::insert_resources(&mut app, scene.map.arena().half_side, parallel);
        app.init_resource::<Batch>()
            .init_resource::<Answers>()
            .init_resource::<GameFrame>()
            .init_resource::<GameStatics>()
            .init_resource::<QueryTimes>()
            .add_systems(
                PostUpdate,
                plan_queries.after(bevy::transform::TransformSystems::Propagate),
            );
        (engine.setup)(&mut app);
        app.finish();
        app.cleanup();
        spawn_scene(app.world_mut(), scene, &engine.kit);
        Self {
            engine,
            app,
            frame_times: Vec::new(),
            cpu: crate::CpuTimes::default(),
            check: check::RunCheck::default(),
        }
    }

    fn timed_update(&mut self) {
        let cpu_before = crate::CpuTimes::read();
        let start = Instant::now();
        self.app.update();
        self.frame_times.push(start.elapsed());
        self.cpu.add_since(cpu_before);
    }

    fn median_ms(&self) -> f64 {
        let mut times = self.frame_times.clone();
        times.sort_unstable();
        times[times.len() / 2].as_secs_f64() * 1e3
    }

    fn tally(&self) -> EventTally {
        (self.app.world().get_resource::<EventTally>())
            .copied()
            .unwrap_or_default()
    }
}

pub fn run(options: &GameOptions) {
    let start = Instant::now();
    let scene = GameScene::generate(options.seed);
    let rectangles = |level| crate::level::merged_rectangles(level).len();
    println!(
        "game scene: {0}x{0} tiles of side {1}: {2} solid ({3} merged rectangles), {4} spikes ({5}); {6} hill polylines of {7} segments in all; {CHARACTERS} characters ({CHARACTERS_ON_TILES} on the tiles, {CHARACTERS_ON_HILLS} on the hills), {ENEMIES} compound enemies, {BULLETS} Swept bullets; {RAYS} rays of up to {SIGHT} and {POINTS} point projections a frame; {8} warm-up + {9} timed frames; generated in {10:.0} ms",
        map::SIZE,
        map::TILE,
        scene.map.ground.solid.len(),
        rectangles(&scene.map.ground),
        scene.map.spikes.solid.len(),
        rectangles(&scene.map.spikes),
        scene.map.hills.lines.len(),
        scene.map.hills.segments(),
        options.warmup,
        options.frames,
        start.elapsed().as_secs_f64() * 1e3,
    );
    let chosen = ENGINES.iter().filter(|e| {
        e.touching_pairs.is_none()
            || options.engines.as_ref().is_none_or(|words| {
                (words.iter())
                    .any(|w| e.name.contains(w.as_str()) || (w == "ours" && e.name == OURS))
            })
    });
    let mut runs: Vec<GameRun> = chosen
        .map(|engine| {
            let start = Instant::now();
            let run = GameRun::new(engine, &scene, !options.serial);
            eprintln!(
                "{}: built and spawned in {:.0} ms",
                engine.name,
                start.elapsed().as_secs_f64() * 1e3
            );
            run
        })
        .collect();
    for _ in 0..options.warmup {
        for run in &mut runs {
            run.app.update();
        }
    }
    for run in &mut runs {
        let world = run.app.world_mut();
        world.resource_mut::<characters::MoveTimes>().0.clear();
        world.resource_mut::<QueryTimes>().0.clear();
    }
    let mut truths: Vec<Option<check::Truth>> = runs.iter().map(|_| None).collect();
    let mut floor = options.floor.then(|| floor::GameFloor::new(&scene));
    for frame in 0..options.frames {
        let count = runs.len();
        for k in 0..count {
            runs[(frame + k) % count].timed_update();
        }
        if let Some(floor) = &mut floor
            && let Some(ours) = runs.iter_mut().find(|r| r.engine.name == OURS)
        {
            floor.frame(ours.app.world_mut(), &scene);
        }
        for (run, truth) in runs.iter_mut().zip(&mut truths) {
            if run.engine.touching_pairs.is_none() {
                continue;
            }
            let world = run.app.world_mut();
            let truth =
                truth.get_or_insert_with(|| check::Truth::new(&scene, (run.engine.statics)(world)));
            let queries = (frame + 1) % QUERY_CHECK_EVERY == 0;
            run.check.frame(run.engine, world, truth, &scene, queries);
        }
    }
    report(&runs, options);
    if let Some(floor) = &floor {
        report_floor(&runs, floor);
    }
}

/// The queries' floor against ours' queries, and what 10x leaves for them.
fn report_floor(runs: &[GameRun], floor: &floor::GameFloor) {
    let Some(ours) = runs.iter().find(|r| r.engine.name == OURS) else {
        return;
    };
    let baseline = (runs.iter())
        .find(|r| r.engine.touching_pairs.is_none())
        .map_or(0.0, GameRun::median_ms);
    let ours_cost = ours.median_ms() - baseline;
    let ours_queries = characters::median_ms(&ours.app.world().resource::<QueryTimes>().0);
    let floor_ms = characters::median_ms(&floor.times);
    let peer = (runs.iter())
        .filter(|r| r.engine.touching_pairs.is_some() && r.engine.name != OURS)
        .map(|r| (r.median_ms() - baseline, r.engine.name))
        .min_by(|a, b| a.0.total_cmp(&b.0));
    println!(
        "\nqueries' floor (one thread, `game/floor.rs`): {floor_ms:.2} ms a frame against ours' {ours_queries:.2} ms ({:.1}x); its hits per frame {:.0}; answers unlike ours': {} rays, {} points of {} frames",
        ours_queries / floor_ms,
        floor.hits as f64 / floor.frames.max(1) as f64,
        floor.mismatched_rays,
        floor.mismatched_points,
        floor.frames,
    );
    let per_frame = |d: Duration| d.as_secs_f64() * 1e3 / floor.frames.max(1) as f64;
    println!(
        "the floor's parts, mean ms a frame: rays through the tiles {:.2}, the hills {:.2}, the movers {:.2} (grid built each frame); points {:.2}",
        per_frame(floor.parts[0]),
        per_frame(floor.parts[1]),
        per_frame(floor.parts[2]),
        per_frame(floor.parts[3]),
    );
    if let Some((peer_ms, name)) = peer {
        let budget = peer_ms / 10.0;
        let rest = ours_cost - ours_queries;
        println!(
            "10x the faster peer ({name}, {peer_ms:.2} ms) leaves {budget:.2} ms; ours without its queries costs {rest:.2}, so the queries may take {:.2} ms; their floor takes {floor_ms:.2}",
            budget - rest
        );
    }
}

fn report(runs: &[GameRun], options: &GameOptions) {
    let baseline = runs
        .iter()
        .find(|r| r.engine.touching_pairs.is_none())
        .map_or(0.0, GameRun::median_ms);
    let cost = |run: &GameRun| run.median_ms() - baseline;
    let ours = runs.iter().find(|r| r.engine.name == OURS).map(&cost);
    let frames_run = (options.warmup + options.frames) as f64;
    println!(
        "\n| engine | frame ms (median) | collision ms | × bevy_collide2d | move system ms | queries ms | pairs at last frame | truth | frames with the exact pair set | missing / extra pairs (largest gap) | extra along the bullets' paths | started − ended | events per frame | VM steal |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|");
    for run in runs {
        let detects = run.engine.touching_pairs.is_some();
        let pairs = &run.check.pairs;
        let tally = run.tally();
        let dash = || "-".to_string();
        let world = run.app.world();
        let move_ms = characters::median_ms(&world.resource::<characters::MoveTimes>().0);
        let query_ms = characters::median_ms(&world.resource::<QueryTimes>().0);
        let ms = |t: f64| {
            if t.is_nan() {
                dash()
            } else {
                format!("{t:.2}")
            }
        };
        println!(
            "| {} | {:.2} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            run.engine.name,
            run.median_ms(),
            if detects {
                format!("{:.2}", cost(run))
            } else {
                dash()
            },
            match (detects, ours) {
                (true, Some(ours)) => format!("{:.1}", cost(run) / ours),
                _ => dash(),
            },
            ms(move_ms),
            ms(query_ms),
            if detects {
                pairs.last_pairs.to_string()
            } else {
                dash()
            },
            if detects {
                pairs.last_truth.to_string()
            } else {
                dash()
            },
            if detects {
                format!(
                    "{}/{} now, {}/{} prev",
                    pairs.exact_now, pairs.checked, pairs.exact_previous, pairs.checked
                )
            } else {
                dash()
            },
            if detects {
                format!(
                    "{} / {} ({:.1e})",
                    pairs.missing, pairs.extra, pairs.largest_gap
                )
            } else {
                dash()
            },
            if detects {
                pairs.along_paths.to_string()
            } else {
                dash()
            },
            if detects {
                (tally.started as i64 - tally.ended as i64).to_string()
            } else {
                dash()
            },
            if detects {
                format!("{:.0}", (tally.started + tally.ended) as f64 / frames_run)
            } else {
                dash()
            },
            run.cpu
                .steal_percent()
                .map_or(dash(), |p| format!("{p:.0}%")),
        );
    }
    println!(
        "\n| engine | character-frames inside the ground > {OVERLAP_TOLERANCE} | characters ever inside | deepest | grounded (mean of {CHARACTERS}) | ran (units/character/s) | ray hits per frame | rays checked: missing / extra / distance | points checked: inside / distance |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---|---|");
    for run in runs.iter().filter(|r| r.engine.touching_pairs.is_some()) {
        let c = &run.check.characters;
        let q = &run.check.queries;
        let frames = c.checked.max(1) as f64;
        let seconds = c.checked.saturating_sub(1).max(1) as f64 / 60.0;
        println!(
            "| {} | {} | {} | {:.3} | {:.0} | {:.1} | {:.0} | {}: {} / {} / {} | {}: {} / {} |",
            run.engine.name,
            c.overlaps,
            c.ever_inside.len(),
            c.deepest,
            c.grounded as f64 / frames,
            c.ran / CHARACTERS as f64 / seconds,
            q.hits as f64 / q.frames.max(1) as f64,
            q.rays_checked,
            q.rays.missing,
            q.rays.extra,
            q.rays.distance,
            q.points_checked,
            q.points.inside + q.points.missing,
            q.points.distance,
        );
    }
    for run in runs {
        if let Some(times) = run.app.world().get_resource::<crate::ours::StageTimes>() {
            let medians: Vec<String> = (crate::ours::STAGES.iter().zip(&times.samples))
                .map(|(name, samples)| {
                    let timed = &samples[samples.len().saturating_sub(options.frames)..];
                    format!("{name} {:.2} ms", characters::median_ms(timed))
                })
                .collect();
            println!(
                "{} detection stages (median): {}",
                run.engine.name,
                medians.join(", ")
            );
        }
        let pairs = &run.check.pairs;
        if pairs.missing + pairs.extra > 0 {
            eprintln!(
                "game scene, {}: {} missing and {} extra pairs over {} checked frames, at most {:.3e} from touching",
                run.engine.name, pairs.missing, pairs.extra, pairs.checked, pairs.largest_gap
            );
        }
        if run.engine.passing.is_some() {
            let swept = &run.check.swept;
            println!(
                "{}, Swept bullets: {} pairs touched on the way only (passed) over {} frames, {} of them farther than their paths allow; {} crossings of the ground certain from the bullets' paths, {} of them not reported (neither touching, passed nor touching the frame before)",
                run.engine.name,
                swept.passed,
                pairs.checked,
                swept.passed_wrong,
                swept.sure_crossings,
                swept.missed_crossings
            );
        }
    }
    let stored = |name: &str| {
        (runs.iter())
            .find(|r| r.engine.name == name)
            .map(|r| (r.engine.name, cost(r)))
    };
    let mut peers = Vec::new();
    for (compound, rects) in [
        (AVIAN_COMPOUND, AVIAN_RECTS),
        (RAPIER_COMPOUND, RAPIER_RECTS),
    ] {
        match (stored(compound), stored(rects)) {
            (Some(a), Some(b)) => {
                let (faster, slower) = if a.1 <= b.1 { (a, b) } else { (b, a) };
                println!(
                    "{}: {:.2} ms, {}: {:.2} ms: the {} is faster ({:.2}x)",
                    a.0,
                    a.1,
                    b.0,
                    b.1,
                    if faster.0 == a.0 {
                        "compound map"
                    } else {
                        "collider per rectangle"
                    },
                    slower.1 / faster.1
                );
                peers.push(faster);
            }
            (Some(one), None) | (None, Some(one)) => peers.push(one),
            (None, None) => {}
        }
    }
    let peer = peers.into_iter().min_by(|a, b| a.1.total_cmp(&b.1));
    if let (Some(ours), Some((name, peer_cost))) = (ours, peer) {
        println!(
            "game: ours {ours:.2} ms, the faster peer ({name}) {peer_cost:.2} ms: {:.1}x",
            peer_cost / ours
        );
    }
}
