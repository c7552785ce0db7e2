//! What the service writes to its log and its metrics: one line per request
//! with its own id, a write job's lines in the span of the request that
//! queued it, and metric labels that stay bounded whatever clients send.
//!
//! A binary of its own: tracing caches which log lines are wanted per call
//! site for the whole process, so a subscriber set for one test would miss
//! lines whose call sites other tests' threads reached first.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers as well as tests may unwrap: the panic is the failure message"
)]

use chrono::Utc;
use tabula::domain::{GameRecord, Seat, TokenHash};
use tabula::rules::Setup;
use tabula::store::{Store, StoreError};
use uuid::Uuid;

/// Log lines written into a buffer the test can read.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_job_logs_in_the_span_of_the_request_that_queued_it() {
    use tracing::Instrument;
    let logs = Captured::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::DEBUG)
        .finish();
    // The process's subscriber, as the service's is: the SQLite writer runs
    // on a thread of its own (the only in-process subscriber of this binary:
    // its other tests read a child process's log).
    tracing::subscriber::set_global_default(subscriber).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("t.db").display());
    let store = Store::open(&url, 2).await.unwrap();
    let game = GameRecord {
        id: Uuid::now_v7(),
        seats: [
            Seat::Human {
                token: Some(TokenHash::of("x")),
            },
            Seat::Human { token: None },
        ],
        ..GameRecord::blank(Setup::ConnectFour)
    };
    let jobs = (0..2).map(|n| {
        let store = store.clone();
        let game = GameRecord {
            id: Uuid::now_v7(),
            ..game.clone()
        };
        async move {
            store
                .write::<(), StoreError>(
                    None,
                    Box::new(move |tx| {
                        Box::pin(async move {
                            tracing::info!("inside the job");
                            tx.insert_game(&game);
                            Ok(())
                        })
                    }),
                )
                .await
                .unwrap();
        }
        .instrument(tracing::info_span!("request", n))
    });
    futures_util::future::join_all(jobs).await;
    let text = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    let inside: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("inside the job"))
        .collect();
    assert_eq!(inside.len(), 2, "{text}");
    for n in 0..2 {
        let span = format!("request{{n={n}}}");
        assert_eq!(
            inside.iter().filter(|l| l.contains(&span)).count(),
            1,
            "{text}"
        );
    }
    assert!(
        text.lines()
            .any(|l| l.contains("writer_batch") && l.contains("batch committed")),
        "{text}"
    );
}

/// A `tabula` process whose standard output (its log) the test reads.
struct Running {
    child: std::process::Child,
    base: String,
    log: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the binary at its default log level on `database_url` (a fresh
/// SQLite file when `None`).
async fn spawn(database_url: Option<&str>) -> Running {
    spawn_with(database_url, &[]).await
}

/// As [`spawn`], with more settings in the environment.
async fn spawn_with(database_url: Option<&str>, env: &[(&str, &str)]) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let log = dir.path().join("log.txt");
    let url = database_url.map_or_else(
        || format!("sqlite://{}", dir.path().join("t.db").display()),
        str::to_owned,
    );
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_tabula"))
        .env("TABULA_ADDR", format!("127.0.0.1:{port}"))
        .env("DATABASE_URL", url)
        .env_remove("TABULA_LOG")
        .env_remove("RUST_LOG")
        .envs(env.iter().copied())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .unwrap();
    let running = Running {
        child,
        base: format!("http://127.0.0.1:{port}"),
        log,
        _dir: dir,
    };
    let client = reqwest::Client::new();
    for _ in 0..400 {
        if let Ok(res) = client.get(format!("{}/readyz", running.base)).send().await
            && res.status() == 200
        {
            return running;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("tabula did not become ready");
}

/// 200 requests at once: games created, moves played, games read. Returns
/// the log they wrote and how many requests there were.
async fn concurrent_requests(base: &str) -> usize {
    let client = reqwest::Client::new();
    let tasks = (0..50).map(|_| {
        let client = client.clone();
        let base = base.to_owned();
        tokio::spawn(async move {
            let created: serde_json::Value = client
                .post(format!("{base}/v1/games"))
                .json(&serde_json::json!({"kind": "connect_four", "hotseat": true}))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let id = created["game"]["id"].as_str().unwrap().to_owned();
            let token = created["token"].as_str().unwrap().to_owned();
            for column in [3, 3] {
                let res = client
                    .post(format!("{base}/v1/games/{id}/moves"))
                    .bearer_auth(&token)
                    .json(&serde_json::json!({"column": column}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(res.status(), 201);
            }
            let res = client
                .get(format!("{base}/v1/games/{id}"))
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), 200);
        })
    });
    for t in futures_util::future::join_all(tasks).await {
        t.unwrap();
    }
    200
}

/// Every line names at most one request, and each request's own line is
/// there; the bytes per request stay those of one short line.
fn assert_one_request_per_line(log: &str, requests: usize) {
    let mut request_lines = 0;
    for line in log.lines() {
        let ids = line.matches("request_id").count();
        assert!(ids <= 1, "a line names {ids} requests: {line}");
        if line.contains(" request ") || line.ends_with(" request") {
            request_lines += 1;
        }
    }
    assert!(
        request_lines >= requests,
        "{request_lines} request lines for {requests} requests"
    );
    let per_request = log.len() / requests;
    assert!(per_request < 600, "{per_request} bytes of log per request");
}

async fn check_log_lines(database_url: Option<&str>) {
    let service = spawn(database_url).await;
    let requests = concurrent_requests(&service.base).await;
    // The log line is written after the answer is sent: give it a moment.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let log = std::fs::read_to_string(&service.log).unwrap();
    assert_one_request_per_line(&log, requests);
}

/// A request's line (written by the service itself, not by tracing's
/// formatter) has the shape of tracing's text lines: time in microseconds,
/// level, target, message and fields in order, with the request's own values.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_line_reads_as_tracings_text_lines_do() {
    let service = spawn(None).await;
    let before = Utc::now();
    let res = reqwest::Client::new()
        .get(format!("{}/v1/games/no%20such?x=1", service.base))
        .header("x-request-id", "line-shape-1")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let log = std::fs::read_to_string(&service.log).unwrap();
    let line = log
        .lines()
        .find(|l| l.contains("request_id=line-shape-1"))
        .unwrap_or_else(|| panic!("no line for the request in {log}"));
    let (time, rest) = line.split_once("Z  INFO ").unwrap();
    assert_eq!(time.len(), "2026-11-26T07:17:38.886577".len(), "{line}");
    let at = chrono::NaiveDateTime::parse_from_str(time, "%Y-%m-%dT%H:%M:%S%.6f")
        .unwrap()
        .and_utc();
    assert!(
        at >= before - chrono::Duration::seconds(1) && at <= Utc::now(),
        "{at} is not the request's time ({before})"
    );
    let micros = rest
        .strip_prefix(
            "tabula::telemetry: request request_id=line-shape-1 method=GET \
             path=/v1/games/no%20such route=/v1/games/{id} status=404 micros=",
        )
        .unwrap_or_else(|| panic!("{line}"));
    assert!(micros.parse::<u64>().is_ok(), "{line}");
    // The lines tracing writes itself (the start) have the same shape.
    let serving = log
        .lines()
        .find(|l| l.contains("tabula is serving"))
        .unwrap();
    assert!(
        serving.contains("Z  INFO tabula: tabula is serving"),
        "{serving}"
    );
    assert_eq!(serving.find('Z'), line.find('Z'));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_concurrency_each_log_line_names_only_its_own_request() {
    check_log_lines(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_concurrency_each_log_line_names_only_its_own_request_on_postgres() {
    let Ok(url) = std::env::var("TABULA_TEST_POSTGRES") else {
        eprintln!("skipped: TABULA_TEST_POSTGRES is not set");
        return;
    };
    check_log_lines(Some(&url)).await;
}

/// The number of series of the request counter in `/metrics`.
async fn request_series(client: &reqwest::Client, base: &str) -> usize {
    let text = client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .filter(|l| l.starts_with("tabula_http_requests_total{") && !l.contains("/metrics"))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn odd_methods_and_paths_do_not_grow_the_metrics() {
    let service = spawn(None).await;
    let client = reqwest::Client::new();
    let odd = |n: usize| reqwest::Method::from_bytes(format!("X{n}").as_bytes()).unwrap();
    for n in 0..5 {
        let _ = client
            .request(odd(n), format!("{}/v1/games/{n}", service.base))
            .send()
            .await
            .unwrap();
        let _ = client
            .get(format!("{}/nowhere/{n}", service.base))
            .send()
            .await
            .unwrap();
    }
    let before = request_series(&client, &service.base).await;
    for n in 5..300 {
        let _ = client
            .request(odd(n), format!("{}/v1/games/{n}", service.base))
            .send()
            .await
            .unwrap();
        let _ = client
            .get(format!("{}/nowhere/{n}", service.base))
            .send()
            .await
            .unwrap();
    }
    let after = request_series(&client, &service.base).await;
    assert_eq!(before, after, "300 odd methods made new series");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_for_load_is_one_line_at_warn_with_its_cause() {
    let service = spawn_with(None, &[("TABULA_MAX_STREAMS", "1")]).await;
    let client = reqwest::Client::new();
    let created: serde_json::Value = client
        .post(format!("{}/v1/games", service.base))
        .json(&serde_json::json!({"kind": "tic_tac_toe"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let path = format!(
        "{}/v1/games/{}/events",
        service.base,
        created["game"]["id"].as_str().unwrap()
    );
    let held = client.get(&path).send().await.unwrap();
    assert_eq!(held.status(), 200);
    let mut ids = Vec::new();
    for _ in 0..5 {
        let refused = client.get(&path).send().await.unwrap();
        assert_eq!(refused.status(), 503);
        ids.push(
            refused.headers()["x-request-id"]
                .to_str()
                .unwrap()
                .to_owned(),
        );
    }
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let log = std::fs::read_to_string(&service.log).unwrap();
    assert!(
        !log.contains("ERROR"),
        "a refusal for load logged an error:\n{log}"
    );
    for id in &ids {
        let lines: Vec<&str> = log.lines().filter(|l| l.contains(id.as_str())).collect();
        assert_eq!(lines.len(), 1, "request {id}: {lines:?}");
        assert!(lines[0].contains("WARN"), "{}", lines[0]);
        assert!(lines[0].contains("status=503"), "{}", lines[0]);
        assert!(
            lines[0].contains("event streams"),
            "the cause: {}",
            lines[0]
        );
    }
    drop(held);
}

/// A request the HTTP layer cannot parse (a header that is not one, a
/// request line or head over its limit) is the client's mistake: it is
/// answered 4xx and writes no ERROR line (any client could fill the log
/// with them), and the service goes on.
#[tokio::test]
async fn a_request_that_cannot_be_parsed_writes_no_error_line() {
    use std::io::{Read, Write};
    let service = spawn(None).await;
    let addr = service.base.trim_start_matches("http://").to_owned();
    let long = format!(
        "GET /v1/kinds?{} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(70_000)
    );
    let longer = format!(
        "GET /v1/kinds?{} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(1_000_000)
    );
    let requests = [
        "GET /v1/kinds HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n".to_owned(),
        "GET /v1/kinds HTTP/1.1\r\nHost: x\r\nX-A: \u{1}\r\n\r\n".to_owned(),
        long,
        longer,
    ];
    for request in &requests {
        let addr = addr.clone();
        let sent = request.clone();
        let status = tokio::task::spawn_blocking(move || {
            let mut stream = std::net::TcpStream::connect(addr).unwrap();
            stream
                .set_read_timeout(Some(std::time::Duration::from_secs(5)))
                .unwrap();
            // The server may answer and close before it has read it all.
            let _ = stream.write_all(sent.as_bytes());
            let mut answer = Vec::new();
            let _ = stream.read_to_end(&mut answer);
            String::from_utf8_lossy(&answer)
                .lines()
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .await
        .unwrap();
        assert!(
            status.starts_with("HTTP/1.1 4"),
            "{status:?} for {:?}",
            &request[..40]
        );
    }
    let ok = reqwest::get(format!("{}/v1/kinds", service.base))
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let log = std::fs::read_to_string(&service.log).unwrap();
    assert!(
        !log.contains("ERROR"),
        "a client's mistake logged an error:\n{log}"
    );
    assert!(log.contains("/v1/kinds"), "the service logs on:\n{log}");
}
