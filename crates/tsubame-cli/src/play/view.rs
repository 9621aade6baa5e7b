//! Drawing a game: the board in kanji or Latin letters, hands, the move list, clocks and the
//! input line.

use super::app::App;
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::{Color as Colour, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use std::time::Duration;
use tsubame_rules::{Color, VariantSpec};

/// Columns each square takes in games with one-letter codes and one-kanji names.
const CELL: u16 = 3;
/// Columns each square takes in Tenjiku: codes such as `+R!` and two-kanji names.
const WIDE_CELL: u16 = 5;
/// Columns of the panel beside the board.
const PANEL: u16 = 26;
/// Lines below the board area: status, input, keys.
const FOOTER: u16 = 3;

/// A piece as SFEN writes it: owner and code (`+S`, `Q!`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SfenPiece {
    /// Owner.
    pub color: Color,
    /// Upper-case SFEN code, with `+` for a promoted kind and a Tenjiku `!` or `'`.
    pub code: String,
    /// Whether the piece declined a promotion it was allowed (Tenjiku's trailing `=`).
    pub deferred: bool,
}

/// Columns each square of this game takes.
pub fn cell_width(spec: &VariantSpec) -> u16 {
    if spec.roles.iter().any(|r| r.sfen.len() > 2) {
        WIDE_CELL
    } else {
        CELL
    }
}

/// The board of a SFEN, ranks from `a`, files from the highest.
pub fn board_of(sfen: &str, width: u8) -> Vec<Vec<Option<SfenPiece>>> {
    let field = sfen.split(' ').next().unwrap_or("");
    field
        .split('/')
        .map(|rank| {
            let mut row: Vec<Option<SfenPiece>> = Vec::with_capacity(usize::from(width));
            let mut digits = String::new();
            let mut promoted = false;
            for c in rank.chars() {
                if c.is_ascii_digit() {
                    digits.push(c);
                    continue;
                }
                if !digits.is_empty() {
                    let empty: usize = digits.parse().unwrap_or(0);
                    row.extend(std::iter::repeat_n(None, empty));
                    digits.clear();
                }
                if c == '+' {
                    promoted = true;
                    continue;
                }
                // Tenjiku's marks belong to the piece just read.
                if let Some(Some(last)) = row.last_mut().filter(|_| matches!(c, '!' | '\'' | '=')) {
                    if c == '=' {
                        last.deferred = true;
                    } else {
                        last.code.push(c);
                    }
                    continue;
                }
                let color = if c.is_ascii_uppercase() {
                    Color::Sente
                } else {
                    Color::Gote
                };
                let mut code = String::new();
                if promoted {
                    code.push('+');
                }
                code.push(c.to_ascii_uppercase());
                promoted = false;
                row.push(Some(SfenPiece {
                    color,
                    code,
                    deferred: false,
                }));
            }
            if !digits.is_empty() {
                let empty: usize = digits.parse().unwrap_or(0);
                row.extend(std::iter::repeat_n(None, empty));
            }
            row
        })
        .collect()
}

/// The pieces in hand of a SFEN: (owner, code, count).
pub fn hands_of(sfen: &str) -> Vec<(Color, String, u32)> {
    let field = sfen.split(' ').nth(2).unwrap_or("-");
    let mut out = Vec::new();
    let mut count = String::new();
    for c in field.chars() {
        if c.is_ascii_digit() {
            count.push(c);
        } else if c.is_ascii_alphabetic() {
            let n = count.parse().unwrap_or(1);
            count.clear();
            let color = if c.is_ascii_uppercase() {
                Color::Sente
            } else {
                Color::Gote
            };
            out.push((color, c.to_ascii_uppercase().to_string(), n));
        }
    }
    out
}

/// The first kanji of a piece's name (the first two where cells are wide), or its code
/// when it has none.
fn kanji(spec: &VariantSpec, code: &str) -> String {
    let count = if cell_width(spec) == WIDE_CELL { 2 } else { 1 };
    spec.role_by_sfen(code)
        .map(|r| spec.role(r).kanji.chars().take(count).collect::<String>())
        .filter(|k| !k.is_empty())
        .unwrap_or_else(|| code.to_string())
}

/// A square's text, [`cell_width`] columns wide.
fn cell_text(spec: &VariantSpec, piece: Option<&SfenPiece>, latin: bool) -> String {
    let wide = cell_width(spec) == WIDE_CELL;
    match piece {
        None if wide => "  ·  ".to_string(),
        None => " · ".to_string(),
        Some(piece) if latin => {
            let mut code = match piece.color {
                Color::Sente => piece.code.clone(),
                Color::Gote => piece.code.to_ascii_lowercase(),
            };
            if piece.deferred {
                code.push('=');
            }
            if wide {
                // Right-aligned on the file number and the dot of an empty square.
                format!("{:<5}", format!("{code:>3}"))
            } else {
                format!("{code:>2} ")
            }
        }
        Some(piece) => {
            let mark = if piece.color == Color::Gote { 'v' } else { ' ' };
            let name = kanji(spec, &piece.code);
            // Kanji take two columns each; a one-kanji name in a wide cell is padded.
            let columns: usize = name.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum();
            let room = if wide { 4 } else { 2 };
            format!("{mark}{name}{}", " ".repeat(room - columns.min(room)))
        }
    }
}

/// The squares a USI move touches: start (if any), any square captured on the way, and
/// destination (`6f5e6d`: 6f, 5e and 6d).
fn move_squares(usi: &str) -> Vec<String> {
    let text = usi.trim_end_matches('+');
    if let Some((_, to)) = text.split_once('*') {
        return vec![to.to_string()];
    }
    let mut squares = Vec::new();
    let mut square = String::new();
    for c in text.chars() {
        square.push(c);
        if c.is_ascii_lowercase() {
            squares.push(std::mem::take(&mut square));
        }
    }
    squares
}

fn clock_text(app: &App, side: usize) -> String {
    match app.clocks.as_ref().and_then(|c| c.get(side)) {
        None => String::new(),
        Some(clock) => {
            let show = |d: Duration| format!("{}:{:02}", d.as_secs() / 60, d.as_secs() % 60);
            if clock.main.is_zero() {
                format!("byo-yomi {}", show(clock.period))
            } else {
                show(clock.main)
            }
        }
    }
}

/// The terminal size a game needs: columns and lines, with squares `cell` columns wide.
pub fn needed_size(width: u8, height: u8, cell: u16) -> (u16, u16) {
    let board_columns = u16::from(width) * cell + 5;
    (board_columns + PANEL, u16::from(height) + 6 + FOOTER)
}

/// Draws the game.
pub fn draw(frame: &mut Frame<'_>, app: &App) {
    let area = frame.area();
    let (width, height) = app.board_size();
    let spec = app.config.options.variant();
    let (need_w, need_h) = needed_size(width, height, cell_width(spec));
    if area.width < need_w || area.height < need_h {
        let text = format!(
            "{} needs a terminal of at least {need_w}x{need_h}; this one is {}x{}. \
             Enlarge it, or press Ctrl-Q to leave.",
            spec.title, area.width, area.height
        );
        frame.render_widget(
            Paragraph::new(text).wrap(ratatui::widgets::Wrap { trim: true }),
            area,
        );
        return;
    }
    let rows = Layout::default()
        .direction(Direction::Vertical)
        .constraints([Constraint::Min(1), Constraint::Length(FOOTER)])
        .split(area);
    let columns = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([Constraint::Length(need_w - PANEL), Constraint::Min(PANEL)])
        .split(rows[0]);
    draw_board(frame, app, spec, columns[0]);
    draw_panel(frame, app, columns[1]);
    draw_footer(frame, app, rows[1]);
}

fn hand_line(app: &App, spec: &VariantSpec, color: Color) -> Line<'static> {
    let pieces: Vec<String> = hands_of(&app.sfen())
        .into_iter()
        .filter(|(c, _, _)| *c == color)
        .map(|(_, code, n)| {
            let name = if app.latin {
                match color {
                    Color::Sente => code,
                    Color::Gote => code.to_ascii_lowercase(),
                }
            } else {
                kanji(spec, &code)
            };
            if n > 1 { format!("{name}{n}") } else { name }
        })
        .collect();
    let who = match color {
        Color::Sente => "sente",
        Color::Gote => "gote",
    };
    Line::from(format!(
        " {who} hand: {}",
        if pieces.is_empty() {
            "-".to_string()
        } else {
            pieces.join(" ")
        }
    ))
}

fn draw_board(frame: &mut Frame<'_>, app: &App, spec: &VariantSpec, area: Rect) {
    let (width, height) = app.board_size();
    let sfen = app.sfen();
    let board = board_of(&sfen, width);
    let last = app
        .replay
        .steps
        .last()
        .map(|s| move_squares(&s.usi))
        .unwrap_or_default();
    let in_check = app.replay.steps.last().is_some_and(|s| s.gives_check) && app.ended.is_none()
        || app
            .ended
            .is_some_and(|o| o.reason == tsubame_rules::EndReason::Checkmate);
    let to_move = app.side_to_move();
    let royal: Vec<&str> = spec
        .roles
        .iter()
        .filter(|r| r.royal)
        .map(|r| r.sfen)
        .collect();

    let files: Vec<u8> = if app.flipped {
        (1..=width).collect()
    } else {
        (1..=width).rev().collect()
    };
    let ranks: Vec<u8> = if app.flipped {
        (0..height).rev().collect()
    } else {
        (0..height).collect()
    };
    let mut lines: Vec<Line<'static>> = Vec::new();
    let (top, bottom) = if app.flipped {
        (Color::Sente, Color::Gote)
    } else {
        (Color::Gote, Color::Sente)
    };
    lines.push(hand_line(app, spec, top));
    let cell = usize::from(cell_width(spec));
    let header: String = files
        .iter()
        .map(|f| format!("{f:>3}{}", " ".repeat(cell.saturating_sub(3))))
        .collect();
    lines.push(Line::from(format!(" {header}")));
    for &rank in &ranks {
        let mut spans = vec![Span::raw(" ")];
        for &file in &files {
            let column = usize::from(width - file);
            let piece = board
                .get(usize::from(rank))
                .and_then(|row| row.get(column))
                .and_then(Option::as_ref);
            let name = format!("{file}{}", char::from(b'a' + rank));
            let mut style = Style::default();
            if last.contains(&name) {
                style = style.bg(Colour::Yellow).fg(Colour::Black);
            }
            if in_check
                && piece.is_some_and(|p| p.color == to_move && royal.contains(&p.code.as_str()))
            {
                style = style.bg(Colour::Red).fg(Colour::White);
            }
            if app.targets.iter().any(|t| t.to == name) {
                style = style.bg(Colour::Green).fg(Colour::Black);
            }
            if app.selected.as_deref() == Some(name.as_str()) {
                style = style.bg(Colour::Cyan).fg(Colour::Black);
            }
            if (file, rank) == app.cursor {
                style = style.add_modifier(Modifier::REVERSED);
            }
            spans.push(Span::styled(cell_text(spec, piece, app.latin), style));
        }
        spans.push(Span::raw(format!(" {}", char::from(b'a' + rank))));
        lines.push(Line::from(spans));
    }
    lines.push(hand_line(app, spec, bottom));
    let title = format!(" {} ", spec.title);
    frame.render_widget(
        Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title(title)),
        area,
    );
}

fn draw_panel(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let mut lines: Vec<Line<'static>> = Vec::new();
    for (side, name) in [(0, "sente"), (1, "gote")] {
        let who = if app.config.human[side] {
            "player"
        } else {
            "engine"
        };
        let mark = if side == 0 && app.side_to_move() == Color::Sente
            || side == 1 && app.side_to_move() == Color::Gote
        {
            ">"
        } else {
            " "
        };
        lines.push(Line::from(format!(
            "{mark}{name} ({who}) {}",
            clock_text(app, side)
        )));
    }
    lines.push(Line::from(""));
    let sente_first = app.replay.start_sfen.split(' ').nth(1) == Some("b");
    let offset = usize::from(!sente_first);
    let mut move_lines: Vec<String> = Vec::new();
    for (index, step) in app.replay.steps.iter().enumerate() {
        let ply = index + offset;
        if ply % 2 == 0 || index == 0 {
            let number = ply / 2 + 1;
            let lead = if ply % 2 == 1 { " ...     " } else { "" };
            move_lines.push(format!("{number:>3}. {lead}{:<8}", step.hodges));
        } else if let Some(last) = move_lines.last_mut() {
            last.push_str(&step.hodges);
        }
    }
    let room = usize::from(area.height.saturating_sub(5));
    let skip = move_lines.len().saturating_sub(room);
    lines.extend(move_lines.into_iter().skip(skip).map(Line::from));
    frame.render_widget(
        Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title(" moves ")),
        area,
    );
}

fn draw_footer(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let status = match (app.ended, app.thinking) {
        (Some(outcome), _) => format!("Game over: {outcome}. {}", app.message),
        (None, Some(false)) => format!(
            "{} to move; engine thinking... {}",
            app.side_to_move(),
            app.message
        ),
        (None, _) => {
            let check = if app.replay.steps.last().is_some_and(|s| s.gives_check) {
                " (check)"
            } else {
                ""
            };
            format!("{} to move{check}. {}", app.side_to_move(), app.message)
        }
    };
    let lines = vec![
        Line::from(Span::styled(
            status,
            Style::default().add_modifier(Modifier::BOLD),
        )),
        Line::from(format!("> {}_", app.input)),
        Line::from(
            "Enter:play ←→↑↓:cursor Tab:kanji/Latin ^U:undo ^E:hint ^R:resign ^S:save ^Q:quit",
        ),
    ];
    frame.render_widget(Paragraph::new(lines), area);
}
