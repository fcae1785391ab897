//! Invalid sizes and transforms are skipped with one warning per entity,
//! never panic, never produce NaN, and never disturb valid pairs.

mod common;

use std::sync::Mutex;

use bevy::log::tracing::{self, Event, Level, Subscriber, field::Field, field::Visit};
use bevy::log::tracing_subscriber::{self, Layer, layer::Context, layer::SubscriberExt};
use bevy::prelude::*;
use bevy_collide2d::prelude::*;
use common::*;

/// Every WARN message logged anywhere in this test binary.
static WARNINGS: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct WarningRecorder;

impl<S: Subscriber> Layer<S> for WarningRecorder {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        if *event.metadata().level() == Level::WARN {
            struct Message(String);
            impl Visit for Message {
                fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
                    if field.name() == "message" {
                        self.0 = format!("{value:?}");
                    }
                }
            }
            let mut message = Message(String::new());
            event.record(&mut message);
            WARNINGS.lock().unwrap().push(message.0);
        }
    }
}

#[test]
fn invalid_colliders_are_skipped_and_warned_once() {
    // Systems may run on any thread, so the recorder is global.
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(WarningRecorder))
        .unwrap();

    let mut app = test_app();
    let mut log = MessageLog::default();
    let a = spawn_at(&mut app, Collider::circle(5.0), 0.0, 0.0);
    let b = spawn_at(&mut app, Collider::rect(4.0, 4.0), 6.0, 0.0);
    // All of these would overlap a and b if they were valid.
    let near = Transform::from_xyz(1.0, 0.0, 0.0);
    let nan_rotation = Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
    let bad: Vec<Entity> = [
        (Collider::circle(-3.0), near),
        (Collider::circle(f32::NAN), near),
        (Collider::circle(0.0), near),
        (Collider::rect(0.0, 4.0), near),
        (Collider::rect(4.0, f32::INFINITY), near),
        (
            Collider::circle(3.0),
            Transform::from_xyz(f32::NAN, 0.0, 0.0),
        ),
        (
            Collider::circle(3.0),
            Transform::from_xyz(f32::INFINITY, 0.0, 0.0),
        ),
        (Collider::rect(3.0, 3.0), near.with_rotation(nan_rotation)),
        (Collider::circle(1e19), near),
        (Collider::rect(3.0, 1e16), near),
    ]
    .into_iter()
    .map(|bundle| app.world_mut().spawn(bundle).id())
    .collect();
    // Scaled to nothing: skipped too, but that is a normal way to hide
    // things, so without a warning.
    let hidden: Vec<Entity> = [
        (Collider::circle(3.0), near.with_scale(Vec3::ZERO)),
        (
            Collider::rect(3.0, 3.0),
            near.with_scale(Vec3::new(1.0, 0.0, 1.0)),
        ),
    ]
    .into_iter()
    .map(|bundle| app.world_mut().spawn(bundle).id())
    .collect();

    // A non-uniform scale above a rotation shears the child: it still takes
    // part (as an unsheared rectangle), with one warning. It is far away so
    // that it does not disturb the counts below.
    let stretched = app
        .world_mut()
        .spawn(Transform::from_xyz(500.0, 0.0, 0.0).with_scale(Vec3::new(2.0, 1.0, 1.0)))
        .id();
    let sheared = app
        .world_mut()
        .spawn((
            Collider::rect(4.0, 4.0),
            Transform::from_rotation(Quat::from_rotation_z(0.7)),
            ChildOf(stretched),
        ))
        .id();

    let mut events = Vec::new();
    for _ in 0..5 {
        app.update();
        events.extend(log.read(&app));
    }

    // The valid pair is reported exactly as without the bad ones.
    let (lo, hi) = ordered(a, b);
    assert_eq!(events.len(), 1, "{events:?}");
    let CollisionEvent::Started {
        a: ea,
        b: eb,
        contact,
    } = events[0]
    else {
        panic!("{events:?}")
    };
    assert_eq!((ea, eb), (lo, hi));
    assert!(contact.point.is_finite() && contact.depth.is_finite() && contact.normal.is_finite());
    assert_eq!(colliding(&app, a), vec![b]);
    for &entity in bad.iter().chain(&hidden) {
        assert!(colliding(&app, entity).is_empty());
    }

    // One warning per bad entity, naming it, over five frames, and one for
    // the sheared one.
    let mut warnings = WARNINGS.lock().unwrap().clone();
    let shear_warning = warnings
        .iter()
        .position(|w| w.contains("sheared"))
        .expect("shear warning");
    assert!(
        warnings
            .remove(shear_warning)
            .contains(&sheared.to_string())
    );
    assert_eq!(warnings.len(), bad.len(), "{warnings:#?}");
    for &entity in &bad {
        let named = warnings
            .iter()
            .filter(|w| w.contains(&entity.to_string()))
            .count();
        assert_eq!(named, 1, "{entity}: {warnings:#?}");
    }

    // A fixed collider takes part from the next detection on.
    let nan_transform = bad[5];
    set_translation(&mut app, nan_transform, 1.0, 0.0);
    app.update();
    let events = log.read(&app);
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(
        events
            .iter()
            .all(|e| matches!(e, CollisionEvent::Started { .. }) && e.involves(nan_transform))
    );
    assert_eq!(
        WARNINGS.lock().unwrap().len(),
        bad.len() + 1,
        "no new warnings"
    );

    // Broken again after being fixed: warned again, once, and its contacts end.
    set_translation(&mut app, nan_transform, f32::NAN, 0.0);
    app.update();
    app.update();
    let events = log.read(&app);
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(
        events
            .iter()
            .all(|e| matches!(e, CollisionEvent::Ended { .. }))
    );
    assert_eq!(WARNINGS.lock().unwrap().len(), bad.len() + 2);
}
