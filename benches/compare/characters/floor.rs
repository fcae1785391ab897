//! Floor model of the characters and hills scenes (`--floor`): the same
//! characters and game logic, moved by the least a kinematic controller
//! with a skin does, on one thread, without the ECS, through the library's
//! pure tests. Every frame, for each character: one lookup of the ground
//! around its path in the library's grid (built once, as a static
//! collider's is), then up to four casts of its capsule along what is
//! left of its motion against what the lookup found (the pure
//! `cast_shape`), each stopping a skin short of the nearest hit and
//! sliding the rest along its normal (grounded when that normal is
//! walkable); then detection's part: the capsule's box looked up again at
//! its end and its contacts with what is there. No depenetration, no
//! ground probe, no step or snap, no filter: `move_and_slide` does all of
//! them, so this is below any exact controller.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::shape::Aabb2d;
use bevy_collide2d::geometry::{Compound, Shape, cast_shape};
use bevy_collide2d::internals::SpatialGrid;

use super::{Character, Ground, HALF_LENGTH, MAX_SLOPE, OVERLAP_TOLERANCE, RADIUS, SKIN};

const STEP: f32 = 1.0 / 60.0;
/// Casts per character per frame, at most (the first and three slides).
const CASTS: usize = 4;

/// What the floor measured: median frame and its parts, in ms, and what
/// the characters did (to set beside the engines' table).
pub struct FloorRun {
    pub frame_ms: f64,
    pub lookups_ms: f64,
    pub casts_ms: f64,
    pub detection_ms: f64,
    pub grounded_mean: f64,
    pub ran_per_second: f64,
    /// Character-frames with a contact deeper than the tolerance.
    pub overlapping: usize,
}

/// The floor's world: the ground in the library's grid, the characters'
/// positions and game state, and what it measured so far.
pub struct Floor {
    shapes: Vec<Shape>,
    poses: Vec<Isometry2d>,
    aabbs: Vec<Aabb2d>,
    grid: SpatialGrid,
    capsule: Shape,
    half_side: f32,
    positions: Vec<Vec2>,
    states: Vec<Character>,
    motions: Vec<Vec2>,
    /// Each character's nearby ground: `near[ranges[i]..ranges[i + 1]]`.
    near: Vec<u32>,
    ranges: Vec<usize>,
    times: Vec<[Duration; 3]>,
    grounded: usize,
    ran: f64,
    overlapping: usize,
}

impl Floor {
    pub fn new(ground: Ground, characters: &[(Vec2, Character)]) -> Self {
        let (shapes, poses) = ground_shapes(ground);
        let aabbs: Vec<Aabb2d> = (shapes.iter().zip(&poses))
            .map(|(shape, &pose)| shape.aabb(pose))
            .collect();
        let mut grid = SpatialGrid::default();
        grid.overlapping_pairs(&aabbs, |_, _| false, &mut Vec::new());
        Self {
            shapes,
            poses,
            aabbs,
            grid,
            capsule: Shape::Capsule {
                radius: RADIUS,
                half_length: HALF_LENGTH,
            },
            half_side: ground.arena().half_side,
            positions: characters.iter().map(|(at, _)| *at).collect(),
            states: characters.iter().map(|(_, c)| c.clone()).collect(),
            motions: vec![Vec2::ZERO; characters.len()],
            near: Vec::new(),
            ranges: vec![0],
            times: Vec::new(),
            grounded: 0,
            ran: 0.0,
            overlapping: 0,
        }
    }

    /// One frame; timed and counted when `timed`.
    pub fn frame(&mut self, timed: bool) {
        // The game's logic, not the controller's work: untimed, as the
        // engines' baseline runs it too.
        let moving = (self.positions.iter())
            .zip(&mut self.states)
            .zip(&mut self.motions);
        for ((at, state), motion) in moving {
            *motion = state.motion(at.x, self.half_side, STEP);
        }
        let start = Instant::now();
        let (near, ranges) = (&mut self.near, &mut self.ranges);
        near.clear();
        ranges.truncate(1);
        for (at, motion) in self.positions.iter().zip(&self.motions) {
            // Slides turn the motion, up to its length, any way.
            let reach = Vec2::splat(motion.length() + 2.0 * SKIN);
            let own = self.capsule.aabb(Isometry2d::from_translation(*at));
            let path = Aabb2d {
                min: own.min - reach,
                max: own.max + reach,
            };
            (self.grid).visit_overlapping(&self.aabbs, &path, |k| near.push(k));
            ranges.push(near.len());
        }
        let looked_up = Instant::now();
        let walkable = MAX_SLOPE.cos();
        let (shapes, poses) = (&self.shapes, &self.poses);
        for (i, (at, state)) in self.positions.iter_mut().zip(&mut self.states).enumerate() {
            let before = at.x;
            let around = &near[ranges[i]..ranges[i + 1]];
            let mut remaining = self.motions[i];
            state.grounded = false;
            for _ in 0..CASTS {
                let Ok((direction, length)) = Dir2::new_and_length(remaining) else {
                    break;
                };
                let pose = Isometry2d::from_translation(*at);
                let nearest = (around.iter())
                    .filter_map(|&k| {
                        let k = k as usize;
                        let reach = length + SKIN;
                        cast_shape(&self.capsule, pose, direction, reach, &shapes[k], poses[k])
                    })
                    // Touching and moving away does not block.
                    .filter(|hit| hit.distance > 0.0 || hit.normal.dot(*direction) < 0.0)
                    .min_by(|a, b| a.distance.total_cmp(&b.distance));
                let Some(hit) = nearest else {
                    *at += remaining;
                    break;
                };
                let advance = (hit.distance - SKIN).clamp(0.0, length);
                *at += direction * advance;
                state.grounded |= hit.normal.y >= walkable;
                let rest = direction * (length - advance);
                let normal = Vec2::from(hit.normal);
                remaining = rest - normal * rest.dot(normal).min(0.0);
            }
            if timed {
                self.ran += f64::from((at.x - before).abs());
                self.grounded += usize::from(state.grounded);
            }
        }
        let moved = Instant::now();
        let mut contacts = 0usize;
        for at in &self.positions {
            let pose = Isometry2d::from_translation(*at);
            let own = self.capsule.aabb(pose);
            let mut inside = false;
            (self.grid).visit_overlapping(&self.aabbs, &own, |k| {
                let k = k as usize;
                if let Some(contact) = self.capsule.contact(pose, &shapes[k], poses[k]) {
                    contacts += 1;
                    inside |= contact.depth > OVERLAP_TOLERANCE;
                }
            });
            self.overlapping += usize::from(timed && inside);
        }
        black_box(contacts);
        let detected = Instant::now();
        if timed {
            (self.times).push([looked_up - start, moved - looked_up, detected - moved]);
        }
    }

    /// The medians and counts of the timed frames.
    pub fn result(&self) -> FloorRun {
        let median = |part: Option<usize>| {
            let mut column: Vec<Duration> = (self.times.iter())
                .map(|t| part.map_or(t.iter().sum(), |k| t[k]))
                .collect();
            column.sort_unstable();
            column
                .get(column.len() / 2)
                .map_or(f64::NAN, |t| t.as_secs_f64() * 1e3)
        };
        let frames = self.times.len().max(1) as f64;
        let character_frames = frames * self.positions.len().max(1) as f64;
        FloorRun {
            frame_ms: median(None),
            lookups_ms: median(Some(0)),
            casts_ms: median(Some(1)),
            detection_ms: median(Some(2)),
            grounded_mean: self.grounded as f64 / frames,
            ran_per_second: self.ran / character_frames / STEP as f64,
            overlapping: self.overlapping,
        }
    }
}

/// The ground as the engines get it: one rectangle per tile, or one
/// polyline per band of hills.
fn ground_shapes(ground: Ground) -> (Vec<Shape>, Vec<Isometry2d>) {
    match ground {
        Ground::Tiles(level) => {
            let tile = Shape::Rect {
                half_size: Vec2::splat(level.tile / 2.0),
            };
            let poses: Vec<Isometry2d> =
                level.centres().map(Isometry2d::from_translation).collect();
            (vec![tile; poses.len()], poses)
        }
        Ground::Hills(hills) => {
            let shapes: Vec<Shape> = (hills.lines.iter())
                .map(|line| {
                    Shape::Compound(Compound::polyline(line).expect("a line of distinct points"))
                })
                .collect();
            let poses = vec![Isometry2d::IDENTITY; shapes.len()];
            (shapes, poses)
        }
    }
}
