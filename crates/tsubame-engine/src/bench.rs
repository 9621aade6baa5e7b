//! The bench: fixed positions per game searched to a fixed depth with one thread and a fixed
//! table size. Its node total is a signature of the search's behaviour: a change that should not
//! alter play keeps it; a change that alters it must be justified by a match.

use crate::eval::EvalParams;
use crate::limits::Limits;
use crate::search::{SearchRequest, search_any};
use crate::tt::TranspositionTable;
use std::sync::Arc;
use std::time::Duration;
use tsubame_rules::{AnyPosition, SetupError, Variant};

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

/// Tenjiku positions: the start, and a middle game with demons, lions and generals in contact.
pub const TENJIKU_POSITIONS: [&str; 2] = [
    "lnficsgekgscifnl/a1c!c!1txql!ot1c!c!1a/s'v'bhdw!d!q'h!d!w!dhbv's'/mvrf!e!b!r!v!q!r!b!e!f!rvm/pppppppppppppppp/4d'6d'4/16/16/16/16/4D'6D'4/PPPPPPPPPPPPPPPP/MVRF!E!B!R!Q!V!R!B!E!F!RVM/S'V'BHDW!D!H!Q'D!W!DHBV'S'/A1C!C!1TOL!QXT1C!C!1A/LNFICSGKEGSCIFNL b - 1",
    "lnficsgekgscifnl/a1c!c!1tx1l!ot1c!c!1a/s'v'bhdw!1q'h!d!w!dhbv's'/mvrf!e!b!r!v!q!r!b!e!f!rvm/ppppp1pp1ppppppp/4d'p5d'4/8p7/5D!10/16/7P8/4D'6D'4/PPPPPPP1PPPPPPPP/MVRF!E!B!R!Q!V!R!B!E!F!RVM/S'V'BHDW!1H!Q'D!W!DHBV'S'/A1C!C!1TOL!QXT1C!C!1A/LNFICSGKEGSCIFNL w - 10",
];

/// The bench's search depth.
pub const DEPTH: u32 = 7;
/// The bench's table size in MiB.
pub const TABLE_MIB: usize = 16;

/// One bench row.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Game name.
    pub variant: &'static str,
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
    pub error: SetupError,
}

/// Runs the bench at `depth` (the signature is defined at [`DEPTH`]): Tori at `depth`, Wa two
/// plies shallower and Tenjiku four, each position with default rule options.
pub fn run(depth: u32) -> Result<Vec<Row>, BenchError> {
    let games: [(Variant, &[&str], u32); 3] = [
        (Variant::Tori, &TORI_POSITIONS, depth),
        (Variant::Wa, &WA_POSITIONS, depth.saturating_sub(2).max(1)),
        (
            Variant::Tenjiku,
            &TENJIKU_POSITIONS,
            depth.saturating_sub(4).max(1),
        ),
    ];
    let mut rows = Vec::new();
    for (variant, positions, depth) in games {
        let options = variant.default_options();
        let params = EvalParams::engine_default(variant);
        for sfen in positions {
            let position = AnyPosition::from_sfen(&options, sfen).map_err(|error| BenchError {
                sfen: sfen.to_string(),
                error,
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
