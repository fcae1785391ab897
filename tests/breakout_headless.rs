//! The breakout example's headless autoplay mode, run through the example's
//! own code: bricks get destroyed and the ball never leaves the arena.

#[allow(dead_code)]
#[path = "../examples/breakout.rs"]
mod breakout;

#[test]
fn autoplay_destroys_bricks_without_escapes() {
    let report = breakout::run_headless(5000, true);
    println!("{report}");
    assert_eq!(report.frames, 5000);
    assert!(report.bricks_destroyed >= 20, "{report}");
    assert_eq!(report.escapes, 0, "{report}");
}
