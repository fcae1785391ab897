//! Hollow ray casts: shapes seen as their outlines, so that a ray starting
//! inside a shape hits it where it leaves.
//!
//! A ray whose origin is outside a shape hits it exactly as the solid cast
//! does ([`Shape::cast_ray`]): where it enters. A ray whose origin is inside
//! or on the boundary (touching counts, as everywhere here) hits it at the
//! end of the stretch of the ray that starts at the origin and stays in the
//! shape: where it leaves, with the outward normal there (along the ray
//! rather than against it). A ray starting on the boundary and pointing out
//! leaves at once: distance 0, with the normal of that boundary. A segment
//! has no inside: a ray starting on one leaves it at once, unless it runs
//! along it, when it leaves at its far end. A compound is the union of its
//! parts: the ray leaves it where it leaves the last of the parts that
//! overlap or touch one another along it, not at a seam between two parts
//! (the pieces of a concave polygon, the merged rectangles of a tile map).
//!
//! The exit is found in closed form for each kind (the far root of a
//! circle, the nearest far side of a rectangle's slabs or a polygon's
//! half-planes, the farthest of a capsule's middle and end discs).

use bevy::math::{Dir2, Isometry2d, Vec2};

use crate::geometry::query::ray::Ray;
use crate::geometry::query::ray::RayIntersection;
use crate::geometry::query::ray_convex::convex_exit;
use crate::geometry::shape::Shape;
use crate::geometry::shape::compound::Compound;
use crate::geometry::shape::part_grid::RayWalk;
use crate::geometry::shape::view::ShapeView;
use crate::util::scratch::{scratch_items, with_scratch};

impl Shape {
    /// Casts a ray from `origin` along `direction` against this shape at
    /// `pose` seen as hollow: a ray starting inside the shape (or on its
    /// boundary) hits it where it leaves, at most `max_distance` along the
    /// ray; a ray starting outside hits it where it enters, exactly as
    /// [`Shape::cast_ray`] does. A ray starting on the boundary and
    /// pointing out leaves at once (distance 0); a segment has no inside (a
    /// ray starting on one leaves it at once, unless it runs along it, to
    /// its far end); a compound is the union of its parts (the ray leaves
    /// where it leaves the last part overlapping along it, not at a seam).
    ///
    /// The normal is the shape's outward normal where the ray leaves (it
    /// points along the ray), or where it enters as in [`Shape::cast_ray`].
    /// A ray that leaves beyond `max_distance` hits nothing. Bad input
    /// gives `None`, as for [`Shape::cast_ray`].
    ///
    /// ```
    /// # use bevy::math::{Dir2, Isometry2d, Vec2};
    /// # use bevy_collide2d::geometry::Shape;
    /// let room = Shape::Rect { half_size: Vec2::new(10.0, 5.0) };
    /// let pose = Isometry2d::IDENTITY;
    /// // Solid: a ray from inside hits at once.
    /// let solid = room.cast_ray(pose, Vec2::ZERO, Dir2::X, 100.0).unwrap();
    /// assert_eq!(solid.distance, 0.0);
    /// // Hollow: it hits the wall it leaves through.
    /// let hollow = room.cast_ray_hollow(pose, Vec2::ZERO, Dir2::X, 100.0).unwrap();
    /// assert_eq!(hollow.distance, 10.0);
    /// assert_eq!(hollow.point, Vec2::new(10.0, 0.0));
    /// assert_eq!(hollow.normal, Dir2::X);
    /// // Too short to reach the wall: no hit.
    /// assert!(room.cast_ray_hollow(pose, Vec2::ZERO, Dir2::X, 9.0).is_none());
    /// ```
    pub fn cast_ray_hollow(
        &self,
        pose: Isometry2d,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
    ) -> Option<RayIntersection> {
        let (placed, ray) = self.placed_ray(pose, origin, direction, max_distance)?;
        placed.shape().cast_ray_as(placed.pose(), ray, false)
    }
}

impl ShapeView<'_> {
    /// [`Shape::cast_ray`] when `solid`, else [`Shape::cast_ray_hollow`],
    /// for a checked ray, this shape and `pose` checked too (as
    /// [`ShapeView::cast_ray`]).
    #[inline]
    pub(crate) fn cast_ray_as(
        &self,
        pose: Isometry2d,
        ray: Ray,
        solid: bool,
    ) -> Option<RayIntersection> {
        let entry = self.cast_ray(pose, ray)?;
        if solid || entry.distance > 0.0 {
            return Some(entry);
        }
        // The origin is inside or on the shape: out through the far side.
        let (origin, direction, max_distance) = ray.parts();
        let (distance, normal) = match *self {
            ShapeView::Compound(compound) => compound_exit(compound, pose, ray)?,
            ShapeView::Convex(convex) => convex_exit(convex, pose, origin, direction, 0.0),
        };
        (distance <= max_distance).then(|| RayIntersection {
            distance,
            point: origin + *direction * distance,
            normal,
        })
    }
}

/// One part's stretch of a ray: where it enters (0 when the origin is in
/// it) and leaves, and the outward normal where it leaves.
#[derive(Clone, Copy, Debug)]
struct Stretch {
    enter: f32,
    exit: f32,
    normal: Dir2,
    /// The part's index, to tell whether it touches where a run ends.
    part: u32,
}

scratch_items!(Stretch);

/// A hollow ray in a compound: its parts' stretches along the ray.
struct Stretches<'a> {
    compound: &'a Compound,
    pose: Isometry2d,
    ray: Ray,
    stretches: &'a mut Vec<Stretch>,
    /// The farthest exit so far; the origin is in the compound, so at
    /// least 0.
    farthest: f32,
}

impl Stretches<'_> {
    /// Adds part `i`'s stretch, if the ray meets it within `max_distance`.
    fn add(&mut self, i: usize) {
        let part = &self.compound.parts()[i];
        let part_pose = self.pose * part.pose;
        // A part is never a compound (`Compound::new` flattens them).
        let Some(shape) = part.shape.view().convex() else {
            return;
        };
        let (origin, direction) = (self.ray.origin(), self.ray.direction());
        if let Some(entry) = shape.cast_ray(part_pose, self.ray) {
            let (exit, normal) = convex_exit(shape, part_pose, origin, direction, entry.distance);
            self.farthest = self.farthest.max(exit);
            self.stretches.push(Stretch {
                enter: entry.distance,
                exit,
                normal,
                part: i as u32,
            });
        }
    }
}

/// Along a big compound's part grid: no part along the ray is skipped (one
/// beyond the run so far may join it once another part extends it), and
/// the walk stops at the first cell past every stretch found, where the
/// run has surely ended.
impl RayWalk for Stretches<'_> {
    fn test(&mut self, part: usize) {
        self.add(part);
    }

    fn reach(&self) -> f32 {
        self.farthest
    }

    fn part_reach(&self) -> f32 {
        f32::INFINITY
    }
}

/// Where a ray whose origin is in some part of `compound` at `pose` leaves
/// their union, if within `max_distance`: the stretches of the parts along
/// it, in order, joined while each starts where the run so far ends (or
/// before), and the normal of the part whose stretch ends the run. A part
/// that touches the end of the run to within rounding continues it too:
/// two parts that share a side (a seam) meet there exactly, but the ray's
/// distances to that side, worked out in each part's frame, may differ in
/// their last bits. A big compound's parts are found by walking its part
/// grid along the ray, as the solid cast does. Out of line: rare.
#[inline(never)]
fn compound_exit(compound: &Compound, pose: Isometry2d, ray: Ray) -> Option<(f32, Dir2)> {
    let (origin, direction, max_distance) = ray.parts();
    with_scratch(|stretches: &mut Vec<Stretch>| {
        let mut along = Stretches {
            compound,
            pose,
            ray,
            stretches: &mut *stretches,
            farthest: 0.0,
        };
        match compound.part_grid() {
            Some(grid) => {
                let local_origin = pose.inverse_transform_point(origin);
                let local_direction = pose.rotation.inverse() * direction.as_vec2();
                grid.walk_ray(local_origin, local_direction, max_distance, &mut along);
            }
            None => (0..compound.parts().len()).for_each(|i| along.add(i)),
        }
        stretches.sort_unstable_by(|p, q| p.enter.total_cmp(&q.enter).then(p.part.cmp(&q.part)));
        let (mut run, mut normal) = (0.0f32, None);
        for stretch in stretches.iter() {
            if normal.is_some() && stretch.exit <= run {
                continue;
            }
            let joins = stretch.enter <= run || {
                let part = &compound.parts()[stretch.part as usize];
                touches(part.shape.view(), pose * part.pose, origin, direction, run)
            };
            if !joins {
                break;
            }
            (run, normal) = (stretch.exit, Some(stretch.normal));
        }
        // The origin is in a part: its stretch starts at 0 and is first.
        Some((run, normal?))
    })
}

/// Whether `shape` at `pose` contains the point `distance` along the ray,
/// or is within rounding of it: a few float steps of the magnitudes of the
/// ray and the part, where their sides are worked out.
fn touches(
    shape: ShapeView<'_>,
    pose: Isometry2d,
    origin: Vec2,
    direction: Dir2,
    distance: f32,
) -> bool {
    let point = origin + *direction * distance;
    let scale = origin.abs().max_element() + distance + pose.translation.abs().max_element();
    let slack = scale * (16.0 * f32::EPSILON);
    shape
        .project_point(pose, point, f32::INFINITY)
        .is_some_and(|(on, inside)| inside || on.distance(point) <= slack)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Compound;
    use bevy::math::Rot2;

    fn dir(x: f32, y: f32) -> Dir2 {
        Dir2::new(Vec2::new(x, y)).unwrap()
    }

    fn close(a: Vec2, b: Vec2) -> bool {
        a.abs_diff_eq(b, 1e-5)
    }

    /// From the centre of each kind, out along x: the far side, its normal
    /// along the ray; from outside: the solid cast's hit, bit for bit.
    #[test]
    fn every_kind_is_left_through_its_far_side() {
        let polygon = Shape::Polygon(
            crate::geometry::shape::polygon::ConvexPolygon::new(&[
                Vec2::new(-2.0, -1.0),
                Vec2::new(3.0, -1.0),
                Vec2::new(3.0, 1.0),
                Vec2::new(-2.0, 2.0),
            ])
            .unwrap(),
        );
        let cases = [
            (Shape::Circle { radius: 2.0 }, 2.0),
            (
                Shape::Rect {
                    half_size: Vec2::new(4.0, 1.0),
                },
                4.0,
            ),
            (
                Shape::Capsule {
                    radius: 1.0,
                    half_length: 3.0,
                },
                1.0,
            ),
            (polygon, 3.0),
        ];
        for (shape, far) in cases {
            for degrees in [0.0f32, 90.0, 180.0] {
                let rotation = Rot2::degrees(degrees);
                let pose = Isometry2d::new(Vec2::new(5.0, -3.0), rotation);
                let out = rotation * Vec2::X;
                let direction = Dir2::new(out).unwrap();
                let hit = shape
                    .cast_ray_hollow(pose, pose.translation, direction, 100.0)
                    .unwrap();
                assert!((hit.distance - far).abs() < 1e-5, "{shape:?} {hit:?}");
                assert!(close(hit.point, pose.translation + out * far), "{hit:?}");
                assert!(close(*hit.normal, out), "{shape:?} {hit:?}");
                // Not reaching that far: nothing.
                let short = shape.cast_ray_hollow(pose, pose.translation, direction, far - 0.01);
                assert_eq!(short, None);
                // From outside, the same as solid.
                let outside = pose.translation - out * 20.0;
                assert_eq!(
                    shape.cast_ray_hollow(pose, outside, direction, 100.0),
                    shape.cast_ray(pose, outside, direction, 100.0)
                );
            }
        }
    }

    #[test]
    fn circles_are_left_at_the_far_root_with_a_radial_normal() {
        let circle = Shape::Circle { radius: 5.0 };
        let pose = Isometry2d::from_xy(1.0, 1.0);
        let origin = Vec2::new(1.0, 4.0);
        let hit = circle
            .cast_ray_hollow(pose, origin, Dir2::X, 100.0)
            .unwrap();
        assert!((hit.distance - 4.0).abs() < 1e-5, "{hit:?}");
        assert!(close(*hit.normal, Vec2::new(0.8, 0.6)), "{hit:?}");
        // On the boundary: out at once, or across when pointing in.
        let on = Vec2::new(6.0, 1.0);
        let out = circle.cast_ray_hollow(pose, on, Dir2::X, 100.0).unwrap();
        assert_eq!((out.distance, out.point, out.normal), (0.0, on, Dir2::X));
        let across = circle
            .cast_ray_hollow(pose, on, Dir2::NEG_X, 100.0)
            .unwrap();
        assert_eq!((across.distance, across.normal), (10.0, Dir2::NEG_X));
    }

    #[test]
    fn rectangles_are_left_through_the_side_crossed_first() {
        let square = Shape::Rect {
            half_size: Vec2::splat(1.0),
        };
        let pose = Isometry2d::IDENTITY;
        // Towards the top right corner, nearer the top.
        let hit = square
            .cast_ray_hollow(pose, Vec2::new(0.0, 0.5), dir(1.0, 1.0), 10.0)
            .unwrap();
        assert!((hit.distance - 0.5 * 2f32.sqrt()).abs() < 1e-6, "{hit:?}");
        assert_eq!(hit.normal, Dir2::Y);
        // Through the corner exactly: the x side.
        let hit = square
            .cast_ray_hollow(pose, Vec2::ZERO, dir(1.0, 1.0), 10.0)
            .unwrap();
        assert_eq!(hit.normal, Dir2::X);
        // Along a side from on it: to its end.
        let hit = square
            .cast_ray_hollow(pose, Vec2::new(-1.0, 1.0), Dir2::X, 10.0)
            .unwrap();
        assert_eq!((hit.distance, hit.normal), (2.0, Dir2::X));
        // From a side, out: at once, that side's normal.
        let hit = square
            .cast_ray_hollow(pose, Vec2::new(1.0, 0.0), dir(1.0, 0.5), 10.0)
            .unwrap();
        assert_eq!((hit.distance, hit.normal), (0.0, Dir2::X));
    }

    #[test]
    fn capsules_are_left_through_a_cap_or_a_side() {
        let capsule = Shape::Capsule {
            radius: 1.0,
            half_length: 2.0,
        };
        let pose = Isometry2d::IDENTITY;
        let up = capsule
            .cast_ray_hollow(pose, Vec2::ZERO, Dir2::Y, 10.0)
            .unwrap();
        assert_eq!((up.distance, up.normal), (3.0, Dir2::Y));
        let side = capsule
            .cast_ray_hollow(pose, Vec2::new(0.0, 1.0), Dir2::NEG_X, 10.0)
            .unwrap();
        assert_eq!((side.distance, side.normal), (1.0, Dir2::NEG_X));
        // From the middle up through the cap off its axis: a radial normal.
        let hit = capsule
            .cast_ray_hollow(pose, Vec2::new(0.5, 0.0), Dir2::Y, 10.0)
            .unwrap();
        let y = 0.75f32.sqrt();
        assert!((hit.distance - (2.0 + y)).abs() < 1e-5, "{hit:?}");
        assert!(close(*hit.normal, Vec2::new(0.5, y)), "{hit:?}");
    }

    #[test]
    fn segments_are_left_at_once_or_at_their_far_end() {
        let wall = Shape::Segment {
            a: Vec2::new(-2.0, 0.0),
            b: Vec2::new(2.0, 0.0),
        };
        let pose = Isometry2d::from_xy(0.0, 1.0);
        // Across, from on it: out at once, the normal of the side it goes to.
        let hit = wall
            .cast_ray_hollow(pose, Vec2::new(0.5, 1.0), Dir2::NEG_Y, 10.0)
            .unwrap();
        assert_eq!((hit.distance, hit.normal), (0.0, Dir2::NEG_Y));
        // Along it, from on it: its far end.
        let hit = wall
            .cast_ray_hollow(pose, Vec2::new(0.5, 1.0), Dir2::NEG_X, 10.0)
            .unwrap();
        assert_eq!(
            (hit.distance, hit.point, hit.normal),
            (2.5, Vec2::new(-2.0, 1.0), Dir2::NEG_X)
        );
        assert_eq!(
            wall.cast_ray_hollow(pose, Vec2::new(0.5, 1.0), Dir2::NEG_X, 2.0),
            None
        );
        // From outside: as solid.
        let origin = Vec2::new(0.0, 5.0);
        assert_eq!(
            wall.cast_ray_hollow(pose, origin, Dir2::NEG_Y, 10.0),
            wall.cast_ray(pose, origin, Dir2::NEG_Y, 10.0)
        );
    }

    /// A ray inside a concave polygon (cut into convex pieces) or a row of
    /// merged tiles crosses the seams between the pieces and leaves through
    /// the outline. Stopping at the first piece's far side, a seam, fails.
    #[test]
    fn compounds_are_left_through_their_outline_not_a_seam() {
        // An L: its pieces share a side.
        let outline = [
            Vec2::new(0.0, 0.0),
            Vec2::new(6.0, 0.0),
            Vec2::new(6.0, 2.0),
            Vec2::new(2.0, 2.0),
            Vec2::new(2.0, 6.0),
            Vec2::new(0.0, 6.0),
        ];
        let l = crate::Collider::concave_polygon(&outline).unwrap();
        let l = l.shape();
        let Shape::Compound(pieces) = l else {
            panic!("cut into pieces")
        };
        assert!(pieces.parts().len() >= 2);
        for degrees in [0.0f32, 33.0, 90.0, 200.0] {
            let pose = Isometry2d::new(Vec2::new(100.0, -50.0), Rot2::degrees(degrees));
            let turn = |v: Vec2| pose.rotation * v;
            let cases = [
                (Vec2::new(0.5, 1.0), Vec2::X, 5.5, Vec2::X),
                (Vec2::new(5.0, 1.0), Vec2::NEG_X, 5.0, Vec2::NEG_X),
                (Vec2::new(1.0, 0.5), Vec2::Y, 5.5, Vec2::Y),
                (
                    Vec2::new(0.5, 5.5),
                    Vec2::new(1.0, -1.0),
                    1.5 * 2f32.sqrt(),
                    Vec2::X,
                ),
            ];
            for (from, towards, distance, normal) in cases {
                let origin = pose.transform_point(from);
                let direction = Dir2::new(turn(towards)).unwrap();
                let hit = l.cast_ray_hollow(pose, origin, direction, 100.0).unwrap();
                assert!(
                    (hit.distance - distance).abs() < 1e-4,
                    "{degrees} {from} {towards}: {hit:?}"
                );
                assert!(hit.normal.abs_diff_eq(turn(normal), 1e-4), "{hit:?}");
            }
        }
        // A row of tiles, one rectangle each, side by side.
        let tiles = Shape::Compound(Compound::new((0..50).map(|i| {
            let at = Isometry2d::from_xy(0.5 + i as f32, 0.5);
            (
                at,
                Shape::Rect {
                    half_size: Vec2::splat(0.5),
                },
            )
        })));
        for (x, y) in [(0.1, 0.5), (3.3, 0.2), (17.0, 0.999)] {
            for far in [0.0f32, 1e4, -3e5] {
                let pose = Isometry2d::from_xy(far, far);
                let origin = pose.transform_point(Vec2::new(x, y));
                let hit = tiles.cast_ray_hollow(pose, origin, Dir2::X, 1e3).unwrap();
                let tolerance = 1e-5 * (1.0 + far.abs());
                assert!(
                    (hit.distance - (50.0 - x)).abs() <= tolerance,
                    "{x} {far}: {hit:?}"
                );
                assert_eq!(hit.normal, Dir2::X);
            }
        }
        // Parts apart: out of the first one only.
        let apart = Shape::Compound(Compound::new([
            (Isometry2d::IDENTITY, Shape::Circle { radius: 1.0 }),
            (Isometry2d::from_xy(3.0, 0.0), Shape::Circle { radius: 1.0 }),
        ]));
        let hit = apart
            .cast_ray_hollow(Isometry2d::IDENTITY, Vec2::ZERO, Dir2::X, 10.0)
            .unwrap();
        assert_eq!((hit.distance, hit.normal), (1.0, Dir2::X));
    }

    /// A tile map big enough for a part grid (one unit square a tile, not
    /// merged, so every tile side inside it is a seam), turned and moved:
    /// a ray from inside leaves where an f64 walk over the cells along it
    /// first finds an empty one, through that cell's side. Stopping the
    /// grid walk at the first cell past the first tile's exit (a seam)
    /// fails.
    #[test]
    fn big_tile_maps_are_left_where_an_f64_cell_walk_leaves() {
        use rand::{Rng, SeedableRng, rngs::StdRng};
        const SIZE: i32 = 30;
        let mut rng = StdRng::seed_from_u64(4801);
        let filled: Vec<bool> = (0..SIZE * SIZE).map(|_| rng.random_bool(0.7)).collect();
        let is_filled = |x: i32, y: i32| {
            (0..SIZE).contains(&x) && (0..SIZE).contains(&y) && filled[(y * SIZE + x) as usize]
        };
        let tiles = (0..SIZE * SIZE).filter(|&i| filled[i as usize]).map(|i| {
            let at = Isometry2d::from_xy((i % SIZE) as f32 + 0.5, (i / SIZE) as f32 + 0.5);
            (
                at,
                Shape::Rect {
                    half_size: Vec2::splat(0.5),
                },
            )
        });
        let map = Shape::Compound(Compound::new(tiles));
        let Shape::Compound(compound) = &map else {
            unreachable!()
        };
        assert!(compound.has_part_grid());
        let (mut checked, mut long) = (0, 0);
        for case in 0..2_000 {
            let pose = Isometry2d::new(
                Vec2::new(
                    rng.random_range(-100.0..100.0),
                    rng.random_range(-100.0..100.0),
                ),
                Rot2::radians(rng.random_range(-4.0..4.0)),
            );
            // In a tile, clear of its sides; not along an axis.
            let (cx, cy) = (rng.random_range(0..SIZE), rng.random_range(0..SIZE));
            if !is_filled(cx, cy) {
                continue;
            }
            let local = Vec2::new(
                cx as f32 + rng.random_range(0.05..0.95),
                cy as f32 + rng.random_range(0.05..0.95),
            );
            let angle = rng.random_range(0.0..core::f64::consts::TAU);
            let d = bevy::math::DVec2::new(angle.cos(), angle.sin());
            if d.x.abs() < 1e-2 || d.y.abs() < 1e-2 {
                continue;
            }
            // The f64 walk: from cell to cell, to the first empty one.
            let o = local.as_dvec2();
            let (mut cell, mut t, mut axis) = ([cx, cy], 0.0f64, 0);
            while is_filled(cell[0], cell[1]) {
                let leave = [0, 1].map(|k| {
                    let edge = f64::from(cell[k] + i32::from(d[k] > 0.0));
                    (edge - o[k]) / d[k]
                });
                axis = usize::from(leave[1] < leave[0]);
                // Too near a corner to call.
                if (leave[0] - leave[1]).abs() < 1e-3 {
                    t = f64::NAN;
                    break;
                }
                t = leave[axis];
                cell[axis] += if d[axis] > 0.0 { 1 } else { -1 };
            }
            if t.is_nan() {
                continue;
            }
            let direction = Dir2::new(pose.rotation * d.as_vec2()).unwrap();
            let origin = pose.transform_point(local);
            let hit = map
                .cast_ray_hollow(pose, origin, direction, f32::INFINITY)
                .unwrap();
            let tolerance = 1e-3;
            assert!(
                (f64::from(hit.distance) - t).abs() < tolerance,
                "case {case}: from {local} along {d}: {hit:?}, expected {t}"
            );
            let mut normal = Vec2::ZERO;
            normal[axis] = d[axis].signum() as f32;
            assert!(
                hit.normal.abs_diff_eq(pose.rotation * normal, 1e-4),
                "case {case}: {hit:?} {normal}"
            );
            // Too short: nothing.
            let short = (t as f32 - 0.01).max(0.0);
            if t > 0.02 {
                assert_eq!(map.cast_ray_hollow(pose, origin, direction, short), None);
            }
            checked += 1;
            long += usize::from(t > 2.0);
        }
        // Many rays, and many that cross seams.
        assert!(checked > 1_000 && long > 300, "{checked} {long}");
    }

    /// A straight polyline of collinear segments: a ray along it from on it
    /// runs to its end; across it, out at once.
    #[test]
    fn polylines_are_left_at_the_end_of_a_straight_run() {
        let points = [0.0f32, 1.0, 2.5, 4.0].map(|x| Vec2::new(x, 0.0));
        let line = Shape::Compound(Compound::polyline(&points).unwrap());
        let pose = Isometry2d::IDENTITY;
        let hit = line
            .cast_ray_hollow(pose, Vec2::new(0.5, 0.0), Dir2::X, 10.0)
            .unwrap();
        assert_eq!((hit.distance, hit.normal), (3.5, Dir2::X));
        let hit = line
            .cast_ray_hollow(pose, Vec2::new(0.5, 0.0), Dir2::Y, 10.0)
            .unwrap();
        assert_eq!((hit.distance, hit.normal), (0.0, Dir2::Y));
    }

    #[test]
    fn bad_input_finds_nothing() {
        let circle = Shape::Circle { radius: 1.0 };
        let pose = Isometry2d::IDENTITY;
        for max in [-1.0, f32::NAN] {
            assert_eq!(circle.cast_ray_hollow(pose, Vec2::ZERO, Dir2::X, max), None);
        }
        let nan = Isometry2d::from_xy(f32::NAN, 0.0);
        assert_eq!(circle.cast_ray_hollow(nan, Vec2::ZERO, Dir2::X, 10.0), None);
        assert_eq!(circle.cast_ray_hollow(pose, Vec2::NAN, Dir2::X, 10.0), None);
        let bad = Shape::Circle { radius: -1.0 };
        assert_eq!(bad.cast_ray_hollow(pose, Vec2::ZERO, Dir2::X, 10.0), None);
    }
}
