//! Cutting a simple polygon, concave or not, into convex pieces, so that an
//! outline drawn by hand can collide as a compound of convex polygons (the
//! only polygons the tests know).
//!
//! The outline is cleaned (repeated points and vertices where it does not
//! turn are dropped), turned counter-clockwise and checked simple. It is then
//! triangulated by ear clipping, and the triangles are merged back by
//! Hertel-Mehlhorn: each diagonal is removed when the pieces on its two sides
//! make one convex piece. Every diagonal left is then essential, which keeps
//! the pieces to at most 4 times the fewest possible. Both steps are
//! O(n^2) to O(n^3) in the n vertices: fine for outlines of a few hundred.
//!
//! The predicates run in f64 on the f32 points: there, the differences and
//! products of f32 coordinates are exact, so the sign of each orientation
//! test is too (unless coordinates differ in scale by more than 2^29).

use bevy::math::{DVec2, Vec2};

use crate::geometry::shape::checked::{ShapeError, within_magnitude};
use crate::geometry::shape::polygon::ConvexPolygon;

/// At or below this sine of the turn between two edges, a corner counts as
/// straight (or folded back): f32 could not tell it from one (about 0.0006°).
const STRAIGHT_SINE: f64 = 1e-5;

/// A triangle as the indices of its vertices, counter-clockwise.
type Triangle = [usize; 3];

/// A diagonal as the indices of its two end vertices.
type Diagonal = [usize; 2];

/// The convex pieces of the simple polygon through `points` (in order, either
/// winding; the last point joins the first): each piece's vertices
/// counter-clockwise, with at least three and no area-less corners.
///
/// Each piece is its own convex hull as [`ConvexPolygon::new`] builds it
/// (same vertices, same order). A convex polygon gives one piece.
///
/// # Errors
///
/// [`ShapeError::InvalidVertex`] for a point that is NaN, infinite or beyond
/// [`MAX_MAGNITUDE`](crate::geometry::MAX_MAGNITUDE); [`ShapeError::DegeneratePolygon`]
/// for fewer than three distinct points or points all on one line;
/// [`ShapeError::SelfIntersecting`] when edges cross, overlap or touch other
/// than neighbours at their shared vertex.
pub(crate) fn convex_pieces(points: &[Vec2]) -> Result<Vec<Vec<Vec2>>, ShapeError> {
    let mut outline = clean(points)?;
    check_simple(&outline)?;
    orient_counter_clockwise(&mut outline)?;
    // No ear can only come from rounding on an outline all but touching
    // itself: it is reported as not simple.
    let (triangles, diagonals) = triangulate(&outline).ok_or(ShapeError::SelfIntersecting)?;
    let pieces: Vec<Vec<Vec2>> = merge(&outline, triangles, &diagonals)
        .iter()
        .filter_map(|piece| finished_piece(&outline, piece))
        .collect();
    if pieces.is_empty() {
        Err(ShapeError::DegeneratePolygon)
    } else {
        Ok(pieces)
    }
}

/// How an outline turns at a vertex.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Corner {
    /// Left or right, by more than [`STRAIGHT_SINE`].
    Turning,
    /// Straight on, within [`STRAIGHT_SINE`]: the vertex can go.
    Straight,
    /// Back along the edge it came by: the two edges overlap.
    Fold,
}

/// How the path `prev`, `vertex`, `next` turns at `vertex`.
fn corner(prev: DVec2, vertex: DVec2, next: DVec2) -> Corner {
    let (incoming, outgoing) = (vertex - prev, next - vertex);
    let cross = incoming.perp_dot(outgoing);
    if cross.abs() > STRAIGHT_SINE * incoming.length() * outgoing.length() {
        Corner::Turning
    } else if incoming.dot(outgoing) >= 0.0 {
        Corner::Straight
    } else {
        Corner::Fold
    }
}

/// Twice the area of the triangle `a`, `b`, `p`: positive when `p` is left of
/// the line from `a` to `b`, zero when on it.
pub(in crate::geometry) fn orientation(a: DVec2, b: DVec2, p: DVec2) -> f64 {
    (b - a).perp_dot(p - a)
}

/// The outline in f64, checked finite, without repeated points (the last
/// one included) or vertices where it does not turn.
fn clean(points: &[Vec2]) -> Result<Vec<DVec2>, ShapeError> {
    if let Some(&bad) = points.iter().find(|&&p| !within_magnitude(p)) {
        return Err(ShapeError::InvalidVertex(bad));
    }
    let mut outline: Vec<DVec2> = points.iter().map(|p| p.as_dvec2()).collect();
    outline.dedup();
    while outline.len() > 1 && outline.first() == outline.last() {
        outline.pop();
    }
    drop_straight_vertices(&mut outline)?;
    if outline.len() < 3 {
        return Err(ShapeError::DegeneratePolygon);
    }
    Ok(outline)
}

/// Removes the vertices where the outline goes straight on. A fold (an edge
/// going back along the previous one) is an error: the outline is on one
/// line, or it overlaps itself.
fn drop_straight_vertices(outline: &mut Vec<DVec2>) -> Result<(), ShapeError> {
    // A removal changes its neighbours' turns, so every vertex is looked at
    // again: `unchanged` counts those seen since the last removal.
    let (mut i, mut unchanged) = (0, 0);
    while outline.len() >= 3 && unchanged < outline.len() {
        let n = outline.len();
        let (prev, vertex, next) = (outline[(i + n - 1) % n], outline[i], outline[(i + 1) % n]);
        match corner(prev, vertex, next) {
            Corner::Turning => {
                i = (i + 1) % n;
                unchanged += 1;
            }
            Corner::Straight => {
                outline.remove(i);
                // Back to `prev`, whose turn has changed.
                i = (i + n - 2) % (n - 1);
                unchanged = 0;
            }
            Corner::Fold if on_one_line(outline) => return Err(ShapeError::DegeneratePolygon),
            Corner::Fold => return Err(ShapeError::SelfIntersecting),
        }
    }
    Ok(())
}

/// Whether all the points lie on one line, within [`STRAIGHT_SINE`] of the
/// points' extent.
fn on_one_line(points: &[DVec2]) -> bool {
    let Some(&start) = points.first() else {
        return true;
    };
    let far = points
        .iter()
        .copied()
        .max_by(|p, q| {
            p.distance_squared(start)
                .total_cmp(&q.distance_squared(start))
        })
        .unwrap_or(start);
    let axis = far - start;
    // |axis × (p - start)| is the extent times p's distance from the line.
    let tolerance = STRAIGHT_SINE * axis.length_squared();
    points
        .iter()
        .all(|&p| axis.perp_dot(p - start).abs() <= tolerance)
}

/// Checks that no two edges meet but neighbours at their shared vertex
/// (which [`drop_straight_vertices`] has checked do not overlap).
fn check_simple(outline: &[DVec2]) -> Result<(), ShapeError> {
    let n = outline.len();
    let edge = |i: usize| (outline[i], outline[(i + 1) % n]);
    for i in 0..n {
        // Edge i + 1 is a neighbour, and so is edge n - 1 of edge 0.
        for j in i + 2..n {
            if i == 0 && j == n - 1 {
                continue;
            }
            let ((a, b), (c, d)) = (edge(i), edge(j));
            if segments_touch(a, b, c, d) {
                return Err(ShapeError::SelfIntersecting);
            }
        }
    }
    Ok(())
}

/// Whether the segments `a`-`b` and `c`-`d` have any point in common, ends
/// included.
pub(in crate::geometry) fn segments_touch(a: DVec2, b: DVec2, c: DVec2, d: DVec2) -> bool {
    let side = |from: DVec2, to: DVec2, p: DVec2| -> i8 {
        let o = orientation(from, to, p);
        i8::from(o > 0.0) - i8::from(o < 0.0)
    };
    let (c_of_ab, d_of_ab) = (side(a, b, c), side(a, b, d));
    let (a_of_cd, b_of_cd) = (side(c, d, a), side(c, d, b));
    if c_of_ab * d_of_ab < 0 && a_of_cd * b_of_cd < 0 {
        return true;
    }
    // Otherwise they meet only where an end lies on the other segment.
    (c_of_ab == 0 && in_box(a, b, c))
        || (d_of_ab == 0 && in_box(a, b, d))
        || (a_of_cd == 0 && in_box(c, d, a))
        || (b_of_cd == 0 && in_box(c, d, b))
}

/// Whether `p` is in the box spanned by `a` and `b`, edges included: for `p`
/// on the line through them, whether it is on the segment.
fn in_box(a: DVec2, b: DVec2, p: DVec2) -> bool {
    let (low, high) = (a.min(b), a.max(b));
    (low.x..=high.x).contains(&p.x) && (low.y..=high.y).contains(&p.y)
}

/// Reverses a clockwise outline; an outline with no area is degenerate.
fn orient_counter_clockwise(outline: &mut [DVec2]) -> Result<(), ShapeError> {
    let Some(&start) = outline.first() else {
        return Err(ShapeError::DegeneratePolygon);
    };
    // Shoelace formula from the first point, which keeps the terms small.
    let twice_area: f64 = outline
        .windows(2)
        .map(|pair| (pair[0] - start).perp_dot(pair[1] - start))
        .sum();
    if twice_area < 0.0 {
        outline.reverse();
    } else if twice_area.is_nan() || twice_area == 0.0 {
        return Err(ShapeError::DegeneratePolygon);
    }
    Ok(())
}

/// Ear clipping: cuts off ears (a convex vertex whose triangle with its two
/// neighbours holds no other vertex, even on its edges) until a triangle is
/// left. Gives the triangles and the diagonals cut, the ear's triangle being
/// on the right of each (`None` when no ear is found).
fn triangulate(outline: &[DVec2]) -> Option<(Vec<Triangle>, Vec<Diagonal>)> {
    let mut ring: Vec<usize> = (0..outline.len()).collect();
    let mut triangles = Vec::with_capacity(ring.len());
    let mut diagonals = Vec::with_capacity(ring.len());
    let (mut i, mut misses) = (0, 0);
    while ring.len() > 3 {
        let m = ring.len();
        let ear = [ring[(i + m - 1) % m], ring[i], ring[(i + 1) % m]];
        if is_ear(outline, &ring, ear) {
            triangles.push(ear);
            diagonals.push([ear[0], ear[2]]);
            ring.remove(i);
            // Back to the ear's previous vertex, whose corner has shrunk.
            i = (i + m - 2) % (m - 1);
            misses = 0;
        } else {
            i = (i + 1) % m;
            misses += 1;
            if misses > m {
                return None;
            }
        }
    }
    let last = [*ring.first()?, *ring.get(1)?, *ring.get(2)?];
    let [a, b, c] = last.map(|k| outline[k]);
    if orientation(a, b, c) <= 0.0 {
        return None;
    }
    triangles.push(last);
    Some((triangles, diagonals))
}

/// Whether `tip` is strictly convex and the triangle `prev`, `tip`, `next`
/// holds no other vertex of `ring`, inside or on its edges.
fn is_ear(outline: &[DVec2], ring: &[usize], [prev, tip, next]: Triangle) -> bool {
    let [a, b, c] = [outline[prev], outline[tip], outline[next]];
    orientation(a, b, c) > 0.0
        && ring
            .iter()
            .filter(|&&k| k != prev && k != tip && k != next)
            .all(|&k| {
                let p = outline[k];
                orientation(a, b, p) < 0.0
                    || orientation(b, c, p) < 0.0
                    || orientation(c, a, p) < 0.0
            })
}

/// Hertel-Mehlhorn: removes each diagonal in turn when the pieces on its
/// two sides make one convex piece. A diagonal kept stays needed as others
/// go (corners only grow), so one pass leaves only essential diagonals.
/// Pieces are lists of vertex indices, counter-clockwise.
fn merge(outline: &[DVec2], triangles: Vec<Triangle>, diagonals: &[Diagonal]) -> Vec<Vec<usize>> {
    let mut pieces: Vec<Vec<usize>> = triangles.into_iter().map(Vec::from).collect();
    for &[a, b] in diagonals {
        let (Some(left), Some(right)) = (
            piece_with_edge(&pieces, a, b),
            piece_with_edge(&pieces, b, a),
        ) else {
            continue;
        };
        if left == right {
            continue;
        }
        if let Some(union) = convex_union(outline, &pieces[left], &pieces[right], [a, b]) {
            // Filling the lower index first keeps it valid through the
            // swap_remove of the higher one.
            let (kept, gone) = (left.min(right), left.max(right));
            pieces[kept] = union;
            pieces.swap_remove(gone);
        }
    }
    pieces
}

/// The index of the piece with the edge from vertex `a` to vertex `b`.
fn piece_with_edge(pieces: &[Vec<usize>], a: usize, b: usize) -> Option<usize> {
    pieces.iter().position(|piece| {
        let n = piece.len();
        (0..n).any(|k| piece[k] == a && piece[(k + 1) % n] == b)
    })
}

/// `piece` turned to start at vertex `start`.
fn rotated_to(piece: &[usize], start: usize) -> Option<Vec<usize>> {
    let k = piece.iter().position(|&v| v == start)?;
    Some(piece[k..].iter().chain(&piece[..k]).copied().collect())
}

/// The union of `left` (with the edge from `a` to `b`) and `right` (with
/// the edge from `b` to `a`) without the diagonal between them, when both
/// of its ends are still convex corners there.
fn convex_union(
    outline: &[DVec2],
    left: &[usize],
    right: &[usize],
    [a, b]: Diagonal,
) -> Option<Vec<usize>> {
    // `left` from b round to a, then `right` from after a round to before b.
    let mut union = rotated_to(left, b)?;
    let a_at = union.len() - 1;
    let from_a = rotated_to(right, a)?;
    union.extend_from_slice(from_a.get(1..from_a.len() - 1)?);
    (convex_corner(outline, &union, a_at) && convex_corner(outline, &union, 0)).then_some(union)
}

/// Whether the corner at position `k` of `piece` turns left, or goes exactly
/// straight on (a vertex the piece then drops). One turning left by less
/// than [`STRAIGHT_SINE`] is refused: dropping it would open a gap between
/// pieces, and keeping it would be lost to f32.
fn convex_corner(outline: &[DVec2], piece: &[usize], k: usize) -> bool {
    let n = piece.len();
    let [prev, vertex, next] = [k + n - 1, k, k + 1].map(|at| outline[piece[at % n]]);
    let (incoming, outgoing) = (vertex - prev, next - vertex);
    let cross = incoming.perp_dot(outgoing);
    let ahead = incoming.dot(outgoing) > 0.0;
    if cross == 0.0 {
        ahead
    } else {
        cross > 0.0 && (!ahead || cross > STRAIGHT_SINE * incoming.length() * outgoing.length())
    }
}

/// The piece's points without its exactly straight vertices, as the convex
/// hull [`ConvexPolygon::new`] makes of them (`None` for a sliver that f32
/// cannot hold with any area, which is left out).
fn finished_piece(outline: &[DVec2], piece: &[usize]) -> Option<Vec<Vec2>> {
    let n = piece.len();
    let corners: Vec<Vec2> = (0..n)
        .filter(|&k| {
            let [prev, vertex, next] = [k + n - 1, k, k + 1].map(|at| outline[piece[at % n]]);
            let (incoming, outgoing) = (vertex - prev, next - vertex);
            incoming.perp_dot(outgoing) != 0.0 || incoming.dot(outgoing) <= 0.0
        })
        // Exact: the points came from f32.
        .map(|k| outline[piece[k]].as_vec2())
        .collect();
    let polygon = ConvexPolygon::new(&corners).ok()?;
    Some(polygon.vertices().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    /// The signed area (positive counter-clockwise), in f64.
    fn area(points: &[Vec2]) -> f64 {
        let n = points.len();
        (0..n)
            .map(|i| {
                points[i]
                    .as_dvec2()
                    .perp_dot(points[(i + 1) % n].as_dvec2())
            })
            .sum::<f64>()
            / 2.0
    }

    /// Every piece has three vertices or more, turns strictly left at each,
    /// and is its own hull.
    fn assert_convex_pieces(pieces: &[Vec<Vec2>]) {
        for piece in pieces {
            let n = piece.len();
            assert!(n >= 3, "{piece:?}");
            for i in 0..n {
                let [a, b, c] = [i, i + 1, i + 2].map(|k| piece[k % n].as_dvec2());
                assert!(
                    (b - a).perp_dot(c - b) > 0.0,
                    "not convex counter-clockwise: {piece:?}"
                );
            }
            let hull = ConvexPolygon::new(piece).unwrap();
            assert_eq!(hull.vertices(), piece.as_slice());
        }
    }

    /// Whether `p` is strictly inside the convex counter-clockwise `piece`.
    fn in_piece(piece: &[Vec2], p: DVec2) -> bool {
        let n = piece.len();
        (0..n).all(|i| orientation(piece[i].as_dvec2(), piece[(i + 1) % n].as_dvec2(), p) > 0.0)
    }

    /// Whether `p` is inside `polygon`, by the parity of the edges crossed
    /// by a ray towards +x.
    fn in_polygon(polygon: &[Vec2], p: DVec2) -> bool {
        let n = polygon.len();
        let mut inside = false;
        for i in 0..n {
            let (a, b) = (polygon[i].as_dvec2(), polygon[(i + 1) % n].as_dvec2());
            if (a.y > p.y) != (b.y > p.y) {
                let x = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);
                if p.x < x {
                    inside = !inside;
                }
            }
        }
        inside
    }

    fn distance_to_segment(p: DVec2, a: DVec2, b: DVec2) -> f64 {
        let ab = b - a;
        let t = ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
        p.distance(a + t * ab)
    }

    /// The pieces are convex, their areas sum to the polygon's, and random
    /// points away from its edges are in one piece if inside, none if not.
    fn assert_pieces_tile(polygon: &[Vec2], pieces: &[Vec<Vec2>], rng: &mut StdRng) {
        assert_convex_pieces(pieces);
        let total: f64 = pieces.iter().map(|piece| area(piece)).sum();
        let expected = area(polygon).abs();
        assert!(
            (total - expected).abs() <= 1e-4 * expected,
            "areas {total} and {expected}: {polygon:?} in {pieces:?}"
        );
        let low = polygon
            .iter()
            .fold(Vec2::MAX, |low, &p| low.min(p))
            .as_dvec2()
            - 0.5;
        let high = polygon
            .iter()
            .fold(Vec2::MIN, |high, &p| high.max(p))
            .as_dvec2()
            + 0.5;
        let n = polygon.len();
        for _ in 0..200 {
            let p = DVec2::new(
                rng.random_range(low.x..high.x),
                rng.random_range(low.y..high.y),
            );
            let near_edge = (0..n).any(|i| {
                let (a, b) = (polygon[i].as_dvec2(), polygon[(i + 1) % n].as_dvec2());
                distance_to_segment(p, a, b) < 1e-3
            });
            if near_edge {
                continue;
            }
            let holders = pieces.iter().filter(|piece| in_piece(piece, p)).count();
            assert_eq!(
                holders,
                usize::from(in_polygon(polygon, p)),
                "{p} in {polygon:?} cut into {pieces:?}"
            );
        }
    }

    /// A random simple polygon, star-shaped about a random centre: angles
    /// jittered around even steps (so no gap reaches half a turn), random
    /// radii, either winding.
    fn star_polygon(rng: &mut StdRng) -> Vec<Vec2> {
        let n = rng.random_range(5..40usize);
        let centre = v(rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0));
        let step = std::f32::consts::TAU / n as f32;
        let mut points: Vec<Vec2> = (0..n)
            .map(|i| {
                let angle = (i as f32 + rng.random_range(0.0f32..0.9)) * step;
                let radius: f32 = rng.random_range(0.2..2.0);
                centre + radius * Vec2::from_angle(angle)
            })
            .collect();
        if rng.random_bool(0.5) {
            points.reverse();
        }
        points
    }

    #[test]
    fn a_square_is_one_piece_either_winding() {
        let ccw = [v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(0.0, 1.0)];
        assert_eq!(convex_pieces(&ccw), Ok(vec![ccw.to_vec()]));
        let cw = [v(0.0, 0.0), v(0.0, 1.0), v(1.0, 1.0), v(1.0, 0.0)];
        assert_eq!(convex_pieces(&cw), Ok(vec![ccw.to_vec()]));
    }

    #[test]
    fn a_convex_polygon_is_one_piece() {
        let step = std::f32::consts::TAU / 24.0;
        let circle: Vec<Vec2> = (0..24)
            .map(|i| v(3.0, -1.0) + 2.0 * Vec2::from_angle(i as f32 * step))
            .collect();
        let pieces = convex_pieces(&circle).unwrap();
        assert_eq!(pieces.len(), 1, "{pieces:?}");
        assert_eq!(pieces[0].len(), 24);
        assert_convex_pieces(&pieces);
    }

    #[test]
    fn an_l_shape_is_two_pieces() {
        let l = [
            v(0.0, 0.0),
            v(2.0, 0.0),
            v(2.0, 1.0),
            v(1.0, 1.0),
            v(1.0, 2.0),
            v(0.0, 2.0),
        ];
        for scale in [1.0f32, -3.0, 1e14] {
            let scaled: Vec<Vec2> = l.iter().map(|&p| p * scale).collect();
            let pieces = convex_pieces(&scaled).unwrap();
            assert_eq!(pieces.len(), 2, "{pieces:?}");
            assert_convex_pieces(&pieces);
            let total: f64 = pieces.iter().map(|piece| area(piece)).sum();
            let expected = 3.0 * f64::from(scale) * f64::from(scale);
            assert!((total - expected).abs() <= 1e-9 * expected, "{total}");
        }
    }

    #[test]
    fn random_star_polygons_are_tiled_by_their_pieces() {
        let mut rng = StdRng::seed_from_u64(2024);
        for _ in 0..300 {
            let polygon = star_polygon(&mut rng);
            let pieces = convex_pieces(&polygon).unwrap();
            assert_pieces_tile(&polygon, &pieces, &mut rng);
        }
    }

    #[test]
    fn a_comb_keeps_to_the_hertel_mehlhorn_bound() {
        // Teeth 1 wide and 3 tall on a base 1 tall, gaps 1 wide.
        let teeth = 12;
        let right = (2 * teeth - 1) as f32;
        let mut comb = vec![v(0.0, 0.0), v(right, 0.0)];
        for t in (0..teeth).rev() {
            let x = (2 * t) as f32;
            comb.extend([v(x + 1.0, 4.0), v(x, 4.0)]);
            if t > 0 {
                comb.extend([v(x, 1.0), v(x - 1.0, 1.0)]);
            }
        }
        let n = comb.len();
        let reflex = (0..n)
            .filter(|&i| {
                let [a, b, c] = [i + n - 1, i, i + 1].map(|k| comb[k % n].as_dvec2());
                (b - a).perp_dot(c - b) < 0.0
            })
            .count();
        assert_eq!(reflex, 2 * (teeth - 1));
        let pieces = convex_pieces(&comb).unwrap();
        assert!(pieces.len() <= 4 * reflex + 1, "{} pieces", pieces.len());
        let mut rng = StdRng::seed_from_u64(5);
        assert_pieces_tile(&comb, &pieces, &mut rng);
    }

    #[test]
    fn crossing_or_touching_edges_are_not_simple() {
        let bowtie = [v(0.0, 0.0), v(1.0, 1.0), v(1.0, 0.0), v(0.0, 1.0)];
        assert_eq!(convex_pieces(&bowtie), Err(ShapeError::SelfIntersecting));
        // The notch's tip (2, 0) touches the bottom edge.
        let touching = [
            v(0.0, 0.0),
            v(4.0, 0.0),
            v(4.0, 4.0),
            v(3.0, 4.0),
            v(2.0, 0.0),
            v(1.0, 4.0),
            v(0.0, 4.0),
        ];
        assert_eq!(convex_pieces(&touching), Err(ShapeError::SelfIntersecting));
        // A spike going back along itself.
        let spike = [
            v(0.0, 0.0),
            v(2.0, 0.0),
            v(2.0, 2.0),
            v(3.0, 3.0),
            v(2.0, 2.0),
        ];
        assert_eq!(convex_pieces(&spike), Err(ShapeError::SelfIntersecting));
        // A vertex visited twice.
        let figure_eight = [
            v(0.0, 0.0),
            v(1.0, 1.0),
            v(2.0, 0.0),
            v(2.0, 2.0),
            v(1.0, 1.0),
            v(0.0, 2.0),
        ];
        assert_eq!(
            convex_pieces(&figure_eight),
            Err(ShapeError::SelfIntersecting)
        );
    }

    #[test]
    fn too_few_points_or_a_line_are_degenerate() {
        let line = [v(0.0, 0.0), v(1.0, 0.0), v(2.0, 0.0), v(3.0, 0.0)];
        let slanted = [v(0.0, 0.0), v(1.0, 1.0), v(3.0, 3.0)];
        let repeated = [v(1.0, 1.0), v(1.0, 1.0), v(1.0, 1.0)];
        let two = [v(0.0, 0.0), v(1.0, 0.0)];
        for points in [&[][..], &[v(1.0, 2.0)], &two, &line, &slanted, &repeated] {
            assert_eq!(
                convex_pieces(points),
                Err(ShapeError::DegeneratePolygon),
                "{points:?}"
            );
        }
    }

    #[test]
    fn bad_points_are_invalid_vertices() {
        let nan = [v(0.0, 0.0), v(f32::NAN, 0.0), v(1.0, 1.0)];
        assert!(matches!(
            convex_pieces(&nan),
            Err(ShapeError::InvalidVertex(p)) if p.x.is_nan()
        ));
        let huge = [v(0.0, 0.0), v(1.0, 0.0), v(0.0, 2e15)];
        assert_eq!(
            convex_pieces(&huge),
            Err(ShapeError::InvalidVertex(v(0.0, 2e15)))
        );
        let infinite = [v(0.0, 0.0), v(1.0, 0.0), v(0.0, f32::INFINITY)];
        assert_eq!(
            convex_pieces(&infinite),
            Err(ShapeError::InvalidVertex(v(0.0, f32::INFINITY)))
        );
    }

    #[test]
    fn repeated_and_mid_edge_points_are_dropped() {
        let square = [
            v(0.0, 0.0),
            v(0.0, 0.0),
            v(1.0, 0.0),
            v(2.0, 0.0),
            v(2.0, 0.0),
            v(2.0, 1.0),
            v(2.0, 2.0),
            v(1.0, 2.0),
            v(0.0, 2.0),
            v(0.0, 1.0),
            v(0.0, 0.0),
        ];
        let corners = vec![v(0.0, 0.0), v(2.0, 0.0), v(2.0, 2.0), v(0.0, 2.0)];
        assert_eq!(convex_pieces(&square), Ok(vec![corners]));
    }

    #[test]
    fn any_points_give_an_error_or_pieces_that_tile_them() {
        // Few points on a small grid: many repeated, collinear, crossing.
        let mut rng = StdRng::seed_from_u64(77);
        for _ in 0..3000 {
            let n = rng.random_range(0..10usize);
            let points: Vec<Vec2> = (0..n)
                .map(|_| v(rng.random_range(0..4) as f32, rng.random_range(0..4) as f32))
                .collect();
            let Ok(pieces) = convex_pieces(&points) else {
                continue;
            };
            assert_convex_pieces(&pieces);
            let total: f64 = pieces.iter().map(|piece| area(piece)).sum();
            let expected = area(&points).abs();
            assert!(
                (total - expected).abs() <= 1e-9 * expected,
                "{points:?} cut into {pieces:?}"
            );
        }
    }
}
