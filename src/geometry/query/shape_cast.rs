//! Shape casts: how far a shape can move in a straight line before it first
//! touches another.
//!
//! The moving shape keeps its rotation and slides along `direction`, so the
//! cast is exact and in closed form: a ray against the rounded Minkowski
//! difference of the two shapes (`translation_cast.rs`). A slab test of the
//! two bounding boxes along the path rejects most misses before that.
//! Sweeps that also turn are a different problem: [`time_of_impact`](crate::geometry::time_of_impact).

use bevy::math::{Dir2, Isometry2d, Vec2};
use bevy::shape::{Aabb2d, BoundingVolume};

use crate::geometry::query::ray::Ray;
use crate::geometry::query::translation_cast::{TranslationCast, cast_translation};
use crate::geometry::shape::Shape;
use crate::geometry::shape::view::Placed;

/// Where a cast shape first touches another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeCastHit {
    /// How far the cast shape moves along the direction before it touches,
    /// in `0..=max_distance`; `0` when it already touches at its start.
    pub distance: f32,
    /// The world-space point where the shapes touch, with the cast shape
    /// moved by `distance` (inside the overlap when they overlapped at the
    /// start).
    pub point: Vec2,
    /// The hit shape's outward unit normal at `point`, pointing towards the
    /// cast shape. When they overlapped at the start, the direction in which
    /// moving the cast shape separates them fastest.
    pub normal: Dir2,
}

/// Casts `shape` from `pose` along `direction` by up to `max_distance`
/// (which may be [`f32::INFINITY`]) against `target` standing at
/// `target_pose`: the first place they touch, or `None`.
///
/// The cast shape does not rotate on the way. Touching counts, as in
/// detection: a shape that grazes the target hits it, and one that touches
/// or overlaps it at `pose` hits at distance 0. An invalid shape or pose, a
/// non-finite direction, or a NaN or negative `max_distance` gives `None`.
///
/// ```
/// # use bevy::math::{Dir2, Isometry2d, Vec2};
/// # use bevy_collide2d::geometry::{Shape, cast_shape};
/// let ball = Shape::Circle { radius: 1.0 };
/// let wall = Shape::Rect { half_size: Vec2::new(1.0, 10.0) };
/// let hit = cast_shape(
///     &ball,
///     Isometry2d::IDENTITY,
///     Dir2::X,
///     f32::INFINITY,
///     &wall,
///     Isometry2d::from_xy(5.0, 0.0),
/// )
/// .unwrap();
/// assert_eq!(hit.distance, 3.0);
/// assert_eq!(hit.point, Vec2::new(4.0, 0.0));
/// assert_eq!(hit.normal, Dir2::NEG_X);
/// ```
pub fn cast_shape(
    shape: &Shape,
    pose: Isometry2d,
    direction: Dir2,
    max_distance: f32,
    target: &Shape,
    target_pose: Isometry2d,
) -> Option<ShapeCastHit> {
    let moving = Placed::new(shape.view(), pose).ok()?;
    let target = Placed::new(target.view(), target_pose).ok()?;
    let path = Ray::new(moving.pose().translation, direction, max_distance).ok()?;
    cast_shape_of(moving, path, target)
}

/// [`cast_shape`] for checked input: `moving` slides along `path` (a ray
/// from its pose's origin) against `target`.
pub(crate) fn cast_shape_of(
    moving: Placed<'_>,
    path: Ray,
    target: Placed<'_>,
) -> Option<ShapeCastHit> {
    let (shape, pose) = (moving.shape(), moving.pose());
    let (target, target_pose) = (target.shape(), target.pose());
    let (direction, max_distance) = (path.direction(), path.max_distance());
    // Boxes that never meet along the way: most misses end here, cheaply.
    overlap_window(
        &shape.aabb(pose),
        *direction,
        &target.aabb(target_pose),
        max_distance,
    )?;
    match cast_translation(shape, pose, direction, max_distance, target, target_pose) {
        TranslationCast::Miss => None,
        // Touching or overlapping at the start: the contact's point (in the
        // overlap) and the way out, as detection sees them; the cast's own
        // touch when detection, a rounding error away, sees them apart.
        TranslationCast::AtStart { point, normal } => {
            Some(match shape.contact(pose, target, target_pose) {
                Some(contact) => ShapeCastHit {
                    distance: 0.0,
                    point: contact.point,
                    normal: -contact.normal,
                },
                None => ShapeCastHit {
                    distance: 0.0,
                    point,
                    normal,
                },
            })
        }
        TranslationCast::Hit {
            distance,
            point,
            normal,
        } => Some(ShapeCastHit {
            distance,
            point,
            normal,
        }),
    }
}

/// The distances `enter..=exit` within `0..=max_distance` over which `moving`,
/// moved along `direction`, overlaps `target` (slightly grown so that
/// rounding cannot cut a touch off the window); `None` if it never does.
fn overlap_window(
    moving: &Aabb2d,
    direction: Vec2,
    target: &Aabb2d,
    max_distance: f32,
) -> Option<(f32, f32)> {
    let scale = moving
        .min
        .abs()
        .max(moving.max.abs())
        .max(target.min.abs())
        .max(target.max.abs())
        .max_element();
    let target = target.grow(Vec2::splat(scale * 4.0 * f32::EPSILON));
    let (mut enter, mut exit) = (0.0f32, max_distance);
    for axis in 0..2 {
        let d = direction[axis];
        // How far the moving box is from the target's far and near sides.
        let (low, high) = (
            target.min[axis] - moving.max[axis],
            target.max[axis] - moving.min[axis],
        );
        if d == 0.0 {
            if low > 0.0 || high < 0.0 {
                return None;
            }
        } else {
            let (t1, t2) = (low / d, high / d);
            enter = enter.max(t1.min(t2));
            exit = exit.min(t1.max(t2));
        }
    }
    (enter <= exit).then_some((enter, exit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::ConvexPolygon;
    use crate::geometry::reference_tests::{reference, reference_gap};
    use bevy::math::Rot2;

    fn circle(radius: f32) -> Shape {
        Shape::Circle { radius }
    }

    fn rect(w: f32, h: f32) -> Shape {
        Shape::Rect {
            half_size: Vec2::new(w, h) / 2.0,
        }
    }

    fn pose(x: f32, y: f32, angle: f32) -> Isometry2d {
        Isometry2d::new(Vec2::new(x, y), Rot2::radians(angle))
    }

    /// A small seeded generator, so that random cases are reproducible.
    struct Lcg(u64);

    impl Lcg {
        fn unit(&mut self) -> f32 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }

        fn range(&mut self, low: f32, high: f32) -> f32 {
            low + (high - low) * self.unit()
        }

        /// A random shape of any kind (circles and rectangles half the time,
        /// as before the other kinds came).
        fn shape(&mut self) -> Shape {
            let kind = self.unit();
            if kind < 0.25 {
                circle(self.range(0.5, 6.0))
            } else if kind < 0.5 {
                rect(self.range(0.5, 12.0), self.range(0.5, 12.0))
            } else if kind < 0.65 {
                Shape::Capsule {
                    radius: self.range(0.3, 4.0),
                    half_length: if self.unit() < 0.1 {
                        0.0
                    } else {
                        self.range(0.0, 5.0)
                    },
                }
            } else if kind < 0.8 {
                let a = Vec2::new(self.range(-6.0, 6.0), self.range(-6.0, 6.0));
                let b = Vec2::new(self.range(-6.0, 6.0), self.range(-6.0, 6.0));
                Shape::Segment { a, b }
            } else {
                loop {
                    let count = 3 + (self.unit() * 6.0) as usize;
                    let points: Vec<Vec2> = (0..count)
                        .map(|_| Vec2::new(self.range(-6.0, 6.0), self.range(-6.0, 6.0)))
                        .collect();
                    if let Ok(polygon) = ConvexPolygon::new(&points) {
                        break Shape::Polygon(polygon);
                    }
                }
            }
        }
    }

    #[test]
    fn circle_meets_rotated_box_corner_first() {
        // A diamond: its left corner points at the circle.
        let diamond = rect(2.0, 2.0);
        let corner_x = 10.0 - 2f32.sqrt();
        let hit = cast_shape(
            &circle(1.0),
            Isometry2d::IDENTITY,
            Dir2::X,
            100.0,
            &diamond,
            pose(10.0, 0.0, core::f32::consts::FRAC_PI_4),
        )
        .unwrap();
        assert!((hit.distance - (corner_x - 1.0)).abs() < 1e-5, "{hit:?}");
        assert!((hit.point - Vec2::new(corner_x, 0.0)).length() < 1e-5);
        assert!((hit.normal.as_vec2() - Vec2::NEG_X).length() < 1e-3);
    }

    #[test]
    fn rect_slides_onto_rect_face() {
        let hit = cast_shape(
            &rect(2.0, 2.0),
            pose(0.0, 0.5, 0.0),
            Dir2::NEG_Y,
            f32::INFINITY,
            &rect(20.0, 2.0),
            pose(3.0, -10.0, 0.0),
        )
        .unwrap();
        // The bottom face at y = -0.5 meets the top face at y = -9.
        assert!((hit.distance - 8.5).abs() < 1e-3, "{hit:?}");
        assert_eq!(hit.normal, Dir2::Y);
        assert!((hit.point.y + 9.0).abs() < 1e-3);
    }

    #[test]
    fn touching_or_overlapping_at_the_start_hits_at_zero() {
        let wall = rect(2.0, 20.0);
        let wall_pose = pose(5.0, 0.0, 0.0);
        for x in [3.0, 4.0, 5.0] {
            let hit = cast_shape(
                &circle(1.0),
                pose(x, 0.0, 0.0),
                Dir2::NEG_X,
                10.0,
                &wall,
                wall_pose,
            )
            .unwrap();
            assert_eq!(hit.distance, 0.0, "x {x}");
        }
        // Overlapping: the normal separates them fastest (out through the
        // near face), not against the direction.
        let hit = cast_shape(
            &circle(1.0),
            pose(4.5, 0.0, 0.0),
            Dir2::Y,
            10.0,
            &wall,
            wall_pose,
        )
        .unwrap();
        assert_eq!(hit.normal, Dir2::NEG_X);
    }

    #[test]
    fn misses_and_short_casts_find_nothing() {
        let target = circle(1.0);
        let at = pose(10.0, 0.0, 0.0);
        let ball = circle(1.0);
        let start = Isometry2d::IDENTITY;
        assert!(cast_shape(&ball, start, Dir2::NEG_X, f32::INFINITY, &target, at).is_none());
        assert!(cast_shape(&ball, start, Dir2::Y, f32::INFINITY, &target, at).is_none());
        assert!(cast_shape(&ball, start, Dir2::X, 7.99, &target, at).is_none());
        // Exactly long enough: touching counts.
        assert_eq!(
            cast_shape(&ball, start, Dir2::X, 8.0, &target, at).map(|h| h.distance),
            Some(8.0)
        );
        // Grazing: tangent all along, touching counts.
        let grazing = cast_shape(&ball, pose(0.0, 2.0, 0.0), Dir2::X, 20.0, &target, at);
        assert_eq!(grazing.map(|h| h.distance), Some(10.0));
    }

    #[test]
    fn bad_input_finds_nothing() {
        let ball = circle(1.0);
        let target = (circle(1.0), pose(5.0, 0.0, 0.0));
        let cast = |shape: &Shape, pose: Isometry2d, direction: Dir2, max: f32| {
            cast_shape(shape, pose, direction, max, &target.0, target.1)
        };
        assert!(cast(&ball, Isometry2d::IDENTITY, Dir2::X, 10.0).is_some());
        assert!(cast(&circle(-1.0), Isometry2d::IDENTITY, Dir2::X, 10.0).is_none());
        assert!(cast(&rect(f32::NAN, 1.0), Isometry2d::IDENTITY, Dir2::X, 10.0).is_none());
        assert!(cast(&ball, pose(f32::NAN, 0.0, 0.0), Dir2::X, 10.0).is_none());
        assert!(
            cast(
                &ball,
                Isometry2d::IDENTITY,
                Dir2::from_angle(f32::NAN),
                10.0
            )
            .is_none()
        );
        for max in [-1.0, f32::NAN, f32::NEG_INFINITY] {
            assert!(cast(&ball, Isometry2d::IDENTITY, Dir2::X, max).is_none());
        }
        let bad_target = cast_shape(
            &ball,
            Isometry2d::IDENTITY,
            Dir2::X,
            10.0,
            &circle(0.0),
            target.1,
        );
        assert!(bad_target.is_none());
    }

    /// Random shapes and casts: at the reported distance the shapes touch,
    /// a little before it they are apart, and a cast that misses never
    /// passes through the target (checked by sampling the path).
    #[test]
    fn random_casts_stop_at_the_first_touch() {
        let scale = crate::geometry::reference_tests::explore_scale();
        let mut rng = Lcg(if scale > 1 { 1007 } else { 7 });
        let (mut hits, mut misses) = (0, 0);
        let cases = 3000 * scale;
        for case in 0..cases {
            let (shape, target) = (rng.shape(), rng.shape());
            let start = pose(
                rng.range(-30.0, 30.0),
                rng.range(-30.0, 30.0),
                rng.range(-4.0, 4.0),
            );
            let target_pose = pose(
                rng.range(-8.0, 8.0),
                rng.range(-8.0, 8.0),
                rng.range(-4.0, 4.0),
            );
            // Mostly aimed near the target, so that most casts hit.
            let aim =
                target_pose.translation + Vec2::new(rng.range(-8.0, 8.0), rng.range(-8.0, 8.0));
            let direction = Dir2::new(aim - start.translation).unwrap_or(Dir2::X);
            let max = if case % 3 == 0 {
                f32::INFINITY
            } else {
                rng.range(0.0, 60.0)
            };
            let moved = |d: f32| Isometry2d::new(start.translation + direction * d, start.rotation);
            let size = 1e-3;
            match cast_shape(&shape, start, direction, max, &target, target_pose) {
                Some(hit) => {
                    hits += 1;
                    assert!((0.0..=max).contains(&hit.distance), "case {case}: {hit:?}");
                    let gap = reference_gap((&shape, moved(hit.distance)), (&target, target_pose));
                    assert!(
                        gap <= f64::from(size),
                        "case {case}: {shape:?} {start:?} {direction:?} {max} onto {target:?} {target_pose:?}: {gap} apart at the hit {hit:?}"
                    );
                    if hit.distance > size {
                        assert!(
                            !shape.intersects(moved(hit.distance - size), &target, target_pose),
                            "case {case}: {shape:?} {start:?} {direction:?} {max} onto {target:?} {target_pose:?}: already touching before the hit {hit:?}"
                        );
                    }
                    let off = reference(&target, target_pose).signed_distance(hit.point.as_dvec2());
                    // (Two rectangles touch within their time of impact's
                    // tolerance, 1e-4 of the smaller half size, and the
                    // point is found on them grown by twice that.)
                    assert!(
                        off <= f64::from(2.0 * size),
                        "case {case}: {shape:?} {start:?} {direction:?} {max} onto {target:?} {target_pose:?}: point {off} off the target {hit:?}"
                    );
                    let normal = hit.normal.as_vec2().as_dvec2();
                    assert!((normal.length() - 1.0).abs() < 1e-4, "case {case}: {hit:?}");
                    if hit.distance > 0.0 {
                        // The target's outward normal, towards the cast shape:
                        // moving the cast shape along it clears the target.
                        let out = reference_gap(
                            (&shape, moved(hit.distance)),
                            (
                                &target,
                                Isometry2d::new(
                                    target_pose.translation - hit.normal * 0.01,
                                    target_pose.rotation,
                                ),
                            ),
                        );
                        assert!(
                            out >= 0.005,
                            "case {case}: {shape:?} {start:?} {direction:?} onto {target:?} {target_pose:?}: normal does not face out ({out}) {hit:?}"
                        );
                    }
                }
                None => {
                    misses += 1;
                    let end = if max.is_finite() { max } else { 200.0 };
                    for k in 0..=2000 {
                        let d = end * k as f32 / 2000.0;
                        assert!(
                            !shape.intersects(moved(d), &target, target_pose),
                            "case {case}: missed a touch at {d}"
                        );
                    }
                }
            }
        }
        assert!(
            hits > cases / 3 && misses > cases / 10,
            "{hits} hits, {misses} misses"
        );
    }

    fn segment(a: (f32, f32), b: (f32, f32)) -> Shape {
        Shape::Segment {
            a: Vec2::new(a.0, a.1),
            b: Vec2::new(b.0, b.1),
        }
    }

    fn assert_hit(hit: Option<ShapeCastHit>, distance: f32, point: Vec2, normal: Vec2) {
        let hit = hit.unwrap_or_else(|| panic!("expected a hit at {distance}"));
        // Conservative advancement stops within a tiny distance before the
        // touch, never after it.
        assert!(
            hit.distance <= distance + 1e-5 && hit.distance >= distance - 2e-3,
            "{hit:?} vs {distance}"
        );
        assert!((hit.point - point).length() < 2e-3, "{hit:?} vs {point}");
        assert!(
            (hit.normal.as_vec2() - normal).length() < 1e-3,
            "{hit:?} vs {normal}"
        );
    }

    #[test]
    fn capsule_onto_segment() {
        let capsule = Shape::Capsule {
            radius: 0.5,
            half_length: 1.0,
        };
        let floor = segment((-3.0, 0.0), (3.0, 0.0));
        let cast = |pose, direction, target: &Shape| {
            cast_shape(
                &capsule,
                pose,
                direction,
                f32::INFINITY,
                target,
                Isometry2d::IDENTITY,
            )
        };
        // Upright, falling on the floor: its lowest point is 3.5 above.
        assert_hit(
            cast(pose(0.0, 5.0, 0.0), Dir2::NEG_Y, &floor),
            3.5,
            Vec2::ZERO,
            Vec2::Y,
        );
        // Lying down, landing on its side: 2.5 above (any point of the
        // flat side over the floor will do).
        let hit = cast(
            pose(0.0, 3.0, core::f32::consts::FRAC_PI_2),
            Dir2::NEG_Y,
            &floor,
        )
        .unwrap();
        assert!(
            (hit.distance - 2.5).abs() < 2e-3 && hit.distance <= 2.5 + 1e-5,
            "{hit:?}"
        );
        assert!(
            hit.point.y.abs() < 2e-3 && hit.point.x.abs() <= 1.0 + 1e-3,
            "{hit:?}"
        );
        assert!((hit.normal.as_vec2() - Vec2::Y).length() < 1e-3, "{hit:?}");
        // Onto a slope at 45 degrees: the lower cap's centre (0, 4) stops
        // half a radius from the line y = x, at y = √2 / 2.
        let slope = segment((-3.0, -3.0), (3.0, 3.0));
        let h = 0.5 * 2f32.sqrt();
        let normal = Vec2::new(-1.0, 1.0).normalize();
        assert_hit(
            cast(pose(0.0, 5.0, 0.0), Dir2::NEG_Y, &slope),
            4.0 - h,
            Vec2::new(0.0, h) - normal * 0.5,
            normal,
        );
        // End on: falling along a vertical segment's line onto its top end.
        let post = segment((0.0, -3.0), (0.0, 0.0));
        assert_hit(
            cast(pose(0.0, 5.0, 0.0), Dir2::NEG_Y, &post),
            3.5,
            Vec2::ZERO,
            Vec2::Y,
        );
        // Passing beside the segment's end: a miss; grazing it: a hit.
        assert!(cast(pose(3.6, 5.0, 0.0), Dir2::NEG_Y, &floor).is_none());
        // (Grazing, the gap grows with the square of the distance past the
        // touch: the tolerance on the gap allows a few thousandths early.)
        let graze = cast(pose(3.5, 5.0, 0.0), Dir2::NEG_Y, &floor).unwrap();
        assert!(
            graze.distance <= 4.0 + 1e-5 && graze.distance > 3.99,
            "{graze:?}"
        );
        let gap = reference_gap(
            (&capsule, pose(3.5, 5.0 - graze.distance, 0.0)),
            (&floor, Isometry2d::IDENTITY),
        );
        assert!(gap <= 1e-4, "{graze:?}: {gap}");
        // Already across the segment: distance 0.
        let hit = cast(pose(0.0, 1.0, 0.0), Dir2::X, &floor).unwrap();
        assert_eq!(hit.distance, 0.0);
    }

    #[test]
    fn casts_of_and_onto_polygons_and_segments() {
        let triangle = Shape::Polygon(
            ConvexPolygon::new(&[
                Vec2::new(-1.0, 0.0),
                Vec2::new(1.0, 0.0),
                Vec2::new(0.0, 2.0),
            ])
            .unwrap(),
        );
        let wall = segment((0.0, -5.0), (0.0, 5.0));
        // The triangle's right corner (1, 0) leads: it meets the wall at
        // x = 10 after 9.
        let hit = cast_shape(
            &triangle,
            pose(0.0, 0.0, 0.0),
            Dir2::X,
            100.0,
            &wall,
            pose(10.0, 0.0, 0.0),
        );
        assert_hit(hit, 9.0, Vec2::new(10.0, 0.0), Vec2::NEG_X);
        // A segment cast onto the triangle's slanted side, flat against it:
        // parallel to the right side (from (1, 0) to (0, 2)), 1 to its
        // right along x; moving left, it touches after 1.
        let side = segment((0.0, -1.0), (-1.0, 1.0));
        let hit = cast_shape(
            &side,
            pose(2.0, 1.0, 0.0),
            Dir2::NEG_X,
            100.0,
            &triangle,
            Isometry2d::IDENTITY,
        )
        .unwrap();
        assert!(
            (hit.distance - 1.0).abs() < 2e-3 && hit.distance <= 1.0 + 1e-5,
            "{hit:?}"
        );
        assert!(
            (hit.normal.as_vec2() - Vec2::new(2.0, 1.0).normalize()).length() < 1e-3,
            "{hit:?}"
        );
        // A thin segment sliding along a face, level with it: it touches
        // at once, since touching counts.
        let square = rect(2.0, 2.0);
        let flat = segment((-1.0, 0.0), (1.0, 0.0));
        let hit = cast_shape(
            &flat,
            pose(-5.0, 1.0, 0.0),
            Dir2::X,
            100.0,
            &square,
            Isometry2d::IDENTITY,
        );
        assert_hit(hit, 3.0, Vec2::new(-1.0, 1.0), Vec2::NEG_X);
        // A point (zero-length segment) cast past a polygon's vertex by a
        // hair misses; through it, hits.
        let point = segment((0.0, 0.0), (0.0, 0.0));
        assert!(
            cast_shape(
                &point,
                pose(-5.0, 2.001, 0.0),
                Dir2::X,
                100.0,
                &triangle,
                Isometry2d::IDENTITY
            )
            .is_none()
        );
        let hit = cast_shape(
            &point,
            pose(-5.0, 1.0, 0.0),
            Dir2::X,
            100.0,
            &triangle,
            Isometry2d::IDENTITY,
        );
        assert_hit(
            hit,
            4.5,
            Vec2::new(-0.5, 1.0),
            Vec2::new(-2.0, 1.0).normalize(),
        );
    }

    /// Found by the random casts: a segment's end stopping on a rectangle's
    /// face a rounding error away from it took the direction of that error
    /// (its closest points a few float steps apart) as the normal.
    #[test]
    fn segment_end_stopping_on_a_face_gets_the_face_normal() {
        let segment = Shape::Segment {
            a: Vec2::new(3.124116, -2.6528614),
            b: Vec2::new(-0.69887495, 0.18188667),
        };
        let start = Isometry2d::new(
            Vec2::new(16.18103, 16.625362),
            Rot2 {
                cos: -0.12824091,
                sin: 0.991743,
            },
        );
        let direction = Dir2::new(Vec2::new(-0.70895153, -0.70525724)).unwrap();
        let target = rect(2.0 * 4.527308, 2.0 * 3.3672762);
        let target_pose = Isometry2d::new(
            Vec2::new(-3.7804852, -0.3597479),
            Rot2 {
                cos: 0.59597445,
                sin: -0.80300343,
            },
        );
        let hit = cast_shape(
            &segment,
            start,
            direction,
            f32::INFINITY,
            &target,
            target_pose,
        )
        .unwrap();
        let face = target_pose.rotation * Vec2::Y;
        assert!((hit.normal.as_vec2() - face).length() < 1e-4, "{hit:?}");
    }

    /// A hit compared exactly (to rounding): the cast is now in closed form.
    fn assert_exact(hit: Option<ShapeCastHit>, distance: f32, point: Vec2, normal: Vec2) {
        let hit = hit.unwrap_or_else(|| panic!("expected a hit at {distance}"));
        let scale = 1e-5 * distance.abs().max(point.abs().max_element()).max(1.0);
        assert!(
            (hit.distance - distance).abs() <= scale,
            "{hit:?} vs {distance}"
        );
        assert!((hit.point - point).length() <= scale, "{hit:?} vs {point}");
        assert!(
            (hit.normal.as_vec2() - normal).length() <= 1e-5,
            "{hit:?} vs {normal}"
        );
    }

    fn capsule(radius: f32, half_length: f32) -> Shape {
        Shape::Capsule {
            radius,
            half_length,
        }
    }

    #[test]
    fn casts_are_exact_at_faces_corners_and_caps() {
        let floor = rect(20.0, 2.0);
        // A capsule falling flat onto a face: its cap's lowest point (0, 3.5
        // - d) meets y = 1.
        assert_exact(
            cast_shape(
                &capsule(0.5, 1.0),
                pose(0.0, 5.0, 0.0),
                Dir2::NEG_Y,
                f32::INFINITY,
                &floor,
                Isometry2d::IDENTITY,
            ),
            2.5,
            Vec2::new(0.0, 1.0),
            Vec2::Y,
        );
        // Straight at a corner along the diagonal: the circle's centre stops
        // its radius from the corner (1, 1).
        let diagonal = Dir2::new(Vec2::new(-1.0, -1.0)).unwrap();
        let start = Vec2::splat(5.0);
        let stop = Vec2::ONE + Vec2::splat(0.5f32.sqrt());
        assert_exact(
            cast_shape(
                &circle(1.0),
                pose(start.x, start.y, 0.0),
                diagonal,
                f32::INFINITY,
                &rect(2.0, 2.0),
                Isometry2d::IDENTITY,
            ),
            (start - stop).length(),
            Vec2::ONE,
            Vec2::ONE.normalize(),
        );
        // A sharp corner into a sharp corner, tip to tip: a diamond's right
        // tip (1.414.., 0) meets a square's left side at x = 10 - 1.
        let tip = 2f32.sqrt();
        assert_exact(
            cast_shape(
                &rect(2.0, 2.0),
                pose(0.0, 0.0, core::f32::consts::FRAC_PI_4),
                Dir2::X,
                f32::INFINITY,
                &rect(2.0, 2.0),
                pose(10.0, 0.0, 0.0),
            ),
            9.0 - tip,
            Vec2::new(9.0, 0.0),
            Vec2::NEG_X,
        );
        // A zero-length segment (a point) onto a face.
        let point = segment((0.0, 0.0), (0.0, 0.0));
        assert_exact(
            cast_shape(
                &point,
                pose(-15.0, 0.5, 0.0),
                Dir2::X,
                f32::INFINITY,
                &floor,
                Isometry2d::IDENTITY,
            ),
            5.0,
            Vec2::new(-10.0, 0.5),
            Vec2::NEG_X,
        );
    }

    #[test]
    fn grazing_touching_and_degenerate_casts() {
        let block = rect(2.0, 2.0);
        let at = Isometry2d::IDENTITY;
        // Sliding level with the top face, from the left: the sides meet
        // first (touching counts), after 3.
        assert_exact(
            cast_shape(
                &rect(2.0, 2.0),
                pose(-5.0, 2.0, 0.0),
                Dir2::X,
                100.0,
                &block,
                at,
            ),
            3.0,
            Vec2::new(-1.0, 1.0),
            Vec2::NEG_X,
        );
        // A capsule lying flat on the top face and sliding along it:
        // touching at the start.
        let lying = capsule(0.5, 2.0);
        let on_top = pose(-0.5, 1.5, core::f32::consts::FRAC_PI_2);
        let hit = cast_shape(&lying, on_top, Dir2::X, 100.0, &block, at).unwrap();
        assert_eq!(hit.distance, 0.0, "{hit:?}");
        assert!((hit.normal.as_vec2() - Vec2::Y).length() < 1e-5, "{hit:?}");
        // Moving away from a touch still touches at the start.
        let hit = cast_shape(
            &circle(1.0),
            pose(0.0, 2.0, 0.0),
            Dir2::Y,
            100.0,
            &block,
            at,
        );
        assert_eq!(hit.map(|h| h.distance), Some(0.0));
        // Starting inside: distance 0, the way out.
        let hit = cast_shape(
            &circle(0.5),
            pose(0.2, 0.9, 0.0),
            Dir2::X,
            100.0,
            &block,
            at,
        );
        let hit = hit.unwrap();
        assert_eq!(hit.distance, 0.0);
        assert!((hit.normal.as_vec2() - Vec2::Y).length() < 1e-5, "{hit:?}");
        // A point cast along a segment's line onto its end, and one passing
        // a hair beside it.
        let rail = segment((0.0, 0.0), (4.0, 0.0));
        let point = segment((1.0, 1.0), (1.0, 1.0));
        assert_exact(
            cast_shape(&point, pose(-11.0, -1.0, 0.0), Dir2::X, 100.0, &rail, at),
            10.0,
            Vec2::ZERO,
            Vec2::NEG_X,
        );
        assert!(cast_shape(&point, pose(-11.0, -0.999, 0.0), Dir2::X, 100.0, &rail, at).is_none());
        // Two collinear segments end to end along their line.
        assert_exact(
            cast_shape(&rail, pose(-10.0, 0.0, 0.0), Dir2::X, 100.0, &rail, at),
            6.0,
            Vec2::ZERO,
            Vec2::NEG_X,
        );
        // max_distance 0: a hit only when touching already.
        let touching = pose(-2.0, 0.0, 0.0);
        assert_eq!(
            cast_shape(&circle(1.0), touching, Dir2::X, 0.0, &block, at).map(|h| h.distance),
            Some(0.0)
        );
        let apart = pose(-2.001, 0.0, 0.0);
        assert!(cast_shape(&circle(1.0), apart, Dir2::X, 0.0, &block, at).is_none());
    }

    #[test]
    fn casts_far_from_the_origin_keep_their_precision() {
        // A capsule walking into a wall at x = 10000 + 3: precision of the
        // coordinates there (1e-3) is lost only once, in the world pose.
        let far = Vec2::new(1.0e4, 1.0e4);
        let wall = rect(2.0, 20.0);
        let hit = cast_shape(
            &capsule(0.5, 1.0),
            Isometry2d::from_translation(far + Vec2::new(0.25, 0.0)),
            Dir2::X,
            f32::INFINITY,
            &wall,
            Isometry2d::from_translation(far + Vec2::new(4.0, 0.0)),
        )
        .unwrap();
        assert_eq!(hit.distance, 2.25, "{hit:?}");
        assert_eq!(hit.normal, Dir2::NEG_X);
        assert!((hit.point.x - (far.x + 3.0)).abs() <= 1e-3, "{hit:?}");
        // The same turned by a quarter (the frame is the capsule's own).
        let turn = Rot2::degrees(90.0);
        let hit = cast_shape(
            &capsule(0.5, 1.0),
            Isometry2d::new(far + Vec2::new(0.0, 0.25), turn),
            Dir2::Y,
            f32::INFINITY,
            &rect(20.0, 2.0),
            Isometry2d::from_translation(far + Vec2::new(0.0, 4.0)),
        )
        .unwrap();
        assert!((hit.distance - 2.25).abs() <= 1e-5, "{hit:?}");
        assert!(
            (hit.normal.as_vec2() - Vec2::NEG_Y).length() <= 1e-5,
            "{hit:?}"
        );
    }
}
