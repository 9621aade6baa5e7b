//! The bench: fixed positions per game searched to a fixed depth with one thread and a fixed
//! table size. Its node total is a signature of the search's behaviour: a change that should not
//! alter play keeps it; a change that alters it must be justified by a match.

use crate::eval::EvalParams;
use crate::limits::Limits;
use crate::search::{SearchRequest, search_any};
use crate::tsume::{MateLimits, MateResult, solve_any};
use crate::tt::TranspositionTable;
use std::sync::Arc;
use std::time::Duration;
use tsubame_rules::{AnyPosition, Variant};

/// Tori positions: the start, openings, middle games with full hands, endings with checks.
pub const TORI_POSITIONS: [&str; 8] = [
    "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR b - 1",
    "rpckcpl/3f3/ssssSss/7/SSFSSSS/7/LPCKCPR w 2Ss 4",
    "rpckcpl/7/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR w - 1",
    "2+Spc+F1/6l/+Sc1s1ss/Sks1s2/3SSSS/L1C1sF1/3KCPR w PSprss 49",
    "1p2cpl/2Rkf2/1s1s2s/1s3s1/Kc+SSS1S/4S+sR/1P2CPF b LSScsss 41",
    "Lpc2pl/s1k1Fc1/1s3ss/2sS3/1S2sPs/1SK1CS1/1PC1F1R w RSssss 29",
    "r1ckcpl/7/sp2fss/2s3S/S3cS1/1SP+s1SS/L1CSKPR b Sfsss 23",
    "5sk/5s1/6C/7/7/7/K6 b FS 1",
];

/// Wa positions: the start, an opening, and positions with promoted pieces.
pub const WA_POSITIONS: [&str; 4] = [
    "hmlcvkwgudo/1e3s3f1/ppprpppxppp/3p3p3/11/11/11/3P3P3/PPPXPPPRPPP/1F3S3E1/ODUGWKVCLMH b - 1",
    "hmlc1k1gu1o/1es1vwx1df1/ppprppp1ppp/3p7/7p3/11/11/1P1P3P3/PXP1PPP1PPP/1F1W1S1R1E1/ODUGK1VCLMH b - 13",
    "hmlc1k1gud1/1e1v1s1wxf1/ppp1pp2pp1/6pp3/3p7/10E/11/1P1P7/P1PXrPP2P1/1FU1WSKVC2/OD1G4LM1 b RO2Ph3p 31",
    "1m1cvkwgu1d/h1l2s5/p1e1pppxpR1/3p3ph2/11/6P4/11/1X1PU2f3/3O1P5/4G2R1ED/S4KVCLM1 b 3Pfwo9p 61",
];

/// Wa positions searched without drops, the rules under which Wa plays a network of its own: a
/// middle game and a won ending, a crane king and a heavenly horse against four pieces (both from
/// a game against HaChu).
pub const WA_NO_DROPS_POSITIONS: [&str; 2] = [
    "h2ek1wg3/2m2vs3o/p1lcp1pX2f/1pp1rp4p/3p2+F4/9p1/11/1P1PGP3PP/P1P1PSP1P2/2U5LMH/OD2WK1CV2 b - 61",
    "11/10H/2K4+U3/9L1/5+h5/5k5/11/11/2P8/11/11 b - 605",
];

/// Tenjiku positions: the start, and a middle game with demons, lions and generals in contact.
pub const TENJIKU_POSITIONS: [&str; 2] = [
    "lnficsgekgscifnl/a1c!c!1txql!ot1c!c!1a/s'v'bhdw!d!q'h!d!w!dhbv's'/mvrf!e!b!r!v!q!r!b!e!f!rvm/pppppppppppppppp/4d'6d'4/16/16/16/16/4D'6D'4/PPPPPPPPPPPPPPPP/MVRF!E!B!R!Q!V!R!B!E!F!RVM/S'V'BHDW!D!H!Q'D!W!DHBV'S'/A1C!C!1TOL!QXT1C!C!1A/LNFICSGKEGSCIFNL b - 1",
    "lnficsgekgscifnl/a1c!c!1tx1l!ot1c!c!1a/s'v'bhdw!1q'h!d!w!dhbv's'/mvrf!e!b!r!v!q!r!b!e!f!rvm/ppppp1pp1ppppppp/4d'p5d'4/8p7/5D!10/16/7P8/4D'6D'4/PPPPPPP1PPPPPPPP/MVRF!E!B!R!Q!V!R!B!E!F!RVM/S'V'BHDW!1H!Q'D!W!DHBV'S'/A1C!C!1TOL!QXT1C!C!1A/LNFICSGKEGSCIFNL w - 10",
];

/// A mate problem of the solver's bench: a position whose side to move mates by checks in
/// exactly `moves` moves against the best defence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MateProblem {
    /// The game.
    pub variant: Variant,
    /// Rule options as NAME=VALUE (the game's defaults otherwise).
    pub options: &'static [&'static str],
    /// The position.
    pub sfen: &'static str,
    /// The shortest mate's length in the attacker's moves.
    pub moves: u32,
}

/// The solver's bench: one mate of each length, 1 to 15 moves in Tori, 1 to 9 in Wa (without
/// drops), 1 to 5 in Tenjiku. The Tori and Wa positions are from the engine's self-play games
/// (`data/nnue`), the Tenjiku ones sparse endings with a royal in a corner.
pub const MATES: &[MateProblem] = &[
    MateProblem {
        variant: Variant::Tori,
        options: &[],
        sfen: "2CR1k1/3S1s1/2C1s2/2pSSSR/sp2s+s1/1K+s1c2/3cl1l b FP4Sfp2s 145",
        moves: 1,
    },
    MateProblem {
        variant: Variant::Tori,
        options: &[],
        sfen: "5pl/2+Fck2/1Clspss/2s+S3/3FSSS/2S4/3KCPR b PR5Sc2s 63",
        moves: 2,
    },
    MateProblem {
        variant: Variant::Tori,
        options: &[],
        sfen: "F6/1c+S1f1l/ks1s1ps/P1S4/3S2S/2C1S2/4K1R b CPR4Scpl4s 73",
        moves: 3,
    },
    MateProblem {
        variant: Variant::Tori,
        options: &[],
        sfen: "rp3kl/3C1s1/1s1C1p1/2+fpss1/sSS4/CKS4/1P1r2l w 7Sfcs 110",
        moves: 4,
    },
    MateProblem {
        variant: Variant::Tori,
        options: &[],
        sfen: "5kl/SC1+f2p/Ss1c1S1/K3+S1s/FS3s1/6R/1c5 w PRSc2pl7s 134",
        moves: 5,
    },
    MateProblem {
        variant: Variant::Tori,
        options: &[],
        sfen: "1+S1k1pR/2sfs1p/FS1L3/P1s2ls/1PS4/3RK2/1c5 b 3C9S 127",
        moves: 6,
    },
    MateProblem {
        variant: Variant::Tori,
        options: &[],
        sfen: "rpk3+S/2c4/2sS+fc1/ss3Rl/3CS1S/3S1SK/2p1f2 w CL2p7s 98",
        moves: 7,
    },
    MateProblem {
        variant: Variant::Tori,
        options: &[],
        sfen: "k1c4/+S1s1f1l/1S1s1ps/2S4/3S2S/L1C1S2/cP2K1R b F2PR3Sc4s 59",
        moves: 8,
    },
    MateProblem {
        variant: Variant::Tori,
        options: &[],
        sfen: "L2k2+S/r2c3/1sc2FS/2s1+S1R/1S2cP+f/+s2S3/+sL1K3 w Pc2p7s 114",
        moves: 9,
    },
    MateProblem {
        variant: Variant::Tori,
        options: &[],
        sfen: "1k1+F2K/4SF1/rCsRS2/s3C2/3P2s/1s1S+s1L/1l5 b 4S2c3p4s 199",
        moves: 10,
    },
    MateProblem {
        variant: Variant::Tori,
        options: &[],
        sfen: "1P5/skC4/1r1C1+fc/Ls1Sp2/2s2S1/3SSC1/1PF1K2 b R2Spl7s 93",
        moves: 11,
    },
    MateProblem {
        variant: Variant::Tori,
        options: &[],
        sfen: "rp1+S1s1/1k5/4f1+S/+sSs+s2+S/+sCcFSSR/s2SK2/1P3P1 b 2CL2Spls 59",
        moves: 12,
    },
    MateProblem {
        variant: Variant::Tori,
        options: &[],
        sfen: "1kC+F2K/2s1SF1/r1sRS2/s3C2/3P2s/1s1S+s1L/1l5 b 4S2c3p3s 193",
        moves: 13,
    },
    MateProblem {
        variant: Variant::Tori,
        options: &[],
        sfen: "r1ckcpl/7/sp1S1ss/2SSS2/S1s1SSc/7/LK2+fp1 w FPRSc4s 56",
        moves: 14,
    },
    MateProblem {
        variant: Variant::Tori,
        options: &[],
        sfen: "k1P1CR1/5L1/sPSsP1S/1SL3s/4p+f1/1C2rf1/1K5 w 2c10s 180",
        moves: 15,
    },
    MateProblem {
        variant: Variant::Wa,
        options: &["drops=off"],
        sfen: "8k2/9u1/1+P3g1+R2+F/1+O4p4/4v6/6d4/9P1/1P6M+r1/8P+o1/4S3C2/1DU3V1K2 b - 243",
        moves: 1,
    },
    MateProblem {
        variant: Variant::Wa,
        options: &["drops=off"],
        sfen: "2k8/1mlv7/8s2/h7d2/3pp6/11/11/1P7C1/8+fPP/2D2V5/2U4KL1+r w - 226",
        moves: 2,
    },
    MateProblem {
        variant: Variant::Wa,
        options: &["drops=off"],
        sfen: "6+H1u2/9+F1/1+P7g1/8X1k/s10/11/8p2/4G3+p2/P1P8/1K9/ODU8 b - 293",
        moves: 3,
    },
    MateProblem {
        variant: Variant::Wa,
        options: &["drops=off"],
        sfen: "6w1u2/hkls7/1p2p1p1d2/5C1gp2/11/p3X6/6e4/P7P1+f/8M+p1/2D5S2/O1U6K1 w - 228",
        moves: 4,
    },
    MateProblem {
        variant: Variant::Wa,
        options: &["drops=off"],
        sfen: "8k2/9s1/2+P5+O2/9+F1/11/2v2c5/7d2S/4P3P2/4K6/2U3CLM2/2D8 b - 289",
        moves: 5,
    },
    MateProblem {
        variant: Variant::Wa,
        options: &["drops=off"],
        sfen: "h1l6d1/2m5uk1/pp3p+F4/11/3w3X3/11/11/PP9/5+f2PPH/D7LK1/O7C2 b - 151",
        moves: 6,
    },
    MateProblem {
        variant: Variant::Wa,
        options: &["drops=off"],
        sfen: "11/11/2lk7/1pp1v6/3p7/11/2m3+f3p/9P1/D6Ve1P/10K/5E3MH w - 286",
        moves: 7,
    },
    MateProblem {
        variant: Variant::Wa,
        options: &["drops=off"],
        sfen: "4c6/4k3d2/3vpg2u2/11/5C5/11/11/11/3+f1+w5/3DU1+p4/4K6 w - 280",
        moves: 8,
    },
    MateProblem {
        variant: Variant::Wa,
        options: &["drops=off"],
        sfen: "hmlcv1wgudo/1e3ks4/p3ppp2+Rp/1pp2f2p2/3p3p3/1E9/11/3PP1xP3/PPPX1P+r1P1P/OF3S3K1/1DUGW1VCLMH w - 38",
        moves: 9,
    },
    MateProblem {
        variant: Variant::Tenjiku,
        options: &[],
        sfen: "16/16/15k/16/11R4/10B5/15L/16/16/16/16/16/16/16/16/5K10 b - 1",
        moves: 1,
    },
    MateProblem {
        variant: Variant::Tenjiku,
        options: &[],
        sfen: "11s4/16/14kT/16/8C2D4/16/16/10Q5/16/16/16/16/16/16/16/2K13 b - 1",
        moves: 2,
    },
    MateProblem {
        variant: Variant::Tenjiku,
        options: &[],
        sfen: "12g2B/14k1/16/16/16/13L2/13R2/16/16/16/16/16/16/16/16/K15 b - 1",
        moves: 3,
    },
    MateProblem {
        variant: Variant::Tenjiku,
        options: &[],
        sfen: "13g2/14c1/13k2/10D5/16/15C/12L3/16/16/16/16/16/16/16/16/3K12 b - 1",
        moves: 4,
    },
    MateProblem {
        variant: Variant::Tenjiku,
        options: &[],
        sfen: "13k2/12c3/16/15c/16/16/16/10B2B1Q/16/16/16/16/16/16/16/3K12 b - 1",
        moves: 5,
    },
];

/// The solver bench's table size in MiB.
pub const MATE_TABLE_MIB: usize = 64;

/// One row of the solver's bench.
#[derive(Clone, Debug, PartialEq)]
pub struct MateRow {
    /// The problem.
    pub problem: MateProblem,
    /// The mate found, in moves; none when the solver found none.
    pub found: Option<u32>,
    /// Positions the solver expanded.
    pub nodes: u64,
    /// Time taken.
    pub time: Duration,
}

/// Solves every problem of [`MATES`] with a table of [`MATE_TABLE_MIB`]: the node total is the
/// solver's signature, as [`run`]'s is the search's.
pub fn run_mates() -> Result<Vec<MateRow>, BenchError> {
    let mut rows = Vec::with_capacity(MATES.len());
    for problem in MATES {
        let refused = |error: String| BenchError {
            sfen: problem.sfen.to_string(),
            error,
        };
        let mut options = problem.variant.default_options();
        for pair in problem.options {
            options.set_pair(pair).map_err(|e| refused(e.to_string()))?;
        }
        let position =
            AnyPosition::from_sfen(&options, problem.sfen).map_err(|e| refused(e.to_string()))?;
        let limits = MateLimits {
            table_mib: MATE_TABLE_MIB,
            ..MateLimits::moves(problem.moves)
        };
        let report = solve_any(&position, &limits, &mut |_| {});
        rows.push(MateRow {
            problem: *problem,
            found: match &report.result {
                MateResult::Mate(line) => Some(line.len().div_ceil(2) as u32),
                _ => None,
            },
            nodes: report.nodes,
            time: report.elapsed,
        });
    }
    Ok(rows)
}

/// The bench's search depth.
pub const DEPTH: u32 = 7;
/// The bench's table size in MiB.
pub const TABLE_MIB: usize = 16;

/// One bench row.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Game name.
    pub variant: &'static str,
    /// The rule options that differ from the game's defaults, as NAME=VALUE.
    pub options: &'static [&'static str],
    /// The position.
    pub sfen: String,
    /// Best move found, as USI text.
    pub best: String,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub time: Duration,
}

/// Why the bench could not run: one of its positions was refused (a bug in the list).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bench position {sfen}: {error}")]
pub struct BenchError {
    /// The position.
    pub sfen: String,
    /// Why the rules refused it.
    pub error: String,
}

/// Runs the bench at `depth` (the signature is defined at [`DEPTH`]): Tori at `depth`, Wa two
/// plies shallower and Tenjiku four, each position with default rule options but
/// [`WA_NO_DROPS_POSITIONS`], which are searched without drops.
pub fn run(depth: u32) -> Result<Vec<Row>, BenchError> {
    const NO_DROPS: &[&str] = &["drops=off"];
    let wa_depth = depth.saturating_sub(2).max(1);
    let games: [(Variant, &'static [&'static str], &[&str], u32); 4] = [
        (Variant::Tori, &[], &TORI_POSITIONS, depth),
        (Variant::Wa, &[], &WA_POSITIONS, wa_depth),
        (Variant::Wa, NO_DROPS, &WA_NO_DROPS_POSITIONS, wa_depth),
        (
            Variant::Tenjiku,
            &[],
            &TENJIKU_POSITIONS,
            depth.saturating_sub(4).max(1),
        ),
    ];
    let mut rows = Vec::new();
    for (variant, option_pairs, positions, depth) in games {
        let mut options = variant.default_options();
        for pair in option_pairs {
            options.set_pair(pair).map_err(|error| BenchError {
                sfen: format!("(option {pair})"),
                error: error.to_string(),
            })?;
        }
        let params = EvalParams::engine_default(&options);
        for sfen in positions {
            let position = AnyPosition::from_sfen(&options, sfen).map_err(|error| BenchError {
                sfen: sfen.to_string(),
                error: error.to_string(),
            })?;
            let limits = Limits {
                depth: Some(depth),
                ..Limits::default()
            };
            let outcome = search_any(
                SearchRequest::new(
                    &position,
                    &limits,
                    &params,
                    Arc::new(TranspositionTable::new(TABLE_MIB)),
                ),
                &mut |_| {},
            );
            rows.push(Row {
                variant: variant.name(),
                options: option_pairs,
                sfen: sfen.to_string(),
                best: outcome
                    .best
                    .map_or_else(|| "none".to_string(), |m| position.to_usi(m)),
                nodes: outcome.info.nodes,
                time: outcome.info.time,
            });
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bench_position_is_searched_under_its_own_rules() {
        let rows = run(1).unwrap();
        let expected: Vec<(&str, &[&str], &str)> = TORI_POSITIONS
            .iter()
            .map(|sfen| ("tori", &[][..], *sfen))
            .chain(WA_POSITIONS.iter().map(|sfen| ("wa", &[][..], *sfen)))
            .chain(
                WA_NO_DROPS_POSITIONS
                    .iter()
                    .map(|sfen| ("wa", &["drops=off"][..], *sfen)),
            )
            .chain(
                TENJIKU_POSITIONS
                    .iter()
                    .map(|sfen| ("tenjiku", &[][..], *sfen)),
            )
            .collect();
        let searched: Vec<(&str, &[&str], &str)> = rows
            .iter()
            .map(|row| (row.variant, row.options, row.sfen.as_str()))
            .collect();
        assert_eq!(searched, expected);
        for row in &rows {
            assert_ne!(row.best, "none", "no move found in {}", row.sfen);
            assert!(row.nodes > 0);
        }
    }
}
