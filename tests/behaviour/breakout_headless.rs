//! The breakout example's headless autoplay mode, run through the example's
//! own code: bricks get destroyed and the ball never leaves the arena.

#[allow(dead_code)]
#[path = "../../examples/breakout/main.rs"]
mod breakout;

#[test]
fn autoplay_destroys_bricks_without_escapes() {
    let report = breakout::run_headless(5000, true);
    println!("{report}");
    assert_eq!(report.frames, 5000);
    assert!(report.bricks_destroyed >= 20, "{report}");
    assert_eq!(report.escapes, 0, "{report}");
    assert_eq!(report.tunnels, 0, "{report}");
}

/// With `Swept` on the ball, four times the speed (30 units a frame against
/// 24-unit bricks) still never leaves the arena nor crosses a brick unhit.
#[test]
fn autoplay_at_four_times_the_speed_never_tunnels() {
    let mut config = breakout::HeadlessConfig::new(3000, true);
    config.ball_speed *= 4.0;
    let report = breakout::run_headless_with(config);
    println!("{report}");
    assert!(report.bricks_destroyed >= 20, "{report}");
    assert_eq!(report.escapes, 0, "{report}");
    assert_eq!(report.tunnels, 0, "{report}");
}

/// The tunnel counter can fail: without `Swept`, the same fast ball passes
/// through bricks it never hits.
#[test]
fn without_swept_the_fast_ball_tunnels() {
    let mut config = breakout::HeadlessConfig::new(3000, true);
    config.ball_speed *= 4.0;
    config.swept_ball = false;
    let report = breakout::run_headless_with(config);
    println!("{report}");
    assert!(report.tunnels > 0, "{report}");
}
