//! Reading a GUI's commands: one line at a time, bounded, whatever bytes arrive. A GUI may send
//! a path in Shift-JIS or a line without an end; neither may end the engine or fill its memory.

use std::io::{BufRead, Read};

/// The longest command line kept; the rest of a longer line is read and dropped.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// How many characters of a bad command an error line quotes.
pub const QUOTED_CHARS: usize = 200;

/// A line that cannot be handled as a command.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// Bytes that are not UTF-8 (the start of the line, what could be read of it).
    #[error("the line is not UTF-8 text: {0}")]
    NotUtf8(String),
    /// A line longer than [`MAX_LINE_BYTES`].
    #[error("the line is longer than {MAX_LINE_BYTES} bytes: {0}")]
    TooLong(String),
}

/// At most [`QUOTED_CHARS`] characters of `text`, for an error line; `…` marks a cut.
pub fn quoted(text: &str) -> String {
    let mut chars = text.chars();
    let mut out: String = chars.by_ref().take(QUOTED_CHARS).collect();
    if chars.next().is_some() {
        out.push('…');
    }
    out
}

/// Calls `each` with every line of `input` (without its line end) or with why it is no
/// command, until `each` returns `false` or the input ends or fails.
///
/// ```
/// use tsubame_protocol::lines::{LineError, read_lines};
/// let input: &[u8] = b"usi\n\xff\xfe path\nisready\n";
/// let mut seen = Vec::new();
/// read_lines(input, |line| {
///     seen.push(line.map(str::to_string));
///     true
/// });
/// assert_eq!(seen[0], Ok("usi".to_string()));
/// assert!(matches!(seen[1], Err(LineError::NotUtf8(_))));
/// assert_eq!(seen[2], Ok("isready".to_string()));
/// ```
pub fn read_lines(mut input: impl BufRead, mut each: impl FnMut(Result<&str, LineError>) -> bool) {
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        let read = match input
            .by_ref()
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buffer)
        {
            Ok(0) | Err(_) => return,
            Ok(read) => read,
        };
        let complete = buffer.last() == Some(&b'\n');
        if !complete && read > MAX_LINE_BYTES {
            // Drop the rest of the line, however long, a piece at a time.
            let start = quoted(&String::from_utf8_lossy(&buffer));
            loop {
                buffer.clear();
                match input
                    .by_ref()
                    .take(MAX_LINE_BYTES as u64)
                    .read_until(b'\n', &mut buffer)
                {
                    Ok(0) | Err(_) => break,
                    Ok(_) if buffer.last() == Some(&b'\n') => break,
                    Ok(_) => {}
                }
            }
            if !each(Err(LineError::TooLong(start))) {
                return;
            }
            continue;
        }
        let line = buffer.strip_suffix(b"\n").unwrap_or(&buffer);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let result = match std::str::from_utf8(line) {
            Ok(text) => Ok(text),
            Err(_) => Err(LineError::NotUtf8(quoted(&String::from_utf8_lossy(line)))),
        };
        if !each(result) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<Result<String, LineError>> {
        let mut seen = Vec::new();
        read_lines(input, |line| {
            seen.push(line.map(str::to_string));
            true
        });
        seen
    }

    #[test]
    fn a_long_line_is_refused_whole_and_the_next_one_read() {
        let mut input = vec![b'x'; 3 * MAX_LINE_BYTES];
        input.extend_from_slice(b"\nisready\n");
        let seen = lines(&input);
        assert_eq!(
            seen.len(),
            2,
            "{:?}",
            seen.iter().map(|l| l.is_ok()).collect::<Vec<_>>()
        );
        match &seen[0] {
            Err(LineError::TooLong(start)) => assert!(start.chars().count() <= QUOTED_CHARS + 1),
            other => panic!("{other:?}"),
        }
        assert_eq!(seen[1], Ok("isready".to_string()));
    }

    #[test]
    fn line_ends_and_a_last_line_without_one() {
        assert_eq!(
            lines(b"a\r\nb\nc"),
            [
                Ok("a".to_string()),
                Ok("b".to_string()),
                Ok("c".to_string())
            ]
        );
        let exactly = vec![b'y'; MAX_LINE_BYTES];
        assert_eq!(lines(&exactly), [Ok("y".repeat(MAX_LINE_BYTES))]);
    }

    #[test]
    fn quotes_are_cut() {
        assert_eq!(quoted("short"), "short");
        let long = "z".repeat(1000);
        assert_eq!(quoted(&long).chars().count(), QUOTED_CHARS + 1);
    }
}
