//! `--scene characters`: N capsule characters (default 1,000) run, fall and
//! jump through the `--scene level` tile map, moved every frame by each
//! engine's character controller. `--scene hills`: the same on bands of
//! polyline hills (`hills.rs`) instead of tiles, each line one static
//! collider of the engine's own polyline shape (ours `Collider::polyline`
//! with `StaticCollider`, avian2d `Collider::polyline` on
//! `RigidBody::Static`, bevy_rapier2d `Collider::polyline` on
//! `RigidBody::Fixed`); the check is then the capsule's distance to the
//! lines.
//!
//! - bevy_collide2d: `SpatialQuery::move_and_slide` in an `Update` system;
//!   the tiles are `Collider::rect` + `StaticCollider`, the characters
//!   colliders too (detection runs in `PostUpdate` as always and is timed
//!   with the rest).
//! - bevy_rapier2d 0.37: `KinematicCharacterController` on
//!   `RigidBody::KinematicPositionBased` entities, moved by the plugin's own
//!   `update_character_controls` (in `PostUpdate`, `PhysicsSet::SyncBackend`)
//!   and stepped like the detection peer (`rapier.rs`: fixed 1/60 step, no
//!   writeback, zero gravity); the tiles `RigidBody::Fixed` cuboids.
//! - avian2d 0.8: its `MoveAndSlide` system parameter in an `Update`
//!   system, the characters `RigidBody::Kinematic` with
//!   `CustomPositionIntegration` (what its docs advise for `MoveAndSlide`),
//!   the tiles `RigidBody::Static`; stepped like the detection peer
//!   (`avian.rs`).
//! - a baseline: the same tiles as bare `Transform`s and the same game logic
//!   moving the characters freely (they fall through everything).
//!
//! The game logic is the same for all (`Character::motion`): a seeded run
//! speed of 30 to 90 units/s that flips every 1 to 4 s (and at the map's
//! sides), gravity 600 units/s² down to 600 units/s, a jump of 200 units/s
//! every 0.5 to 2 s when grounded, the fall speed zeroed while grounded.
//! The characters do not block each other in any engine (layers for ours
//! and avian2d, `QueryFilterFlags::EXCLUDE_KINEMATIC` for rapier). The same
//! options everywhere: skin / offset 0.1, maximum slope 45°, no autostep,
//! no snapping to the ground; everything else each engine's default.
//!
//! Every engine's frame is timed whole, in rotating order, and its cost is
//! its median frame minus the baseline's. After every frame the runner
//! checks each character against the tiles around it (exact capsule-box
//! distance, both axis-aligned): how many end a frame more than
//! `OVERLAP_TOLERANCE` inside a tile, how deep the worst, how many are
//! grounded, how far they ran.

use std::time::{Duration, Instant};

use bevy::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod floor;

use crate::hills::Hills;
use crate::level::Level;
use crate::scene::{Arena, base_app};

/// What the characters run through: the level's tiles (`--scene
/// characters`) or polyline hills (`--scene hills`).
#[derive(Clone, Copy)]
pub enum Ground<'a> {
    Tiles(&'a Level),
    Hills(&'a Hills),
}

impl Ground<'_> {
    fn arena(&self) -> Arena {
        match self {
            Ground::Tiles(level) => level.arena(),
            Ground::Hills(hills) => hills.arena(),
        }
    }
}

/// The characters' capsule: radius, and half the length between the cap
/// centres (6 wide, 10 tall; tiles are 8).
pub const RADIUS: f32 = 3.0;
pub const HALF_LENGTH: f32 = 2.0;
/// The gap every controller keeps (ours `skin`, avian2d `skin_width`,
/// rapier `offset`).
pub const SKIN: f32 = 0.1;
pub const MAX_SLOPE: f32 = std::f32::consts::FRAC_PI_4;
const GRAVITY: f32 = 600.0;
const MAX_FALL: f32 = 600.0;
const JUMP_SPEED: f32 = 200.0;
/// Deeper than this inside a tile counts as an overlap.
pub const OVERLAP_TOLERANCE: f32 = 0.01;

/// Layers of ours and avian2d: tiles on the first layer (the default
/// membership), characters on the second, seeing only the first.
const TILE_BIT: u32 = 0b01;
const CHARACTER_BIT: u32 = 0b10;

/// One character's game state, the same in every engine.
#[derive(Component, Clone, Debug)]
pub struct Character {
    /// Signed horizontal speed.
    run_speed: f32,
    flip_every: u32,
    jump_every: u32,
    velocity: Vec2,
    pub grounded: bool,
    frame: u32,
}

impl Character {
    /// This frame's wanted motion, from last frame's `grounded`.
    fn motion(&mut self, x: f32, half_side: f32, dt: f32) -> Vec2 {
        self.frame += 1;
        if self.frame.is_multiple_of(self.flip_every) {
            self.run_speed = -self.run_speed;
        }
        // Turn back at the map's sides (it has no walls there).
        let margin = 16.0;
        if (x < -half_side + margin && self.run_speed < 0.0)
            || (x > half_side - margin && self.run_speed > 0.0)
        {
            self.run_speed = -self.run_speed;
        }
        if self.grounded {
            self.velocity.y = self.velocity.y.max(0.0);
            if self.frame.is_multiple_of(self.jump_every) {
                self.velocity.y = JUMP_SPEED;
            }
        }
        self.velocity.y = (self.velocity.y - GRAVITY * dt).max(-MAX_FALL);
        self.velocity.x = self.run_speed;
        self.velocity * dt
    }
}

/// Where the characters start and their seeded game state: in the tiles,
/// each in two empty cells, one above the other; on the hills, just above a
/// line.
pub fn generate(ground: Ground, n: usize, seed: u64) -> Vec<(Vec2, Character)> {
    let mut rng = rng(seed);
    let starts = match ground {
        Ground::Tiles(level) => tile_starts(level, n, &mut rng, 1),
        Ground::Hills(hills) => hills.starts(n, &mut rng, RADIUS + HALF_LENGTH),
    };
    with_states(starts, &mut rng)
}

/// The characters' random stream of a seed.
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed ^ 0xc4a2_ac7e)
}

/// A seeded game state for a character at each of `starts`.
pub fn with_states(starts: Vec<Vec2>, rng: &mut ChaCha8Rng) -> Vec<(Vec2, Character)> {
    starts
        .into_iter()
        .map(|position| {
            let speed =
                rng.random_range(30.0..=90.0) * if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            let character = Character {
                run_speed: speed,
                flip_every: rng.random_range(60..=240),
                jump_every: rng.random_range(30..=120),
                velocity: Vec2::ZERO,
                grounded: false,
                frame: 0,
            };
            (position, character)
        })
        .collect()
}

/// `n` places in the tiles, each in two empty cells one above the other,
/// the lower one in row `min_row` or above.
pub fn tile_starts(level: &Level, n: usize, rng: &mut ChaCha8Rng, min_row: usize) -> Vec<Vec2> {
    let size = level.size as usize;
    let solid = solid_bitmap(level);
    let mut taken = vec![false; size * size];
    let mut out = Vec::with_capacity(n);
    let mut tries = 0;
    while out.len() < n {
        tries += 1;
        assert!(tries < 100 * n + 10_000, "no room for {n} characters");
        let col = rng.random_range(2..size - 2);
        let row = rng.random_range(min_row.max(1)..size - 2);
        let (low, high) = (row * size + col, (row + 1) * size + col);
        if solid[low] || solid[high] || taken[low] || taken[high] {
            continue;
        }
        taken[low] = true;
        taken[high] = true;
        // Centred on the column, on the line between the two cells.
        out.push(
            level.origin()
                + Vec2::new(
                    (col as f32 + 0.5) * level.tile,
                    (row + 1) as f32 * level.tile,
                ),
        );
    }
    out
}

/// Whether each cell is solid, row by row from the bottom.
pub fn solid_bitmap(level: &Level) -> Vec<bool> {
    let size = level.size as usize;
    let mut solid = vec![false; size * size];
    for cell in &level.solid {
        solid[cell.y as usize * size + cell.x as usize] = true;
    }
    solid
}

/// The map's half side, for the game logic.
#[derive(Resource, Clone, Copy)]
pub struct HalfSide(f32);

/// Whether the `Update` systems of ours and avian2d iterate the characters
/// in parallel (`par_iter_mut`, the default) or one by one (`--serial`).
#[derive(Resource, Clone, Copy)]
pub struct Parallel(bool);

/// Time spent in the character-moving `Update` system (ours, avian2d), or
/// from before rapier's `SyncBackend` set to after its
/// `update_character_controls`.
#[derive(Resource, Default)]
pub struct MoveTimes(pub Vec<Duration>);

/// What the controllers' systems read: the map's half side (the game
/// logic turns back at its sides), whether to move the characters in
/// parallel, and where to put the move systems' times.
pub fn insert_resources(app: &mut App, half_side: f32, parallel: bool) {
    app.insert_resource(HalfSide(half_side))
        .insert_resource(Parallel(parallel))
        .init_resource::<MoveTimes>();
}

/// How one app is built.
pub struct CharacterEngine {
    pub name: &'static str,
    pub setup: fn(&mut App),
    spawn_tiles: fn(&mut World, &Level),
    /// Each line of the hills as one static collider.
    pub spawn_hills: fn(&mut World, &Hills) -> Vec<Entity>,
    pub spawn_character: fn(&mut World, Vec2, Character) -> Entity,
    /// `false`: the baseline, whose cost is subtracted.
    moves: bool,
}

pub const ENGINES: [CharacterEngine; 4] = [
    CharacterEngine {
        name: "baseline",
        setup: |app| {
            app.add_systems(Update, move_free);
        },
        spawn_tiles: |world, level| {
            crate::level::spawn_plain_tiles(world, level);
        },
        spawn_hills: |world, hills| {
            (world.spawn_batch(hills.lines.iter().map(|_| Transform::default()))).collect()
        },
        spawn_character: |world, at, character| {
            world
                .spawn((Transform::from_translation(at.extend(0.0)), character))
                .id()
        },
        moves: false,
    },
    CharacterEngine {
        name: "bevy_collide2d",
        setup: ours::setup,
        spawn_tiles: |world, level| {
            crate::ours::spawn_tiles(world, level);
        },
        spawn_hills: ours::spawn_hills,
        spawn_character: ours::spawn_character,
        moves: true,
    },
    CharacterEngine {
        name: "avian2d",
        setup: avian::setup,
        spawn_tiles: |world, level| {
            crate::avian::spawn_tiles(world, level);
        },
        spawn_hills: avian::spawn_hills,
        spawn_character: avian::spawn_character,
        moves: true,
    },
    CharacterEngine {
        name: "bevy_rapier2d",
        setup: rapier::setup,
        spawn_tiles: |world, level| {
            crate::rapier::spawn_tiles(world, level);
        },
        spawn_hills: rapier::spawn_hills,
        spawn_character: rapier::spawn_character,
        moves: true,
    },
];

/// The baseline's characters: the game logic with nothing in the way.
pub fn move_free(
    time: Res<Time>,
    half: Res<HalfSide>,
    mut characters: Query<(&mut Transform, &mut Character)>,
) {
    let dt = time.delta_secs();
    for (mut transform, mut character) in &mut characters {
        let motion = character.motion(transform.translation.x, half.0, dt);
        transform.translation += motion.extend(0.0);
    }
}

pub mod ours {
    use super::*;
    use bevy_collide2d::prelude::*;

    pub fn setup(app: &mut App) {
        crate::ours::setup(app);
        add_controller(app);
    }

    /// The `Update` system moving the characters by `move_and_slide`.
    pub fn add_controller(app: &mut App) {
        app.add_systems(Update, move_characters);
    }

    pub fn spawn_hills(world: &mut World, hills: &Hills) -> Vec<Entity> {
        (hills.lines.iter())
            .map(|line| {
                let collider = Collider::polyline(line).expect("a line of distinct points");
                world
                    .spawn((Transform::default(), collider, StaticCollider))
                    .id()
            })
            .collect()
    }

    pub fn spawn_character(world: &mut World, at: Vec2, character: Character) -> Entity {
        world
            .spawn((
                Transform::from_translation(at.extend(0.0)),
                Collider::capsule(RADIUS, 2.0 * HALF_LENGTH),
                CollisionLayers::new(CHARACTER_BIT, TILE_BIT),
                character,
            ))
            .id()
    }

    fn move_characters(
        time: Res<Time>,
        half: Res<HalfSide>,
        parallel: Res<Parallel>,
        mut times: ResMut<MoveTimes>,
        spatial: SpatialQuery,
        mut characters: Query<(&Collider, &mut Transform, &mut Character)>,
    ) {
        let start = Instant::now();
        let dt = time.delta_secs();
        let config = MoveAndSlideConfig {
            skin: SKIN,
            max_slope: MAX_SLOPE,
            step_height: 0.0,
            snap_to_ground: 0.0,
            ..default()
        };
        // The characters' own layers: only the tiles.
        let filter =
            QueryFilter::default().with_layers(CollisionLayers::new(CHARACTER_BIT, TILE_BIT));
        let step = |(collider, mut transform, mut character): (
            &Collider,
            Mut<Transform>,
            Mut<Character>,
        )| {
            let at = transform.translation.truncate();
            let motion = character.motion(at.x, half.0, dt);
            let pose = Isometry2d::from_translation(at);
            let out = spatial.move_and_slide(collider, pose, motion, &config, &filter);
            transform.translation = out.translation.extend(0.0);
            character.grounded = out.grounded;
        };
        if parallel.0 {
            characters.par_iter_mut().for_each(step);
        } else {
            characters.iter_mut().for_each(step);
        }
        times.0.push(start.elapsed());
    }
}

pub mod avian {
    use super::*;
    use avian2d::prelude::*;

    pub fn setup(app: &mut App) {
        crate::avian::setup(app);
        add_controller(app);
    }

    /// The `Update` system moving the characters by `MoveAndSlide`.
    pub fn add_controller(app: &mut App) {
        app.add_systems(Update, move_characters);
    }

    pub fn spawn_hills(world: &mut World, hills: &Hills) -> Vec<Entity> {
        (hills.lines.iter())
            .map(|line| {
                let collider = Collider::polyline(line.clone(), None);
                world
                    .spawn((Transform::default(), RigidBody::Static, collider))
                    .id()
            })
            .collect()
    }

    pub fn spawn_character(world: &mut World, at: Vec2, character: Character) -> Entity {
        world
            .spawn((
                Transform::from_translation(at.extend(0.0)),
                RigidBody::Kinematic,
                CustomPositionIntegration,
                Collider::capsule(RADIUS, 2.0 * HALF_LENGTH),
                CollisionLayers::new(CHARACTER_BIT, TILE_BIT),
                character,
            ))
            .id()
    }

    fn move_characters(
        time: Res<Time>,
        half: Res<HalfSide>,
        parallel: Res<Parallel>,
        mut times: ResMut<MoveTimes>,
        move_and_slide: MoveAndSlide,
        mut characters: Query<(&Collider, &mut Transform, &mut Character)>,
    ) {
        let start = Instant::now();
        let dt = time.delta_secs();
        let delta = time.delta();
        let config = MoveAndSlideConfig {
            skin_width: SKIN,
            ..default()
        };
        let filter = SpatialQueryFilter::from_mask(TILE_BIT);
        let min_ground_up = MAX_SLOPE.cos() - 1e-5;
        let step = |(collider, mut transform, mut character): (
            &Collider,
            Mut<Transform>,
            Mut<Character>,
        )| {
            let at = transform.translation.truncate();
            let motion = character.motion(at.x, half.0, dt);
            // avian2d takes a velocity and a duration.
            let velocity = if dt > 0.0 { motion / dt } else { Vec2::ZERO };
            let mut grounded = false;
            let out = move_and_slide.move_and_slide(
                collider,
                at,
                Rot2::IDENTITY,
                velocity,
                delta,
                &config,
                &filter,
                |hit| {
                    grounded |= hit.normal.y >= min_ground_up;
                    MoveAndSlideHitResponse::Accept
                },
            );
            transform.translation = out.position.extend(0.0);
            character.grounded = grounded;
        };
        if parallel.0 {
            characters.par_iter_mut().for_each(step);
        } else {
            characters.iter_mut().for_each(step);
        }
        times.0.push(start.elapsed());
    }
}

pub mod rapier {
    use super::*;
    use bevy_rapier2d::prelude::*;

    pub fn setup(app: &mut App) {
        crate::rapier::setup(app);
        add_controller(app);
    }

    /// The game logic setting each `KinematicCharacterController`'s
    /// translation, the grounded flag read back, and the controller timed.
    pub fn add_controller(app: &mut App) {
        app.init_resource::<KccStart>()
            .add_systems(Update, set_translations)
            .add_systems(
                PostUpdate,
                (
                    read_grounded
                        .after(PhysicsSet::SyncBackend)
                        .before(PhysicsSet::StepSimulation),
                    // Around the plugin's character system (the first
                    // system of its set is a cheap configuration check).
                    kcc_start.before(PhysicsSet::SyncBackend),
                    kcc_end
                        .after(bevy_rapier2d::plugin::systems::update_character_controls)
                        .before(PhysicsSet::StepSimulation),
                ),
            );
    }

    #[derive(Resource, Default)]
    struct KccStart(Option<Instant>);

    fn kcc_start(mut start: ResMut<KccStart>) {
        start.0 = Some(Instant::now());
    }

    fn kcc_end(start: Res<KccStart>, mut times: ResMut<MoveTimes>) {
        if let Some(start) = start.0 {
            times.0.push(start.elapsed());
        }
    }

    pub fn spawn_hills(world: &mut World, hills: &Hills) -> Vec<Entity> {
        (hills.lines.iter())
            .map(|line| {
                let collider = Collider::polyline(line.clone(), None);
                world
                    .spawn((Transform::default(), RigidBody::Fixed, collider))
                    .id()
            })
            .collect()
    }

    pub fn spawn_character(world: &mut World, at: Vec2, character: Character) -> Entity {
        world
            .spawn((
                Transform::from_translation(at.extend(0.0)),
                RigidBody::KinematicPositionBased,
                Collider::capsule_y(HALF_LENGTH, RADIUS),
                KinematicCharacterController {
                    offset: CharacterLength::Absolute(SKIN),
                    max_slope_climb_angle: MAX_SLOPE,
                    min_slope_slide_angle: MAX_SLOPE,
                    autostep: None,
                    snap_to_ground: None,
                    // No dynamic bodies to push.
                    apply_impulse_to_dynamic_bodies: false,
                    // The default (sensors out), and the other characters out
                    // (0.37's `exclude_*` sets and `filter_predicate` stay empty).
                    filter_flags: QueryFilterFlags::EXCLUDE_SENSORS
                        | QueryFilterFlags::EXCLUDE_KINEMATIC,
                    ..default()
                },
                character,
            ))
            .id()
    }

    /// The game logic: the wanted translation, which the plugin's
    /// `update_character_controls` applies in `PostUpdate`.
    fn set_translations(
        time: Res<Time>,
        half: Res<HalfSide>,
        mut characters: Query<(
            &Transform,
            &mut KinematicCharacterController,
            &mut Character,
        )>,
    ) {
        let dt = time.delta_secs();
        for (transform, mut controller, mut character) in &mut characters {
            let motion = character.motion(transform.translation.x, half.0, dt);
            controller.translation = Some(motion);
        }
    }

    fn read_grounded(mut characters: Query<(&KinematicCharacterControllerOutput, &mut Character)>) {
        for (output, mut character) in &mut characters {
            character.grounded = output.grounded;
        }
    }
}

/// What the runner asks of the characters scene.
pub struct CharacterOptions {
    pub n: usize,
    pub frames: usize,
    pub warmup: usize,
    pub seed: u64,
    pub serial: bool,
    /// Also run the floor model (`floor.rs`) after the engines.
    pub floor: bool,
    /// Words picking engines by name (`None`: all); the baseline always runs.
    pub engines: Option<Vec<String>>,
}

struct CharacterRun {
    engine: &'static CharacterEngine,
    app: App,
    frame_times: Vec<Duration>,
    cpu: crate::CpuTimes,
    /// Character-frames more than the tolerance inside a tile, and the
    /// deepest.
    overlaps: usize,
    characters_ever_overlapping: std::collections::HashSet<Entity>,
    deepest: f32,
    grounded: usize,
    checked: usize,
    /// Summed |Δx| of all characters over the timed frames.
    ran: f64,
    last: Vec<(Entity, Vec2)>,
}

impl CharacterRun {
    fn new(
        engine: &'static CharacterEngine,
        ground: Ground,
        characters: &[(Vec2, Character)],
        parallel: bool,
    ) -> Self {
        let mut app = base_app(ground.arena());
        insert_resources(&mut app, ground.arena().half_side, parallel);
        (engine.setup)(&mut app);
        app.finish();
        app.cleanup();
        let world = app.world_mut();
        match ground {
            Ground::Tiles(level) => (engine.spawn_tiles)(world, level),
            Ground::Hills(hills) => {
                (engine.spawn_hills)(world, hills);
            }
        }
        for (at, character) in characters {
            (engine.spawn_character)(world, *at, character.clone());
        }
        Self {
            engine,
            app,
            frame_times: Vec::new(),
            cpu: crate::CpuTimes::default(),
            overlaps: 0,
            characters_ever_overlapping: Default::default(),
            deepest: 0.0,
            grounded: 0,
            checked: 0,
            ran: 0.0,
            last: Vec::new(),
        }
    }

    fn timed_update(&mut self) {
        let cpu_before = crate::CpuTimes::read();
        let start = Instant::now();
        self.app.update();
        self.frame_times.push(start.elapsed());
        self.cpu.add_since(cpu_before);
    }

    fn positions(&mut self) -> Vec<(Entity, Vec2, bool)> {
        let world = self.app.world_mut();
        let mut query = world.query::<(Entity, &Transform, &Character)>();
        let mut out: Vec<_> = query
            .iter(world)
            .map(|(e, t, c)| (e, t.translation.truncate(), c.grounded))
            .collect();
        out.sort_unstable_by_key(|p| p.0);
        out
    }

    /// Overlaps with the ground, grounded count, distance run.
    fn check(&mut self, ground: Ground, solid: &[bool]) {
        let positions = self.positions();
        if self.engine.moves {
            for &(entity, at, grounded) in &positions {
                let depth = match ground {
                    Ground::Tiles(level) => deepest_overlap(level, solid, at),
                    Ground::Hills(hills) => hills.deepest_overlap(at, RADIUS, HALF_LENGTH),
                };
                if depth > OVERLAP_TOLERANCE {
                    self.overlaps += 1;
                    self.characters_ever_overlapping.insert(entity);
                }
                self.deepest = self.deepest.max(depth);
                self.grounded += usize::from(grounded);
            }
        }
        if self.last.len() == positions.len() {
            for ((_, before), &(_, now, _)) in self.last.iter().zip(&positions) {
                self.ran += f64::from((now.x - before.x).abs());
            }
        }
        self.checked += 1;
        self.last = positions.iter().map(|&(e, at, _)| (e, at)).collect();
    }

    fn median_ms(&self) -> f64 {
        median_ms(&self.frame_times)
    }
}

pub fn median_ms(times: &[Duration]) -> f64 {
    let mut times = times.to_vec();
    times.sort_unstable();
    times
        .get(times.len() / 2)
        .map_or(f64::NAN, |t| t.as_secs_f64() * 1e3)
}

/// How deep the upright capsule centred at `at` is inside the solid tiles
/// around it (0 when outside all; at least the radius when its segment
/// enters a tile).
pub fn deepest_overlap(level: &Level, solid: &[bool], at: Vec2) -> f32 {
    let size = level.size as i64;
    let local = at - level.origin();
    let reach = Vec2::new(RADIUS, RADIUS + HALF_LENGTH);
    let low = ((local - reach) / level.tile).floor();
    let high = ((local + reach) / level.tile).floor();
    let mut deepest: f32 = 0.0;
    for row in (low.y as i64).max(0)..=(high.y as i64).min(size - 1) {
        for col in (low.x as i64).max(0)..=(high.x as i64).min(size - 1) {
            if !solid[(row * size + col) as usize] {
                continue;
            }
            let min = Vec2::new(col as f32, row as f32) * level.tile;
            let max = min + level.tile;
            // The distance between the vertical segment and the box.
            let dx = (min.x - local.x).max(local.x - max.x).max(0.0);
            let dy = (min.y - (local.y + HALF_LENGTH))
                .max((local.y - HALF_LENGTH) - max.y)
                .max(0.0);
            let distance = (dx * dx + dy * dy).sqrt();
            deepest = deepest.max(RADIUS - distance);
        }
    }
    deepest
}

pub fn run(options: &CharacterOptions, ground: Ground) {
    let characters = generate(ground, options.n, options.seed);
    let solid = match ground {
        Ground::Tiles(level) => solid_bitmap(level),
        Ground::Hills(_) => Vec::new(),
    };
    let chosen: Vec<&'static CharacterEngine> = ENGINES
        .iter()
        .filter(|e| {
            !e.moves
                || options.engines.as_ref().is_none_or(|words| {
                    words.iter().any(|w| {
                        e.name.contains(w.as_str()) || (w == "ours" && e.name == "bevy_collide2d")
                    })
                })
        })
        .collect();
    println!(
        "characters: {} capsules (radius {RADIUS}, length {} between the cap centres), skin {SKIN}, {} user systems; {} warm-up + {} timed frames",
        options.n,
        2.0 * HALF_LENGTH,
        if options.serial { "serial" } else { "parallel" },
        options.warmup,
        options.frames
    );
    let mut runs: Vec<CharacterRun> = chosen
        .iter()
        .map(|engine| {
            let start = Instant::now();
            let run = CharacterRun::new(engine, ground, &characters, !options.serial);
            eprintln!(
                "{}: built and spawned in {:.0} ms",
                engine.name,
                start.elapsed().as_secs_f64() * 1e3
            );
            run
        })
        .collect();
    // The floor model takes its turn in the rotation, so that it meets the
    // caches as the engines leave them.
    let mut floor = options
        .floor
        .then(|| floor::Floor::new(ground, &characters));
    for _ in 0..options.warmup {
        for run in &mut runs {
            run.app.update();
        }
        if let Some(floor) = &mut floor {
            floor.frame(false);
        }
    }
    for run in &mut runs {
        run.last.clear();
        run.app.world_mut().resource_mut::<MoveTimes>().0.clear();
    }
    for frame in 0..options.frames {
        let count = runs.len() + usize::from(floor.is_some());
        for k in 0..count {
            match runs.get_mut((frame + k) % count) {
                Some(run) => run.timed_update(),
                None => floor.as_mut().unwrap().frame(true),
            }
        }
        for run in &mut runs {
            run.check(ground, &solid);
        }
    }
    let baseline = runs
        .iter()
        .find(|r| !r.engine.moves)
        .map(CharacterRun::median_ms)
        .unwrap_or(0.0);
    let cost = |run: &CharacterRun| run.median_ms() - baseline;
    let ours = runs
        .iter()
        .find(|r| r.engine.name == "bevy_collide2d")
        .map(&cost);
    println!(
        "\n| engine | frame ms (median) | character ms (frame − baseline) | × bevy_collide2d | move system ms | character-frames inside the ground > {OVERLAP_TOLERANCE} | characters ever inside | deepest | grounded (mean of {}) | ran (units/character/s) | VM steal |",
        options.n
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for run in &runs {
        let frames = run.checked.max(1) as f64;
        let seconds = run.checked.saturating_sub(1).max(1) as f64 / 60.0;
        let move_ms = median_ms(&run.app.world().resource::<MoveTimes>().0);
        let c = cost(run);
        println!(
            "| {} | {:.2} | {} | {} | {} | {} | {} | {} | {} | {:.1} | {} |",
            run.engine.name,
            run.median_ms(),
            if run.engine.moves {
                format!("{c:.2}")
            } else {
                "-".into()
            },
            match (run.engine.moves, ours) {
                (true, Some(ours)) => format!("{:.1}", c / ours),
                _ => "-".into(),
            },
            if move_ms.is_nan() {
                "-".into()
            } else {
                format!("{move_ms:.2}")
            },
            if run.engine.moves {
                run.overlaps.to_string()
            } else {
                "-".into()
            },
            if run.engine.moves {
                run.characters_ever_overlapping.len().to_string()
            } else {
                "-".into()
            },
            if run.engine.moves {
                format!("{:.3}", run.deepest)
            } else {
                "-".into()
            },
            if run.engine.moves {
                format!("{:.0}", run.grounded as f64 / frames)
            } else {
                "-".into()
            },
            run.ran / options.n as f64 / seconds,
            run.cpu
                .steal_percent()
                .map_or("-".into(), |p| format!("{p:.0}%")),
        );
    }
    for run in &runs {
        if let Some(times) = run.app.world().get_resource::<crate::ours::StageTimes>() {
            let medians: Vec<String> = (crate::ours::STAGES.iter().zip(&times.samples))
                .map(|(name, samples)| format!("{name} {:.2} ms", median_ms(samples)))
                .collect();
            println!(
                "{} detection stages (median): {}",
                run.engine.name,
                medians.join(", ")
            );
        }
    }
    if let Some(floor) = &floor {
        let floor = floor.result();
        println!(
            "floor (one thread, no ECS, `characters/floor.rs`, in the same rotation): {:.2} ms per frame (lookups {:.2}, casts {:.2}, detection {:.2}); grounded {:.0} of {}, ran {:.1} units/character/s, {} character-frames inside the ground > {OVERLAP_TOLERANCE}",
            floor.frame_ms,
            floor.lookups_ms,
            floor.casts_ms,
            floor.detection_ms,
            floor.grounded_mean,
            options.n,
            floor.ran_per_second,
            floor.overlapping,
        );
    }
    if let Some(ours) = ours {
        for run in runs
            .iter()
            .filter(|r| r.engine.moves && r.engine.name != "bevy_collide2d")
        {
            println!(
                "{}: {:.2} ms per frame moving {} characters, ours {ours:.2} ms: ours takes {:.1}x less time (targets: at least 5x through the tiles, 6x on the hills)",
                run.engine.name,
                cost(run),
                options.n,
                cost(run) / ours
            );
        }
    }
}
