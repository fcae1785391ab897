//! The grid against brute force: pairs, filing, region and path walks.

use super::*;
use crate::util::parallel::{InReverse, Workers};
use bevy::math::Vec2;
use rand::{Rng, SeedableRng, rngs::StdRng};

fn boxes_overlapping_by_brute_force(aabbs: &[Aabb2d]) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    for i in 0..aabbs.len() {
        for j in i + 1..aabbs.len() {
            if aabbs_overlap(&aabbs[i], &aabbs[j]) {
                pairs.push((i as u32, j as u32));
            }
        }
    }
    pairs
}

fn grid_pairs(grid: &mut SpatialGrid, aabbs: &[Aabb2d]) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    grid.overlapping_pairs(aabbs, |_, _| true, &mut pairs);
    let before = pairs.len();
    pairs.sort_unstable();
    pairs.dedup();
    assert_eq!(pairs.len(), before, "a pair was reported twice");
    pairs
}

fn aabb(min: Vec2, size: Vec2) -> Aabb2d {
    Aabb2d {
        min,
        max: min + size,
    }
}

#[test]
fn matches_brute_force_with_mixed_sizes() {
    let mut rng = StdRng::seed_from_u64(11);
    let mut grid = SpatialGrid::default();
    for round in 0..20 {
        // Some rounds with more boxes than the cell size samples.
        let count = if round % 7 == 3 {
            rng.random_range(3000..5000)
        } else {
            rng.random_range(0..600)
        };
        let aabbs: Vec<Aabb2d> = (0..count)
            .map(|_| {
                // Mostly small boxes, some long walls and a few giants
                // that take the oversized path.
                let size = match rng.random_range(0..20) {
                    0 => Vec2::new(rng.random_range(100.0..400.0), rng.random_range(1.0..5.0)),
                    1 => Vec2::splat(rng.random_range(300.0..800.0)),
                    _ => Vec2::new(rng.random_range(0.5..12.0), rng.random_range(0.5..12.0)),
                };
                let min = Vec2::new(
                    rng.random_range(-300.0..300.0),
                    rng.random_range(-300.0..300.0),
                );
                aabb(min, size)
            })
            .collect();
        assert_eq!(
            grid_pairs(&mut grid, &aabbs),
            boxes_overlapping_by_brute_force(&aabbs),
            "round {round}"
        );
    }
}

/// Every box once, also with oversized boxes on further levels and a
/// last level tested directly.
#[test]
fn filing_order_lists_every_box_once() {
    let mut rng = StdRng::seed_from_u64(11);
    let mut aabbs = random_boxes(&mut rng, 3000, Vec2::ZERO, 300.0, 4.0);
    aabbs.extend(random_boxes(&mut rng, 40, Vec2::ZERO, 300.0, 60.0));
    aabbs.extend(random_boxes(&mut rng, 5, Vec2::ZERO, 300.0, 900.0));
    aabbs.push(aabb(Vec2::ZERO, Vec2::INFINITY));
    let mut grid = SpatialGrid::default();
    for boxes in [&aabbs[..], &aabbs[..10], &[]] {
        grid.overlapping_pairs(boxes, |_, _| true, &mut Vec::new());
        let mut order: Vec<u32> = grid.filing_order().collect();
        assert!(grid.levels_used > 1 || boxes.len() < 100);
        order.sort_unstable();
        assert_eq!(order, (0..boxes.len() as u32).collect::<Vec<_>>());
    }
}

#[test]
fn bands_shared_by_threads_give_the_same_pairs_in_the_same_order() {
    use bevy::tasks::{ComputeTaskPool, TaskPoolBuilder};
    ComputeTaskPool::get_or_init(|| TaskPoolBuilder::new().num_threads(3).build());
    let mut rng = StdRng::seed_from_u64(3);
    // About 250 by 250 cells: dozens of bands.
    let aabbs: Vec<Aabb2d> = (0..20_000)
        .map(|_| {
            let min = Vec2::new(rng.random_range(0.0..2500.0), rng.random_range(0.0..2500.0));
            aabb(min, Vec2::splat(rng.random_range(2.0..10.0)))
        })
        .collect();
    let mut in_order = Vec::new();
    SpatialGrid::default().overlapping_pairs(&aabbs, |_, _| true, &mut in_order);
    let (mut grid, workers) = (SpatialGrid::default(), Workers::default());
    for _ in 0..3 {
        let mut shared = Vec::new();
        grid.overlapping_pairs_in_chunks(&aabbs, |_, _| true, &workers, &mut shared);
        assert_eq!(shared, in_order);
    }
    in_order.sort_unstable();
    assert_eq!(in_order, boxes_overlapping_by_brute_force(&aabbs));
}

#[test]
fn key_ranges_cut_by_threads_sort_alike() {
    let mut rng = StdRng::seed_from_u64(11);
    // Mixed sizes, so that some boxes are oversized, in random order, so
    // that each range's keys are spread all over the input.
    let aabbs: Vec<Aabb2d> = (0..5000)
        .map(|k| {
            let min = Vec2::new(rng.random_range(0.0..800.0), rng.random_range(0.0..800.0));
            let size = if k % 50 == 0 {
                60.0
            } else {
                rng.random_range(1.0..8.0)
            };
            aabb(min, Vec2::splat(size))
        })
        .collect();
    let built = |threads: usize| {
        let mut grid = SpatialGrid::default();
        let mut pairs = Vec::new();
        grid.overlapping_pairs_in_chunks(&aabbs, |_, _| true, &InReverse { threads }, &mut pairs);
        // The oversized boxes went on to the next level.
        assert!(grid.levels_used > 1);
        (
            pairs,
            grid.filing_order().collect::<Vec<_>>(),
            grid.levels[0].key_starts.clone(),
            grid.levels[1].input.clone(),
        )
    };
    let one = built(1);
    for threads in [2, 3, 7] {
        assert!(built(threads) == one, "{threads} ranges differ from one");
    }
    let mut pairs = one.0;
    pairs.sort_unstable();
    assert_eq!(pairs, boxes_overlapping_by_brute_force(&aabbs));
}

#[test]
fn unbounded_boxes_fit_no_cell_and_still_pair() {
    // Enough to build levels, none fitting a cell: every level is empty
    // until the last one tests them directly.
    let aabbs: Vec<Aabb2d> = (0..30)
        .map(|i| Aabb2d {
            min: Vec2::new(f32::NEG_INFINITY, i as f32),
            max: Vec2::new(f32::INFINITY, i as f32 + 0.5),
        })
        .collect();
    let mut grid = SpatialGrid::default();
    assert_eq!(
        grid_pairs(&mut grid, &aabbs),
        boxes_overlapping_by_brute_force(&aabbs)
    );
}

#[test]
fn touching_boxes_and_cell_borders() {
    // Boxes meeting exactly on edges and corners, placed on cell borders.
    let aabbs = [
        aabb(Vec2::ZERO, Vec2::ONE),
        aabb(Vec2::new(1.0, 0.0), Vec2::ONE),
        aabb(Vec2::new(1.0, 1.0), Vec2::ONE),
        aabb(Vec2::new(3.0, 3.0), Vec2::ONE),
    ];
    let mut grid = SpatialGrid::default();
    assert_eq!(grid_pairs(&mut grid, &aabbs), vec![(0, 1), (0, 2), (1, 2)]);
}

#[test]
fn one_cell_wide_rows_and_columns() {
    // Grids one cell wide or high: the next cell in key order is then
    // not a right-hand neighbour, and pairs must still be found once.
    let mut rng = StdRng::seed_from_u64(5);
    for vertical in [false, true] {
        let aabbs: Vec<Aabb2d> = (0..200)
            .map(|_| {
                let along = rng.random_range(0.0..300.0);
                let across = rng.random_range(0.0..0.5);
                let min = if vertical {
                    Vec2::new(across, along)
                } else {
                    Vec2::new(along, across)
                };
                aabb(min, Vec2::splat(rng.random_range(1.0..3.0)))
            })
            .collect();
        let mut grid = SpatialGrid::default();
        assert_eq!(
            grid_pairs(&mut grid, &aabbs),
            boxes_overlapping_by_brute_force(&aabbs)
        );
    }
}

#[test]
fn far_apart_and_huge_coordinates() {
    let aabbs = [
        aabb(Vec2::splat(-1e30), Vec2::ONE),
        aabb(Vec2::splat(1e30), Vec2::ONE),
        aabb(Vec2::new(1e9, 0.0), Vec2::ONE),
        aabb(Vec2::new(1e9 + 0.5, 0.0), Vec2::ONE),
        aabb(Vec2::new(-5e8, -5e8), Vec2::splat(1e9)),
    ];
    let mut grid = SpatialGrid::default();
    assert_eq!(
        grid_pairs(&mut grid, &aabbs),
        boxes_overlapping_by_brute_force(&aabbs)
    );
}

#[test]
fn one_giant_does_not_coarsen_the_grid() {
    // A level-sized sensor among many small boxes: cells stay small.
    let mut aabbs = vec![aabb(Vec2::splat(-5e6), Vec2::splat(1e7))];
    aabbs.extend((0..1000).map(|i| {
        aabb(
            Vec2::new((i % 40) as f32 * 20.0, (i / 40) as f32 * 20.0),
            Vec2::splat(10.0),
        )
    }));
    let mut grid = SpatialGrid::default();
    assert_eq!(
        grid_pairs(&mut grid, &aabbs),
        boxes_overlapping_by_brute_force(&aabbs)
    );
    assert!(grid.cell_size <= 10.0 + 1e-3, "{}", grid.cell_size);
    assert!(matches!(grid.levels[0].keying, Keying::Dense));
}

fn random_boxes(
    rng: &mut StdRng,
    count: usize,
    centre: Vec2,
    spread: f32,
    size: f32,
) -> Vec<Aabb2d> {
    (0..count)
        .map(|_| {
            let min = centre
                + Vec2::new(
                    rng.random_range(-spread..spread),
                    rng.random_range(-spread..spread),
                );
            aabb(
                min,
                Vec2::new(rng.random_range(0.1..size), rng.random_range(0.1..size)),
            )
        })
        .collect()
}

#[test]
fn sparse_clusters_use_hashed_cells() {
    // Three clusters far apart: indexing every cell between them densely
    // would take billions of cells, so cells are hashed.
    let mut rng = StdRng::seed_from_u64(5);
    let mut aabbs = Vec::new();
    for centre in [Vec2::ZERO, Vec2::new(3e6, -2e6), Vec2::new(-1e6, 4e6)] {
        aabbs.extend(random_boxes(&mut rng, 300, centre, 60.0, 8.0));
    }
    let mut grid = SpatialGrid::default();
    assert_eq!(
        grid_pairs(&mut grid, &aabbs),
        boxes_overlapping_by_brute_force(&aabbs)
    );
    assert!(matches!(grid.levels[0].keying, Keying::Hashed { .. }));
}

#[test]
fn sizes_over_four_orders_of_magnitude_use_several_levels() {
    let mut rng = StdRng::seed_from_u64(9);
    let mut aabbs = Vec::new();
    for size in [1.0, 30.0, 900.0, 27000.0] {
        aabbs.extend(random_boxes(&mut rng, 80, Vec2::ZERO, 30000.0, size));
    }
    let mut grid = SpatialGrid::default();
    assert_eq!(
        grid_pairs(&mut grid, &aabbs),
        boxes_overlapping_by_brute_force(&aabbs)
    );
    assert!(grid.levels.len() >= 2, "{} levels", grid.levels.len());
}

#[test]
fn empty_and_rejected_pairs() {
    let mut grid = SpatialGrid::default();
    assert!(grid_pairs(&mut grid, &[]).is_empty());
    let aabbs = [aabb(Vec2::ZERO, Vec2::ONE), aabb(Vec2::ZERO, Vec2::ONE)];
    let mut pairs = vec![(7, 7)];
    grid.overlapping_pairs(&aabbs, |_, _| false, &mut pairs);
    assert!(pairs.is_empty(), "cleared, and the filter is applied");
}

/// The filter applies on the dense path too, where the pairs are first
/// found by sorted position and then filtered and turned into indices.
#[test]
fn filter_applies_to_dense_cells() {
    let mut rng = StdRng::seed_from_u64(21);
    let aabbs = random_boxes(&mut rng, 3000, Vec2::ZERO, 400.0, 12.0);
    let accept = |i: u32, j: u32| !(i * 7 + j).is_multiple_of(3);
    let mut grid = SpatialGrid::default();
    let mut pairs = vec![(7, 7)];
    grid.overlapping_pairs(&aabbs, accept, &mut pairs);
    assert!(matches!(grid.levels[0].keying, Keying::Dense));
    pairs.sort_unstable();
    let expected: Vec<(u32, u32)> = boxes_overlapping_by_brute_force(&aabbs)
        .into_iter()
        .filter(|&(i, j)| accept(i, j))
        .collect();
    assert!(expected.len() > 500, "{} pairs", expected.len());
    assert_eq!(pairs, expected);
}

/// Worlds that exercise every kind of level: dense and hashed cells,
/// oversized boxes on coarser levels, few boxes tested directly, and far
/// away coordinates.
fn query_worlds(rng: &mut StdRng) -> Vec<Vec<Aabb2d>> {
    let mut worlds = Vec::new();
    for count in [0, 5, 23, 24, 300, 1500] {
        let mut aabbs = random_boxes(rng, count, Vec2::ZERO, 200.0, 10.0);
        // Some walls and giants for the coarser levels.
        for _ in 0..count / 20 {
            let min = Vec2::new(
                rng.random_range(-300.0..300.0),
                rng.random_range(-300.0..300.0),
            );
            aabbs.push(aabb(min, Vec2::new(rng.random_range(50.0..400.0), 3.0)));
        }
        worlds.push(aabbs);
    }
    let mut clusters = Vec::new();
    for centre in [Vec2::ZERO, Vec2::new(3e6, -2e6), Vec2::new(-1e6, 4e6)] {
        clusters.extend(random_boxes(rng, 300, centre, 60.0, 8.0));
    }
    worlds.push(clusters);
    let mut sizes = Vec::new();
    for size in [1.0, 30.0, 900.0, 27000.0] {
        sizes.extend(random_boxes(rng, 80, Vec2::ZERO, 30000.0, size));
    }
    worlds.push(sizes);
    worlds
}

fn built(aabbs: &[Aabb2d]) -> SpatialGrid {
    let mut grid = SpatialGrid::default();
    grid.overlapping_pairs(aabbs, |_, _| true, &mut Vec::new());
    grid
}

/// A random point near or inside the world's boxes, or far outside.
fn random_point(rng: &mut StdRng, aabbs: &[Aabb2d]) -> Vec2 {
    match (rng.random_range(0..4), aabbs.len()) {
        (0, _) | (_, 0) => Vec2::new(
            rng.random_range(-500.0..500.0),
            rng.random_range(-500.0..500.0),
        ),
        (1, _) => Vec2::new(rng.random_range(-1e7..1e7), rng.random_range(-1e7..1e7)),
        _ => {
            let target = aabbs[rng.random_range(0..aabbs.len())];
            target.min
                + (target.max - target.min) * Vec2::new(rng.random(), rng.random())
                + Vec2::new(rng.random_range(-3.0..3.0), rng.random_range(-3.0..3.0))
        }
    }
}

#[test]
fn visit_overlapping_matches_brute_force() {
    let mut rng = StdRng::seed_from_u64(23);
    for (world, aabbs) in query_worlds(&mut rng).iter().enumerate() {
        let grid = built(aabbs);
        assert_eq!(grid.len(), aabbs.len());
        for round in 0..300 {
            let min = random_point(&mut rng, aabbs);
            let size = match round % 4 {
                0 => Vec2::ZERO,
                1 => Vec2::new(rng.random_range(0.0..20.0), rng.random_range(0.0..20.0)),
                2 => Vec2::splat(rng.random_range(0.0..2000.0)),
                _ => Vec2::splat(f32::INFINITY),
            };
            let query = aabb(min, size);
            let mut visited = Vec::new();
            grid.visit_overlapping(aabbs, &query, |i| visited.push(i));
            let before = visited.len();
            visited.sort_unstable();
            visited.dedup();
            assert_eq!(
                visited.len(),
                before,
                "world {world}: a box was visited twice"
            );
            let expected: Vec<u32> = (0..aabbs.len() as u32)
                .filter(|&i| aabbs_overlap(&query, &aabbs[i as usize]))
                .collect();
            assert_eq!(visited, expected, "world {world} round {round}: {query:?}");
        }
    }
}

/// Many lookups at once, their reads asked for ahead, find what each finds
/// alone, in the same order, also with other boxes than the grid's.
#[test]
fn visit_overlapping_each_matches_one_by_one() {
    let mut rng = StdRng::seed_from_u64(29);
    for (world, aabbs) in query_worlds(&mut rng).iter().enumerate() {
        let grid = built(aabbs);
        let queries: Vec<Aabb2d> = (0..200)
            .map(|round| {
                let size = match round % 5 {
                    0 => Vec2::ZERO,
                    1 | 2 => Vec2::new(rng.random_range(0.0..20.0), rng.random_range(0.0..20.0)),
                    3 => Vec2::splat(rng.random_range(0.0..2000.0)),
                    _ => Vec2::splat(f32::INFINITY),
                };
                aabb(random_point(&mut rng, aabbs), size)
            })
            .collect();
        let fewer = &aabbs[..aabbs.len() / 2];
        for boxes in [&aabbs[..], fewer] {
            let mut alone = Vec::new();
            for (at, query) in queries.iter().enumerate() {
                grid.visit_overlapping(boxes, query, |i| alone.push((at, i)));
            }
            // Sixteen queries at a time, few for the larger worlds (asked
            // ahead), then in chunks of a batch as large as the world (not).
            let mut together = Vec::new();
            for (k, few) in queries.chunks(16).enumerate() {
                grid.visit_overlapping_each(boxes, few, 0..few.len(), |at, i| {
                    together.push((k * 16 + at, i));
                });
            }
            assert_eq!(together, alone, "world {world}");
            let mut batch = queries.clone();
            batch.extend(std::iter::repeat_n(queries[0], aabbs.len() * 8));
            together.clear();
            for start in (0..queries.len()).step_by(64) {
                let chunk = start..(start + 64).min(queries.len());
                grid.visit_overlapping_each(boxes, &batch, chunk, |at, i| together.push((at, i)));
            }
            assert!(aabbs.is_empty() || !alone.is_empty(), "world {world}");
            assert_eq!(together, alone, "world {world}");
        }
    }
}

#[test]
fn visit_overlapping_with_other_boxes_tests_them_all() {
    let mut rng = StdRng::seed_from_u64(2);
    let grid = built(&random_boxes(&mut rng, 200, Vec2::ZERO, 100.0, 5.0));
    let other = random_boxes(&mut rng, 50, Vec2::ZERO, 100.0, 5.0);
    let query = aabb(Vec2::splat(-20.0), Vec2::splat(40.0));
    let mut visited = Vec::new();
    grid.visit_overlapping(&other, &query, |i| visited.push(i));
    let expected: Vec<u32> = (0..50)
        .filter(|&i| aabbs_overlap(&query, &other[i as usize]))
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(visited, expected);
    let mut along = Vec::new();
    grid.visit_along(&other, query, Dir2::X, 10.0, |i| {
        along.push(i);
        None
    });
    assert_eq!(along, (0..50).collect::<Vec<u32>>());
}

/// In f64: the `t` in `0..=limit` at which `start` moved along
/// `direction` first overlaps `target` grown by `grow` on every side.
fn reference_path_hit(
    start: &Aabb2d,
    direction: Dir2,
    limit: f32,
    target: &Aabb2d,
    grow: f64,
) -> Option<f64> {
    let (mut first, mut last) = (0.0_f64, f64::from(limit));
    for axis in 0..2 {
        let step = f64::from(direction[axis]);
        let below = f64::from(target.min[axis]) - grow - f64::from(start.max[axis]);
        let above = f64::from(target.max[axis]) + grow - f64::from(start.min[axis]);
        if step == 0.0 {
            if !(below <= 0.0 && 0.0 <= above) {
                return None;
            }
            continue;
        }
        let (a, b) = (below / step, above / step);
        first = first.max(a.min(b));
        last = last.min(a.max(b));
    }
    (first <= last).then_some(first)
}

#[test]
fn visit_along_sees_every_box_on_the_path() {
    const MARGIN: f64 = 1e-3;
    let mut rng = StdRng::seed_from_u64(29);
    for (world, aabbs) in query_worlds(&mut rng).iter().enumerate() {
        let grid = built(aabbs);
        for round in 0..200 {
            let origin = random_point(&mut rng, aabbs);
            // Rays (a point moving) and moving boxes.
            let size = if round % 2 == 0 {
                Vec2::ZERO
            } else {
                Vec2::new(rng.random_range(0.0..30.0), rng.random_range(0.0..30.0))
            };
            let start = aabb(origin, size);
            let direction = if round % 5 == 0 {
                Dir2::CARDINALS[rng.random_range(0..4)]
            } else {
                Dir2::from_angle(rng.random_range(0.0..std::f32::consts::TAU))
            };
            let limit = if rng.random_bool(0.5) {
                f32::INFINITY
            } else {
                rng.random_range(0.0..600.0)
            };
            let mut visits = vec![0; aabbs.len()];
            grid.visit_along(aabbs, start, direction, limit, |i| {
                visits[i as usize] += 1;
                None
            });
            let visited: Vec<bool> = visits.iter().map(|&n| n > 0).collect();
            let most = visits.iter().max().copied().unwrap_or(0);
            assert!(
                most <= 1,
                "world {world} round {round}: a box visited {most} times"
            );
            for (i, target) in aabbs.iter().enumerate() {
                // Boxes the path clearly overlaps must be visited.
                if reference_path_hit(&start, direction, limit, target, -MARGIN).is_some() {
                    assert!(
                        visited[i],
                        "world {world} round {round}: box {i} {target:?} missed by {start:?} {direction:?} {limit}"
                    );
                }
            }
        }
    }
}

/// Searching for the first box hit stops early and still finds it.
#[test]
fn visit_along_finds_the_nearest_hit() {
    let mut rng = StdRng::seed_from_u64(31);
    for (world, aabbs) in query_worlds(&mut rng).iter().enumerate() {
        let grid = built(aabbs);
        for round in 0..300 {
            let start = aabb(random_point(&mut rng, aabbs), Vec2::ZERO);
            let direction = Dir2::from_angle(rng.random_range(0.0..std::f32::consts::TAU));
            let hit = |i: u32| {
                reference_path_hit(&start, direction, f32::INFINITY, &aabbs[i as usize], 0.0)
            };
            let mut nearest: Option<(f64, u32)> = None;
            grid.visit_along(aabbs, start, direction, f32::INFINITY, |i| {
                let t = hit(i)?;
                if nearest.is_none_or(|(best, j)| (t, i) < (best, j)) {
                    nearest = Some((t, i));
                }
                Some(t as f32)
            });
            let expected = (0..aabbs.len() as u32)
                .filter_map(|i| Some((hit(i)?, i)))
                .min_by(|a, b| a.partial_cmp(b).unwrap());
            assert_eq!(nearest, expected, "world {world} round {round}");
        }
    }
}

/// An infinite ray looks at the boxes near it, not at the whole world.
#[test]
fn long_rays_walk_near_the_path_only() {
    // 100 x 100 boxes of size 5 every 10 units.
    let aabbs: Vec<Aabb2d> = (0..10_000)
        .map(|i| {
            aabb(
                Vec2::new((i % 100) as f32, (i / 100) as f32) * 10.0,
                Vec2::splat(5.0),
            )
        })
        .collect();
    let grid = built(&aabbs);
    let count_visits = |origin: Vec2, direction: Dir2| {
        let mut visits = 0;
        grid.visit_along(
            &aabbs,
            aabb(origin, Vec2::ZERO),
            direction,
            f32::INFINITY,
            |_| {
                visits += 1;
                None
            },
        );
        visits
    };
    // Along a row from far away, between two rows, diagonally and along
    // a column: each box on the path (100) is visited once, and fewer
    // others (a diagonal passes beside as many as it crosses).
    for (origin, direction, on_path) in [
        (Vec2::new(-1e6, 502.0), Dir2::X, 100),
        (Vec2::new(2e4, 507.5), Dir2::NEG_X, 0),
        (
            Vec2::new(-100.0, -100.0),
            Dir2::new(Vec2::ONE).unwrap(),
            100,
        ),
        (Vec2::new(332.0, -1e5), Dir2::Y, 100),
    ] {
        let visits = count_visits(origin, direction);
        assert!(
            (on_path..=on_path * 2 + 20).contains(&visits),
            "{origin} {direction:?}: {visits}"
        );
    }
    // So far away that f32 positions along the ray are 64 units apart
    // at the world: every box is in reach, each is visited once.
    let visits = count_visits(Vec2::new(332.0, -1e9), Dir2::Y);
    assert!(visits <= aabbs.len(), "{visits}");
    assert_eq!(count_visits(Vec2::new(-1e6, 2000.0), Dir2::X), 0);
    assert_eq!(count_visits(Vec2::new(-100.0, 500.0), Dir2::NEG_X), 0);
    // Stopping at the first hit: only the boxes near the origin.
    let mut visits = 0;
    grid.visit_along(
        &aabbs,
        aabb(Vec2::new(-1e6, 502.0), Vec2::ZERO),
        Dir2::X,
        f32::INFINITY,
        |i| {
            visits += 1;
            reference_path_hit(
                &aabb(Vec2::new(-1e6, 502.0), Vec2::ZERO),
                Dir2::X,
                f32::INFINITY,
                &aabbs[i as usize],
                0.0,
            )
            .map(|t| t as f32)
        },
    );
    assert!(visits <= 30, "{visits}");
}

#[test]
fn bad_paths_visit_nothing() {
    let mut rng = StdRng::seed_from_u64(4);
    let aabbs = random_boxes(&mut rng, 100, Vec2::ZERO, 50.0, 5.0);
    let grid = built(&aabbs);
    let point = aabb(Vec2::ZERO, Vec2::ZERO);
    for (start, direction, max_distance) in [
        (aabb(Vec2::NAN, Vec2::ZERO), Dir2::X, 100.0),
        (aabb(Vec2::ZERO, Vec2::INFINITY), Dir2::X, 100.0),
        (point, Dir2::from_angle(f32::NAN), 100.0),
        (point, Dir2::X, f32::NAN),
        (point, Dir2::X, -1.0),
    ] {
        grid.visit_along(&aabbs, start, direction, max_distance, |i| {
            panic!("visited {i} for {start:?} {direction:?} {max_distance}")
        });
    }
    let mut visited = 0;
    grid.visit_along(&aabbs, point, Dir2::X, 100.0, |_| {
        visited += 1;
        None
    });
    assert!(visited > 0);
}
