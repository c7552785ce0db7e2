//! Quick match's choice through the store: within one batch, and between
//! two instances on one PostgreSQL database (with `TABULA_TEST_POSTGRES`).

use super::*;

/// Quick match's choice inside one job, as the service's match job makes it.
fn choose(key: &'static str) -> JobFn<Option<Uuid>, StoreError> {
    Box::new(move |tx| {
        Box::pin(async move {
            Ok(match tx.oldest_waiting(key, ANY_AGE, None, None).await? {
                Waiting::Game(game) => Some(game.id),
                Waiting::Nothing => None,
                Waiting::Busy => panic!("busy on SQLite"),
                Waiting::Own(_) => panic!("no caller's own game without its token"),
            })
        })
    })
}

#[tokio::test]
async fn quick_match_sees_the_games_its_batch_created_and_joined() {
    let (_dir, _, store) = open().await;
    let (older, newer, private) = (new_game(), new_game(), new_game());
    let private = GameRecord {
        private: true,
        ..private
    };
    for game in [&older, &newer, &private] {
        insert(&store, game).await;
    }
    let (older_id, newer_id) = (older.id, newer.id);
    let created = new_game();
    let created_id = created.id;
    let seen = write(
        &store,
        Box::new(move |tx| {
            Box::pin(async move {
                // The committed games, oldest first, then this batch's own.
                let mut seen = Vec::new();
                for _ in 0..3 {
                    let Waiting::Game(mut game) = tx
                        .oldest_waiting("connect_four", ANY_AGE, None, None)
                        .await?
                    else {
                        seen.push(None);
                        break;
                    };
                    seen.push(Some(game.id));
                    // Taken: the batch joins it.
                    game.seats[1] = Seat::Human {
                        token: Some(TokenHash::of("o")),
                    };
                    let version = game.version;
                    game.version += 1;
                    assert!(tx.update_game(&game, version).await?);
                    if seen.len() == 2 {
                        tx.insert_game(&created);
                    }
                }
                assert!(matches!(
                    tx.oldest_waiting("connect_four", ANY_AGE, None, None)
                        .await?,
                    Waiting::Nothing
                ));
                assert!(matches!(
                    tx.oldest_waiting("tic_tac_toe", ANY_AGE, None, None)
                        .await?,
                    Waiting::Nothing
                ));
                Ok(seen)
            })
        }),
    )
    .await;
    assert_eq!(
        seen,
        [Some(older_id), Some(newer_id), Some(created_id)],
        "oldest committed first, then the batch's own; never the private one"
    );
    // Committed: all three full, nothing waits.
    assert_eq!(write(&store, choose("connect_four")).await, None);
    let game = store.game(created_id).await.unwrap().unwrap();
    assert!(!game.has_open_seat());
}

/// Two stores on one fresh PostgreSQL database (on the server named by
/// `TABULA_TEST_POSTGRES`, if any), as two instances have; the database is
/// dropped with the guard.
async fn two_postgres_stores() -> Option<(Store, Store, postgres::Database)> {
    let Some(server) = std::env::var("TABULA_TEST_POSTGRES")
        .ok()
        .filter(|s| !s.is_empty())
    else {
        eprintln!("skipped: set TABULA_TEST_POSTGRES to run the PostgreSQL store tests");
        return None;
    };
    let db = postgres::Database::create(&server).await;
    Some((
        Store::open(&db.url, 2).await.unwrap(),
        Store::open(&db.url, 2).await.unwrap(),
        db,
    ))
}

/// What quick match's choice answers on `store`, in a batch of its own.
async fn choice(store: &Store, key: &'static str) -> Result<Option<Uuid>, &'static str> {
    store
        .write::<_, StoreError>(
            None,
            Box::new(move |tx| {
                Box::pin(async move {
                    Ok(match tx.oldest_waiting(key, ANY_AGE, None, None).await? {
                        Waiting::Game(game) => Ok(Some(game.id)),
                        Waiting::Nothing => Ok(None),
                        Waiting::Busy => Err("busy"),
                        Waiting::Own(_) => Err("own"),
                    })
                })
            }),
        )
        .await
        .unwrap()
}

/// Runs `job` on `store` in a batch that stays open (its transaction, its
/// locks) until the returned sender is used or dropped.
async fn held_open(
    store: &Store,
    game: Option<Uuid>,
    job: impl for<'t> FnOnce(
        &'t mut tabula::store::WriteTx,
    ) -> futures_util::future::BoxFuture<'t, Result<(), StoreError>>
    + Send
    + 'static,
) -> (
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<()>,
) {
    let (started, running) = tokio::sync::oneshot::channel();
    let (release, released) = tokio::sync::oneshot::channel::<()>();
    let store = store.clone();
    let task = tokio::spawn(async move {
        store
            .write::<_, StoreError>(
                game,
                Box::new(move |tx| {
                    Box::pin(async move {
                        job(tx).await?;
                        let _ = started.send(());
                        let _ = released.await;
                        Ok(())
                    })
                }),
            )
            .await
            .unwrap();
    });
    running.await.unwrap();
    (release, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_matching_a_key_makes_the_others_retry_instead_of_deciding() {
    let Some((a, b, _db)) = two_postgres_stores().await else {
        return;
    };
    // Instance A finds nothing and creates a game, not yet committed.
    let created = new_game();
    let created_id = created.id;
    let (release, task) = held_open(&a, None, move |tx| {
        Box::pin(async move {
            assert!(matches!(
                tx.oldest_waiting("connect_four", ANY_AGE, None, None)
                    .await?,
                Waiting::Nothing
            ));
            tx.insert_game(&created);
            Ok(())
        })
    })
    .await;
    // B may not decide meanwhile: it would create a second waiting game.
    assert_eq!(choice(&b, "connect_four").await, Err("busy"));
    // Other terms are not held up.
    assert_eq!(choice(&b, "tic_tac_toe").await, Ok(None));
    release.send(()).unwrap();
    task.await.unwrap();
    // Committed: B sees A's game.
    assert_eq!(choice(&b, "connect_four").await, Ok(Some(created_id)));
    assert_eq!(choice(&a, "connect_four").await, Ok(Some(created_id)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_game_locked_by_another_instance_is_waited_for_not_passed_over() {
    let Some((a, b, _db)) = two_postgres_stores().await else {
        return;
    };
    let waiting = new_game();
    let id = waiting.id;
    insert(&a, &waiting).await;
    // A holds the game's row (a join, a delete, an expiry in progress).
    let (release, task) = held_open(&a, Some(id), move |tx| {
        Box::pin(async move { tx.game(id).await.map(|_| ()) })
    })
    .await;
    assert_eq!(
        choice(&b, "connect_four").await,
        Err("busy"),
        "B must neither take the game without its lock nor create another"
    );
    release.send(()).unwrap();
    task.await.unwrap();
    assert_eq!(choice(&b, "connect_four").await, Ok(Some(id)));
}
