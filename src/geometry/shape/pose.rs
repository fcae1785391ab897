//! A 2D pose and scale read from a 3D affine transform, as Bevy's
//! `GlobalTransform` holds it.

use bevy::math::{Affine3A, Isometry2d, Rot2, Vec2};

/// What detection needs from an affine transform, read in one pass.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TransformReading {
    /// Translation and the rotation of the x axis about z.
    pub(crate) pose: Isometry2d,
    /// Lengths of the x and y axes projected on the xy plane.
    pub(crate) scale: Vec2,
    /// Cosine of the angle between those axes (0 unless sheared).
    pub(crate) shear: f32,
    /// Whether the transform mirrors (its x and y axes turn clockwise).
    pub(crate) mirrored: bool,
}

impl TransformReading {
    /// Reads `affine`: the x axis gives the angle, the axis lengths the scale.
    /// Inlined: the snapshot calls it for every collider every frame.
    #[inline]
    pub(crate) fn of(affine: &Affine3A) -> Self {
        let x_axis = affine.matrix3.x_axis.truncate();
        let y_axis = affine.matrix3.y_axis.truncate();
        let scale = Vec2::new(x_axis.length(), y_axis.length());
        // A zero-length x axis has no angle, so fall back to the identity
        // (such a shape has zero width and is rejected anyway). Built field
        // by field: `Rot2::from_sin_cos` asserts unit length in debug builds,
        // and a NaN transform must be reported, not panic.
        let rotation = if scale.x > 0.0 {
            Rot2 {
                cos: x_axis.x / scale.x,
                sin: x_axis.y / scale.x,
            }
        } else {
            Rot2::IDENTITY
        };
        let lengths = scale.x * scale.y;
        Self {
            pose: Isometry2d::new(affine.translation.truncate(), rotation),
            scale,
            shear: if lengths > 0.0 {
                (x_axis.dot(y_axis) / lengths).abs()
            } else {
                0.0
            },
            mirrored: x_axis.perp_dot(y_axis) < 0.0,
        }
    }

    /// The scale with the mirror, if any, on the y axis: with
    /// [`Self::pose`], it maps local points where the transform does.
    #[inline]
    pub(crate) fn signed_scale(&self) -> Vec2 {
        if self.mirrored {
            Vec2::new(self.scale.x, -self.scale.y)
        } else {
            self.scale
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::math::{Quat, Vec3};

    #[test]
    fn reads_rotation_scale_and_shear() {
        let affine = Affine3A::from_scale_rotation_translation(
            Vec3::new(2.0, -3.0, 1.0),
            Quat::from_rotation_z(0.5),
            Vec3::new(4.0, 5.0, 6.0),
        );
        let reading = TransformReading::of(&affine);
        assert!((reading.pose.rotation.as_radians() - 0.5).abs() < 1e-6);
        assert_eq!(reading.pose.translation, Vec2::new(4.0, 5.0));
        assert!((reading.scale - Vec2::new(2.0, 3.0)).abs().max_element() < 1e-6);
        assert!(reading.shear < 1e-6);
        // A negative scale on one axis mirrors: local points land where the
        // transform puts them.
        assert!(reading.mirrored);
        let local = Vec2::new(1.0, 2.0);
        let placed = reading.pose.transform_point(local * reading.signed_scale());
        let expected = affine.transform_point3(local.extend(0.0)).truncate();
        assert!(
            (placed - expected).abs().max_element() < 1e-5,
            "{placed} {expected}"
        );
        // A non-uniform scale above a rotation shears.
        let sheared =
            Affine3A::from_scale(Vec3::new(1.0, 3.0, 1.0)) * Affine3A::from_rotation_z(0.5);
        assert!(TransformReading::of(&sheared).shear > 0.1);
    }

    #[test]
    fn nan_and_zero_scale_do_not_panic() {
        let zero = TransformReading::of(&Affine3A::from_scale(Vec3::ZERO));
        assert_eq!(zero.pose.rotation, Rot2::IDENTITY);
        let nan = TransformReading::of(&Affine3A::from_translation(Vec3::NAN));
        assert!(nan.pose.translation.is_nan());
    }
}
