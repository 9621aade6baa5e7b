//! Move text of the chess-style protocols (UCI as Fairy-Stockfish speaks it, XBoard): files are
//! letters from sente's left (`a` = the highest file number), ranks are numbers from sente's side
//! (`1` = the last rank letter), drops are `S@c4` with an upper-case letter for both sides.
//! XBoard writes a move that captures on its way (Tenjiku's lion moves) as two legs, `e4e5,e5e6`.

/// Converts USI move text (`3e3d`, `3b3a+`, `S*4d`) to chess-style text (`e3e4`, `e6e7+`,
/// `S@d4`) on a board of `width` files and `height` ranks. Returns `None` for text that is not
/// a USI move on that board.
///
/// ```
/// use tsubame_protocol::coords::{usi_to_chess, chess_to_usi};
/// assert_eq!(usi_to_chess("3e3d", 7, 7).as_deref(), Some("e3e4"));
/// assert_eq!(usi_to_chess("S*4d", 7, 7).as_deref(), Some("S@d4"));
/// assert_eq!(chess_to_usi("c6c7+", 7, 7).as_deref(), Some("5b5a+"));
/// ```
pub fn usi_to_chess(text: &str, width: u8, height: u8) -> Option<String> {
    if let Some((piece, square)) = text.split_once('*') {
        if piece.is_empty() {
            return None;
        }
        return Some(format!(
            "{piece}@{}",
            usi_square_to_chess(square, width, height)?
        ));
    }
    let (from, rest) = split_usi_square(text)?;
    let (to, rest) = split_usi_square(rest)?;
    if !(rest.is_empty() || rest == "+") {
        return None;
    }
    Some(format!(
        "{}{}{rest}",
        usi_square_to_chess(from, width, height)?,
        usi_square_to_chess(to, width, height)?
    ))
}

/// Converts chess-style move text to USI move text; see [`usi_to_chess`].
pub fn chess_to_usi(text: &str, width: u8, height: u8) -> Option<String> {
    if let Some((piece, square)) = text.split_once('@') {
        if piece.is_empty() {
            return None;
        }
        return Some(format!(
            "{}*{}",
            piece.to_ascii_uppercase(),
            chess_square_to_usi(square, width, height)?
        ));
    }
    let (from, rest) = split_chess_square(text)?;
    let (to, rest) = split_chess_square(rest)?;
    if !(rest.is_empty() || rest == "+") {
        return None;
    }
    Some(format!(
        "{}{}{rest}",
        chess_square_to_usi(from, width, height)?,
        chess_square_to_usi(to, width, height)?
    ))
}

/// Converts USI move text to XBoard's text, which writes a move that captures on its way (a
/// Tenjiku lion's double move or igui, USI `6f5e6d` and `6f5e6f`) as two legs, from the start
/// to the square of the first capture and on from there: `k11l12,l12k13`. A pass (`6f6f`) is
/// written as a step out to `pass_via`, an empty neighbour, and back (`k11k12,k12k11`), the form
/// XBoard produces when the user moves a lion out and back; without such a square it stays
/// `k11k11`. Anything else is as [`usi_to_chess`].
///
/// ```
/// use tsubame_protocol::coords::usi_to_xboard;
/// assert_eq!(usi_to_xboard("6f5e6d", 16, 16, None).as_deref(), Some("k11l12,l12k13"));
/// assert_eq!(usi_to_xboard("6f5e6f+", 16, 16, None).as_deref(), Some("k11l12,l12k11+"));
/// assert_eq!(usi_to_xboard("6f6f", 16, 16, Some("6e")).as_deref(), Some("k11k12,k12k11"));
/// assert_eq!(usi_to_xboard("9l9k", 16, 16, None).as_deref(), Some("h5h6"));
/// ```
pub fn usi_to_xboard(text: &str, width: u8, height: u8, pass_via: Option<&str>) -> Option<String> {
    if text.contains('*') {
        return usi_to_chess(text, width, height);
    }
    let (from, rest) = split_usi_square(text)?;
    let (second, rest) = split_usi_square(rest)?;
    let (third, suffix) = match split_usi_square(rest) {
        Some((third, suffix)) => (Some(third), suffix),
        None => (None, rest),
    };
    if !(suffix.is_empty() || suffix == "+") {
        return None;
    }
    let from_chess = usi_square_to_chess(from, width, height)?;
    let second_chess = usi_square_to_chess(second, width, height)?;
    match third {
        Some(to) => {
            let to_chess = usi_square_to_chess(to, width, height)?;
            Some(format!(
                "{from_chess}{second_chess},{second_chess}{to_chess}{suffix}"
            ))
        }
        None if from == second => {
            match pass_via.and_then(|via| usi_square_to_chess(via, width, height)) {
                Some(via) => Some(format!("{from_chess}{via},{via}{from_chess}{suffix}")),
                None => Some(format!("{from_chess}{from_chess}{suffix}")),
            }
        }
        None => Some(format!("{from_chess}{second_chess}{suffix}")),
    }
}

/// Converts XBoard move text, possibly in two legs (`k11l12,l12k13`), to USI move text
/// (`6f5e6d`); the second leg must start where the first ends. A trailing `=` (a declined
/// promotion) is dropped: a move without `+` does not promote. See [`usi_to_xboard`].
///
/// ```
/// use tsubame_protocol::coords::xboard_to_usi;
/// assert_eq!(xboard_to_usi("k11l12,l12k13", 16, 16).as_deref(), Some("6f5e6d"));
/// assert_eq!(xboard_to_usi("k11l12,l12k11=", 16, 16).as_deref(), Some("6f5e6f"));
/// assert_eq!(xboard_to_usi("k11l12,l13k13", 16, 16), None);
/// ```
pub fn xboard_to_usi(text: &str, width: u8, height: u8) -> Option<String> {
    let text = text.strip_suffix('=').unwrap_or(text);
    let Some((first, second)) = text.split_once(',') else {
        return chess_to_usi(text, width, height);
    };
    let (from, rest) = split_chess_square(first)?;
    let (middle, rest) = split_chess_square(rest)?;
    if !rest.is_empty() {
        return None;
    }
    let (again, rest) = split_chess_square(second)?;
    let (to, suffix) = split_chess_square(rest)?;
    if again != middle || !(suffix.is_empty() || suffix == "+") {
        return None;
    }
    Some(format!(
        "{}{}{}{suffix}",
        chess_square_to_usi(from, width, height)?,
        chess_square_to_usi(middle, width, height)?,
        chess_square_to_usi(to, width, height)?
    ))
}

/// Converts a USI square (`3e`) to a chess-style square (`e3`); `None` off the board.
pub fn usi_square_to_chess_square(square: &str, width: u8, height: u8) -> Option<String> {
    usi_square_to_chess(square, width, height)
}

/// Converts a chess-style square (`e3`) to a USI square (`3e`); `None` off the board.
pub fn chess_square_to_usi_square(square: &str, width: u8, height: u8) -> Option<String> {
    chess_square_to_usi(square, width, height)
}

fn split_usi_square(text: &str) -> Option<(&str, &str)> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 2 || text.len() <= digits {
        return None;
    }
    text.is_char_boundary(digits + 1)
        .then(|| text.split_at(digits + 1))
}

fn split_chess_square(text: &str) -> Option<(&str, &str)> {
    let first = *text.as_bytes().first()?;
    if !first.is_ascii_lowercase() {
        return None;
    }
    let digits = text.bytes().skip(1).take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 2 {
        return None;
    }
    Some(text.split_at(1 + digits))
}

fn usi_square_to_chess(square: &str, width: u8, height: u8) -> Option<String> {
    let digits = square.bytes().take_while(u8::is_ascii_digit).count();
    let file: u8 = square.get(..digits)?.parse().ok()?;
    let rank = *square.as_bytes().get(digits)?;
    if square.len() != digits + 1 || file == 0 || file > width || !rank.is_ascii_lowercase() {
        return None;
    }
    let rank_index = rank - b'a';
    if rank_index >= height {
        return None;
    }
    Some(format!(
        "{}{}",
        (b'a' + (width - file)) as char,
        height - rank_index
    ))
}

fn chess_square_to_usi(square: &str, width: u8, height: u8) -> Option<String> {
    let letter = *square.as_bytes().first()?;
    let rank: u8 = square.get(1..)?.parse().ok()?;
    if !letter.is_ascii_lowercase() || letter - b'a' >= width || rank == 0 || rank > height {
        return None;
    }
    let file = width - (letter - b'a');
    Some(format!("{file}{}", (b'a' + (height - rank)) as char))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_square_round_trips_on_both_boards() {
        for (w, h) in [(7u8, 7u8), (11, 11), (16, 16)] {
            for file in 1..=w {
                for rank in 0..h {
                    let usi = format!("{file}{}", (b'a' + rank) as char);
                    let chess = usi_square_to_chess(&usi, w, h).unwrap();
                    assert_eq!(chess_square_to_usi(&chess, w, h), Some(usi));
                }
            }
        }
    }

    #[test]
    fn known_translations() {
        // Tori: sente's swallow 3e takes 3c in USI; Fairy-Stockfish writes e3e5.
        assert_eq!(usi_to_chess("3e3c", 7, 7).as_deref(), Some("e3e5"));
        assert_eq!(chess_to_usi("S@a2", 7, 7).as_deref(), Some("S*7f"));
        // Wa, HaChu's example: h3g4 is 4i5h.
        assert_eq!(chess_to_usi("h3g4", 11, 11).as_deref(), Some("4i5h"));
        assert_eq!(usi_to_chess("11a1k", 11, 11).as_deref(), Some("a11k1"));
        for bad in [
            "", "e3", "e3e9", "z1a1", "e3e4=", "S@", "@a1", "e33e4", "é3e4",
        ] {
            assert_eq!(chess_to_usi(bad, 7, 7), None, "{bad}");
        }
        for bad in ["", "3e", "8a1a", "3e3d=", "S*", "3E3d", "3é3d"] {
            assert_eq!(usi_to_chess(bad, 7, 7), None, "{bad}");
        }
    }

    #[test]
    fn two_legs_and_their_mistakes() {
        // Sente's lion on 9o (h2) takes on 9n (h3) and goes on to 8m (i4).
        assert_eq!(
            xboard_to_usi("h2h3,h3i4", 16, 16).as_deref(),
            Some("9o9n8m")
        );
        assert_eq!(
            usi_to_xboard("9o9n8m", 16, 16, None).as_deref(),
            Some("h2h3,h3i4")
        );
        assert_eq!(
            usi_to_xboard("16a1p", 16, 16, None).as_deref(),
            Some("a16p1")
        );
        assert_eq!(xboard_to_usi("a16p1", 16, 16).as_deref(), Some("16a1p"));
        assert_eq!(xboard_to_usi("h2h2", 16, 16).as_deref(), Some("9o9o"));
        assert_eq!(usi_to_xboard("9o9o", 16, 16, None).as_deref(), Some("h2h2"));
        for bad in [
            "h2h3,",
            ",h3i4",
            "h2h3,h4i4",
            "h2h3,h3i4,i4i5",
            "h2h3,h3q4",
            "h2h3,h3i17",
            "h2,h2h3",
            "h2h3h4,h4h5",
            "h2h3,h3i4x",
            "h2h3,h3i4=+",
            "h2h3=,h3i4",
            "@@@@",
        ] {
            assert_eq!(xboard_to_usi(bad, 16, 16), None, "{bad}");
        }
        for bad in ["9o9n8m7l", "9o9n8m=", "9o9n17m", "9o"] {
            assert_eq!(usi_to_xboard(bad, 16, 16, None), None, "{bad}");
        }
    }
}
