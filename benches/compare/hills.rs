//! The ground of `--scene hills`: bands of rolling hills across a square
//! map, each one polyline (one static collider) with a vertex every
//! `STEP` units, stacked `SPACING` apart, so that a character runs along
//! the band it stands on and cannot jump to the next.

use bevy::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::scene::Arena;

/// Horizontal distance between a line's vertices.
const STEP: f32 = 8.0;
/// Vertical distance between the bands' base lines: more than a character
/// jumps (200² / (2 · 600) = 33) plus the hills' height.
pub const SPACING: f32 = 96.0;

pub struct Hills {
    pub half_side: f32,
    /// Each band's vertices, left to right, `STEP` apart from `-half_side`.
    pub lines: Vec<Vec<Vec2>>,
}

impl Hills {
    /// Bands filling a square of side `2 * half_side`: two sine waves (up
    /// to about 26° steep) plus a little noise at every vertex, seeded.
    pub fn generate(half_side: f32, seed: u64) -> Self {
        Self::generate_bands(
            half_side,
            ((2.0 * half_side / SPACING) as usize).max(1),
            seed,
        )
    }

    /// The lowest `bands` of those bands only (`--scene game` puts them
    /// below its tiles).
    pub fn generate_bands(half_side: f32, bands: usize, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x4111_5000);
        let vertices = (2.0 * half_side / STEP) as usize + 1;
        let lines = (0..bands)
            .map(|band| {
                let base = -half_side + (band as f32 + 0.3) * SPACING;
                let phase = rng.random_range(0.0..std::f32::consts::TAU);
                (0..vertices)
                    .map(|i| {
                        let x = -half_side + i as f32 * STEP;
                        let y = base
                            + 10.0 * (x * 0.03 + phase).sin()
                            + 4.0 * (x * 0.11 + 2.0 * phase).sin()
                            + rng.random_range(-0.5..=0.5);
                        Vec2::new(x, y)
                    })
                    .collect()
            })
            .collect();
        Self { half_side, lines }
    }

    pub fn arena(&self) -> Arena {
        Arena {
            half_side: self.half_side,
        }
    }

    pub fn segments(&self) -> usize {
        self.lines.iter().map(|line| line.len() - 1).sum()
    }

    /// Where `n` characters start: at random along random bands, their
    /// capsule's bottom 1 above the line.
    pub fn starts(&self, n: usize, rng: &mut ChaCha8Rng, half_height: f32) -> Vec<Vec2> {
        (0..n)
            .map(|_| {
                let line = &self.lines[rng.random_range(0..self.lines.len())];
                let x = rng.random_range(-self.half_side + 24.0..self.half_side - 24.0);
                Vec2::new(x, self.height(line, x) + half_height + 1.0)
            })
            .collect()
    }

    /// The line's height at `x`.
    fn height(&self, line: &[Vec2], x: f32) -> f32 {
        let i = (((x + self.half_side) / STEP) as usize).min(line.len() - 2);
        let (a, b) = (line[i], line[i + 1]);
        a.y + (b.y - a.y) * ((x - a.x) / (b.x - a.x)).clamp(0.0, 1.0)
    }

    /// How deep the upright capsule (`radius`, `half_length`) centred at
    /// `at` is in the lines (0 when clear of them): its radius minus the
    /// distance from its core segment to the nearest line segment.
    pub fn deepest_overlap(&self, at: Vec2, radius: f32, half_length: f32) -> f32 {
        let reach = radius + half_length;
        let first = (((at.x - radius + self.half_side) / STEP).floor() - 1.0).max(0.0) as usize;
        let last = ((at.x + radius + self.half_side) / STEP).ceil() as usize + 1;
        let (core_a, core_b) = (at - Vec2::Y * half_length, at + Vec2::Y * half_length);
        let mut deepest: f32 = 0.0;
        for line in &self.lines {
            let near = line[first.min(line.len() - 1)].y;
            if (near - at.y).abs() > reach + 40.0 {
                continue;
            }
            for pair in line[first.min(line.len() - 1)..(last + 1).min(line.len())].windows(2) {
                let distance = segments_distance(core_a, core_b, pair[0], pair[1]);
                deepest = deepest.max(radius - distance);
            }
        }
        deepest
    }
}

/// Distance between segments `ab` and `cd` (0 when they cross).
fn segments_distance(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> f32 {
    let cross = |o: Vec2, p: Vec2, q: Vec2| (p - o).perp_dot(q - o);
    let (d1, d2) = (cross(a, b, c), cross(a, b, d));
    let (d3, d4) = (cross(c, d, a), cross(c, d, b));
    if d1 * d2 < 0.0 && d3 * d4 < 0.0 {
        return 0.0;
    }
    let to_segment = |p: Vec2, s: Vec2, e: Vec2| {
        let t = ((p - s).dot(e - s) / (e - s).length_squared()).clamp(0.0, 1.0);
        p.distance(s + (e - s) * t)
    };
    to_segment(a, c, d)
        .min(to_segment(b, c, d))
        .min(to_segment(c, a, b))
        .min(to_segment(d, a, b))
}
