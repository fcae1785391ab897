//! Polylines (chains): segments joined end to end, tested as a compound of
//! segments under a two-sided form of Box2D's ghost-vertex rule
//! (`b2ClassifyNormal` in `manifold.c`), so that a shape sliding along the
//! line over an interior vertex gets no sideways normal there.
//!
//! Each segment knows the far ends of its neighbours. A normal found
//! against a segment that tilts past one of its ends (the end is the
//! segment's closest point) is a real corner's when the neighbour there
//! runs away from it, at least a right angle from it: the shape is then in
//! the vertex's own region, outside the angle the two segments make, and
//! the vertex points at it (convex, seen from the shape). Otherwise the
//! neighbour is nearer the shape than the vertex, so the neighbour's face
//! owns the contact; the segment reports no more than its own face or the
//! neighbour's line does. Box2D's chains are one-sided and tell a convex
//! vertex by a fixed side; a two-sided line must tell it by where the
//! shape is around the vertex, or a shape facing a sharp corner from its
//! convex side would get a face's normal and pass into it. Open ends are
//! real corners and keep every normal.

use bevy::math::{Isometry2d, Vec2};

/// About half a degree (Box2D's `sinTol`): normals this close to a face or
/// to a neighbour's face count as that face's.
const SIN_TOLERANCE: f32 = 0.01;

/// One segment of a polyline with the far ends of the segments before and
/// after it (Box2D's ghost vertices), in the polyline's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ChainSegment {
    pub(crate) a: Vec2,
    pub(crate) b: Vec2,
    /// The start of the segment before, ending at `a`.
    pub(crate) before: Option<Vec2>,
    /// The end of the segment after, starting at `b`.
    pub(crate) after: Option<Vec2>,
}

/// What the ghost-vertex rule makes of a normal found against a segment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum GhostRule {
    /// A face normal, or a real corner's.
    Keep,
    /// The neighbour's face owns it: the contact is with the segment's face
    /// or the neighbour's line through the shared end, whichever is
    /// shallower (Box2D's convex-neighbour separation); a cast leaves the
    /// hit to the neighbour.
    Skip {
        /// The shared end.
        end: Vec2,
        /// The unit direction from it along the neighbour.
        out: Vec2,
    },
}

impl ChainSegment {
    /// The rule for `normal` (unit, in the polyline's frame, pointing from
    /// the segment towards the other shape).
    pub(crate) fn classify(&self, normal: Vec2) -> GhostRule {
        let Some(along) = (self.b - self.a).try_normalize() else {
            return GhostRule::Keep;
        };
        let tilt = normal.dot(along);
        if tilt.abs() <= SIN_TOLERANCE {
            return GhostRule::Keep;
        }
        let (end, far) = if tilt < 0.0 {
            (self.a, self.before)
        } else {
            (self.b, self.after)
        };
        // An open end is a real corner.
        let Some(out) = far.and_then(|far| (far - end).try_normalize()) else {
            return GhostRule::Keep;
        };
        // The neighbour runs away from the normal: the vertex is the
        // nearest point of both segments, a corner pointing at the shape.
        if normal.dot(out) <= SIN_TOLERANCE {
            return GhostRule::Keep;
        }
        GhostRule::Skip { end, out }
    }

    /// [`Self::classify`] in the world: `normal` (world, from the polyline
    /// towards the other shape) with the polyline turned by `chain`.
    pub(crate) fn classify_at(&self, chain: Isometry2d, normal: Vec2) -> GhostRule {
        self.classify(chain.rotation.inverse() * normal)
    }
}

#[cfg(test)]
mod tests {
    use bevy::math::Rot2;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::*;
    use crate::geometry::reference_tests::{Kind, random_shape_of};
    use crate::geometry::shape::view::{ConvexRef, ShapeView};
    use crate::geometry::{Compound, Shape};
    use crate::reference::{RefPair, reference, reference_parts};
    use bevy::math::Dir2;

    /// Steepest slope of the random terrain.
    const MAX_SLOPE: f32 = 0.5;

    /// A random hilly line, left to right: long first and last segments,
    /// between them segments 4 to 12 long at most `MAX_SLOPE` radians, a
    /// third of them running on (nearly) straight from the one before.
    fn random_terrain(rng: &mut StdRng) -> Vec<Vec2> {
        let mut point = Vec2::new(-60.0, 0.0);
        let mut points = vec![point];
        let mut slope = 0.0f32;
        let count = rng.random_range(3..10);
        for i in 0..count {
            slope = if rng.random_bool(0.33) {
                (slope + rng.random_range(-1e-3..1e-3)).clamp(-MAX_SLOPE, MAX_SLOPE)
            } else {
                rng.random_range(-MAX_SLOPE..MAX_SLOPE)
            };
            let length = if i == 0 || i + 1 == count {
                20.0
            } else {
                rng.random_range(4.0..12.0)
            };
            point += Vec2::from_angle(slope) * length;
            points.push(point);
        }
        points
    }

    /// A circle, capsule or box at most 1.5 across its half sizes, turned to
    /// `angle` (a capsule lying along it or standing across it), and how
    /// far it reaches below its centre across that slope.
    fn random_slider(rng: &mut StdRng, angle: f32) -> (Shape, Rot2, f32) {
        let kind = [Kind::Circle, Kind::Capsule, Kind::Rect][rng.random_range(0..3)];
        let shape = random_shape_of(rng, kind, 1.5);
        let lying = rng.random_bool(0.5);
        let turn = Rot2::radians(if lying && kind == Kind::Capsule {
            angle + core::f32::consts::FRAC_PI_2
        } else {
            angle
        });
        let reach = match shape {
            Shape::Circle { radius } => radius,
            Shape::Rect { half_size } => half_size.y,
            Shape::Capsule {
                radius,
                half_length,
            } if !lying => radius + half_length,
            Shape::Capsule { radius, .. } => radius,
            _ => unreachable!(),
        };
        (shape, turn, reach)
    }

    /// The ghost-vertex rule at every interior vertex of random terrain: a
    /// shape sunk a little into a segment next to the vertex, anywhere up to
    /// the vertex and past it, gets a normal no steeper than the terrain
    /// (the plain segments give sideways ones), and a contact whenever it
    /// touches the line.
    #[test]
    fn sliders_get_no_sideways_normal_at_any_vertex() {
        let mut rng = StdRng::seed_from_u64(33);
        let mut checked = 0;
        for _ in 0..300 {
            let points = random_terrain(&mut rng);
            let chain = Shape::Compound(Compound::polyline(&points).unwrap());
            for vertex in 1..points.len() - 1 {
                for _ in 0..20 {
                    // The segment before the vertex or after it.
                    let (start, end, from_end) = if rng.random_bool(0.5) {
                        (points[vertex - 1], points[vertex], true)
                    } else {
                        (points[vertex], points[vertex + 1], false)
                    };
                    let along = (end - start).normalize();
                    let up = along.perp();
                    let offset = rng.random_range(0.0..2.0);
                    let on_line = if from_end {
                        end - along * offset
                    } else {
                        start + along * offset
                    };
                    let (shape, turn, reach) = random_slider(&mut rng, along.to_angle());
                    // Its centre stays above the line.
                    let sunk = rng.random_range(1e-4..0.2f32.min(0.5 * reach));
                    let pose = Isometry2d::new(on_line + up * (reach - sunk), turn);
                    let contact = chain.contact(Isometry2d::IDENTITY, &shape, pose);
                    let contact = contact.unwrap_or_else(|| {
                        panic!("{shape:?} at {pose:?} sunk {sunk} into {points:?}: no contact")
                    });
                    // Up or down (a shape overhanging a valley may be pushed
                    // out through the far side of a line), never sideways.
                    let steepness = contact.normal.angle_to(Vec2::Y).abs();
                    let steepness = steepness.min(core::f32::consts::PI - steepness);
                    assert!(
                        steepness <= MAX_SLOPE + 0.011,
                        "{shape:?} at {pose:?} on {points:?}: normal {:?}",
                        contact.normal
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000);
    }

    /// The rule never loses a contact: a random shape near random terrain
    /// has a contact exactly when it overlaps a segment by the f64
    /// reference, on either side of the line.
    #[test]
    fn a_polyline_touches_what_its_segments_touch() {
        let mut rng = StdRng::seed_from_u64(34);
        let mut touching = 0;
        for _ in 0..3000 {
            let points = random_terrain(&mut rng);
            let chain = Shape::Compound(Compound::polyline(&points).unwrap());
            let kind = Kind::ALL[rng.random_range(0..5)];
            let shape = random_shape_of(&mut rng, kind, 3.0);
            let near = points[rng.random_range(0..points.len())];
            let pose = Isometry2d::new(
                near + Vec2::new(rng.random_range(-4.0..4.0), rng.random_range(-4.0..4.0)),
                Rot2::radians(rng.random_range(-3.2..3.2)),
            );
            let other = reference(&shape, pose);
            let gap = (reference_parts(&chain, Isometry2d::IDENTITY).iter())
                .map(|segment| RefPair::new(segment, &other).gap())
                .fold(f64::INFINITY, f64::min);
            if gap.abs() < 1e-3 {
                continue;
            }
            let contact = chain.contact(Isometry2d::IDENTITY, &shape, pose);
            assert_eq!(
                contact.is_some(),
                gap < 0.0,
                "{shape:?} at {pose:?}, gap {gap}"
            );
            assert_eq!(
                chain.intersects(Isometry2d::IDENTITY, &shape, pose),
                gap < 0.0,
                "{shape:?} at {pose:?}, gap {gap}, {points:?}"
            );
            let seen_from_shape = shape.contact(pose, &chain, Isometry2d::IDENTITY);
            if let (Some(seen), Some(contact)) = (seen_from_shape, contact) {
                assert!(
                    seen.normal.dot(*contact.normal) < -1.0 + 1e-6,
                    "{shape:?} at {pose:?} {points:?}: {seen:?} {contact:?}"
                );
                assert!((seen.depth - contact.depth).abs() < 1e-5);
            }
            touching += usize::from(gap < 0.0);
        }
        assert!(touching > 300, "{touching}");
    }

    fn segment(before: Option<Vec2>, after: Option<Vec2>) -> ChainSegment {
        ChainSegment {
            a: Vec2::ZERO,
            b: Vec2::X,
            before,
            after,
        }
    }

    fn unit(degrees: f32) -> Vec2 {
        Vec2::from_angle(degrees.to_radians())
    }

    #[test]
    fn face_normals_are_kept_on_either_side() {
        let flat = segment(Some(Vec2::new(-1.0, 0.0)), Some(Vec2::new(2.0, 0.0)));
        assert_eq!(flat.classify(Vec2::Y), GhostRule::Keep);
        assert_eq!(flat.classify(-Vec2::Y), GhostRule::Keep);
    }

    /// Where the line runs on straight, the neighbour owns every normal
    /// tilted past the vertex, on either side: the face's normal is kept.
    #[test]
    fn a_flat_vertex_leaves_tilted_normals_to_the_face() {
        let flat = segment(Some(Vec2::new(-1.0, 0.0)), Some(Vec2::new(2.0, 0.0)));
        let skip = |end: Vec2, out: Vec2| GhostRule::Skip { end, out };
        assert_eq!(flat.classify(unit(60.0)), skip(Vec2::X, Vec2::X));
        assert_eq!(flat.classify(unit(150.0)), skip(Vec2::ZERO, -Vec2::X));
        assert_eq!(flat.classify(unit(-10.0)), skip(Vec2::X, Vec2::X));
        assert_eq!(flat.classify(Vec2::X), skip(Vec2::X, Vec2::X));
    }

    #[test]
    fn open_ends_are_corners() {
        let open = segment(None, None);
        for degrees in [0.0, 30.0, 120.0, 180.0, -45.0] {
            assert_eq!(open.classify(unit(degrees)), GhostRule::Keep);
        }
    }

    #[test]
    fn a_convex_vertex_is_a_corner_up_to_the_neighbours_face() {
        // The next segment goes down at 45 degrees: a hilltop at `b`.
        let hill = segment(None, Some(Vec2::new(2.0, -1.0)));
        assert_eq!(hill.classify(unit(60.0)), GhostRule::Keep);
        assert_eq!(hill.classify(unit(45.0)), GhostRule::Keep);
        assert!(matches!(hill.classify(unit(30.0)), GhostRule::Skip { .. }));
        // From below, the vertex is a valley: tilted normals are the faces'.
        assert!(matches!(hill.classify(unit(-30.0)), GhostRule::Skip { .. }));
        // The same at `a`, mirrored.
        let hill = segment(Some(Vec2::new(-1.0, -1.0)), None);
        assert_eq!(hill.classify(unit(120.0)), GhostRule::Keep);
        assert!(matches!(hill.classify(unit(150.0)), GhostRule::Skip { .. }));
    }

    /// A sharp spike (the next segment turns back at 153 degrees) seen from
    /// its convex side is a corner on both faces' sides, wherever the
    /// normal points out of the wedge: a face's normal there would let a
    /// shape facing the tip slide into the spike.
    #[test]
    fn a_sharp_spike_is_a_corner_from_outside_its_wedge() {
        let spike = segment(None, Some(Vec2::new(0.0, 0.5)));
        for degrees in [-80.0, -30.0, 0.0, 20.0, 50.0] {
            assert_eq!(spike.classify(unit(degrees)), GhostRule::Keep, "{degrees}");
        }
        // Within a right angle of the neighbour: its face is nearer.
        assert!(matches!(spike.classify(unit(80.0)), GhostRule::Skip { .. }));
    }

    #[test]
    fn the_face_contact_is_how_far_past_the_line() {
        let flat = segment(None, None);
        let ball = ShapeView::Convex(ConvexRef::Circle { radius: 1.0 });
        let at = |x, y| {
            flat.face_contact(
                Vec2::Y,
                Isometry2d::IDENTITY,
                ball,
                Isometry2d::from_xy(x, y),
            )
        };
        let contact = at(0.5, 0.75);
        assert!((contact.depth - 0.25).abs() < 1e-6);
        assert_eq!(contact.normal, Dir2::Y);
        assert!((contact.point - Vec2::new(0.5, 0.0)).length() < 1e-6);
        // Past the end, the point stays on the segment.
        assert!((at(3.0, 0.5).point - Vec2::X).length() < 1e-6);
    }
}
