//! The PGN the Tori play site exports: chess-style tags with its FEN, and Fairy-Stockfish SAN
//! moves.

use super::canonical::{check_numbers, check_outcome, comment_text, parse_movetext};
use super::replay::{Reader, resolve};
use super::san::write_san;
use super::{GameResult, MoveNotation, Record, RecordError, RecordErrorKind, RecordMove};
use tsubame_rules::{Options, Position, tori};

/// Reads the PGN of the Tori play site: the tags `White` (sente), `Black` (gote), `Date`,
/// `TimeControl`, `Result`, `Variant` (must be Tori shogi) and `FEN`; other tags are kept;
/// moves in Fairy-Stockfish SAN, with `{comments}`. Every move is replayed through the rules,
/// and an error names its line and column.
///
/// ```
/// use tsubame_notation::record::read_pgn;
///
/// let pgn = "[Variant \"Torishogi\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n1. Sxe5 Sxc3 2. Fxc3 *\n";
/// let record = read_pgn(pgn).unwrap();
/// assert_eq!(record.sente.as_deref(), Some("a"));
/// assert_eq!(record.moves[2].usi, "4f5e");
/// ```
pub fn read_pgn(text: &str) -> Result<Record, RecordError> {
    read_pgn_with(text, None)
}

/// The rules the play site plays Tori by, and so the rules of its PGN unless an `Options` tag
/// says otherwise: Fairy-Stockfish's, where a repetition ends the game on the fourth
/// occurrence of a position.
///
/// ```
/// use tsubame_notation::record::play_site_options;
/// assert_eq!(play_site_options().get("repetition").as_deref(), Some("4"));
/// ```
pub fn play_site_options() -> Options {
    let mut options = Options::defaults(tori::spec());
    // The option exists in Tori's spec; a failure would leave the defaults.
    let _ = options.set("repetition", "4");
    options
}

/// Reads one game of the play site's PGN like [`read_pgn`]; `rules`, when given, are the rule
/// options to replay it under, whatever the file says.
pub fn read_pgn_with(text: &str, rules: Option<&Options>) -> Result<Record, RecordError> {
    let lines: Vec<&str> = text.lines().collect();
    read_pgn_lines(&lines, 0, rules)
}

/// Reads one game from `lines`, which start at line `offset + 1` of the file: errors name the
/// file's lines.
fn read_pgn_lines(
    lines: &[&str],
    offset: usize,
    rules: Option<&Options>,
) -> Result<Record, RecordError> {
    let mut body_start = lines.len();
    let mut record = Record::new(play_site_options());
    let mut fen: Option<(String, usize)> = None;
    let mut result_line = 0;
    for (index, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('%') {
            continue;
        }
        if !trimmed.starts_with('[') {
            body_start = index;
            break;
        }
        let tag = super::canonical::parse_tag_pub(trimmed, offset + index + 1)?;
        match tag.0.as_str() {
            "Variant" => {
                let name = tag.1.to_ascii_lowercase().replace([' ', '-', '_'], "");
                if name != "torishogi" && name != "tori" {
                    return Err(RecordError::at(
                        offset + index + 1,
                        0,
                        RecordErrorKind::UnknownVariant(format!(
                            "{} (the play site's PGN is read for Tori shogi only)",
                            tag.1
                        )),
                    ));
                }
            }
            "FEN" => fen = Some((tag.1, offset + index + 1)),
            // Written by Tsubame for rules other than the play site's.
            "Options" => {
                record.options = Options::parse(tori::spec(), &tag.1).map_err(|e| {
                    RecordError::at(
                        offset + index + 1,
                        0,
                        RecordErrorKind::BadOption(e.to_string()),
                    )
                })?;
            }
            "SetUp" => {}
            "White" => record.sente = Some(tag.1),
            "Black" => record.gote = Some(tag.1),
            "Date" => record.date = Some(tag.1),
            "TimeControl" => record.time_control = Some(tag.1),
            "Result" => {
                record.result = GameResult::from_token(tag.1.trim()).ok_or_else(|| {
                    RecordError::at(
                        offset + index + 1,
                        0,
                        RecordErrorKind::BadResult(tag.1.clone()),
                    )
                })?;
                result_line = offset + index + 1;
            }
            _ => record.extra_tags.push(tag),
        }
    }
    record.options = super::with_rules(record.options.clone(), rules, offset + 1)?;
    let mut fen_line = offset + 1;
    if let Some((fen, line)) = fen {
        fen_line = line;
        let position = Position::from_fen(tori::tables(), &fen, record.options.rule_set())
            .map_err(|e| RecordError::at(line, 0, RecordErrorKind::BadPosition(e.to_string())))?;
        let sfen = position.to_sfen();
        let default = super::replay::default_start(&record)?;
        if sfen != default {
            record.start_sfen = Some(sfen);
        }
    }
    let body: Vec<&str> = lines
        .get(body_start..)
        .unwrap_or(&[])
        .iter()
        .map(|l| {
            if l.trim_start().starts_with('%') {
                ""
            } else {
                *l
            }
        })
        .collect();
    let mut movetext = parse_movetext(&body, offset + body_start + 1)?;
    movetext.moves.retain(|m| !m.text.starts_with('$'));
    if let Some((result, line, column)) = movetext.result {
        if result_line != 0 && result != record.result {
            return Err(RecordError::at(
                line,
                column,
                RecordErrorKind::ResultMismatch {
                    written: format!("{} at the end", result.token()),
                    actual: format!("{} in the Result tag", record.result.token()),
                },
            ));
        }
        record.result = result;
    }
    let resolved = resolve(
        &record.options,
        record.start_sfen.as_deref(),
        &movetext.moves,
        Reader::San,
        fen_line,
    )?;
    let sente_first = resolved.replay.start_sfen.split(' ').nth(1) == Some("b");
    check_numbers(&movetext, sente_first)?;
    if let Some(outcome) = resolved.replay.outcome {
        record.reason = Some(outcome.reason);
    }
    check_outcome(&record, &resolved.replay, result_line, 0)?;
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

/// Reads every game of a PGN file of the play site's (a player's or a tournament's games, one
/// after the other); errors name the line in the whole file.
///
/// ```
/// use tsubame_notation::record::read_pgn_games;
///
/// let pgn = "[Variant \"Torishogi\"]\n\n1. Sxe5 Sxc3 *\n\n[Variant \"Torishogi\"]\n\n1. Sxe5 *\n";
/// let games = read_pgn_games(pgn, None).unwrap();
/// assert_eq!(games.len(), 2);
/// assert_eq!(games[1].moves.len(), 1);
/// ```
pub fn read_pgn_games(text: &str, rules: Option<&Options>) -> Result<Vec<Record>, RecordError> {
    read_pgn_games_at_most(text, rules, usize::MAX)
}

/// Reads the games of a PGN file like [`read_pgn_games`], but at most `limit` of them: a file
/// with more is refused ([`RecordErrorKind::TooManyGames`]) as soon as the first game past the
/// limit begins, before any game is replayed. The time taken grows in proportion to the
/// text's length.
///
/// ```
/// use tsubame_notation::record::{RecordErrorKind, read_pgn_games_at_most};
///
/// let game = "[Variant \"Torishogi\"]\n\n1. Sxe5 *\n\n";
/// assert_eq!(read_pgn_games_at_most(&game.repeat(2), None, 2).unwrap().len(), 2);
/// let error = read_pgn_games_at_most(&game.repeat(100_000), None, 2).unwrap_err();
/// assert_eq!(error.kind, RecordErrorKind::TooManyGames(2));
/// ```
pub fn read_pgn_games_at_most(
    text: &str,
    rules: Option<&Options>,
    limit: usize,
) -> Result<Vec<Record>, RecordError> {
    let lines: Vec<&str> = text.lines().collect();
    let starts = super::game_starts(&lines, limit, |line| {
        line.is_empty() || line.starts_with('%')
    })?;
    let mut games = Vec::with_capacity(starts.len());
    for (number, &start) in starts.iter().enumerate() {
        let end = starts.get(number + 1).copied().unwrap_or(lines.len());
        games.push(read_pgn_lines(
            lines.get(start..end).unwrap_or(&[]),
            start,
            rules,
        )?);
    }
    Ok(games)
}

/// Writes a Tori shogi record as the play site's PGN: the seven standard tags (`White` is
/// sente), `TimeControl`, `Variant "Torishogi"`, the start `FEN` with `SetUp "1"`, then the
/// moves in Fairy-Stockfish SAN with their comments, and the result.
pub fn write_pgn(record: &Record) -> Result<String, RecordError> {
    if record.variant().name != tori::spec().name {
        return Err(RecordError::at(
            0,
            0,
            RecordErrorKind::Unsupported("the play site's PGN holds Tori shogi only".into()),
        ));
    }
    let replay = record.replay()?;
    let rules = record.options.rule_set();
    let start = Position::from_sfen(tori::tables(), &replay.start_sfen, rules)
        .map_err(|e| RecordError::at(0, 0, RecordErrorKind::BadPosition(e.to_string())))?;
    let mut out = String::new();
    let mut tag = |name: &str, value: &str| {
        out.push_str(&format!(
            "[{name} \"{}\"]\n",
            value.replace('\\', "\\\\").replace('"', "\\\"")
        ));
    };
    let extra = |name: &str| record.extra_tag(name).map(str::to_string);
    tag("Event", &extra("Event").unwrap_or_else(|| "?".into()));
    tag("Site", &extra("Site").unwrap_or_else(|| "?".into()));
    tag("Date", record.date.as_deref().unwrap_or("????.??.??"));
    tag("Round", &extra("Round").unwrap_or_else(|| "-".into()));
    tag("White", record.sente.as_deref().unwrap_or("?"));
    tag("Black", record.gote.as_deref().unwrap_or("?"));
    tag("Result", record.result.token());
    if let Some(control) = &record.time_control {
        tag("TimeControl", control);
    }
    for (name, value) in &record.extra_tags {
        if !["Event", "Site", "Round"].contains(&name.as_str()) {
            tag(name, value);
        }
    }
    tag("Variant", "Torishogi");
    tag("FEN", &start.to_fen());
    tag("SetUp", "1");
    // Rules other than the play site's are written, so that the record reads back as played.
    let options = super::canonical::options_text(&record.options);
    if options != super::canonical::options_text(&play_site_options()) {
        tag("Options", &options);
    }
    out.push('\n');
    if let Some(comment) = &record.comment {
        out.push_str(&format!("{{{}}} ", comment_text(comment)));
    }
    let mut position = start;
    let sente_first = replay.start_sfen.split(' ').nth(1) == Some("b");
    let offset = usize::from(!sente_first);
    let mut words: Vec<String> = Vec::new();
    for (index, step) in replay.steps.iter().enumerate() {
        let mv = position
            .parse_usi(&step.usi)
            .map_err(|e| RecordError::at(0, 0, RecordErrorKind::BadPosition(e.to_string())))?;
        let ply = index + offset;
        if ply % 2 == 0 {
            words.push(format!("{}.", ply / 2 + 1));
        } else if index == 0 {
            words.push("1...".to_string());
        }
        words.push(write_san(&position, mv));
        if let Some(comment) = record.moves.get(index).and_then(|m| m.comment.as_ref()) {
            words.push(format!("{{{}}}", comment_text(comment)));
        }
        position.make_move(mv);
    }
    words.push(record.result.token().to_string());
    let mut line_length = 0;
    for word in words {
        if line_length > 0 && line_length + 1 + word.chars().count() > 79 {
            out.push('\n');
            line_length = 0;
        } else if line_length > 0 {
            out.push(' ');
            line_length += 1;
        }
        line_length += word.chars().count();
        out.push_str(&word);
    }
    out.push('\n');
    Ok(out)
}
