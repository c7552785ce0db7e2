//! The reads: the game now, listings, a round's history, the position
//! after any ply, and the changes an event stream sends.

use uuid::Uuid;

use super::{Change, Result, Service, ServiceError};
use crate::domain::{
    ChangeKind, Ending, EventType, GameRecord, ListFilter, MoveRecord, Offer, Seat,
};
use crate::rules::{AnyGame, Player, Setup};

impl Service {
    /// A game by id.
    ///
    /// # Errors
    /// `GameNotFound`, store errors.
    pub async fn game(&self, id: Uuid) -> Result<GameRecord> {
        let game = self
            .store
            .game(id)
            .await?
            .ok_or(ServiceError::GameNotFound)?;
        self.settled(game).await
    }

    /// A game read as it stands now: a round whose clock ran out is shown
    /// over (see [`GameRecord::settle`]); a rated one is first ended and
    /// rated, so that no read shows it over without its rating change.
    ///
    /// # Errors
    /// Store errors.
    pub(super) async fn settled(&self, mut game: GameRecord) -> Result<GameRecord> {
        if game.settle(self.clock.now()) && game.x_score().is_some() && game.players.rated {
            self.end_if_overdue(game.id).await?;
            // (Deleted meanwhile: shown as it was read.)
            if let Some(ended) = self.store.game(game.id).await? {
                game = ended;
                game.settle(self.clock.now());
            }
        }
        Ok(game)
    }

    /// Games matching a filter, with the next page's cursor.
    ///
    /// # Errors
    /// Store errors.
    pub async fn list(&self, filter: &ListFilter) -> Result<(Vec<GameRecord>, Option<i64>)> {
        let (games, next) = self.store.list(filter).await?;
        let mut settled = Vec::with_capacity(games.len());
        for game in games {
            settled.push(self.settled(game).await?);
        }
        Ok((settled, next))
    }

    /// The moves of a round (default: the current one).
    ///
    /// # Errors
    /// `GameNotFound`, `PositionNotFound` for a round that does not exist,
    /// store errors.
    #[tracing::instrument(name = "history", level = "debug", skip_all, fields(game = %id))]
    pub async fn history(
        &self,
        id: Uuid,
        round: Option<u32>,
    ) -> Result<(GameRecord, Vec<MoveRecord>)> {
        let game = self.game(id).await?;
        let round = round.unwrap_or(game.round);
        if round == 0 || round > game.round {
            return Err(ServiceError::PositionNotFound(if game.round == 1 {
                format!("no round {round}: this game has only round 1")
            } else {
                format!(
                    "no round {round}: this game's rounds are 1 to {}",
                    game.round
                )
            }));
        }
        let moves = self.store.moves(id, game.kind(), round).await?;
        Ok((game, moves))
    }

    /// The position after `ply` moves of a round, replayed from its history.
    /// The record keeps the game's current seats and version; the position,
    /// round and resignation are those of that moment.
    ///
    /// # Errors
    /// `GameNotFound`, `PositionNotFound`, store errors.
    #[tracing::instrument(name = "position", level = "debug", skip_all, fields(game = %id))]
    pub async fn position(&self, id: Uuid, round: Option<u32>, ply: u32) -> Result<GameRecord> {
        self.position_at(id, round, Some(ply)).await
    }

    /// As [`Service::position`]; without `ply`, the round's last position.
    ///
    /// # Errors
    /// `GameNotFound`, `PositionNotFound`, store errors.
    pub async fn position_at(
        &self,
        id: Uuid,
        round: Option<u32>,
        ply: Option<u32>,
    ) -> Result<GameRecord> {
        let (mut game, moves) = self.history(id, round).await?;
        let round = round.unwrap_or(game.round);
        let ply = match ply {
            Some(ply) => usize::try_from(ply).unwrap_or(usize::MAX),
            None => moves.len(),
        };
        if ply > moves.len() {
            let n = moves.len();
            return Err(ServiceError::PositionNotFound(format!(
                "no position after move {ply}: round {round} has {n} move{} (positions 0 to {n})",
                if n == 1 { "" } else { "s" }
            )));
        }
        let replayed = replay(game.position.setup(), &moves[..ply])?;
        let last_of_round = ply == moves.len();
        if !(round == game.round && last_of_round) {
            game.ending = None;
            game.offer = None;
            game.clock = None;
        }
        game.position = replayed;
        game.round = round;
        Ok(game)
    }

    /// Where an event stream of game `id` starts: after `last_event_id` if
    /// given; else after the current version, with the game as it stands
    /// now (what the stream sends first). A deleted game whose history is
    /// still kept streams the changes after `last_event_id`, ending with
    /// `Deleted`.
    ///
    /// # Errors
    /// `GameNotFound` when there is nothing (more) to stream: no such game,
    /// or a deleted one without `last_event_id`, or whose `Deleted` the
    /// client has already had; store errors.
    pub async fn events_start(
        &self,
        id: Uuid,
        last_event_id: Option<i64>,
    ) -> Result<(i64, Option<GameRecord>)> {
        match self.store.game_kept(id).await? {
            Some((_, false)) if let Some(after) = last_event_id => Ok((after, None)),
            Some((mut game, false)) => {
                game.settle(self.clock.now());
                Ok((game.version, Some(game)))
            }
            Some((game, true)) => last_event_id
                .filter(|&after| after < game.version)
                .map(|after| (after, None))
                .ok_or(ServiceError::GameNotFound),
            None => Err(ServiceError::GameNotFound),
        }
    }

    /// Every change after version `after`, in order, each with the game as it
    /// stood right after it (read back from the stored history); the last
    /// change of a deleted game is `Deleted`. `None` when there is nothing
    /// more to tell: the game does not exist (any more), or it is deleted and
    /// `after` is its last version.
    ///
    /// # Errors
    /// Store errors; `Internal` for a history that does not replay.
    pub async fn changes_since(&self, id: Uuid, after: i64) -> Result<Option<Vec<Change>>> {
        let Some((now, deleted)) = self.store.game_kept(id).await? else {
            return Ok(None);
        };
        if after >= now.version {
            return Ok((!deleted).then(Vec::new));
        }
        // One change behind (a stream that follows a game as it is played):
        // that change, with the game as stored, is the whole answer.
        if after + 1 == now.version
            && let Some(kind) = self.store.last_change(&now).await?
            && kind != ChangeKind::Event(EventType::Create)
        {
            return Ok(Some(vec![Change {
                version: now.version,
                kind,
                game: now,
            }]));
        }
        let from_round = self.store.round_at(id, after).await?.unwrap_or(1);
        let (moves, events) = self.store.changes(id, now.kind(), from_round).await?;
        // A seat taken after version v was open at v.
        let joined_at = |seat: Player| {
            events.iter().find_map(|e| match e.event {
                EventType::Join(p) if p == seat => Some(e.version),
                _ => None,
            })
        };
        let join_versions = Player::BOTH.map(joined_at);
        let setup = now.position.setup();
        let mut state = now.clone();
        state.position = AnyGame::new(setup);
        state.round = from_round;
        state.ending = None;
        state.offer = None;
        state.assistance.used = [0, 0];
        // The round's line as replayed, for takebacks.
        let mut line: Vec<MoveRecord> = Vec::new();
        let mut out = Vec::new();
        let (mut mi, mut ei) = (0, 0);
        loop {
            let take_move = match (moves.get(mi), events.get(ei)) {
                (None, None) => break,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some(m), Some(e)) => m.version < e.version,
            };
            let kind = if take_move {
                let m = moves[mi];
                mi += 1;
                state.position.play_input(m.mv).map_err(|e| {
                    ServiceError::Internal(format!("stored move at version {}: {e}", m.version))
                })?;
                state.version = m.version;
                state.updated_at = m.at;
                state.offer = None;
                line.push(m);
                Some(ChangeKind::Move(m))
            } else {
                let e = events[ei];
                ei += 1;
                state.version = e.version;
                state.updated_at = e.at;
                match e.event {
                    EventType::Create => {
                        state.position = AnyGame::new(setup);
                        line.clear();
                    }
                    EventType::Restart => {
                        state.position = AnyGame::new(setup);
                        state.round = e.round;
                        state.ending = None;
                        state.offer = None;
                        state.assistance.used = [0, 0];
                        line.clear();
                    }
                    EventType::Resign(p) => {
                        state.ending = Some(Ending::Resignation(p));
                        state.offer = None;
                    }
                    EventType::Offer(kind, by) => {
                        state.offer = Some(Offer { kind, by, at: e.at });
                    }
                    EventType::OfferDeclined(..) | EventType::OfferWithdrawn(..) => {
                        state.offer = None;
                    }
                    EventType::Takeback(plies) => {
                        line.truncate(plies as usize);
                        state.position = replay(setup, &line)?;
                        state.offer = None;
                    }
                    EventType::Draw => {
                        state.ending = Some(Ending::Agreement);
                        state.offer = None;
                    }
                    EventType::Timeout(p) => {
                        // A first move's deadline aborts; a side's time loses.
                        state.ending = Some(if state.first_move_pending() {
                            Ending::NoFirstMove(p)
                        } else {
                            Ending::Timeout(p)
                        });
                        state.offer = None;
                    }
                    EventType::Claim(by, draw) => {
                        state.ending = Some(Ending::Claimed { by, draw });
                        state.offer = None;
                    }
                    EventType::Assistance(p) => state.assistance.used[p.index()] += 1,
                    EventType::Rematch(id) => state.rematch = Some(id),
                    EventType::Join(_) | EventType::Deleted(_) => {}
                }
                // The creation is where a stream starts, not a change in it.
                (e.event != EventType::Create).then_some(ChangeKind::Event(e.event))
            };
            if let Some(kind) = kind.filter(|_| state.version > after) {
                // The last change shows the game as stored: every field exact
                // (a replay does not rebuild clocks, turns or counts).
                let mut game = if state.version == now.version {
                    now.clone()
                } else {
                    state.clone()
                };
                for seat in Player::BOTH {
                    if join_versions[seat.index()].is_some_and(|v| v > game.version) {
                        game.seats[seat.index()] = Seat::Human { token: None };
                    }
                }
                out.push(Change {
                    version: game.version,
                    kind,
                    game,
                });
            }
        }
        Ok(Some(out))
    }
}

/// The position reached by playing stored moves from the empty board. Stored
/// moves go through the same checks as requests do.
///
/// # Errors
/// `Internal` when a stored move is not legal (a corrupt history).
fn replay(setup: Setup, moves: &[MoveRecord]) -> Result<AnyGame> {
    let mut position = AnyGame::new(setup);
    for m in moves {
        position.play_input(m.mv).map_err(|e| {
            ServiceError::Internal(format!("stored move {} is illegal: {e}", m.ply))
        })?;
    }
    Ok(position)
}
