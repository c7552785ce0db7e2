//! Whole records written and read back equal, on SQLite and (with
//! `TABULA_TEST_POSTGRES`) on PostgreSQL: every field of a game set, so that
//! a field the row forgets to write or read fails here. The records are
//! built without `..`, so a new field must be given a value here too.

use chrono::{DateTime, TimeZone, Utc};
use tabula::domain::player::{Players, RatingChange, SeatPlayer};
use tabula::domain::rating::Rating;
use tabula::domain::{
    Assistance, DEFAULT_CLAIM_AFTER_MS, Ending, GameClock, GameRecord, Level, Offer, OfferKind,
    Seat, TimeControl, TokenHash, Turn,
};
use tabula::rules::{AnyGame, MoveInput, Player, Setup};
use tabula::store::Store;
use uuid::Uuid;

use crate::{insert, open, postgres};

/// A time the store keeps exactly (it stores microseconds).
fn at(seconds: i64, micros: u32) -> DateTime<Utc> {
    Utc.timestamp_opt(1_800_000_000 + seconds, micros * 1_000)
        .single()
        .unwrap()
}

fn rating(r: f64) -> Rating {
    Rating {
        rating: r,
        deviation: 80.5,
        volatility: 0.059_9,
    }
}

/// A rated, named, private rematch with a bot seat, an offer, a Fischer
/// clock and a resignation: every column and every part of `meta` set.
fn resigned_game() -> GameRecord {
    let mut position = AnyGame::new(Setup::ConnectFour);
    for column in [3, 3, 4] {
        position.play_input(MoveInput::Column { column }).unwrap();
    }
    GameRecord {
        id: Uuid::now_v7(),
        position,
        seats: [
            Seat::Human {
                token: Some(TokenHash::of("x-token")),
            },
            Seat::Bot {
                level: Level::Hard,
                // Over i64::MAX: stored as its bits.
                seed: u64::MAX - 6,
            },
        ],
        hotseat: false,
        round: 3,
        ending: Some(Ending::Resignation(Player::O)),
        version: 17,
        derived: false,
        // Quotes, a backslash, a control character and four-byte UTF-8: the
        // SQLite writer sends rows as JSON.
        names: [
            Some("Ann \"A\" \\ \u{1}".to_owned()),
            Some("Bøb 😀".to_owned()),
        ],
        private: true,
        invite: Some(TokenHash::of("invite")),
        offer: Some(Offer {
            kind: OfferKind::Takeback,
            by: Player::X,
            at: at(30, 123_456),
        }),
        clock: Some(GameClock {
            control: TimeControl::Fischer {
                initial_ms: 300_000,
                increment_ms: 5_000,
            },
            remaining_ms: [281_250, 299_001],
            since: Some(at(40, 7)),
            first_move_ms: 45_000,
        }),
        as_of: at(50, 1),
        players: Players {
            seats: [
                Some(SeatPlayer {
                    id: "p_ann".to_owned(),
                    credential: TokenHash::of("ann-key"),
                    rating: Some(1_612.25),
                }),
                Some(SeatPlayer {
                    id: "ext:bob".to_owned(),
                    credential: TokenHash::of("bob-key"),
                    rating: None,
                }),
            ],
            rated: true,
            change: Some(RatingChange {
                before: [rating(1_500.0), rating(1_520.5)],
                after: [rating(1_516.125), rating(1_504.375)],
            }),
            counted_round: Some(3),
            pair_limited: true,
        },
        rematch_of: Some(Uuid::now_v7()),
        rematch: Some(Uuid::now_v7()),
        assistance: Assistance {
            forbidden: true,
            used: [2, 7],
        },
        turn: Some(Turn {
            round: 3,
            ply: 4,
            since: at(44, 4),
        }),
        claim_after_ms: 90_000,
        tournament: Some((
            Uuid::from_u128(0x0192_f0c4_6c1e_7f53_a4a8_3c1b_9e2d_5a10),
            3,
        )),
        created_at: at(0, 999_999),
        updated_at: at(50, 1),
    }
}

/// A hotseat game ended on time with a per-move clock (the endings and
/// clocks that `resigned_game` cannot hold at once).
fn timed_out_game() -> GameRecord {
    GameRecord {
        id: Uuid::now_v7(),
        position: AnyGame::new(Setup::TicTacToe),
        seats: [Seat::Human { token: None }; 2],
        hotseat: true,
        round: 1,
        ending: Some(Ending::Timeout(Player::X)),
        version: 4,
        derived: false,
        names: [None, Some("Cleo".to_owned())],
        private: false,
        invite: None,
        offer: Some(Offer {
            kind: OfferKind::Draw,
            by: Player::O,
            at: at(5, 0),
        }),
        clock: Some(GameClock {
            control: TimeControl::PerMove {
                per_move_ms: 20_000,
            },
            remaining_ms: [0, 20_000],
            since: None,
            first_move_ms: 20_000,
        }),
        as_of: at(9, 250_000),
        players: Players::default(),
        rematch_of: None,
        rematch: None,
        assistance: Assistance::default(),
        turn: None,
        claim_after_ms: DEFAULT_CLAIM_AFTER_MS,
        tournament: None,
        created_at: at(1, 0),
        updated_at: at(9, 250_000),
    }
}

/// Games ended by a claim (won, drawn) and by a missed first move: the
/// endings the two games above do not hold.
fn claimed_games() -> Vec<GameRecord> {
    [
        Ending::Claimed {
            by: Player::O,
            draw: false,
        },
        Ending::Claimed {
            by: Player::X,
            draw: true,
        },
        Ending::NoFirstMove(Player::O),
    ]
    .into_iter()
    .map(|ending| GameRecord {
        id: Uuid::now_v7(),
        ending: Some(ending),
        ..timed_out_game()
    })
    .collect()
}

/// Writes each game and reads it back: equal, field for field.
async fn read_back_equal(store: &Store) {
    for game in [resigned_game(), timed_out_game()]
        .into_iter()
        .chain(claimed_games())
    {
        insert(store, &game).await;
        let read = store.game(game.id).await.unwrap().expect("the game stored");
        assert_eq!(read, game);
        // Written again, as a move's update (only the columns a move changes).
        let next = GameRecord {
            version: game.version + 1,
            ..game.clone()
        };
        update_read_back_equal(store, &next).await;
        // Then as updates that change one column a move leaves alone each,
        // the indexed ones unchanged: each must be written all the same.
        let changes: [fn(&mut GameRecord); 5] = [
            |g| g.round += 1,
            |g| g.hotseat = !g.hotseat,
            |g| g.private = !g.private,
            |g| {
                g.seats[0] = Seat::Human {
                    token: Some(TokenHash::of("another token")),
                }
            },
            |g| {
                g.seats[1] = Seat::Bot {
                    level: Level::Easy,
                    seed: 5,
                }
            },
        ];
        let mut last = next;
        for change in changes {
            let mut next = GameRecord {
                version: last.version + 1,
                ..last.clone()
            };
            change(&mut next);
            update_read_back_equal(store, &next).await;
            last = next;
        }
    }
}

/// Writes `next` over the stored game at the version before it and reads
/// it back: equal.
async fn update_read_back_equal(store: &Store, next: &GameRecord) {
    let written = next.clone();
    super::write(
        store,
        Box::new(move |tx| {
            Box::pin(async move {
                assert!(tx.update_game(&written, written.version - 1).await?);
                Ok(())
            })
        }),
    )
    .await;
    let read = store.game(next.id).await.unwrap().expect("the game stored");
    assert_eq!(&read, next);
}

#[tokio::test]
async fn a_game_with_every_field_set_reads_back_equal_on_sqlite() {
    let (_dir, _url, store) = open().await;
    read_back_equal(&store).await;
}

#[tokio::test]
async fn a_game_with_every_field_set_reads_back_equal_on_postgres() {
    let Some(server) = std::env::var("TABULA_TEST_POSTGRES")
        .ok()
        .filter(|s| !s.is_empty())
    else {
        eprintln!("skipped: set TABULA_TEST_POSTGRES to run the PostgreSQL store tests");
        return;
    };
    let db = postgres::Database::create(&server).await;
    let store = Store::open(&db.url, 2).await.unwrap();
    read_back_equal(&store).await;
    store.close().await;
}
