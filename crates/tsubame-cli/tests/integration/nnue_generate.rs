//! `tsubame nnue generate`, `relabel` and `train` as a user runs them.

use std::process::Command;
use tsubame_rules::Variant;
use tsubame_train::data::read_file;

const BINARY: &str = env!("CARGO_BIN_EXE_tsubame");

/// Runs `tsubame nnue generate` for `games` Wa games (drops off, 200 nodes a move) capped at
/// `max_plies`, writing to `out`.
fn generate_wa(out: &str, games: usize, max_plies: usize) {
    let output = Command::new(BINARY)
        .args([
            "nnue",
            "generate",
            "--variant",
            "wa",
            "--option",
            "drops=off",
        ])
        .args([
            "--games",
            &games.to_string(),
            "--nodes",
            "200",
            "--threads",
            "1",
        ])
        .args(["--max-plies", &max_plies.to_string(), "--out", out])
        .output()
        .unwrap_or_else(|e| panic!("cannot run tsubame: {e}"));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The positions of a few Wa games (drops off) generated with a cap of `max_plies`.
fn generated_plies(max_plies: usize) -> Vec<u16> {
    let path = std::env::temp_dir().join(format!(
        "tsubame-generate-test-{}-{max_plies}.data",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let out = path.to_str().unwrap_or_else(|| panic!("path"));
    generate_wa(out, 2, max_plies);
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

/// `tsubame nnue train` on a Wa file with kind and line factors and a fixed score scale: it
/// writes a network per epoch and the best one, which load as Wa networks; a scale that is no
/// number of centipawns, or a training share that is no share, is refused by name.
#[test]
fn training_with_factors_writes_wa_networks_and_refuses_a_bad_scale() {
    let dir = std::env::temp_dir().join(format!("tsubame-train-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let data = dir.join("wa.data");
    let nets = dir.join("nets");
    let path = |p: &std::path::Path| p.to_str().unwrap_or_else(|| panic!("path")).to_string();
    generate_wa(&path(&data), 4, 40);
    let train = |scale: &str, share: &str| {
        Command::new(BINARY)
            .args(["nnue", "train", "--variant", "wa", "--data", &path(&data)])
            .args(["--epochs", "2", "--batch-size", "64", "--threads", "1"])
            .args(["--kind-factors", "--line-factors", "--score-scale", scale])
            .args(["--training-share", share, "--out", &path(&nets)])
            .output()
            .unwrap_or_else(|e| panic!("cannot run tsubame: {e}"))
    };
    // Games 0 to 3 are all in the first block of ten, which the share 1/2 keeps.
    let trained = train("600", "1/2");
    let stdout = String::from_utf8_lossy(&trained.stdout);
    assert!(
        trained.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&trained.stderr)
    );
    assert!(stdout.contains("score scale 600\n"), "{stdout}");
    assert!(
        stdout.contains("0 positions of training games outside the share 1/2 left out"),
        "{stdout}"
    );
    for name in ["epoch-01.nnue", "epoch-02.nnue", "best.nnue"] {
        let network = tsubame_engine::nnue::Network::load(&path(&nets.join(name)))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(network.variant(), Variant::Wa);
    }
    let refused = train("0", "1/1");
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("--score-scale"), "{stderr}");
    let refused = train("600", "3/2");
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("--training-share") && stderr.contains("1 <= K <= N, not 3/2"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `tsubame nnue relabel` on a Wa file (drops off, the option taken from the file): searched
/// again as played, every ply, the file comes back byte for byte; deeper, the same training
/// positions with new scores; writing over its own data, or reading it as another game, is
/// refused by name.
#[test]
fn relabelling_wa_games_keeps_the_games_and_refuses_its_own_file() {
    let dir = std::env::temp_dir().join(format!("tsubame-relabel-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = |name: &str| {
        dir.join(name)
            .to_str()
            .unwrap_or_else(|| panic!("path"))
            .to_string()
    };
    let data = path("wa.games");
    generate_wa(&data, 2, 40);
    let relabel = |variant: &str, nodes: &str, out: &str, extra: &[&str]| {
        Command::new(BINARY)
            .args(["nnue", "relabel", "--variant", variant, "--data", &data])
            .args(["--nodes", nodes, "--threads", "2", "--out", out])
            .args(extra)
            .output()
            .unwrap_or_else(|e| panic!("cannot run tsubame: {e}"))
    };
    let succeeded = |output: &std::process::Output| {
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let same = path("same.games");
    let stdout = succeeded(&relabel("wa", "200", &same, &["--all-plies"]));
    assert!(stdout.contains("2 of 2 games"), "{stdout}");
    assert!(stdout.contains(" 0 scores changed"), "{stdout}");
    let read = |p: &str| std::fs::read(p).unwrap_or_else(|e| panic!("{p}: {e}"));
    assert_eq!(read(&same), read(&data));

    let deeper = path("deeper.games");
    succeeded(&relabel("wa", "1000", &deeper, &[]));
    let positions = |p: &str| read_file(p, Variant::Wa).unwrap_or_else(|e| panic!("{e}"));
    let (old, new) = (positions(&data), positions(&deeper));
    assert_eq!(old.len(), new.len());
    assert!(old.iter().zip(&new).all(|(a, b)| a.board == b.board));
    assert!(old.iter().zip(&new).any(|(a, b)| a.score != b.score));

    let itself = relabel("wa", "1000", &data, &[]);
    assert!(!itself.status.success());
    let stderr = String::from_utf8_lossy(&itself.stderr);
    assert!(stderr.contains("--out must be a new file"), "{stderr}");
    let other_game = relabel("tori", "1000", &path("tori.games"), &[]);
    assert!(!other_game.status.success());
    let stderr = String::from_utf8_lossy(&other_game.stderr);
    assert!(stderr.contains("not tori"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
