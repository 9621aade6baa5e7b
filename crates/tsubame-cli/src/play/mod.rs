//! `tsubame play`: a game against the engine or another person in the terminal.

mod app;
mod view;

pub use app::{App, Config, TimeControl};

use crate::games::{options_for, session_for, variant_parser};
use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use crossterm::event::{self, Event, KeyEventKind};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tsubame_notation::record::Record;
use tsubame_protocol::session::Start;
use tsubame_rules::Variant;

/// A side of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Side {
    /// The first player (black in shogi books).
    Sente,
    /// The second player.
    Gote,
}

#[derive(Args)]
pub struct PlayArgs {
    /// The game.
    #[arg(long, value_parser = variant_parser(), default_value = "tori")]
    variant: Variant,
    /// A rule option as NAME=VALUE (repeatable), e.g. drop-mate=illegal.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// Engine strength from 1 (weakest) to 20.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=20))]
    level: u32,
    /// The side you play against the engine.
    #[arg(long, value_enum, default_value = "sente")]
    side: Side,
    /// Both sides are played by people at this terminal.
    #[arg(long, conflicts_with = "side")]
    two_player: bool,
    /// A handicap (Tori: left-quail, falcon, falcon-left-quail, falcon-both-quails); gote gives
    /// it and moves first.
    #[arg(long, value_name = "NAME")]
    handicap: Option<String>,
    /// Clocks: main time and byo-yomi period in seconds, e.g. 600+30.
    #[arg(long, value_name = "MAIN+BYOYOMI")]
    time: Option<TimeControl>,
    /// Start from this SFEN instead of the start position.
    #[arg(long)]
    sfen: Option<String>,
    /// Where Ctrl-S saves the record (default: `tsubame-GAME-SECONDS.tsr`).
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
}

pub fn run(args: &PlayArgs) -> Result<()> {
    let variant = args.variant;
    let options = options_for(variant, &args.options, args.handicap.as_deref())?;
    let mut session = session_for(&options)?;
    let mut record = Record::new(options.clone());
    if let Some(sfen) = &args.sfen {
        session
            .set_position(Start::Sfen(sfen), &[])
            .map_err(|e| anyhow::anyhow!("bad --sfen: {e}"))?;
        record.start_sfen = Some(session.sfen());
    }
    let human = if args.two_player {
        [true, true]
    } else {
        match args.side {
            Side::Sente => [true, false],
            Side::Gote => [false, true],
        }
    };
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    record.date = Some(civil_date(seconds));
    record.time_control = args.time.map(|t| t.to_string());
    let engine_name = format!("tsubame level {}", args.level);
    record.sente = Some(if human[0] {
        "player".into()
    } else {
        engine_name.clone()
    });
    record.gote = Some(if human[1] {
        "player".into()
    } else {
        engine_name
    });
    let config = Config {
        options,
        level: args.level,
        human,
        time: args.time,
        save_path: args.save.clone().unwrap_or_else(|| {
            PathBuf::from(format!("tsubame-{}-{seconds}.tsr", args.variant.name()))
        }),
    };
    let mut app = App::new(config, session, record).map_err(anyhow::Error::msg)?;
    if !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        bail!("tsubame play needs a terminal");
    }
    let mut terminal = ratatui::init();
    let result = event_loop(&mut terminal, &mut app);
    app.shut_down();
    ratatui::restore();
    result
}

fn event_loop(terminal: &mut ratatui::DefaultTerminal, app: &mut App) -> Result<()> {
    loop {
        app.tick(Instant::now());
        terminal.draw(|frame| view::draw(frame, app))?;
        if app.quit {
            return Ok(());
        }
        if event::poll(Duration::from_millis(100))?
            && let Event::Key(key) = event::read()?
            && key.kind == KeyEventKind::Press
        {
            app.handle_key(key);
        }
    }
}

/// The date of a Unix time as `YYYY.MM.DD` (UTC).
fn civil_date(seconds: u64) -> String {
    let days = i64::try_from(seconds / 86_400).unwrap_or(0);
    // Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's civil_from_days).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

#[cfg(test)]
mod tests;
