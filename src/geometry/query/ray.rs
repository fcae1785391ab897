//! Ray casts: where a ray first meets a shape (each convex kind's test in
//! `ray_convex.rs`, a compound's walk over its parts here).
//!
//! Shapes are solid: a ray that starts inside a shape (or on its boundary,
//! since touching counts as colliding here) hits it at distance 0, at its
//! origin, with the normal pointing back along the ray (`-direction`), as
//! parry's and avian's solid casts report a ray starting inside. There is no
//! surface normal worth reporting there: the ray does not cross the boundary.
//!
//! Bad input gives `None` rather than a meaningless hit: a NaN or infinite
//! origin or direction, a NaN or negative `max_distance`, a size that is not
//! finite and positive, a pose that is not finite. [`Shape::cast_ray`] also
//! rejects whatever [`Shape::validate`] and
//! [`validate_pose`](crate::geometry::validate_pose) reject (such as a rotation that
//! is not of unit length); [`ray_rect`](crate::geometry::ray_rect), like the pair tests, takes the
//! rotation as given.

use bevy::math::{Dir2, Isometry2d, Vec2};

use crate::geometry::shape::checked::ShapeError;
use crate::geometry::shape::compound::Compound;
use crate::geometry::shape::view::Placed;

use crate::geometry::shape::Shape;
use crate::geometry::shape::view::ShapeView;

/// Where a ray first meets a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayIntersection {
    /// Distance from the ray's origin to the hit along its direction, in
    /// `0..=max_distance`; `0` when the origin is inside the shape.
    pub distance: f32,
    /// The hit point in world space: `origin + direction * distance`.
    pub point: Vec2,
    /// The outward unit normal of the surface at `point`, or `-direction`
    /// when the ray starts inside the shape. At a rectangle's corner, the
    /// normal of the side the ray crossed last (the x side of the rectangle
    /// on an exact tie).
    pub normal: Dir2,
}

impl Shape {
    /// Casts a ray from `origin` along `direction` against this shape at
    /// `pose`: the nearest point of the shape at most `max_distance` along
    /// the ray, or `None`.
    ///
    /// A ray starting inside the shape or on its boundary hits at distance
    /// 0 (see [`RayIntersection::normal`]); a ray that only grazes the shape
    /// (tangent to a circle, along a side or through a corner of a
    /// rectangle) hits it, as touching shapes collide. `max_distance` may be
    /// [`f32::INFINITY`]. An invalid shape or pose, a non-finite origin or
    /// direction, or a NaN or negative `max_distance` gives `None`.
    ///
    /// ```
    /// # use bevy::math::{Dir2, Isometry2d, Vec2};
    /// # use bevy_collide2d::geometry::Shape;
    /// let wall = Shape::Rect { half_size: Vec2::new(1.0, 10.0) };
    /// let hit = wall
    ///     .cast_ray(Isometry2d::from_xy(5.0, 0.0), Vec2::ZERO, Dir2::X, f32::INFINITY)
    ///     .unwrap();
    /// assert_eq!(hit.distance, 4.0);
    /// assert_eq!(hit.point, Vec2::new(4.0, 0.0));
    /// assert_eq!(hit.normal, Dir2::NEG_X);
    /// ```
    pub fn cast_ray(
        &self,
        pose: Isometry2d,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
    ) -> Option<RayIntersection> {
        let (placed, ray) = self.placed_ray(pose, origin, direction, max_distance)?;
        placed.shape().cast_ray(placed.pose(), ray)
    }

    /// The shape at `pose` and the ray, both checked, for a cast from the
    /// pure API; `None` if either is invalid.
    pub(in crate::geometry) fn placed_ray(
        &self,
        pose: Isometry2d,
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
    ) -> Option<(Placed<'_>, Ray)> {
        let placed = Placed::new(self.view(), pose).ok()?;
        Some((placed, Ray::new(origin, direction, max_distance).ok()?))
    }
}

impl ShapeView<'_> {
    /// [`Shape::cast_ray`] for a checked ray, this shape and `pose` checked
    /// too (a [`Placed`] unpacked, or a detection's snapshot record): nothing
    /// is checked again.
    #[inline]
    pub(crate) fn cast_ray(&self, pose: Isometry2d, ray: Ray) -> Option<RayIntersection> {
        match *self {
            ShapeView::Convex(convex) => convex.cast_ray(pose, ray),
            ShapeView::Compound(compound) => ray_compound(compound, pose, ray),
        }
    }
}

/// The nearest hit of a ray on the parts of `compound` at `pose`: along
/// the ray through its part grid, nearest cells first, stopping at the
/// first hit, or over the parts near the ray. Out of line: rare, and the
/// shape tests' callers stay small.
#[inline(never)]
fn ray_compound(compound: &Compound, pose: Isometry2d, ray: Ray) -> Option<RayIntersection> {
    let mut nearest: Option<RayIntersection> = None;
    let parts = compound.parts();
    // Each part and its own pose were checked with the compound; the pose
    // they make together is not checked again (nor is it in detection).
    let mut test = |i: usize| {
        let part = &parts[i];
        let hit = (part.shape.view()).cast_ray(pose * part.pose, ray)?;
        if nearest.is_none_or(|n| hit.distance < n.distance) {
            nearest = Some(hit);
        }
        Some(hit.distance)
    };
    if let Some(grid) = compound.part_grid() {
        let local_origin = pose.inverse_transform_point(ray.origin());
        let local_direction = pose.rotation.inverse() * ray.direction().as_vec2();
        grid.visit_along_ray(local_origin, local_direction, ray.max_distance(), test);
        return nearest;
    }
    compound.visit_parts(
        || None,
        |i, _| {
            test(i as usize);
        },
    );
    nearest
}

/// A ray checked once, where it comes in: a finite origin, a unit
/// direction and a `max_distance` that is not NaN nor negative (it may be
/// infinite). Built only by [`Ray::new`], so the ray tests past the public
/// entry points never check it again.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ray {
    origin: Vec2,
    direction: Dir2,
    max_distance: f32,
}

impl Ray {
    /// The ray, checked. A direction that drifted from unit length (a
    /// `Dir2` built unchecked, or rotated many times) is renormalised so
    /// that distances are true; a unit one is kept bit for bit, so that
    /// `-direction` normals are exactly the opposite of what was passed.
    pub(crate) fn new(
        origin: Vec2,
        direction: Dir2,
        max_distance: f32,
    ) -> Result<Self, ShapeError> {
        let invalid = ShapeError::InvalidRay {
            origin,
            direction: direction.as_vec2(),
            max_distance,
        };
        // `!(x >= 0)` also rejects NaN.
        if !origin.is_finite() || max_distance.is_nan() || max_distance < 0.0 {
            return Err(invalid);
        }
        let length_error = (direction.length_squared() - 1.0).abs();
        let direction = if length_error <= 4.0 * f32::EPSILON {
            direction
        } else {
            // Also rejects NaN and infinite directions.
            Dir2::new(direction.as_vec2()).map_err(|_| invalid)?
        };
        Ok(Self {
            origin,
            direction,
            max_distance,
        })
    }

    #[inline]
    pub(crate) fn origin(self) -> Vec2 {
        self.origin
    }

    #[inline]
    pub(crate) fn direction(self) -> Dir2 {
        self.direction
    }

    #[inline]
    pub(crate) fn max_distance(self) -> f32 {
        self.max_distance
    }

    /// Its origin, direction and `max_distance`.
    #[inline]
    pub(crate) fn parts(self) -> (Vec2, Dir2, f32) {
        (self.origin, self.direction, self.max_distance)
    }

    /// The same ray, ending at `limit` if that is nearer (a nearer hit
    /// already found): still a checked ray.
    #[inline]
    pub(crate) fn up_to(self, limit: f32) -> Self {
        Self {
            max_distance: self.max_distance.min(limit.max(0.0)),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::ConvexPolygon;
    use crate::geometry::reference_tests::{
        Kind, RefShape, explore_scale, random_shape_of, reference, segment_distance,
    };
    use bevy::math::{DVec2, Rot2};
    use rand::{Rng, SeedableRng, rngs::StdRng};

    fn rect(w: f32, h: f32) -> Shape {
        Shape::Rect {
            half_size: Vec2::new(w, h) * 0.5,
        }
    }

    fn dir(x: f32, y: f32) -> Dir2 {
        Dir2::new(Vec2::new(x, y)).unwrap()
    }

    fn assert_close(actual: Vec2, expected: Vec2, tolerance: f32) {
        assert!(
            actual.abs_diff_eq(expected, tolerance),
            "{actual} != {expected}"
        );
    }

    /// A ray aimed at the middle of each side of a rotated rectangle, from
    /// 5 units out along the side's normal, hits there with that normal.
    /// Rotating the ray into the rectangle's frame by +angle instead of
    /// -angle only passes at 0 and 180 degrees.
    #[test]
    fn a_ray_is_checked_once_and_kept_as_given_when_unit() {
        let bad = [
            (Vec2::new(f32::NAN, 0.0), Dir2::X, 1.0),
            (Vec2::new(f32::INFINITY, 0.0), Dir2::X, 1.0),
            (Vec2::ZERO, Dir2::X, -1.0),
            (Vec2::ZERO, Dir2::X, f32::NAN),
            (Vec2::ZERO, Dir2::from_angle(f32::NAN), 1.0),
        ];
        for (origin, direction, max_distance) in bad {
            let Err(ShapeError::InvalidRay {
                origin: o,
                max_distance: m,
                ..
            }) = Ray::new(origin, direction, max_distance)
            else {
                panic!("{origin} {direction:?} {max_distance} accepted");
            };
            assert_eq!(
                (o.x.to_bits(), m.to_bits()),
                (origin.x.to_bits(), max_distance.to_bits())
            );
        }
        // Infinitely long is a ray; a unit direction is kept to the bit.
        let unit = dir(3.0, 4.0);
        let ray = Ray::new(Vec2::ONE, unit, f32::INFINITY).unwrap();
        assert_eq!(ray.parts(), (Vec2::ONE, unit, f32::INFINITY));
        // A drifted one is renormalised, so that distances are true (off by
        // 1e-5: a debug build warns of more).
        let drifted = Dir2::new_unchecked(Vec2::new(0.6, 0.8) * 1.000_01);
        let length = Ray::new(Vec2::ZERO, drifted, 1.0)
            .unwrap()
            .direction()
            .length();
        assert!((length - 1.0).abs() < 1e-6, "{length}");
        // Cut short by a nearer hit, never lengthened nor made negative.
        assert_eq!(ray.up_to(5.0).max_distance(), 5.0);
        let short = Ray::new(Vec2::ZERO, unit, 2.0).unwrap();
        assert_eq!(short.up_to(5.0).max_distance(), 2.0);
        assert_eq!(short.up_to(-1.0).max_distance(), 0.0);
    }

    #[test]
    fn rotation_sign_and_degrees() {
        let shape = rect(4.0, 1.0);
        let center = Vec2::new(3.0, -2.0);
        for degrees in [0.0_f32, 30.0, 90.0, 135.0, -60.0, 200.0, 359.0] {
            let rotation = Rot2::degrees(degrees);
            let pose = Isometry2d::new(center, rotation);
            let sides = [
                (Vec2::X, 2.0),
                (Vec2::NEG_X, 2.0),
                (Vec2::Y, 0.5),
                (Vec2::NEG_Y, 0.5),
            ];
            for (local_normal, half) in sides {
                let normal = rotation * local_normal;
                let side_middle = center + normal * half;
                let origin = side_middle + normal * 5.0;
                let hit = shape
                    .cast_ray(pose, origin, Dir2::new(-normal).unwrap(), 100.0)
                    .unwrap_or_else(|| panic!("{degrees} degrees, side {local_normal}"));
                assert!((hit.distance - 5.0).abs() < 1e-4, "{degrees}: {hit:?}");
                assert_close(hit.point, side_middle, 1e-4);
                assert_close(*hit.normal, normal, 1e-5);
            }
        }
    }

    #[test]
    fn circle_hit_point_and_normal() {
        let circle = Shape::Circle { radius: 2.0 };
        let pose = Isometry2d::from_xy(10.0, 1.0);
        let hit = circle.cast_ray(pose, Vec2::new(0.0, 1.0), Dir2::X, 100.0);
        let hit = hit.unwrap();
        assert_eq!(hit.distance, 8.0);
        assert_eq!(hit.point, Vec2::new(8.0, 1.0));
        assert_eq!(hit.normal, Dir2::NEG_X);
        // Off-centre: the normal is the radius direction at the hit.
        let hit = circle
            .cast_ray(pose, Vec2::new(0.0, 2.0), Dir2::X, 100.0)
            .unwrap();
        let expected_x = 10.0 - 3.0_f32.sqrt();
        assert!((hit.distance - expected_x).abs() < 1e-5, "{hit:?}");
        assert_close(*hit.normal, Vec2::new(-(3.0_f32.sqrt()), 1.0) / 2.0, 1e-5);
    }

    #[test]
    fn ray_along_a_side_touches_it() {
        let square = rect(2.0, 2.0);
        let pose = Isometry2d::IDENTITY;
        // Exactly along the top side: touching counts.
        let hit = square
            .cast_ray(pose, Vec2::new(-5.0, 1.0), Dir2::X, 100.0)
            .unwrap();
        assert_eq!(hit.distance, 4.0);
        assert_eq!(hit.point, Vec2::new(-1.0, 1.0));
        assert_eq!(hit.normal, Dir2::NEG_X);
        // Along the right side, downwards.
        let hit = square
            .cast_ray(pose, Vec2::new(1.0, 7.0), Dir2::NEG_Y, 100.0)
            .unwrap();
        assert_eq!((hit.distance, hit.normal), (6.0, Dir2::Y));
        // Just outside the side: a miss.
        assert!(
            square
                .cast_ray(pose, Vec2::new(-5.0, 1.0001), Dir2::X, 100.0)
                .is_none()
        );
        // Along the side but past it, going away.
        assert!(
            square
                .cast_ray(pose, Vec2::new(2.0, 1.0), Dir2::X, 100.0)
                .is_none()
        );
        // A side of a rotated rectangle is not exactly representable: just
        // inside it hits, just outside misses, and neither panics.
        let rotation = Rot2::degrees(30.0);
        let pose = Isometry2d::new(Vec2::new(1.0, 2.0), rotation);
        let along = rotation * Vec2::X;
        let up = rotation * Vec2::Y;
        let start = pose.translation + up * 1.0 - along * 10.0;
        let direction = Dir2::new(along).unwrap();
        let inside = square.cast_ray(pose, start - up * 1e-3, direction, 100.0);
        assert!((inside.unwrap().distance - 9.0).abs() < 1e-3, "{inside:?}");
        assert!(
            square
                .cast_ray(pose, start + up * 1e-3, direction, 100.0)
                .is_none()
        );
        let exact = square.cast_ray(pose, start, direction, 100.0);
        if let Some(hit) = exact {
            let local = pose.inverse_transform_point(hit.point);
            assert!(local.abs().max_element() <= 1.0 + 1e-4, "{hit:?}");
        }
    }

    #[test]
    fn grazing_corners_and_tangents() {
        let square = rect(2.0, 2.0);
        // Through the corner (-1, 1) exactly: hits there.
        let diagonal = dir(1.0, 1.0);
        let hit = square
            .cast_ray(Isometry2d::IDENTITY, Vec2::new(-2.0, 0.0), diagonal, 100.0)
            .unwrap();
        assert!((hit.distance - 2.0_f32.sqrt()).abs() < 1e-6, "{hit:?}");
        assert_close(hit.point, Vec2::new(-1.0, 1.0), 1e-6);
        // Ties go to the x side.
        assert_eq!(hit.normal, Dir2::NEG_X);
        // A hair above the corner: misses.
        assert!(
            square
                .cast_ray(Isometry2d::IDENTITY, Vec2::new(-2.0, 1e-4), diagonal, 100.0)
                .is_none()
        );
        // A circle's bounding box is hit here, the circle is not.
        let circle = Shape::Circle { radius: 1.0 };
        assert!(
            circle
                .cast_ray(Isometry2d::IDENTITY, Vec2::new(-2.0, 0.2), diagonal, 100.0)
                .is_none()
        );
        // Tangent to a circle: touches at the top.
        let hit = circle
            .cast_ray(Isometry2d::IDENTITY, Vec2::new(-5.0, 1.0), Dir2::X, 100.0)
            .unwrap();
        assert_eq!((hit.distance, hit.point), (5.0, Vec2::new(0.0, 1.0)));
        assert_eq!(hit.normal, Dir2::Y);
        assert!(
            circle
                .cast_ray(
                    Isometry2d::IDENTITY,
                    Vec2::new(-5.0, 1.0001),
                    Dir2::X,
                    100.0
                )
                .is_none()
        );
    }

    #[test]
    fn starting_inside_or_on_the_boundary_hits_at_zero() {
        let shapes = [
            (Shape::Circle { radius: 2.0 }, Isometry2d::from_xy(1.0, 1.0)),
            (
                rect(4.0, 2.0),
                Isometry2d::new(Vec2::new(1.0, 1.0), Rot2::degrees(40.0)),
            ),
        ];
        for (shape, pose) in shapes {
            for origin in [pose.translation, pose.translation + Vec2::new(0.3, -0.2)] {
                for direction in [Dir2::X, Dir2::NEG_Y, dir(-1.0, 3.0)] {
                    for max_distance in [0.0, 1.0, f32::INFINITY] {
                        let hit = shape
                            .cast_ray(pose, origin, direction, max_distance)
                            .unwrap();
                        assert_eq!(
                            hit,
                            RayIntersection {
                                distance: 0.0,
                                point: origin,
                                normal: -direction,
                            }
                        );
                    }
                }
            }
        }
        // Exactly on the boundary, pointing out: still a hit at 0.
        let circle = Shape::Circle { radius: 1.0 };
        let hit = circle.cast_ray(Isometry2d::IDENTITY, Vec2::X, Dir2::X, 10.0);
        assert_eq!(hit.map(|h| h.distance), Some(0.0));
        let hit = rect(2.0, 2.0).cast_ray(Isometry2d::IDENTITY, Vec2::ONE, Dir2::Y, 10.0);
        assert_eq!(hit.map(|h| h.distance), Some(0.0));
    }

    #[test]
    fn max_distance_limits() {
        let circle = Shape::Circle { radius: 1.0 };
        let near = Isometry2d::from_xy(3.0, 0.0);
        let cast = |pose, max| circle.cast_ray(pose, Vec2::ZERO, Dir2::X, max);
        // The hit is at exactly 2: a max of 2 reaches it, a bit less does not.
        assert_eq!(cast(near, 2.0).map(|h| h.distance), Some(2.0));
        assert!(cast(near, 1.999).is_none());
        assert!(cast(near, 0.0).is_none());
        let far = Isometry2d::from_xy(1e7, 0.0);
        for max in [f32::INFINITY, f32::MAX, 2e7] {
            let hit = cast(far, max).unwrap();
            assert!((hit.distance - (1e7 - 1.0)).abs() <= 1.0, "{hit:?}");
        }
        for max in [-1.0, -1e-30, f32::NAN, f32::NEG_INFINITY] {
            assert!(cast(near, max).is_none(), "{max}");
        }
        // -0.0 is not negative.
        let inside = Isometry2d::IDENTITY;
        assert!(cast(inside, -0.0).is_some());
        let square = rect(2.0, 2.0);
        let hit = square.cast_ray(
            Isometry2d::from_xy(-1e7, 0.0),
            Vec2::ZERO,
            Dir2::NEG_X,
            f32::INFINITY,
        );
        assert!((hit.unwrap().distance - (1e7 - 1.0)).abs() <= 1.0);
    }

    /// Directions along the axes make some slab denominators exactly zero;
    /// exact 90 degree rotations make them zero in the rectangle's frame.
    #[test]
    fn axis_parallel_directions() {
        let shape = rect(4.0, 2.0);
        let rotations = [
            Rot2::IDENTITY,
            Rot2 { cos: 0.0, sin: 1.0 },
            Rot2 {
                cos: -1.0,
                sin: 0.0,
            },
            Rot2 {
                cos: 0.0,
                sin: -1.0,
            },
        ];
        for rotation in rotations {
            let pose = Isometry2d::new(Vec2::new(1.0, 1.0), rotation);
            let extent = (rotation * Vec2::new(2.0, 1.0)).abs();
            for direction in Dir2::CARDINALS {
                // From 10 units out, through the centre and off-centre.
                for offset in [0.0, 0.5, -0.5] {
                    let across = Vec2::new(-direction.y, direction.x) * offset;
                    let origin = pose.translation - *direction * 10.0 + across;
                    let hit = shape.cast_ray(pose, origin, direction, 100.0).unwrap();
                    let to_side = (extent * direction.abs()).max_element();
                    assert!((hit.distance - (10.0 - to_side)).abs() < 1e-5, "{hit:?}");
                    assert_eq!(hit.normal, -direction, "{rotation:?}");
                }
                // Beside the rectangle, parallel to it: a miss, not a NaN.
                let beside = Vec2::new(-direction.y, direction.x) * 10.0;
                let origin = pose.translation - *direction * 10.0 + beside;
                assert!(shape.cast_ray(pose, origin, direction, 100.0).is_none());
            }
        }
        // A subnormal direction component: no `0 * inf` NaN. Starting on
        // the bottom side's line and rising imperceptibly, the ray enters;
        // starting on the top side's line, it leaves.
        let tiny = dir(1.0, 1e-40);
        let from_bottom = shape.cast_ray(Isometry2d::IDENTITY, Vec2::new(-5.0, -1.0), tiny, 100.0);
        assert_eq!(from_bottom.map(|h| h.distance), Some(3.0));
        let from_top = shape.cast_ray(Isometry2d::IDENTITY, Vec2::new(-5.0, 1.0), tiny, 100.0);
        assert!(from_top.is_none(), "{from_top:?}");
    }

    #[test]
    fn pointing_away_or_behind_misses() {
        let circle = Shape::Circle { radius: 1.0 };
        let square = rect(2.0, 2.0);
        let pose = Isometry2d::from_xy(5.0, 0.0);
        for shape in [circle, square] {
            assert!(
                shape
                    .cast_ray(pose, Vec2::ZERO, Dir2::NEG_X, 100.0)
                    .is_none()
            );
            assert!(shape.cast_ray(pose, Vec2::ZERO, Dir2::Y, 100.0).is_none());
            assert!(shape.cast_ray(pose, Vec2::ZERO, Dir2::X, 100.0).is_some());
        }
    }

    #[test]
    fn bad_input_misses_without_panicking() {
        let nan_direction = Dir2::from_angle(f32::NAN);
        let shapes = [
            Shape::Circle { radius: 1.0 },
            rect(2.0, 2.0),
            Shape::Circle { radius: f32::NAN },
            Shape::Circle { radius: -1.0 },
            Shape::Rect {
                half_size: Vec2::new(1.0, f32::NAN),
            },
            Shape::Rect {
                half_size: Vec2::ZERO,
            },
        ];
        let bad_poses = [
            Isometry2d::from_xy(f32::NAN, 0.0),
            Isometry2d::from_xy(f32::INFINITY, 0.0),
            Isometry2d::new(
                Vec2::ZERO,
                Rot2 {
                    cos: f32::NAN,
                    sin: 0.0,
                },
            ),
        ];
        for (k, shape) in shapes.iter().enumerate() {
            let valid = k < 2;
            let good = shape.cast_ray(Isometry2d::IDENTITY, Vec2::new(-5.0, 0.0), Dir2::X, 10.0);
            assert_eq!(good.is_some(), valid, "{shape:?}");
            for origin in [Vec2::NAN, Vec2::new(f32::INFINITY, 0.0)] {
                assert!(
                    shape
                        .cast_ray(Isometry2d::IDENTITY, origin, Dir2::X, 10.0)
                        .is_none()
                );
            }
            // Even from inside: a NaN direction has no `-direction` normal.
            assert!(
                shape
                    .cast_ray(Isometry2d::IDENTITY, Vec2::ZERO, nan_direction, 10.0)
                    .is_none()
            );
            for pose in bad_poses {
                assert!(
                    shape
                        .cast_ray(pose, Vec2::new(-5.0, 0.0), Dir2::X, 10.0)
                        .is_none(),
                    "{shape:?} {pose:?}"
                );
            }
        }
    }

    #[test]
    fn zero_length_ray_agrees_with_contains_point() {
        let mut rng = StdRng::seed_from_u64(3);
        for case in 0..20_000 {
            let (shape, pose) = if case % 2 == 0 {
                random_shape(&mut rng)
            } else {
                random_new_kind(&mut rng)
            };
            let point = Vec2::new(rng.random_range(-12.0..12.0), rng.random_range(-12.0..12.0));
            let direction = Dir2::from_angle(rng.random_range(0.0..std::f32::consts::TAU));
            assert_eq!(
                shape.cast_ray(pose, point, direction, 0.0).is_some(),
                shape.contains_point(pose, point),
                "{shape:?} {pose:?} {point}"
            );
        }
    }

    /// A circle or a rectangle: the draws the circle and rectangle rays have
    /// always had.
    fn random_shape(rng: &mut StdRng) -> (Shape, Isometry2d) {
        let shape = if rng.random_bool(0.5) {
            Shape::Circle {
                radius: rng.random_range(0.2..6.0),
            }
        } else {
            Shape::Rect {
                half_size: Vec2::new(rng.random_range(0.1..6.0), rng.random_range(0.1..6.0)),
            }
        };
        let pose = Isometry2d::new(
            Vec2::new(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0)),
            Rot2::radians(rng.random_range(-4.0..4.0)),
        );
        (shape, pose)
    }

    fn random_new_kind(rng: &mut StdRng) -> (Shape, Isometry2d) {
        let kind = [Kind::Capsule, Kind::Segment, Kind::Polygon][rng.random_range(0..3)];
        let shape = random_shape_of(rng, kind, 6.0);
        let pose = Isometry2d::new(
            Vec2::new(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0)),
            Rot2::radians(rng.random_range(-4.0..4.0)),
        );
        (shape, pose)
    }

    /// The first `t` in `0..=limit` at which `origin + t * direction` is
    /// within `level` of `shape` (its signed distance at most `level`), in
    /// f64. The signed distance of a convex shape is convex along the ray:
    /// a golden-section search finds its minimum, then a bisection the
    /// first time it is low enough.
    fn reference_entry(
        shape: &RefShape,
        origin: DVec2,
        direction: DVec2,
        level: f64,
        limit: f64,
    ) -> Option<f64> {
        let f = |t: f64| shape.signed_distance(origin + direction * t) - level;
        if f(0.0) <= 0.0 {
            return Some(0.0);
        }
        let ratio = (5f64.sqrt() - 1.0) / 2.0;
        let (mut lo, mut hi) = (0.0, limit);
        for _ in 0..90 {
            let (m1, m2) = (hi - ratio * (hi - lo), lo + ratio * (hi - lo));
            if f(m1) <= f(m2) {
                hi = m2;
            } else {
                lo = m1;
            }
        }
        let lowest = 0.5 * (lo + hi);
        if f(lowest) > 0.0 {
            return None;
        }
        let (mut lo, mut hi) = (0.0, lowest);
        for _ in 0..70 {
            let mid = 0.5 * (lo + hi);
            if f(mid) <= 0.0 {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Some(hi)
    }

    /// Where a ray clearly crosses a segment (away from its ends, at an
    /// angle, starting off it), in f64.
    fn reference_segment_crossing(
        core: &[DVec2],
        origin: DVec2,
        direction: DVec2,
        margin: f64,
    ) -> Option<f64> {
        let [s, e] = core else { return None };
        let edge = *e - *s;
        let length = edge.length();
        let crossing = direction.perp_dot(edge);
        if crossing.abs() < 0.05 * length {
            return None;
        }
        let t = (*s - origin).perp_dot(edge) / crossing;
        let u = (*s - origin).perp_dot(direction) / crossing;
        let clear = 10.0 * margin;
        (t >= clear && u * length >= clear && (1.0 - u) * length >= clear).then_some(t)
    }

    /// Rays closer than this to grazing a shape, starting on its boundary or
    /// ending at it are too close to call in f32: the shape grown and shrunk
    /// by this much are compared instead.
    const MARGIN: f64 = 1e-3;

    /// Where a ray enters a circle or a rectangle grown by `by` (shrunk when
    /// negative), as the outward normal there, in f64: the radius direction
    /// on a circle, the normal of the side crossed on a rectangle, whose
    /// corners stay sharp here (the reference grows shapes round), and
    /// `-direction` from inside. `None` when it misses within `limit`.
    fn offset_entry_normal(
        shape: &Shape,
        pose: Isometry2d,
        by: f64,
        origin: DVec2,
        direction: DVec2,
        limit: f64,
    ) -> Option<DVec2> {
        let center = pose.translation.as_dvec2();
        let offset = match *shape {
            Shape::Circle { radius } => RefShape::from_core(vec![center], f64::from(radius) + by),
            Shape::Rect { half_size } => {
                let h = half_size.as_dvec2() + by;
                let (cos, sin) = (f64::from(pose.rotation.cos), f64::from(pose.rotation.sin));
                let corners =
                    [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)].map(|(sx, sy)| {
                        let (x, y) = (sx * h.x, sy * h.y);
                        center + DVec2::new(cos * x - sin * y, sin * x + cos * y)
                    });
                RefShape::from_core(corners.to_vec(), 0.0)
            }
            _ => unreachable!("circles and rectangles only"),
        };
        let t = reference_entry(&offset, origin, direction, 0.0, limit)?;
        if t == 0.0 {
            return Some(-direction);
        }
        let p = origin + direction * t;
        let normal = match offset.core() {
            [c] => p - *c,
            core => {
                // The side nearest the entry point. Counter-clockwise
                // corners: the outward normal is the side turned clockwise.
                let n = core.len();
                let (s, e) = (0..n)
                    .map(|i| (core[i], core[(i + 1) % n]))
                    .min_by(|(s0, e0), (s1, e1)| {
                        segment_distance(p, *s0, *e0).total_cmp(&segment_distance(p, *s1, *e1))
                    })
                    .unwrap();
                let edge = e - s;
                DVec2::new(edge.y, -edge.x)
            }
        };
        Some(normal.normalize())
    }

    /// How the random rays of [`check_random_rays`] went.
    #[derive(Debug, Default)]
    struct Tally {
        hits: usize,
        misses: usize,
        skipped: usize,
    }

    /// Casts `cases` random rays at shapes from `draw` and checks each one
    /// against the shared f64 reference: clear misses miss; clear hits hit
    /// between the shape grown and shrunk by the margin, at that point along
    /// the ray, with a unit normal that is exactly `-direction` from well
    /// inside, and otherwise faces the ray and points out of the shape.
    /// Circles and rectangles (hand-written casts) are held to tighter
    /// normals as well.
    fn check_random_rays(
        mut rng: StdRng,
        cases: usize,
        draw: fn(&mut StdRng) -> (Shape, Isometry2d),
    ) -> Tally {
        let mut tally = Tally::default();
        for case in 0..cases {
            let (shape, pose) = draw(&mut rng);
            let origin = Vec2::new(rng.random_range(-20.0..20.0), rng.random_range(-20.0..20.0));
            // Half the rays are aimed near the shape, a quarter of them go
            // along the axes.
            let direction = if case % 4 == 0 {
                Dir2::CARDINALS[rng.random_range(0..4)]
            } else if case % 4 == 1 {
                Dir2::from_angle(rng.random_range(0.0..std::f32::consts::TAU))
            } else {
                let target = pose.translation
                    + Vec2::new(rng.random_range(-7.0..7.0), rng.random_range(-7.0..7.0));
                match Dir2::new(target - origin) {
                    Ok(direction) => direction,
                    Err(_) => continue,
                }
            };
            let max_distance = if rng.random_bool(0.3) {
                rng.random_range(0.0..30.0)
            } else {
                f32::INFINITY
            };
            let (o, d) = (origin.as_dvec2(), direction.as_vec2().as_dvec2());
            let limit = f64::from(max_distance).min(200.0);
            let reference = reference(&shape, pose);
            let grown = reference_entry(&reference, o, d, MARGIN, limit);
            let shrunk = match shape {
                Shape::Segment { .. } => reference_segment_crossing(reference.core(), o, d, MARGIN),
                _ => reference_entry(&reference, o, d, -MARGIN, limit),
            };
            let actual = shape.cast_ray(pose, origin, direction, max_distance);
            let describe = || {
                format!(
                    "case {case}: {shape:?} {pose:?} {origin} {direction:?} {max_distance}: {actual:?}"
                )
            };
            // Too close to call: grazing, starting on the boundary, or
            // ending right at the shape.
            let clear_hit = shrunk.is_some_and(|t| t <= limit - 2.0 * MARGIN);
            if grown.is_none() {
                tally.misses += 1;
                assert!(actual.is_none(), "{}", describe());
                continue;
            }
            if !clear_hit {
                tally.skipped += 1;
                continue;
            }
            tally.hits += 1;
            let hit = actual.unwrap_or_else(|| panic!("{}", describe()));
            // The shrunk and grown shapes bracket the true distance.
            let (t_grown, t_shrunk) = (grown.unwrap(), shrunk.unwrap());
            let t = f64::from(hit.distance);
            assert!(
                t >= t_grown - 1e-4 && t <= t_shrunk + 1e-4,
                "{}: {t} not in {t_grown}..={t_shrunk}",
                describe()
            );
            assert!(
                hit.point.as_dvec2().distance(o + d * t) < 1e-4,
                "{}",
                describe()
            );
            let normal = hit.normal.as_vec2().as_dvec2();
            assert!((normal.length() - 1.0).abs() < 1e-5, "{}", describe());
            if reference.signed_distance(o) <= -MARGIN {
                // Starting inside.
                assert_eq!(
                    (hit.distance, hit.point, hit.normal),
                    (0.0, origin, -direction),
                    "{}",
                    describe()
                );
            } else if t > 0.0 {
                // Facing the ray, and outward: stepping out along it from
                // the hit clears the shape by as much.
                assert!(normal.dot(d) <= 1e-6, "{}", describe());
                let step = 1e-2;
                let out = reference.signed_distance(hit.point.as_dvec2() + normal * step);
                assert!(
                    out >= 0.9 * step - 1e-4,
                    "{}: normal clears by {out}",
                    describe()
                );
            }
            match shape {
                // The radius direction at the hit point.
                Shape::Circle { .. } if t > 0.0 => {
                    let radial = (hit.point - pose.translation).as_dvec2().normalize();
                    assert!(
                        normal.distance(radial) < 1e-3,
                        "{}: normal {normal} vs {radial}",
                        describe()
                    );
                }
                // Near a corner either side's normal is right; elsewhere the
                // rectangle grown and shrunk by the margin (corners kept
                // sharp) are entered through the same side, and the normal
                // is that side's. (A circle hit at 0 can only agree with
                // its grown and shrunk circles on `-direction`.)
                Shape::Circle { .. } | Shape::Rect { .. } => {
                    let entry = |by| offset_entry_normal(&shape, pose, by, o, d, limit);
                    if let (Some(outer), Some(inner)) = (entry(MARGIN), entry(-MARGIN))
                        && outer.distance(inner) < 1e-9
                    {
                        assert!(
                            normal.distance(inner) < 1e-5,
                            "{}: normal {normal} vs {inner}",
                            describe()
                        );
                    }
                }
                _ => {}
            }
        }
        tally
    }

    /// Rays against every kind of shape, checked by [`check_random_rays`]
    /// against the shared f64 reference.
    #[test]
    fn every_kind_matches_an_f64_reference() {
        // Circles and rectangles: the cases they have always had (the
        // hand-written casts are cheap), not scaled.
        let tally = check_random_rays(StdRng::seed_from_u64(17), 100_000, random_shape);
        assert!(
            tally.hits > 20_000 && tally.misses > 20_000,
            "circles and rectangles: {tally:?}"
        );
        assert!(tally.skipped < 1_000, "circles and rectangles: {tally:?}");
        // Capsules, segments and polygons.
        let scale = explore_scale();
        let seed = if scale > 1 { 1018 } else { 18 };
        let cases = 30_000 * scale;
        let tally = check_random_rays(StdRng::seed_from_u64(seed), cases, random_new_kind);
        assert!(
            tally.hits > cases / 8 && tally.misses > cases / 6,
            "capsules, segments and polygons: {tally:?}"
        );
        assert!(
            tally.skipped < cases / 20,
            "capsules, segments and polygons: {tally:?}"
        );
    }

    fn capsule() -> Shape {
        Shape::Capsule {
            radius: 1.0,
            half_length: 2.0,
        }
    }

    #[test]
    fn ray_hits_capsule_caps_and_sides() {
        let shape = capsule();
        let pose = Isometry2d::IDENTITY;
        // Down onto the top of the upper cap.
        let hit = shape
            .cast_ray(pose, Vec2::new(0.0, 10.0), Dir2::NEG_Y, 100.0)
            .unwrap();
        assert_eq!(
            (hit.distance, hit.point, hit.normal),
            (7.0, Vec2::new(0.0, 3.0), Dir2::Y)
        );
        // Onto the upper cap off its centre line: the normal is radial.
        let hit = shape
            .cast_ray(pose, Vec2::new(10.0, 2.5), Dir2::NEG_X, 100.0)
            .unwrap();
        let x = 0.75f32.sqrt();
        assert!((hit.distance - (10.0 - x)).abs() < 1e-5, "{hit:?}");
        assert_close(*hit.normal, Vec2::new(x, 0.5), 1e-5);
        // Onto the side.
        let hit = shape
            .cast_ray(pose, Vec2::new(-5.0, -1.5), Dir2::X, 100.0)
            .unwrap();
        assert_eq!((hit.distance, hit.normal), (4.0, Dir2::NEG_X));
        // Where the side meets the cap, and tangent to the cap's top.
        let hit = shape
            .cast_ray(pose, Vec2::new(-5.0, 2.0), Dir2::X, 100.0)
            .unwrap();
        assert_eq!((hit.distance, hit.normal), (4.0, Dir2::NEG_X));
        let hit = shape
            .cast_ray(pose, Vec2::new(-5.0, 3.0), Dir2::X, 100.0)
            .unwrap();
        assert_eq!(
            (hit.distance, hit.point, hit.normal),
            (5.0, Vec2::new(0.0, 3.0), Dir2::Y)
        );
        assert!(
            shape
                .cast_ray(pose, Vec2::new(-5.0, 3.001), Dir2::X, 100.0)
                .is_none()
        );
        // Beside the cap's corner region: the cap is round, its box is not.
        assert!(
            shape
                .cast_ray(pose, Vec2::new(-5.0, 2.95), dir(1.0, 1.0), 100.0)
                .is_none()
        );
        // Starting inside a cap or the middle: distance 0.
        for origin in [
            Vec2::new(0.3, 2.7),
            Vec2::new(-0.9, 0.0),
            Vec2::new(0.0, -3.0),
        ] {
            let hit = shape.cast_ray(pose, origin, Dir2::X, 100.0).unwrap();
            assert_eq!(
                hit,
                RayIntersection {
                    distance: 0.0,
                    point: origin,
                    normal: Dir2::NEG_X
                }
            );
        }
        // Turned a quarter: the caps face along x.
        let turned = Isometry2d::new(Vec2::new(10.0, 0.0), Rot2::degrees(90.0));
        let hit = shape.cast_ray(turned, Vec2::ZERO, Dir2::X, 100.0).unwrap();
        assert!((hit.distance - 7.0).abs() < 1e-5, "{hit:?}");
        assert_close(*hit.normal, Vec2::NEG_X, 1e-5);
        // A zero-length capsule is a circle.
        let ball = Shape::Capsule {
            radius: 1.0,
            half_length: 0.0,
        };
        let hit = ball
            .cast_ray(Isometry2d::from_xy(5.0, 0.0), Vec2::ZERO, Dir2::X, 100.0)
            .unwrap();
        assert_eq!((hit.distance, hit.normal), (4.0, Dir2::NEG_X));
    }

    #[test]
    fn ray_hits_segments_across_along_and_from_on_them() {
        let wall = Shape::Segment {
            a: Vec2::new(0.0, -1.0),
            b: Vec2::new(0.0, 1.0),
        };
        let pose = Isometry2d::from_xy(5.0, 0.0);
        // Across, from either side: the normal faces the ray.
        let hit = wall.cast_ray(pose, Vec2::ZERO, Dir2::X, 100.0).unwrap();
        assert_eq!(
            (hit.distance, hit.point, hit.normal),
            (5.0, Vec2::new(5.0, 0.0), Dir2::NEG_X)
        );
        let hit = wall
            .cast_ray(pose, Vec2::new(10.0, 0.5), Dir2::NEG_X, 100.0)
            .unwrap();
        assert_eq!((hit.distance, hit.normal), (5.0, Dir2::X));
        // Through an end: grazing counts; a hair past it misses.
        let hit = wall
            .cast_ray(pose, Vec2::new(0.0, 1.0), Dir2::X, 100.0)
            .unwrap();
        assert_eq!(hit.distance, 5.0);
        assert!(
            wall.cast_ray(pose, Vec2::new(0.0, 1.0001), Dir2::X, 100.0)
                .is_none()
        );
        // Along its line: the nearer end, facing back along the ray.
        let hit = wall
            .cast_ray(pose, Vec2::new(5.0, -5.0), Dir2::Y, 100.0)
            .unwrap();
        assert_eq!(
            (hit.distance, hit.point, hit.normal),
            (4.0, Vec2::new(5.0, -1.0), Dir2::NEG_Y)
        );
        let hit = wall.cast_ray(pose, Vec2::new(5.0, 5.0), Dir2::NEG_Y, 3.99);
        assert!(hit.is_none(), "{hit:?}");
        // Along its line but going away, or beside it: a miss.
        assert!(
            wall.cast_ray(pose, Vec2::new(5.0, 5.0), Dir2::Y, 100.0)
                .is_none()
        );
        assert!(
            wall.cast_ray(pose, Vec2::new(4.9, -5.0), Dir2::Y, 100.0)
                .is_none()
        );
        // Starting on it, along it or across it (at any angle): distance 0,
        // as for a ray starting on any shape's boundary.
        for direction in [Dir2::Y, Dir2::NEG_Y, Dir2::X, dir(1.0, 1.0), dir(-2.0, 1.0)] {
            let hit = wall
                .cast_ray(pose, Vec2::new(5.0, 0.5), direction, 100.0)
                .unwrap();
            assert_eq!(
                hit,
                RayIntersection {
                    distance: 0.0,
                    point: Vec2::new(5.0, 0.5),
                    normal: -direction
                },
                "{direction:?}"
            );
        }
        // A rotated segment placed by its pose, not at its local points.
        let tilted = Shape::Segment {
            a: Vec2::new(1.0, 0.0),
            b: Vec2::new(3.0, 0.0),
        };
        let pose = Isometry2d::new(Vec2::new(0.0, 5.0), Rot2::degrees(90.0));
        // Local (1..3, 0) turned a quarter is (0, 1..3), moved up to 6..8.
        let hit = tilted
            .cast_ray(pose, Vec2::new(-4.0, 7.0), Dir2::X, 100.0)
            .unwrap();
        assert!((hit.distance - 4.0).abs() < 1e-5, "{hit:?}");
        assert!(
            tilted
                .cast_ray(pose, Vec2::new(-4.0, 2.0), Dir2::X, 100.0)
                .is_none()
        );
        // A zero-length segment is a point: hit only along a ray through it.
        let point = Shape::Segment {
            a: Vec2::new(1.0, 1.0),
            b: Vec2::new(1.0, 1.0),
        };
        let hit = point
            .cast_ray(Isometry2d::IDENTITY, Vec2::new(-3.0, 1.0), Dir2::X, 100.0)
            .unwrap();
        assert_eq!((hit.distance, hit.point), (4.0, Vec2::ONE));
        assert!(
            point
                .cast_ray(Isometry2d::IDENTITY, Vec2::new(-3.0, 1.01), Dir2::X, 100.0)
                .is_none()
        );
    }

    #[test]
    fn ray_hits_polygons_at_vertices_edges_and_from_inside() {
        let diamond = Shape::Polygon(
            ConvexPolygon::new(&[Vec2::X, Vec2::Y, Vec2::NEG_X, Vec2::NEG_Y]).unwrap(),
        );
        let pose = Isometry2d::from_xy(5.0, 0.0);
        // Straight onto the left vertex: either side's normal is right.
        let hit = diamond.cast_ray(pose, Vec2::ZERO, Dir2::X, 100.0).unwrap();
        assert_eq!((hit.distance, hit.point), (4.0, Vec2::new(4.0, 0.0)));
        assert!((hit.normal.x + 0.5f32.sqrt()).abs() < 1e-6, "{hit:?}");
        // Grazing the top vertex: touching counts; a hair above misses.
        let hit = diamond
            .cast_ray(pose, Vec2::new(0.0, 1.0), Dir2::X, 100.0)
            .unwrap();
        assert_eq!((hit.distance, hit.point), (5.0, Vec2::new(5.0, 1.0)));
        assert!(
            diamond
                .cast_ray(pose, Vec2::new(0.0, 1.0001), Dir2::X, 100.0)
                .is_none()
        );
        // Onto a face.
        let hit = diamond
            .cast_ray(pose, Vec2::new(5.5, 5.0), Dir2::NEG_Y, 100.0)
            .unwrap();
        assert!((hit.distance - 4.5).abs() < 1e-6, "{hit:?}");
        assert_close(*hit.normal, Vec2::ONE.normalize(), 1e-6);
        // Starting inside or on the boundary: distance 0, back along the ray.
        for origin in [
            Vec2::new(5.2, 0.1),
            Vec2::new(5.5, 0.5),
            Vec2::new(6.0, 0.0),
        ] {
            let hit = diamond.cast_ray(pose, origin, Dir2::X, 100.0).unwrap();
            assert_eq!(
                hit,
                RayIntersection {
                    distance: 0.0,
                    point: origin,
                    normal: Dir2::NEG_X
                },
                "{origin}"
            );
        }
        // Pointing away or passing by.
        assert!(
            diamond
                .cast_ray(pose, Vec2::ZERO, Dir2::NEG_X, 100.0)
                .is_none()
        );
        assert!(
            diamond
                .cast_ray(pose, Vec2::new(0.0, 2.0), Dir2::X, 100.0)
                .is_none()
        );
        // Along an edge's line: it hits where the edge begins.
        let square = Shape::Polygon(
            ConvexPolygon::new(&[
                Vec2::ZERO,
                Vec2::new(2.0, 0.0),
                Vec2::new(2.0, 2.0),
                Vec2::new(0.0, 2.0),
            ])
            .unwrap(),
        );
        let hit = square
            .cast_ray(Isometry2d::IDENTITY, Vec2::new(-3.0, 0.0), Dir2::X, 100.0)
            .unwrap();
        assert_eq!((hit.distance, hit.normal), (3.0, Dir2::NEG_X));
        // Vertices away from the pose's origin turn with it.
        let triangle = Shape::Polygon(
            ConvexPolygon::new(&[
                Vec2::new(2.0, 0.0),
                Vec2::new(3.0, 0.0),
                Vec2::new(3.0, 1.0),
            ])
            .unwrap(),
        );
        let turned = Isometry2d::new(Vec2::ZERO, Rot2::degrees(90.0));
        // Turned a quarter: (0, 2), (0, 3), (-1, 3).
        let hit = triangle
            .cast_ray(turned, Vec2::new(-0.5, -5.0), Dir2::Y, 100.0)
            .unwrap();
        assert!((hit.distance - 7.5).abs() < 1e-5, "{hit:?}");
        assert_close(*hit.normal, Vec2::new(-1.0, -1.0).normalize(), 1e-5);
        assert!(
            triangle
                .cast_ray(turned, Vec2::new(0.5, -5.0), Dir2::Y, 100.0)
                .is_none()
        );
    }
}
