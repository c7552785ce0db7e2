//! Rules as a service (`/v1/rules/{kind}/…`): positions from lines equal
//! the rule engines' and a game's state, refusals equal set-up's, answers
//! cache for good, a batch answers line by line, an analysis repeats under
//! a work bound and is Connect Four's solver exact at `perfect`, and
//! nothing is ever written.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use reqwest::Method;
use serde_json::{Value, json};
use tabula::ai::connect_four_solver::{Book, Position as SolverPosition, Solver};
use tabula::rules::{AnyGame, AnyMove, GameKind, GomokuOptions, GomokuRule, Setup, notation};

use crate::helpers::{assert_problem, postgres_server, spawn_app, spawn_app_with};

/// A random setup of `kind`: Gomoku at any size and rule.
fn random_setup(kind: GameKind, rng: &mut StdRng) -> Setup {
    match kind {
        GameKind::Gomoku => {
            let rule = if rng.random() {
                GomokuRule::Standard
            } else {
                GomokuRule::Freestyle
            };
            Setup::Gomoku(GomokuOptions::new(rng.random_range(5..=25), rule).unwrap())
        }
        _ => Setup::default_for(kind),
    }
}

/// A random line on `setup`, played to its end or stopped early: the
/// position and its moves.
fn random_line(setup: Setup, rng: &mut StdRng) -> (AnyGame, Vec<AnyMove>) {
    let mut game = AnyGame::new(setup);
    let mut moves = Vec::new();
    let stop = rng.random_range(0..120);
    while !game.is_over() && game.ply() < stop {
        let legal = game.legal_moves();
        let mv = legal[rng.random_range(0..legal.len())];
        game.try_play(mv).unwrap();
        moves.push(mv);
    }
    (game, moves)
}

/// The query of `setup`'s options and `line`.
fn query(setup: Setup, line: &str) -> String {
    let moves = format!("moves={}", urlencode(line));
    match setup {
        Setup::Gomoku(o) => format!("{moves}&size={}&rule={}", o.size(), o.rule().as_str()),
        _ => moves,
    }
}

fn urlencode(s: &str) -> String {
    s.replace(' ', "%20")
}

fn create_options(setup: Setup) -> Value {
    match setup {
        Setup::Gomoku(o) => json!({"size": o.size(), "rule": o.rule().as_str()}),
        _ => json!({}),
    }
}

#[tokio::test]
async fn a_position_from_any_line_is_the_rules_and_what_a_game_of_that_line_shows() {
    let app = spawn_app().await;
    let mut rng = StdRng::seed_from_u64(69);
    for round in 0..12 {
        for kind in GameKind::ALL {
            let setup = random_setup(kind, &mut rng);
            let (game, moves) = random_line(setup, &mut rng);
            let line = notation::format_line(setup, &moves);
            let path = format!("/v1/rules/{kind}/positions?{}", query(setup, &line));
            let res = app.get(&path).await;
            assert_eq!(res.status(), 200, "{path}");
            let got: Value = res.json().await.unwrap();
            // The rule engine's own view.
            assert_eq!(got["kind"], kind.as_str());
            assert_eq!(got["moves"], line.as_str());
            assert_eq!(got["ply"], game.ply(), "{path}");
            assert_eq!(got["board"], json!(game.board_rows()), "{path}");
            let legal = if game.is_over() {
                0
            } else {
                game.legal_moves().len()
            };
            assert_eq!(
                got["legal_moves"].as_array().unwrap().len(),
                legal,
                "{path}"
            );
            assert_eq!(
                got["winner"],
                game.winner()
                    .map_or(Value::Null, |p| json!(format!("{p:?}"))),
                "{path}"
            );
            // A hotseat game set up from the same line shows the same.
            let created = app
                .post(
                    "/v1/games",
                    None,
                    &json!({"kind": kind.as_str(), "options": create_options(setup),
                            "moves": line, "hotseat": true}),
                )
                .await;
            assert_eq!(created.status(), 201, "round {round}: {path}");
            let state: Value = created.json().await.unwrap();
            for field in [
                "options",
                "ply",
                "turn",
                "status",
                "winner",
                "winning_line",
                "board",
                "ultimate",
                "legal_moves",
                "threats",
            ] {
                assert_eq!(got[field], state["game"][field], "{field} of {path}");
            }
        }
    }
}

#[tokio::test]
async fn a_bad_line_is_refused_as_at_create_and_options_of_another_kind_too() {
    let app = spawn_app().await;
    for (kind, line) in [
        ("connect_four", "4444444"),
        ("gomoku", "h8  i9"),
        ("tic_tac_toe", "1425369"),
        ("ultimate_tic_tac_toe", "55 51 99"),
    ] {
        let got = assert_problem(
            app.get(&format!(
                "/v1/rules/{kind}/positions?moves={}",
                urlencode(line)
            ))
            .await,
            422,
            "illegal_move",
        )
        .await;
        let created = app
            .post("/v1/games", None, &json!({"kind": kind, "moves": line}))
            .await;
        let at_create: Value = created.json().await.unwrap();
        for field in ["code", "index", "reason", "legal_moves", "detail"] {
            assert_eq!(got[field], at_create[field], "{field} of {kind} {line}");
        }
    }
    assert_problem(
        app.get("/v1/rules/connect_four/positions?size=9").await,
        422,
        "invalid_option",
    )
    .await;
    assert_problem(
        app.get("/v1/rules/gomoku/positions?size=30").await,
        422,
        "invalid_option",
    )
    .await;
    assert_problem(app.get("/v1/rules/chess/positions").await, 404, "not_found").await;
    assert_problem(
        app.get("/v1/rules/tic_tac_toe/positions?move=5").await,
        400,
        "malformed_request",
    )
    .await;
}

#[tokio::test]
async fn a_position_is_cached_for_good_and_an_if_none_match_gets_304() {
    let app = spawn_app().await;
    let path = "/v1/rules/connect_four/positions?moves=4453";
    let first = app.get(path).await;
    assert_eq!(first.status(), 200);
    let tag = first.headers()["etag"].to_str().unwrap().to_owned();
    assert_eq!(
        first.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let again = app.get(path).await;
    assert_eq!(again.headers()["etag"].to_str().unwrap(), tag);
    let other = app.get("/v1/rules/connect_four/positions?moves=4454").await;
    assert_ne!(other.headers()["etag"].to_str().unwrap(), tag);
    let cached = app
        .request(Method::GET, path)
        .header("if-none-match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(cached.status(), 304);
    assert_eq!(cached.headers()["etag"].to_str().unwrap(), tag);
    assert!(cached.bytes().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_batch_answers_each_line_as_a_get_would_in_order_up_to_100() {
    let app = spawn_app().await;
    let lines = ["h8 i9", "", "h8 h8", "a1 b2 c3"];
    let res = app
        .post(
            "/v1/rules/gomoku/positions",
            None,
            &json!({"options": {"size": 9}, "lines": lines}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let batch: Value = res.json().await.unwrap();
    let items = batch["items"].as_array().unwrap();
    assert_eq!(items.len(), lines.len());
    for (line, item) in lines.iter().zip(items) {
        let single: Value = app
            .get(&format!(
                "/v1/rules/gomoku/positions?size=9&moves={}",
                urlencode(line)
            ))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(item, &single, "{line:?}");
    }
    assert_eq!(items[2]["code"], "illegal_move");
    assert_eq!(items[2]["index"], 1);
    let many: Vec<&str> = vec!["4"; 101];
    assert_problem(
        app.post(
            "/v1/rules/connect_four/positions",
            None,
            &json!({"lines": many}),
        )
        .await,
        422,
        "too_many_lines",
    )
    .await;
    let hundred: Vec<String> = (0..100).map(|n| format!("{}", n % 7 + 1)).collect();
    let res = app
        .post(
            "/v1/rules/connect_four/positions",
            None,
            &json!({"lines": hundred}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let batch: Value = res.json().await.unwrap();
    assert_eq!(batch["items"].as_array().unwrap().len(), 100);
    // The batch takes its options in the body: a query is refused, not
    // ignored (`?size=9` answered 15x15 positions).
    let res = app
        .post(
            "/v1/rules/gomoku/positions?size=9",
            None,
            &json!({"lines": ["h8"]}),
        )
        .await;
    assert_problem(res, 400, "malformed_request").await;
}

/// One client's positions are bounded in cells a second (`--rules-rate`):
/// past its burst it is answered 429 with the wait, nothing built, while
/// another client is served.
#[tokio::test]
async fn a_clients_positions_are_bounded_in_cells_and_others_are_served() {
    let app = spawn_app_with(|s| {
        s.rules_rate = 1_000;
        s.trusted_proxies = "127.0.0.1".parse().unwrap();
    })
    .await;
    // 100 lines on a 25x25 board: 62,500 cells; the burst holds two.
    let lines: Vec<String> = (0..100).map(|_| "m13".to_owned()).collect();
    let batch = json!({"options": {"size": 25}, "lines": lines});
    let send = |who: &'static str| {
        app.request(Method::POST, "/v1/rules/gomoku/positions")
            .header("x-forwarded-for", who)
            .json(&batch)
            .send()
    };
    for _ in 0..2 {
        assert_eq!(send("203.0.113.7").await.unwrap().status(), 200);
    }
    let refused = send("203.0.113.7").await.unwrap();
    let wait: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(wait >= 1, "{wait}");
    assert_problem(refused, 429, "rate_limited").await;
    let single = app
        .request(Method::GET, "/v1/rules/gomoku/positions?size=25&moves=m13")
        .header("x-forwarded-for", "203.0.113.7")
        .send()
        .await
        .unwrap();
    assert_eq!(single.status(), 429, "the single position counts too");
    assert_eq!(send("198.51.100.1").await.unwrap().status(), 200);
}

#[tokio::test]
async fn an_analysis_under_a_work_bound_is_the_same_every_time() {
    let app = spawn_app().await;
    for path in [
        "/v1/rules/gomoku/analysis?moves=h8%20i9%20h9&level=hard&work=60000",
        "/v1/rules/connect_four/analysis?moves=44&level=hard&work=80000",
        "/v1/rules/ultimate_tic_tac_toe/analysis?moves=55%2051&level=hard&work=3000",
        "/v1/rules/tic_tac_toe/analysis?moves=5&level=perfect",
    ] {
        let first = app.get_json(path).await;
        assert!(!first["moves"].as_array().unwrap().is_empty(), "{path}");
        assert_eq!(first["stopped_on_time"], false, "{path}");
        for _ in 0..2 {
            assert_eq!(app.get_json(path).await, first, "{path}");
        }
    }
    let answer = app
        .get_json("/v1/rules/tic_tac_toe/analysis?moves=1425&level=perfect")
        .await;
    assert_eq!(answer["position"]["turn"], "X");
    assert_eq!(answer["exact"], true);
    assert_eq!(answer["moves"][0]["move"], json!({"row": 0, "col": 2}));
    for (path, code) in [
        ("/v1/rules/gomoku/analysis?level=perfect", "invalid_option"),
        ("/v1/rules/connect_four/analysis?work=0", "invalid_option"),
        (
            "/v1/rules/connect_four/analysis?work=2000001",
            "invalid_option",
        ),
        ("/v1/rules/connect_four/analysis?moves=9", "illegal_move"),
    ] {
        assert_problem(app.get(path).await, 422, code).await;
    }
}

#[tokio::test]
async fn connect_fours_perfect_analysis_is_the_solvers_exact_score_of_every_move() {
    const SET: &str = include_str!("../data/connect-four/Test_L2_R1");
    let app = spawn_app().await;
    let mut solver = Solver::new(Some(Book::embedded()));
    for case in SET.lines().step_by(125) {
        let (moves, score) = case.split_once(' ').unwrap();
        let got = app
            .get_json(&format!(
                "/v1/rules/connect_four/analysis?moves={moves}&level=perfect&work=2000000"
            ))
            .await;
        assert_eq!(got["exact"], true, "{moves}");
        let position = SolverPosition::from_moves(moves).unwrap();
        let stones = u32::try_from(moves.len()).unwrap();
        let best = &got["moves"][0]["evaluation"];
        assert_eq!(best, &evaluation(stones, score.parse().unwrap()), "{moves}");
        for m in got["moves"].as_array().unwrap() {
            let col = usize::try_from(m["move"]["column"].as_u64().unwrap()).unwrap();
            let mut next = position;
            next.play(col);
            let exact = -solver.solve(&next).unwrap();
            assert_eq!(
                m["evaluation"],
                evaluation(stones, exact),
                "{moves} + {col}"
            );
        }
    }
}

/// The evaluation of the exact score `score` (the test sets' scale) of a
/// position with `stones` played: the winner completes four with its
/// `22 - |score|`-th stone; plies count from the move evaluated.
fn evaluation(stones: u32, score: i32) -> Value {
    let (mine, theirs) = (stones / 2, stones - stones / 2);
    let (outcome, plies) = match score {
        0 => ("draw", 42 - stones),
        s if s > 0 => ("win", 2 * (22 - s.unsigned_abs() - mine) - 1),
        s => ("loss", 2 * (22 - s.unsigned_abs() - theirs)),
    };
    let points = match outcome {
        "win" => 1000,
        "loss" => -1000,
        _ => 0,
    };
    json!({"score": points, "outcome": outcome, "plies": plies})
}

#[tokio::test]
async fn nothing_is_written_the_database_file_stays_the_same() {
    if postgres_server().is_some() {
        return; // The file is SQLite's.
    }
    let app = spawn_app().await;
    let file = app.db.url.trim_start_matches("sqlite://").to_owned();
    let snapshot = || {
        ["", "-wal"]
            .iter()
            .map(|suffix| std::fs::read(format!("{file}{suffix}")).unwrap_or_default())
            .collect::<Vec<_>>()
    };
    // Let the start's migrations settle into the file first.
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    let before = snapshot();
    for path in [
        "/v1/rules/connect_four/positions?moves=4453",
        "/v1/rules/gomoku/positions?moves=h8%20i9",
        "/v1/rules/connect_four/positions?moves=4444444",
        "/v1/rules/tic_tac_toe/analysis?moves=5&level=perfect",
        "/v1/rules/connect_four/analysis?moves=4453&level=hard&work=10000",
    ] {
        let status = app.get(path).await.status();
        assert!(status == 200 || status == 422, "{path}: {status}");
    }
    let res = app
        .post(
            "/v1/rules/ultimate_tic_tac_toe/positions",
            None,
            &json!({"lines": ["55", "55 51"]}),
        )
        .await;
    assert_eq!(res.status(), 200);
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    assert!(before == snapshot(), "the database changed");
    let listed = app.get_json("/v1/games").await;
    assert_eq!(listed["items"], json!([]));
}
