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
//!                                 which engines (default: all; `swept` is
//!                                 ours with every collider `Swept`, `mixed`
//!                                 ours with one in a hundred `Swept`)
//!   --threads T                   compute task pool threads (default: Bevy's)
//!   --no-check                    skip the per-frame pair check against the truth
//!   --seed S                      scene seed (default 1)
//!   --scene circles-rects|five-shapes
//!                                 the colliders' shapes (default
//!                                 circles-rects: half circles, half
//!                                 rectangles; five-shapes: circles,
//!                                 rectangles, capsules, segments and convex
//!                                 polygons, a fifth each; same sizes and
//!                                 motion, see `scene.rs`)
//! ```
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
mod ours;
mod rapier;
mod scene;
mod truth;

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;

use scene::{Body, BodyShape, EventTally, SceneShapes, base_app, body_bundle, generate_scene};

/// Reads the pairs an engine reports as touching, each `(lower, higher)`.
type TouchingPairs = fn(&mut World) -> Vec<(Entity, Entity)>;

/// How one kind of app is built and asked for its pairs.
struct Engine {
    name: &'static str,
    setup: fn(&mut App),
    spawn: fn(&mut World, &[Body]) -> Vec<Entity>,
    /// `None` for the baseline, which detects nothing.
    touching_pairs: Option<TouchingPairs>,
}

const BASELINE: Engine = Engine {
    name: "baseline",
    setup: |_| {},
    spawn: |world, bodies| world.spawn_batch(bodies.iter().map(body_bundle)).collect(),
    touching_pairs: None,
};

const ENGINES: [Engine; 5] = [
    Engine {
        name: "bevy_collide2d",
        setup: ours::setup,
        spawn: ours::spawn,
        touching_pairs: Some(ours::touching_pairs),
    },
    Engine {
        name: SWEPT,
        setup: ours::setup_swept,
        spawn: ours::spawn_swept,
        touching_pairs: Some(ours::touching_pairs),
    },
    Engine {
        name: MIXED,
        setup: ours::setup_swept,
        spawn: ours::spawn_mixed,
        touching_pairs: Some(ours::touching_pairs),
    },
    Engine {
        name: "avian2d",
        setup: avian::setup,
        spawn: avian::spawn,
        touching_pairs: Some(avian::touching_pairs),
    },
    Engine {
        name: "bevy_rapier2d",
        setup: rapier::setup,
        spawn: rapier::spawn,
        touching_pairs: Some(rapier::touching_pairs),
    },
];

/// Ours with every collider `Swept`.
const SWEPT: &str = "bevy_collide2d, all Swept";
/// Ours with one collider in a hundred `Swept` (bullets among the crowd):
/// every collider's pose is then kept, as the partners' paths count.
const MIXED: &str = "bevy_collide2d, 1% Swept (mixed)";

struct Options {
    counts: Vec<usize>,
    frames: Option<usize>,
    warmup: usize,
    engines: Vec<&'static Engine>,
    threads: Option<usize>,
    check: bool,
    seed: u64,
    scene: SceneShapes,
}

fn parse_options() -> Options {
    let mut options = Options {
        counts: vec![1_000, 10_000, 50_000, 100_000],
        frames: None,
        warmup: 10,
        engines: ENGINES.iter().collect(),
        threads: None,
        check: true,
        seed: 1,
        scene: SceneShapes::CirclesRects,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| panic!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--n" => {
                options.counts = value()
                    .split(',')
                    .map(|n| n.trim().replace('_', "").parse().expect("--n: counts"))
                    .collect();
            }
            "--frames" => options.frames = Some(value().parse().expect("--frames: a number")),
            "--warmup" => options.warmup = value().parse().expect("--warmup: a number"),
            "--threads" => options.threads = Some(value().parse().expect("--threads: a number")),
            "--seed" => options.seed = value().parse().expect("--seed: a number"),
            "--engines" => {
                let wanted = value();
                options.engines = ENGINES
                    .iter()
                    .filter(|engine| {
                        wanted.split(',').any(|w| engine.name.contains(w.trim()))
                            || (wanted.contains("ours") && engine.name == "bevy_collide2d")
                            || (wanted.contains("swept") && engine.name == SWEPT)
                    })
                    .collect();
            }
            "--scene" => {
                let name = value();
                options.scene = SceneShapes::parse(&name)
                    .unwrap_or_else(|| panic!("--scene: circles-rects or five-shapes, not {name}"));
            }
            "--no-check" => options.check = false,
            other => panic!("unknown option {other}; see the doc comment of compare/main.rs"),
        }
    }
    options
}

/// One app of a run and what was measured of it.
struct Run {
    engine: &'static Engine,
    app: App,
    entities: Vec<Entity>,
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
    fn new(engine: &'static Engine, n: usize, bodies: &[Body]) -> Self {
        let mut app = base_app(n);
        (engine.setup)(&mut app);
        // What `App::run` would do before the first update.
        app.finish();
        app.cleanup();
        let entities = (engine.spawn)(app.world_mut(), bodies);
        Self {
            engine,
            app,
            entities,
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

    fn timed_update(&mut self) {
        let cpu_before = CpuTimes::read();
        let start = Instant::now();
        self.app.update();
        self.frame_times.push(start.elapsed());
        self.cpu.add_since(cpu_before);
    }

    fn check(&mut self, shapes: &[BodyShape]) {
        let Some(touching_pairs) = self.engine.touching_pairs else {
            return;
        };
        let world = self.app.world_mut();
        let transforms: Vec<GlobalTransform> = self
            .entities
            .iter()
            .map(|&e| *world.get::<GlobalTransform>(e).unwrap())
            .collect();
        let truth = truth::exact_pairs(&self.entities, shapes, &transforms);
        let mut pairs = touching_pairs(world);
        pairs.sort_unstable();
        self.checked += 1;
        self.exact_now += usize::from(pairs == truth);
        if pairs != truth {
            let explain = std::env::var_os("COMPARE_EXPLAIN").is_some();
            let index_of = |e: Entity| self.entities.iter().position(|&x| x == e).unwrap();
            let mut shown = 0;
            for (label, from, other) in [("missing", &truth, &pairs), ("extra", &pairs, &truth)] {
                for pair in from.iter().filter(|p| other.binary_search(p).is_err()) {
                    let (i, j) = (index_of(pair.0), index_of(pair.1));
                    let gap = truth::gap([shapes[i], shapes[j]], [&transforms[i], &transforms[j]]);
                    self.largest_gap = self.largest_gap.max(gap.abs());
                    if label == "missing" {
                        self.missing += 1;
                    } else {
                        self.extra += 1;
                    }
                    if explain && shown < 4 {
                        eprintln!(
                            "{} {label} pair ({gap:+.3e} from touching): {:?} at {:?} / {:?} at {:?}",
                            self.engine.name, shapes[i], transforms[i], shapes[j], transforms[j]
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
    println!("scene: {}, seed {}", options.scene.name(), options.seed);
    let mut summary = Vec::new();
    for &n in &options.counts {
        let frames = options.frames.unwrap_or((3_000_000 / n).clamp(30, 300));
        eprintln!(
            "N = {n}, scene {}: {} warm-up + {frames} timed frames",
            options.scene.name(),
            options.warmup
        );
        let bodies = generate_scene(n, options.seed, options.scene);
        let shapes: Vec<BodyShape> = bodies.iter().map(|b| b.shape).collect();
        let mut runs: Vec<Run> = std::iter::once(&BASELINE)
            .chain(options.engines.iter().copied())
            .map(|engine| Run::new(engine, n, &bodies))
            .collect();
        for _ in 0..options.warmup {
            for run in &mut runs {
                run.app.update();
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
                    run.check(&shapes);
                }
            }
        }
        let baseline_ms = runs[0].median_ms();
        let ours_cost = runs
            .iter()
            .find(|r| r.engine.name == "bevy_collide2d")
            .map(|r| r.median_ms() - baseline_ms);
        for run in &runs {
            print_stages(n, run);
            print_mismatches(n, run);
            summary.push(Row::new(n, run, baseline_ms, ours_cost, options.check));
        }
        print_swept_cost(n, &summary);
    }
    print_table(&summary);
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
    fn new(n: usize, run: &Run, baseline_ms: f64, ours_cost: Option<f64>, check: bool) -> Self {
        let detects = run.engine.touching_pairs.is_some();
        let frame_ms = run.median_ms();
        let cost_ms = detects.then_some(frame_ms - baseline_ms);
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
