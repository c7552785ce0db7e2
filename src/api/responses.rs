//! Reusable OpenAPI responses for errors: one per status, each a
//! problem+json body with an example of its codes.
//!
//! The newtypes exist for their OpenAPI description only; nothing reads them.
#![expect(dead_code, reason = "response types are only used for their schema")]

use utoipa::ToResponse;

use super::error::Problem;

/// `malformed_request`: the body is not JSON, has unknown fields or wrong types, a move has
/// another kind's shape, or a header/query parameter is invalid.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", example = json!({
    "type": "about:blank", "title": "Malformed request", "status": 400,
    "code": "malformed_request", "detail": "a connect_four move looks like {\"column\": c}"}))]
pub struct BadRequest(#[to_schema] Problem);

/// `missing_token`: no `Authorization: Bearer <token>` header.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", example = json!({
    "type": "about:blank", "title": "Missing token", "status": 401,
    "code": "missing_token", "detail": "a bearer token is required"}))]
pub struct Unauthorized(#[to_schema] Problem);

/// `invalid_token`: the token is not a seat of this game.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", example = json!({
    "type": "about:blank", "title": "Invalid token", "status": 403,
    "code": "invalid_token", "detail": "the token is not a seat of this game"}))]
pub struct Forbidden(#[to_schema] Problem);

/// `game_not_found` (also for an id that is not a UUID) or `position_not_found`.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", example = json!({
    "type": "about:blank", "title": "Game not found", "status": 404,
    "code": "game_not_found", "detail": "no such game"}))]
pub struct NotFound(#[to_schema] Problem);

/// `not_your_turn` (with `turn`), `game_over`, `waiting_for_opponent` or `no_open_seat`.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", example = json!({
    "type": "about:blank", "title": "Not your turn", "status": 409,
    "code": "not_your_turn", "detail": "it is O's turn", "turn": "O"}))]
pub struct Conflict(#[to_schema] Problem);

/// `version_mismatch`: `If-Match` names another version; `game` is the game now.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", example = json!({
    "type": "about:blank", "title": "Version mismatch", "status": 412,
    "code": "version_mismatch", "detail": "the game is at version 15"}))]
pub struct PreconditionFailed(#[to_schema] Problem);

/// `payload_too_large`: the body is over the limit.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", example = json!({
    "type": "about:blank", "title": "Payload too large", "status": 413,
    "code": "payload_too_large", "detail": "payload too large: the limit is 4096 bytes"}))]
pub struct PayloadTooLarge(#[to_schema] Problem);

/// `unsupported_media_type`: the body is not `application/json`.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", example = json!({
    "type": "about:blank", "title": "Unsupported media type", "status": 415,
    "code": "unsupported_media_type", "detail": "unsupported media type"}))]
pub struct UnsupportedMediaType(#[to_schema] Problem);

/// `illegal_move` (with `reason` and `legal_moves`) or `invalid_option`.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", example = json!({
    "type": "about:blank", "title": "Illegal move", "status": 422, "code": "illegal_move",
    "reason": "column_full", "detail": "column 3 is full",
    "legal_moves": [{"column": 0}, {"column": 1}, {"column": 2}, {"column": 4}, {"column": 5}, {"column": 6}]}))]
pub struct Unprocessable(#[to_schema] Problem);

/// `internal`: an unexpected error; the body says nothing more, the cause is logged.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json", example = json!({
    "type": "about:blank", "title": "Internal error", "status": 500,
    "code": "internal", "detail": "an internal error occurred"}))]
pub struct Internal(#[to_schema] Problem);

/// `storage_unavailable`: the database cannot take writes now; nothing was changed, retry later.
#[derive(ToResponse)]
#[response(content_type = "application/problem+json",
    headers(("Retry-After" = u32, description = "Seconds to wait before retrying")),
    example = json!({
    "type": "about:blank", "title": "Storage unavailable", "status": 503,
    "code": "storage_unavailable", "detail": "the database cannot take writes now; nothing was changed, retry later"}))]
pub struct Unavailable(#[to_schema] Problem);
