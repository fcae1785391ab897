//! The exact pair set, computed independently of every engine: f64 overlap
//! tests (touching counts) on candidates from a sort-and-sweep along x.
//!
//! Each body is taken as Bevy renders it: from its `GlobalTransform`'s
//! matrix, read in f64. The scene spins bodies with `Transform::rotate_z`,
//! whose quaternions drift from unit length by a few 1e-6 over hundreds of
//! frames; the matrix of such a quaternion is a rotation scaled by that
//! much, with its x axis turned by about as much. Taking the angle from the
//! quaternion instead moves edges by up to about 1e-4 and calls pairs that
//! close to touching differently from what is drawn (and from the design's
//! rule: poses and scales come from the `GlobalTransform`).

use bevy::prelude::*;

use crate::scene::BodyShape;

/// The overlap test's view of a body: its shape in f64, scaled by the
/// lengths of the matrix's x and y axes and turned as its x axis.
#[derive(Clone, Copy)]
struct Placed {
    centre: [f64; 2],
    /// Unit x axis of the body (cos, sin).
    axis: [f64; 2],
    shape: Shape64,
    /// Half extent of the bounding box along x and y.
    extent: [f64; 2],
}

/// A body's shape in f64, scaled as its matrix scales it.
#[derive(Clone, Copy)]
enum Shape64 {
    Circle { radius: f64 },
    Rect { half_size: [f64; 2] },
}

impl Placed {
    fn new(shape: BodyShape, transform: &GlobalTransform) -> Self {
        let matrix = transform.affine();
        let column = |c: Vec3A| [c.x as f64, c.y as f64];
        let (x_axis, y_axis) = (column(matrix.x_axis), column(matrix.y_axis));
        let scale = [dot(x_axis, x_axis).sqrt(), dot(y_axis, y_axis).sqrt()];
        let centre = [matrix.translation.x as f64, matrix.translation.y as f64];
        let axis = [x_axis[0] / scale[0], x_axis[1] / scale[0]];
        let (shape, extent) = match shape {
            BodyShape::Circle { radius } => {
                let radius = radius as f64 * scale[0].max(scale[1]);
                (Shape64::Circle { radius }, [radius; 2])
            }
            BodyShape::Rect { half_size } => {
                let (hx, hy) = (half_size.x as f64 * scale[0], half_size.y as f64 * scale[1]);
                let (c, s) = (axis[0].abs(), axis[1].abs());
                (
                    Shape64::Rect {
                        half_size: [hx, hy],
                    },
                    [hx * c + hy * s, hx * s + hy * c],
                )
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
    use Shape64::*;
    match (a.shape, b.shape) {
        (Circle { radius: ra }, Circle { radius: rb }) => {
            let d = sub(b.centre, a.centre);
            let r = ra + rb;
            dot(d, d) <= r * r
        }
        (Circle { radius }, Rect { half_size }) => circle_rect(a, radius, b, half_size),
        (Rect { half_size }, Circle { radius }) => circle_rect(b, radius, a, half_size),
        (Rect { half_size: ha }, Rect { half_size: hb }) => rect_rect(a, ha, b, hb),
    }
}

fn circle_rect(circle: &Placed, radius: f64, rect: &Placed, half: [f64; 2]) -> bool {
    let d = sub(circle.centre, rect.centre);
    let (ux, uy) = (rect.axis, [-rect.axis[1], rect.axis[0]]);
    let (lx, ly) = (dot(d, ux), dot(d, uy));
    let cx = lx.clamp(-half[0], half[0]);
    let cy = ly.clamp(-half[1], half[1]);
    let (ex, ey) = (lx - cx, ly - cy);
    ex * ex + ey * ey <= radius * radius
}

fn rect_rect(a: &Placed, ha: [f64; 2], b: &Placed, hb: [f64; 2]) -> bool {
    let d = sub(b.centre, a.centre);
    let axes_a = [a.axis, [-a.axis[1], a.axis[0]]];
    let axes_b = [b.axis, [-b.axis[1], b.axis[0]]];
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
    transforms: &[GlobalTransform],
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
