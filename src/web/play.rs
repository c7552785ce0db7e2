//! The play page: the bundle in `web/dist` (built from `web/src` by esbuild
//! and committed), embedded at compile time and served at `/play`. Building
//! or running the service needs no Node.
//!
//! Every address of the page (`/play`, `/play/games/{id}`, `/play/new?…`,
//! `/play/players/{id}`, `/play/tournaments/{id}`, `/play/position?…`)
//! answers the same HTML; the script reads the address and draws the view.
//! A game's address answers 404 when there is no such game, and any address
//! that no route takes answers a browser (`Accept: text/html`) with a page
//! saying so rather than JSON. The page is not part of the JSON API: it is
//! registered outside the OpenAPI document.

use std::sync::LazyLock;

use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, middleware, web};
use sha2::{Digest, Sha256};

use crate::api::{self, ApiError, AppState};
use crate::service::ServiceError;

/// One embedded file.
struct Asset {
    body: &'static [u8],
    content_type: &'static str,
    /// A strong validator: a hash of the body.
    etag: String,
}

impl Asset {
    fn new(body: &'static [u8], content_type: &'static str) -> Asset {
        let hash = Sha256::digest(body);
        Asset {
            body,
            content_type,
            etag: format!("\"{}\"", hex::encode(&hash[..8])),
        }
    }

    /// The file, or 304 when the browser's copy is current. `no-cache`:
    /// browsers revalidate on every load (a 304 costs one small round trip),
    /// so a new binary's page is never mixed with an old cached script.
    fn serve(&self, req: &HttpRequest) -> HttpResponse {
        let fresh = req
            .headers()
            .get(header::IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|tags| {
                tags.split(',')
                    .any(|t| t.trim() == self.etag || t.trim() == "*")
            });
        let mut res = if fresh {
            HttpResponse::NotModified()
        } else {
            HttpResponse::Ok()
        };
        res.insert_header((header::ETAG, self.etag.as_str()))
            .insert_header((header::CACHE_CONTROL, "no-cache"))
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
        if fresh {
            return res.finish();
        }
        res.insert_header((header::CONTENT_TYPE, self.content_type))
            .body(self.body)
    }
}

static INDEX: LazyLock<Asset> = LazyLock::new(|| {
    Asset::new(
        include_bytes!("../../web/dist/index.html"),
        "text/html; charset=utf-8",
    )
});
static SCRIPT: LazyLock<Asset> = LazyLock::new(|| {
    Asset::new(
        include_bytes!("../../web/dist/play.js"),
        "text/javascript; charset=utf-8",
    )
});
static STYLE: LazyLock<Asset> = LazyLock::new(|| {
    Asset::new(
        include_bytes!("../../web/dist/play.css"),
        "text/css; charset=utf-8",
    )
});

/// The page's policy: its own script, style and API only, and no framing.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; \
     object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

async fn page(req: HttpRequest) -> HttpResponse {
    let mut res = INDEX.serve(&req);
    res.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    res
}

/// A game's page; when there is no such game, the same page with 404 (its
/// script says so, with the way back to the lobby).
async fn game_page(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> HttpResponse {
    let known = match uuid::Uuid::parse_str(&id) {
        Ok(id) => !matches!(
            state.service.game(id).await,
            Err(ServiceError::GameNotFound)
        ),
        Err(_) => false,
    };
    if known {
        page(req).await
    } else {
        not_found_html(INDEX.body)
    }
}

async fn script(req: HttpRequest) -> HttpResponse {
    SCRIPT.serve(&req)
}

async fn style(req: HttpRequest) -> HttpResponse {
    STYLE.serve(&req)
}

/// The icon: an X and an O, as SVG (browsers ask for `/favicon.ico` and
/// take an SVG from it; the page links it too).
const FAVICON: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 32 32\">\
<rect width=\"32\" height=\"32\" rx=\"6\" fill=\"#0f766e\"/>\
<path d=\"M6 6l9 9M15 6l-9 9\" stroke=\"#fff\" stroke-width=\"3\" stroke-linecap=\"round\"/>\
<circle cx=\"21.5\" cy=\"21.5\" r=\"5\" fill=\"none\" stroke=\"#fde68a\" stroke-width=\"3\"/></svg>";

async fn favicon() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "image/svg+xml"))
        .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(FAVICON)
}

/// Any other address under `/play/` (and any a browser asks for that no
/// route takes): a page that says so, with the way back.
const NOT_FOUND: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<meta name=\"color-scheme\" content=\"light dark\"><title>Tabula: not found</title>\
<link rel=\"icon\" href=\"/favicon.ico\" type=\"image/svg+xml\">\
<link rel=\"stylesheet\" href=\"/play/play.css\"></head><body>\
<header><a href=\"/play\" class=\"brand\">Tabula</a></header>\
<main><section class=\"card\"><h2>No such page</h2>\
<p>There is nothing at this address. Games are at <code>/play/games/&lt;id&gt;</code>.</p>\
<p><a href=\"/play\">Lobby</a></p></section></main></body></html>";

async fn not_found_page() -> HttpResponse {
    not_found_html(NOT_FOUND.as_bytes())
}

/// 404 with an HTML `body`, under the page's policy.
fn not_found_html(body: &'static [u8]) -> HttpResponse {
    HttpResponse::NotFound()
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(body)
}

/// What no route takes: for a browser outside `/v1`, the page that says so;
/// otherwise the API's problem (404, or 405 with `Allow`).
///
/// # Errors
/// The API's problem, as [`api::not_found`] tells it.
pub async fn fallback(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let html = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"));
    let api_path = req.path() == "/v1" || req.path().starts_with("/v1/");
    if html && !api_path && matches!(*req.method(), actix_web::http::Method::GET) {
        return Ok(not_found_page().await);
    }
    Err(api::not_found(&req))
}

/// `/` leads to the page.
async fn home() -> HttpResponse {
    HttpResponse::Found()
        .insert_header((header::LOCATION, "/play"))
        .finish()
}

/// Another method than GET (or HEAD) on one of the page's addresses.
async fn get_only() -> Result<HttpResponse, ApiError> {
    Err(ApiError::MethodNotAllowed("GET, HEAD".into()))
}

/// Registers `/`, the page's addresses and its two assets (compressed when
/// the browser accepts it).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/")
            .get(home)
            .default_service(web::to(get_only)),
    )
    .service(
        web::resource([
            "/play",
            "/play/",
            "/play/new",
            "/play/players/{id}",
            "/play/tournaments/{id}",
            "/play/position",
        ])
        .get(page)
        .default_service(web::to(get_only))
        .wrap(middleware::Compress::default()),
    )
    .service(
        web::resource("/play/games/{id}")
            .get(game_page)
            .default_service(web::to(get_only))
            .wrap(middleware::Compress::default()),
    )
    .service(
        web::resource("/play/play.js")
            .get(script)
            .default_service(web::to(get_only))
            .wrap(middleware::Compress::default()),
    )
    .service(
        web::resource("/play/play.css")
            .get(style)
            .default_service(web::to(get_only))
            .wrap(middleware::Compress::default()),
    )
    .service(
        web::resource("/favicon.ico")
            .get(favicon)
            .default_service(web::to(get_only)),
    )
    // Last: every other address under `/play/`.
    .service(
        web::resource("/play/{rest:.*}")
            .get(not_found_page)
            .default_service(web::to(get_only)),
    );
}
