//! The search's margins, thresholds and reductions in one place, so that tuning can move them
//! and an engine option can set them without a rebuild.
//!
//! Each parameter has a name, its default and the range it may take. An engine takes a
//! changed set as text, `name=value` pairs separated by spaces or commas, through its
//! `SearchParams` option:
//!
//! ```
//! use tsubame_engine::search_params::SearchParams;
//!
//! let params: SearchParams = "futility_margin=140, lmr_divisor=200".parse().unwrap();
//! assert_eq!(params.futility_margin, 140);
//! assert_eq!(params.lmr_divisor, 200);
//! assert_eq!(params.null_move_depth, SearchParams::default().null_move_depth);
//! // What it prints reads back as the same set.
//! assert_eq!(params.to_string().parse::<SearchParams>().unwrap(), params);
//!
//! let error = "futility_margin=9999".parse::<SearchParams>().unwrap_err();
//! assert_eq!(error.to_string(), "futility_margin=9999 is out of its range 0..=600");
//! ```

use std::fmt;
use std::str::FromStr;
use tsubame_rules::Variant;

/// A set of search parameters; [`SearchParams::for_variant`] is what the engine plays each game
/// with, [`SearchParams::default`] the set behind it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchParams {
    /// Deepest remaining depth at which a position whose static evaluation clears beta by the
    /// margin is cut without a search (reverse futility).
    pub reverse_futility_depth: i32,
    /// Reverse futility's margin per ply of remaining depth.
    pub reverse_futility_margin: i32,
    /// Least remaining depth for a null-move search.
    pub null_move_depth: i32,
    /// The null-move search's reduction, before the part that grows with depth.
    pub null_move_reduction: i32,
    /// The null-move reduction grows by one ply per this many plies of remaining depth.
    pub null_move_depth_divisor: i32,
    /// Least remaining depth at which a node without a table move is searched a ply shallower
    /// (internal iterative reduction).
    pub iir_depth: i32,
    /// Deepest remaining depth at which quiet moves late in the order are not searched
    /// (late-move pruning).
    pub late_move_depth: i32,
    /// Late-move pruning starts at move `base + scale * depth²`: the base...
    pub late_move_base: i32,
    /// ...and the scale, when the line is not improving...
    pub late_move_scale: i32,
    /// ...the base when it is improving...
    pub late_move_improving_base: i32,
    /// ...and the scale when it is improving.
    pub late_move_improving_scale: i32,
    /// Deepest remaining depth at which a quiet move that cannot lift the static evaluation to
    /// alpha is not searched (futility pruning).
    pub futility_depth: i32,
    /// Futility's margin per ply of remaining depth.
    pub futility_margin: i32,
    /// Futility's margin at any depth.
    pub futility_base: i32,
    /// Late-move reduction in plies is `base / 100 + ln(depth) * ln(move number) * 100 /
    /// divisor`: the base, in hundredths of a ply...
    pub lmr_base: i32,
    /// ...and the divisor, in hundredths.
    pub lmr_divisor: i32,
    /// Least remaining depth for a late-move reduction.
    pub lmr_depth: i32,
    /// Moves before this one in the order are never reduced.
    pub lmr_first_move: i32,
    /// Least remaining depth at which the table's move is tested for being the only good move
    /// (singular extension). The default, 128, is deeper than any search goes, so the
    /// extension is off unless set: at 7 it scored no better against Fairy-Stockfish at 10+0.1.
    pub singular_depth: i32,
    /// The others must stay this far per ply of depth below the table's score for the table's
    /// move to count as the only good one.
    pub singular_margin: i32,
    /// Deepest remaining depth at which a move that loses the exchange by more than its
    /// margin is not searched unless it gives check (exchange pruning); 0 turns it off. Tori
    /// and Wa play with 3 (in self-play, Tori +42 +/- 34 over 400 games at 10+0.1, Wa with
    /// drops +56 +/- 34 over 400 at 5+0.05); Tenjiku with 0 (level there, 0 +/- 47 over 200
    /// games at 20,000 nodes a move).
    pub exchange_prune_depth: i32,
    /// A quiet move's exchange margin per square of the remaining depth...
    pub exchange_quiet_margin: i32,
    /// ...and a capture's per ply of it.
    pub exchange_capture_margin: i32,
    /// Deepest remaining depth at which a quiet move whose move and continuation histories
    /// sum below minus the margin times the depth is not searched unless it gives check
    /// (history pruning); 0 turns it off.
    pub history_prune_depth: i32,
    /// History pruning's margin per ply of remaining depth, in history units (each of the
    /// three tables within ±16,384).
    pub history_prune_margin: i32,
    /// Quiescence leaves out a capture whose gain leaves the score this far below alpha (delta
    /// pruning).
    pub delta_margin: i32,
    /// Half width of the first aspiration window around the last iteration's score.
    pub aspiration_window: i32,
    /// Least depth searched with an aspiration window.
    pub aspiration_depth: i32,
    /// How far the correction history moves a static evaluation: by the sum of its entries
    /// (each within ±1,024) times this over 65,536. The default, 0, turns the correction off:
    /// at 3,072 it scored no better in Tori self-play at 20,000 nodes a move, where its tables
    /// start empty at every search.
    pub correction_weight: i32,
    /// The share, in per cent, of the move, continuation and correction histories that a
    /// search of a game hands on to the next search of the same game (through the request's
    /// [`crate::search::SearchMemory`]); 0 starts every search with empty tables. Tori keeps
    /// them whole (100: +31 and +45 Elo over two 400-game self-play matches at 20,000
    /// nodes, and +31 +/- 34 over 400 at 10+0.1); Wa and Tenjiku start afresh (in Wa it
    /// gained at 10,000 nodes a move but measured -16 +/- 33 at 5+0.05; Tenjiku is not
    /// measured).
    pub history_carry: i32,
    /// Under a clock, a move's share of the main time left is one part in this many...
    /// Tori plays with SPSA round 39's seven time-use factors (51 here; in self-play at
    /// 10+0.1, +41 +/- 41 over 281 games against the defaults, +40 +/- 31 with an earlier
    /// 200); Wa and Tenjiku with the defaults.
    pub time_slice_divisor: i32,
    /// ...plus this many per cent of the increment or byo-yomi period.
    pub time_increment_percent: i32,
    /// A move may run to this many tenths of its share before it is stopped (still within
    /// what the clock allows).
    pub time_hard_tenths: i32,
    /// An unsettled search's share grows by up to this many hundredths for best moves that
    /// keep changing...
    pub time_unsettled_cap: i32,
    /// ...and by its score's fall over the last iteration, in per cent of this many
    /// centipawns (between -25 % and +50 %).
    pub time_fall_scale: i32,
    /// A search that kept its best move for two or three iterations stops deepening at this
    /// many per cent of its share...
    pub time_settled_short: i32,
    /// ...and one that kept it for four or more at this many.
    pub time_settled_long: i32,
}

/// One parameter: its name, default, range and the field it reads and writes.
pub struct Param {
    /// The name in the option text.
    pub name: &'static str,
    /// The least value it takes.
    pub min: i32,
    /// The greatest value it takes.
    pub max: i32,
    /// Reads the field.
    pub value: fn(&SearchParams) -> i32,
    /// Writes the field.
    pub field: fn(&mut SearchParams) -> &mut i32,
}

macro_rules! params {
    ($($name:ident: $default:expr, $min:expr, $max:expr;)*) => {
        impl SearchParams {
            /// The set the engine plays with where a game has none of its own.
            pub const DEFAULT: SearchParams = SearchParams { $($name: $default,)* };
        }

        impl Default for SearchParams {
            fn default() -> SearchParams {
                SearchParams::DEFAULT
            }
        }

        /// Every parameter, in the order of the struct's fields.
        pub const PARAMS: &[Param] = &[
            $(Param {
                name: stringify!($name),
                min: $min,
                max: $max,
                value: |p| p.$name,
                field: |p| &mut p.$name,
            },)*
        ];
    };
}

params! {
    reverse_futility_depth: 4, 0, 12;
    reverse_futility_margin: 110, 10, 400;
    null_move_depth: 3, 1, 12;
    null_move_reduction: 3, 1, 8;
    null_move_depth_divisor: 5, 1, 16;
    iir_depth: 4, 1, 64;
    late_move_depth: 3, 0, 8;
    late_move_base: 3, 1, 32;
    late_move_scale: 2, 0, 16;
    late_move_improving_base: 4, 1, 32;
    late_move_improving_scale: 3, 0, 16;
    futility_depth: 2, 0, 8;
    futility_margin: 120, 0, 600;
    futility_base: 60, 0, 600;
    lmr_base: 60, -200, 300;
    lmr_divisor: 220, 50, 800;
    lmr_depth: 3, 1, 12;
    lmr_first_move: 3, 1, 32;
    singular_depth: 128, 1, 128;
    singular_margin: 4, 0, 100;
    exchange_prune_depth: 0, 0, 12;
    exchange_quiet_margin: 30, 0, 1000;
    exchange_capture_margin: 100, 0, 2000;
    history_prune_depth: 0, 0, 12;
    history_prune_margin: 4000, 0, 49152;
    delta_margin: 250, 0, 2000;
    aspiration_window: 30, 5, 400;
    aspiration_depth: 5, 1, 64;
    correction_weight: 0, 0, 16384;
    history_carry: 0, 0, 100;
    time_slice_divisor: 30, 5, 120;
    time_increment_percent: 80, 0, 100;
    time_hard_tenths: 40, 10, 100;
    time_unsettled_cap: 150, 0, 400;
    time_fall_scale: 150, 25, 1000;
    time_settled_short: 85, 20, 100;
    time_settled_long: 65, 20, 100;
}

impl SearchParams {
    /// What Tori is played with: the defaults with the margins its SPSA runs moved (six
    /// margins, tuned again with the gen 12 network in round 40, then the late-move pruning
    /// counts and the aspiration window; see
    /// docs/engine.md, "Search parameters tuned by SPSA"), exchange pruning in the last three
    /// plies (docs/engine.md, "Search changes tried"), the histories kept whole from move
    /// to move, and the time-use factors of SPSA round 39 (a smaller share of the clock for a
    /// quiet move, more when the score falls).
    pub const TORI: SearchParams = SearchParams {
        reverse_futility_margin: 189,
        futility_margin: 118,
        futility_base: 66,
        lmr_base: 85,
        lmr_divisor: 202,
        delta_margin: 783,
        late_move_base: 5,
        late_move_scale: 0,
        aspiration_window: 69,
        exchange_prune_depth: 3,
        history_carry: 100,
        time_slice_divisor: 51,
        time_increment_percent: 76,
        time_hard_tenths: 38,
        time_unsettled_cap: 141,
        time_fall_scale: 191,
        time_settled_short: 83,
        time_settled_long: 60,
        ..SearchParams::DEFAULT
    };

    /// What Wa is played with, with drops or without: the defaults with exchange pruning in the
    /// last three plies, measured for both rule sets (docs/engine.md, "Search changes tried");
    /// Wa's margins were never tuned.
    pub const WA: SearchParams = SearchParams {
        exchange_prune_depth: 3,
        ..SearchParams::DEFAULT
    };

    /// The set a game is played with when nothing is set: Tori's tuned set, Wa's set, and for
    /// Tenjiku, whose search was not measured apart, [`SearchParams::DEFAULT`].
    ///
    /// ```
    /// use tsubame_engine::search_params::SearchParams;
    /// use tsubame_rules::Variant;
    ///
    /// assert_eq!(SearchParams::for_variant(Variant::Tori), &SearchParams::TORI);
    /// assert_eq!(SearchParams::for_variant(Variant::Wa), &SearchParams::WA);
    /// assert_eq!(SearchParams::for_variant(Variant::Tenjiku), &SearchParams::DEFAULT);
    /// // The engine's SearchParams option is read over the game's own set.
    /// let tori = SearchParams::TORI.with_pairs("lmr_divisor=200").unwrap();
    /// assert_eq!((tori.lmr_divisor, tori.delta_margin), (200, 783));
    /// ```
    pub fn for_variant(variant: Variant) -> &'static SearchParams {
        match variant {
            Variant::Tori => &SearchParams::TORI,
            Variant::Wa => &SearchParams::WA,
            Variant::Tenjiku => &SearchParams::DEFAULT,
        }
    }

    /// This set with the `name=value` pairs of `text` (separated by spaces or commas) set
    /// over it; an empty text changes nothing.
    pub fn with_pairs(&self, text: &str) -> Result<SearchParams, SearchParamsError> {
        let mut params = self.clone();
        for pair in text
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|pair| !pair.is_empty())
        {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| SearchParamsError::NotAPair(pair.to_string()))?;
            let number = value.parse().map_err(|_| SearchParamsError::NotANumber {
                name: name.to_string(),
                value: value.to_string(),
            })?;
            params.set(name, number)?;
        }
        Ok(params)
    }

    /// The value of the parameter called `name`.
    pub fn get(&self, name: &str) -> Option<i32> {
        PARAMS
            .iter()
            .find(|p| p.name == name)
            .map(|p| (p.value)(self))
    }

    /// Sets the parameter called `name`, refusing an unknown name or a value out of its range.
    pub fn set(&mut self, name: &str, value: i32) -> Result<(), SearchParamsError> {
        let param = PARAMS
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| SearchParamsError::UnknownName(name.to_string()))?;
        if !(param.min..=param.max).contains(&value) {
            return Err(SearchParamsError::OutOfRange {
                name: param.name,
                value,
                min: param.min,
                max: param.max,
            });
        }
        *(param.field)(self) = value;
        Ok(())
    }
}

/// Why a text is no set of search parameters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SearchParamsError {
    /// A pair without `=`.
    #[error("{0:?} is no name=value pair")]
    NotAPair(String),
    /// No parameter has this name.
    #[error("no search parameter is called {0:?}")]
    UnknownName(String),
    /// The value is no integer.
    #[error("{name}={value:?}: the value is no integer")]
    NotANumber {
        /// The parameter.
        name: String,
        /// The value as written.
        value: String,
    },
    /// The value is out of the parameter's range.
    #[error("{name}={value} is out of its range {min}..={max}")]
    OutOfRange {
        /// The parameter.
        name: &'static str,
        /// The value given.
        value: i32,
        /// The least value allowed.
        min: i32,
        /// The greatest value allowed.
        max: i32,
    },
}

/// Reads `name=value` pairs separated by spaces or commas over [`SearchParams::DEFAULT`];
/// parameters not named keep their defaults, and an empty text is the default set.
impl FromStr for SearchParams {
    type Err = SearchParamsError;

    fn from_str(text: &str) -> Result<SearchParams, SearchParamsError> {
        SearchParams::DEFAULT.with_pairs(text)
    }
}

/// Every parameter as `name=value`, separated by spaces.
impl fmt::Display for SearchParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, param) in PARAMS.iter().enumerate() {
            if index > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{}={}", param.name, (param.value)(self))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_is_inside_its_range_and_every_name_is_distinct() {
        let defaults = SearchParams::default();
        for (index, param) in PARAMS.iter().enumerate() {
            let value = defaults.get(param.name);
            assert!(
                value.is_some_and(|v| (param.min..=param.max).contains(&v)),
                "{}",
                param.name
            );
            assert!(
                PARAMS[..index].iter().all(|p| p.name != param.name),
                "{} twice",
                param.name
            );
        }
    }

    #[test]
    fn each_parameter_is_its_own_field() {
        // Setting one parameter to its maximum moves that parameter alone.
        for param in PARAMS {
            let mut params = SearchParams::default();
            let value = if param.max == params.get(param.name).unwrap_or(0) {
                param.min
            } else {
                param.max
            };
            params
                .set(param.name, value)
                .unwrap_or_else(|e| panic!("{e}"));
            for other in PARAMS {
                let expected = if other.name == param.name {
                    value
                } else {
                    SearchParams::default().get(other.name).unwrap_or(i32::MIN)
                };
                assert_eq!(params.get(other.name), Some(expected), "{}", other.name);
            }
        }
    }

    #[test]
    fn bad_text_is_refused_by_name() {
        let refused = |text: &str| match text.parse::<SearchParams>() {
            Ok(_) => panic!("{text} was accepted"),
            Err(e) => e.to_string(),
        };
        assert_eq!(refused("futility"), "\"futility\" is no name=value pair");
        assert_eq!(
            refused("depth=3"),
            "no search parameter is called \"depth\""
        );
        assert_eq!(
            refused("lmr_base=1.5"),
            "lmr_base=\"1.5\": the value is no integer"
        );
        assert_eq!(
            refused("iir_depth=0"),
            "iir_depth=0 is out of its range 1..=64"
        );
        assert_eq!("".parse::<SearchParams>(), Ok(SearchParams::default()));
        assert_eq!(
            " ,iir_depth=6,, "
                .parse::<SearchParams>()
                .map(|p| p.iir_depth),
            Ok(6)
        );
    }
}
