//! The queries on shapes, a file each: overlap and contact over one pair
//! dispatch (`dispatch`), time of impact (`swept`), translational casts,
//! shape casts, rays (solid and hollow; each convex kind's in
//! `ray_convex`), contact manifolds and the
//! combined push out of several contacts.

pub(in crate::geometry) mod closest_points;
pub(in crate::geometry) mod contact;
pub(in crate::geometry) mod dispatch;
pub(in crate::geometry) mod ghost_rule;
pub(in crate::geometry) mod intersects;
pub(in crate::geometry) mod manifold;
pub(in crate::geometry) mod manifold_clip;
pub(in crate::geometry) mod minkowski;
pub(in crate::geometry) mod parts;
pub(in crate::geometry) mod point;
pub(in crate::geometry) mod push_out;
pub(in crate::geometry) mod ray;
pub(in crate::geometry) mod ray_convex;
pub(in crate::geometry) mod ray_hollow;
pub(in crate::geometry) mod shape_cast;
pub(in crate::geometry) mod sweep;
pub(in crate::geometry) mod time_of_impact;
pub(in crate::geometry) mod translation_cast;
