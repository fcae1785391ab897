//! The queries of a frame, kept for the debug overlay to draw (rays,
//! casts, projections): only while it asks for them, so that queries cost
//! nothing more otherwise.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use bevy::math::{Dir2, Isometry2d, Vec2};
use bevy::prelude::*;

use crate::geometry::Shape;

/// How far an endless ray or cast is drawn: out of any view.
pub(crate) const DRAWN_LENGTH: f32 = 1e5;

/// At most this many queries are kept between two drawings: a game that
/// stops drawing them cannot fill memory.
const MAX_RECORDS: usize = 4096;

/// One query as the overlay draws it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum QueryRecord {
    /// A ray from `origin` to `end` (its length, or far along an endless
    /// one), and where it hit (point and normal).
    Ray {
        origin: Vec2,
        end: Vec2,
        hits: Vec<(Vec2, Dir2)>,
    },
    /// A shape cast from `start` to where it stopped (or its full length),
    /// and where it touched.
    Cast {
        shape: Shape,
        start: Isometry2d,
        end: Vec2,
        hit: Option<(Vec2, Dir2)>,
    },
    /// A point projected onto the nearest collider.
    Projection { point: Vec2, projected: Vec2 },
}

/// The queries made since the overlay last drew them.
#[derive(Resource, Default)]
pub(crate) struct QueryLog {
    recording: AtomicBool,
    records: Mutex<Vec<QueryRecord>>,
}

impl QueryLog {
    /// Keeps `record()` when the overlay asks for queries.
    #[inline]
    pub(crate) fn record(&self, record: impl FnOnce() -> QueryRecord) {
        if !self.recording.load(Ordering::Relaxed) {
            return;
        }
        let mut records = self
            .records
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if records.len() < MAX_RECORDS {
            records.push(record());
        }
    }

    /// Starts or stops keeping queries; stopping forgets those kept.
    #[cfg_attr(not(feature = "debug"), allow(dead_code, reason = "the overlay's"))]
    pub(crate) fn set_recording(&self, recording: bool) {
        self.recording.store(recording, Ordering::Relaxed);
        if !recording {
            self.take();
        }
    }

    /// The queries kept since the last call.
    #[cfg_attr(not(feature = "debug"), allow(dead_code, reason = "the overlay's"))]
    pub(crate) fn take(&self) -> Vec<QueryRecord> {
        let mut records = self
            .records
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        std::mem::take(&mut *records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ray() -> QueryRecord {
        QueryRecord::Projection {
            point: Vec2::ZERO,
            projected: Vec2::X,
        }
    }

    #[test]
    fn queries_are_kept_only_while_recording_and_at_most_so_many() {
        let log = QueryLog::default();
        log.record(ray);
        assert!(log.take().is_empty());
        log.set_recording(true);
        for _ in 0..MAX_RECORDS + 10 {
            log.record(ray);
        }
        assert_eq!(log.take().len(), MAX_RECORDS);
        assert!(log.take().is_empty());
        log.record(ray);
        log.set_recording(false);
        log.record(ray);
        assert!(log.take().is_empty());
    }
}
