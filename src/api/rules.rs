//! Handlers of the OpenAPI tag `rules`: any position of any kind from a
//! line, one or a batch of them, and a line's analysis. Nothing is stored,
//! no token is needed, and the same request gets the same answer.

use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use sha2::{Digest, Sha256};

use super::AppState;
use super::client_ip::ClientAddr;
use super::error::ApiError;
use super::extract::{Body, NoQuery, Query, path_kind};
use super::responses::{
    BadRequest, BatchUnavailable, BodyErrors, BotUnavailableNoStore, Internal, KindNotFound,
    UnprocessableLine, UnprocessableLines,
};
use super::wire::{
    AnalysisView, Kind, LineAnalysis, LineAnalysisQuery, Position, PositionBatch, PositionItem,
    PositionList, PositionQuery,
};
use crate::domain::Level;
use crate::rules::AnyGame;
use crate::service::ServiceError;
use crate::service::rules::MAX_LINES;

type ApiResult = Result<HttpResponse, ApiError>;

/// The level used when a request names none (as for hints).
const DEFAULT_LEVEL: Level = Level::Medium;

/// The largest body of a batch of lines (the service's `--body-limit` is
/// for moves and the like).
pub const BATCH_BODY_LIMIT: usize = 256 * 1024;

/// A position answers the same for ever: caches may keep it a year.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The `ETag` of an answer: a digest of its body (with the service's
/// version, so that a new release that words an answer differently is not
/// taken for the old one).
fn digest_tag(body: &[u8]) -> HeaderValue {
    let mut hash = Sha256::new();
    hash.update(env!("CARGO_PKG_VERSION").as_bytes());
    hash.update(body);
    let hex = hex::encode(&hash.finalize()[..12]);
    HeaderValue::from_str(&format!("\"{hex}\"")).unwrap_or(HeaderValue::from_static("\"0\""))
}

/// A position from a line.
///
/// The position after `moves` (the kind's notation, from the start; empty:
/// the start position), with what a game's state shows: the side to move,
/// status, winner and winning line, board, legal moves and threats.
/// Options as `GET /v1/kinds` names them (`size`, `rule` for Gomoku). Nothing
/// is stored and no token is needed; the answer never changes, so it is
/// cacheable for good (`ETag`, `Cache-Control: immutable`; `If-None-Match`
/// with its `ETag` → 304). A bad line is refused as a set-up line at create:
/// 422 `illegal_move` with the 0-based `index` of its first bad move and
/// `reason`.
#[utoipa::path(
    tag = "rules",
    params(("kind" = Kind, Path, description = "The kind"), PositionQuery),
    responses(
        (status = 200, description = "The position after the line", body = Position,
            headers(
                ("ETag" = String, description = "A digest of the answer"),
                ("Cache-Control" = String, description = "`public, max-age=31536000, immutable`"),
            )),
        (status = 304, description = "`If-None-Match` named the answer's `ETag`: nothing is sent"),
        (status = 400, response = BadRequest),
        (status = 404, response = KindNotFound),
        (status = 422, response = UnprocessableLine),
        (status = 500, response = Internal),
    ),
)]
#[get("/{kind}/positions")]
pub async fn get_rules_position(
    state: web::Data<AppState>,
    req: HttpRequest,
    client: ClientAddr,
    query: Query<PositionQuery>,
) -> ApiResult {
    let kind = path_kind(&req)?;
    let line = query.into_inner().line(kind)?;
    state.rules.charge(client.0, cells(line.position()))?;
    let body = serde_json::to_vec(&Position::from(&line))
        .map_err(|e| ApiError::from(crate::service::ServiceError::Internal(e.to_string())))?;
    Ok(HttpResponse::Ok()
        .content_type("application/json")
        .insert_header((header::ETAG, digest_tag(&body)))
        .insert_header((header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE)))
        .body(body))
}

/// Positions from many lines.
///
/// Up to 100 lines of one kind (and its `options`), each answered as
/// `GET /v1/rules/{kind}/positions` answers it: its position, or the
/// problem of its first bad move (`illegal_move` with `index` and
/// `reason`), in the order of the lines. More than 100 lines → 422
/// `too_many_lines`. The body may hold up to 256 KiB. Nothing is stored.
///
/// Each client may have `--rules-rate` cells of positions built a second
/// (lines × the board's cells, 250,000 by default, this route and the
/// single position's together; bursts of two full batches of 25x25): past
/// it, 429 `rate_limited` with `Retry-After`. Batches are built a few at a
/// time, off the threads that serve moves: 503 `busy` when too many wait.
#[utoipa::path(
    tag = "rules",
    params(("kind" = Kind, Path, description = "The kind")),
    request_body = PositionBatch,
    responses(
        (status = 200, description = "One answer per line, in order", body = PositionList),
        (status = 400, response = BadRequest),
        (status = 404, response = KindNotFound),
        BodyErrors,
        (status = 422, response = UnprocessableLines),
        (status = 500, response = Internal),
        (status = 503, response = BatchUnavailable),
    ),
)]
#[post("/{kind}/positions")]
pub async fn post_rules_positions(
    state: web::Data<AppState>,
    req: HttpRequest,
    client: ClientAddr,
    _: NoQuery,
    body: Body,
) -> ApiResult {
    let kind = path_kind(&req)?;
    let batch: PositionBatch = body.json()?;
    if batch.lines.len() > MAX_LINES {
        return Err(ApiError::TooManyLines(batch.lines.len()));
    }
    let setup = batch.setup(kind)?;
    let lines = u64::try_from(batch.lines.len()).unwrap_or(u64::MAX);
    state
        .rules
        .charge(client.0, lines.saturating_mul(cells(&AnyGame::new(setup))))?;
    // Built and written on a blocking thread, a few batches at a time: the
    // HTTP workers stay free for moves.
    let builder = state.rules.builder().await?;
    let body = web::block(move || {
        let _builder = builder;
        let items = batch
            .lines
            .iter()
            .map(|text| match crate::service::rules::position(setup, text) {
                Ok(line) => PositionItem::Position(Box::new(Position::from(&line))),
                Err(e) => PositionItem::Problem(Box::new(ApiError::from(e).problem())),
            })
            .collect();
        serde_json::to_vec(&PositionList { items })
    })
    .await
    .map_err(|e| ServiceError::Internal(format!("batch task failed: {e}")))?
    .map_err(|e| ServiceError::Internal(e.to_string()))?;
    Ok(HttpResponse::Ok()
        .content_type("application/json")
        .body(body))
}

/// What a position costs to build and to write: its board's cells.
fn cells(position: &AnyGame) -> u64 {
    let (rows, cols) = position.dims();
    u64::from(rows) * u64::from(cols)
}

/// A line's analysis.
///
/// The position after `moves` and every legal move of the side to move,
/// evaluated at `level` (default `medium`) as a game's analysis is, best
/// first, within `work` (alpha-beta nodes; playouts in ultimate
/// tic-tac-toe): the same request always gets the same answer. At
/// `perfect`, Connect Four's solver gives exact scores (`exact`: every
/// evaluation proven) when it finishes within `work` nodes. The search takes
/// a place in the bots' queue as a hint does (503 `busy` when it is full or
/// this client holds its share). Nothing is stored, no token is needed.
#[utoipa::path(
    tag = "rules",
    params(("kind" = Kind, Path, description = "The kind"), LineAnalysisQuery),
    responses(
        (status = 200, description = "The position and every legal move with its evaluation, best first", body = LineAnalysis),
        (status = 400, response = BadRequest),
        (status = 404, response = KindNotFound),
        (status = 422, response = UnprocessableLine),
        (status = 500, response = Internal),
        (status = 503, response = BotUnavailableNoStore),
    ),
)]
#[get("/{kind}/analysis")]
pub async fn get_rules_analysis(
    state: web::Data<AppState>,
    req: HttpRequest,
    query: Query<LineAnalysisQuery>,
    client: ClientAddr,
) -> ApiResult {
    let kind = path_kind(&req)?;
    let query = query.into_inner();
    let line = query.line(kind)?;
    let level = query.level.map_or(DEFAULT_LEVEL, Into::into);
    let analysis = state
        .service
        .analyse_position(line.position().clone(), level, query.work, client.0)
        .await?;
    Ok(HttpResponse::Ok().json(LineAnalysis {
        position: Position::from(&line),
        analysis: AnalysisView::from(&analysis),
        stopped_on_time: analysis.analysis.stopped_on_time,
    }))
}
