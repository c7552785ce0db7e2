//! The store seam on SQLite, below the HTTP API: what the writer's batches
//! and its cache of games must get right. The write jobs here do what the
//! service's jobs do, several steps to a job, so that one batch holds a
//! game's creation, its changes and its deletion. With
//! `TABULA_TEST_POSTGRES` set, quick match's locking between two instances
//! on one PostgreSQL database is tested too, batch by batch.
//!
//! Over 700 lines, on purpose: the store seam's cases and the write jobs they
//! run, which imitate the service's, read together (quick match's choice:
//! `matches.rs`).

#![allow(
    clippy::unwrap_used,
    reason = "test helpers as well as tests may unwrap: the panic is the failure message"
)]

use std::str::FromStr;

use chrono::Utc;
use sqlx::ConnectOptions;
use sqlx::sqlite::SqliteConnectOptions;
use tabula::domain::{
    EventRecord, EventType, GameRecord, IdempotentRecord, MoveRecord, RequestHash, Seat,
    StoredResponse, TokenHash,
};
use tabula::rules::{GameKind, MoveInput, Player, Setup};
use tabula::store::{JobFn, Store, StoreError, Waiting};
use uuid::Uuid;

#[path = "../common/postgres.rs"]
mod postgres;
// Quick match's choice, on one store and between two instances.
mod matches;
// Webhook events recorded with their change, claimed, disabled endpoints.
mod outbox;
// Whole records written and read back equal, on both backends.
mod records;

pub(crate) async fn open() -> (tempfile::TempDir, String, Store) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("t.db").display());
    let store = Store::open(&url, 2).await.unwrap();
    (dir, url, store)
}

pub(crate) fn new_game() -> GameRecord {
    GameRecord {
        id: Uuid::now_v7(),
        seats: [
            Seat::Human {
                token: Some(TokenHash::of("x")),
            },
            Seat::Human { token: None },
        ],
        ..GameRecord::blank(Setup::ConnectFour)
    }
}

pub(crate) fn column(ply: u32, column: i64) -> MoveRecord {
    MoveRecord {
        round: 1,
        ply,
        version: i64::from(ply) + 1,
        player: if ply % 2 == 1 { Player::X } else { Player::O },
        mv: MoveInput::Column { column },
        at: Utc::now(),
    }
}

pub(crate) fn at_version(game: &GameRecord, version: i64) -> GameRecord {
    GameRecord {
        version,
        derived: false,
        ..game.clone()
    }
}

pub(crate) async fn write<T: Send + 'static>(store: &Store, job: JobFn<T, StoreError>) -> T {
    store.write(None, job).await.unwrap()
}

/// Writes `game` (stored at version 1) at version 2, in a batch of its own.
pub(crate) async fn to_version_2(store: &Store, game: &GameRecord) {
    let g = game.clone();
    write(
        store,
        Box::new(move |tx| {
            Box::pin(async move {
                assert!(tx.update_game(&at_version(&g, 2), 1).await?);
                Ok(())
            })
        }),
    )
    .await;
}

/// Stores `game` in a batch of its own.
pub(crate) async fn insert(store: &Store, game: &GameRecord) {
    let game = game.clone();
    write(
        store,
        Box::new(move |tx| {
            Box::pin(async move {
                tx.insert_game(&game);
                Ok(())
            })
        }),
    )
    .await;
}

#[tokio::test]
async fn a_game_created_and_changed_in_one_batch_is_stored_whole() {
    let (_dir, _, store) = open().await;
    let game = new_game();
    let id = game.id;
    let stale = write(
        &store,
        Box::new(move |tx| {
            Box::pin(async move {
                tx.insert_game(&game);
                let created = EventRecord {
                    version: 1,
                    event: EventType::Create,
                    round: 1,
                    at: Utc::now(),
                };
                tx.insert_event(id, &created);
                tx.insert_move(id, &column(1, 3));
                assert!(tx.update_game(&at_version(&game, 2), 1).await?);
                // The batch sees its own write: version 1 is gone.
                let stale = tx.update_game(&at_version(&game, 3), 1).await?;
                tx.insert_move(id, &column(2, 4));
                assert!(tx.update_game(&at_version(&game, 3), 2).await?);
                assert_eq!(tx.game(id).await?.unwrap().version, 3);
                Ok(stale)
            })
        }),
    )
    .await;
    assert!(
        !stale,
        "an update against a superseded version was accepted"
    );
    let stored = store.game(id).await.unwrap().unwrap();
    assert_eq!(stored.version, 3);
    let moves = store.moves(id, GameKind::ConnectFour, 1).await.unwrap();
    let columns: Vec<_> = moves.iter().map(|m| (m.ply, m.version, m.mv)).collect();
    assert_eq!(
        columns,
        [
            (1, 2, MoveInput::Column { column: 3 }),
            (2, 3, MoveInput::Column { column: 4 })
        ]
    );
    let (_, events) = store.changes(id, GameKind::ConnectFour, 1).await.unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event, EventType::Create);
}

#[tokio::test]
async fn a_game_deleted_in_the_batch_that_wrote_it_is_kept_whole_until_purged() {
    let (_dir, _, store) = open().await;
    let kept = new_game();
    let kept_id = kept.id;
    insert(&store, &kept).await;
    let (gone, created) = (new_game(), new_game());
    let (gone_id, created_id) = (gone.id, created.id);
    write(
        &store,
        Box::new(move |tx| {
            Box::pin(async move {
                // A stored game changed, then deleted.
                tx.insert_move(kept_id, &column(1, 0));
                assert!(tx.delete_game(kept_id).await?);
                assert!(!tx.delete_game(kept_id).await?);
                assert!(tx.game(kept_id).await?.is_none());
                // A game created and deleted in the same batch.
                tx.insert_game(&created);
                tx.insert_move(created_id, &column(1, 2));
                assert!(tx.delete_game(created_id).await?);
                // Never stored: nothing to update or delete.
                assert!(!tx.update_game(&at_version(&gone, 2), 1).await?);
                assert!(!tx.delete_game(gone_id).await?);
                Ok(())
            })
        }),
    )
    .await;
    // Gone for reads and writes, but kept with the moves written before the
    // delete, for event streams.
    for id in [kept_id, created_id, gone_id] {
        assert!(store.game(id).await.unwrap().is_none());
    }
    for (id, column) in [(kept_id, 0), (created_id, 2)] {
        let (_, deleted) = store.game_kept(id).await.unwrap().unwrap();
        assert!(deleted);
        let moves = store.moves(id, GameKind::ConnectFour, 1).await.unwrap();
        assert_eq!(moves.len(), 1);
        assert_eq!(moves[0].mv, MoveInput::Column { column });
    }
    assert!(store.game_kept(gone_id).await.unwrap().is_none());
    let (listed, _) = store
        .list(&tabula::domain::ListFilter {
            limit: 10,
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(listed.is_empty(), "{listed:?}");
    // A purge erases what was deleted before its time, history and all.
    let purge = |before| -> JobFn<(), StoreError> {
        Box::new(move |tx| Box::pin(async move { tx.purge_deleted(before).await }))
    };
    write(&store, purge(Utc::now() - chrono::TimeDelta::minutes(1))).await;
    assert!(
        store.game_kept(kept_id).await.unwrap().is_some(),
        "too soon"
    );
    write(&store, purge(Utc::now())).await;
    for id in [kept_id, created_id] {
        assert!(store.game_kept(id).await.unwrap().is_none());
        let moves = store.moves(id, GameKind::ConnectFour, 1).await.unwrap();
        assert!(moves.is_empty());
    }
}

#[tokio::test]
async fn a_job_that_fails_after_writing_takes_its_batch_back_and_the_cache_too() {
    let (_dir, _, store) = open().await;
    let game = new_game();
    let id = game.id;
    insert(&store, &game).await;
    let g = game.clone();
    let failed = store
        .write::<(), StoreError>(
            None,
            Box::new(move |tx| {
                Box::pin(async move {
                    tx.insert_move(id, &column(1, 5));
                    assert!(tx.update_game(&at_version(&g, 2), 1).await?);
                    Err(StoreError::Corrupt("the job gave up".into()))
                })
            }),
        )
        .await;
    assert!(failed.is_err());
    assert_eq!(store.game(id).await.unwrap().unwrap().version, 1);
    // The writer does not remember the state it never committed.
    let seen = write(
        &store,
        Box::new(move |tx| Box::pin(async move { Ok(tx.game(id).await?.map(|g| g.version)) })),
    )
    .await;
    assert_eq!(seen, Some(1));
    let moves = store.moves(id, GameKind::ConnectFour, 1).await.unwrap();
    assert!(moves.is_empty());
}

/// One process serves a SQLite file (the writer caches its games): a
/// second store on the same file is refused at once, saying which file,
/// and the first goes on; once the first has closed, the file opens again.
#[tokio::test]
async fn a_second_store_on_a_served_file_is_refused_and_the_first_goes_on() {
    let (dir, url, store) = open().await;
    let game = new_game();
    insert(&store, &game).await;
    let refused = Store::open(&url, 2).await.unwrap_err();
    let message = refused.to_string();
    assert!(message.contains("in use by another process"), "{message}");
    assert!(
        message.contains(&dir.path().join("t.db").display().to_string()),
        "{message}"
    );
    to_version_2(&store, &game).await;
    store.close().await;
    let again = Store::open(&url, 2).await.unwrap();
    assert_eq!(again.game(game.id).await.unwrap().unwrap().version, 2);
}

/// A storage error says why: the driver's message and SQLite's result code
/// are in its text, and so in every log line about it (the request's line
/// of a 503 and the writer's `batch not committed` said only "storage
/// unavailable"); through the service's error, once.
#[tokio::test]
async fn a_storage_error_names_the_drivers_message_and_code() {
    let (_dir, url, store) = open().await;
    let mut reader = SqliteConnectOptions::from_str(&url)
        .unwrap()
        .read_only(true)
        .connect()
        .await
        .unwrap();
    let failed = sqlx::query("INSERT INTO players (id, name, created_at) VALUES ('p', 'P', 'now')")
        .execute(&mut reader)
        .await
        .unwrap_err();
    let e = StoreError::from(failed);
    assert!(e.is_unavailable(), "{e}");
    let text = e.to_string();
    assert!(
        text.starts_with("storage unavailable: ")
            && text.contains("readonly")
            && text.contains("(code 8)"),
        "{text}"
    );
    let service = tabula::service::ServiceError::from(e);
    let chain = tabula::telemetry::error_chain(&service);
    assert_eq!(chain.matches("readonly").count(), 1, "{chain}");
    store.close().await;
}

/// The file is the one locked, not its name: through a symbolic link or a
/// hard link (another path, the same file) a second store is refused as
/// well, and the first goes on.
#[tokio::test]
async fn a_second_store_through_a_link_to_a_served_file_is_refused() {
    let (dir, _url, store) = open().await;
    let game = new_game();
    insert(&store, &game).await;
    let file = dir.path().join("t.db");
    let soft = dir.path().join("soft.db");
    let hard = dir.path().join("hard.db");
    std::os::unix::fs::symlink(&file, &soft).unwrap();
    std::fs::hard_link(&file, &hard).unwrap();
    for link in [&soft, &hard] {
        let url = format!("sqlite://{}", link.display());
        let refused = Store::open(&url, 2).await.unwrap_err();
        let message = refused.to_string();
        assert!(message.contains("in use by another process"), "{message}");
        assert!(message.contains(&link.display().to_string()), "{message}");
    }
    to_version_2(&store, &game).await;
    assert_eq!(store.game(game.id).await.unwrap().unwrap().version, 2);
    // No second WAL was made beside the hard link.
    assert!(!dir.path().join("hard.db-wal").exists());
}

#[tokio::test]
async fn an_idempotent_answer_is_found_in_its_own_batch_and_after_it() {
    let (_dir, _, store) = open().await;
    let game = new_game();
    let id = game.id;
    let request = RequestHash::of("play", "{}", &TokenHash::of("x"));
    let answer = move |status: u16| IdempotentRecord {
        request: Some(request),
        response: StoredResponse {
            status,
            body: format!("{{\"status\":{status}}}"),
            version: i64::from(status),
        },
    };
    let (first, second) = write(
        &store,
        Box::new(move |tx| {
            Box::pin(async move {
                tx.insert_game(&game);
                assert_eq!(tx.idempotent(id, "k1").await?, None);
                tx.remember(id, "k1", &request, &answer(201).response);
                let first = tx.idempotent(id, "k1").await?;
                tx.remember(id, "k1", &request, &answer(202).response);
                let second = tx.idempotent(id, "k1").await?;
                assert_eq!(tx.idempotent(id, "k2").await?, None);
                Ok((first, second))
            })
        }),
    )
    .await;
    assert_eq!(first, Some(answer(201)));
    assert_eq!(second, Some(answer(202)));
    let stored = write(
        &store,
        Box::new(move |tx| Box::pin(async move { tx.idempotent(id, "k1").await })),
    )
    .await;
    assert_eq!(stored, Some(answer(202)));
    assert_eq!(store.idempotent(id, "k1").await.unwrap(), Some(answer(202)));
}

/// The writer keeps sqlx's lock on its connection from one flush to the
/// next; a batch that then reads through sqlx (a round's moves, an
/// idempotency record: not cached) must get it back, and closing the store
/// must not wait on it. Each step is bounded, so that a lock kept too long
/// fails the test instead of hanging it.
#[tokio::test]
async fn batches_that_read_through_sqlx_follow_batches_that_only_flush_and_the_store_closes() {
    async fn within<F: std::future::Future>(what: &str, f: F) -> F::Output {
        tokio::time::timeout(std::time::Duration::from_secs(10), f)
            .await
            .unwrap_or_else(|_| panic!("{what}: still waiting after 10 s"))
    }
    let (_dir, _, store) = open().await;
    let game = new_game();
    let id = game.id;
    within("insert", insert(&store, &game)).await;
    for ply in 1..=6u32 {
        // A move on the cached game: a flush alone (the lock kept after it).
        let g = at_version(&game, i64::from(ply) + 1);
        let played = write(
            &store,
            Box::new(move |tx| {
                Box::pin(async move {
                    tx.insert_move(id, &column(ply, i64::from(ply % 7)));
                    tx.update_game(&g, i64::from(ply)).await
                })
            }),
        );
        assert!(within("a move", played).await);
        // Reads that go to the database, in a batch of their own.
        let read = write(
            &store,
            Box::new(move |tx| {
                Box::pin(async move {
                    let moves = tx.round_moves(id, GameKind::ConnectFour, 1).await?;
                    let key = tx.idempotent(id, "never").await?;
                    Ok((moves.len(), key.is_none()))
                })
            }),
        );
        let (moves, none) = within("a read", read).await;
        assert_eq!((moves, none), (ply as usize, true));
    }
    // Another reader sees the committed moves; then the store closes.
    assert_eq!(store.game(id).await.unwrap().unwrap().version, 7);
    within("close", store.close()).await;
}

#[tokio::test]
async fn concurrent_jobs_on_one_game_take_turns_and_none_is_lost() {
    let (_dir, _, store) = open().await;
    let game = new_game();
    let id = game.id;
    insert(&store, &game).await;
    // 40 jobs each append the next move at the version they find: queued at
    // once, they share batches, and each must see the one before it.
    let jobs = (0..40).map(|_| {
        let store = store.clone();
        let game = game.clone();
        tokio::spawn(async move {
            write(
                &store,
                Box::new(move |tx| {
                    Box::pin(async move {
                        let current = tx.game(id).await?.unwrap().version;
                        let ply = u32::try_from(current).unwrap();
                        tx.insert_move(id, &column(ply, 0));
                        assert!(
                            tx.update_game(&at_version(&game, current + 1), current)
                                .await?
                        );
                        Ok(())
                    })
                }),
            )
            .await;
        })
    });
    for job in jobs.collect::<Vec<_>>() {
        job.await.unwrap();
    }
    assert_eq!(store.game(id).await.unwrap().unwrap().version, 41);
    let moves = store.moves(id, GameKind::ConnectFour, 1).await.unwrap();
    let plies: Vec<u32> = moves.iter().map(|m| m.ply).collect();
    assert_eq!(plies, (1..=40).collect::<Vec<_>>());
}

#[tokio::test]
async fn rows_stored_under_the_first_schema_survive_the_later_migrations() {
    // A database made by the first migration alone, with a game, its moves
    // and an idempotent answer.
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("migrations");
    std::fs::create_dir(&first).unwrap();
    std::fs::copy(
        "migrations/sqlite/20261122000001_init.sql",
        first.join("20261122000001_init.sql"),
    )
    .unwrap();
    let url = format!("sqlite://{}", dir.path().join("old.db").display());
    let mut conn = SqliteConnectOptions::from_str(&url)
        .unwrap()
        .create_if_missing(true)
        .connect()
        .await
        .unwrap();
    sqlx::migrate::Migrator::new(first.as_path())
        .await
        .unwrap()
        .run(&mut conn)
        .await
        .unwrap();
    let game = new_game();
    let id = game.id.to_string();
    sqlx::query(
        "INSERT INTO games (id, kind, status, open_seat, hotseat, x_type, x_token, o_type, \
         round, version, snapshot, created_at, updated_at) \
         VALUES ($1, 'connect_four', 'in_progress', 1, 0, 'human', $2, 'human', 1, 3, $3, $4, $4)",
    )
    .bind(&id)
    .bind(vec![7u8; 32])
    .bind(game.position.encode())
    .bind("2026-11-22T00:00:00.000000Z")
    .execute(&mut conn)
    .await
    .unwrap();
    for (ply, column) in [(2, 4), (1, 3)] {
        sqlx::query(
            "INSERT INTO moves (game_id, round, ply, version, player, a, b, at) \
             VALUES ($1, 1, $2, $3, $4, $5, NULL, '2026-11-22T00:00:00.000000Z')",
        )
        .bind(&id)
        .bind(ply)
        .bind(ply + 1)
        .bind(if ply == 1 { "X" } else { "O" })
        .bind(column)
        .execute(&mut conn)
        .await
        .unwrap();
    }
    // Both seats used key `k`: X's record is the one kept.
    for (seat, version) in [("O", 4), ("X", 3)] {
        sqlx::query(
            "INSERT INTO idempotency (game_id, seat, key, status, body, created_at) \
             VALUES ($1, $2, 'k', 201, $3, '2026-11-22T00:00:00.000000Z')",
        )
        .bind(&id)
        .bind(seat)
        .bind(format!("{{\"game\":{{\"version\":{version}}}}}"))
        .execute(&mut conn)
        .await
        .unwrap();
    }
    drop(conn);
    // Opening it applies the rest.
    let store = Store::open(&url, 1).await.unwrap();
    // The answer's version is read out of its body once, by the migration;
    // it was stored before requests were hashed, and answers any retry.
    let answer = write(
        &store,
        Box::new(move |tx| Box::pin(async move { tx.idempotent(game.id, "k").await })),
    )
    .await
    .expect("kept");
    assert_eq!(answer.request, None);
    assert!(answer.answers(&RequestHash::of("play", "{}", &TokenHash::of("t"))));
    let answer = answer.response;
    assert_eq!((answer.status, answer.version), (201, 3));
    let moves = store
        .moves(game.id, GameKind::ConnectFour, 1)
        .await
        .unwrap();
    let kept: Vec<_> = moves.iter().map(|m| (m.ply, m.version, m.mv)).collect();
    assert_eq!(
        kept,
        [
            (1, 2, MoveInput::Column { column: 3 }),
            (2, 3, MoveInput::Column { column: 4 })
        ]
    );
    // The key still refuses a second move for a turn.
    let duplicate = store
        .write::<(), StoreError>(
            None,
            Box::new(move |tx| {
                Box::pin(async move {
                    tx.insert_move(game.id, &column(2, 6));
                    Ok(())
                })
            }),
        )
        .await;
    assert!(duplicate.is_err());
}

#[tokio::test]
async fn unchanged_games_are_chosen_by_status_and_age_oldest_first_without_deleted_ones() {
    use tabula::domain::GameStatus;
    let (_dir, _, store) = open().await;
    let start = Utc::now();
    let at = |minutes: i64| start + chrono::TimeDelta::minutes(minutes);
    // Waiting games (X taken, O open) last changed 0, 10, 20 and 30 minutes
    // after `start`; one of them deleted; one game in progress at 0.
    let mut waiting = Vec::new();
    for minutes in [20, 0, 30, 10] {
        let mut game = new_game();
        game.updated_at = at(minutes);
        insert(&store, &game).await;
        waiting.push((minutes, game.id));
    }
    let mut playing = new_game();
    playing.seats[1] = Seat::Human {
        token: Some(TokenHash::of("o")),
    };
    playing.updated_at = at(0);
    playing.version = 2;
    insert(&store, &playing).await;
    let deleted = waiting[1].1;
    write(
        &store,
        Box::new(move |tx| Box::pin(async move { tx.delete_game(deleted).await.map(|_| ()) })),
    )
    .await;
    let by_minutes = |m| waiting.iter().find(|(t, _)| *t == m).unwrap().1;

    let chosen = store
        .unchanged_since(GameStatus::Waiting, at(25), 10)
        .await
        .unwrap();
    assert_eq!(chosen, [(by_minutes(10), 1), (by_minutes(20), 1)]);
    // Strictly before: a game changed at the cutoff is not chosen.
    let chosen = store
        .unchanged_since(GameStatus::Waiting, at(10), 10)
        .await
        .unwrap();
    assert!(chosen.is_empty(), "{chosen:?}");
    let chosen = store
        .unchanged_since(GameStatus::Waiting, at(60), 1)
        .await
        .unwrap();
    assert_eq!(chosen, [(by_minutes(10), 1)], "the limit keeps the oldest");
    let chosen = store
        .unchanged_since(GameStatus::InProgress, at(1), 10)
        .await
        .unwrap();
    assert_eq!(chosen, [(playing.id, 2)]);
    let chosen = store
        .unchanged_since(GameStatus::Won, at(60), 10)
        .await
        .unwrap();
    assert!(chosen.is_empty());
}

/// A move's update leaves the indexed columns (status, the minute of the
/// last change) out when they keep their values; when they change, they
/// are written, and the indexes follow.
#[tokio::test]
async fn a_games_status_and_minute_are_written_when_they_change_and_only_then() {
    use tabula::domain::GameStatus;
    let (_dir, url, store) = open().await;
    // At a minute's start: the changes "in the same minute" below are
    // seconds after it, and must not cross into the next one.
    let start =
        chrono::DurationRound::duration_trunc(Utc::now(), chrono::TimeDelta::minutes(1)).unwrap();
    let at = |minutes: i64| start + chrono::TimeDelta::minutes(minutes);
    let mut game = new_game();
    game.updated_at = at(0);
    insert(&store, &game).await;
    let stored = |url: String, id: Uuid| async move {
        let mut db = SqliteConnectOptions::from_str(&url)
            .unwrap()
            .connect()
            .await
            .unwrap();
        sqlx::query_as::<_, (String, String, i64, String)>(
            "SELECT status, updated_minute, version, updated_at FROM games WHERE id = $1",
        )
        .bind(id.to_string())
        .fetch_one(&mut db)
        .await
        .unwrap()
    };
    let update = |store: Store, next: GameRecord, from: i64| async move {
        write(
            &store,
            Box::new(move |tx| Box::pin(async move { tx.update_game(&next, from).await })),
        )
        .await
    };
    // O sits down: waiting -> in progress, in the same minute.
    let mut next = at_version(&game, 2);
    next.seats[1] = Seat::Human {
        token: Some(TokenHash::of("o")),
    };
    next.updated_at = at(0) + chrono::TimeDelta::seconds(1);
    assert!(update(store.clone(), next.clone(), 1).await);
    let (status, minute, version, _) = stored(url.clone(), game.id).await;
    assert_eq!((status.as_str(), version), ("in_progress", 2));
    assert_eq!(minute, at(0).format("%Y-%m-%dT%H:%M").to_string());
    let chosen = store
        .unchanged_since(GameStatus::Waiting, at(60), 10)
        .await
        .unwrap();
    assert!(chosen.is_empty(), "still listed as waiting: {chosen:?}");
    // A move in the same minute: status and minute as they were.
    let mut later = at_version(&next, 3);
    later.updated_at = next.updated_at + chrono::TimeDelta::seconds(1);
    assert!(update(store.clone(), later.clone(), 2).await);
    let (status, minute, version, updated_at) = stored(url.clone(), game.id).await;
    assert_eq!((status.as_str(), version), ("in_progress", 3));
    assert_eq!(minute, at(0).format("%Y-%m-%dT%H:%M").to_string());
    assert!(updated_at.starts_with(&minute), "{updated_at}");
    // A move thirty minutes later: the minute follows.
    let mut idle = at_version(&later, 4);
    idle.updated_at = at(30);
    assert!(update(store.clone(), idle, 3).await);
    let (status, minute, version, _) = stored(url.clone(), game.id).await;
    assert_eq!((status.as_str(), version), ("in_progress", 4));
    assert_eq!(minute, at(30).format("%Y-%m-%dT%H:%M").to_string());
    let chosen = store
        .unchanged_since(GameStatus::InProgress, at(20), 10)
        .await
        .unwrap();
    assert!(chosen.is_empty(), "chosen by its old minute: {chosen:?}");
    let chosen = store
        .unchanged_since(GameStatus::InProgress, at(31), 10)
        .await
        .unwrap();
    assert_eq!(chosen, [(game.id, 4)]);
}

/// Quick match's candidates of any age.
const ANY_AGE: chrono::DateTime<chrono::Utc> = chrono::DateTime::UNIX_EPOCH;

/// Renders every event as its type and game id: enough to follow them.
pub(crate) struct Plain;

impl tabula::store::EventRender for Plain {
    fn body(
        &self,
        event: tabula::domain::webhook::WebhookEvent,
        _: chrono::DateTime<Utc>,
        game: &GameRecord,
        _: Option<&MoveRecord>,
    ) -> String {
        format!("{} {}", event.as_str(), game.id)
    }

    fn tournament_body(
        &self,
        event: tabula::domain::webhook::WebhookEvent,
        _: chrono::DateTime<Utc>,
        tournament: &tabula::domain::tournament::TournamentRecord,
    ) -> String {
        format!("{} {}", event.as_str(), tournament.id)
    }
}

#[tokio::test]
async fn games_written_in_one_batch_by_either_statement_are_each_stored_as_written() {
    // A move's update leaves the columns indexes hold as stored and is
    // written without them; an update that changes one (here the status,
    // as O sits down) is written whole. One batch holds both kinds, and
    // games that change from one kind to the other within it.
    let (_dir, url, store) = open().await;
    let games: Vec<GameRecord> = (0..5).map(|_| new_game()).collect();
    for g in &games {
        insert(&store, g).await;
    }
    let seated = |g: &GameRecord, version: i64| {
        let mut next = at_version(g, version);
        next.seats[1] = Seat::Human {
            token: Some(TokenHash::of("o")),
        };
        next
    };
    let plan: Vec<(GameRecord, Vec<GameRecord>)> = vec![
        // Version 2, nothing indexed changed.
        (games[0].clone(), vec![at_version(&games[0], 2)]),
        (games[1].clone(), vec![at_version(&games[1], 2)]),
        // Version 2, seated: waiting -> in progress.
        (games[2].clone(), vec![seated(&games[2], 2)]),
        // Unchanged, then seated, in one batch.
        (
            games[3].clone(),
            vec![at_version(&games[3], 2), seated(&games[3], 3)],
        ),
        // Seated, then unchanged again, in one batch.
        (
            games[4].clone(),
            vec![seated(&games[4], 2), seated(&games[4], 3)],
        ),
    ];
    write(
        &store,
        Box::new(move |tx| {
            Box::pin(async move {
                for (_, steps) in &plan {
                    for step in steps {
                        assert!(tx.update_game(step, step.version - 1).await?);
                    }
                }
                Ok(())
            })
        }),
    )
    .await;
    let mut db = SqliteConnectOptions::from_str(&url)
        .unwrap()
        .connect()
        .await
        .unwrap();
    let expected = [
        (2, "waiting"),
        (2, "waiting"),
        (2, "in_progress"),
        (3, "in_progress"),
        (3, "in_progress"),
    ];
    for (g, (version, status)) in games.iter().zip(expected) {
        let row: (i64, String, bool) =
            sqlx::query_as("SELECT version, status, open_seat FROM games WHERE id = $1")
                .bind(g.id.to_string())
                .fetch_one(&mut db)
                .await
                .unwrap();
        assert_eq!((row.0, row.1.as_str()), (version, status), "game {}", g.id);
        assert_eq!(row.2, status == "waiting", "open_seat of {}", g.id);
        let read = store.game(g.id).await.unwrap().unwrap();
        assert_eq!(read.version, version);
    }
    // The status index answers as the rows do.
    let waiting: Vec<(String,)> =
        sqlx::query_as("SELECT id FROM games INDEXED BY games_by_status WHERE status = 'waiting'")
            .fetch_all(&mut db)
            .await
            .unwrap();
    let mut waiting: Vec<String> = waiting.into_iter().map(|(id,)| id).collect();
    waiting.sort();
    let mut first_two = vec![games[0].id.to_string(), games[1].id.to_string()];
    first_two.sort();
    assert_eq!(waiting, first_two);
}
