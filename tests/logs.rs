//! What the service writes to its log: one line per request with its own
//! id, and a write job's lines in the span of the request that queued it.
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
use tabula::rules::{AnyGame, Setup};
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
    // The test's runtime has one thread: the writer task logs through it too.
    let _guard = tracing::subscriber::set_default(subscriber);
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("t.db").display());
    let store = Store::open(&url, 2).await.unwrap();
    let now = Utc::now();
    let game = GameRecord {
        id: Uuid::now_v7(),
        position: AnyGame::new(Setup::ConnectFour),
        seats: [
            Seat::Human {
                token: Some(TokenHash::of("x")),
            },
            Seat::Human { token: None },
        ],
        hotseat: false,
        round: 1,
        resigned: None,
        version: 1,
        created_at: now,
        updated_at: now,
    };
    let jobs = (0..2).map(|n| {
        let store = store.clone();
        let game = GameRecord {
            id: Uuid::now_v7(),
            ..game.clone()
        };
        async move {
            store
                .write::<(), StoreError>(Box::new(move |tx| {
                    Box::pin(async move {
                        tracing::info!("inside the job");
                        tx.insert_game(&game).await
                    })
                }))
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
