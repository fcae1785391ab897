//! The comparison runner: the same headless scene through `bevy_collide2d`,
//! avian2d and bevy_rapier2d, plus a baseline app without any collision
//! plugin, in one process. Every frame each app is updated once, in rotating
//! order, so a noisy machine slows them all alike; the collision cost of an
//! engine is its median frame time minus the baseline's.
//!
//! ```text
//! cargo run --release -p bevy_collide2d_benches --bin compare -- [options]
//!   --n 1000,10000,50000,100000   collider counts
//!   --frames F                    timed frames per count (default: by count)
//!   --warmup W                    untimed frames first (default 10)
//!   --engines ours,swept,avian,rapier
//!                                 which engines (default: all that apply
//!                                 to the scene, the `Swept` ones left out
//!                                 with a level; `swept` is ours with every
//!                                 collider `Swept`, `mixed` ours with one
//!                                 in a hundred `Swept`, `ours` every other
//!                                 variant of ours; any other word picks
//!                                 the engines whose name has it, and
//!                                 `=name` the one of that exact name,
//!                                 commas included)
//!   --threads T                   compute task pool threads (default: Bevy's)
//!   --no-check                    skip the per-frame pair check against the truth
//!   --seed S                      scene seed (default 1)
//!   --scene circles-rects|five-shapes|compounds|level
//!                                 the colliders' shapes (default
//!                                 circles-rects: half circles, half
//!                                 rectangles; five-shapes: circles,
//!                                 rectangles, capsules, segments and convex
//!                                 polygons, a fifth each; same sizes and
//!                                 motion, see `scene.rs`; compounds: each
//!                                 collider four circles and rectangles,
//!                                 `random_compound`); level: the
//!                                 circles and rectangles (default --n 1000)
//!                                 moving over a level of static tiles
//!                                 (below)
//!   --level-cells C               level: C x C cells (default 548)
//!   --level-tiles K               level: K of them solid, chosen at random
//!                                 by the seed (default 100000, a third)
//!   --tile-size T                 level: the side of a tile (default 8; the
//!                                 movers are 4 to 12 across)
//!   --static-fraction F           not with level: also run ours with that
//!                                 share of the colliders standing still,
//!                                 once plain and once `StaticCollider`
//!                                 (with a baseline of its own)
//!   --scene characters            N capsule characters (default --n 1000)
//!                                 run, fall and jump through the level's
//!                                 tiles, moved by each engine's character
//!                                 controller (see `characters.rs`; default
//!                                 --frames 300; --engines ours,avian,rapier)
//!   --scene queries               the same batches of ray, point and region
//!                                 queries through each engine's query API
//!                                 on a still level (default 164 x 164
//!                                 cells, 9,000 tiles, --n 1000 movers; see
//!                                 `queries.rs`; --frames rounds, default 30)
//!   --batch B                     queries: queries per batch (default 1000)
//!   --scene hills                 the characters scene on polyline hills
//!                                 instead of tiles: bands of rolling
//!                                 hills across the level's square, each
//!                                 one polyline collider (see `hills.rs`)
//!   --serial                      characters: the `Update` systems of ours
//!                                 and avian2d move the characters one by
//!                                 one instead of with `par_iter_mut`
//!   --floor                       characters, hills, game: also run the floor
//!                                 model (`characters/floor.rs`: the least
//!                                 controller, one thread, no ECS; game:
//!                                 `game/floor.rs`, its queries)
//!   --scene game                  one frame of a 2D action game (see
//!                                 `game.rs`): a 256 x 256 tile map as one
//!                                 entity with spikes, polyline hills, 300
//!                                 characters, 200 compound enemies, 500
//!                                 `Swept` bullets, 2,000 rays and 500
//!                                 point projections a frame; the peers'
//!                                 two map variants both run, the faster
//!                                 counts; ends with `game: ours X ms, the
//!                                 faster peer (NAME) Y ms: Z.Zx` (default
//!                                 --frames 240; --engines ours,avian,
//!                                 rapier, compound, rectangle; --serial)
//! ```
//!
//! `--scene level`: the movers wrap in the level's square (side C * T,
//! 4384 by default; much sparser than the other scenes, whose square grows
//! with N) and pass through the tiles, which are static: ours one
//! `Collider::rect` + `StaticCollider` entity per tile, avian2d
//! `RigidBody::Static`, bevy_rapier2d `RigidBody::Fixed`; the baseline
//! spawns them as bare `Transform`s. Also run: ours with the level as one
//! `TilemapCollider` (rows merged, see `level.rs`), and ours and a baseline
//! with the same movers and no level; the apps with the level as one
//! collider (ours `TilemapCollider`, the peers' compound maps) spawn no tile
//! entity, so their collision cost is their frame minus the no-level
//! baseline's. It prints how long spawning the tiles
//! and the first two updates took for each app (the first detection with
//! the level: avian2d skips its first step, whose delta is zero), the level
//! frame against the no-level frame, and ours against the faster peer. The
//! truth pairs the movers among themselves by its sweep and with the
//! static colliders through a grid of those (`truth::StaticIndex`), never
//! two static ones: no engine reports those.
//!
//! With `COMPARE_STAGES=1` it also prints the median time of each of our
//! detection steps (snapshot, broad phase, narrow phase, events).
//! With `COMPARE_EXPLAIN=1` it prints the first few missing and extra pairs
//! of a frame whose pair set differs from the truth, with how far they are
//! from touching ([`truth::gap`]). Either way, each engine's mismatched
//! pairs are counted over the run and the largest gap among them printed.
//!
//! On a virtual machine, the share of CPU time the hypervisor gave to other
//! guests ("steal", from `/proc/stat`) while an engine's timed frames ran is
//! shown next to its times: bevy_collide2d uses every core and the peers use
//! one, so steal slows ours most, and a run with much of it says more about
//! the neighbours than about the engines. The kernel counts it in ticks of
//! 10 ms, so it means little over less than a second of frames.

mod avian;
mod characters;
mod game;
mod hills;
mod level;
mod ours;
mod queries;
mod rapier;
mod scene;
mod truth;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;

use level::Level;
use scene::{Arena, Body, BodyShape, EventTally, Mover, SceneShapes, base_app, body_bundle};

/// Reads the pairs an engine reports as touching, each `(lower, higher)`.
type TouchingPairs = fn(&mut World) -> Vec<(Entity, Entity)>;

/// Spawns bodies, or a level's tiles, and returns their entities.
type Spawn<T> = fn(&mut World, &T) -> Vec<Entity>;

/// How one kind of app is built and asked for its pairs.
struct Engine {
    name: &'static str,
    setup: fn(&mut App),
    spawn: fn(&mut World, &[Body]) -> Vec<Entity>,
    /// The level's tiles (`--scene level`), as this engine has them.
    spawn_tiles: Spawn<Level>,
    /// `None` for the baselines, which detect nothing.
    touching_pairs: Option<TouchingPairs>,
    variant: Variant,
}

/// What an app has besides the scene's bodies, which all move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Variant {
    /// Nothing (with `--scene level`, the level's tiles, one collider each).
    Plain,
    /// `--scene level`: the same movers, no level.
    NoLevel,
    /// `--scene level`: the level as one `TilemapCollider` (ours).
    Tilemap,
    /// `--static-fraction`: that share of the bodies stand still.
    Still,
    /// `--static-fraction`: ... and are `StaticCollider` (ours).
    StillStatic,
}

impl Variant {
    fn applies(self, level: bool, still: bool) -> bool {
        match self {
            Self::Plain => true,
            Self::NoLevel | Self::Tilemap => level,
            Self::Still | Self::StillStatic => still,
        }
    }

    /// The baseline whose frame is subtracted from this one's: the level as
    /// one collider spawns no tile entity, so the movers alone (the level's
    /// baseline also pays Bevy's cost of 100,000 bare tile entities).
    fn baseline(self) -> Self {
        match self {
            Self::Plain => Self::Plain,
            Self::Still | Self::StillStatic => Self::Still,
            Self::NoLevel | Self::Tilemap => Self::NoLevel,
        }
    }
}

/// A baseline: the scene's bodies and tiles with no collision plugin.
const fn baseline(name: &'static str, variant: Variant) -> Engine {
    Engine {
        name,
        setup: |_| {},
        spawn: |world, bodies| world.spawn_batch(bodies.iter().map(body_bundle)).collect(),
        spawn_tiles: level::spawn_plain_tiles,
        touching_pairs: None,
        variant,
    }
}

const BASELINES: [Engine; 3] = [
    baseline("baseline", Variant::Plain),
    baseline("baseline, no level", Variant::NoLevel),
    baseline("baseline, still ones", Variant::Still),
];

/// Ours, with the level's tiles as `StaticCollider`s.
const fn ours(name: &'static str, variant: Variant) -> Engine {
    Engine {
        name,
        setup: ours::setup,
        spawn: ours::spawn,
        spawn_tiles: ours::spawn_tiles,
        touching_pairs: Some(ours::touching_pairs),
        variant,
    }
}

const OURS: &str = "bevy_collide2d";

const ENGINES: [Engine; 12] = [
    ours(OURS, Variant::Plain),
    Engine {
        name: SWEPT,
        setup: ours::setup_swept,
        spawn: ours::spawn_swept,
        spawn_tiles: ours::spawn_tiles,
        touching_pairs: Some(ours::touching_pairs),
        variant: Variant::Plain,
    },
    Engine {
        name: MIXED,
        setup: ours::setup_swept,
        spawn: ours::spawn_mixed,
        spawn_tiles: ours::spawn_tiles,
        touching_pairs: Some(ours::touching_pairs),
        variant: Variant::Plain,
    },
    Engine {
        spawn_tiles: ours::spawn_tilemap,
        ..ours(TILEMAP, Variant::Tilemap)
    },
    ours(NO_LEVEL, Variant::NoLevel),
    ours(STILL, Variant::Still),
    ours(STILL_STATIC, Variant::StillStatic),
    Engine {
        name: "avian2d",
        setup: avian::setup,
        spawn: avian::spawn,
        spawn_tiles: avian::spawn_tiles,
        touching_pairs: Some(avian::touching_pairs),
        variant: Variant::Plain,
    },
    Engine {
        name: "bevy_rapier2d",
        setup: rapier::setup,
        spawn: rapier::spawn,
        spawn_tiles: rapier::spawn_tiles,
        touching_pairs: Some(rapier::touching_pairs),
        variant: Variant::Plain,
    },
    Engine {
        name: RAPIER_COLLISION_ONLY,
        setup: rapier::setup_collision_only,
        spawn: rapier::spawn,
        spawn_tiles: rapier::spawn_tiles,
        touching_pairs: Some(rapier::touching_pairs),
        variant: Variant::Plain,
    },
    Engine {
        name: AVIAN_MAP,
        setup: avian::setup,
        spawn: avian::spawn,
        spawn_tiles: avian::spawn_tilemap,
        touching_pairs: Some(avian::touching_pairs),
        variant: Variant::Tilemap,
    },
    Engine {
        name: RAPIER_MAP,
        setup: rapier::setup,
        spawn: rapier::spawn,
        spawn_tiles: rapier::spawn_tilemap,
        touching_pairs: Some(rapier::touching_pairs),
        variant: Variant::Tilemap,
    },
];

/// bevy_rapier2d with `SimulationMode::CollisionOnly`.
const RAPIER_COLLISION_ONLY: &str = "bevy_rapier2d, CollisionOnly";

/// The peers with the level as one compound of the merged rectangles.
const AVIAN_MAP: &str = "avian2d, compound map (merged)";
const RAPIER_MAP: &str = "bevy_rapier2d, compound map (merged)";

/// Ours with every collider `Swept`.
const SWEPT: &str = "bevy_collide2d, all Swept";
/// Ours with one collider in a hundred `Swept` (bullets among the crowd):
/// every collider's pose is then kept, as the partners' paths count.
const MIXED: &str = "bevy_collide2d, 1% Swept (mixed)";
/// Ours with the level as one `TilemapCollider`.
const TILEMAP: &str = "bevy_collide2d, TilemapCollider (merged)";
/// Ours with the level's movers and no level.
const NO_LEVEL: &str = "bevy_collide2d, no level";
/// Ours with `--static-fraction` of the colliders standing still.
const STILL: &str = "bevy_collide2d, still ones plain";
/// ... and those `StaticCollider`.
const STILL_STATIC: &str = "bevy_collide2d, still ones StaticCollider";

/// `--scene level`'s map.
struct LevelOptions {
    cells: u32,
    tiles: usize,
    tile_size: f32,
}

struct Options {
    counts: Option<Vec<usize>>,
    frames: Option<usize>,
    warmup: usize,
    /// `None`: every engine that applies to the scene (ours with `Swept`
    /// left out with a level).
    engines: Option<Vec<&'static Engine>>,
    threads: Option<usize>,
    check: bool,
    seed: u64,
    scene: SceneShapes,
    level: Option<LevelOptions>,
    static_fraction: Option<f64>,
    /// `--scene characters` (with `level` set).
    characters: bool,
    /// `--serial` (characters).
    serial: bool,
    /// `--floor` (characters, hills, game).
    floor: bool,
    /// `--scene queries` (with `level` set).
    queries: bool,
    /// `--scene hills`: the characters on polyline hills.
    hills: bool,
    /// `--batch` (queries).
    batch: usize,
    /// `--scene game`.
    game: bool,
    /// `--engines` as given.
    engine_words: Option<Vec<String>>,
}

fn parse_options() -> Options {
    let mut options = Options {
        counts: None,
        frames: None,
        warmup: 10,
        engines: None,
        threads: None,
        check: true,
        seed: 1,
        scene: SceneShapes::CirclesRects,
        level: None,
        static_fraction: None,
        characters: false,
        serial: false,
        floor: false,
        queries: false,
        hills: false,
        batch: 1_000,
        game: false,
        engine_words: None,
    };
    let mut level = LevelOptions {
        cells: 548,
        tiles: 100_000,
        tile_size: 8.0,
    };
    let mut level_scene = false;
    let mut level_sized = false;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| panic!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--n" => {
                options.counts = Some(
                    value()
                        .split(',')
                        .map(|n| n.trim().replace('_', "").parse().expect("--n: counts"))
                        .collect(),
                );
            }
            "--frames" => options.frames = Some(value().parse().expect("--frames: a number")),
            "--warmup" => options.warmup = value().parse().expect("--warmup: a number"),
            "--threads" => options.threads = Some(value().parse().expect("--threads: a number")),
            "--seed" => options.seed = value().parse().expect("--seed: a number"),
            "--engines" => {
                let wanted = value();
                // An exact name may hold ", ": a piece after `=name` that
                // starts with a space belongs to it.
                let mut wanted_names: Vec<String> = Vec::new();
                for piece in wanted.split(',') {
                    match wanted_names.last_mut() {
                        Some(last) if last.starts_with('=') && piece.starts_with(' ') => {
                            last.push(',');
                            last.push_str(piece);
                        }
                        _ => wanted_names.push(piece.trim().to_string()),
                    }
                }
                let wanted: Vec<&str> = wanted_names.iter().map(String::as_str).collect();
                options.engine_words = Some(wanted.iter().map(|w| w.to_string()).collect());
                options.engines = Some(
                    ENGINES
                        .iter()
                        .filter(|engine| {
                            wanted.iter().any(|w| {
                                w.strip_prefix('=') == Some(engine.name)
                                    || (!w.starts_with('=') && engine.name.contains(w))
                                    || (*w == "ours"
                                        && engine.name.starts_with(OURS)
                                        && ![SWEPT, MIXED].contains(&engine.name))
                                    || (*w == "swept" && engine.name == SWEPT)
                            })
                        })
                        .collect(),
                );
            }
            "--scene" => {
                let name = value();
                if name == "level" {
                    level_scene = true;
                } else if name == "characters" {
                    level_scene = true;
                    options.characters = true;
                } else if name == "queries" {
                    level_scene = true;
                    options.queries = true;
                } else if name == "hills" {
                    level_scene = true;
                    options.hills = true;
                } else if name == "game" {
                    options.game = true;
                } else {
                    options.scene = SceneShapes::parse(&name).unwrap_or_else(|| {
                        panic!("--scene: circles-rects, five-shapes, compounds, level, characters, queries, hills or game, not {name}")
                    });
                }
            }
            "--level-cells" => {
                level.cells = value().parse().expect("--level-cells: a number");
                level_sized = true;
            }
            "--level-tiles" => {
                level.tiles = (value().replace('_', "").parse()).expect("--level-tiles: a number");
                level_sized = true;
            }
            "--batch" => options.batch = value().parse().expect("--batch: a number"),
            "--tile-size" => level.tile_size = value().parse().expect("--tile-size: a number"),
            "--static-fraction" => {
                let fraction: f64 = value().parse().expect("--static-fraction: a number");
                assert!(
                    (0.0..=1.0).contains(&fraction),
                    "--static-fraction: from 0 to 1"
                );
                options.static_fraction = Some(fraction);
            }
            "--no-check" => options.check = false,
            "--serial" => options.serial = true,
            "--floor" => options.floor = true,
            other => panic!("unknown option {other}; see the doc comment of compare/main.rs"),
        }
    }
    // The queries' scene: 10,000 colliders with the default 1,000 movers.
    if options.queries && !level_sized {
        level.cells = 164;
        level.tiles = 9_000;
    }
    // The level options may come before or after `--scene level`.
    if level_scene {
        options.level = Some(level);
        assert!(
            options.static_fraction.is_none(),
            "--static-fraction is for the scenes without a level"
        );
    }
    options
}

/// What every app of one count is built from.
struct SceneSetup {
    bodies: Vec<Body>,
    arena: Arena,
    /// For `--static-fraction`: which bodies stand still.
    still: Vec<bool>,
    level: Option<Level>,
}

/// A body of a run, as the truth check finds it.
#[derive(Clone, Copy)]
enum Found {
    Moving(usize),
    Static(usize),
}

/// One app of a run and what was measured of it.
struct Run {
    engine: &'static Engine,
    app: App,
    /// The bodies the truth sweeps every frame (the ones that move, and the
    /// still ones when they are not static colliders), and their shapes.
    entities: Vec<Entity>,
    shapes: Vec<BodyShape>,
    /// The static colliders (tiles, still `StaticCollider`s), read and
    /// indexed at the first check: the truth pairs them with the others only.
    statics: Vec<Entity>,
    static_shapes: Vec<BodyShape>,
    static_transforms: Vec<GlobalTransform>,
    static_index: Option<truth::StaticIndex>,
    /// Every body of the truth, for explaining a wrong pair.
    found: HashMap<Entity, Found>,
    /// Time to spawn the level's tiles, and the first two updates.
    spawn_tiles: Option<Duration>,
    first_updates: Vec<Duration>,
    frame_times: Vec<Duration>,
    /// CPU time of the whole machine while the timed frames ran.
    cpu: CpuTimes,
    /// Checked frames whose pair set equals the truth of this frame's poses,
    /// and of the previous frame's (for an engine that reports a frame late).
    exact_now: usize,
    exact_previous: usize,
    checked: usize,
    last_pairs: usize,
    last_truth: usize,
    previous_truth: Option<Vec<(Entity, Entity)>>,
    /// Pairs missing from and extra to the truth, over all checked frames,
    /// and the largest distance from touching among them.
    missing: usize,
    extra: usize,
    largest_gap: f64,
}

impl Run {
    fn new(engine: &'static Engine, setup: &SceneSetup) -> Self {
        let mut app = base_app(setup.arena);
        (engine.setup)(&mut app);
        // What `App::run` would do before the first update.
        app.finish();
        app.cleanup();
        let world = app.world_mut();
        let spawned = (engine.spawn)(world, &setup.bodies);
        let (mut entities, mut shapes) = (Vec::new(), Vec::new());
        let (mut statics, mut static_shapes) = (Vec::new(), Vec::new());
        let still_here = matches!(engine.variant, Variant::Still | Variant::StillStatic);
        for (k, (&entity, body)) in spawned.iter().zip(&setup.bodies).enumerate() {
            if still_here && setup.still[k] {
                world.entity_mut(entity).remove::<Mover>();
                if engine.variant == Variant::StillStatic {
                    ours::mark_static(world, entity);
                    statics.push(entity);
                    static_shapes.push(body.shape);
                    continue;
                }
            }
            entities.push(entity);
            shapes.push(body.shape);
        }
        let mut spawn_tiles = None;
        if let Some(level) = &setup.level
            && engine.variant != Variant::NoLevel
        {
            let start = Instant::now();
            let tiles = (engine.spawn_tiles)(world, level);
            spawn_tiles = Some(start.elapsed());
            static_shapes.extend(std::iter::repeat_n(level.tile_shape(), tiles.len()));
            statics.extend(tiles);
        }
        Self {
            engine,
            app,
            entities,
            shapes,
            statics,
            static_shapes,
            static_transforms: Vec::new(),
            static_index: None,
            found: HashMap::new(),
            spawn_tiles,
            first_updates: Vec::new(),
            frame_times: Vec::new(),
            cpu: CpuTimes::default(),
            exact_now: 0,
            exact_previous: 0,
            checked: 0,
            last_pairs: 0,
            last_truth: 0,
            previous_truth: None,
            missing: 0,
            extra: 0,
            largest_gap: 0.0,
        }
    }

    /// An untimed update, but the first two are kept (for the spawn times).
    fn warmup_update(&mut self) {
        let start = Instant::now();
        self.app.update();
        if self.first_updates.len() < 2 {
            self.first_updates.push(start.elapsed());
        }
    }

    fn timed_update(&mut self) {
        let cpu_before = CpuTimes::read();
        let start = Instant::now();
        self.app.update();
        self.frame_times.push(start.elapsed());
        self.cpu.add_since(cpu_before);
    }

    /// Reads the static colliders' poses and files them (once: they never
    /// move); a `TilemapCollider`'s are found first.
    fn index_statics(&mut self) {
        let world = self.app.world_mut();
        if self.engine.variant == Variant::Tilemap {
            let tiles = match world.get_resource::<level::PeerMap>() {
                Some(map) => map.0.clone(),
                None => ours::tilemap_tiles(world),
            };
            self.statics = tiles.iter().map(|tile| tile.0).collect();
            self.static_shapes = tiles.iter().map(|tile| tile.1).collect();
            self.static_transforms = tiles.iter().map(|tile| tile.2).collect();
        } else {
            self.static_transforms = (self.statics.iter())
                .map(|&e| *world.get::<GlobalTransform>(e).unwrap())
                .collect();
        }
        self.static_index = Some(truth::StaticIndex::new(
            &self.statics,
            &self.static_shapes,
            &self.static_transforms,
        ));
        self.found = (self.entities.iter().enumerate())
            .map(|(i, &e)| (e, Found::Moving(i)))
            .chain((self.statics.iter().enumerate()).map(|(i, &e)| (e, Found::Static(i))))
            .collect();
    }

    fn check(&mut self) {
        let Some(touching_pairs) = self.engine.touching_pairs else {
            return;
        };
        if self.static_index.is_none() {
            self.index_statics();
        }
        let world = self.app.world_mut();
        let transforms: Vec<GlobalTransform> = self
            .entities
            .iter()
            .map(|&e| *world.get::<GlobalTransform>(e).unwrap())
            .collect();
        let mut truth = truth::exact_pairs(&self.entities, &self.shapes, &transforms);
        (self.static_index.as_ref().unwrap()).pairs_with(
            &self.entities,
            &self.shapes,
            &transforms,
            &mut truth,
        );
        truth.sort_unstable();
        // A body touching two rectangles of one tile map is one pair.
        truth.dedup();
        let mut pairs = touching_pairs(world);
        pairs.sort_unstable();
        self.checked += 1;
        self.exact_now += usize::from(pairs == truth);
        if pairs != truth {
            let explain = std::env::var_os("COMPARE_EXPLAIN").is_some();
            let body = |e: Entity| match self.found.get(&e) {
                Some(&Found::Moving(i)) => (self.shapes[i], transforms[i]),
                Some(&Found::Static(i)) => (self.static_shapes[i], self.static_transforms[i]),
                None => panic!(
                    "{} reported a pair with {e}, not a body of the scene",
                    self.engine.name
                ),
            };
            let mut shown = 0;
            for (label, from, other) in [("missing", &truth, &pairs), ("extra", &pairs, &truth)] {
                for pair in from.iter().filter(|p| other.binary_search(p).is_err()) {
                    let ((shape_a, at_a), (shape_b, at_b)) = (body(pair.0), body(pair.1));
                    let mut gap = truth::gap([shape_a, shape_b], [&at_a, &at_b]);
                    // A tile map is many rectangles: the nearest one counts.
                    let (a, b) = (self.found.get(&pair.0), self.found.get(&pair.1));
                    let mover_and_static = match (a, b) {
                        (Some(Found::Moving(i)), Some(Found::Static(_))) => Some((i, pair.1)),
                        (Some(Found::Static(_)), Some(Found::Moving(i))) => Some((i, pair.0)),
                        _ => None,
                    };
                    if let Some((i, fixed)) = mover_and_static {
                        for (j, _) in (self.statics.iter().enumerate()).filter(|s| *s.1 == fixed) {
                            let shapes = [self.shapes[*i], self.static_shapes[j]];
                            let near =
                                truth::gap(shapes, [&transforms[*i], &self.static_transforms[j]]);
                            if near.abs() < gap.abs() {
                                gap = near;
                            }
                        }
                    }
                    self.largest_gap = self.largest_gap.max(gap.abs());
                    if label == "missing" {
                        self.missing += 1;
                    } else {
                        self.extra += 1;
                    }
                    if explain && shown < 4 {
                        eprintln!(
                            "{} {label} pair ({gap:+.3e} from touching): {shape_a:?} at {at_a:?} / {shape_b:?} at {at_b:?}",
                            self.engine.name
                        );
                    }
                    shown += 1;
                }
            }
        }
        self.exact_previous += usize::from(self.previous_truth.as_ref() == Some(&pairs));
        self.last_pairs = pairs.len();
        self.last_truth = truth.len();
        self.previous_truth = Some(truth);
    }

    fn median_ms(&self) -> f64 {
        let mut times = self.frame_times.clone();
        times.sort_unstable();
        times[times.len() / 2].as_secs_f64() * 1e3
    }

    fn tally(&self) -> EventTally {
        self.app
            .world()
            .get_resource::<EventTally>()
            .copied()
            .unwrap_or_default()
    }
}

fn main() {
    let options = parse_options();
    if let Some(threads) = options.threads {
        // The global task pools are created once per process, by the first
        // app's `TaskPoolPlugin` or here.
        ComputeTaskPool::get_or_init(|| {
            bevy::tasks::TaskPoolBuilder::new()
                .num_threads(threads)
                .thread_name("Compute Task Pool".into())
                .build()
        });
    }

    print_machine();
    if options.game {
        println!("scene: game, seed {}", options.seed);
        game::run(&game::GameOptions {
            frames: options.frames.unwrap_or(240),
            warmup: options.warmup,
            seed: options.seed,
            serial: options.serial,
            floor: options.floor,
            engines: options.engine_words.clone(),
        });
        return;
    }
    let level = options.level.as_ref().map(|l| {
        let start = Instant::now();
        let level = Level::generate(l.cells, l.tiles, l.tile_size, options.seed);
        eprintln!(
            "level generated in {:.0} ms",
            start.elapsed().as_secs_f64() * 1e3
        );
        level
    });
    let scene_name = if level.is_some() {
        "level"
    } else {
        options.scene.name()
    };
    let scene_name = if options.characters {
        "characters"
    } else if options.hills {
        "hills"
    } else if options.queries {
        "queries"
    } else {
        scene_name
    };
    println!("scene: {scene_name}, seed {}", options.seed);
    if let Some(level) = &level {
        println!(
            "level: {0}x{0} cells of side {1}, {2} solid tiles ({3:.1}%), the movers wrap in its square of side {4}",
            level.size,
            level.tile,
            level.solid.len(),
            level.fill() * 100.0,
            level.arena().half_side * 2.0
        );
    }
    if let Some(fraction) = options.static_fraction {
        println!("static fraction: {fraction} of the colliders stand still");
    }
    if options.characters || options.hills {
        let level = level.as_ref().expect("characters run in the level");
        let n = options.counts.as_ref().map_or(1_000, |counts| counts[0]);
        let character_options = characters::CharacterOptions {
            n,
            frames: options.frames.unwrap_or(300),
            warmup: options.warmup,
            seed: options.seed,
            serial: options.serial,
            floor: options.floor,
            engines: options.engine_words.clone(),
        };
        if options.hills {
            // The hills cover the level's square instead of its tiles.
            let hills = hills::Hills::generate(level.arena().half_side, options.seed);
            println!(
                "hills: {} polylines of {} segments in all, across a square of side {}",
                hills.lines.len(),
                hills.segments(),
                2.0 * hills.half_side
            );
            characters::run(&character_options, characters::Ground::Hills(&hills));
        } else {
            characters::run(&character_options, characters::Ground::Tiles(level));
        }
        return;
    }
    if options.queries {
        let level = level.as_ref().expect("queries run in the level");
        let n = options.counts.as_ref().map_or(1_000, |counts| counts[0]);
        let bodies = scene::generate_in(n, options.seed, SceneShapes::CirclesRects, level.arena());
        queries::run(
            &queries::QueryOptions {
                batch: options.batch,
                rounds: options.frames.unwrap_or(30),
                seed: options.seed,
                engines: options.engine_words.clone(),
            },
            level,
            &bodies,
        );
        return;
    }
    let default_counts = if level.is_some() {
        vec![1_000]
    } else {
        vec![1_000, 10_000, 50_000, 100_000]
    };
    let engines: Vec<&'static Engine> = options.engines.clone().unwrap_or_else(|| {
        (ENGINES.iter())
            .filter(|e| level.is_none() || ![SWEPT, MIXED].contains(&e.name))
            .collect()
    });
    let mut summary = Vec::new();
    let mut level_report = None;
    for &n in options.counts.as_ref().unwrap_or(&default_counts) {
        let frames = options.frames.unwrap_or((3_000_000 / n).clamp(30, 300));
        eprintln!(
            "N = {n}, scene {scene_name}: {} warm-up + {frames} timed frames",
            options.warmup
        );
        let arena = level.as_ref().map_or(Arena::for_count(n), Level::arena);
        let mut still = vec![false; n];
        if let Some(fraction) = options.static_fraction {
            // Its own stream: the bodies are those of the same seed.
            use rand::SeedableRng;
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(options.seed ^ 0x0057_471c);
            let count = (n as f64 * fraction).round() as usize;
            for k in rand::seq::index::sample(&mut rng, n, count) {
                still[k] = true;
            }
        }
        let setup = SceneSetup {
            bodies: scene::generate_in(n, options.seed, options.scene, arena),
            arena,
            still,
            level: level.clone(),
        };
        let applies = |e: &&&'static Engine| {
            e.variant
                .applies(setup.level.is_some(), options.static_fraction.is_some())
        };
        let chosen: Vec<&'static Engine> = engines.iter().filter(applies).copied().collect();
        // The baselines the chosen engines subtract.
        let mut runs: Vec<Run> = (BASELINES.iter())
            .filter(|b| chosen.iter().any(|e| e.variant.baseline() == b.variant))
            .chain(chosen.iter().copied())
            .map(|engine| {
                let start = Instant::now();
                let run = Run::new(engine, &setup);
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
                run.warmup_update();
            }
        }
        for frame in 0..frames {
            // Rotate the order so no app always runs right after another.
            let count = runs.len();
            for k in 0..count {
                runs[(frame + k) % count].timed_update();
            }
            if options.check {
                for run in &mut runs {
                    run.check();
                }
            }
        }
        let baseline_ms = |variant: Variant| {
            (runs.iter())
                .find(|r| r.engine.touching_pairs.is_none() && r.engine.variant == variant)
                .map(Run::median_ms)
        };
        let cost = |run: &Run| {
            (run.engine.touching_pairs.is_some())
                .then(|| baseline_ms(run.engine.variant.baseline()))
                .flatten()
                .map(|b| run.median_ms() - b)
        };
        let ours_cost = runs.iter().find(|r| r.engine.name == OURS).and_then(&cost);
        for run in &runs {
            print_stages(n, run);
            print_mismatches(n, run);
            summary.push(Row::new(n, run, cost(run), ours_cost, options.check));
        }
        print_swept_cost(n, &summary);
        if options.static_fraction.is_some() {
            print_static_gain(n, &summary);
        }
        if let Some(level) = &setup.level {
            level_report = Some(level_summary(n, level, &mut runs, &summary));
        }
    }
    print_table(&summary);
    if let Some(report) = level_report {
        println!("{report}");
    }
}

struct Row {
    n: usize,
    engine: &'static str,
    frame_ms: f64,
    cost_ms: Option<f64>,
    ratio: Option<f64>,
    pairs: Option<usize>,
    events_open: Option<i64>,
    truth: Option<usize>,
    exact: Option<String>,
    steal_percent: Option<f64>,
}

impl Row {
    /// `cost_ms`: the run's frame minus its baseline's (`None` for a
    /// baseline).
    fn new(n: usize, run: &Run, cost_ms: Option<f64>, ours_cost: Option<f64>, check: bool) -> Self {
        let detects = run.engine.touching_pairs.is_some();
        let frame_ms = run.median_ms();
        let tally = run.tally();
        Self {
            n,
            engine: run.engine.name,
            frame_ms,
            cost_ms,
            ratio: cost_ms.zip(ours_cost).map(|(cost, ours)| cost / ours),
            pairs: (detects && check).then_some(run.last_pairs),
            events_open: detects.then_some(tally.started as i64 - tally.ended as i64),
            truth: (detects && check).then_some(run.last_truth),
            exact: (detects && check).then(|| {
                format!(
                    "{}/{} now, {}/{} prev",
                    run.exact_now, run.checked, run.exact_previous, run.checked
                )
            }),
            steal_percent: run.cpu.steal_percent(),
        }
    }
}

fn print_table(rows: &[Row]) {
    fn opt<T: std::fmt::Display>(value: Option<T>) -> String {
        value.map_or("-".into(), |v| v.to_string())
    }
    println!(
        "| N | engine | frame ms (median) | collision ms | × bevy_collide2d | pairs at last frame | started − ended | truth | frames with the exact pair set | VM steal |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|---:|---|---:|");
    for row in rows {
        println!(
            "| {} | {} | {:.2} | {} | {} | {} | {} | {} | {} | {} |",
            row.n,
            row.engine,
            row.frame_ms,
            opt(row.cost_ms.map(|c| format!("{c:.2}"))),
            opt(row.ratio.map(|r| format!("{r:.1}"))),
            opt(row.pairs),
            opt(row.events_open),
            opt(row.truth),
            opt(row.exact.clone()),
            opt(row.steal_percent.map(|p| format!("{p:.0}%"))),
        );
    }
}

/// What making every collider `Swept` adds, per collider.
fn print_swept_cost(n: usize, rows: &[Row]) {
    let cost = |name: &str| {
        rows.iter()
            .find(|row| row.n == n && row.engine == name)
            .and_then(|row| row.cost_ms)
    };
    if let (Some(plain), Some(swept)) = (cost("bevy_collide2d"), cost(SWEPT)) {
        println!(
            "N = {n}: Swept adds {:.2} ms per frame, {:.0} ns per collider",
            swept - plain,
            (swept - plain) * 1e6 / n as f64
        );
    }
}

/// What making a share of the colliders `StaticCollider` saves
/// (`--static-fraction`): against the same scene with every collider
/// moving, and against the still ones left plain.
fn print_static_gain(n: usize, rows: &[Row]) {
    let cost = |name: &str| {
        rows.iter()
            .find(|row| row.n == n && row.engine == name)
            .and_then(|row| row.cost_ms)
    };
    if let Some(marked) = cost(STILL_STATIC) {
        let mut line =
            format!("N = {n}: collision ms with the still ones StaticCollider {marked:.2}");
        for (name, what) in [(OURS, "all moving"), (STILL, "still ones plain")] {
            if let Some(other) = cost(name) {
                line += &format!("; {what} {other:.2}: {:.2}x as fast", other / marked);
            }
        }
        println!("{line}");
    }
}

/// The level's figures: the level frame against the no-level one, ours
/// against the faster peer, the spawn times, the merged map's size.
fn level_summary(n: usize, level: &Level, runs: &mut [Run], rows: &[Row]) -> String {
    use std::fmt::Write;
    let row = |name: &str| rows.iter().find(|row| row.n == n && row.engine == name);
    let mut out = String::new();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let _ = writeln!(
        out,
        "\nlevel: {} static tiles, {n} movers",
        level.solid.len()
    );
    if let (Some(with), Some(without)) = (row(OURS), row(NO_LEVEL)) {
        let _ = writeln!(
            out,
            "ours, level vs no level: frame {:.2} / {:.2} ms = {:.2}x (target at most 1.5x); collision {:.2} / {:.2} ms = {:.2}x",
            with.frame_ms,
            without.frame_ms,
            with.frame_ms / without.frame_ms,
            with.cost_ms.unwrap_or(f64::NAN),
            without.cost_ms.unwrap_or(f64::NAN),
            with.cost_ms.unwrap_or(f64::NAN) / without.cost_ms.unwrap_or(f64::NAN),
        );
    }
    if let (Some(with), Some(without)) = (row(TILEMAP), row(NO_LEVEL)) {
        let _ = writeln!(
            out,
            "ours with TilemapCollider, level vs no level: frame {:.2} / {:.2} ms = {:.2}x",
            with.frame_ms,
            without.frame_ms,
            with.frame_ms / without.frame_ms,
        );
    }
    let peers = ["avian2d", "bevy_rapier2d", RAPIER_COLLISION_ONLY]
        .iter()
        .filter_map(|name| row(name))
        .filter_map(|row| row.cost_ms.map(|cost| (row.engine, cost)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let (Some(ours), Some((peer, peer_cost))) = (row(OURS).and_then(|r| r.cost_ms), peers) {
        let _ = writeln!(
            out,
            "collision cost: ours {ours:.2} ms, the faster peer ({peer}) {peer_cost:.2} ms: {:.1}x (target at least 10x)",
            peer_cost / ours
        );
    }
    let compound_peers = [AVIAN_MAP, RAPIER_MAP]
        .iter()
        .filter_map(|name| row(name))
        .filter_map(|row| row.cost_ms.map(|cost| (row.engine, cost)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let (Some(ours), Some((peer, peer_cost))) =
        (row(TILEMAP).and_then(|r| r.cost_ms), compound_peers)
    {
        let _ = writeln!(
            out,
            "the map as one compound: ours {ours:.2} ms, the faster peer ({peer}) {peer_cost:.2} ms: {:.1}x (target at least 12x)",
            peer_cost / ours
        );
    }
    for run in runs.iter_mut() {
        if run.engine.name == TILEMAP {
            let world = run.app.world_mut();
            let rects = ours::tilemap_tiles(world).len();
            let _ = writeln!(
                out,
                "TilemapCollider: {} tiles merged into {rects} rectangles ({:.2} tiles each)",
                level.solid.len(),
                level.solid.len() as f64 / rects as f64
            );
        }
    }
    let _ = writeln!(
        out,
        "\nSpawning the level: the spawn call for the tiles, then the first two updates (the first detection with the level; avian2d skips its first step, whose delta is zero, so its first detection is in update 2), ms:\n"
    );
    let _ = writeln!(
        out,
        "| engine | spawn tiles | update 1 | update 2 | spawn + updates 1–2 | a later frame (median) |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
    for run in runs.iter() {
        let update = |k: usize| run.first_updates.get(k).copied();
        let cell = |d: Option<Duration>| d.map_or("-".to_string(), |d| format!("{:.1}", ms(d)));
        let total = run.spawn_tiles.unwrap_or_default()
            + update(0).unwrap_or_default()
            + update(1).unwrap_or_default();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.1} | {:.2} |",
            run.engine.name,
            cell(run.spawn_tiles),
            cell(update(0)),
            cell(update(1)),
            ms(total),
            run.median_ms()
        );
    }
    out
}

/// How many pairs an engine called differently from the truth over the run,
/// and how far from touching the worst of them was.
fn print_mismatches(n: usize, run: &Run) {
    if run.missing + run.extra > 0 {
        eprintln!(
            "N = {n}: {}: {} missing and {} extra pairs over {} checked frames, at most {:.3e} from touching",
            run.engine.name, run.missing, run.extra, run.checked, run.largest_gap
        );
    }
}

/// Median time of each detection step of ours (`COMPARE_STAGES=1`).
fn print_stages(n: usize, run: &Run) {
    let Some(times) = run.app.world().get_resource::<ours::StageTimes>() else {
        return;
    };
    let medians: Vec<String> = ours::STAGES
        .iter()
        .zip(&times.samples)
        .map(|(name, samples)| {
            let mut samples = samples.clone();
            samples.sort_unstable();
            let median = samples.get(samples.len() / 2).copied().unwrap_or_default();
            format!("{name} {:.2} ms", median.as_secs_f64() * 1e3)
        })
        .collect();
    let candidates = run
        .app
        .world()
        .resource::<bevy_collide2d::internals::BroadPhasePairs>()
        .pairs
        .len();
    let frames = run.app.world().resource::<Time>().elapsed_secs_f64() * 60.0;
    let started_per_frame = run.tally().started as f64 / frames;
    eprintln!(
        "N = {n}: {} stages: {}; {candidates} candidate pairs, {started_per_frame:.0} started per frame",
        run.engine.name,
        medians.join(", ")
    );
}

/// Jiffies of all CPUs from the first line of `/proc/stat`: stolen by the
/// hypervisor, and in all.
#[derive(Clone, Copy, Default)]
struct CpuTimes {
    steal: u64,
    total: u64,
}

impl CpuTimes {
    /// Now; zero where `/proc/stat` cannot be read (not Linux).
    fn read() -> Self {
        let Ok(stat) = std::fs::read_to_string("/proc/stat") else {
            return Self::default();
        };
        // cpu user nice system idle iowait irq softirq steal guest guest_nice;
        // guest time is already counted in user and nice.
        let fields: Vec<u64> = stat
            .lines()
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .skip(1)
            .take(8)
            .filter_map(|field| field.parse().ok())
            .collect();
        Self {
            steal: fields.get(7).copied().unwrap_or(0),
            total: fields.iter().sum(),
        }
    }

    /// Adds the time from `before` to now.
    fn add_since(&mut self, before: Self) {
        let now = Self::read();
        self.steal += now.steal.saturating_sub(before.steal);
        self.total += now.total.saturating_sub(before.total);
    }

    /// Steal as a percentage of all CPU time, if any was counted.
    fn steal_percent(self) -> Option<f64> {
        (self.total > 0).then(|| 100.0 * self.steal as f64 / self.total as f64)
    }
}

fn print_machine() {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    // Build one throwaway app so Bevy's default pools exist before reading them.
    App::new().add_plugins(TaskPoolPlugin::default()).finish();
    println!(
        "machine: {cpu}, {cores} hardware threads; compute task pool: {} threads (+ the main thread)",
        ComputeTaskPool::get().thread_num()
    );
}
