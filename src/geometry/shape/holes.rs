//! Polygons with holes cut into convex pieces: the outline's pieces
//! ([`convex_pieces`]), each with the holes' own convex pieces cut out of
//! it, a convex hole at a time, by the half-planes of its edges.
//!
//! Cutting convex piece `P` by convex hole `H` of edges `e1..en` gives
//! `P ∩ outside(e1)`, `P ∩ inside(e1) ∩ outside(e2)`, ..., pieces that do
//! not overlap and together cover `P \ H`: convex, since each is an
//! intersection of half-planes. The cuts run in f64; the new corners are
//! rounded to f32 once, at the end.

use bevy::math::{DVec2, Vec2};

use crate::geometry::shape::checked::ShapeError;
use crate::geometry::shape::concave::{convex_pieces, orientation, segments_touch};

/// Pieces thinner than this fraction of the polygon's size are rounding
/// slivers of a cut along an edge, not area: they are dropped.
const SLIVER: f64 = 1e-9;

/// The convex pieces (counter-clockwise vertices) of the region inside
/// `outline` and outside every hole, all of them simple polygons in either
/// winding.
///
/// # Errors
///
/// Those of [`convex_pieces`] for the outline or a hole;
/// [`ShapeError::HoleNotInside`] for a hole that crosses or touches the
/// outline or lies outside it; [`ShapeError::HolesOverlap`] for two holes
/// that cross, touch or one inside the other.
pub(crate) fn convex_pieces_with_holes(
    outline: &[Vec2],
    holes: &[&[Vec2]],
) -> Result<Vec<Vec<Vec2>>, ShapeError> {
    let outline_pieces = convex_pieces(outline)?;
    let hole_pieces = (holes.iter())
        .map(|hole| convex_pieces(hole))
        .collect::<Result<Vec<_>, _>>()?;
    let ring = |points: &[Vec2]| points.iter().map(|p| p.as_dvec2()).collect::<Vec<_>>();
    let outline = ring(outline);
    let holes: Vec<Vec<DVec2>> = holes.iter().map(|hole| ring(hole)).collect();
    for (i, hole) in holes.iter().enumerate() {
        let inside = hole.iter().all(|&p| strictly_inside(&outline, p));
        if !inside || rings_touch(hole, &outline) {
            return Err(ShapeError::HoleNotInside(i));
        }
        for (j, other) in holes.iter().enumerate().take(i) {
            if rings_touch(hole, other)
                || strictly_inside(other, hole[0])
                || strictly_inside(hole, other[0])
            {
                return Err(ShapeError::HolesOverlap(j, i));
            }
        }
    }

    let (lo, hi) = (outline.iter()).fold((DVec2::INFINITY, DVec2::NEG_INFINITY), |(lo, hi), &p| {
        (lo.min(p), hi.max(p))
    });
    let min_area = SLIVER * (hi - lo).length_squared();
    let mut pieces: Vec<Vec<DVec2>> = outline_pieces.iter().map(|piece| ring(piece)).collect();
    for hole in hole_pieces.iter().flatten() {
        let hole = ring(hole);
        pieces = pieces
            .into_iter()
            .flat_map(|piece| cut_out(piece, &hole))
            .filter(|piece| area(piece) > min_area)
            .collect();
    }
    let pieces: Vec<Vec<Vec2>> = pieces
        .iter()
        .filter_map(|piece| {
            let points: Vec<Vec2> = piece.iter().map(|p| p.as_vec2()).collect();
            // Rounding to f32 can fold a thin piece flat: it is then no area.
            crate::geometry::shape::polygon::ConvexPolygon::new(&points)
                .ok()
                .map(|polygon| polygon.vertices().to_vec())
        })
        .collect();
    if pieces.is_empty() {
        return Err(ShapeError::DegeneratePolygon);
    }
    Ok(pieces)
}

/// The convex pieces of `piece` outside the convex counter-clockwise `hole`:
/// `piece` itself when they do not overlap.
fn cut_out(piece: Vec<DVec2>, hole: &[DVec2]) -> Vec<Vec<DVec2>> {
    if apart(&piece, hole) || apart(hole, &piece) {
        // Cutting would split the piece for nothing.
        return vec![piece];
    }
    let mut pieces = Vec::new();
    let mut rest = piece;
    let n = hole.len();
    for i in 0..n {
        let (a, b) = (hole[i], hole[(i + 1) % n]);
        // Right of the edge is outside the hole.
        let outside = clip(&rest, |p| -orientation(a, b, p));
        rest = clip(&rest, |p| orientation(a, b, p));
        if outside.len() >= 3 {
            pieces.push(outside);
        }
        if rest.len() < 3 {
            // Nothing of the piece is left inside this edge: the hole does
            // not reach it, and what was cut off is the whole of it.
            return pieces;
        }
    }
    pieces
}

/// Whether an edge of the convex counter-clockwise `one` has all of
/// `other` on its outside (or on it): the two do not overlap.
fn apart(one: &[DVec2], other: &[DVec2]) -> bool {
    let n = one.len();
    (0..n).any(|i| {
        let (a, b) = (one[i], one[(i + 1) % n]);
        other.iter().all(|&p| orientation(a, b, p) <= 0.0)
    })
}

/// The part of the convex polygon `polygon` where `side` is `>= 0`
/// (Sutherland-Hodgman against one half-plane, `side` linear).
fn clip(polygon: &[DVec2], side: impl Fn(DVec2) -> f64) -> Vec<DVec2> {
    let n = polygon.len();
    let mut kept = Vec::with_capacity(n + 1);
    for i in 0..n {
        let (p, q) = (polygon[i], polygon[(i + 1) % n]);
        let (sp, sq) = (side(p), side(q));
        if sp >= 0.0 {
            kept.push(p);
        }
        if (sp > 0.0 && sq < 0.0) || (sp < 0.0 && sq > 0.0) {
            kept.push(p + (q - p) * (sp / (sp - sq)));
        }
    }
    kept
}

/// Twice the area of a counter-clockwise polygon.
fn area(polygon: &[DVec2]) -> f64 {
    let n = polygon.len();
    (0..n)
        .map(|i| polygon[i].perp_dot(polygon[(i + 1) % n]))
        .sum()
}

/// Whether `p` is inside the simple polygon `ring` and on none of its
/// edges.
fn strictly_inside(ring: &[DVec2], p: DVec2) -> bool {
    let n = ring.len();
    let mut inside = false;
    for i in 0..n {
        let (a, b) = (ring[i], ring[(i + 1) % n]);
        if segments_touch(a, b, p, p) {
            return false;
        }
        if (a.y > p.y) != (b.y > p.y) && orientation(a, b, p) * (b.y - a.y) > 0.0 {
            inside = !inside;
        }
    }
    inside
}

/// Whether an edge of one ring has a point in common with an edge of the
/// other.
fn rings_touch(one: &[DVec2], other: &[DVec2]) -> bool {
    let edges = |ring: &[DVec2]| {
        let n = ring.len();
        (0..n)
            .map(move |i| (ring[i], ring[(i + 1) % n]))
            .collect::<Vec<_>>()
    };
    let other = edges(other);
    edges(one)
        .iter()
        .any(|&(a, b)| other.iter().any(|&(c, d)| segments_touch(a, b, c, d)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    fn square(centre: Vec2, half: f32) -> Vec<Vec2> {
        [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .map(|(x, y)| centre + Vec2::new(x, y) * half)
            .to_vec()
    }

    fn in_piece(piece: &[Vec2], p: DVec2) -> bool {
        let n = piece.len();
        (0..n).all(|i| orientation(piece[i].as_dvec2(), piece[(i + 1) % n].as_dvec2(), p) >= 0.0)
    }

    /// Points sampled over the outline's box are in exactly one piece when
    /// in the region (away from edges by `margin`), in none when outside it.
    fn assert_covers_exactly(outline: &[Vec2], holes: &[&[Vec2]], pieces: &[Vec<Vec2>]) {
        let rings: Vec<Vec<DVec2>> = std::iter::once(outline)
            .chain(holes.iter().copied())
            .map(|ring| ring.iter().map(|p| p.as_dvec2()).collect())
            .collect();
        let distance_to_edges = |p: DVec2| {
            (rings.iter())
                .flat_map(|ring| {
                    let n = ring.len();
                    (0..n).map(move |i| (ring[i], ring[(i + 1) % n]))
                })
                .map(|(a, b)| {
                    let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
                    p.distance(a + (b - a) * t)
                })
                .fold(f64::INFINITY, f64::min)
        };
        let mut rng = StdRng::seed_from_u64(7);
        let (lo, hi) = outline
            .iter()
            .fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), &p| {
                (lo.min(p), hi.max(p))
            });
        for _ in 0..4000 {
            let p = DVec2::new(
                rng.random_range(lo.x as f64..hi.x as f64),
                rng.random_range(lo.y as f64..hi.y as f64),
            );
            if distance_to_edges(p) < 1e-3 * (hi - lo).max_element() as f64 {
                continue;
            }
            let in_region = strictly_inside(&rings[0], p)
                && rings[1..].iter().all(|hole| !strictly_inside(hole, p));
            let covering = pieces.iter().filter(|piece| in_piece(piece, p)).count();
            assert_eq!(
                covering,
                usize::from(in_region),
                "{p} in the region: {in_region}"
            );
        }
    }

    #[test]
    fn a_frame_is_the_square_without_its_middle() {
        let outline = square(Vec2::ZERO, 10.0);
        let hole = square(Vec2::ZERO, 4.0);
        let pieces = convex_pieces_with_holes(&outline, &[&hole]).unwrap();
        assert_covers_exactly(&outline, &[&hole], &pieces);
        assert_eq!(pieces.len(), 4);
    }

    #[test]
    fn random_holes_in_an_l_shape_are_cut_out_exactly() {
        let outline = [
            (0.0, 0.0),
            (60.0, 0.0),
            (60.0, 20.0),
            (20.0, 20.0),
            (20.0, 60.0),
            (0.0, 60.0),
        ]
        .map(|(x, y)| Vec2::new(x, y));
        let mut rng = StdRng::seed_from_u64(3);
        for _ in 0..30 {
            // A concave arrow-shaped hole and a triangle, apart from each other.
            let at = Vec2::new(rng.random_range(4.0..14.0), rng.random_range(24.0..52.0));
            let arrow =
                [(0.0, 0.0), (4.0, 2.0), (0.0, 4.0), (1.5, 2.0)].map(|(x, y)| at + Vec2::new(x, y));
            let at = Vec2::new(rng.random_range(24.0..52.0), rng.random_range(3.0..14.0));
            let spin = rng.random_range(0.0..std::f32::consts::TAU);
            let triangle = [0.0f32, 2.1, 4.2].map(|a| at + Vec2::from_angle(a + spin) * 3.0);
            let holes: [&[Vec2]; 2] = [&arrow, &triangle];
            let pieces = convex_pieces_with_holes(&outline, &holes).unwrap();
            assert_covers_exactly(&outline, &holes, &pieces);
        }
    }

    #[test]
    fn holes_across_the_outline_or_each_other_are_errors() {
        let outline = square(Vec2::ZERO, 10.0);
        let across = square(Vec2::new(9.0, 0.0), 2.0);
        let outside = square(Vec2::new(30.0, 0.0), 2.0);
        let touching = square(Vec2::new(8.0, 0.0), 2.0);
        for hole in [&across, &outside, &touching] {
            assert_eq!(
                convex_pieces_with_holes(&outline, &[hole]),
                Err(ShapeError::HoleNotInside(0))
            );
        }
        let (a, b, inner) = (
            square(Vec2::new(-2.0, 0.0), 3.0),
            square(Vec2::new(2.0, 0.0), 3.0),
            square(Vec2::new(-2.0, 0.0), 1.0),
        );
        assert_eq!(
            convex_pieces_with_holes(&outline, &[&a, &b]),
            Err(ShapeError::HolesOverlap(0, 1))
        );
        assert_eq!(
            convex_pieces_with_holes(&outline, &[&a, &inner]),
            Err(ShapeError::HolesOverlap(0, 1))
        );
        let bowtie = [
            Vec2::ZERO,
            Vec2::new(2.0, 2.0),
            Vec2::new(2.0, 0.0),
            Vec2::new(0.0, 2.0),
        ];
        assert_eq!(
            convex_pieces_with_holes(&outline, &[&bowtie]),
            Err(ShapeError::SelfIntersecting)
        );
        let nan = [Vec2::ZERO, Vec2::X, Vec2::NAN];
        assert!(matches!(
            convex_pieces_with_holes(&outline, &[&nan]),
            Err(ShapeError::InvalidVertex(_))
        ));
    }

    #[test]
    fn no_holes_is_the_outline_alone() {
        let outline = square(Vec2::ZERO, 10.0);
        let pieces = convex_pieces_with_holes(&outline, &[]).unwrap();
        assert_eq!(pieces, convex_pieces(&outline).unwrap());
    }
}
