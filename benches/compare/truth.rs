//! The exact pair set, computed independently of every engine: f64 overlap
//! tests (touching counts) on candidates from a sort-and-sweep along x.
//! Static colliders (a level's tiles, `--static-fraction`'s still ones) are
//! left out of the sweep: [`StaticIndex`] files them once in a grid, pairs
//! them with the moving bodies only, never with each other (no engine
//! reports static pairs), and so keeps the truth of 100,000 tiles to the
//! movers' share of the work.
//!
//! The geometry is the crate's f64 reference (`bevy_collide2d::reference`,
//! which the crate's own tests judge by too; not public API). Each body is
//! taken as Bevy renders it: from its `GlobalTransform`'s matrix, read in
//! f64 ([`MatrixPose`]). The scene spins bodies with `Transform::rotate_z`,
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

use bevy::math::DVec2;
use bevy::prelude::*;
use bevy_collide2d::reference::{
    MatrixPose, RefPair, RefRect, RefShape, circle_touches_rect, circles_touch, cores_touch,
    rects_touch,
};

use crate::scene::{BodyShape, CompoundParts};

/// The overlap test's view of a body: its shape in f64, scaled by the
/// lengths of the matrix's x and y axes and turned as its x axis.
#[derive(Clone, Copy)]
struct Placed {
    centre: DVec2,
    /// Unit x axis of the body (cos, sin).
    axis: DVec2,
    shape: Shape64,
    /// Half extent of the bounding box along x and y, about `centre`.
    extent: DVec2,
}

/// A body's shape in f64, scaled as its matrix scales it.
#[derive(Clone, Copy)]
enum Shape64 {
    Circle {
        radius: f64,
    },
    Rect {
        half_size: DVec2,
    },
    /// A capsule, segment or polygon, in world coordinates.
    Rounded(Core64),
}

/// A convex core in world coordinates grown by `radius`: one point (a
/// circle), two (a segment or capsule) or a convex polygon's vertices,
/// counter-clockwise. Inline, up to the 8 points of a scene's polygon: the
/// truth places every body every frame.
#[derive(Clone, Copy, Debug)]
struct Core64 {
    points: [DVec2; 8],
    len: usize,
    radius: f64,
}

impl Core64 {
    fn new(points: &[DVec2], radius: f64) -> Self {
        let mut core = Self {
            points: [DVec2::ZERO; 8],
            len: points.len(),
            radius,
        };
        core.points[..points.len()].copy_from_slice(points);
        core
    }

    fn points(&self) -> &[DVec2] {
        &self.points[..self.len]
    }
}

impl Placed {
    fn new(shape: BodyShape, transform: &GlobalTransform) -> Self {
        let pose = MatrixPose::of(transform);
        let (centre, axis, scale) = (pose.centre, pose.axis, pose.scale);
        let rounded = |core: Core64| {
            let mut extent = DVec2::ZERO;
            for &p in core.points() {
                let d = (p - centre).abs();
                extent = DVec2::new(
                    extent.x.max(d.x + core.radius),
                    extent.y.max(d.y + core.radius),
                );
            }
            (Shape64::Rounded(core), extent)
        };
        let (shape, extent) = match shape {
            BodyShape::Circle { radius } => {
                let radius = radius as f64 * scale.x.max(scale.y);
                (Shape64::Circle { radius }, DVec2::splat(radius))
            }
            BodyShape::Rect { half_size } => {
                let (hx, hy) = (half_size.x as f64 * scale.x, half_size.y as f64 * scale.y);
                let (c, s) = (axis.x.abs(), axis.y.abs());
                (
                    Shape64::Rect {
                        half_size: DVec2::new(hx, hy),
                    },
                    DVec2::new(hx * c + hy * s, hx * s + hy * c),
                )
            }
            // The radius scales with x, the length with y (as the rectangle's
            // half sizes do).
            BodyShape::Capsule {
                radius,
                half_length,
            } => rounded(Core64::new(
                &[
                    pose.place(Vec2::new(0.0, -half_length)),
                    pose.place(Vec2::new(0.0, half_length)),
                ],
                radius as f64 * scale.x,
            )),
            BodyShape::Segment { a, b } => {
                rounded(Core64::new(&[pose.place(a), pose.place(b)], 0.0))
            }
            BodyShape::Polygon(points) => {
                let placed: Vec<DVec2> = points.as_slice().iter().map(|&p| pose.place(p)).collect();
                rounded(Core64::new(&placed, 0.0))
            }
            BodyShape::Compound(_) => unreachable!("compounds are taken apart first (`parts`)"),
        };
        Self {
            centre,
            axis,
            shape,
            extent,
        }
    }

    /// The body as a rectangle with these half sizes.
    fn rect(&self, half_size: DVec2) -> RefRect {
        RefRect {
            centre: self.centre,
            axis: self.axis,
            half_size,
        }
    }

    /// The body as a rounded convex core.
    fn core(&self) -> Core64 {
        match self.shape {
            Shape64::Circle { radius } => Core64::new(&[self.centre], radius),
            Shape64::Rect { half_size } => Core64::new(&self.rect(half_size).corners(), 0.0),
            Shape64::Rounded(core) => core,
        }
    }
}

/// Whether the two bodies overlap or touch.
fn overlaps(a: &Placed, b: &Placed) -> bool {
    use Shape64::*;
    match (a.shape, b.shape) {
        (Circle { radius: ra }, Circle { radius: rb }) => circles_touch(a.centre, ra, b.centre, rb),
        (Circle { radius }, Rect { half_size }) => {
            circle_touches_rect(a.centre, radius, &b.rect(half_size))
        }
        (Rect { half_size }, Circle { radius }) => {
            circle_touches_rect(b.centre, radius, &a.rect(half_size))
        }
        (Rect { half_size: ha }, Rect { half_size: hb }) => rects_touch(&a.rect(ha), &b.rect(hb)),
        _ => {
            let (a, b) = (a.core(), b.core());
            cores_touch(a.points(), a.radius, b.points(), b.radius)
        }
    }
}

/// How far two bodies are from touching, in world units: the distance
/// between their surfaces when apart (> 0), minus the depth of their overlap
/// when they overlap (< 0), by the reference's exact gap ([`RefPair`]). For
/// explaining a pair an engine called differently from the truth: a gap of
/// a few 1e-6 is rounding, more is a wrong answer.
pub fn gap(shapes: [BodyShape; 2], transforms: [&GlobalTransform; 2]) -> f64 {
    // Of two compounds, the nearest (or deepest) of their parts' gaps.
    let [a, b] = [0, 1].map(|k| parts(&[Entity::PLACEHOLDER], &shapes[k..=k], &[*transforms[k]]));
    let mut nearest = f64::INFINITY;
    for (&shape_a, at_a) in a.1.iter().zip(&a.2) {
        for (&shape_b, at_b) in b.1.iter().zip(&b.2) {
            let [a, b] = [(shape_a, at_a), (shape_b, at_b)].map(|(shape, at)| {
                let core = Placed::new(shape, at).core();
                RefShape::from_core(core.points().to_vec(), core.radius)
            });
            nearest = nearest.min(RefPair::new(&a, &b).gap());
        }
    }
    nearest
}

/// The bodies with every compound taken apart: each part a body of its own,
/// with the compound's entity, at the compound's transform times the part's
/// pose.
type Parts = (Vec<Entity>, Vec<BodyShape>, Vec<GlobalTransform>);

fn parts(entities: &[Entity], shapes: &[BodyShape], transforms: &[GlobalTransform]) -> Parts {
    let mut found: Parts = Default::default();
    for ((&entity, &shape), transform) in entities.iter().zip(shapes).zip(transforms) {
        let BodyShape::Compound(CompoundParts(compound)) = shape else {
            found.0.push(entity);
            found.1.push(shape);
            found.2.push(*transform);
            continue;
        };
        for part in compound {
            let local = Transform::from_translation(part.offset.extend(0.0))
                .with_rotation(Quat::from_rotation_z(part.angle));
            found.0.push(entity);
            found.1.push(part.shape.body_shape());
            found.2.push(transform.mul_transform(local));
        }
    }
    found
}

/// Whether any body is a compound.
fn has_compounds(shapes: &[BodyShape]) -> bool {
    shapes
        .iter()
        .any(|shape| matches!(shape, BodyShape::Compound(_)))
}

/// Every overlapping pair among `entities[i]` with shape `shapes[i]` at
/// `transforms[i]`, as sorted `(min, max)` entity pairs.
pub fn exact_pairs(
    entities: &[Entity],
    shapes: &[BodyShape],
    transforms: &[GlobalTransform],
) -> Vec<(Entity, Entity)> {
    if has_compounds(shapes) {
        // Pairs of parts, one pair per two bodies, none within one.
        let (entities, shapes, transforms) = parts(entities, shapes, transforms);
        let mut pairs = exact_pairs(&entities, &shapes, &transforms);
        pairs.retain(|pair| pair.0 != pair.1);
        pairs.dedup();
        return pairs;
    }
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
        if has_compounds(shapes) {
            // The caller sorts and dedups: several parts may touch one tile.
            let (entities, shapes, transforms) = parts(entities, shapes, transforms);
            return self.pairs_with(&entities, &shapes, &transforms, pairs);
        }
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
