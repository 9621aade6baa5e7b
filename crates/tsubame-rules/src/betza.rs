//! Piece moves written in Betza's notation, turned into board offsets.
//!
//! Supported: the atoms `W F D A N H G C Z` and the compounds `K` (`WF`), `R` (`WW`), `B` (`FF`),
//! `Q` (`RB`); a doubled atom or a trailing number makes a rider (`WW`, `W2`, `B2`); lower-case
//! direction letters `f b l r s v` before an atom, where for diagonal and oblique atoms a pair of a
//! vertical and a horizontal letter (`fr`, `bl`) names one direction, and a doubled letter (`ff`)
//! names the directions whose main component points that way.

use thiserror::Error;

/// One way of moving: a vector relative to the moving side, jumping or sliding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    /// Steps to the mover's left (negative: right).
    pub left: i8,
    /// Steps toward the opponent (negative: back).
    pub forward: i8,
    /// How the vector is used.
    pub reach: Reach,
}

/// Whether a vector is leapt once or slid along.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reach {
    /// One leap to the end of the vector, over anything in between.
    Leap,
    /// Repeated steps along the vector over empty squares, at most `limit` (0: no limit).
    Slide {
        /// The longest slide in steps, 0 for unlimited.
        limit: u8,
    },
}

/// What is wrong with a Betza string.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BetzaError {
    /// A character that is no atom, modifier or number.
    #[error("unknown betza character {0:?}")]
    UnknownCharacter(char),
    /// Direction letters with no atom after them.
    #[error("betza modifiers {0:?} are not followed by an atom")]
    DanglingModifiers(String),
    /// A modifier that selects no direction of its atom.
    #[error("betza modifier {modifiers:?} selects no direction of atom {atom}")]
    EmptySelection {
        /// The direction letters.
        modifiers: String,
        /// The atom letter.
        atom: char,
    },
}

/// An atom letter with its base vector.
type BaseAtom = (char, (i8, i8));

fn atom_vector(letter: char) -> Option<(i8, i8)> {
    Some(match letter {
        'W' => (1, 0),
        'F' => (1, 1),
        'D' => (2, 0),
        'A' => (2, 2),
        'N' => (2, 1),
        'H' => (3, 0),
        'G' => (3, 3),
        'C' => (3, 1),
        'Z' => (3, 2),
        _ => return None,
    })
}

/// All images of a base vector under the board's symmetries, without duplicates.
fn images(a: i8, b: i8) -> Vec<(i8, i8)> {
    let mut out = Vec::with_capacity(8);
    for (x, y) in [(a, b), (b, a)] {
        for sx in [1, -1] {
            for sy in [1, -1] {
                let v = (x * sx, y * sy);
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
    }
    out
}

/// Whether direction `(left, forward)` is selected by one modifier group.
fn group_selects(group: &str, left: i8, forward: i8, diagonal_or_oblique: bool) -> bool {
    let mut chars = group.chars();
    let first = chars.next();
    let second = chars.next();
    let single = |c: char| match c {
        'f' => forward > 0,
        'b' => forward < 0,
        'l' => left > 0,
        'r' => left < 0,
        's' => left != 0 && (diagonal_or_oblique || forward == 0),
        'v' => forward != 0 && (diagonal_or_oblique || left == 0),
        _ => false,
    };
    match (first, second) {
        (Some(c), None) => single(c),
        (Some(c), Some(d)) if c == d => {
            single(c)
                && match c {
                    'f' | 'b' | 'v' => forward.abs() > left.abs(),
                    _ => left.abs() > forward.abs(),
                }
        }
        (Some(c), Some('s')) => single(c) && left.abs() > forward.abs(),
        (Some(c), Some('h')) => single(c) && forward.abs() > left.abs(),
        (Some(c), Some(d)) => single(c) && single(d),
        _ => false,
    }
}

/// Splits direction letters into groups: for a diagonal or oblique atom a vertical letter and a
/// horizontal one next to each other form one group.
fn modifier_groups(modifiers: &str, pairs: bool) -> Vec<String> {
    let chars: Vec<char> = modifiers.chars().collect();
    let mut groups = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if pairs && i + 1 < chars.len() {
            let d = chars[i + 1];
            let vertical = |x: char| matches!(x, 'f' | 'b');
            let horizontal = |x: char| matches!(x, 'l' | 'r');
            if (vertical(c) && horizontal(d))
                || (horizontal(c) && vertical(d))
                || c == d
                || (vertical(c) && matches!(d, 's' | 'h'))
            {
                groups.push([c, d].iter().collect());
                i += 2;
                continue;
            }
        }
        groups.push(c.to_string());
        i += 1;
    }
    groups
}

/// Parses a Betza string into atoms. Directions come out relative to the mover.
///
/// ```
/// use tsubame_rules::betza::{parse, Reach};
/// // A swallow: one step forward.
/// let atoms = parse("fW").unwrap();
/// assert_eq!(atoms.len(), 1);
/// assert_eq!((atoms[0].left, atoms[0].forward, atoms[0].reach), (0, 1, Reach::Leap));
/// ```
pub fn parse(text: &str) -> Result<Vec<Atom>, BetzaError> {
    let mut atoms: Vec<Atom> = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut modifiers = String::new();
    while i < chars.len() {
        let c = chars[i];
        if matches!(c, 'f' | 'b' | 'l' | 'r' | 's' | 'v' | 'h') {
            modifiers.push(c);
            i += 1;
            continue;
        }
        let (bases, mut rider): (Vec<BaseAtom>, bool) = match c {
            'K' => (vec![('W', (1, 0)), ('F', (1, 1))], false),
            'R' => (vec![('W', (1, 0))], true),
            'B' => (vec![('F', (1, 1))], true),
            'Q' => (vec![('W', (1, 0)), ('F', (1, 1))], true),
            _ => match atom_vector(c) {
                Some(v) => (vec![(c, v)], false),
                None => return Err(BetzaError::UnknownCharacter(c)),
            },
        };
        i += 1;
        if !rider && i < chars.len() && chars[i] == c && bases.len() == 1 {
            rider = true;
            i += 1;
        }
        let mut limit: u32 = 0;
        let mut has_number = false;
        while i < chars.len() && chars[i].is_ascii_digit() {
            limit = limit
                .saturating_mul(10)
                .saturating_add(chars[i].to_digit(10).unwrap_or(0));
            has_number = true;
            i += 1;
        }
        let reach = if has_number {
            if limit <= 1 {
                Reach::Leap
            } else {
                Reach::Slide {
                    limit: limit.min(255) as u8,
                }
            }
        } else if rider {
            Reach::Slide { limit: 0 }
        } else {
            Reach::Leap
        };
        for (letter, (a, b)) in bases {
            let pairs = b != 0;
            let groups = modifier_groups(&modifiers, pairs);
            let mut selected = 0;
            for (left, forward) in images(a, b) {
                let chosen = groups.is_empty()
                    || groups
                        .iter()
                        .any(|g| group_selects(g, left, forward, pairs));
                if chosen {
                    selected += 1;
                    let atom = Atom {
                        left,
                        forward,
                        reach,
                    };
                    if !atoms.contains(&atom) {
                        atoms.push(atom);
                    }
                }
            }
            if selected == 0 {
                return Err(BetzaError::EmptySelection {
                    modifiers: modifiers.clone(),
                    atom: letter,
                });
            }
        }
        modifiers.clear();
    }
    if !modifiers.is_empty() {
        return Err(BetzaError::DanglingModifiers(modifiers));
    }
    Ok(atoms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(text: &str) -> Vec<(i8, i8, Reach)> {
        let mut v: Vec<_> = parse(text)
            .unwrap()
            .into_iter()
            .map(|a| (a.left, a.forward, a.reach))
            .collect();
        v.sort_by_key(|&(l, f, r)| (l, f, matches!(r, Reach::Leap)));
        v
    }

    const LEAP: Reach = Reach::Leap;

    #[test]
    fn falcon_has_seven_steps_without_straight_back() {
        let d = dirs("FsfW");
        assert_eq!(d.len(), 7);
        assert!(!d.contains(&(0, -1, LEAP)));
        assert!(
            d.contains(&(0, 1, LEAP)) && d.contains(&(1, 0, LEAP)) && d.contains(&(-1, 0, LEAP))
        );
    }

    #[test]
    fn quails_mirror_each_other() {
        let left = dirs("fRrbBlbF");
        let slide = Reach::Slide { limit: 0 };
        assert_eq!(left, {
            let mut v = vec![(0, 1, slide), (-1, -1, slide), (1, -1, LEAP)];
            v.sort_by_key(|&(l, f, r)| (l, f, matches!(r, Reach::Leap)));
            v
        });
        let right = dirs("fRlbBrbF");
        let mirrored: Vec<_> = {
            let mut v: Vec<_> = left.iter().map(|&(l, f, r)| (-l, f, r)).collect();
            v.sort_by_key(|&(l, f, r)| (l, f, matches!(r, Reach::Leap)));
            v
        };
        assert_eq!(right, mirrored);
    }

    #[test]
    fn eagle_parts() {
        let d = dirs("fBbRWbB2");
        let slide = Reach::Slide { limit: 0 };
        let two = Reach::Slide { limit: 2 };
        for expected in [
            (1, 1, slide),
            (-1, 1, slide),
            (0, -1, slide),
            (1, -1, two),
            (-1, -1, two),
        ] {
            assert!(d.contains(&expected), "{expected:?} in {d:?}");
        }
        assert_eq!(d.iter().filter(|x| x.2 == LEAP).count(), 4);
    }

    #[test]
    fn goose_and_pheasant_jump() {
        assert_eq!(
            dirs("fAbD"),
            vec![(-2, 2, LEAP), (0, -2, LEAP), (2, 2, LEAP)]
        );
        assert_eq!(
            dirs("fDbF"),
            vec![(-1, -1, LEAP), (0, 2, LEAP), (1, -1, LEAP)]
        );
    }

    #[test]
    fn knight_directions() {
        assert_eq!(dirs("ffN"), vec![(-1, 2, LEAP), (1, 2, LEAP)]);
        assert_eq!(dirs("N").len(), 8);
        assert_eq!(dirs("fsN"), vec![(-2, 1, LEAP), (2, 1, LEAP)]);
    }

    #[test]
    fn errors_name_the_problem() {
        assert_eq!(parse("fX"), Err(BetzaError::UnknownCharacter('X')));
        assert_eq!(parse("Wf"), Err(BetzaError::DanglingModifiers("f".into())));
        assert_eq!(parse("lvW").map(|a| a.len()), Ok(3));
    }
}
