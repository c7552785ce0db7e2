//! Spawning the app and speaking to it.

use std::sync::Arc;

use reqwest::{Client, Method, RequestBuilder, Response, StatusCode};
use serde_json::{Value, json};
use tabula::{Application, Settings};
use tempfile::TempDir;

/// A database for one test: a temporary SQLite file, or a fresh database on
/// the PostgreSQL server named by `TABULA_TEST_POSTGRES` (for example
/// `postgres://tabula@127.0.0.1:54329/postgres`), dropped when the last clone
/// goes.
#[derive(Clone, Debug)]
pub struct TestDb {
    pub url: String,
    _dir: Arc<TempDir>,
    _postgres: Option<Arc<crate::postgres::Database>>,
}

/// The PostgreSQL server the suite runs against, if any.
pub fn postgres_server() -> Option<String> {
    std::env::var("TABULA_TEST_POSTGRES")
        .ok()
        .filter(|s| !s.is_empty())
}

pub async fn fresh_db() -> TestDb {
    let dir = Arc::new(tempfile::tempdir().expect("temp dir"));
    match postgres_server() {
        None => TestDb {
            url: format!("sqlite://{}", dir.path().join("tabula.db").display()),
            _dir: dir,
            _postgres: None,
        },
        Some(server) => {
            let db = crate::postgres::Database::create(&server).await;
            TestDb {
                url: db.url.clone(),
                _dir: dir,
                _postgres: Some(Arc::new(db)),
            }
        }
    }
}

/// A running app on a test database.
pub struct TestApp {
    pub base: String,
    pub client: Client,
    pub db: TestDb,
    /// The app's use cases, for steps no request triggers (the expiry
    /// sweeper's).
    pub service: tabula::service::Service,
    handle: actix_web::dev::ServerHandle,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// A seat: the game id, the seat and its token.
#[derive(Clone, Debug)]
#[allow(
    clippy::struct_field_names,
    reason = "the fields are named as the API names them"
)]
pub struct Seat {
    pub id: String,
    pub seat: String,
    pub token: String,
}

fn init_logs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if std::env::var("TEST_LOG").is_ok() {
            tabula::telemetry::init("debug", tabula::config::LogFormat::Text);
        }
    });
}

pub async fn spawn_app() -> TestApp {
    spawn_app_on(fresh_db().await, |_| {}).await
}

pub async fn spawn_app_with(configure: impl FnOnce(&mut Settings)) -> TestApp {
    spawn_app_on(fresh_db().await, configure).await
}

/// Spawns the app on `db` (which may already hold data, or serve another app).
pub async fn spawn_app_on(db: TestDb, configure: impl FnOnce(&mut Settings)) -> TestApp {
    init_logs();
    let mut settings = Settings::defaults();
    settings.addr = "127.0.0.1:0".into();
    settings.database_url = db.url.clone();
    settings.workers = 2;
    settings.read_pool = 2;
    settings.bot_budget_ms = 50;
    settings.shutdown_timeout = 1;
    // Tests make players by the dozen from one address; the limit's own
    // test sets it.
    settings.player_rate = 0;
    configure(&mut settings);
    let app = Application::build(&settings).await.expect("app builds");
    let base = format!("http://127.0.0.1:{}", app.port());
    let handle = app.handle();
    let service = app.service();
    let task = tokio::spawn(app.run_until_stopped());
    TestApp {
        base,
        client: Client::new(),
        db,
        service,
        handle,
        task,
    }
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.client.request(method, self.url(path))
    }

    /// Stops the server and waits until it has closed the database.
    pub async fn stop(self) -> TestDb {
        self.handle.stop(true).await;
        let _ = self.task.await;
        self.db
    }

    pub async fn get(&self, path: &str) -> Response {
        self.request(Method::GET, path)
            .send()
            .await
            .expect("request")
    }

    pub async fn get_json(&self, path: &str) -> Value {
        let res = self.get(path).await;
        assert_eq!(res.status(), StatusCode::OK, "GET {path}");
        res.json().await.expect("json")
    }

    /// GET with a seat's token; asserts 200 and gives the body.
    pub async fn get_json_as(&self, path: &str, token: &str) -> Value {
        let res = self
            .request(Method::GET, path)
            .bearer_auth(token)
            .send()
            .await
            .expect("request");
        assert_eq!(res.status(), StatusCode::OK, "GET {path}");
        res.json().await.expect("json")
    }

    /// POST with a JSON body and an optional token.
    pub async fn post(&self, path: &str, token: Option<&str>, body: &Value) -> Response {
        let mut req = self.request(Method::POST, path).json(body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        req.send().await.expect("request")
    }

    pub async fn create(&self, body: Value) -> Seat {
        let res = self.post("/v1/games", None, &body).await;
        assert_eq!(res.status(), StatusCode::CREATED, "create {body}");
        let v: Value = res.json().await.expect("json");
        seat_of(&v)
    }

    pub async fn create_kind(&self, kind: &str) -> Seat {
        self.create(json!({"kind": kind})).await
    }

    pub async fn join(&self, id: &str) -> Seat {
        let res = self
            .post(&format!("/v1/games/{id}/join"), None, &json!({}))
            .await;
        assert_eq!(res.status(), StatusCode::OK, "join");
        let v: Value = res.json().await.expect("json");
        seat_of(&v)
    }

    /// A two-player game: (X, O).
    pub async fn pair(&self, kind: &str) -> (Seat, Seat) {
        let x = self.create_kind(kind).await;
        let o = self.join(&x.id).await;
        (x, o)
    }

    /// A two-player game created with `body`: (X, O).
    pub async fn pair_with(&self, body: Value) -> (Seat, Seat) {
        let x = self.create(body).await;
        let o = self.join(&x.id).await;
        (x, o)
    }

    pub async fn play(&self, seat: &Seat, mv: Value) -> Response {
        self.post(
            &format!("/v1/games/{}/moves", seat.id),
            Some(&seat.token),
            &mv,
        )
        .await
    }

    /// Plays a move that must be accepted; returns the response body.
    pub async fn play_ok(&self, seat: &Seat, mv: Value) -> Value {
        let res = self.play(seat, mv.clone()).await;
        let status = res.status();
        let body: Value = res.json().await.expect("json");
        assert_eq!(status, StatusCode::CREATED, "move {mv} refused: {body}");
        body
    }

    pub async fn game(&self, id: &str) -> Value {
        self.get_json(&format!("/v1/games/{id}")).await
    }

    /// `seat` resigns the round (it must be accepted); the finished game.
    pub async fn resign(&self, seat: &Seat) -> Value {
        let res = self
            .post(
                &format!("/v1/games/{}/resign", seat.id),
                Some(&seat.token),
                &json!({}),
            )
            .await;
        assert_eq!(res.status(), StatusCode::OK, "resign");
        res.json().await.expect("json")
    }

    /// A new round agreed between two people: `by` offers a restart, `other`
    /// accepts; the game in its new round.
    pub async fn new_round(&self, by: &Seat, other: &Seat) -> Value {
        let res = self
            .post(
                &format!("/v1/games/{}/offers", by.id),
                Some(&by.token),
                &json!({"type": "restart"}),
            )
            .await;
        assert_eq!(res.status(), StatusCode::CREATED, "restart offered");
        let res = self
            .post(
                &format!("/v1/games/{}/offers/accept", by.id),
                Some(&other.token),
                &json!({}),
            )
            .await;
        assert_eq!(res.status(), StatusCode::OK, "restart accepted");
        res.json().await.expect("json")
    }

    /// A rematch between two people: `by` offers it (202), `other` accepts
    /// it (201); the accepting seat's grant (`game`, `seat`, `token`).
    pub async fn rematch(&self, by: &Seat, other: &Seat) -> Value {
        let path = format!("/v1/games/{}/rematch", by.id);
        let res = self.post(&path, Some(&by.token), &json!({})).await;
        assert_eq!(res.status(), StatusCode::ACCEPTED, "rematch offered");
        let res = self.post(&path, Some(&other.token), &json!({})).await;
        assert_eq!(res.status(), StatusCode::CREATED, "rematch accepted");
        res.json().await.expect("json")
    }
}

pub fn seat_of(v: &Value) -> Seat {
    Seat {
        id: v["game"]["id"].as_str().expect("id").to_owned(),
        seat: v["seat"].as_str().expect("seat").to_owned(),
        token: v["token"].as_str().expect("token").to_owned(),
    }
}

/// Asserts a problem+json answer with `status` and `code`; returns the body.
pub async fn assert_problem(res: Response, status: u16, code: &str) -> Value {
    assert_eq!(res.status().as_u16(), status, "status for expected {code}");
    let ct = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(ct, "application/problem+json");
    let body: Value = res.json().await.expect("problem json");
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["status"], status);
    assert_eq!(body["type"], "about:blank");
    assert!(body["title"].is_string() && body["detail"].is_string());
    body
}
