//! The exact pair set, computed independently of every engine: f64 overlap
//! tests (touching counts) on candidates from a sort-and-sweep along x.
//! Static colliders (a level's tiles, `--static-fraction`'s still ones) are
//! left out of the sweep: [`StaticIndex`] files them once in a grid, pairs
//! them with the moving bodies only, never with each other (no engine
//! reports static pairs), and so keeps the truth of 100,000 tiles to the
//! movers' share of the work.
//!
//! Each body is taken as Bevy renders it: from its `GlobalTransform`'s
//! matrix, read in f64. The scene spins bodies with `Transform::rotate_z`,
//! whose quaternions drift from unit length by a few 1e-6 over hundreds of
//! frames; the matrix of such a quaternion is a rotation scaled by that
//! much, with its x axis turned by about as much. Taking the angle from the
//! quaternion instead moves edges by up to about 1e-4 and calls pairs that
//! close to touching differently from what is drawn (and from the design's
//! rule: poses and scales come from the `GlobalTransform`).
//!
//! Circles and rectangles have their own tests. Every pair with a capsule, a
//! segment or a polygon is tested as two rounded convex shapes: a core (a
//! point, a segment or a convex polygon, in world coordinates) grown by a
//! radius (a circle's or a capsule's, 0 otherwise). They touch when the
//! cores intersect (exact orientation tests) or when the distance between
//! the cores is at most the sum of the radii.

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
    /// Half extent of the bounding box along x and y, about `centre`.
    extent: [f64; 2],
}

/// A body's shape in f64, scaled as its matrix scales it.
#[derive(Clone, Copy)]
enum Shape64 {
    Circle {
        radius: f64,
    },
    Rect {
        half_size: [f64; 2],
    },
    /// A capsule, segment or polygon, in world coordinates.
    Rounded(Core64),
}

/// A convex core in world coordinates grown by `radius`: one point (a
/// circle), two (a segment or capsule) or a convex polygon's vertices,
/// counter-clockwise.
#[derive(Clone, Copy, Debug)]
struct Core64 {
    points: [[f64; 2]; 8],
    len: usize,
    radius: f64,
}

impl Core64 {
    fn new(points: &[[f64; 2]], radius: f64) -> Self {
        let mut core = Self {
            points: [[0.0; 2]; 8],
            len: points.len(),
            radius,
        };
        core.points[..points.len()].copy_from_slice(points);
        core
    }

    fn points(&self) -> &[[f64; 2]] {
        &self.points[..self.len]
    }

    /// The core's edges: its point (as a segment of length 0), its segment,
    /// or its polygon's edges.
    fn edges(&self) -> impl Iterator<Item = ([f64; 2], [f64; 2])> + '_ {
        let n = self.len;
        let count = if n <= 2 { 1 } else { n };
        (0..count).map(move |i| (self.points[i], self.points[(i + 1) % n]))
    }

    /// Whether `p` is inside or on this core, which must have an area.
    fn contains(&self, p: [f64; 2]) -> bool {
        self.edges()
            .all(|(a, b)| cross(sub(b, a), sub(p, a)) >= 0.0)
    }
}

impl Placed {
    fn new(shape: BodyShape, transform: &GlobalTransform) -> Self {
        let matrix = transform.affine();
        let column = |c: Vec3A| [c.x as f64, c.y as f64];
        let (x_axis, y_axis) = (column(matrix.x_axis), column(matrix.y_axis));
        let scale = [dot(x_axis, x_axis).sqrt(), dot(y_axis, y_axis).sqrt()];
        let centre = [matrix.translation.x as f64, matrix.translation.y as f64];
        let axis = [x_axis[0] / scale[0], x_axis[1] / scale[0]];
        // A local point scaled along the body's axes, then turned and moved
        // as the rectangle's corners are.
        let place = |p: Vec2| {
            let (x, y) = (p.x as f64 * scale[0], p.y as f64 * scale[1]);
            [
                centre[0] + axis[0] * x - axis[1] * y,
                centre[1] + axis[1] * x + axis[0] * y,
            ]
        };
        let rounded = |core: Core64| {
            let mut extent = [0.0_f64; 2];
            for p in core.points() {
                for k in 0..2 {
                    extent[k] = extent[k].max((p[k] - centre[k]).abs() + core.radius);
                }
            }
            (Shape64::Rounded(core), extent)
        };
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
            // The radius scales with x, the length with y (as the rectangle's
            // half sizes do).
            BodyShape::Capsule {
                radius,
                half_length,
            } => rounded(Core64::new(
                &[
                    place(Vec2::new(0.0, -half_length)),
                    place(Vec2::new(0.0, half_length)),
                ],
                radius as f64 * scale[0],
            )),
            BodyShape::Segment { a, b } => rounded(Core64::new(&[place(a), place(b)], 0.0)),
            BodyShape::Polygon(points) => {
                let placed: Vec<[f64; 2]> = points.as_slice().iter().map(|&p| place(p)).collect();
                rounded(Core64::new(&placed, 0.0))
            }
        };
        Self {
            centre,
            axis,
            shape,
            extent,
        }
    }

    /// The body as a rounded convex core.
    fn core(&self) -> Core64 {
        match self.shape {
            Shape64::Circle { radius } => Core64::new(&[self.centre], radius),
            Shape64::Rect {
                half_size: [hx, hy],
            } => {
                let (ux, uy) = (self.axis, [-self.axis[1], self.axis[0]]);
                let corner = |sx: f64, sy: f64| {
                    [
                        self.centre[0] + ux[0] * sx * hx + uy[0] * sy * hy,
                        self.centre[1] + ux[1] * sx * hx + uy[1] * sy * hy,
                    ]
                };
                Core64::new(
                    &[
                        corner(-1.0, -1.0),
                        corner(1.0, -1.0),
                        corner(1.0, 1.0),
                        corner(-1.0, 1.0),
                    ],
                    0.0,
                )
            }
            Shape64::Rounded(core) => core,
        }
    }
}

fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

fn sub(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

fn cross(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[1] - a[1] * b[0]
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
        _ => rounded_overlap(&a.core(), &b.core()),
    }
}

/// Whether two rounded convex shapes overlap or touch.
fn rounded_overlap(a: &Core64, b: &Core64) -> bool {
    if cores_intersect(a, b) {
        return true;
    }
    let radii = a.radius + b.radius;
    radii > 0.0 && core_distance_squared(a, b) <= radii * radii
}

/// Whether the cores share a point: two of their edges meet, or one core
/// lies inside the other (which then has an area).
fn cores_intersect(a: &Core64, b: &Core64) -> bool {
    (a.edges()).any(|(p0, p1)| b.edges().any(|(q0, q1)| segments_intersect(p0, p1, q0, q1)))
        || (a.len >= 3 && a.contains(b.points[0]))
        || (b.len >= 3 && b.contains(a.points[0]))
}

/// Whether segments `p0..p1` and `q0..q1` (either may be a point) share a
/// point, by the signs of orientations.
fn segments_intersect(p0: [f64; 2], p1: [f64; 2], q0: [f64; 2], q1: [f64; 2]) -> bool {
    let orient = |a: [f64; 2], b: [f64; 2], c: [f64; 2]| cross(sub(b, a), sub(c, a));
    // `c` on the line through `a` and `b`: is it between them?
    let within = |a: [f64; 2], b: [f64; 2], c: [f64; 2]| {
        c[0] >= a[0].min(b[0])
            && c[0] <= a[0].max(b[0])
            && c[1] >= a[1].min(b[1])
            && c[1] <= a[1].max(b[1])
    };
    let (d1, d2) = (orient(q0, q1, p0), orient(q0, q1, p1));
    let (d3, d4) = (orient(p0, p1, q0), orient(p0, p1, q1));
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
        && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
    {
        return true;
    }
    (d1 == 0.0 && within(q0, q1, p0))
        || (d2 == 0.0 && within(q0, q1, p1))
        || (d3 == 0.0 && within(p0, p1, q0))
        || (d4 == 0.0 && within(p0, p1, q1))
}

/// The squared distance between the cores, from the closest points of
/// every edge of one and every edge of the other (0 or more when they
/// intersect; only meaningful when they do not).
fn core_distance_squared(a: &Core64, b: &Core64) -> f64 {
    let mut best = f64::INFINITY;
    for (p0, p1) in a.edges() {
        for (q0, q1) in b.edges() {
            best = best.min(segment_distance_squared(p0, p1, q0, q1));
        }
    }
    best
}

/// The squared distance between segments that do not cross: the smallest
/// distance from an end of one to the other.
fn segment_distance_squared(p0: [f64; 2], p1: [f64; 2], q0: [f64; 2], q1: [f64; 2]) -> f64 {
    point_segment_distance_squared(p0, q0, q1)
        .min(point_segment_distance_squared(p1, q0, q1))
        .min(point_segment_distance_squared(q0, p0, p1))
        .min(point_segment_distance_squared(q1, p0, p1))
}

fn point_segment_distance_squared(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (ab, ap) = (sub(b, a), sub(p, a));
    let length_squared = dot(ab, ab);
    let t = if length_squared > 0.0 {
        (dot(ap, ab) / length_squared).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let closest = [a[0] + ab[0] * t, a[1] + ab[1] * t];
    let d = sub(p, closest);
    dot(d, d)
}

/// How far two bodies are from touching, in world units: the distance
/// between their surfaces when apart (> 0), minus the depth of their overlap
/// when they overlap (< 0, from separating axes). For explaining a pair an
/// engine called differently from the truth: a gap of a few 1e-6 is
/// rounding, more is a wrong answer.
pub fn gap(shapes: [BodyShape; 2], transforms: [&GlobalTransform; 2]) -> f64 {
    let (a, b) = (
        Placed::new(shapes[0], transforms[0]).core(),
        Placed::new(shapes[1], transforms[1]).core(),
    );
    let radii = a.radius + b.radius;
    if !cores_intersect(&a, &b) {
        return core_distance_squared(&a, &b).sqrt() - radii;
    }
    // Overlapping cores: the least overlap of their projections on the edge
    // normals of both (every edge of their Minkowski difference is parallel
    // to one of these), plus the radii.
    let mut depth = f64::INFINITY;
    for core in [&a, &b] {
        if core.len < 2 {
            continue;
        }
        for (p0, p1) in core.edges() {
            let edge = sub(p1, p0);
            let length = dot(edge, edge).sqrt();
            if length == 0.0 {
                continue;
            }
            let normal = [edge[1] / length, -edge[0] / length];
            let span = |c: &Core64| {
                c.points()
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &p| {
                        (lo.min(dot(p, normal)), hi.max(dot(p, normal)))
                    })
            };
            let ((a_lo, a_hi), (b_lo, b_hi)) = (span(&a), span(&b));
            depth = depth.min((a_hi - b_lo).min(b_hi - a_lo));
        }
    }
    if depth == f64::INFINITY {
        depth = 0.0; // two equal points
    }
    -(depth + radii)
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

/// Bodies that never move (static colliders, tiles), read once and filed
/// into a uniform grid by their boxes, for the pairs each moving body makes
/// with them. Two of them are never a pair: no engine reports static pairs.
/// A sweep of every body would instead test each tile against the tiles
/// of its column, every frame.
pub struct StaticIndex {
    entities: Vec<Entity>,
    placed: Vec<Placed>,
    grid: Grid,
    /// Bodies by cell: those of cell `c` are `items[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    items: Vec<u32>,
}

/// Square cells of side `cell` from `origin`, `dims` of them along x and y.
#[derive(Clone, Copy)]
struct Grid {
    origin: [f64; 2],
    cell: f64,
    dims: [usize; 2],
}

impl Grid {
    /// Calls `f` with every cell the box of `p`, grown by `margin` cells,
    /// covers (clamped to the grid).
    fn for_cells(&self, p: &Placed, margin: i64, mut f: impl FnMut(usize)) {
        let mut range = [[0_usize; 2]; 2];
        for (k, range) in range.iter_mut().enumerate() {
            let cell_of = |v: f64| ((v - self.origin[k]) / self.cell).floor() as i64;
            let first = cell_of(p.centre[k] - p.extent[k]) - margin;
            let last = cell_of(p.centre[k] + p.extent[k]) + margin;
            let end = self.dims[k] as i64 - 1;
            if last < 0 || first > end {
                return;
            }
            *range = [first.max(0) as usize, last.min(end) as usize];
        }
        for y in range[1][0]..=range[1][1] {
            for x in range[0][0]..=range[0][1] {
                f(y * self.dims[0] + x);
            }
        }
    }
}

impl StaticIndex {
    pub fn new(entities: &[Entity], shapes: &[BodyShape], transforms: &[GlobalTransform]) -> Self {
        let placed: Vec<Placed> = shapes
            .iter()
            .zip(transforms)
            .map(|(&shape, transform)| Placed::new(shape, transform))
            .collect();
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        let mut extents = 0.0;
        for p in &placed {
            for k in 0..2 {
                lo[k] = lo[k].min(p.centre[k] - p.extent[k]);
                hi[k] = hi[k].max(p.centre[k] + p.extent[k]);
            }
            extents += p.extent[0].max(p.extent[1]);
        }
        // Cells about twice a typical body's box.
        let cell = (4.0 * extents / placed.len().max(1) as f64).max(1e-6);
        let dims = if placed.is_empty() {
            [0, 0]
        } else {
            [0, 1].map(|k| ((hi[k] - lo[k]) / cell) as usize + 1)
        };
        let grid = Grid {
            origin: lo,
            cell,
            dims,
        };
        // Counted, then filed (a counting sort by cell).
        let mut starts = vec![0_u32; dims[0] * dims[1] + 1];
        for p in &placed {
            grid.for_cells(p, 0, |c| starts[c + 1] += 1);
        }
        for c in 1..starts.len() {
            starts[c] += starts[c - 1];
        }
        let mut next = starts.clone();
        let mut items = vec![0; *starts.last().unwrap() as usize];
        for (i, p) in placed.iter().enumerate() {
            grid.for_cells(p, 0, |c| {
                items[next[c] as usize] = i as u32;
                next[c] += 1;
            });
        }
        Self {
            entities: entities.to_vec(),
            placed,
            grid,
            starts,
            items,
        }
    }

    /// Appends every pair of a moving body (`entities[i]` with `shapes[i]`
    /// at `transforms[i]`) with a static one that it overlaps or touches, as
    /// `(min, max)` entity pairs (unsorted).
    pub fn pairs_with(
        &self,
        entities: &[Entity],
        shapes: &[BodyShape],
        transforms: &[GlobalTransform],
        pairs: &mut Vec<(Entity, Entity)>,
    ) {
        let mut candidates = Vec::new();
        for ((&entity, &shape), transform) in entities.iter().zip(shapes).zip(transforms) {
            let p = Placed::new(shape, transform);
            candidates.clear();
            // One cell more on every side: rounding in the cell of a box
            // edge cannot lose a pair.
            self.grid.for_cells(&p, 1, |c| {
                candidates.extend_from_slice(
                    &self.items[self.starts[c] as usize..self.starts[c + 1] as usize],
                );
            });
            candidates.sort_unstable();
            candidates.dedup();
            for &s in &candidates {
                let q = &self.placed[s as usize];
                let apart =
                    (0..2).any(|k| (p.centre[k] - q.centre[k]).abs() > p.extent[k] + q.extent[k]);
                if !apart && overlaps(&p, q) {
                    let other = self.entities[s as usize];
                    pairs.push((entity.min(other), entity.max(other)));
                }
            }
        }
    }
}
