//! The exact pair set, computed independently of every engine: f64 overlap
//! tests (touching counts) on candidates from a sort-and-sweep along x.

use bevy::prelude::*;

use crate::scene::BodyShape;

#[derive(Clone, Copy)]
struct Placed {
    centre: [f64; 2],
    /// Unit x axis of the body (cos, sin).
    axis: [f64; 2],
    shape: BodyShape,
    /// Half extent of the bounding box along x and y.
    extent: [f64; 2],
}

impl Placed {
    fn new(shape: BodyShape, transform: &Transform) -> Self {
        let centre = [
            transform.translation.x as f64,
            transform.translation.y as f64,
        ];
        // Rotation about z from the quaternion, in f64.
        let angle = 2.0 * (transform.rotation.z as f64).atan2(transform.rotation.w as f64);
        let axis = [angle.cos(), angle.sin()];
        let extent = match shape {
            BodyShape::Circle { radius } => [radius as f64; 2],
            BodyShape::Rect { half_size } => {
                let (hx, hy) = (half_size.x as f64, half_size.y as f64);
                let (c, s) = (axis[0].abs(), axis[1].abs());
                [hx * c + hy * s, hx * s + hy * c]
            }
        };
        Self {
            centre,
            axis,
            shape,
            extent,
        }
    }
}

fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

fn sub(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

/// Whether the two bodies overlap or touch.
fn overlaps(a: &Placed, b: &Placed) -> bool {
    use BodyShape::*;
    match (a.shape, b.shape) {
        (Circle { radius: ra }, Circle { radius: rb }) => {
            let d = sub(b.centre, a.centre);
            let r = ra as f64 + rb as f64;
            dot(d, d) <= r * r
        }
        (Circle { radius }, Rect { half_size }) => circle_rect(a, radius, b, half_size),
        (Rect { half_size }, Circle { radius }) => circle_rect(b, radius, a, half_size),
        (Rect { half_size: ha }, Rect { half_size: hb }) => rect_rect(a, ha, b, hb),
    }
}

fn circle_rect(circle: &Placed, radius: f32, rect: &Placed, half: Vec2) -> bool {
    let d = sub(circle.centre, rect.centre);
    let (ux, uy) = (rect.axis, [-rect.axis[1], rect.axis[0]]);
    let (lx, ly) = (dot(d, ux), dot(d, uy));
    let cx = lx.clamp(-(half.x as f64), half.x as f64);
    let cy = ly.clamp(-(half.y as f64), half.y as f64);
    let (ex, ey) = (lx - cx, ly - cy);
    ex * ex + ey * ey <= (radius as f64) * (radius as f64)
}

fn rect_rect(a: &Placed, ha: Vec2, b: &Placed, hb: Vec2) -> bool {
    let d = sub(b.centre, a.centre);
    let axes_a = [a.axis, [-a.axis[1], a.axis[0]]];
    let axes_b = [b.axis, [-b.axis[1], b.axis[0]]];
    let (ha, hb) = ([ha.x as f64, ha.y as f64], [hb.x as f64, hb.y as f64]);
    // Separating axis test on the four face normals.
    let radius = |axes: &[[f64; 2]; 2], half: [f64; 2], n: [f64; 2]| {
        half[0] * dot(axes[0], n).abs() + half[1] * dot(axes[1], n).abs()
    };
    axes_a
        .iter()
        .chain(axes_b.iter())
        .all(|&n| dot(d, n).abs() <= radius(&axes_a, ha, n) + radius(&axes_b, hb, n))
}

/// Every overlapping pair among `entities[i]` with shape `shapes[i]` at
/// `transforms[i]`, as sorted `(min, max)` entity pairs.
pub fn exact_pairs(
    entities: &[Entity],
    shapes: &[BodyShape],
    transforms: &[Transform],
) -> Vec<(Entity, Entity)> {
    let placed: Vec<Placed> = shapes
        .iter()
        .zip(transforms)
        .map(|(&shape, transform)| Placed::new(shape, transform))
        .collect();
    let mut order: Vec<usize> = (0..placed.len()).collect();
    let min_x = |i: usize| placed[i].centre[0] - placed[i].extent[0];
    order.sort_unstable_by(|&i, &j| min_x(i).total_cmp(&min_x(j)));
    let mut pairs = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let max_x = placed[i].centre[0] + placed[i].extent[0];
        for &j in &order[k + 1..] {
            if min_x(j) > max_x {
                break;
            }
            let (p, q) = (&placed[i], &placed[j]);
            if (p.centre[1] - q.centre[1]).abs() > p.extent[1] + q.extent[1] {
                continue;
            }
            if overlaps(p, q) {
                let (a, b) = (entities[i], entities[j]);
                pairs.push((a.min(b), a.max(b)));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}
