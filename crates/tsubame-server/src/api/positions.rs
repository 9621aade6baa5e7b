//! `POST /api/positions/check`: a position set up in a board editor, checked against the
//! rules, each problem as a code and its particulars.

use crate::error::ApiError;
use crate::game::HostedGame;
use crate::request::ok;
use crate::request::{OptionsInput, parse_body, variant_of};
use crate::responses::{CheckedPosition, ErrorBody, PositionProblem};
use axum::body::Bytes;
use axum::response::Response;
use serde::Deserialize;
use utoipa::ToSchema;

/// What `POST /api/positions/check` reads: a position set up in a board editor.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckRequest {
    variant: String,
    #[serde(default)]
    options: OptionsInput,
    sfen: String,
}

/// The longest SFEN a check reads: a full Tenjiku board with every piece named is under 1 KiB.
const CHECKED_SFEN_BYTES: usize = 4096;

/// Checks a position set up in a board editor: every rule it breaks, each in words, or for a
/// playable one its SFEN and FEN as written canonically and what the side to move can do.
#[utoipa::path(post, path = "/api/positions/check", tag = "records", request_body = CheckRequest, responses((status = 200, description = "The position's problems, or its forms when it is playable", body = CheckedPosition), (status = 400, description = "A malformed request", body = ErrorBody)))]
pub(crate) async fn check_position(body: Bytes) -> Result<Response, ApiError> {
    let request: CheckRequest = parse_body(&body)?;
    let variant = variant_of(&request.variant)?;
    let options_text = request.options.to_text()?;
    if request.sfen.len() > CHECKED_SFEN_BYTES {
        return Err(ApiError::bad_request(format!(
            "a position of at most {CHECKED_SFEN_BYTES} bytes"
        )));
    }
    let options = tsubame_rules::Options::parse(variant.spec(), &options_text)
        .map_err(|error| ApiError::from_rules(error.into()))?;
    let sfen = request.sfen.trim();
    let unplayable = |details: Vec<PositionProblem>| CheckedPosition {
        playable: false,
        problems: details.iter().map(|detail| detail.text.clone()).collect(),
        details,
        sfen: None,
        fen: None,
        legal_moves: 0,
        check: false,
    };
    let problems: Vec<PositionProblem> = tsubame_rules::AnyPosition::sfen_problems(&options, sfen)
        .iter()
        .map(position_problem)
        .collect();
    if !problems.is_empty() {
        return Ok(ok(&unplayable(problems)));
    }
    Ok(ok(
        &match HostedGame::new(variant, &options_text, Some(sfen)) {
            Ok(game) => {
                let fen = game.fen();
                CheckedPosition {
                    playable: true,
                    problems: Vec::new(),
                    details: Vec::new(),
                    sfen: Some(game.sfen()),
                    fen: (!fen.is_empty()).then_some(fen),
                    legal_moves: game.legal_moves().len(),
                    check: game.check_square().is_some(),
                }
            }
            Err(error) => unplayable(vec![PositionProblem {
                code: "other",
                text: error.to_string(),
                ..PositionProblem::default()
            }]),
        },
    ))
}

/// A setup problem as a code and its particulars (see [`PositionProblem`]): the rules' own
/// ([`tsubame_rules::SetupProblem`]), with the problem in words.
fn position_problem(error: &tsubame_rules::SetupError) -> PositionProblem {
    let problem = error.problem();
    PositionProblem {
        code: problem.code,
        text: error.to_string(),
        side: problem.side.map(|side| side.to_string()),
        piece: problem.piece,
        square: problem.square,
        file: problem.file,
        count: problem.count,
        limit: problem.limit,
    }
}
