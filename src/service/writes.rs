//! The writes: create, join, play, restart, resign, delete. Each is one job
//! of the store's writer, answered once its transaction has committed.

use rand::RngCore;
use uuid::Uuid;

use super::notation::play_setup_line;
use super::{
    MoveResult, NewGame, Opponent, Played, Preconditions, Render, Result, SeatTaken, Service,
    ServiceError, apply, canonical_move, check_playable, check_version, event, load, load_seat,
    replay, save,
};
use crate::ai;
use crate::domain::{EventType, GameRecord, RequestHash, Seat, TokenHash};
use crate::rules::{AnyGame, MoveInput, Player};

impl Service {
    /// Creates a game; the caller takes `new.seat`. The set-up line, if
    /// any, is played first (see `notation.rs` for its versions); then a
    /// bot to move replies (a bot holding X opens).
    ///
    /// # Errors
    /// `InvalidOption` (hotseat with a bot, an unavailable bot level),
    /// `IllegalLine`, store errors.
    #[tracing::instrument(name = "create", skip_all, fields(game = tracing::field::Empty))]
    pub async fn create(&self, new: NewGame) -> Result<SeatTaken> {
        let position = AnyGame::new(new.setup);
        if new.hotseat && matches!(new.opponent, Opponent::Bot { .. }) {
            return Err(ServiceError::InvalidOption(
                "hotseat cannot be combined with a bot opponent".into(),
            ));
        }
        if let Opponent::Bot { level, .. } = new.opponent {
            ai::check_available(&position, level)
                .map_err(|e| ServiceError::InvalidOption(e.to_string()))?;
        }
        let token = new_token();
        let hash = TokenHash::of(&token);
        let mut seats = [Seat::Human { token: None }; 2];
        seats[new.seat.index()] = Seat::Human { token: Some(hash) };
        seats[new.seat.other().index()] = match new.opponent {
            Opponent::Human if new.hotseat => Seat::Human { token: Some(hash) },
            Opponent::Human => Seat::Human { token: None },
            Opponent::Bot { level, seed } => Seat::Bot { level, seed },
        };
        let now = self.clock.now();
        let mut game = GameRecord {
            id: Uuid::now_v7(),
            position,
            seats,
            hotseat: new.hotseat,
            round: 1,
            resigned: None,
            version: 1,
            created_at: now,
            updated_at: now,
        };
        tracing::Span::current().record("game", tracing::field::display(game.id));
        let created = event(&game, EventType::Create);
        let line = play_setup_line(&mut game, &new.moves)?;
        let record = game.clone();
        self.write(
            None,
            Box::new(move |tx| {
                Box::pin(async move {
                    tx.insert_game(&record).await?;
                    tx.insert_event(record.id, &created).await?;
                    for m in &line {
                        tx.insert_move(record.id, m).await?;
                    }
                    Ok(())
                })
            }),
        )
        .await?;
        self.publish(game.id);
        self.bot_replies(&mut game, None).await?;
        Ok(SeatTaken {
            game,
            seat: new.seat,
            token,
        })
    }

    /// Takes the open seat.
    ///
    /// # Errors
    /// `GameNotFound`, `VersionMismatch`, `NoOpenSeat`, store errors.
    #[tracing::instrument(name = "join", skip_all, fields(game = %id))]
    pub async fn join(&self, id: Uuid, if_match: Option<i64>) -> Result<SeatTaken> {
        let token = new_token();
        let hash = TokenHash::of(&token);
        let clock = self.clock.clone();
        let (game, seat) = self
            .write(
                Some(id),
                Box::new(move |tx| {
                    Box::pin(async move {
                        let mut game = load(tx, id).await?;
                        check_version(&game, if_match)?;
                        let seat = Player::BOTH
                            .into_iter()
                            .find(|&p| game.seat(p).is_open())
                            .ok_or(ServiceError::NoOpenSeat)?;
                        game.seats[seat.index()] = Seat::Human { token: Some(hash) };
                        save(tx, &mut game, clock.now()).await?;
                        tx.insert_event(id, &event(&game, EventType::Join(seat)))
                            .await?;
                        Ok((game, seat))
                    })
                }),
            )
            .await?;
        self.publish(id);
        Ok(SeatTaken { game, seat, token })
    }

    /// Plays a move for the token's seat, then lets a bot opponent reply.
    ///
    /// # Errors
    /// Every refusal of the contract's table, store errors.
    #[tracing::instrument(name = "play", skip_all, fields(game = %id))]
    pub async fn play(
        &self,
        id: Uuid,
        token: Option<&str>,
        pre: Preconditions,
        input: MoveInput,
        render: Render,
    ) -> Result<MoveResult> {
        let token = TokenHash::of(token.ok_or(ServiceError::MissingToken)?);
        let request = RequestHash::of(PLAY, &canonical_move(input), &token);
        self.play_with(id, token, request, pre, render, input).await
    }

    /// Plays `input`, which `request` asked for, for the token's seat.
    pub(super) async fn play_with(
        &self,
        id: Uuid,
        token: TokenHash,
        request: RequestHash,
        pre: Preconditions,
        render: Render,
        input: MoveInput,
    ) -> Result<MoveResult> {
        let metrics = self.metrics.clone();
        let clock = self.clock.clone();
        let key = pre.idempotency_key.clone();
        let outcome = self
            .write(
                Some(id),
                Box::new(move |tx| {
                    Box::pin(async move {
                        let mut game = load(tx, id).await?;
                        let seat = game.seat_of(&token).ok_or(ServiceError::InvalidToken)?;
                        if let Some(key) = &key
                            && let Some(stored) = replay(tx.idempotent(id, key).await?, &request)?
                        {
                            return Ok(Err(stored));
                        }
                        let kind = game.kind().as_str();
                        let now = clock.now();
                        let checked = check_version(&game, pre.if_match)
                            .and_then(|()| check_playable(&game, Some(seat)))
                            .and_then(|()| apply(&mut game, input, now));
                        metrics.count_move(kind, checked.is_ok());
                        let mv = checked?;
                        tx.insert_move(id, &mv).await?;
                        save(tx, &mut game, now).await?;
                        let played = Played {
                            mv,
                            game,
                            replies: Vec::new(),
                        };
                        if let Some(key) = &key {
                            tx.remember(id, key, &request, &render(&played)?).await?;
                        }
                        Ok(Ok(played))
                    })
                }),
            )
            .await?;
        let mut played = match outcome {
            Ok(done) => done,
            Err(stored) => return Ok(MoveResult::Replayed(stored)),
        };
        self.publish(id);
        let record = pre
            .idempotency_key
            .map(|key| (key, request, render, played.mv));
        played.replies = self.bot_replies(&mut played.game, record).await?;
        Ok(MoveResult::Played(Box::new(played)))
    }

    /// Starts a new round from the empty board; a bot holding X opens it.
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `VersionMismatch`,
    /// `WaitingForOpponent`, store errors.
    #[tracing::instrument(name = "restart", skip_all, fields(game = %id))]
    pub async fn restart(
        &self,
        id: Uuid,
        token: Option<&str>,
        if_match: Option<i64>,
    ) -> Result<GameRecord> {
        let mut game = self
            .seat_change(id, token, if_match, |game, _| {
                if game.has_open_seat() {
                    return Err(ServiceError::WaitingForOpponent);
                }
                game.position = AnyGame::new(game.position.setup());
                game.round += 1;
                game.resigned = None;
                Ok(EventType::Restart)
            })
            .await?;
        self.bot_replies(&mut game, None).await?;
        Ok(game)
    }

    /// The caller's seat (hotseat: the side to move) gives up the round.
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `VersionMismatch`, `GameOver`,
    /// `WaitingForOpponent`, store errors.
    #[tracing::instrument(name = "resign", skip_all, fields(game = %id))]
    pub async fn resign(
        &self,
        id: Uuid,
        token: Option<&str>,
        if_match: Option<i64>,
    ) -> Result<GameRecord> {
        self.seat_change(id, token, if_match, |game, seat| {
            check_playable(game, None)?;
            game.resigned = Some(seat);
            Ok(EventType::Resign(seat))
        })
        .await
    }

    /// Deletes the game, its history and idempotency records. The deletion
    /// is a change of its own, at the next version: event streams send it
    /// after every change before it (the store keeps a deleted game's
    /// history a while for them: see [`crate::store::KEEP_DELETED`]).
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `VersionMismatch`, store errors.
    #[tracing::instrument(name = "delete", skip_all, fields(game = %id))]
    pub async fn delete(&self, id: Uuid, token: Option<&str>, if_match: Option<i64>) -> Result<()> {
        let token = TokenHash::of(token.ok_or(ServiceError::MissingToken)?);
        let clock = self.clock.clone();
        self.write(
            Some(id),
            Box::new(move |tx| {
                Box::pin(async move {
                    let (mut game, _) = load_seat(tx, id, &token, if_match).await?;
                    save(tx, &mut game, clock.now()).await?;
                    tx.insert_event(id, &event(&game, EventType::Deleted))
                        .await?;
                    tx.delete_game(id).await?;
                    Ok(())
                })
            }),
        )
        .await?;
        self.publish(id);
        Ok(())
    }
}

/// The operation of a move, in its request's hash (`POST /v1/games/{id}/moves`).
const PLAY: &str = "play";

/// 256 random bits from the OS-seeded CSPRNG, hex-encoded.
fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}
