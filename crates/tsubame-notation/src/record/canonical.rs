//! The canonical record format: tag pairs, numbered moves with comments, result.

use super::error::quoted;
use super::replay::{Reader, WrittenMove, number_label, resolve};
use super::{
    GameResult, MoveNotation, Record, RecordError, RecordErrorKind, RecordMove,
    end_reason_from_name,
};
use tsubame_rules::{EndReason, Options, Variant};

/// A tag as read, with its line.
struct TagLine {
    name: String,
    value: String,
    line: usize,
}

/// Reads `[Name "value"]`.
fn parse_tag(line: &str, number: usize) -> Result<TagLine, RecordError> {
    let malformed = |why: &str| {
        RecordError::at(
            number,
            0,
            RecordErrorKind::MalformedTag(format!("{why} in {}", quoted(line))),
        )
    };
    let inner = line
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or_else(|| malformed("expected [Name \"value\"]"))?;
    let (name, rest) = inner
        .split_once(|c: char| c.is_whitespace())
        .ok_or_else(|| malformed("missing value"))?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(malformed("bad tag name"));
    }
    let rest = rest.trim();
    let body = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(|| malformed("the value must be in double quotes"))?;
    let mut value = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped @ ('\\' | '"')) => value.push(escaped),
                _ => return Err(malformed("bad escape (only \\\\ and \\\" are allowed)")),
            },
            '"' => return Err(malformed("unescaped quote in the value")),
            other => value.push(other),
        }
    }
    Ok(TagLine {
        name: name.to_string(),
        value,
        line: number,
    })
}

/// Reads `[Name "value"]` into the name and the value.
pub(crate) fn parse_tag_pub(line: &str, number: usize) -> Result<(String, String), RecordError> {
    parse_tag(line, number).map(|t| (t.name, t.value))
}

/// A token of the move text.
#[derive(Debug)]
pub(crate) enum Token {
    Word(String),
    Comment(String),
}

/// Splits move text into words and `{comments}`, with line and column of each (from 1).
pub(crate) fn tokenize(
    lines: &[&str],
    first_line: usize,
) -> Result<Vec<(Token, usize, usize)>, RecordError> {
    let mut tokens = Vec::new();
    let mut open_comment: Option<(String, usize, usize)> = None;
    for (offset, line) in lines.iter().enumerate() {
        let number = first_line + offset;
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars.get(i).copied().unwrap_or(' ');
            if let Some((text, start_line, start_col)) = open_comment.as_mut() {
                if c == '}' {
                    tokens.push((
                        Token::Comment(text.trim().to_string()),
                        *start_line,
                        *start_col,
                    ));
                    open_comment = None;
                } else {
                    text.push(c);
                }
                i += 1;
                continue;
            }
            if c.is_whitespace() {
                i += 1;
            } else if c == '{' {
                open_comment = Some((String::new(), number, i + 1));
                i += 1;
            } else {
                let start = i;
                let mut word = String::new();
                while let Some(&w) = chars.get(i) {
                    if w.is_whitespace() || w == '{' {
                        break;
                    }
                    word.push(w);
                    i += 1;
                }
                tokens.push((Token::Word(word), number, start + 1));
            }
        }
        if let Some((text, _, _)) = open_comment.as_mut() {
            text.push(' ');
        }
    }
    if let Some((_, line, column)) = open_comment {
        return Err(RecordError::at(
            line,
            column,
            RecordErrorKind::UnclosedComment,
        ));
    }
    Ok(tokens)
}

/// Move text taken apart: moves with their comments, move numbers, the game comment and the
/// result token.
#[derive(Default)]
pub(crate) struct Movetext {
    pub comment: Option<String>,
    pub moves: Vec<WrittenMove>,
    /// Move numbers as written: (index of the move they precede, number, dots, line, column).
    pub numbers: Vec<(usize, String, usize, usize)>,
    pub result: Option<(GameResult, usize, usize)>,
}

fn join(slot: &mut Option<String>, text: String) {
    match slot {
        Some(existing) => {
            existing.push(' ');
            existing.push_str(&text);
        }
        None => *slot = Some(text),
    }
}

/// Whether `word` starts with a move number (`12.`, `12...`); returns the number text and
/// what follows the dots.
fn split_number(word: &str) -> Option<(&str, &str)> {
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let rest = word.get(digits..)?;
    let after_dots = rest.trim_start_matches('.');
    if after_dots.len() == rest.len() {
        return None;
    }
    Some((word.get(..digits)?, after_dots))
}

pub(crate) fn parse_movetext(lines: &[&str], first_line: usize) -> Result<Movetext, RecordError> {
    let mut out = Movetext::default();
    for (token, line, column) in tokenize(lines, first_line)? {
        if out.result.is_some() {
            let text = match token {
                Token::Word(w) => w,
                Token::Comment(c) => format!("{{{c}}}"),
            };
            return Err(RecordError::at(
                line,
                column,
                RecordErrorKind::Unexpected(format!("{text} after the result")),
            ));
        }
        match token {
            Token::Comment(text) => match out.moves.last_mut() {
                Some(last) => join(&mut last.comment, text),
                None => join(&mut out.comment, text),
            },
            Token::Word(word) => {
                if let Some(result) = GameResult::from_token(&word) {
                    out.result = Some((result, line, column));
                    continue;
                }
                if word.chars().all(|c| c == '.') {
                    // The `...` standing for a move not played (gote moves first).
                    continue;
                }
                let mut move_text = word.as_str();
                let mut move_column = column;
                if let Some((number, rest)) = split_number(&word) {
                    out.numbers
                        .push((out.moves.len(), number.to_string(), line, column));
                    if rest.is_empty() {
                        continue;
                    }
                    move_column = column + (word.chars().count() - rest.chars().count());
                    move_text = rest;
                }
                out.moves.push(WrittenMove {
                    text: move_text.to_string(),
                    line,
                    column: move_column,
                    comment: None,
                });
            }
        }
    }
    Ok(out)
}

/// Checks that each written move number is the number of the move it precedes.
pub(crate) fn check_numbers(movetext: &Movetext, sente_first: bool) -> Result<(), RecordError> {
    for (index, number, line, column) in &movetext.numbers {
        let label = number_label(*index, sente_first);
        let expected = label.trim_end_matches('.');
        if number != expected {
            return Err(RecordError::at(
                *line,
                *column,
                RecordErrorKind::MoveNumber {
                    found: number.clone(),
                    expected: expected.to_string(),
                },
            ));
        }
    }
    Ok(())
}

/// Whether a reason is decided by the moves alone, so that the rules must agree with it.
pub(crate) fn decided_by_moves(reason: EndReason) -> bool {
    !matches!(reason, EndReason::Resignation | EndReason::Time)
}

/// Reads a file of several canonical records, one after another (a tag line after a game's
/// moves starts the next game), at most `limit` of them: a file with more is refused at the
/// first game past the limit, before any is replayed. Errors name the line in the whole file.
///
/// ```
/// use tsubame_notation::record::read_records_at_most;
/// let file = "[Variant \"tori\"]\n1. 3d3c 4b3c 1-0\n\n[Variant \"wa\"]\n[Options \"drops=off\"]\n*\n";
/// let games = read_records_at_most(file, 10).unwrap();
/// assert_eq!(games.len(), 2);
/// assert_eq!(games[0].moves.len(), 2);
/// assert_eq!(games[1].variant().name, "wa");
/// assert!(read_records_at_most(file, 1).is_err());
/// ```
pub fn read_records_at_most(text: &str, limit: usize) -> Result<Vec<Record>, RecordError> {
    let lines: Vec<&str> = text.lines().collect();
    let starts = super::game_starts(&lines, limit, |line| line.is_empty())?;
    let mut games = Vec::with_capacity(starts.len());
    for (number, &start) in starts.iter().enumerate() {
        let end = starts.get(number + 1).copied().unwrap_or(lines.len());
        let game = lines.get(start..end).unwrap_or(&[]).join("\n");
        games.push(read_with(&game, None).map_err(|mut error| {
            if error.location.line > 0 {
                error.location.line += start;
            }
            error
        })?);
    }
    Ok(games)
}

pub(crate) fn read(text: &str) -> Result<Record, RecordError> {
    read_with(text, None)
}

/// Reads a canonical record, replayed under `rules` when given instead of its Options tag.
pub(crate) fn read_with(text: &str, rules: Option<&Options>) -> Result<Record, RecordError> {
    let lines: Vec<&str> = text.lines().collect();
    let mut tags: Vec<TagLine> = Vec::new();
    let mut body_start = lines.len();
    for (index, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if trimmed.starts_with('[') {
            let tag = parse_tag(trimmed, index + 1)?;
            if tags.iter().any(|t| t.name == tag.name) {
                return Err(RecordError::at(
                    index + 1,
                    0,
                    RecordErrorKind::DuplicateTag(tag.name),
                ));
            }
            tags.push(tag);
        } else {
            body_start = index;
            break;
        }
    }
    let tag = |name: &str| tags.iter().find(|t| t.name == name);
    let variant_tag =
        tag("Variant").ok_or(RecordError::at(1, 0, RecordErrorKind::MissingVariant))?;
    let variant = Variant::from_name(&variant_tag.value)
        .map(Variant::spec)
        .ok_or_else(|| {
            RecordError::at(
                variant_tag.line,
                0,
                RecordErrorKind::UnknownVariant(variant_tag.value.clone()),
            )
        })?;
    let mut options = Options::defaults(variant);
    if let Some(t) = tag("Options") {
        options = Options::parse(variant, &t.value)
            .map_err(|e| RecordError::at(t.line, 0, RecordErrorKind::BadOption(e.to_string())))?;
        if t.value.split(',').any(|p| p.trim().starts_with("handicap")) {
            return Err(RecordError::at(
                t.line,
                0,
                RecordErrorKind::BadOption("the handicap goes in its own Handicap tag".into()),
            ));
        }
    }
    if let Some(t) = tag("Handicap") {
        let known = variant.option("handicap").is_some();
        if known {
            options.set("handicap", t.value.trim()).map_err(|e| {
                RecordError::at(t.line, 0, RecordErrorKind::BadOption(e.to_string()))
            })?;
        } else if t.value.trim() != "none" {
            return Err(RecordError::at(
                t.line,
                0,
                RecordErrorKind::BadOption(format!("{} has no handicaps", variant.title)),
            ));
        }
    }
    let options = super::with_rules(options, rules, 1)?;
    let mut record = Record::new(options);
    let mut result_line = 0;
    let mut reason_line = 0;
    let mut sfen_line = 0;
    for t in &tags {
        match t.name.as_str() {
            "Variant" | "Options" | "Handicap" => {}
            "Sente" => record.sente = Some(t.value.clone()),
            "Gote" => record.gote = Some(t.value.clone()),
            "Date" => record.date = Some(t.value.clone()),
            "TimeControl" => record.time_control = Some(t.value.clone()),
            "SFEN" => {
                record.start_sfen = Some(t.value.clone());
                sfen_line = t.line;
            }
            "Result" => {
                record.result = GameResult::from_token(t.value.trim()).ok_or_else(|| {
                    RecordError::at(t.line, 0, RecordErrorKind::BadResult(t.value.clone()))
                })?;
                result_line = t.line;
            }
            "Reason" => {
                record.reason = Some(end_reason_from_name(t.value.trim()).ok_or_else(|| {
                    RecordError::at(t.line, 0, RecordErrorKind::BadReason(t.value.clone()))
                })?);
                reason_line = t.line;
            }
            _ => record.extra_tags.push((t.name.clone(), t.value.clone())),
        }
    }

    let body = lines.get(body_start..).unwrap_or(&[]);
    let movetext = parse_movetext(body, body_start + 1)?;
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
        if result_line == 0 {
            record.result = result;
            result_line = line;
        }
    }
    let resolved = resolve(
        &record.options,
        record.start_sfen.as_deref(),
        &movetext.moves,
        Reader::UsiOrHodges,
        sfen_line.max(1),
    )?;
    let sente_first = resolved.replay.start_sfen.split(' ').nth(1) == Some("b");
    check_numbers(&movetext, sente_first)?;
    check_outcome(&record, &resolved.replay, result_line, reason_line)?;
    if record.start_sfen.is_some()
        && record.start_sfen == Some(super::replay::default_start(&record)?)
    {
        record.start_sfen = None;
    }
    record.comment = movetext.comment;
    record.notation = resolved.notation;
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

/// The result and reason a record states must fit how its moves end the game.
pub(crate) fn check_outcome(
    record: &Record,
    replay: &super::Replay,
    result_line: usize,
    reason_line: usize,
) -> Result<(), RecordError> {
    let stated = match record.reason {
        Some(reason) => format!("{} by {reason}", record.result.token()),
        None => record.result.token().to_string(),
    };
    match replay.outcome {
        Some(outcome) => {
            let result_differs = record.result != GameResult::Unfinished
                && record.result != GameResult::from_outcome(outcome);
            let reason_differs = record.reason.is_some_and(|r| r != outcome.reason);
            if result_differs || reason_differs {
                let line = if result_differs {
                    result_line
                } else {
                    reason_line
                };
                return Err(RecordError::at(
                    line,
                    0,
                    RecordErrorKind::ResultMismatch {
                        written: stated,
                        actual: outcome.to_string(),
                    },
                ));
            }
        }
        None => {
            if let Some(reason) = record.reason.filter(|&r| decided_by_moves(r)) {
                return Err(RecordError::at(
                    reason_line,
                    0,
                    RecordErrorKind::ResultMismatch {
                        written: format!("an end by {reason}"),
                        actual: "a game that goes on".to_string(),
                    },
                ));
            }
        }
    }
    Ok(())
}

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A comment made safe for `{...}`: only a closing brace would end it early.
pub(crate) fn comment_text(comment: &str) -> String {
    comment.replace('}', ")")
}

/// The rule options other than the handicap, every one named.
pub(crate) fn options_text(options: &Options) -> String {
    options
        .iter()
        .filter(|(name, _)| *name != "handicap")
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The numbered move lines, moves written by `text_of`.
pub(crate) fn write_moves(
    out: &mut String,
    record: &Record,
    sente_first: bool,
    texts: &[String],
    with_comments: bool,
) {
    let offset = usize::from(!sente_first);
    for (index, text) in texts.iter().enumerate() {
        let ply = index + offset;
        if ply % 2 == 0 {
            if index > 0 {
                out.push('\n');
            }
            out.push_str(&format!("{}. ", ply / 2 + 1));
        } else if index == 0 {
            out.push_str("1. ... ");
        } else {
            out.push(' ');
        }
        out.push_str(text);
        if with_comments
            && let Some(comment) = record.moves.get(index).and_then(|m| m.comment.as_ref())
        {
            out.push_str(&format!(" {{{}}}", comment_text(comment)));
        }
    }
    if !texts.is_empty() {
        out.push('\n');
    }
}

pub(crate) fn write(record: &Record) -> Result<String, RecordError> {
    let replay = record.replay()?;
    let variant = record.variant();
    let mut out = String::new();
    let mut tag = |name: &str, value: &str| {
        out.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
    };
    tag("Variant", variant.name);
    tag("Options", &options_text(&record.options));
    if let Some(handicap) = record.options.get("handicap") {
        tag("Handicap", &handicap);
    }
    for (name, value) in [
        ("Sente", &record.sente),
        ("Gote", &record.gote),
        ("Date", &record.date),
        ("TimeControl", &record.time_control),
    ] {
        if let Some(value) = value {
            tag(name, value);
        }
    }
    tag("Result", record.result.token());
    if let Some(reason) = record.reason {
        tag("Reason", reason.name());
    }
    tag("SFEN", &replay.start_sfen);
    for (name, value) in &record.extra_tags {
        tag(name, value);
    }
    out.push('\n');
    if let Some(comment) = &record.comment {
        out.push_str(&format!("{{{}}}\n", comment_text(comment)));
    }
    let texts: Vec<String> = replay
        .steps
        .iter()
        .map(|s| match record.notation {
            MoveNotation::Usi => s.usi.clone(),
            MoveNotation::Hodges => s.hodges.clone(),
        })
        .collect();
    let sente_first = replay.start_sfen.split(' ').nth(1) == Some("b");
    write_moves(&mut out, record, sente_first, &texts, true);
    out.push_str(record.result.token());
    out.push('\n');
    Ok(out)
}
