//! Colliders from a 2D mesh: its triangles, merged into convex parts.

use core::fmt;
use std::collections::HashMap;

use bevy::mesh::{Indices, Mesh, Mesh2d, PrimitiveTopology, VertexAttributeValues};
use bevy::prelude::*;

use super::WarnedAssets;
use crate::components::Collider;
use crate::geometry::ShapeError;

/// Why a mesh gives no collider.
#[derive(Clone, Debug, PartialEq)]
pub enum MeshColliderError {
    /// The mesh's data is not kept on the CPU (its asset usage is
    /// render-world only).
    NoMeshData,
    /// The mesh is not a triangle list (its topology, named).
    NotTriangles(String),
    /// The mesh has no `Float32x2` or `Float32x3` positions.
    NoPositions,
    /// An index points past the positions.
    IndexOutOfRange(usize),
    /// No triangle has an area.
    NoTriangles,
    /// A part is not a valid shape (a NaN or too large position).
    Shape(ShapeError),
}

impl fmt::Display for MeshColliderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoMeshData => write!(
                f,
                "the mesh has no data on the CPU (keep it with RenderAssetUsages::MAIN_WORLD)"
            ),
            Self::NotTriangles(topology) => {
                write!(f, "the mesh is a {topology}, not a triangle list")
            }
            Self::NoPositions => write!(f, "the mesh has no 2D or 3D float positions"),
            Self::IndexOutOfRange(index) => write!(f, "mesh index {index} is past its positions"),
            Self::NoTriangles => write!(f, "no triangle of the mesh has an area"),
            Self::Shape(error) => write!(f, "the mesh gives an invalid part: {error}"),
        }
    }
}

impl std::error::Error for MeshColliderError {}

impl Collider {
    /// The triangles of a 2D mesh (a `Mesh2d`'s: `x` and `y` of its
    /// positions, `z` ignored) as a compound of convex parts: the outline
    /// of the region they cover, holes included, cut into convex pieces
    /// (so a rectangle or a regular polygon from Bevy's shapes is one
    /// part). Triangles that overlap or meet only at a corner have no such
    /// outline: they are merged with their neighbours instead while the
    /// union stays convex. Either way the parts cover exactly the
    /// triangles. Degenerate triangles are dropped.
    ///
    /// ```
    /// # use bevy::prelude::*;
    /// # use bevy_collide2d::prelude::*;
    /// let hexagon = Collider::from_mesh(&Mesh::from(RegularPolygon::new(10.0, 6))).unwrap();
    /// let probe = Collider::circle(0.1);
    /// // Inside the hexagon's inner circle (radius 8.66), outside its outer one.
    /// assert!(probe.intersects(Isometry2d::from_xy(8.0, 0.0), &hexagon, Isometry2d::IDENTITY));
    /// assert!(probe.intersects(Isometry2d::from_xy(0.0, -8.0), &hexagon, Isometry2d::IDENTITY));
    /// assert!(!probe.intersects(Isometry2d::from_xy(0.0, 10.5), &hexagon, Isometry2d::IDENTITY));
    /// ```
    pub fn from_mesh(mesh: &Mesh) -> Result<Collider, MeshColliderError> {
        let topology = mesh.primitive_topology();
        if topology != PrimitiveTopology::TriangleList {
            return Err(MeshColliderError::NotTriangles(format!("{topology:?}")));
        }
        let positions: Vec<Vec2> = match mesh.try_attribute_option(Mesh::ATTRIBUTE_POSITION) {
            Err(_) => return Err(MeshColliderError::NoMeshData),
            Ok(Some(VertexAttributeValues::Float32x3(points))) => {
                points.iter().map(|p| Vec2::new(p[0], p[1])).collect()
            }
            Ok(Some(VertexAttributeValues::Float32x2(points))) => {
                points.iter().map(|&p| Vec2::from(p)).collect()
            }
            Ok(_) => return Err(MeshColliderError::NoPositions),
        };
        let indices: Vec<usize> = match mesh.try_indices_option() {
            Err(_) => return Err(MeshColliderError::NoMeshData),
            Ok(Some(Indices::U16(i))) => i.iter().map(|&i| i as usize).collect(),
            Ok(Some(Indices::U32(i))) => i.iter().map(|&i| i as usize).collect(),
            Ok(None) => (0..positions.len()).collect(),
        };
        if let Some(&bad) = indices.iter().find(|&&i| i >= positions.len()) {
            return Err(MeshColliderError::IndexOutOfRange(bad));
        }
        if let Some(&bad) = positions
            .iter()
            .find(|p| !crate::geometry::within_magnitude(**p))
        {
            return Err(MeshColliderError::Shape(ShapeError::InvalidVertex(bad)));
        }
        let pieces = outline_pieces(&positions, &indices)
            .unwrap_or_else(|| merged_triangles(&positions, &indices));
        if pieces.is_empty() {
            return Err(MeshColliderError::NoTriangles);
        }
        Collider::from_convex_pieces(pieces).map_err(MeshColliderError::Shape)
    }
}

/// The region the triangles cover, by its outline: the edges of one
/// triangle only, joined into loops (counter-clockwise around the region,
/// clockwise around its holes), cut into convex pieces. `None` when the
/// outline is not a set of simple loops (triangles that overlap, or meet
/// only at a vertex).
fn outline_pieces(positions: &[Vec2], indices: &[usize]) -> Option<Vec<Vec<Vec2>>> {
    let key = |p: Vec2| [p.x.to_bits(), p.y.to_bits()];
    let mut edges: HashMap<([u32; 2], [u32; 2]), (Vec2, Vec2)> = HashMap::new();
    for triangle in indices.chunks_exact(3) {
        let [mut a, b, mut c] = [0, 1, 2].map(|k| positions[triangle[k]]);
        let area = (b - a).perp_dot(c - a);
        if area == 0.0 {
            continue;
        }
        if area < 0.0 {
            std::mem::swap(&mut a, &mut c);
        }
        for (u, v) in [(a, b), (b, c), (c, a)] {
            // An edge met from both sides is inside the region; met twice
            // from one side, triangles overlap.
            if edges.remove(&(key(v), key(u))).is_none()
                && edges.insert((key(u), key(v)), (u, v)).is_some()
            {
                return None;
            }
        }
    }
    let mut next: HashMap<[u32; 2], Vec2> = HashMap::new();
    for &(u, v) in edges.values() {
        // A vertex the outline passes twice: not simple loops.
        if next.insert(key(u), v).is_some() {
            return None;
        }
    }
    let mut loops = Vec::new();
    while let Some(&start) = next.keys().min() {
        let mut ring = Vec::new();
        let mut at = start;
        while let Some(to) = next.remove(&at) {
            ring.push(Vec2::new(f32::from_bits(at[0]), f32::from_bits(at[1])));
            at = key(to);
        }
        if at != start {
            return None;
        }
        loops.push(ring);
    }
    let mut pieces = Vec::new();
    for island in super::contour::islands(loops) {
        let holes: Vec<&[Vec2]> = island.holes.iter().map(Vec::as_slice).collect();
        pieces.extend(crate::geometry::convex_pieces_with_holes(&island.outline, &holes).ok()?);
    }
    Some(pieces)
}

/// The triangles `indices` (three by three) of `positions` as convex
/// pieces, counter-clockwise: vertices at the same position welded, each
/// piece merged with a neighbour across a shared edge while the union
/// stays convex (greedily, in the order the edges come).
fn merged_triangles(positions: &[Vec2], indices: &[usize]) -> Vec<Vec<Vec2>> {
    // Weld: one id per distinct position, so shared edges are found.
    let mut ids: HashMap<[u32; 2], usize> = HashMap::new();
    let mut points: Vec<Vec2> = Vec::new();
    let mut id_of = |p: Vec2| {
        *ids.entry([p.x.to_bits(), p.y.to_bits()])
            .or_insert_with(|| {
                points.push(p);
                points.len() - 1
            })
    };
    let mut pieces: Vec<Option<Vec<usize>>> = Vec::new();
    for triangle in indices.chunks_exact(3) {
        let [pa, pb, pc] = [0, 1, 2].map(|k| positions[triangle[k]]);
        let area = (pb - pa).perp_dot(pc - pa);
        let [a, b, c] = [pa, pb, pc].map(&mut id_of);
        if area > 0.0 {
            pieces.push(Some(vec![a, b, c]));
        } else if area < 0.0 {
            pieces.push(Some(vec![a, c, b]));
        }
    }
    // Each directed edge to its piece; a piece's neighbour across edge
    // (u, v) is the one holding (v, u).
    let mut edges: HashMap<(usize, usize), usize> = HashMap::new();
    for (k, piece) in pieces.iter().enumerate() {
        let Some(piece) = piece else { continue };
        for i in 0..piece.len() {
            edges.insert((piece[i], piece[(i + 1) % piece.len()]), k);
        }
    }
    let mut k = 0;
    while k < pieces.len() {
        let Some(piece) = pieces[k].clone() else {
            k += 1;
            continue;
        };
        let n = piece.len();
        let merged = (0..n).find_map(|i| {
            let (u, v) = (piece[i], piece[(i + 1) % n]);
            let other = *edges.get(&(v, u)).filter(|&&other| other != k)?;
            let union = union_across(&piece, pieces[other].as_ref()?, u, v)?;
            is_convex(&points, &union).then_some((other, union))
        });
        match merged {
            Some((other, union)) => {
                pieces[other] = None;
                for i in 0..union.len() {
                    edges.insert((union[i], union[(i + 1) % union.len()]), k);
                }
                pieces[k] = Some(union);
                // Look at this piece's edges again: it has new neighbours.
            }
            None => k += 1,
        }
    }
    pieces
        .into_iter()
        .flatten()
        .map(|piece| piece.into_iter().map(|id| points[id]).collect())
        .collect()
}

/// The polygon of `piece` and `other` joined across their shared edge
/// (`u`, `v` in `piece`, `v`, `u` in `other`).
fn union_across(piece: &[usize], other: &[usize], u: usize, v: usize) -> Option<Vec<usize>> {
    let at = other.iter().position(|&id| id == u)?;
    let m = other.len();
    // `other` from u round to v: its vertices not on the shared edge.
    let between: Vec<usize> = (1..m - 1).map(|s| other[(at + s) % m]).collect();
    if other[(at + m - 1) % m] != v {
        return None;
    }
    let i = piece.iter().position(|&id| id == u)?;
    let mut union = Vec::with_capacity(piece.len() + between.len());
    union.extend(&piece[..=i]);
    union.extend(between);
    union.extend(&piece[i + 1..]);
    Some(union)
}

/// Whether the counter-clockwise polygon turns left (or runs straight) at
/// every vertex, and has no vertex twice.
fn is_convex(points: &[Vec2], polygon: &[usize]) -> bool {
    let n = polygon.len();
    let mut seen = polygon.to_vec();
    seen.sort_unstable();
    seen.dedup();
    seen.len() == n
        && (0..n).all(|i| {
            let [a, b, c] = [i, i + 1, i + 2].map(|k| points[polygon[k % n]]);
            (b - a).perp_dot(c - b) >= 0.0
        })
}

/// Builds this entity's [`Collider`] from its [`Mesh2d`] once the mesh has
/// loaded ([`Collider::from_mesh`]), and again when the entity's mesh
/// changes to another. A mesh that gives no collider is reported once
/// with a warning, and the entity gets none.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_collide2d::prelude::*;
/// # fn spawn(mut commands: Commands, mut meshes: ResMut<Assets<Mesh>>) {
/// commands.spawn((
///     Mesh2d(meshes.add(RegularPolygon::new(30.0, 5))),
///     ColliderFromMesh::default(),
/// ));
/// # }
/// ```
#[derive(Component, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Component, Debug, Default, PartialEq, Clone)]
pub struct ColliderFromMesh {
    /// The mesh the collider was last built from.
    #[reflect(ignore)]
    built_for: Option<AssetId<Mesh>>,
}

/// Builds the colliders of [`ColliderFromMesh`] entities whose mesh has
/// loaded or changed.
pub(crate) fn build_colliders_from_meshes(
    mut entities: Query<(Entity, &mut ColliderFromMesh, &Mesh2d)>,
    // Absent without `AssetPlugin` (a headless app): nothing to build from.
    meshes: Option<Res<Assets<Mesh>>>,
    mut warned: Local<WarnedAssets>,
    mut commands: Commands,
) {
    let Some(meshes) = meshes else {
        return;
    };
    for (entity, mut from_mesh, mesh) in &mut entities {
        if from_mesh.built_for == Some(mesh.id()) {
            continue;
        }
        let Some(data) = meshes.get(&mesh.0) else {
            continue;
        };
        from_mesh.built_for = Some(mesh.id());
        match Collider::from_mesh(data) {
            Ok(collider) => {
                commands.entity(entity).insert(collider);
            }
            Err(error) => warned.warn(entity, || format!("ColliderFromMesh on {entity}: {error}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fan_of_triangles_merges_into_one_convex_part_and_an_l_into_two() {
        let hexagon: Vec<Vec2> = (0..6).map(|k| Vec2::from_angle(k as f32) * 10.0).collect();
        let mut positions = vec![Vec2::ZERO];
        positions.extend(&hexagon);
        let indices: Vec<usize> = (0..6).flat_map(|k| [0, 1 + k, 1 + (k + 1) % 6]).collect();
        assert_eq!(outline_pieces(&positions, &indices).unwrap().len(), 1);
        assert!(merged_triangles(&positions, &indices).len() <= 3);
        // An L of three unit squares, two triangles each, vertices unshared
        // (as a mesh with per-face vertices has them).
        let squares = [Vec2::ZERO, Vec2::X, Vec2::Y];
        let mut positions = Vec::new();
        for s in squares {
            let [a, b, c, d] = [s, s + Vec2::X, s + Vec2::ONE, s + Vec2::Y];
            positions.extend([a, b, c, a, c, d]);
        }
        let indices: Vec<usize> = (0..positions.len()).collect();
        let pieces = outline_pieces(&positions, &indices).unwrap();
        assert_eq!(pieces.len(), 2, "{pieces:?}");
        // Greedy merging: not always the fewest, never a part per triangle.
        assert!(merged_triangles(&positions, &indices).len() <= 3);
        let area: f32 = pieces
            .iter()
            .map(|p| {
                (0..p.len())
                    .map(|i| p[i].perp_dot(p[(i + 1) % p.len()]))
                    .sum::<f32>()
                    / 2.0
            })
            .sum();
        assert_eq!(area, 3.0);
    }
}
