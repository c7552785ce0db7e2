//! `GET /v1/kinds` (OpenAPI tag `kinds`).

use actix_web::{HttpResponse, get};

use super::extract::NoQuery;
use super::responses::BadRequest;
use super::wire::KindList;

/// List the game kinds.
///
/// Board sizes, the shape of a move, the options each kind takes at creation
/// and their defaults.
#[utoipa::path(
    tag = "kinds",
    responses(
        (status = 200, description = "The kinds, with their board sizes, move shapes, options and defaults", body = KindList),
        (status = 400, response = BadRequest),
    ),
)]
#[get("/kinds")]
pub async fn list_kinds(_: NoQuery) -> HttpResponse {
    HttpResponse::Ok().json(KindList::all())
}
