//! Match statistics: the score as an Elo difference with its error margin, and the sequential
//! probability ratio test that can stop a match once it has shown enough.

use std::fmt;
use std::str::FromStr;

/// Wins, draws and losses from the first engine's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games the first engine won.
    pub wins: u32,
    /// Games without a winner.
    pub draws: u32,
    /// Games the first engine lost.
    pub losses: u32,
}

impl Tally {
    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The mean score per game (win 1, draw 1/2), or `None` before the first game.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| (self.wins as f64 + self.draws as f64 / 2.0) / n as f64)
    }

    /// The mean score and the variance of one game's score around it (the trinomial
    /// variance), or `None` before the first game.
    pub fn mean_and_variance(&self) -> Option<(f64, f64)> {
        (self.games() > 0).then(|| {
            let (_, score, variance) = moments([self.wins, self.draws, self.losses].map(f64::from));
            (score, variance)
        })
    }
}

/// Games, mean score and per-game variance of win, draw and loss counts.
fn moments([wins, draws, losses]: [f64; 3]) -> (f64, f64, f64) {
    let n = wins + draws + losses;
    let score = (wins + draws / 2.0) / n;
    let variance =
        (wins * (1.0 - score).powi(2) + draws * (0.5 - score).powi(2) + losses * score.powi(2)) / n;
    (n, score, variance)
}

/// The Elo difference that the logistic model gives for an expected score.
pub fn elo_from_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The expected score for an Elo difference in the logistic model.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Two-sided 95% quantile of the normal distribution.
const Z95: f64 = 1.959_963_984_540_054;

/// The Elo estimate and its 95% error margin (half the width of the interval that the normal
/// approximation of the mean score gives), or `None` before the first game. A score of 0 or 1
/// gives infinite values.
pub fn elo_estimate(tally: &Tally) -> Option<(f64, f64)> {
    let (score, variance) = tally.mean_and_variance()?;
    let error = (variance / tally.games() as f64).sqrt() * Z95;
    let low = elo_from_score((score - error).max(0.0));
    let high = elo_from_score((score + error).min(1.0));
    Some((elo_from_score(score), (high - low) / 2.0))
}

/// What a sequential probability ratio test says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The evidence favours `elo0`: the first engine is not `elo1` stronger.
    AcceptH0,
    /// The evidence favours `elo1`.
    AcceptH1,
    /// Not decided yet.
    Continue,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::AcceptH0 => "accept H0",
            Verdict::AcceptH1 => "accept H1",
            Verdict::Continue => "continue",
        })
    }
}

/// A sequential probability ratio test of H0 "the Elo difference is `elo0`" against H1 "it
/// is `elo1`", with error rates `alpha` (accepting H1 wrongly) and `beta` (accepting H0
/// wrongly). The log-likelihood ratio is the normal approximation on the logistic Elo scale
/// with the trinomial variance, as the common test frameworks compute it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo difference under H0.
    pub elo0: f64,
    /// Elo difference under H1.
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
}

impl FromStr for Sprt {
    type Err = String;

    fn from_str(text: &str) -> Result<Sprt, String> {
        let numbers = text
            .split(',')
            .map(|part| part.trim().parse::<f64>())
            .collect::<Result<Vec<f64>, _>>()
            .map_err(|_| format!("--sprt {text:?} is not four numbers elo0,elo1,alpha,beta"))?;
        let [elo0, elo1, alpha, beta] = numbers[..] else {
            return Err(format!(
                "--sprt {text:?} is not four numbers elo0,elo1,alpha,beta"
            ));
        };
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(format!(
                "--sprt needs finite elo0 < elo1, got {elo0} and {elo1}"
            ));
        }
        for (name, p) in [("alpha", alpha), ("beta", beta)] {
            if !(p > 0.0 && p < 0.5) {
                return Err(format!("--sprt {name} {p} is not between 0 and 0.5"));
            }
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }
}

impl Sprt {
    /// The lower (accept H0) and upper (accept H1) bounds of the log-likelihood ratio.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of the games so far; 0 before the first game. When every game
    /// had the same result the variance is 0 and the ratio undefined, so half a game of each
    /// result is added: a match of nothing but losses still comes to a verdict.
    pub fn llr(&self, tally: &Tally) -> f64 {
        if tally.games() == 0 {
            return 0.0;
        }
        let counts = [tally.wins, tally.draws, tally.losses].map(f64::from);
        let (mut n, mut score, mut variance) = moments(counts);
        if variance <= 0.0 {
            (n, score, variance) = moments(counts.map(|c| c + 0.5));
        }
        let s0 = score_from_elo(self.elo0);
        let s1 = score_from_elo(self.elo1);
        n * (s1 - s0) * (2.0 * score - s0 - s1) / (2.0 * variance)
    }

    /// The test's verdict on the games so far.
    pub fn verdict(&self, tally: &Tally) -> Verdict {
        let llr = self.llr(tally);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Verdict::AcceptH1
        } else if llr <= lower {
            Verdict::AcceptH0
        } else {
            Verdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn elo_of_known_scores() {
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!(close(elo_from_score(0.75), 190.848, 1e-3));
        assert!(close(elo_from_score(0.25), -190.848, 1e-3));
        assert!(close(score_from_elo(elo_from_score(0.6)), 0.6, 1e-12));
    }

    #[test]
    fn estimate_and_margin() {
        // 60 wins, 20 draws, 20 losses: score 0.7, per-game variance 0.16, standard error 0.04.
        let tally = Tally {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let (score, variance) = tally.mean_and_variance().unwrap();
        assert!(close(score, 0.7, 1e-12));
        assert!(close(variance, 0.16, 1e-12));
        let (elo, margin) = elo_estimate(&tally).unwrap();
        assert!(close(elo, 147.19, 0.01), "{elo}");
        assert!(close(margin, EXPECTED_MARGIN, 0.01), "{margin}");
        // An even match: 0 Elo, and a symmetric margin.
        let even = Tally {
            wins: 30,
            draws: 40,
            losses: 30,
        };
        let (elo, margin) = elo_estimate(&even).unwrap();
        assert!(close(elo, 0.0, 1e-9));
        assert!(close(margin, EVEN_MARGIN, 0.01), "{margin}");
        assert_eq!(elo_estimate(&Tally::default()), None);
    }

    /// (elo(0.7 + 1.96 * 0.04) - elo(0.7 - 1.96 * 0.04)) / 2.
    const EXPECTED_MARGIN: f64 = 66.013;
    /// Score 0.5, variance 0.15, 100 games: (elo(0.5 + e) - elo(0.5 - e)) / 2 with
    /// e = 1.96 * sqrt(0.0015).
    const EVEN_MARGIN: f64 = 53.158;

    #[test]
    fn sprt_bounds_and_llr() {
        let sprt: Sprt = "0,10,0.05,0.05".parse().unwrap();
        let (lower, upper) = sprt.bounds();
        assert!(close(lower, -2.944, 1e-3));
        assert!(close(upper, 2.944, 1e-3));
        let tally = Tally {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        assert!(
            close(sprt.llr(&tally), EXPECTED_LLR, 1e-3),
            "{}",
            sprt.llr(&tally)
        );
        assert_eq!(sprt.verdict(&tally), Verdict::Continue);
        let strong = Tally {
            wins: 600,
            draws: 200,
            losses: 200,
        };
        assert_eq!(sprt.verdict(&strong), Verdict::AcceptH1);
        let weak = Tally {
            wins: 200,
            draws: 200,
            losses: 600,
        };
        assert_eq!(sprt.verdict(&weak), Verdict::AcceptH0);
        assert_eq!(sprt.llr(&Tally::default()), 0.0);
        // Only losses: no variance, yet a verdict. With half a game of each result added,
        // n = 31.5, score 0.75/31.5 and variance 0.019274.
        let losses = Tally {
            wins: 0,
            draws: 0,
            losses: 30,
        };
        assert!(
            close(sprt.llr(&losses), ALL_LOSSES_LLR, 0.01),
            "{}",
            sprt.llr(&losses)
        );
        assert_eq!(sprt.verdict(&losses), Verdict::AcceptH0);
        for bad in ["", "0,10", "10,0,0.05,0.05", "0,10,0.7,0.05", "a,b,c,d"] {
            assert!(bad.parse::<Sprt>().is_err(), "{bad}");
        }
    }

    /// 100 * (s1 - s0) * (2 * 0.7 - s0 - s1) / (2 * 0.16) with s0 = 0.5, s1 = score(10 Elo).
    const EXPECTED_LLR: f64 = 1.7337;
    const ALL_LOSSES_LLR: f64 = -11.3658;
}
