//! Hodges text taken apart, before any position is consulted.
//!
//! The reader works on bytes through `get`, never by indexing, so that no input can make it
//! panic; non-ASCII text is turned away first, which makes every byte offset a character
//! boundary.

use crate::HodgesError;
use tsubame_rules::{Geometry, Role, Square, VariantSpec};

/// What kind of move the marker after the piece announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    /// `-`
    Move,
    /// `x`
    Capture,
    /// `*`: a drop, or an exchange onto the exchanging piece's square.
    Drop,
}

/// The optional mark after the destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PromotionMark {
    /// `+`
    Promote,
    /// `=`
    Decline,
}

/// A move as written.
#[derive(Clone, Debug)]
pub(crate) struct Written<'t> {
    /// The whole text, without surrounding white space.
    pub text: &'t str,
    /// Every kind the piece abbreviation may stand for (two for a bare `Q`).
    pub roles: Vec<Role>,
    pub from: Option<Square>,
    pub marker: Marker,
    pub to: Square,
    pub mark: Option<PromotionMark>,
}

/// Error messages quote at most this many characters of the input, so that a huge input does
/// not make a huge message.
const QUOTED: usize = 40;

pub(crate) fn quoted(text: &str) -> String {
    text.chars().take(QUOTED).collect()
}

/// Reads Hodges text for a game with these pieces and this board.
pub(crate) fn parse<'t>(
    spec: &VariantSpec,
    geometry: Geometry,
    text: &'t str,
) -> Result<Written<'t>, HodgesError> {
    let text = text.trim_matches(|c: char| c.is_ascii_whitespace());
    if text.is_empty() {
        return Err(HodgesError::Empty);
    }
    if let Some(found) = text.chars().find(|c| !c.is_ascii()) {
        return Err(HodgesError::NonAscii { found });
    }
    let bytes = text.as_bytes();
    let at = |i: usize| bytes.get(i).copied();
    let rest = |i: usize| text.get(i..).unwrap_or("");

    let sign = usize::from(at(0) == Some(b'+'));
    let letters = bytes
        .iter()
        .skip(sign)
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    if letters == 0 {
        return Err(HodgesError::MissingPiece {
            found: quoted(text),
        });
    }
    let (piece_end, roles) = piece_prefix(spec, text, sign, sign + letters)?;
    let mut pos = piece_end;

    let from = if at(pos).is_some_and(|b| b.is_ascii_digit()) {
        let (square, end) = square_at(geometry, text, pos)?;
        pos = end;
        Some(square)
    } else {
        None
    };

    let marker = match at(pos) {
        Some(b'-') => Marker::Move,
        Some(b'x' | b'X') => Marker::Capture,
        Some(b'*') => Marker::Drop,
        _ => {
            return Err(HodgesError::MissingMarker {
                after: quoted(text.get(..pos).unwrap_or("")),
                found: quoted(rest(pos)),
            });
        }
    };
    if marker == Marker::Drop && from.is_some() {
        return Err(HodgesError::DropWithStartSquare {
            start: text.get(piece_end..pos).unwrap_or("").to_string(),
        });
    }
    let marker_char = at(pos).map_or('-', char::from);
    pos += 1;
    if pos >= bytes.len() {
        return Err(HodgesError::MissingDestination {
            marker: marker_char,
        });
    }
    let (to, end) = square_at(geometry, text, pos)?;
    pos = end;

    let mark = match at(pos) {
        Some(b'+') => Some(PromotionMark::Promote),
        Some(b'=') => Some(PromotionMark::Decline),
        _ => None,
    };
    if mark.is_some() {
        pos += 1;
    }
    if pos < bytes.len() {
        return Err(HodgesError::Trailing {
            rest: quoted(rest(pos)),
        });
    }
    if marker == Marker::Drop
        && let Some(mark) = mark
    {
        return Err(HodgesError::PromotionMarkOnDrop {
            mark: match mark {
                PromotionMark::Promote => '+',
                PromotionMark::Decline => '=',
            },
        });
    }
    Ok(Written {
        text,
        roles,
        from,
        marker,
        to,
        mark,
    })
}

/// Splits the piece abbreviation off the front of `text`, whose letters (after an optional
/// `+` of `sign` bytes) end at `letters_end`. Returns where the abbreviation ends.
///
/// The capture marker `x` is itself a letter, so `Swx3c` has the letter run `Swx`: when the
/// whole run is no abbreviation, the run without a final `x` is tried.
fn piece_prefix(
    spec: &VariantSpec,
    text: &str,
    sign: usize,
    letters_end: usize,
) -> Result<(usize, Vec<Role>), HodgesError> {
    let full = text.get(..letters_end).unwrap_or("");
    if let Some(roles) = lookup(spec, full) {
        return Ok((letters_end, roles));
    }
    let ends_in_x = matches!(full.as_bytes().last(), Some(b'x' | b'X'));
    if ends_in_x && letters_end - sign >= 2 {
        let shorter = text.get(..letters_end - 1).unwrap_or("");
        if let Some(roles) = lookup(spec, shorter) {
            return Ok((letters_end - 1, roles));
        }
        let square_follows = text
            .as_bytes()
            .get(letters_end)
            .is_some_and(|b| b.is_ascii_digit());
        if square_follows {
            return Err(HodgesError::UnknownPiece {
                abbreviation: quoted(shorter),
            });
        }
    }
    Err(HodgesError::UnknownPiece {
        abbreviation: quoted(full),
    })
}

/// The kinds an abbreviation stands for, matched exactly, then regardless of case (sources
/// write `SW` as well as `Sw`), then as a left/right pair without its side letter (`Q` for
/// `LQ` or `RQ`).
pub(crate) fn lookup(spec: &VariantSpec, text: &str) -> Option<Vec<Role>> {
    let matching = |test: &dyn Fn(&str) -> bool| -> Vec<Role> {
        spec.roles
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.hodges.is_empty() && test(r.hodges))
            .filter_map(|(i, _)| u8::try_from(i).ok().map(Role))
            .collect()
    };
    let exact = matching(&|h| h == text);
    if !exact.is_empty() {
        return Some(exact);
    }
    let any_case = matching(&|h| h.eq_ignore_ascii_case(text));
    if !any_case.is_empty() {
        return Some(any_case);
    }
    if text.starts_with('+') {
        return None;
    }
    let sided = |side: u8| {
        move |h: &str| {
            h.as_bytes().first() == Some(&side)
                && h.get(1..)
                    .is_some_and(|base| base.eq_ignore_ascii_case(text))
        }
    };
    let left = matching(&sided(b'L'));
    let right = matching(&sided(b'R'));
    if left.is_empty() || right.is_empty() {
        return None;
    }
    let mut both = left;
    both.extend(right);
    Some(both)
}

/// Reads a square (file number, rank letter) starting at byte `pos`; returns it and where it
/// ends. The rank letter may be upper case.
fn square_at(geometry: Geometry, text: &str, pos: usize) -> Result<(Square, usize), HodgesError> {
    let bytes = text.as_bytes();
    let bad = || {
        let run = bytes
            .iter()
            .skip(pos)
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        HodgesError::BadSquare {
            square: quoted(text.get(pos..pos + run.max(1)).unwrap_or("")),
        }
    };
    let digits = bytes
        .iter()
        .skip(pos)
        .take_while(|b| b.is_ascii_digit())
        .count();
    // Three digits reach past any board, and a leading zero is no file number.
    if digits == 0 || digits > 2 || bytes.get(pos) == Some(&b'0') {
        return Err(bad());
    }
    let file: u8 = text
        .get(pos..pos + digits)
        .and_then(|d| d.parse().ok())
        .ok_or_else(bad)?;
    let letter = bytes
        .get(pos + digits)
        .filter(|b| b.is_ascii_alphabetic())
        .ok_or_else(bad)?;
    let rank = letter.to_ascii_lowercase() - b'a';
    let square = geometry.square(file, rank).ok_or_else(bad)?;
    Ok((square, pos + digits + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsubame_rules::tori;

    fn read(text: &str) -> Result<Written<'_>, HodgesError> {
        parse(tori::spec(), tori::tables().geometry, text)
    }

    #[test]
    fn abbreviations_are_found_in_any_case_and_quails_without_side() {
        let spec = tori::spec();
        assert_eq!(lookup(spec, "Sw"), Some(vec![tori::SWALLOW]));
        assert_eq!(lookup(spec, "SW"), Some(vec![tori::SWALLOW]));
        assert_eq!(lookup(spec, "+sw"), Some(vec![tori::GOOSE]));
        assert_eq!(lookup(spec, "Ph"), Some(vec![tori::PHOENIX]));
        assert_eq!(lookup(spec, "pt"), Some(vec![tori::PHEASANT]));
        assert_eq!(
            lookup(spec, "q"),
            Some(vec![tori::LEFT_QUAIL, tori::RIGHT_QUAIL])
        );
        assert_eq!(lookup(spec, "+Q"), None);
        assert_eq!(lookup(spec, "+Cr"), None);
        assert_eq!(lookup(spec, ""), None);
    }

    #[test]
    fn the_capture_marker_is_split_off_the_letters() {
        let w = read("Swx3c").unwrap();
        assert_eq!(w.roles, vec![tori::SWALLOW]);
        assert_eq!(w.marker, Marker::Capture);
        let w = read("QX1b").unwrap();
        assert_eq!(w.roles.len(), 2);
        assert_eq!(w.marker, Marker::Capture);
        let w = read("  Cr5cx4B+ ").unwrap();
        assert_eq!(w.text, "Cr5cx4B+");
        assert!(w.from.is_some());
        assert_eq!(w.mark, Some(PromotionMark::Promote));
    }

    #[test]
    fn squares_must_lie_on_the_board() {
        for (text, square) in [
            ("Sw-8a", "8a"),
            ("Sw-4h", "4h"),
            ("Sw-0a", "0a"),
            ("Sw-04a", "04a"),
            ("Sw-123a", "123a"),
            ("Sw-4", "4"),
            ("Sw-d4", "d4"),
            ("Sw-#", "#"),
            ("Cr9c-4b", "9c"),
        ] {
            assert_eq!(
                read(text).unwrap_err(),
                HodgesError::BadSquare {
                    square: square.to_string()
                },
                "{text}"
            );
        }
    }
}
