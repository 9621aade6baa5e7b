//! Arenas made from the configuration's schedule (`--arena`, repeatable), such as "a Tori
//! blitz arena on the first Saturday of each month at 18:00 UTC": each occurrence is made a
//! day ahead, once (its schedule key is unique, so several instances make it once between
//! them).
//!
//! A schedule is written `key=value` pairs joined by `;`:
//! `name=Tori blitz arena;variant=tori;clock=byoyomi:3+10;every=month:first-sat;at=18:00;minutes=60`
//! with, optionally, `options=` (the game's rule options, `name=value` joined by `,`) and
//! `rated=no`. `clock` is `byoyomi:MAIN+PERIOD` (minutes of main time, seconds of one period)
//! or `fischer:MAIN+INCREMENT`; `every` is `day`, `week:DAY` or `month:first-DAY`, DAY being
//! `mon` to `sun`; `at` is the UTC time of day.

use super::store::TournamentRow;
use crate::clock::TimeControl;
use crate::hub::Hub;
use std::fmt;
use std::str::FromStr;

/// How far ahead a scheduled arena is made: it is listed a day before it starts.
pub const LOOKAHEAD_MS: i64 = 86_400_000;

const DAY_MS: i64 = 86_400_000;

const WEEKDAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/// How often a schedule comes round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Every {
    /// Every day.
    Day,
    /// Every week on this weekday (0 Monday to 6 Sunday).
    Week(u32),
    /// Every month on the first of this weekday.
    MonthFirst(u32),
}

/// One scheduled arena.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// The arena's name.
    pub name: String,
    /// The game.
    pub variant: String,
    /// Rule options, `name=value,...`.
    pub options: String,
    /// The clock.
    pub clock: TimeControl,
    /// How often.
    pub every: Every,
    /// The minute of the UTC day it starts at.
    pub at_minute: u32,
    /// How long it lasts, in minutes.
    pub minutes: u32,
    /// Whether its games are rated.
    pub rated: bool,
}

/// Why a schedule cannot be read.
#[derive(Debug, PartialEq, Eq)]
pub struct ScheduleError(String);

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "arena schedule: {}", self.0)
    }
}

impl std::error::Error for ScheduleError {}

fn weekday(text: &str) -> Result<u32, ScheduleError> {
    WEEKDAYS
        .iter()
        .position(|&d| d == text)
        .map(|d| d as u32)
        .ok_or_else(|| ScheduleError(format!("{text:?} is not a day (mon to sun)")))
}

fn clock_of(text: &str) -> Result<TimeControl, ScheduleError> {
    let bad = || {
        ScheduleError(format!(
            "clock {text:?} is not byoyomi:MINUTES+SECONDS or fischer:MINUTES+SECONDS"
        ))
    };
    let (kind, times) = text.split_once(':').ok_or_else(bad)?;
    let (main, extra) = times.split_once('+').ok_or_else(bad)?;
    let main_ms = main.trim().parse::<u64>().map_err(|_| bad())? * 60_000;
    let extra_ms = extra.trim().parse::<u64>().map_err(|_| bad())? * 1000;
    let clock = match kind.trim() {
        "byoyomi" => TimeControl::Byoyomi {
            main_ms,
            periods: 1,
            period_ms: extra_ms,
        },
        "fischer" => TimeControl::Fischer {
            main_ms,
            increment_ms: extra_ms,
        },
        _ => return Err(bad()),
    };
    clock.validate().map_err(|e| ScheduleError(e.to_string()))?;
    Ok(clock)
}

impl FromStr for Schedule {
    type Err = ScheduleError;

    fn from_str(text: &str) -> Result<Schedule, ScheduleError> {
        let mut fields = std::collections::BTreeMap::new();
        for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| ScheduleError(format!("{part:?} is not key=value")))?;
            fields.insert(key.trim(), value.trim());
        }
        let field = |key: &str| {
            fields
                .get(key)
                .copied()
                .ok_or_else(|| ScheduleError(format!("{key}= is missing")))
        };
        let every = match field("every")? {
            "day" => Every::Day,
            other => match other.split_once(':') {
                Some(("week", day)) => Every::Week(weekday(day)?),
                Some(("month", first)) => {
                    Every::MonthFirst(weekday(first.strip_prefix("first-").ok_or_else(|| {
                        ScheduleError(format!("every={other}: month:first-DAY"))
                    })?)?)
                }
                _ => {
                    return Err(ScheduleError(format!(
                        "every={other} is not day, week:DAY or month:first-DAY"
                    )));
                }
            },
        };
        let at = field("at")?;
        let at_minute = at
            .split_once(':')
            .and_then(|(h, m)| Some((h.parse::<u32>().ok()?, m.parse::<u32>().ok()?)))
            .filter(|&(h, m)| h < 24 && m < 60)
            .map(|(h, m)| h * 60 + m)
            .ok_or_else(|| ScheduleError(format!("at={at} is not HH:MM")))?;
        let minutes: u32 = field("minutes")?
            .parse()
            .ok()
            .filter(|m: &u32| (1..=1440).contains(m))
            .ok_or_else(|| ScheduleError("minutes= must be 1 to 1440".into()))?;
        let name = field("name")?.to_string();
        if name.is_empty() || name.chars().count() > 60 {
            return Err(ScheduleError("name= must be 1 to 60 characters".into()));
        }
        let rated = match fields.get("rated").copied().unwrap_or("yes") {
            "yes" => true,
            "no" => false,
            other => return Err(ScheduleError(format!("rated={other}: yes or no"))),
        };
        let schedule = Schedule {
            name,
            variant: field("variant")?.to_string(),
            options: fields.get("options").copied().unwrap_or("").to_string(),
            clock: clock_of(field("clock")?)?,
            every,
            at_minute,
            minutes,
            rated,
        };
        super::api::checked_settings(
            &schedule.variant,
            &crate::request::OptionsInput::Text(schedule.options.clone()),
            &schedule.clock,
            schedule.rated,
        )
        .map_err(|e| ScheduleError(e.message))?;
        Ok(schedule)
    }
}

/// The civil date (year, month 1-12, day 1-31) of a day counted from 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// 0 for Monday to 6 for Sunday, of a day counted from 1970-01-01 (a Thursday).
fn weekday_of(days: i64) -> u32 {
    (days + 3).rem_euclid(7) as u32
}

impl Schedule {
    /// Whether the arena is held on this day (counted from 1970-01-01).
    fn held_on(&self, days: i64) -> bool {
        match self.every {
            Every::Day => true,
            Every::Week(day) => weekday_of(days) == day,
            Every::MonthFirst(day) => weekday_of(days) == day && civil_from_days(days).2 <= 7,
        }
    }

    /// The starts (unix milliseconds) from `from` (included) to `to` (excluded).
    pub fn starts_between(&self, from: i64, to: i64) -> Vec<i64> {
        let offset = i64::from(self.at_minute) * 60_000;
        let mut starts = Vec::new();
        let mut day = (from - offset).div_euclid(DAY_MS);
        while day * DAY_MS + offset < to {
            let start = day * DAY_MS + offset;
            if start >= from && self.held_on(day) {
                starts.push(start);
            }
            day += 1;
        }
        starts
    }

    /// The unique key of the occurrence starting at `start`.
    fn key(&self, start: i64) -> String {
        let days = start.div_euclid(DAY_MS);
        let (year, month, day) = civil_from_days(days);
        let minute = start.rem_euclid(DAY_MS) / 60_000;
        format!(
            "{}@{year:04}-{month:02}-{day:02}T{:02}:{:02}",
            self.name,
            minute / 60,
            minute % 60
        )
    }

    /// The tournament of the occurrence starting at `start`.
    pub fn tournament(&self, start: i64, now: i64) -> TournamentRow {
        TournamentRow {
            id: crate::hub::random_game_id(),
            name: self.name.clone(),
            variant: self.variant.clone(),
            options: self.options.clone(),
            time_control: serde_json::to_string(&self.clock).unwrap_or_default(),
            rated: self.rated,
            starts_at: start,
            ends_at: start + i64::from(self.minutes) * 60_000,
            status: "created".into(),
            created_by: None,
            schedule_key: Some(self.key(start)),
            created_at: now,
        }
    }
}

/// Makes every scheduled arena that starts within [`LOOKAHEAD_MS`] and is not made yet.
pub async fn make_scheduled(hub: &Hub, schedules: &[Schedule]) {
    let now = hub.now() as i64;
    for schedule in schedules {
        for start in schedule.starts_between(now, now + LOOKAHEAD_MS) {
            let row = schedule.tournament(start, now);
            match hub.store().insert_tournament(&row).await {
                Ok(true) => {
                    tracing::info!(tournament = %row.id, key = ?row.schedule_key, "scheduled arena made");
                    hub.tournament_changed(&row.id);
                }
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!("cannot make the scheduled arena {}: {e:#}", schedule.name)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MONTHLY: &str = "name=Tori blitz arena;variant=tori;clock=byoyomi:3+10;every=month:first-sat;at=18:00;minutes=60";

    #[test]
    fn a_schedule_is_read_and_its_mistakes_named() {
        let schedule: Schedule = MONTHLY.parse().expect("a schedule");
        assert_eq!(schedule.every, Every::MonthFirst(5));
        assert_eq!(schedule.at_minute, 18 * 60);
        assert_eq!(
            schedule.clock,
            TimeControl::Byoyomi {
                main_ms: 180_000,
                periods: 1,
                period_ms: 10_000
            }
        );
        assert!(schedule.rated);
        for (text, says) in [
            (
                MONTHLY.replace("every=month:first-sat", "every=month:sat"),
                "first-DAY",
            ),
            (MONTHLY.replace("at=18:00", "at=25:00"), "HH:MM"),
            (
                MONTHLY.replace("clock=byoyomi:3+10", "clock=3+10"),
                "byoyomi:",
            ),
            (MONTHLY.replace("variant=tori", "variant=chess"), "chess"),
            (MONTHLY.replace(";minutes=60", ""), "minutes= is missing"),
            (
                MONTHLY.replace("every=month:first-sat", "every=week:someday"),
                "mon to sun",
            ),
        ] {
            let error = text.parse::<Schedule>().expect_err(&text).to_string();
            assert!(error.contains(says), "{text}: {error}");
        }
    }

    #[test]
    fn dates_and_weekdays() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(weekday_of(0), 3, "1970-01-01 was a Thursday");
        // 2026-11-27, a Friday.
        let days = 20_784;
        assert_eq!(civil_from_days(days), (2026, 11, 27));
        assert_eq!(weekday_of(days), 4);
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn occurrences_fall_on_their_days_once_each() {
        let schedule: Schedule = MONTHLY.parse().expect("a schedule");
        // From 2026-11-27 to the end of February 2027: the first Saturdays of December,
        // January and February, at 18:00 UTC.
        let from = 20_784 * DAY_MS;
        let to = (20_784 + 94) * DAY_MS;
        let keys: Vec<String> = schedule
            .starts_between(from, to)
            .into_iter()
            .map(|start| schedule.key(start))
            .collect();
        assert_eq!(
            keys,
            [
                "Tori blitz arena@2026-12-05T18:00",
                "Tori blitz arena@2027-01-02T18:00",
                "Tori blitz arena@2027-02-06T18:00"
            ]
        );
        let daily: Schedule = MONTHLY
            .replace("every=month:first-sat", "every=day")
            .parse()
            .expect("daily");
        // A day's window from 17:00 holds one start, today's.
        let starts = daily.starts_between(from + 17 * 3_600_000, from + 17 * 3_600_000 + DAY_MS);
        assert_eq!(starts, [from + 18 * 3_600_000]);
        let weekly: Schedule = MONTHLY
            .replace("every=month:first-sat", "every=week:fri")
            .parse()
            .expect("weekly");
        assert_eq!(
            weekly.starts_between(from, from + 7 * DAY_MS),
            [from + 18 * 3_600_000]
        );
    }
}
