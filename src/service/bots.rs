//! Bots: hints, moves the server plays for a seat, and a bot opponent's
//! replies. Searches run off the async workers, bounded in number.

use rand::RngCore;
use uuid::Uuid;

use super::{
    Hint, MoveResult, Played, Preconditions, Render, Result, Service, ServiceError, apply,
    authorize_turn, check_version, load, save,
};
use crate::ai::{self, Budget, Level, Suggestion};
use crate::domain::{GameRecord, MoveRecord, Seat};
use crate::rules::{AnyGame, Player};
use crate::telemetry::spawn_blocking_with_tracing;

impl Service {
    /// Lets the server play one move at `level` for the side to move (the
    /// caller holds that seat's token), then lets a bot opponent reply.
    ///
    /// # Errors
    /// As [`Service::play`], plus `InvalidOption` for an unavailable level.
    #[tracing::instrument(name = "bot_move", skip_all, fields(game = %id))]
    pub async fn bot_move(
        &self,
        id: Uuid,
        token: Option<&str>,
        pre: Preconditions,
        level: Level,
        render: Render,
    ) -> Result<MoveResult> {
        // Check who may ask before thinking, then think outside the transaction.
        let game = self.game(id).await?;
        authorize_turn(&game, token)?;
        check_version(&game, pre.if_match)?;
        ai::check_available(&game.position, level)
            .map_err(|e| ServiceError::InvalidOption(e.to_string()))?;
        let seed = rand::rng().next_u64();
        let suggestion = self.think(&game.position, level, seed).await?;
        let expected = game.version;
        let pre = Preconditions {
            if_match: Some(expected),
            ..pre
        };
        self.play_with(id, token, pre, render, suggestion.mv.input())
            .await
    }

    /// A suggested move for the side to move (the caller holds that seat's
    /// token, or the hotseat token).
    ///
    /// # Errors
    /// `MissingToken`, `InvalidToken`, `GameOver`, `WaitingForOpponent`,
    /// `NotYourTurn`, `InvalidOption`, store errors.
    #[tracing::instrument(name = "hint", skip_all, fields(game = %id))]
    pub async fn hint(&self, id: Uuid, token: Option<&str>, level: Level) -> Result<Hint> {
        let game = self.game(id).await?;
        authorize_turn(&game, token)?;
        ai::check_available(&game.position, level)
            .map_err(|e| ServiceError::InvalidOption(e.to_string()))?;
        let suggestion = self.think(&game.position, level, 0).await?;
        Ok(Hint { suggestion, level })
    }

    /// Runs a bot off the async workers.
    async fn think(&self, position: &AnyGame, level: Level, seed: u64) -> Result<Suggestion> {
        let position = position.clone();
        let budget = Budget {
            time: self.bot_budget,
        };
        let permit = self
            .thinkers
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| ServiceError::Internal(format!("bot pool closed: {e}")))?;
        spawn_blocking_with_tracing(move || {
            let _permit = permit;
            ai::choose(&position, level, seed, budget)
        })
        .await
        .map_err(|e| ServiceError::Internal(format!("bot task failed: {e}")))?
        .map_err(|e| ServiceError::InvalidOption(e.to_string()))?
        .ok_or_else(|| ServiceError::Internal("bot found no move".into()))
    }

    /// While a bot is to move in `game`, lets it move, one committed
    /// transaction per move. Stops quietly if the game changed meanwhile.
    /// `record` names an idempotency record (seat, key, renderer and the
    /// move it answers) to keep current after each reply.
    pub(super) async fn bot_replies(
        &self,
        game: &mut GameRecord,
        record: Option<(Player, String, Render, MoveRecord)>,
    ) -> Result<Vec<MoveRecord>> {
        let mut replies = Vec::new();
        while !game.is_over() && !game.has_open_seat() {
            let Seat::Bot { level, seed } = *game.seat(game.position.to_move()) else {
                break;
            };
            let suggestion = self.think(&game.position, level, seed).await?;
            let (id, seen) = (game.id, game.version);
            let record = record.clone();
            let so_far = replies.clone();
            let reply = self
                .write(Box::new(move |tx| {
                    Box::pin(async move {
                        let mut current = load(tx, id).await?;
                        if current.version != seen {
                            return Ok(None);
                        }
                        let mv = apply(&mut current, suggestion.mv.input())?;
                        tx.insert_move(id, &mv).await?;
                        save(tx, &mut current).await?;
                        if let Some((seat, key, render, answered)) = record {
                            let mut replies = so_far;
                            replies.push(mv);
                            let played = Played {
                                mv: answered,
                                game: current.clone(),
                                replies,
                            };
                            tx.remember(id, seat, &key, &render(&played)?).await?;
                        }
                        Ok(Some((mv, current)))
                    })
                }))
                .await?;
            let Some((mv, current)) = reply else {
                break;
            };
            self.publish(id);
            replies.push(mv);
            *game = current;
        }
        Ok(replies)
    }
}
