//! `tsubame tune` (spsa, and fit on games files) as a user runs it.

use std::process::{Command, Output};

const BINARY: &str = env!("CARGO_BIN_EXE_tsubame");

fn run(args: &[&str]) -> Output {
    Command::new(BINARY)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run tsubame: {e}"))
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A fresh directory for one test's files, and the path of a file in it as text.
fn scratch(test: &str) -> (std::path::PathBuf, impl Fn(&str) -> String) {
    let dir = std::env::temp_dir().join(format!("tsubame-tune-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let inside = dir.clone();
    let path = move |name: &str| {
        inside
            .join(name)
            .to_str()
            .unwrap_or_else(|| panic!("path"))
            .to_string()
    };
    (dir, path)
}

/// A short SPSA run plays its pairs of games, saves its state, prints the tuned values as an
/// option line the engine takes, and picks up from its state when run again.
#[test]
fn spsa_runs_saves_its_state_and_resumes() {
    let dir = std::env::temp_dir().join(format!("tsubame-spsa-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let state = dir.join("spsa.json");
    let state = state.to_str().unwrap_or_else(|| panic!("path"));
    let args = [
        "tune",
        "spsa",
        "--variant",
        "tori",
        "--tune",
        "futility_margin",
        "--tune",
        "lmr_divisor",
        "--steps",
        "2",
        "--nodes",
        "200",
        "--threads",
        "2",
        "--state",
        state,
    ];
    let first = run(&args);
    let printed = text(&first);
    assert!(first.status.success(), "{printed}");
    assert!(printed.contains("2 steps, 4 games"), "{printed}");
    let option = printed
        .lines()
        .find_map(|l| l.strip_prefix("setoption name SearchParams value "))
        .unwrap_or_else(|| panic!("no option line: {printed}"));
    assert!(option.contains("futility_margin="), "{option}");

    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(state).unwrap_or_else(|e| panic!("{e}")))
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(saved["done"], 2);
    let games = ["up_wins", "draws", "down_wins"]
        .iter()
        .map(|k| saved[k].as_u64().unwrap_or(0))
        .sum::<u64>();
    assert_eq!(games, 4);

    // Run again: the state says it is done, so it resumes at its end and prints the same.
    let again = run(&args);
    let printed_again = text(&again);
    assert!(again.status.success(), "{printed_again}");
    assert!(printed_again.contains("resuming"), "{printed_again}");
    assert!(printed_again.contains(option), "{printed_again}");

    let bad = run(&[
        "tune",
        "spsa",
        "--variant",
        "tori",
        "--tune",
        "depth",
        "--state",
        &format!("{state}.x"),
    ]);
    assert!(!bad.status.success());
    assert!(
        text(&bad).contains("no search parameter is called \"depth\""),
        "{}",
        text(&bad)
    );
    // A state file edited out of shape is refused, not trusted.
    let broken = dir.join("broken.json");
    let saved_text = std::fs::read_to_string(state).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        &broken,
        saved_text.replace("\"max\": 600.0", "\"max\": -600.0"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let refused = run(&[
        "tune",
        "spsa",
        "--variant",
        "tori",
        "--state",
        broken.to_str().unwrap_or_else(|| panic!("path")),
    ]);
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("futility_margin: value"),
        "{}",
        text(&refused)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Tenjiku's weights are fitted on the games files of `nnue generate`: the parameter file it
/// writes is one the engine loads, and the steps Tenjiku has no use for are refused by name.
#[test]
fn tenjiku_fit_runs_on_a_games_file_and_the_engine_loads_its_weights() {
    let (dir, path) = scratch("tenjiku");
    let (games, params) = (path("tenjiku.games"), path("tenjiku.json"));
    let generated = run(&[
        "nnue",
        "generate",
        "--variant",
        "tenjiku",
        "--nodes",
        "150",
        "--games",
        "2",
        "--max-plies",
        "80",
        "--out",
        &games,
    ]);
    assert!(generated.status.success(), "{}", text(&generated));

    let fitted = run(&[
        "tune",
        "fit",
        "--variant",
        "tenjiku",
        "--data",
        &games,
        "--steps",
        "20",
        "--out",
        &params,
    ]);
    let printed = text(&fitted);
    assert!(fitted.status.success(), "{printed}");
    assert!(printed.contains("positions"), "{printed}");
    assert!(printed.contains("weights changed"), "{printed}");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&params).unwrap_or_else(|e| panic!("{e}")))
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(file["variant"], "tenjiku");
    assert!(file["params"]["board_value"].is_array(), "{file}");

    // The engine plays with the fitted weights.
    let mut engine = Command::new(BINARY)
        .args(["engine", "usi"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    {
        use std::io::Write;
        let mut stdin = engine.stdin.take().unwrap_or_else(|| panic!("stdin"));
        writeln!(
            stdin,
            "usi\nsetoption name USI_Variant value tenjiku\nsetoption name EvalFile value {params}\n\
             isready\nposition startpos\ngo nodes 500\n"
        )
        .unwrap_or_else(|e| panic!("{e}"));
        std::thread::sleep(std::time::Duration::from_secs(3));
        writeln!(stdin, "quit").unwrap_or_else(|e| panic!("{e}"));
    }
    let output = engine.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains("readyok"), "{said}");
    assert!(said.contains("bestmove"), "{said}");
    assert!(!said.contains("info string error"), "{said}");

    // A text file of positions is no Tenjiku data; the other steps are Tori's and Wa's.
    std::fs::write(path("positions.tsv"), "x\t1\n").unwrap_or_else(|e| panic!("{e}"));
    let refused = run(&[
        "tune",
        "fit",
        "--variant",
        "tenjiku",
        "--data",
        &path("positions.tsv"),
        "--out",
        &path("never.json"),
    ]);
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("is no games file"),
        "{}",
        text(&refused)
    );
    let refused = run(&[
        "tune",
        "generate",
        "--variant",
        "tenjiku",
        "--out",
        &path("x.tsv"),
    ]);
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("nnue generate --variant tenjiku"),
        "{}",
        text(&refused)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Tori's and Wa's weights are also fitted on the games files of `nnue generate`, labelled by
/// the search's scores where the results say little: the rules of the file must be the ones
/// named, and labels that cannot be are refused by name.
#[test]
fn wa_fit_runs_on_a_games_file_labelled_by_the_search_scores() {
    let (dir, path) = scratch("wa");
    let (games, params) = (path("wa.games"), path("wa.json"));
    let generated = run(&[
        "nnue",
        "generate",
        "--variant",
        "wa",
        "--option",
        "drops=off",
        "--nodes",
        "150",
        "--games",
        "2",
        "--max-plies",
        "60",
        "--out",
        &games,
    ]);
    assert!(generated.status.success(), "{}", text(&generated));

    let fit = |extra: &[&str]| {
        let mut args = vec![
            "tune",
            "fit",
            "--variant",
            "wa",
            "--data",
            &games,
            "--steps",
            "10",
            "--out",
            &params,
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    let fitted = fit(&["--option", "drops=off", "--score-weight", "1"]);
    let printed = text(&fitted);
    assert!(fitted.status.success(), "{printed}");
    assert!(printed.contains("weights changed"), "{printed}");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&params).unwrap_or_else(|e| panic!("{e}")))
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(file["variant"], "washogi");

    // The file's games were played without drops: fitting them as Wa with drops is refused.
    let refused = fit(&["--score-weight", "1"]);
    assert!(!refused.status.success());
    let said = text(&refused);
    assert!(
        said.contains("played under drops=off, not under the default rules"),
        "{said}"
    );
    for (extra, named) in [
        (
            ["--score-weight", "1.5"],
            "--score-weight 1.5 is not between 0 and 1",
        ),
        (
            ["--score-scale", "0"],
            "--score-scale 0 is not a positive number",
        ),
    ] {
        let mut args = vec!["--option", "drops=off"];
        args.extend_from_slice(&extra);
        let refused = fit(&args);
        assert!(!refused.status.success());
        assert!(text(&refused).contains(named), "{}", text(&refused));
    }
    // Positions written by `tune generate` carry no scores to label by.
    std::fs::write(path("positions.tsv"), "x\t1\n").unwrap_or_else(|e| panic!("{e}"));
    let refused = run(&[
        "tune",
        "fit",
        "--variant",
        "wa",
        "--data",
        &path("positions.tsv"),
        "--score-weight",
        "0.5",
        "--out",
        &path("never.json"),
    ]);
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("--score-weight is for games files"),
        "{}",
        text(&refused)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
