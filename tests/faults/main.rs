//! Faults, against the real binary run as a child process: `kill -9` under
//! load, SIGTERM with a request in flight, a full disk, and a low limit of
//! open files.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers as well as tests may unwrap: the panic is the failure message"
)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reqwest::Client;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[path = "../common/receiver.rs"]
mod receiver;
// A PostgreSQL failover under load (TABULA_TEST_FAILOVER=1).
mod failover;
// Low limits of open files: raised, and streams refused before files run out.
mod limits;

/// A running `tabula` process.
struct Service {
    child: Child,
    base: String,
    addr: String,
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

async fn start(db: &Path) -> Service {
    start_in(Command::new(env!("CARGO_BIN_EXE_tabula")), db).await
}

/// Starts the binary after `ulimit {limit}` (a shell's: `-n 256`, `-Sn 256`).
async fn start_with_ulimit(db: &Path, limit: &str) -> Service {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("ulimit {limit} && exec \"$0\""))
        .arg(env!("CARGO_BIN_EXE_tabula"));
    start_in(command, db).await
}

async fn start_in(command: Command, db: &Path) -> Service {
    start_on(command, &format!("sqlite://{}", db.display())).await
}

/// Starts `command` (the binary) on the database at `url`; waits until ready.
async fn start_on(mut command: Command, url: &str) -> Service {
    let addr = format!("127.0.0.1:{}", free_port());
    let child = command
        .env("TABULA_ADDR", &addr)
        .env("DATABASE_URL", url)
        .env("TABULA_LOG", "warn")
        .env("TABULA_SHUTDOWN_TIMEOUT", "10")
        .env_remove("RUST_LOG")
        .stdout(if std::env::var("TEST_LOG").is_ok() {
            Stdio::inherit()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::inherit())
        .spawn()
        .expect("tabula starts");
    let service = Service {
        child,
        base: format!("http://{addr}"),
        addr,
    };
    let client = Client::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(res) = client.get(format!("{}/readyz", service.base)).send().await
            && res.status() == 200
        {
            return service;
        }
        assert!(Instant::now() < deadline, "tabula did not become ready");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn create_hotseat(client: &Client, base: &str, kind: &str) -> (String, String, Value) {
    let v: Value = client
        .post(format!("{base}/v1/games"))
        .json(&json!({"kind": kind, "hotseat": true}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    (
        v["game"]["id"].as_str().unwrap().to_owned(),
        v["token"].as_str().unwrap().to_owned(),
        v["game"].clone(),
    )
}

/// The fields of a game that depend only on the position.
fn position_fields(g: &Value) -> Value {
    json!({"board": g["board"], "status": g["status"], "turn": g["turn"], "ply": g["ply"],
           "legal_moves": g["legal_moves"], "threats": g["threats"], "winner": g["winner"]})
}

async fn get_json(client: &Client, url: &str) -> Value {
    client.get(url).send().await.unwrap().json().await.unwrap()
}

async fn assert_snapshot_equals_replay(client: &Client, base: &str, id: &str) -> Value {
    let game: Value = get_json(client, &format!("{base}/v1/games/{id}")).await;
    let ply = game["ply"].as_u64().unwrap();
    let replayed: Value = get_json(client, &format!("{base}/v1/games/{id}/positions/{ply}")).await;
    assert_eq!(
        position_fields(&game),
        position_fields(&replayed),
        "game {id}"
    );
    game
}

/// An acknowledged (201) move.
#[derive(Clone, Debug)]
struct Acked {
    game: String,
    round: u64,
    ply: u64,
    mv: Value,
}

/// Plays random games until a request fails (the service died).
async fn keep_playing(client: Client, base: String, seed: u64, acked: Arc<Mutex<Vec<Acked>>>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    loop {
        let Ok(res) = client
            .post(format!("{base}/v1/games"))
            .json(&json!({"kind": "connect_four", "hotseat": true}))
            .send()
            .await
        else {
            return;
        };
        let Ok(v) = res.json::<Value>().await else {
            return;
        };
        let id = v["game"]["id"].as_str().unwrap_or_default().to_owned();
        let token = v["token"].as_str().unwrap_or_default().to_owned();
        let mut game = v["game"].clone();
        while game["status"] == "in_progress" {
            let legal = game["legal_moves"].as_array().unwrap().clone();
            let mv = legal[rng.random_range(0..legal.len())].clone();
            let Ok(res) = client
                .post(format!("{base}/v1/games/{id}/moves"))
                .bearer_auth(&token)
                .json(&mv)
                .send()
                .await
            else {
                return;
            };
            if res.status() != 201 {
                return;
            }
            let Ok(body) = res.json::<Value>().await else {
                return;
            };
            acked.lock().unwrap().push(Acked {
                game: id.clone(),
                round: body["move"]["round"].as_u64().unwrap(),
                ply: body["move"]["ply"].as_u64().unwrap(),
                mv: body["move"]["move"].clone(),
            });
            game = body["game"].clone();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_9_under_load_loses_no_acknowledged_move() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("tabula.db");
    let mut service = start(&db).await;
    let client = Client::new();
    let acked = Arc::new(Mutex::new(Vec::new()));
    let players: Vec<_> = (0..16)
        .map(|seed| {
            tokio::spawn(keep_playing(
                client.clone(),
                service.base.clone(),
                seed,
                acked.clone(),
            ))
        })
        .collect();
    // Let the load run until a good number of moves were answered, then kill.
    let deadline = Instant::now() + Duration::from_secs(20);
    while acked.lock().unwrap().len() < 300 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    service.child.kill().expect("kill -9");
    service.child.wait().unwrap();
    for p in players {
        p.await.unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    assert!(
        acked.len() >= 300,
        "only {} moves were answered",
        acked.len()
    );

    let service = start(&db).await;
    let mut games: Vec<String> = acked.iter().map(|a| a.game.clone()).collect();
    games.sort();
    games.dedup();
    for id in &games {
        let history: Value = get_json(
            &client,
            &format!("{}/v1/games/{id}/moves?round=1", service.base),
        )
        .await;
        let items = history["items"].as_array().unwrap();
        for a in acked.iter().filter(|a| &a.game == id) {
            assert_eq!(a.round, 1);
            let stored = items
                .get(usize::try_from(a.ply).unwrap() - 1)
                .unwrap_or_else(|| panic!("acknowledged move {a:?} is missing"));
            assert_eq!(stored["move"], a.mv, "{a:?}");
            assert_eq!(stored["ply"], a.ply);
        }
        assert_snapshot_equals_replay(&client, &service.base, id).await;
    }
    // The service serves again.
    let (id, token, game) = create_hotseat(&client, &service.base, "connect_four").await;
    let res = client
        .post(format!("{}/v1/games/{id}/moves", service.base))
        .bearer_auth(&token)
        .json(&game["legal_moves"][0])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_lets_in_flight_requests_finish_refuses_new_ones_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let mut service = start(&dir.path().join("tabula.db")).await;
    let client = Client::new();
    let (id, token, _) = create_hotseat(&client, &service.base, "connect_four").await;

    // A request in flight: headers and half of the body sent.
    let body = br#"{"column": 3}"#;
    let mut conn = tokio::net::TcpStream::connect(&service.addr).await.unwrap();
    let head = format!(
        "POST /v1/games/{id}/moves HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        service.addr,
        body.len()
    );
    conn.write_all(head.as_bytes()).await.unwrap();
    conn.write_all(&body[..5]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;

    let pid = service.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    // New connections are refused once the listener is closed.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if tokio::net::TcpStream::connect(&service.addr).await.is_err() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still accepting connections after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The request in flight completes.
    conn.write_all(&body[5..]).await.unwrap();
    let mut answer = String::new();
    conn.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    // And the process exits 0.
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = service.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "did not exit after SIGTERM");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status:?}");
    // The move is durable.
    let service = start(&dir.path().join("tabula.db")).await;
    let game: Value = get_json(&client, &format!("{}/v1/games/{id}", service.base)).await;
    assert_eq!(game["ply"], 1);
}

/// The writer keeps its prepared statements on its connection between
/// batches; they must be finalized before the connection closes (sqlx
/// panics on closing a connection with statements left, in its own thread:
/// the exit status would not show it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_moves_a_sigterm_closes_the_writers_connection_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .env("TABULA_ADDR", &addr)
        .env(
            "DATABASE_URL",
            format!("sqlite://{}", dir.path().join("tabula.db").display()),
        )
        .env("TABULA_LOG", "warn")
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tabula starts");
    let base = format!("http://{addr}");
    let client = Client::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !client
        .get(format!("{base}/readyz"))
        .send()
        .await
        .is_ok_and(|r| r.status() == 200)
    {
        assert!(Instant::now() < deadline, "tabula did not become ready");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (id, token, _) = create_hotseat(&client, &base, "connect_four").await;
    for column in [3, 3, 4] {
        let res = client
            .post(format!("{base}/v1/games/{id}/moves"))
            .bearer_auth(&token)
            .json(&json!({ "column": column }))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
    }
    assert!(
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap()
            .success()
    );
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{:?}: {said}", out.status);
    assert!(
        !said.contains("panicked") && !said.contains("unfinalized"),
        "{said}"
    );
}

#[test]
fn a_port_in_use_is_refused_naming_the_setting_before_the_database_is_created() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .env("TABULA_ADDR", &addr)
        .env(
            "DATABASE_URL",
            format!("sqlite://{}", dir.path().join("tabula.db").display()),
        )
        .env_remove("RUST_LOG")
        .env_remove("TABULA_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tabula starts");
    // It must give up at once, not serve: never wait for ever.
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("tabula kept running on a port in use");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    assert!(!out.status.success(), "{:?}: {said}", out.status);
    assert!(
        said.contains(&addr) && said.contains("--addr") && said.contains("TABULA_ADDR"),
        "the error names neither the address nor its setting: {said}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        left.is_empty(),
        "the database was created although the service could not listen: {left:?}"
    );
    drop(taken);
}

/// A small tmpfs for the database, unmounted on drop.
struct Mount(PathBuf);

impl Mount {
    fn new(dir: &Path, size: &str) -> Option<Mount> {
        let path = dir.join("mnt");
        std::fs::create_dir_all(&path).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&path)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(Mount(path))
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

async fn try_move(
    client: &Client,
    base: &str,
    id: &str,
    token: &str,
    game: &Value,
) -> reqwest::Response {
    client
        .post(format!("{base}/v1/games/{id}/moves"))
        .bearer_auth(token)
        .json(&game["legal_moves"][0])
        .send()
        .await
        .unwrap()
}

async fn assert_storage_unavailable(res: reqwest::Response) {
    assert_eq!(res.status(), 503);
    assert!(res.headers().contains_key("retry-after"));
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["code"], "storage_unavailable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_refuses_moves_with_503_and_the_service_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mount) = Mount::new(dir.path(), "8m") else {
        eprintln!("skipped: mounting a tmpfs needs root");
        return;
    };
    let service = start(&mount.0.join("tabula.db")).await;
    let client = Client::new();
    let (id, token, mut game) = create_hotseat(&client, &service.base, "gomoku").await;
    for _ in 0..3 {
        let res = try_move(&client, &service.base, &id, &token, &game).await;
        assert_eq!(res.status(), 201);
        game = res.json::<Value>().await.unwrap()["game"].clone();
    }
    // Fill the disk.
    let filler = mount.0.join("filler");
    let _ = Command::new("dd")
        .args(["if=/dev/zero", "bs=64k"])
        .arg(format!("of={}", filler.display()))
        .stderr(Stdio::null())
        .status();
    // Each move is either refused with 503 and changes nothing, or accepted
    // and durable: moves that fit in space the database files already hold
    // (the WAL starts over after each checkpoint) still go in, the first
    // that needs a new page is refused. How many fit depends on how full the
    // last page was, so play on, in new games once one ends, until refused.
    let (mut id, mut token) = (id, token);
    let mut accepted = 3;
    let mut refusals = 0;
    for _ in 0..2000 {
        if game["status"] != "in_progress" {
            let res = client
                .post(format!("{}/v1/games", service.base))
                .json(&json!({"kind": "gomoku", "hotseat": true}))
                .send()
                .await
                .unwrap();
            if res.status() != 201 {
                assert_storage_unavailable(res).await;
                refusals += 1;
                break;
            }
            let v: Value = res.json().await.unwrap();
            id = v["game"]["id"].as_str().unwrap().to_owned();
            token = v["token"].as_str().unwrap().to_owned();
            game = v["game"].clone();
            accepted = 0;
            continue;
        }
        let res = try_move(&client, &service.base, &id, &token, &game).await;
        if res.status() == 201 {
            game = res.json::<Value>().await.unwrap()["game"].clone();
            accepted += 1;
        } else {
            assert_storage_unavailable(res).await;
            refusals += 1;
            if refusals == 3 {
                break;
            }
        }
    }
    assert!(refusals > 0, "no move was refused on a full disk");
    // Reads still work, and nothing was half-written: the history holds
    // exactly the accepted moves.
    let now = assert_snapshot_equals_replay(&client, &service.base, &id).await;
    assert_eq!(now["version"], game["version"]);
    assert_eq!(now["ply"], accepted);
    // The fault goes away; so does the refusal.
    std::fs::remove_file(&filler).unwrap();
    for _ in 0..3 {
        if game["status"] != "in_progress" {
            (id, token, game) = create_hotseat(&client, &service.base, "gomoku").await;
            accepted = 0;
        }
        let res = try_move(&client, &service.base, &id, &token, &game).await;
        let status = res.status();
        let body: Value = res.json().await.unwrap();
        assert_eq!(status, 201, "after the disk is freed: {body}");
        game = body["game"].clone();
        accepted += 1;
    }
    let now = assert_snapshot_equals_replay(&client, &service.base, &id).await;
    assert_eq!(now["ply"], accepted);
}

#[tokio::test]
async fn a_kill_9_after_a_moves_commit_still_delivers_its_webhook_event_after_the_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("tabula.db");
    let webhooks = |command: &mut Command| {
        command
            .env("TABULA_ADMIN_KEY", "operator")
            .env("TABULA_WEBHOOK_ALLOW_PRIVATE", "true")
            .env(
                "TABULA_WEBHOOK_RETRY",
                "500ms,500ms,500ms,500ms,500ms,500ms",
            );
    };
    let mut command = Command::new(env!("CARGO_BIN_EXE_tabula"));
    webhooks(&mut command);
    let mut service = start_in(command, &db).await;
    let client = Client::new();
    // The receiver is down while the service lives: nothing can be delivered.
    let port = free_port();
    let res = client
        .post(format!("{}/v1/webhooks", service.base))
        .bearer_auth("operator")
        .json(&json!({"url": format!("http://127.0.0.1:{port}/hook"), "events": ["move.played"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let (id, token, _) = create_hotseat(&client, &service.base, "connect_four").await;
    for column in [3, 3, 4, 4, 5] {
        let res = client
            .post(format!("{}/v1/games/{id}/moves", service.base))
            .bearer_auth(&token)
            .json(&json!({"column": column}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201);
    }
    service.child.kill().unwrap();
    service.child.wait().unwrap();
    let receiver = receiver::Receiver::start_on(port).await;
    let mut command = Command::new(env!("CARGO_BIN_EXE_tabula"));
    webhooks(&mut command);
    let _service = start_in(command, &db).await;
    let delivered = receiver.wait_delivered(5, Duration::from_secs(15)).await;
    let plies: Vec<Value> = delivered
        .iter()
        .map(|g| g.json()["data"]["move"]["ply"].clone())
        .collect();
    assert_eq!(
        plies,
        [1, 2, 3, 4, 5].map(|p| json!(p)),
        "every acknowledged move's event, in order"
    );
    assert!(
        delivered
            .iter()
            .all(|g| g.json()["data"]["game"]["id"] == id.as_str())
    );
}

/// One process serves a SQLite file: a second `tabula` started on the file
/// of a running one exits at once, non-zero, naming the file, and the
/// first goes on answering and writing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_process_on_a_served_file_exits_at_once_and_the_first_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("tabula.db");
    let service = start(&db).await;
    let client = Client::new();
    let started = Instant::now();
    let second = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .env("TABULA_ADDR", format!("127.0.0.1:{}", free_port()))
        .env("DATABASE_URL", format!("sqlite://{}", db.display()))
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("the second process runs");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(!second.status.success());
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(said.contains("in use by another process"), "{said}");
    assert!(said.contains(&db.display().to_string()), "{said}");
    let (id, token, game) = create_hotseat(&client, &service.base, "connect_four").await;
    let res = try_move(&client, &service.base, &id, &token, &game).await;
    assert_eq!(res.status(), 201);
}

/// A `kill -9` between a round's last result and the next round's pairing
/// (the round pause): after the restart the round is paired once.
#[tokio::test]
async fn a_kill_9_before_a_rounds_pairing_pairs_it_once_after_the_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("tabula.db");
    let paused = || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tabula"));
        command.env("TABULA_ROUND_PAUSE", "3");
        command
    };
    let mut service = start_in(paused(), &db).await;
    let client = Client::new();
    let post = |base: &str, path: &str, key: Option<&str>, body: Value| {
        let mut req = client.post(format!("{base}{path}")).json(&body);
        if let Some(key) = key {
            req = req.bearer_auth(key);
        }
        req.send()
    };
    let me: Value = post(
        &service.base,
        "/v1/players",
        None,
        json!({"name": "Organiser"}),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    let key = me["key"].as_str().unwrap().to_owned();
    let t: Value = post(
        &service.base,
        "/v1/tournaments",
        Some(&key),
        json!({"name": "Killed", "kind": "tic_tac_toe", "system": "swiss", "rounds": 2,
               "clock": {"initial_ms": 60000}}),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    let id = t["id"].as_str().unwrap().to_owned();
    for _ in 0..4 {
        let res = post(
            &service.base,
            &format!("/v1/tournaments/{id}/entrants"),
            Some(&key),
            json!({"bot": {"level": "random"}}),
        )
        .await
        .unwrap();
        assert_eq!(res.status(), 201);
    }
    let res = post(
        &service.base,
        &format!("/v1/tournaments/{id}/start"),
        Some(&key),
        json!({}),
    )
    .await
    .unwrap();
    assert_eq!(res.status(), 200);
    // Round 1's games end (random bots: at once); kill before the pause is out.
    let round = format!("/v1/tournaments/{id}/rounds/1");
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let r = get_json(&client, &format!("{}{round}", service.base)).await;
        let boards = r["pairings"].as_array().unwrap();
        if boards.iter().all(|b| !b["result"].is_null()) {
            break;
        }
        assert!(Instant::now() < deadline, "round 1 never ended");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let now = get_json(&client, &format!("{}/v1/tournaments/{id}", service.base)).await;
    assert_eq!(now["round"], 1, "killed before round 2 was paired");
    service.child.kill().unwrap();
    service.child.wait().unwrap();
    let service = start_in(paused(), &db).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let t = get_json(&client, &format!("{}/v1/tournaments/{id}", service.base)).await;
        if t["status"] == "finished" {
            assert_eq!(t["round"], 2);
            break;
        }
        assert!(Instant::now() < deadline, "the tournament never finished");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let r2 = get_json(
        &client,
        &format!("{}/v1/tournaments/{id}/rounds/2", service.base),
    )
    .await;
    assert_eq!(r2["pairings"].as_array().unwrap().len(), 2, "paired once");
    let games = get_json(
        &client,
        &format!("{}/v1/tournaments/{id}/games?limit=100", service.base),
    )
    .await;
    assert_eq!(games["items"].as_array().unwrap().len(), 4);
}
