//! Outlines of a pixel mask: marching squares over the pixel centres, then
//! Ramer-Douglas-Peucker within a tolerance, then islands with their holes.
//!
//! Coordinates are in pixels with y up, `(0, 0)` the mask's bottom-left
//! corner. Marching squares puts each outline vertex halfway between two
//! pixel centres, so an outline is within half a pixel of the pixels'
//! edges, and two outlines never share a point: a pixel that touches
//! another only at a corner is its own island.

use std::collections::HashMap;

use bevy::math::{IVec2, Vec2};

/// A solid region of the mask: its outline and the outlines of its holes
/// (each a closed loop, the last point joining the first).
pub(crate) struct Island {
    pub(crate) outline: Vec<Vec2>,
    pub(crate) holes: Vec<Vec<Vec2>>,
}

/// The outlines around the solid pixels of a `width` by `height` mask
/// (`solid(x, y)`, `y` from the bottom), each counter-clockwise around
/// solid, clockwise around a hole, with no vertex where they run straight.
#[cfg_attr(not(feature = "image"), allow(dead_code))]
pub(crate) fn outlines(
    width: u32,
    height: u32,
    solid: impl Fn(u32, u32) -> bool,
) -> Vec<Vec<Vec2>> {
    // Pixel (i, j), or empty outside the mask so that outlines close.
    let at = |i: i32, j: i32| {
        i >= 0 && j >= 0 && (i as u32) < width && (j as u32) < height && solid(i as u32, j as u32)
    };
    // Midpoints keyed by twice their coordinates, from (cell i, j)'s edges.
    let (bottom, right, top, left) = (
        |i: i32, j: i32| IVec2::new(2 * i + 2, 2 * j + 1),
        |i: i32, j: i32| IVec2::new(2 * i + 3, 2 * j + 2),
        |i: i32, j: i32| IVec2::new(2 * i + 2, 2 * j + 3),
        |i: i32, j: i32| IVec2::new(2 * i + 1, 2 * j + 2),
    );
    let mut next: HashMap<IVec2, IVec2> = HashMap::new();
    for j in -1..height as i32 {
        for i in -1..width as i32 {
            // Cell between pixel centres (i, j), (i + 1, j), (i + 1, j + 1)
            // and (i, j + 1); segments keep solid on their left.
            let case = u8::from(at(i, j))
                | u8::from(at(i + 1, j)) << 1
                | u8::from(at(i + 1, j + 1)) << 2
                | u8::from(at(i, j + 1)) << 3;
            let (b, r, t, l) = (bottom(i, j), right(i, j), top(i, j), left(i, j));
            let segments: &[(IVec2, IVec2)] = match case {
                1 => &[(b, l)],
                2 => &[(r, b)],
                3 => &[(r, l)],
                4 => &[(t, r)],
                // Diagonal pixels are not joined.
                5 => &[(b, l), (t, r)],
                6 => &[(t, b)],
                7 => &[(t, l)],
                8 => &[(l, t)],
                9 => &[(b, t)],
                10 => &[(l, t), (r, b)],
                11 => &[(r, t)],
                12 => &[(l, r)],
                13 => &[(b, r)],
                14 => &[(l, b)],
                _ => &[],
            };
            for &(from, to) in segments {
                next.insert(from, to);
            }
        }
    }
    let mut loops = Vec::new();
    while let Some(&start) = next.keys().min_by_key(|k| (k.y, k.x)) {
        let mut ring = Vec::new();
        let mut point = start;
        while let Some(to) = next.remove(&point) {
            ring.push(point.as_vec2() * 0.5);
            point = to;
        }
        loops.push(without_straight_vertices(ring));
    }
    loops
}

/// The loop without the vertices where it goes straight on.
fn without_straight_vertices(ring: Vec<Vec2>) -> Vec<Vec2> {
    let n = ring.len();
    (0..n)
        .filter(|&k| {
            let (prev, vertex, next) = (ring[(k + n - 1) % n], ring[k], ring[(k + 1) % n]);
            (vertex - prev).perp_dot(next - vertex) != 0.0
        })
        .map(|k| ring[k])
        .collect()
}

/// The loop with as few vertices as keep every dropped one within
/// `tolerance` of it (Ramer-Douglas-Peucker, from the two vertices
/// farthest apart). Fewer than three left: the loop as it was.
#[cfg_attr(not(feature = "image"), allow(dead_code))]
pub(crate) fn simplified(ring: &[Vec2], tolerance: f32) -> Vec<Vec2> {
    let n = ring.len();
    if tolerance <= 0.0 || n <= 3 {
        return ring.to_vec();
    }
    let far = (1..n)
        .max_by(|&a, &b| {
            ring[a]
                .distance_squared(ring[0])
                .total_cmp(&ring[b].distance_squared(ring[0]))
        })
        .unwrap_or(1);
    let mut kept = vec![false; n];
    kept[0] = true;
    kept[far] = true;
    let closed: Vec<Vec2> = ring.iter().copied().chain([ring[0]]).collect();
    keep_far_points(&closed, 0, far, tolerance, &mut kept);
    keep_far_points(&closed, far, n, tolerance, &mut kept);
    let simple: Vec<Vec2> = (0..n).filter(|&k| kept[k]).map(|k| ring[k]).collect();
    if simple.len() < 3 {
        ring.to_vec()
    } else {
        simple
    }
}

/// Marks the points of `points[from..to]` that the chord from `from` to
/// `to` misses by more than `tolerance`, and recursively those beside them.
fn keep_far_points(points: &[Vec2], from: usize, to: usize, tolerance: f32, kept: &mut [bool]) {
    let mut stack = vec![(from, to)];
    while let Some((from, to)) = stack.pop() {
        let (a, b) = (points[from], points[to]);
        let distance = |p: Vec2| {
            let ab = b - a;
            let t = ((p - a).dot(ab) / ab.length_squared().max(f32::MIN_POSITIVE)).clamp(0.0, 1.0);
            p.distance(a + ab * t)
        };
        let farthest =
            (from + 1..to).max_by(|&x, &y| distance(points[x]).total_cmp(&distance(points[y])));
        if let Some(k) = farthest.filter(|&k| distance(points[k]) > tolerance) {
            kept[k % kept.len()] = true;
            stack.push((from, k));
            stack.push((k, to));
        }
    }
}

/// Twice the signed area: positive counter-clockwise.
pub(crate) fn signed_area(ring: &[Vec2]) -> f32 {
    let n = ring.len();
    (0..n).map(|k| ring[k].perp_dot(ring[(k + 1) % n])).sum()
}

/// Whether `p` is inside the loop (even-odd rule).
fn contains(ring: &[Vec2], p: Vec2) -> bool {
    let n = ring.len();
    (0..n).fold(false, |inside, k| {
        let (a, b) = (ring[k], ring[(k + 1) % n]);
        let crosses =
            (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);
        inside ^ crosses
    })
}

/// The loops of [`outlines`] as islands: each clockwise loop (a hole) goes
/// to the smallest counter-clockwise loop around it.
pub(crate) fn islands(loops: Vec<Vec<Vec2>>) -> Vec<Island> {
    let (outer, holes): (Vec<_>, Vec<_>) =
        loops.into_iter().partition(|ring| signed_area(ring) > 0.0);
    let mut islands: Vec<Island> = (outer.into_iter())
        .map(|outline| Island {
            outline,
            holes: Vec::new(),
        })
        .collect();
    for hole in holes {
        let owner = (0..islands.len())
            .filter(|&k| contains(&islands[k].outline, hole[0]))
            .min_by(|&a, &b| {
                signed_area(&islands[a].outline).total_cmp(&signed_area(&islands[b].outline))
            });
        // Every hole is inside some outline: marching squares closes the
        // solid around it.
        if let Some(owner) = owner {
            islands[owner].holes.push(hole);
        }
    }
    islands
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(rows: &[&str]) -> (u32, u32, impl Fn(u32, u32) -> bool) {
        let height = rows.len() as u32;
        let width = rows[0].len() as u32;
        let cells: Vec<Vec<bool>> = rows
            .iter()
            .map(|r| r.chars().map(|c| c == '#').collect())
            .collect();
        (width, height, move |x: u32, y: u32| {
            cells[(height - 1 - y) as usize][x as usize]
        })
    }

    #[test]
    fn a_square_of_pixels_is_one_loop_half_a_pixel_in() {
        let (w, h, solid) = mask(&["....", ".##.", ".##.", "...."]);
        let loops = outlines(w, h, solid);
        assert_eq!(loops.len(), 1);
        // An octagon through the midpoints around pixel centres 1.5..2.5.
        assert_eq!(loops[0].len(), 8);
        assert!(signed_area(&loops[0]) > 0.0);
        for p in &loops[0] {
            assert!(
                p.cmpge(Vec2::splat(1.0)).all() && p.cmple(Vec2::splat(3.0)).all(),
                "{p}"
            );
        }
    }

    #[test]
    fn a_ring_is_an_island_with_a_hole_and_diagonal_pixels_stay_apart() {
        let (w, h, solid) = mask(&["#####....", "#...#....", "#...#.#..", "#####..#."]);
        let islands = islands(outlines(w, h, solid));
        assert_eq!(islands.len(), 3);
        let ring = islands.iter().find(|i| !i.holes.is_empty()).unwrap();
        assert_eq!(ring.holes.len(), 1);
        assert!(signed_area(&ring.holes[0]) < 0.0);
        assert!(contains(&ring.outline, Vec2::new(2.5, 2.0)));
    }

    #[test]
    fn simplifying_keeps_every_point_within_the_tolerance() {
        // A disc: simplified within 1 pixel it is a few long edges.
        let rows: Vec<String> = (0..40)
            .map(|r| {
                (0..40)
                    .map(|c| {
                        let d = Vec2::new(c as f32 - 19.5, r as f32 - 19.5).length();
                        if d < 17.0 { '#' } else { '.' }
                    })
                    .collect()
            })
            .collect();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let (w, h, solid) = mask(&rows);
        let ring = outlines(w, h, solid).remove(0);
        let simple = simplified(&ring, 1.0);
        assert!(
            simple.len() < ring.len() / 2,
            "{} of {}",
            simple.len(),
            ring.len()
        );
        let n = simple.len();
        for p in &ring {
            let distance = (0..n)
                .map(|k| {
                    let (a, b) = (simple[k], simple[(k + 1) % n]);
                    let t = ((*p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
                    p.distance(a + (b - a) * t)
                })
                .fold(f32::INFINITY, f32::min);
            assert!(
                distance <= 1.0 + 1e-5,
                "{p} is {distance} from the simplified loop"
            );
        }
    }
}
