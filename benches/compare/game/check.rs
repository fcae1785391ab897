//! The game scene's checks, after every frame, against an f64 truth of
//! the poses each engine has:
//!
//! - pairs: the engine's touching pairs against `truth::exact_pairs` of
//!   the movers and `truth::StaticIndex` of the tiles, spikes and hills,
//!   layers applied (as the other scenes count them: frames with the exact
//!   set, this frame's or the previous one's; missing and extra pairs and
//!   the largest distance from touching among them);
//! - ours' `Swept` bullets: each pair that touched on the way only
//!   (`Collisions::passing`) must lie along the bullet's path since the
//!   last frame (its swept circle, grown by what the partner may have
//!   moved), and each crossing of the ground certain from that path must
//!   be reported (touching, passed, or touching the frame before);
//! - characters: none ends a frame deeper than the characters scene's
//!   tolerance in the tiles or the hills;
//! - queries (every few frames): `queries::check`, brute force in f64.

use std::collections::{HashMap, HashSet};

use bevy::prelude::*;

use super::{
    Actor, BULLET, BULLET_RADIUS, GROUND, GameEngine, GameScene, HAZARD, StaticPart, interact,
};
use crate::characters::{self, Character, HALF_LENGTH, OVERLAP_TOLERANCE, RADIUS};
use crate::queries::{self, Answers, Batch, Check, TruthCollider, TruthShape};
use crate::scene::{BodyShape, Mover, STEP};
use crate::truth::{self, StaticIndex};

/// How far a mover may move in a frame, at most (a character falling at
/// 600 units/s: 10; an enemy turning and moving: under 2), for ours'
/// pairs of a bullet with a mover along its path.
const MOVER_REACH: f64 = 12.0;
/// Shapes grown and shrunk by this much for what is possible and what is
/// certain.
const TOLERANCE: f32 = 1e-3;
/// Mismatched pairs of a frame whose distance from touching is worked
/// out (a compound map has thousands of parts).
const GAPS_PER_FRAME: usize = 50;

/// The static side of the truth, read once.
pub struct Truth {
    statics: Vec<StaticPart>,
    /// The static parts of each entity.
    by_entity: HashMap<Entity, Vec<usize>>,
    ground: StaticIndex,
    hazard: StaticIndex,
    /// The static colliders as the queries see them: what the rays see
    /// (all), and what the points see (the ground).
    sight: Vec<(Entity, TruthCollider)>,
    ground_only: Vec<(Entity, TruthCollider)>,
    solid: Vec<bool>,
}

impl Truth {
    pub fn new(scene: &GameScene, statics: Vec<StaticPart>) -> Self {
        let index = |group: u32| {
            let (mut entities, mut shapes, mut transforms) = (Vec::new(), Vec::new(), Vec::new());
            for part in statics.iter().filter(|part| part.1 == group) {
                entities.push(part.0);
                shapes.push(part.2);
                transforms.push(part.3);
            }
            StaticIndex::new(&entities, &shapes, &transforms)
        };
        let mut by_entity: HashMap<Entity, Vec<usize>> = HashMap::new();
        for (k, part) in statics.iter().enumerate() {
            by_entity.entry(part.0).or_default().push(k);
        }
        let colliders = |keep: &dyn Fn(u32) -> bool| {
            let mut entities: Vec<Entity> = by_entity.keys().copied().collect();
            entities.sort_unstable();
            (entities.into_iter())
                .filter(|e| keep(statics[by_entity[e][0]].1))
                .map(|e| {
                    let parts = (by_entity[&e].iter())
                        .flat_map(|&k| TruthShape::parts(&statics[k].2, &statics[k].3))
                        .collect();
                    (e, parts)
                })
                .collect()
        };
        let sight = colliders(&|_| true);
        let ground_only = colliders(&|group| group == GROUND);
        Self {
            ground: index(GROUND),
            hazard: index(HAZARD),
            sight,
            ground_only,
            by_entity,
            statics,
            solid: characters::solid_bitmap(&scene.map.ground),
        }
    }

    /// Every pair that touches now, layers applied, sorted.
    fn pairs(&self, m: &Movers) -> Vec<(Entity, Entity)> {
        let group: HashMap<Entity, u32> = (m.entities.iter().zip(&m.actors))
            .map(|(&e, a)| (e, a.group()))
            .collect();
        let mut pairs = truth::exact_pairs(&m.entities, &m.shapes, &m.transforms);
        pairs.retain(|(a, b)| interact(group[a], group[b]));
        for (index, static_group) in [(&self.ground, GROUND), (&self.hazard, HAZARD)] {
            let pick: Vec<usize> = (0..m.entities.len())
                .filter(|&i| interact(m.actors[i].group(), static_group))
                .collect();
            index.pairs_with(
                &pick.iter().map(|&i| m.entities[i]).collect::<Vec<_>>(),
                &pick.iter().map(|&i| m.shapes[i]).collect::<Vec<_>>(),
                &pick.iter().map(|&i| m.transforms[i]).collect::<Vec<_>>(),
                &mut pairs,
            );
        }
        pairs.sort_unstable();
        // A body touching two parts of a map is one pair.
        pairs.dedup();
        pairs
    }

    /// The shapes and transforms of a body: a mover's, or a static
    /// entity's parts.
    fn body(&self, m: &Movers, entity: Entity) -> Vec<(BodyShape, GlobalTransform)> {
        if let Some(&i) = m.index.get(&entity) {
            return vec![(m.shapes[i], m.transforms[i])];
        }
        (self.by_entity.get(&entity).into_iter().flatten())
            .map(|&k| (self.statics[k].2, self.statics[k].3))
            .collect()
    }

    /// What an entity is, for explaining a wrong pair.
    fn describe(&self, m: &Movers, entity: Entity) -> String {
        if let Some(&i) = m.index.get(&entity) {
            let at = m.transforms[i].translation().truncate();
            return format!("{:?} at {at}", m.actors[i]);
        }
        match self.by_entity.get(&entity) {
            Some(parts) => {
                let group = self.statics[parts[0]].1;
                format!("static of group {group} ({} parts)", parts.len())
            }
            None => format!("{entity}, not in the scene"),
        }
    }

    /// How far apart two bodies are (the nearest of their parts; < 0
    /// overlapping), infinite for an entity not in the scene.
    fn gap(&self, m: &Movers, pair: (Entity, Entity)) -> f64 {
        let (a, b) = (self.body(m, pair.0), self.body(m, pair.1));
        let mut nearest = f64::INFINITY;
        for (shape_a, at_a) in &a {
            for (shape_b, at_b) in &b {
                let gap = truth::gap([*shape_a, *shape_b], [at_a, at_b]);
                if gap.abs() < nearest.abs() {
                    nearest = gap;
                }
            }
        }
        nearest
    }
}

/// The scene's moving bodies as an engine has them, by entity.
struct Movers {
    entities: Vec<Entity>,
    actors: Vec<Actor>,
    shapes: Vec<BodyShape>,
    transforms: Vec<GlobalTransform>,
    velocities: Vec<Vec2>,
    grounded: Vec<bool>,
    index: HashMap<Entity, usize>,
}

impl Movers {
    fn read(world: &mut World, scene: &GameScene) -> Self {
        let mut query = world.query::<(
            Entity,
            &Actor,
            &GlobalTransform,
            Option<&Mover>,
            Option<&Character>,
        )>();
        let mut found: Vec<_> = query.iter(world).collect();
        found.sort_unstable_by_key(|found| found.0);
        let mut m = Self {
            entities: Vec::new(),
            actors: Vec::new(),
            shapes: Vec::new(),
            transforms: Vec::new(),
            velocities: Vec::new(),
            grounded: Vec::new(),
            index: HashMap::new(),
        };
        for (i, (entity, &actor, transform, mover, character)) in found.into_iter().enumerate() {
            m.entities.push(entity);
            m.actors.push(actor);
            m.shapes.push(scene.shape(actor));
            m.transforms.push(*transform);
            m.velocities.push(mover.map_or(Vec2::ZERO, |m| m.velocity));
            m.grounded.push(character.is_some_and(|c| c.grounded));
            m.index.insert(entity, i);
        }
        m
    }
}

/// The pairs as the other scenes count them.
#[derive(Default)]
pub struct PairStats {
    pub checked: usize,
    pub exact_now: usize,
    pub exact_previous: usize,
    pub last_pairs: usize,
    pub last_truth: usize,
    pub missing: usize,
    /// Extra pairs that are not a bullet's along its path.
    pub extra: usize,
    /// Extra pairs of a bullet along its path (`Paths`).
    pub along_paths: usize,
    pub largest_gap: f64,
    previous_truth: Option<Vec<(Entity, Entity)>>,
    previous_pairs: Option<Vec<(Entity, Entity)>>,
    /// Wrong pairs printed so far (`COMPARE_EXPLAIN=1`).
    shown: usize,
}

/// Wrong pairs printed per engine with `COMPARE_EXPLAIN=1`.
const EXPLAINED: usize = 8;

fn explain() -> bool {
    std::env::var_os("COMPARE_EXPLAIN").is_some()
}

/// Ours' bullets' pairs along their paths.
#[derive(Default)]
pub struct SweptStats {
    pub passed: usize,
    pub passed_wrong: usize,
    pub sure_crossings: usize,
    pub missed_crossings: usize,
    shown: usize,
    /// Where each bullet was at the last check.
    last: HashMap<Entity, Vec2>,
}

#[derive(Default)]
pub struct CharacterStats {
    pub overlaps: usize,
    pub ever_inside: HashSet<Entity>,
    pub deepest: f32,
    pub grounded: usize,
    pub checked: usize,
    /// Summed |Δx| of all characters.
    pub ran: f64,
    last: HashMap<Entity, f32>,
}

#[derive(Default)]
pub struct QueryStats {
    pub frames: usize,
    pub hits: usize,
    pub rays_checked: usize,
    pub points_checked: usize,
    pub rays: Check,
    pub points: Check,
}

/// What the checks found for one engine over the run.
#[derive(Default)]
pub struct RunCheck {
    pub pairs: PairStats,
    pub swept: SweptStats,
    pub characters: CharacterStats,
    pub queries: QueryStats,
}

impl RunCheck {
    pub fn frame(
        &mut self,
        engine: &GameEngine,
        world: &mut World,
        truth: &Truth,
        scene: &GameScene,
        check_queries: bool,
    ) {
        let Some(touching_pairs) = engine.touching_pairs else {
            return;
        };
        let m = Movers::read(world, scene);
        let expected = truth.pairs(&m);
        let paths = Paths::new(truth, &m, scene.map.arena().half_side);
        let mut pairs = touching_pairs(world);
        pairs.sort_unstable();
        if let Some(passing) = engine.passing {
            let passing = passing(world);
            let previous = self.pairs.previous_pairs.as_deref();
            self.swept
                .frame(truth, &m, &paths, &pairs, &passing, previous);
        }
        self.pairs
            .frame(engine.name, truth, &m, &paths, pairs, expected);
        self.characters.frame(truth, &m, scene);
        let answers = world.resource::<Answers>();
        self.queries.frames += 1;
        self.queries.hits += answers.rays.iter().map(Vec::len).sum::<usize>();
        if check_queries {
            self.queries
                .check(truth, &m, world.resource::<Batch>(), answers);
        }
    }
}

impl PairStats {
    fn frame(
        &mut self,
        name: &str,
        truth: &Truth,
        m: &Movers,
        paths: &Paths,
        pairs: Vec<(Entity, Entity)>,
        expected: Vec<(Entity, Entity)>,
    ) {
        self.checked += 1;
        self.exact_now += usize::from(pairs == expected);
        self.exact_previous += usize::from(self.previous_truth.as_ref() == Some(&pairs));
        if pairs != expected {
            let mut gaps = 0;
            for (label, from, other, count) in [
                ("missing", &expected, &pairs, &mut self.missing),
                ("extra", &pairs, &expected, &mut self.extra),
            ] {
                for &pair in from.iter().filter(|p| other.binary_search(p).is_err()) {
                    if label == "extra" && paths.allows(m, pair) {
                        self.along_paths += 1;
                        continue;
                    }
                    *count += 1;
                    if gaps < GAPS_PER_FRAME {
                        gaps += 1;
                        let gap = truth.gap(m, pair);
                        self.largest_gap = self.largest_gap.max(gap.abs());
                        if explain() && self.shown < EXPLAINED {
                            self.shown += 1;
                            eprintln!(
                                "{name}, frame {}: {label} pair ({gap:+.3e} from touching): {} / {}",
                                self.checked,
                                truth.describe(m, pair.0),
                                truth.describe(m, pair.1)
                            );
                        }
                    }
                }
            }
        }
        self.last_pairs = pairs.len();
        self.last_truth = expected.len();
        self.previous_truth = Some(expected);
        self.previous_pairs = Some(pairs);
    }
}

/// A bullet's path as a capsule of `radius` about the segment from
/// `p - v * dt * back` to `p + v * dt * ahead` (an upright capsule turned
/// onto it).
fn path(
    at: &GlobalTransform,
    velocity: Vec2,
    radius: f32,
    back: f32,
    ahead: f32,
) -> (BodyShape, GlobalTransform) {
    let (at, step) = (at.translation().truncate(), velocity * STEP.as_secs_f32());
    segment_capsule(at - step * back, at + step * ahead, radius)
}

/// The capsule of `radius` about the segment from `from` to `to`.
fn segment_capsule(from: Vec2, to: Vec2, radius: f32) -> (BodyShape, GlobalTransform) {
    let along = to - from;
    let angle = along.y.atan2(along.x) - std::f32::consts::FRAC_PI_2;
    let shape = BodyShape::Capsule {
        radius,
        half_length: along.length() / 2.0,
    };
    let transform = Transform::from_translation(((from + to) / 2.0).extend(0.0))
        .with_rotation(Quat::from_rotation_z(angle));
    (shape, transform.into())
}

/// Whether a mover wrapped at the map's edge this frame (a teleport: the
/// step back along its velocity leaves the map).
fn wrapped(m: &Movers, i: usize, half: f32) -> bool {
    let before = m.transforms[i].translation().truncate() - m.velocities[i] * STEP.as_secs_f32();
    before.cmplt(Vec2::splat(-half)).any() || before.cmpge(Vec2::splat(half)).any()
}

/// Which pairs of a bullet not touching now may still be reported: those
/// along its path from the last frame (ours' `Swept`) to the next
/// (avian2d counts a pair that its velocity brings together within the
/// step as touching), a partner mover by what it may have moved, or
/// anything with a partner that wrapped this frame (a teleport, which a
/// swept partner sees as a motion when the partner is not `Swept`).
struct Paths {
    /// Bullet and ground pairs within the paths, sorted.
    ground: Vec<(Entity, Entity)>,
    half: f32,
}

impl Paths {
    fn new(truth: &Truth, m: &Movers, half: f32) -> Self {
        let bullets: Vec<usize> = (0..m.entities.len())
            .filter(|&i| m.actors[i].group() == BULLET)
            .collect();
        let (shapes, transforms): (Vec<_>, Vec<_>) = (bullets.iter())
            .map(|&i| {
                path(
                    &m.transforms[i],
                    m.velocities[i],
                    BULLET_RADIUS + TOLERANCE,
                    1.0,
                    1.0,
                )
            })
            .unzip();
        let entities: Vec<Entity> = bullets.iter().map(|&i| m.entities[i]).collect();
        let mut ground = Vec::new();
        (truth.ground).pairs_with(&entities, &shapes, &transforms, &mut ground);
        ground.sort_unstable();
        ground.dedup();
        Self { ground, half }
    }

    /// Whether the pair is a bullet's, along its path.
    fn allows(&self, m: &Movers, pair: (Entity, Entity)) -> bool {
        let is_bullet =
            |e: &Entity| (m.index.get(e)).is_some_and(|&i| m.actors[i].group() == BULLET);
        let Some(bullet) = [pair.0, pair.1].into_iter().find(is_bullet) else {
            return false;
        };
        let other = if bullet == pair.0 { pair.1 } else { pair.0 };
        let Some(&j) = m.index.get(&other) else {
            return self.ground.binary_search(&pair).is_ok();
        };
        let i = m.index[&bullet];
        if wrapped(m, i, self.half) || wrapped(m, j, self.half) {
            return true;
        }
        let (shape, at) = path(&m.transforms[i], m.velocities[i], BULLET_RADIUS, 1.0, 1.0);
        truth::gap([shape, m.shapes[j]], [&at, &m.transforms[j]]) <= MOVER_REACH
    }
}

/// A bullet's path since the last frame, from where it was then (`last`;
/// a step back along its velocity at the first check).
fn since_last(
    last: &HashMap<Entity, Vec2>,
    m: &Movers,
    i: usize,
    radius: f32,
) -> (BodyShape, GlobalTransform) {
    let now = m.transforms[i].translation().truncate();
    let before =
        (last.get(&m.entities[i]).copied()).unwrap_or(now - m.velocities[i] * STEP.as_secs_f32());
    segment_capsule(before, now, radius)
}

impl SweptStats {
    fn frame(
        &mut self,
        truth: &Truth,
        m: &Movers,
        paths: &Paths,
        now: &[(Entity, Entity)],
        passing: &[(Entity, Entity)],
        previous: Option<&[(Entity, Entity)]>,
    ) {
        for &pair in passing {
            self.passed += 1;
            let ok = paths.allows(m, pair);
            self.passed_wrong += usize::from(!ok);
            if !ok && explain() && self.shown < EXPLAINED {
                self.shown += 1;
                // How far the path since the last frame passes from it.
                let bullet = [pair.0, pair.1]
                    .into_iter()
                    .find(|e| (m.index.get(e)).is_some_and(|&i| m.actors[i].group() == BULLET));
                let gap = bullet.map(|bullet| {
                    let other = if bullet == pair.0 { pair.1 } else { pair.0 };
                    let i = m.index[&bullet];
                    let (shape, at) = since_last(&self.last, m, i, BULLET_RADIUS);
                    (truth.body(m, other).iter())
                        .map(|(s, t)| truth::gap([shape, *s], [&at, t]))
                        .fold(f64::INFINITY, f64::min)
                });
                let from = bullet.and_then(|b| self.last.get(&b));
                eprintln!(
                    "passed pair off its path ({gap:?} from the path since the last frame, from {from:?}): {} / {}",
                    truth.describe(m, pair.0),
                    truth.describe(m, pair.1),
                );
            }
        }
        let last = (0..m.entities.len())
            .filter(|&i| m.actors[i].group() == BULLET)
            .map(|i| (m.entities[i], m.transforms[i].translation().truncate()));
        let last = std::mem::replace(&mut self.last, last.collect());
        let Some(previous) = previous else {
            return;
        };
        // The crossings of the ground certain from the paths since the last
        // frame of the bullets that did not wrap (ours starts a wrapped
        // one's path where it lands).
        let bullets: Vec<usize> = (0..m.entities.len())
            .filter(|&i| m.actors[i].group() == BULLET && !wrapped(m, i, paths.half))
            .collect();
        let (shapes, transforms): (Vec<_>, Vec<_>) = (bullets.iter())
            .map(|&i| since_last(&last, m, i, BULLET_RADIUS - TOLERANCE))
            .unzip();
        let entities: Vec<Entity> = bullets.iter().map(|&i| m.entities[i]).collect();
        let mut sure = Vec::new();
        (truth.ground).pairs_with(&entities, &shapes, &transforms, &mut sure);
        sure.sort_unstable();
        sure.dedup();
        for pair in sure {
            self.sure_crossings += 1;
            let reported = [now, passing, previous]
                .iter()
                .any(|set| set.binary_search(&pair).is_ok());
            self.missed_crossings += usize::from(!reported);
        }
    }
}

impl CharacterStats {
    fn frame(&mut self, truth: &Truth, m: &Movers, scene: &GameScene) {
        self.checked += 1;
        for i in (0..m.entities.len()).filter(|&i| matches!(m.actors[i], Actor::Character(_))) {
            let at = m.transforms[i].translation().truncate();
            let depth = characters::deepest_overlap(&scene.map.ground, &truth.solid, at)
                .max((scene.map.hills).deepest_overlap(at, RADIUS, HALF_LENGTH));
            if depth > OVERLAP_TOLERANCE {
                self.overlaps += 1;
                self.ever_inside.insert(m.entities[i]);
            }
            self.deepest = self.deepest.max(depth);
            self.grounded += usize::from(m.grounded[i]);
            if let Some(before) = self.last.insert(m.entities[i], at.x) {
                self.ran += f64::from((at.x - before).abs());
            }
        }
    }
}

impl QueryStats {
    fn check(&mut self, truth: &Truth, m: &Movers, batch: &Batch, answers: &Answers) {
        // What the rays see: the level, the characters and the enemies.
        let mut colliders: Vec<TruthCollider> = Vec::new();
        let mut index = HashMap::new();
        for (entity, parts) in &truth.sight {
            index.insert(*entity, colliders.len());
            colliders.push(parts.clone());
        }
        for (i, actor) in m.actors.iter().enumerate() {
            if matches!(actor, Actor::Character(_) | Actor::Enemy(_)) {
                index.insert(m.entities[i], colliders.len());
                colliders.push(TruthShape::parts(&m.shapes[i], &m.transforms[i]));
            }
        }
        let rays_only = Batch {
            rays: batch.rays.clone(),
            ..default()
        };
        let ray_answers = Answers {
            rays: answers.rays.clone(),
            ..default()
        };
        let [rays, _, _] = queries::check(&ray_answers, &rays_only, &colliders, &index);
        self.rays.add(&rays);
        self.rays_checked += batch.rays.len();
        // What the points see: the ground.
        let (entities, colliders): (Vec<Entity>, Vec<TruthCollider>) =
            truth.ground_only.iter().cloned().unzip();
        let index = (entities.into_iter().enumerate())
            .map(|(i, e)| (e, i))
            .collect();
        let points_only = Batch {
            points: batch.points.clone(),
            ..default()
        };
        let point_answers = Answers {
            points: answers.points.clone(),
            ..default()
        };
        let [_, points, _] = queries::check(&point_answers, &points_only, &colliders, &index);
        self.points.add(&points);
        self.points_checked += batch.points.len();
    }
}
