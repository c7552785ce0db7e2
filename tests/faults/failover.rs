//! A PostgreSQL failover under load (issue 79): two clusters on loopback, a
//! primary and a synchronous standby (`scripts/pg-pair`); the service on the
//! host list (standby first) with `target_session_attrs=read-write`; the
//! primary killed (`pg_ctl stop -m immediate`) and the standby promoted
//! (`pg_ctl promote`), as a failover manager would. Every acknowledged move
//! must be on the new primary, writes must resume without a restart, and an
//! event stream must deliver every change once and in order.
//!
//! It needs the PostgreSQL server binaries: it runs when
//! `TABULA_TEST_FAILOVER=1` (CI's PostgreSQL stage), and says it was skipped
//! otherwise.

use std::sync::atomic::{AtomicBool, Ordering};

use super::*;

/// The pair of clusters; stopped when dropped.
struct Pair(PathBuf);

impl Pair {
    /// Runs `scripts/pg-pair <command> <its directory> <more>`; its output.
    fn run(&self, command: &str, more: &[&str]) -> String {
        let dir = self.0.display().to_string();
        let args: Vec<&str> = [command, dir.as_str()]
            .into_iter()
            .chain(more.iter().copied())
            .collect();
        let out = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/pg-pair"))
            .args(&args)
            .output()
            .expect("scripts/pg-pair runs");
        assert!(
            out.status.success(),
            "pg-pair {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        let dir = self.0.display().to_string();
        let _ = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/pg-pair"))
            .args(["stop", &dir])
            .output();
    }
}

/// Whether a request's answer means "the database is away: try again".
fn retry(res: &reqwest::Result<reqwest::Response>) -> bool {
    match res {
        Ok(r) => r.status() == 503,
        Err(_) => true,
    }
}

/// Sends `body` to `path` (with `token`, and `key` as its `Idempotency-Key`)
/// until it is answered with something other than 503; the answer.
async fn until_served(
    client: &Client,
    url: &str,
    token: Option<&str>,
    key: Option<&str>,
    body: &Value,
) -> (u16, Value) {
    loop {
        let mut req = client.post(url).json(body);
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        if let Some(key) = key {
            req = req.header("idempotency-key", key);
        }
        let res = req.send().await;
        if retry(&res) {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
        let res = res.unwrap();
        let status = res.status().as_u16();
        return (status, res.json().await.unwrap_or(Value::Null));
    }
}

/// Plays random Connect Four games until `stop`, each move with an
/// `Idempotency-Key` and sent again (the same) while it is answered 503:
/// every 201 is recorded, with when it came.
async fn play_through(
    client: Client,
    base: String,
    seed: u64,
    acked: Arc<Mutex<Vec<(Acked, Instant)>>>,
    stop: Arc<AtomicBool>,
) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    while !stop.load(Ordering::Relaxed) {
        let (status, v) = until_served(
            &client,
            &format!("{base}/v1/games"),
            None,
            None,
            &json!({"kind": "connect_four", "hotseat": true}),
        )
        .await;
        assert_eq!(status, 201, "create: {v}");
        let id = v["game"]["id"].as_str().unwrap().to_owned();
        let token = v["token"].as_str().unwrap().to_owned();
        let mut game = v["game"].clone();
        while game["status"] == "in_progress" && !stop.load(Ordering::Relaxed) {
            let legal = game["legal_moves"].as_array().unwrap().clone();
            let mv = legal[rng.random_range(0..legal.len())].clone();
            let key = format!("{id}-{}", game["ply"]);
            let (status, body) = until_served(
                &client,
                &format!("{base}/v1/games/{id}/moves"),
                Some(&token),
                Some(&key),
                &mv,
            )
            .await;
            assert_eq!(status, 201, "move {mv} of {id}: {body}");
            acked.lock().unwrap().push((
                Acked {
                    game: id.clone(),
                    round: body["move"]["round"].as_u64().unwrap(),
                    ply: body["move"]["ply"].as_u64().unwrap(),
                    mv: body["move"]["move"].clone(),
                },
                Instant::now(),
            ));
            game = body["game"].clone();
        }
    }
}

/// The `n`-th move of a Gomoku game that never makes five: X on the cells
/// whose row and column are even, O on those whose row and column are odd
/// (every line of five alternates between the two sets): 98 moves.
fn no_five(n: usize) -> Value {
    let (per_row, offset) = if n.is_multiple_of(2) { (8, 0) } else { (7, 1) };
    let k = n / 2;
    json!({"row": 2 * (k / per_row) + offset, "col": 2 * (k % per_row) + offset})
}

/// Follows game `id`'s event stream from its start, reconnecting with
/// `Last-Event-ID`; records every event's id until `done` and caught up
/// with `last`.
async fn follow(
    client: Client,
    base: String,
    id: String,
    seen: Arc<Mutex<Vec<i64>>>,
    done: Arc<AtomicBool>,
    last: Arc<std::sync::atomic::AtomicI64>,
) {
    let caught_up = |seen: &Arc<Mutex<Vec<i64>>>| {
        done.load(Ordering::Relaxed)
            && seen.lock().unwrap().last().copied() == Some(last.load(Ordering::Relaxed))
    };
    while !caught_up(&seen) {
        let mut req = client.get(format!("{base}/v1/games/{id}/events"));
        if let Some(after) = seen.lock().unwrap().last() {
            req = req.header("last-event-id", after.to_string());
        }
        let Ok(mut res) = req.send().await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        if res.status() != 200 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        }
        let mut pending = String::new();
        loop {
            let chunk = tokio::time::timeout(Duration::from_millis(500), res.chunk()).await;
            match chunk {
                Ok(Ok(Some(bytes))) => {
                    pending.push_str(&String::from_utf8_lossy(&bytes));
                    while let Some(end) = pending.find('\n') {
                        let line: String = pending.drain(..=end).collect();
                        if let Some(v) = line.trim_end().strip_prefix("id: ") {
                            seen.lock().unwrap().push(v.parse().unwrap());
                        }
                    }
                }
                Ok(_) => break,
                Err(_) if caught_up(&seen) => return,
                Err(_) => {}
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failover_loses_no_acknowledged_move_and_a_stream_tells_each_change_once_in_order() {
    if std::env::var("TABULA_TEST_FAILOVER").is_err() {
        eprintln!("skipped: needs the PostgreSQL server binaries; set TABULA_TEST_FAILOVER=1");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pair = Pair(dir.path().join("pair"));
    let url = pair.run(
        "start",
        &[&free_port().to_string(), &free_port().to_string()],
    );
    let service = start_on(Command::new(env!("CARGO_BIN_EXE_tabula")), &url).await;
    let client = Client::new();
    let base = service.base.clone();

    // One game followed by a stream, played all through the failover.
    let (status, made) = until_served(
        &client,
        &format!("{base}/v1/games"),
        None,
        None,
        &json!({"kind": "gomoku", "hotseat": true}),
    )
    .await;
    assert_eq!(status, 201);
    let followed = made["game"]["id"].as_str().unwrap().to_owned();
    let followed_token = made["token"].as_str().unwrap().to_owned();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let done = Arc::new(AtomicBool::new(false));
    let last = Arc::new(std::sync::atomic::AtomicI64::new(0));
    let stream = tokio::spawn(follow(
        client.clone(),
        base.clone(),
        followed.clone(),
        seen.clone(),
        done.clone(),
        last.clone(),
    ));
    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(Mutex::new(Vec::new()));
    let players: Vec<_> = (0..16)
        .map(|seed| {
            tokio::spawn(play_through(
                client.clone(),
                base.clone(),
                seed,
                acked.clone(),
                stop.clone(),
            ))
        })
        .collect();
    let slow = {
        let (client, base, id, token, stop) = (
            client.clone(),
            base.clone(),
            followed.clone(),
            followed_token.clone(),
            stop.clone(),
        );
        tokio::spawn(async move {
            let mut version = 1;
            for n in 0..98 {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let (status, body) = until_served(
                    &client,
                    &format!("{base}/v1/games/{id}/moves"),
                    Some(&token),
                    Some(&format!("followed-{n}")),
                    &no_five(n),
                )
                .await;
                assert_eq!(status, 201, "{body}");
                version = body["game"]["version"].as_i64().unwrap();
                tokio::time::sleep(Duration::from_millis(40)).await;
            }
            version
        })
    };

    let deadline = Instant::now() + Duration::from_secs(30);
    while acked.lock().unwrap().len() < 300 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let before = acked.lock().unwrap().len();
    assert!(before >= 300, "only {before} moves before the failover");
    let killed = Instant::now();
    pair.run("kill-primary", &[]);
    // A manager notices, then promotes.
    tokio::time::sleep(Duration::from_millis(500)).await;
    pair.run("promote", &[]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while acked.lock().unwrap().len() < before + 300 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for p in players {
        p.await.unwrap();
    }
    last.store(slow.await.unwrap(), Ordering::Relaxed);
    done.store(true, Ordering::Relaxed);
    let acked = acked.lock().unwrap().clone();
    assert!(
        acked.len() >= before + 300,
        "writes did not resume: {} after {before}",
        acked.len()
    );
    // The pause in writes: the longest time without a 201, from the kill on.
    let mut times: Vec<Instant> = acked.iter().map(|(_, at)| *at).collect();
    times.sort();
    let pause = times
        .windows(2)
        .filter(|w| w[1] > killed)
        .map(|w| w[1] - w[0].max(killed))
        .max()
        .unwrap();
    eprintln!(
        "failover: {before} moves acknowledged before the kill, {} after; writes paused {} ms \
         (the promotion 500 ms after the kill)",
        acked.len() - before,
        pause.as_millis()
    );

    // Every acknowledged move is on the new primary.
    let mut games: Vec<String> = acked.iter().map(|(a, _)| a.game.clone()).collect();
    games.sort();
    games.dedup();
    for id in &games {
        let history = get_json(&client, &format!("{base}/v1/games/{id}/moves?round=1")).await;
        let items = history["items"].as_array().unwrap();
        for (a, _) in acked.iter().filter(|(a, _)| &a.game == id) {
            let stored = items
                .get(usize::try_from(a.ply).unwrap() - 1)
                .unwrap_or_else(|| panic!("acknowledged move {a:?} is missing"));
            assert_eq!(stored["move"], a.mv, "{a:?}");
        }
    }

    // The stream told every change of the followed game once, in order.
    tokio::time::timeout(Duration::from_secs(20), stream)
        .await
        .expect("the stream caught up")
        .unwrap();
    let seen = seen.lock().unwrap().clone();
    let want: Vec<i64> = (1..=last.load(Ordering::Relaxed)).collect();
    assert_eq!(seen, want, "each change once, in order");
}
