//! The shapes as stored: [`Shape`] (this file) and the parts it is made of,
//! a file each: the borrowed view the algorithms read (`view`: a convex
//! shape or a compound),
//! convex polygons, compounds and their part grid, polylines, concave
//! polygons and polygons with holes (decomposed into convex pieces), the
//! checks of sizes and poses (`checked`) and the reading of a `Transform`
//! (`pose`). Nothing here runs a query on a pair: that is `query/`.

pub(in crate::geometry) mod checked;
pub(in crate::geometry) mod compound;
pub(in crate::geometry) mod concave;
pub(in crate::geometry) mod holes;
pub(in crate::geometry) mod part_grid;
pub(in crate::geometry) mod polygon;
pub(in crate::geometry) mod polyline;
pub(in crate::geometry) mod pose;
pub(in crate::geometry) mod view;

use bevy::math::{Isometry2d, Vec2};
use bevy::reflect::Reflect;
#[cfg(feature = "serialize")]
use bevy::reflect::{ReflectDeserialize, ReflectSerialize};
use bevy::shape::Aabb2d;

use checked::ShapeError;
use compound::Compound;
use polygon::ConvexPolygon;
use view::{ConvexRef, ShapeView};

/// A collision shape in local coordinates, in world units (scale already
/// applied). A pose ([`Isometry2d`]) places it in the world: circles,
/// rectangles and capsules are centred on the pose's origin; segments and
/// polygons are where their points put them relative to it.
///
/// More kinds may come in minor versions: a `match` outside this crate needs
/// a `_` arm.
#[derive(Clone, Debug, PartialEq, Reflect)]
#[reflect(Debug, PartialEq, Clone)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", reflect(Serialize, Deserialize))]
#[non_exhaustive]
pub enum Shape {
    /// A disc of the given radius.
    Circle {
        /// Radius, `> 0`.
        radius: f32,
    },
    /// A rectangle of the given half extents, rotated with its pose about its
    /// centre.
    Rect {
        /// Half width and half height, both `> 0`.
        half_size: Vec2,
    },
    /// The points within `radius` of the segment from `(0, -half_length)` to
    /// `(0, half_length)`: a capsule standing along the local y axis.
    Capsule {
        /// Radius of the two caps and half the width, `> 0`.
        radius: f32,
        /// Half the distance between the cap centres, `>= 0` (`0` is a
        /// circle).
        half_length: f32,
    },
    /// The segment between two points, with no thickness. Equal points are a
    /// single point: it collides with what covers it.
    Segment {
        /// One end.
        a: Vec2,
        /// The other end.
        b: Vec2,
    },
    /// A convex polygon.
    Polygon(ConvexPolygon),
    /// Several shapes at poses relative to this one's, moved as one.
    Compound(Compound),
}

/// The centre (relative to the pose) and half extents of the box around
/// `points` turned by the pose. Kept out of line: the snapshot inlines
/// [`ShapeView::aabb`] for every collider, and most are not polygons.
#[inline(never)]
fn points_extent(points: &[Vec2], pose: Isometry2d) -> (Vec2, Vec2) {
    let (lo, hi) = points
        .iter()
        .fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), &v| {
            let v = pose.rotation * v;
            (lo.min(v), hi.max(v))
        });
    ((lo + hi) * 0.5, (hi - lo) * 0.5)
}

impl Shape {
    /// The shape seen as the tests see it. Always inlined: the snapshot
    /// reads every collider through it.
    #[inline(always)]
    pub(crate) fn view(&self) -> ShapeView<'_> {
        let convex = match *self {
            Shape::Circle { radius } => ConvexRef::Circle { radius },
            Shape::Rect { half_size } => ConvexRef::Rect { half_size },
            Shape::Capsule {
                radius,
                half_length,
            } => ConvexRef::Capsule {
                radius,
                half_length,
            },
            Shape::Segment { a, b } => ConvexRef::Segment { a, b },
            Shape::Polygon(ref polygon) => ConvexRef::Polygon(polygon.points_ref()),
            Shape::Compound(ref compound) => return ShapeView::Compound(compound),
        };
        ShapeView::Convex(convex)
    }

    /// Checks that the shape's size is finite and strictly positive (a
    /// capsule's length may be 0), and its points finite.
    pub fn validate(&self) -> Result<(), ShapeError> {
        self.view().validate()
    }

    /// The shape scaled by a transform's `scale.xy`:
    /// - a circle's radius by the larger of `|scale.x|`, `|scale.y|` (so the
    ///   circle covers what a scaled sprite covers);
    /// - a rectangle's half size by `|scale|` per axis;
    /// - a capsule's radius by `|scale.x|` and its length by `|scale.y|`;
    /// - a segment's ends and a polygon's vertices by `scale`, signs included
    ///   (a negative component mirrors them).
    ///
    /// A polygon scaled to no area (a zero component) is an error.
    pub fn scaled(&self, scale: Vec2) -> Result<Self, ShapeError> {
        match self {
            Shape::Polygon(polygon) => return polygon.scaled(scale).map(Shape::Polygon),
            Shape::Compound(compound) => return compound.scaled(scale).map(Shape::Compound),
            _ => {}
        }
        Ok(self.view().scaled_in_place(scale).to_owned())
    }

    /// An axis-aligned box that contains the shape at `pose`: the tightest
    /// one, widened by a few float steps so that shapes the exact tests find
    /// touching always have overlapping boxes despite rounding.
    pub fn aabb(&self, pose: Isometry2d) -> Aabb2d {
        self.view().aabb(pose)
    }
}

impl<'a> ShapeView<'a> {
    /// The shape scaled as [`Shape::scaled`] says, except a polygon or a
    /// compound, which is returned as it is: its scaled points need a home
    /// of their own ([`scaled_points_into`](crate::geometry::scaled_points_into)).
    #[inline(always)]
    pub(crate) fn scaled_in_place(self, scale: Vec2) -> Self {
        match self {
            ShapeView::Convex(convex) => ShapeView::Convex(convex.scaled_in_place(scale)),
            compound @ ShapeView::Compound(_) => compound,
        }
    }

    /// An owned copy.
    pub(crate) fn to_owned(self) -> Shape {
        match self {
            ShapeView::Convex(convex) => convex.to_owned(),
            ShapeView::Compound(compound) => Shape::Compound(compound.clone()),
        }
    }

    // Always inlined: the snapshot boxes every collider every frame, and a
    // call per collider costs as much as the box itself.
    #[inline(always)]
    pub(crate) fn aabb(&self, pose: Isometry2d) -> Aabb2d {
        // The box's centre relative to the pose, and its half extents.
        // One match over the nested kinds: a match on the view, then one on
        // its convex kind, cost the snapshot's layout a tenth more.
        use ConvexRef::{Capsule, Circle, Polygon, Rect, Segment};
        let (offset, extent) = match *self {
            ShapeView::Convex(Circle { radius }) => (Vec2::ZERO, Vec2::splat(radius)),
            ShapeView::Convex(Rect { half_size }) => (Vec2::ZERO, rect_extent(pose, half_size)),
            ShapeView::Convex(Capsule {
                radius,
                half_length,
            }) => {
                let tip = (pose.rotation * Vec2::new(0.0, half_length)).abs();
                (Vec2::ZERO, tip + radius)
            }
            ShapeView::Convex(Segment { a, b }) => points_extent(&[a, b], pose),
            ShapeView::Convex(Polygon(polygon)) => points_extent(polygon.vertices(), pose),
            ShapeView::Compound(compound) => compound.extent_at(pose),
        };
        placed_extent(pose, offset, extent)
    }
}

/// The half extents of the box around a rectangle of `half_size` at `pose`.
#[inline(always)]
pub(crate) fn rect_extent(pose: Isometry2d, half_size: Vec2) -> Vec2 {
    let (sin, cos) = (pose.rotation.sin.abs(), pose.rotation.cos.abs());
    Vec2::new(
        cos * half_size.x + sin * half_size.y,
        sin * half_size.x + cos * half_size.y,
    )
}

/// The box of centre `pose.translation + offset` and half extents `extent`,
/// widened a few float steps: rounding of `centre +- extent` and of the
/// narrow-phase arithmetic is relative to the magnitudes involved.
#[inline(always)]
pub(crate) fn placed_extent(pose: Isometry2d, offset: Vec2, extent: Vec2) -> Aabb2d {
    let centre = pose.translation + offset;
    let slack = (centre.abs().max_element() + extent.max_element()) * (8.0 * f32::EPSILON);
    let half_extents = extent + slack;
    Aabb2d {
        min: centre - half_extents,
        max: centre + half_extents,
    }
}

impl ConvexRef<'_> {
    /// [`ShapeView::scaled_in_place`] for a convex shape.
    #[inline(always)]
    pub(crate) fn scaled_in_place(self, scale: Vec2) -> Self {
        let abs = scale.abs();
        match self {
            ConvexRef::Circle { radius } => ConvexRef::Circle {
                radius: radius * abs.max_element(),
            },
            ConvexRef::Rect { half_size } => ConvexRef::Rect {
                half_size: half_size * abs,
            },
            ConvexRef::Capsule {
                radius,
                half_length,
            } => ConvexRef::Capsule {
                radius: radius * abs.x,
                half_length: half_length * abs.y,
            },
            ConvexRef::Segment { a, b } => ConvexRef::Segment {
                a: a * scale,
                b: b * scale,
            },
            polygon @ ConvexRef::Polygon(_) => polygon,
        }
    }

    /// The shape, borrowing nothing, when it keeps no points elsewhere (any
    /// kind but a polygon).
    #[inline]
    pub(crate) fn without_points(self) -> Option<ConvexRef<'static>> {
        Some(match self {
            ConvexRef::Circle { radius } => ConvexRef::Circle { radius },
            ConvexRef::Rect { half_size } => ConvexRef::Rect { half_size },
            ConvexRef::Capsule {
                radius,
                half_length,
            } => ConvexRef::Capsule {
                radius,
                half_length,
            },
            ConvexRef::Segment { a, b } => ConvexRef::Segment { a, b },
            ConvexRef::Polygon(_) => return None,
        })
    }

    /// An owned copy.
    pub(crate) fn to_owned(self) -> Shape {
        match self {
            ConvexRef::Circle { radius } => Shape::Circle { radius },
            ConvexRef::Rect { half_size } => Shape::Rect { half_size },
            ConvexRef::Capsule {
                radius,
                half_length,
            } => Shape::Capsule {
                radius,
                half_length,
            },
            ConvexRef::Segment { a, b } => Shape::Segment { a, b },
            ConvexRef::Polygon(polygon) => Shape::Polygon(ConvexPolygon::from_parts(
                polygon.vertices(),
                polygon.normals(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::validate_pose;
    use bevy::math::Rot2;

    #[test]
    fn invalid_sizes_are_errors() {
        for radius in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert!(Shape::Circle { radius }.validate().is_err(), "{radius}");
        }
        for half_size in [
            Vec2::new(0.0, 1.0),
            Vec2::new(1.0, -1.0),
            Vec2::new(f32::NAN, 1.0),
        ] {
            assert!(Shape::Rect { half_size }.validate().is_err(), "{half_size}");
        }
        assert!(Shape::Circle { radius: 0.1 }.validate().is_ok());
        assert!(Shape::Circle { radius: 1e19 }.validate().is_err());
        assert!(
            Shape::Rect {
                half_size: Vec2::new(1.0, 1e16)
            }
            .validate()
            .is_err()
        );
        for (x, y) in [
            (f32::NAN, 0.0),
            (0.0, f32::NAN),
            (f32::INFINITY, 0.0),
            (2e15, 0.0),
        ] {
            assert!(
                validate_pose(Isometry2d::from_xy(x, y)).is_err(),
                "({x}, {y})"
            );
        }
        assert!(validate_pose(Isometry2d::new(Vec2::ZERO, Rot2 { cos: 2.0, sin: 0.0 })).is_err());
        assert!(validate_pose(Isometry2d::new(Vec2::ZERO, Rot2::radians(1.0))).is_ok());
    }

    #[test]
    fn scale_multiplies_the_shape() {
        let rect = Shape::Rect {
            half_size: Vec2::new(2.0, 1.0),
        };
        assert_eq!(
            rect.scaled(Vec2::new(-3.0, 0.5)).unwrap(),
            Shape::Rect {
                half_size: Vec2::new(6.0, 0.5)
            }
        );
        let circle = Shape::Circle { radius: 2.0 };
        assert_eq!(
            circle.scaled(Vec2::new(0.5, -3.0)).unwrap(),
            Shape::Circle { radius: 6.0 }
        );
    }

    #[test]
    fn aabb_of_a_rotated_rectangle_is_tight() {
        let rect = Shape::Rect {
            half_size: Vec2::new(2.0, 1.0),
        };
        let aabb = rect.aabb(Isometry2d::new(Vec2::new(1.0, 1.0), Rot2::degrees(90.0)));
        assert!(aabb.min.abs_diff_eq(Vec2::new(0.0, -1.0), 1e-5), "{aabb:?}");
        assert!(aabb.max.abs_diff_eq(Vec2::new(2.0, 3.0), 1e-5), "{aabb:?}");
        let circle = Shape::Circle { radius: 2.0 }.aabb(Isometry2d::from_xy(1.0, 0.0));
        assert!(
            circle.min.abs_diff_eq(Vec2::new(-1.0, -2.0), 1e-5),
            "{circle:?}"
        );
        assert!(
            circle.max.abs_diff_eq(Vec2::new(3.0, 2.0), 1e-5),
            "{circle:?}"
        );
    }

    #[test]
    fn boxes_of_exactly_touching_shapes_overlap() {
        // Found by review: c + r and c' - r' round apart although the exact
        // test says these circles touch.
        let (ra, ca) = (7.806_582_f32, Vec2::new(1.685_297_6, 0.0));
        let (rb, cb) = (5.257_290_4_f32, Vec2::new(14.749_17, 0.0));
        let (a, b) = (Shape::Circle { radius: ra }, Shape::Circle { radius: rb });
        let (pa, pb) = (
            Isometry2d::from_translation(ca),
            Isometry2d::from_translation(cb),
        );
        assert!(a.intersects(pa, &b, pb));
        let (box_a, box_b) = (a.aabb(pa), b.aabb(pb));
        assert!(box_a.max.x >= box_b.min.x, "{box_a:?} {box_b:?}");
    }
}
