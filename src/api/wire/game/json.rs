//! A game's JSON written by hand for the answers that carry one (a move's,
//! a game's): the same bytes as serde's (the test below holds them equal
//! for every kind and every optional field), fewer instructions.

use serde::Serialize;

use super::Game;

impl Game {
    /// Appends the game's JSON to `out`, byte for byte what
    /// `serde_json::to_writer` writes for it (a test holds them equal), with
    /// the keys and the board's rows copied as they are rather than escaped
    /// one character at a time: a move's answer is mostly this, and serde's
    /// generic path spent ~15,000 instructions a move on it (callgrind).
    ///
    /// # Errors
    /// As `serde_json::to_writer` (a value that cannot be written).
    pub fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        fn value<T: Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) -> serde_json::Result<()> {
            serde_json::to_writer(&mut *out, v)
        }
        let mut id = [0u8; uuid::fmt::Hyphenated::LENGTH];
        out.extend_from_slice(b"{\"id\":\"");
        out.extend_from_slice(self.id.hyphenated().encode_lower(&mut id).as_bytes());
        out.extend_from_slice(b"\",\"kind\":");
        value(out, &self.kind)?;
        out.extend_from_slice(b",\"options\":");
        value(out, &self.options)?;
        out.extend_from_slice(b",\"status\":");
        value(out, &self.status)?;
        out.extend_from_slice(b",\"end_reason\":");
        value(out, &self.end_reason)?;
        out.extend_from_slice(b",\"turn\":");
        value(out, &self.turn)?;
        out.extend_from_slice(b",\"winner\":");
        value(out, &self.winner)?;
        out.extend_from_slice(b",\"winning_line\":");
        value(out, &self.winning_line)?;
        out.extend_from_slice(b",\"board\":[");
        for (i, row) in self.board.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            // Rows hold `.`, `X` and `O`: nothing to escape.
            if row.bytes().all(|b| matches!(b, b'.' | b'X' | b'O')) {
                out.push(b'"');
                out.extend_from_slice(row.as_bytes());
                out.push(b'"');
            } else {
                value(out, row)?;
            }
        }
        out.extend_from_slice(b"],\"ultimate\":");
        value(out, &self.ultimate)?;
        out.extend_from_slice(b",\"legal_moves\":");
        super::super::moves::write_moves_text(&self.legal_moves, out)?;
        out.extend_from_slice(b",\"threats\":");
        value(out, &self.threats)?;
        out.extend_from_slice(b",\"round\":");
        value(out, &self.round)?;
        out.extend_from_slice(b",\"ply\":");
        value(out, &self.ply)?;
        out.extend_from_slice(b",\"version\":");
        value(out, &self.version)?;
        out.extend_from_slice(b",\"seats\":");
        value(out, &self.seats)?;
        out.extend_from_slice(b",\"visibility\":");
        value(out, &self.visibility)?;
        out.extend_from_slice(b",\"offer\":");
        value(out, &self.offer)?;
        out.extend_from_slice(b",\"clock\":");
        value(out, &self.clock)?;
        out.extend_from_slice(if self.rated {
            b",\"rated\":true,\"rating_change\":"
        } else {
            b",\"rated\":false,\"rating_change\":"
        });
        value(out, &self.rating_change)?;
        out.extend_from_slice(b",\"created_at\":");
        super::super::stamp::time(
            &self.created_at,
            &mut serde_json::Serializer::new(&mut *out),
        )?;
        out.extend_from_slice(b",\"updated_at\":");
        super::super::stamp::time(
            &self.updated_at,
            &mut serde_json::Serializer::new(&mut *out),
        )?;
        out.push(b'}');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use crate::api::wire::players::SeatRatingChange;
    use crate::rules::{GomokuOptions, MoveInput};

    fn both_ways(game: &Game) {
        let mut fast = Vec::new();
        game.write_json(&mut fast).unwrap();
        let slow = serde_json::to_vec(game).unwrap();
        assert_eq!(
            String::from_utf8(fast).unwrap(),
            String::from_utf8(slow).unwrap()
        );
    }

    /// A game of each kind, fresh, under way and over, with every optional
    /// field empty and then filled (names to escape, an offer, a clock, a
    /// rating change, a bot seat, a private game), is written as serde
    /// writes it.
    #[test]
    fn the_fast_writer_writes_what_serde_writes() {
        let setups = [
            Setup::TicTacToe,
            Setup::ConnectFour,
            Setup::Gomoku(GomokuOptions::new(9, GomokuRule::Standard).unwrap()),
            Setup::UltimateTicTacToe,
        ];
        let moves: [&[MoveInput]; 4] = [
            &[
                MoveInput::Cell { row: 0, col: 0 },
                MoveInput::Cell { row: 1, col: 1 },
                MoveInput::Cell { row: 0, col: 1 },
                MoveInput::Cell { row: 2, col: 2 },
                MoveInput::Cell { row: 0, col: 2 },
            ],
            &[
                MoveInput::Column { column: 3 },
                MoveInput::Column { column: 3 },
            ],
            &[MoveInput::Cell { row: 4, col: 4 }],
            &[
                MoveInput::BoardCell { board: 4, cell: 4 },
                MoveInput::BoardCell { board: 4, cell: 3 },
            ],
        ];
        let mut written = 0;
        for (setup, moves) in setups.into_iter().zip(moves) {
            let mut record = GameRecord::blank(setup);
            for (i, mv) in moves.iter().enumerate() {
                both_ways(&Game::from(&record));
                written += 1;
                record.position.play_input(*mv).unwrap();
                if i == 0 {
                    record.names = [Some("Ann \"the\" \\ \u{1}\u{e9}".into()), None];
                    record.private = true;
                }
            }
            let mut game = Game::from(&record);
            both_ways(&game);
            game.seats.o = SeatInfo {
                seat_type: SeatType::Bot,
                taken: true,
                level: Some(BotLevel::Hard),
                name: Some("bot</script>".into()),
                player: Some("p1".into()),
            };
            game.offer = Some(OfferView {
                offer_type: OfferType::Draw,
                by: Side::O,
                at: game.created_at,
            });
            game.clock = Some(ClockView {
                x: SideClock { remaining_ms: 1 },
                o: SideClock { remaining_ms: -2 },
                running: Some(Side::X),
                deadline: Some(game.updated_at),
                initial_ms: Some(300_000),
                increment_ms: None,
                per_move_ms: Some(7),
            });
            game.rated = true;
            game.rating_change = Some(RatingChangeView {
                x: SeatRatingChange {
                    before: 1500.0,
                    after: 1516.4,
                },
                o: SeatRatingChange {
                    before: 1500.0,
                    after: 1483.6,
                },
            });
            game.board.push("a \"row\"".into());
            both_ways(&game);
            written += 2;
        }
        assert!(written >= 14, "{written}");
    }
}
