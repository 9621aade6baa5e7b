//! Numbered Hodges moves alone, as books print a game.

use super::canonical::{check_numbers, parse_movetext};
use super::replay::{Reader, default_start, resolve};
use super::{MoveNotation, Record, RecordError, RecordMove};
use tsubame_rules::Options;

/// Reads numbered moves (`1. Swx3c   Swx5e`, `1. ... Swx5e` when gote moves first) of a game
/// played at `options` from its start position. `{comments}` and a closing result (`1-0`,
/// `0-1`, `1/2-1/2`, `*`) are read as in the canonical format; USI moves are accepted too.
///
/// ```
/// use tsubame_notation::record::read_hodges_text;
/// use tsubame_rules::{tori, Options};
///
/// let record = read_hodges_text("1. Swx3c   Swx5e\n2. Fax5e   Fax3c\n", Options::defaults(tori::spec())).unwrap();
/// assert_eq!(record.moves[3].usi, "4b3c");
/// ```
pub fn read_hodges_text(text: &str, options: Options) -> Result<Record, RecordError> {
    let lines: Vec<&str> = text.lines().collect();
    let movetext = parse_movetext(&lines, 1)?;
    let mut record = Record::new(options);
    let resolved = resolve(
        &record.options,
        None,
        &movetext.moves,
        Reader::UsiOrHodges,
        1,
    )?;
    let sente_first = resolved.replay.start_sfen.split(' ').nth(1) == Some("b");
    check_numbers(&movetext, sente_first)?;
    if let Some((result, _, _)) = movetext.result {
        record.result = result;
    }
    record.comment = movetext.comment;
    record.notation = MoveNotation::Hodges;
    record.moves = resolved
        .usi
        .into_iter()
        .zip(movetext.moves)
        .map(|(usi, written)| RecordMove {
            usi,
            comment: written.comment,
            think_ms: None,
        })
        .collect();
    Ok(record)
}

/// Writes the moves in Hodges notation, one move number a line with sente's and gote's moves
/// in two columns, and the result when the game is over. Tags and comments are left out; a
/// game that does not start from its start position cannot be written so.
pub fn write_hodges_text(record: &Record) -> Result<String, RecordError> {
    let replay = record.replay()?;
    if replay.start_sfen != default_start(record)? {
        return Err(super::RecordError::at(
            0,
            0,
            super::RecordErrorKind::Unsupported(
                "Hodges text cannot hold a game from a set-up position; use the record format"
                    .into(),
            ),
        ));
    }
    let sente_first = replay.start_sfen.split(' ').nth(1) == Some("b");
    let mut texts: Vec<String> = Vec::new();
    if !sente_first {
        texts.push("...".to_string());
    }
    texts.extend(replay.steps.iter().map(|s| s.hodges.clone()));
    let mut out = String::new();
    for (pair_index, pair) in texts.chunks(2).enumerate() {
        let number = format!("{}.", pair_index + 1);
        match pair {
            [first, second] => {
                out.push_str(&format!("{number:>4} {first:<7} {second}\n"));
            }
            [first] => out.push_str(&format!("{number:>4} {first}\n")),
            _ => {}
        }
    }
    if record.result != super::GameResult::Unfinished {
        out.push_str(record.result.token());
        out.push('\n');
    }
    Ok(out)
}
