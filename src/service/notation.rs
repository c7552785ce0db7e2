//! Notation: a round's moves as one string (`rules::notation`), and the
//! set-up line a new game starts from.
//!
//! # Versions of a game created with a set-up line
//!
//! The create is version 1, as for any game (its `create` event is stored
//! at version 1); the line's `n` moves follow as moves of round 1, plies 1
//! to `n`, at versions 2 to `n + 1`, all at the creation time, so the new
//! game is at version `n + 1`. The history, `positions/{ply}` and an event
//! stream resumed from version 1 read them back as if they had been played
//! one by one after the create (a stream that starts with the game's
//! current version sends nothing for them, as for any earlier move).

use uuid::Uuid;

use super::{Result, RoundNotation, RoundResult, Service, ServiceError};
use crate::domain::{EventType, GameRecord, GameStatus, MoveRecord};
use crate::rules::notation::{self, LineError, Problem};
use crate::rules::{AnyGame, AnyMove};

impl Service {
    /// The moves of a round (default: the current one) in the kind's
    /// notation, and the round's result.
    ///
    /// # Errors
    /// `GameNotFound`, `PositionNotFound` for a round that does not exist,
    /// store errors; `Internal` for a history that does not replay.
    #[tracing::instrument(name = "notation", level = "debug", skip_all, fields(game = %id))]
    pub async fn notation(&self, id: Uuid, round: Option<u32>) -> Result<RoundNotation> {
        let (game, moves) = self.history(id, round).await?;
        let round = round.unwrap_or(game.round);
        let setup = game.position.setup();
        let mut position = AnyGame::new(setup);
        let mut played = Vec::with_capacity(moves.len());
        for m in &moves {
            let mv = position.play_input(m.mv).map_err(|e| {
                ServiceError::Internal(format!("stored move {} is illegal: {e}", m.ply))
            })?;
            played.push(mv);
        }
        let result = if round == game.round {
            match game.outcome() {
                (GameStatus::Won, Some(winner), _) => Some(RoundResult::Won(winner)),
                (GameStatus::Draw, _, _) => Some(RoundResult::Draw),
                _ => None,
            }
        } else {
            self.past_result(&game, round, &position).await?
        };
        Ok(RoundNotation {
            setup,
            round,
            moves: notation::format_line(setup, &played),
            result,
        })
    }

    /// How an earlier round of `game` ended, `position` being where its
    /// moves left it: by its position, else by a resignation in it, else not
    /// at all (a restart left it unfinished).
    async fn past_result(
        &self,
        game: &GameRecord,
        round: u32,
        position: &AnyGame,
    ) -> Result<Option<RoundResult>> {
        if let Some(winner) = position.winner() {
            return Ok(Some(RoundResult::Won(winner)));
        }
        if position.is_over() {
            return Ok(Some(RoundResult::Draw));
        }
        let (_, events) = self.store.changes(game.id, game.kind(), round).await?;
        Ok(events.iter().find_map(|e| match e.event {
            EventType::Resign(loser) | EventType::Timeout(loser) if e.round == round => {
                Some(RoundResult::Won(loser.other()))
            }
            EventType::Draw if e.round == round => Some(RoundResult::Draw),
            _ => None,
        }))
    }
}

/// Plays a new game's set-up line on its position (round 1, nothing played
/// yet, at version 1): the records of its moves, at plies 1.. and versions
/// 2.. (see the module docs), and the game at the version of the last one.
/// The game is untouched when a move is refused.
///
/// # Errors
/// `IllegalLine` for a move the rules refuse (the line was read and checked
/// already: this checks it again, as stored moves are).
pub(super) fn play_setup_line(game: &mut GameRecord, moves: &[AnyMove]) -> Result<Vec<MoveRecord>> {
    let mut position = game.position.clone();
    let mut records = Vec::with_capacity(moves.len());
    let mut version = game.version;
    for (index, &mv) in moves.iter().enumerate() {
        let player = position.to_move();
        if let Err(refusal) = position.try_play(mv) {
            return Err(ServiceError::IllegalLine(Box::new(LineError {
                index,
                text: notation::format_move(position.setup(), mv),
                problem: Problem::Refused(refusal),
                position: Box::new(position),
            })));
        }
        version += 1;
        records.push(MoveRecord {
            round: game.round,
            ply: position.ply(),
            version,
            player,
            mv: mv.input(),
            at: game.created_at,
        });
    }
    game.position = position;
    game.version = version;
    Ok(records)
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::rules::{Player, Setup};

    fn new_game(setup: Setup) -> GameRecord {
        GameRecord::blank(setup)
    }

    #[test]
    fn a_setup_line_becomes_moves_at_versions_after_the_create() {
        let line = notation::parse_line(Setup::ConnectFour, "4453").unwrap();
        let mut game = new_game(Setup::ConnectFour);
        let records = play_setup_line(&mut game, line.moves()).unwrap();
        assert_eq!(game.version, 5);
        assert_eq!(&game.position, line.position());
        let plies: Vec<(u32, i64, Player)> = records
            .iter()
            .map(|m| (m.ply, m.version, m.player))
            .collect();
        assert_eq!(
            plies,
            [
                (1, 2, Player::X),
                (2, 3, Player::O),
                (3, 4, Player::X),
                (4, 5, Player::O)
            ]
        );
    }

    #[test]
    fn a_refused_setup_move_leaves_the_game_as_it_was() {
        let full = notation::parse_line(Setup::ConnectFour, "444444").unwrap();
        let mut moves = full.moves().to_vec();
        moves.push(moves[0]);
        let mut game = new_game(Setup::ConnectFour);
        let Err(ServiceError::IllegalLine(e)) = play_setup_line(&mut game, &moves) else {
            panic!("the seventh disc in a full column was taken");
        };
        assert_eq!(
            (e.index, e.problem.reason(), e.text.as_str()),
            (6, "column_full", "4")
        );
        assert_eq!(game.version, 1);
        assert_eq!(game.position, AnyGame::new(Setup::ConnectFour));
    }
}
