//! `tsubame nnue generate` as a user runs it.

use std::process::Command;
use tsubame_engine::nnue::data::read_file;
use tsubame_rules::Variant;

const BINARY: &str = env!("CARGO_BIN_EXE_tsubame");

/// The positions of a few Wa games (drops off) generated with a cap of `max_plies`.
fn generated_plies(max_plies: usize) -> Vec<u16> {
    let path = std::env::temp_dir().join(format!(
        "tsubame-generate-test-{}-{max_plies}.data",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let out = path.to_str().unwrap_or_else(|| panic!("path"));
    let max_plies = max_plies.to_string();
    let args = [
        "nnue",
        "generate",
        "--variant",
        "wa",
        "--option",
        "drops=off",
        "--games",
        "2",
        "--nodes",
        "200",
        "--threads",
        "1",
        "--max-plies",
        &max_plies,
        "--out",
        out,
    ];
    let output = Command::new(BINARY)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run tsubame: {e}"));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let records = read_file(out, Variant::Wa).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_file(&path);
    records.iter().map(|record| record.ply).collect()
}

/// `--max-plies` is where the self-play games stop: no position beyond it, and with a higher
/// cap the same games go on past it (Wa without drops is never decided in 20 plies).
#[test]
fn generation_stops_its_games_at_the_given_ply() {
    let short = generated_plies(20);
    assert!(!short.is_empty());
    assert!(short.iter().all(|&ply| ply <= 20), "{short:?}");
    let longer = generated_plies(40);
    assert!(longer.iter().any(|&ply| ply > 20), "{longer:?}");
    assert!(longer.iter().all(|&ply| ply <= 40), "{longer:?}");
}
