//! Move notation: a line of moves as one string, per kind (`docs/api.md`,
//! "Notation: export and set-up").
//!
//! | kind | a move | between moves | example |
//! |------|--------|---------------|---------|
//! | `connect_four` | the column, `1`..`7` from the left | nothing | `4453` |
//! | `tic_tac_toe` | the cell, `1`..`9` row-major from the top left | nothing | `519` |
//! | `gomoku` | column letter (`a` = left) + row number (`1` = bottom) | one space | `h8 i9` |
//! | `ultimate_tic_tac_toe` | board digit then cell digit, each `1`..`9` row-major | one space | `55 51` |
//!
//! Gomoku's letters run `a`..`y` as far as the board needs (a 15x15 board
//! uses `a`..`o`, and `h8` is its centre); its rows count from the bottom,
//! while the rules' rows count from the top, so row `n` is the rules' row
//! `size - n`.
//!
//! # One text per line
//!
//! [`format_line`] writes the only text [`parse_line`] reads for a line, so
//! a line goes to text and back unchanged, and two texts never mean the same
//! line. Parsing is strict about it:
//!
//! - the empty text `""` is the line of no moves (the start position);
//! - gomoku and ultimate moves are separated by exactly one space: a space
//!   before the first move, after the last one, or two in a row leave an
//!   empty move, which is refused as `unreadable` at its index; any other
//!   white space is unreadable too;
//! - gomoku letters are lower case and row numbers have no leading zero
//!   (`H8` and `h08` are unreadable).
//!
//! A move that reads as a number off the board (`8` in Connect Four, `z1`
//! or `h0` in gomoku, `0` in tic-tac-toe or ultimate) is readable and refused
//! by the rules as `out_of_bounds`, as the same move sent as JSON would be.
//!
//! Parsing checks each move against the position the moves before it
//! reached, from the setup's empty board, and stops at the first bad one:
//! [`LineError`] gives its 0-based index, its text, why (the rules' refusal,
//! or unreadable), and the position it was tried on. A move after the end of
//! the game is refused as `game_over`; a line that ends the game is a line
//! like any other.

use std::fmt;

use super::Refusal;
use super::any_game::{AnyGame, AnyMove, GameKind, MoveInput, MoveParseError, Setup};

/// A line of moves checked from a setup's start position, and the position
/// it reaches. Built only by [`parse_line`] (or [`Line::play`]), so every
/// move in it is legal where it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    moves: Vec<AnyMove>,
    position: AnyGame,
}

impl Line {
    /// The line of no moves: the start position of `setup`.
    #[must_use]
    pub fn empty(setup: Setup) -> Line {
        Line {
            moves: Vec::new(),
            position: AnyGame::new(setup),
        }
    }

    /// Plays `mv` at the end of the line.
    ///
    /// # Errors
    /// The rules' [`Refusal`]; the line is unchanged then.
    pub fn play(&mut self, mv: AnyMove) -> Result<(), Refusal> {
        self.position.try_play(mv)?;
        self.moves.push(mv);
        Ok(())
    }

    /// The moves, in order.
    #[must_use]
    pub fn moves(&self) -> &[AnyMove] {
        &self.moves
    }

    /// The position after the last move.
    #[must_use]
    pub fn position(&self) -> &AnyGame {
        &self.position
    }

    /// The line as text.
    #[must_use]
    pub fn text(&self) -> String {
        format_line(self.position.setup(), &self.moves)
    }
}

/// Why a move of a line was not taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The text is not a move of this kind's notation.
    Unreadable,
    /// The text names a move that the rules refuse here.
    Refused(Refusal),
}

impl Problem {
    /// The API's `reason`: `unreadable`, or the refusal's.
    #[must_use]
    pub const fn reason(self) -> &'static str {
        match self {
            Problem::Unreadable => "unreadable",
            Problem::Refused(r) => r.reason(),
        }
    }
}

/// The first bad move of a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    /// Its 0-based number in the line.
    pub index: usize,
    /// Its text as written (empty for an empty move between two spaces).
    pub text: String,
    /// Why it was not taken.
    pub problem: Problem,
    /// The position it was tried on: after the moves before it (boxed: a
    /// gomoku position is large, and errors travel by value).
    pub position: Box<AnyGame>,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = self.position.kind();
        match (self.problem, self.text.is_empty()) {
            (Problem::Unreadable, true) => write!(
                f,
                "move {} is empty (a space before the first move, after the last, or two in a \
                 row): {}",
                self.index + 1,
                syntax(kind)
            ),
            (Problem::Unreadable, false) => write!(
                f,
                "move {} (`{}`) is not a {kind} move: {}",
                self.index + 1,
                self.text.escape_debug(),
                syntax(kind)
            ),
            (Problem::Refused(r), _) => write!(
                f,
                "move {} (`{}`) is illegal: {r}",
                self.index + 1,
                self.text.escape_debug()
            ),
        }
    }
}

impl std::error::Error for LineError {}

/// How a kind's notation is written, for messages.
#[must_use]
pub const fn syntax(kind: GameKind) -> &'static str {
    match kind {
        GameKind::ConnectFour => "one column digit 1-7 per move, nothing between moves (\"4453\")",
        GameKind::TicTacToe => {
            "one cell digit 1-9 per move, row-major from the top left, nothing between moves (\"519\")"
        }
        GameKind::Gomoku => {
            "a lower-case column letter (a = left) and a row number (1 = bottom, no leading zero) \
             per move, moves separated by exactly one space (\"h8 i9\")"
        }
        GameKind::UltimateTicTacToe => {
            "two digits per move, board then cell, each 1-9 row-major, moves separated by exactly \
             one space (\"55 51\")"
        }
    }
}

/// One move as text, for a game of `setup`.
///
/// # Examples
///
/// ```
/// use tabula_rules::{AnyGame, GameKind, MoveInput, Setup, notation};
///
/// let setup = Setup::default_for(GameKind::Gomoku);
/// let centre = AnyGame::new(setup).parse_move(MoveInput::Cell { row: 7, col: 7 })?;
/// assert_eq!(notation::format_move(setup, centre), "h8");
/// # Ok::<(), tabula_rules::MoveParseError>(())
/// ```
#[must_use]
pub fn format_move(setup: Setup, mv: AnyMove) -> String {
    let digit = |n: i64| char::from_digit(u32::try_from(n + 1).unwrap_or(0), 10).unwrap_or('?');
    match (setup, mv.input()) {
        (Setup::Gomoku(options), MoveInput::Cell { row, col }) => {
            let letter = u8::try_from(col)
                .ok()
                .and_then(|c| b'a'.checked_add(c))
                .map_or('?', char::from);
            format!("{letter}{}", i64::from(options.size()) - row)
        }
        (_, MoveInput::Cell { row, col }) => digit(row * 3 + col).to_string(),
        (_, MoveInput::Column { column }) => digit(column).to_string(),
        (_, MoveInput::BoardCell { board, cell }) => format!("{}{}", digit(board), digit(cell)),
    }
}

/// A line of moves as text, for a game of `setup` (the moves are written
/// as they are, not checked).
///
/// # Examples
///
/// ```
/// use tabula_rules::{GameKind, Setup, notation};
///
/// let setup = Setup::default_for(GameKind::UltimateTicTacToe);
/// let line = notation::parse_line(setup, "55 51")?;
/// assert_eq!(notation::format_line(setup, line.moves()), "55 51");
/// # Ok::<(), notation::LineError>(())
/// ```
#[must_use]
pub fn format_line(setup: Setup, moves: &[AnyMove]) -> String {
    let separator = match setup.kind() {
        GameKind::ConnectFour | GameKind::TicTacToe => "",
        GameKind::Gomoku | GameKind::UltimateTicTacToe => " ",
    };
    moves
        .iter()
        .map(|&m| format_move(setup, m))
        .collect::<Vec<_>>()
        .join(separator)
}

/// Reads `text` as a line of moves of `setup`, checking each move against
/// the rules from the start position.
///
/// # Errors
/// [`LineError`] for the first move that is unreadable or illegal.
///
/// # Examples
///
/// ```
/// use tabula_rules::{GameKind, Player, Refusal, Setup, notation};
///
/// let setup = Setup::default_for(GameKind::ConnectFour);
/// let line = notation::parse_line(setup, "4453")?;
/// assert_eq!(line.moves().len(), 4);
/// assert_eq!(line.position().to_move(), Player::X);
///
/// let full = notation::parse_line(setup, "4444444").unwrap_err();
/// assert_eq!(full.index, 6);
/// assert_eq!(full.problem, notation::Problem::Refused(Refusal::ColumnFull));
/// # Ok::<(), notation::LineError>(())
/// ```
pub fn parse_line(setup: Setup, text: &str) -> Result<Line, LineError> {
    let mut line = Line::empty(setup);
    for (index, token) in tokens(setup.kind(), text).enumerate() {
        let bad = |line: &Line, problem| LineError {
            index,
            text: token.to_owned(),
            problem,
            position: Box::new(line.position.clone()),
        };
        let input = read_move(setup, token).ok_or_else(|| bad(&line, Problem::Unreadable))?;
        let mv = match line.position.parse_move(input) {
            Ok(mv) => mv,
            Err(MoveParseError::Refused(r)) => return Err(bad(&line, Problem::Refused(r))),
            Err(MoveParseError::WrongShape { .. }) => return Err(bad(&line, Problem::Unreadable)),
        };
        if let Err(r) = line.play(mv) {
            return Err(bad(&line, Problem::Refused(r)));
        }
    }
    Ok(line)
}

/// The texts of the moves of `text`: one character each for the kinds
/// without a separator, the pieces between single spaces for the others.
/// The empty text has none.
fn tokens(kind: GameKind, text: &str) -> Box<dyn Iterator<Item = &str> + '_> {
    if text.is_empty() {
        return Box::new(std::iter::empty());
    }
    match kind {
        GameKind::ConnectFour | GameKind::TicTacToe => {
            Box::new(text.char_indices().map(|(i, c)| &text[i..i + c.len_utf8()]))
        }
        GameKind::Gomoku | GameKind::UltimateTicTacToe => Box::new(text.split(' ')),
    }
}

/// The move one move's text names, in the rules' numbers (possibly off
/// the board, not checked against a position); `None` when it is not
/// written as one move of this kind.
///
/// # Examples
///
/// ```
/// use tabula_rules::{GameKind, MoveInput, Setup, notation};
///
/// let setup = Setup::default_for(GameKind::Gomoku);
/// assert_eq!(notation::read_move(setup, "h8"), Some(MoveInput::Cell { row: 7, col: 7 }));
/// assert_eq!(notation::read_move(setup, "h8 h9"), None);
/// ```
#[must_use]
pub fn read_move(setup: Setup, token: &str) -> Option<MoveInput> {
    let bytes = token.as_bytes();
    let digit = |b: u8| b.is_ascii_digit().then(|| i64::from(b - b'0') - 1);
    match (setup, bytes) {
        (Setup::ConnectFour, &[d]) => digit(d).map(|column| MoveInput::Column { column }),
        (Setup::TicTacToe, &[d]) => digit(d).map(|i| MoveInput::Cell {
            row: i.div_euclid(3),
            col: i.rem_euclid(3),
        }),
        (Setup::UltimateTicTacToe, &[b, c]) => Some(MoveInput::BoardCell {
            board: digit(b)?,
            cell: digit(c)?,
        }),
        (Setup::Gomoku(options), &[letter, ref number @ ..]) => {
            if !letter.is_ascii_lowercase() || !canonical_number(number) {
                return None;
            }
            // Too many digits for an i64: off any board all the same.
            let n = std::str::from_utf8(number)
                .ok()?
                .parse::<i64>()
                .unwrap_or(i64::MAX);
            Some(MoveInput::Cell {
                row: i64::from(options.size()) - n,
                col: i64::from(letter - b'a'),
            })
        }
        _ => None,
    }
}

/// Digits with no leading zero (`0` itself is allowed: a row off the board).
fn canonical_number(digits: &[u8]) -> bool {
    match digits {
        [] => false,
        [b'0'] => true,
        [first, rest @ ..] => (b'1'..=b'9').contains(first) && rest.iter().all(u8::is_ascii_digit),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{GomokuOptions, GomokuRule, Player};

    fn gomoku(size: i64) -> Setup {
        Setup::Gomoku(GomokuOptions::new(size, GomokuRule::Freestyle).unwrap())
    }

    fn err(setup: Setup, text: &str) -> (usize, &'static str) {
        let e = parse_line(setup, text).unwrap_err();
        (e.index, e.problem.reason())
    }

    #[test]
    fn the_gomoku_centre_is_h8_and_rows_count_from_the_bottom() {
        let setup = gomoku(15);
        let line = parse_line(setup, "h8 a1 o15").unwrap();
        let inputs: Vec<MoveInput> = line.moves().iter().map(|m| m.input()).collect();
        assert_eq!(
            inputs,
            [
                MoveInput::Cell { row: 7, col: 7 },
                MoveInput::Cell { row: 14, col: 0 },
                MoveInput::Cell { row: 0, col: 14 },
            ]
        );
        assert_eq!(line.text(), "h8 a1 o15");
        // A 25x25 board runs to `y25`; a 9x9 board's centre is e5.
        assert!(parse_line(gomoku(25), "y25 a1").is_ok());
        let small = parse_line(gomoku(9), "e5").unwrap();
        assert_eq!(small.moves()[0].input(), MoveInput::Cell { row: 4, col: 4 });
    }

    #[test]
    fn ultimate_moves_are_board_then_cell() {
        let setup = Setup::UltimateTicTacToe;
        let line = parse_line(setup, "55 51").unwrap();
        let inputs: Vec<MoveInput> = line.moves().iter().map(|m| m.input()).collect();
        assert_eq!(
            inputs,
            [
                MoveInput::BoardCell { board: 4, cell: 4 },
                MoveInput::BoardCell { board: 4, cell: 0 },
            ]
        );
        // X must now play in board 1 (the top-left one).
        assert_eq!(err(setup, "55 51 55"), (2, "wrong_board"));
        assert_eq!(line.text(), "55 51");
    }

    #[test]
    fn connect_four_and_tic_tac_toe_take_one_digit_per_move() {
        let c4 = parse_line(Setup::ConnectFour, "4453").unwrap();
        let columns: Vec<MoveInput> = c4.moves().iter().map(|m| m.input()).collect();
        assert_eq!(
            columns,
            [3, 3, 4, 2].map(|column| MoveInput::Column { column })
        );
        let ttt = parse_line(Setup::TicTacToe, "519").unwrap();
        let cells: Vec<MoveInput> = ttt.moves().iter().map(|m| m.input()).collect();
        assert_eq!(
            cells,
            [
                MoveInput::Cell { row: 1, col: 1 },
                MoveInput::Cell { row: 0, col: 0 },
                MoveInput::Cell { row: 2, col: 2 },
            ]
        );
        assert_eq!(ttt.position().to_move(), Player::O);
    }

    #[test]
    fn the_empty_text_is_the_start_position() {
        for kind in GameKind::ALL {
            let setup = Setup::default_for(kind);
            let line = parse_line(setup, "").unwrap();
            assert!(line.moves().is_empty());
            assert_eq!(line.position(), &AnyGame::new(setup));
            assert_eq!(line.text(), "");
        }
    }

    #[test]
    fn a_refused_move_gives_its_index_reason_and_the_position_before_it() {
        let e = parse_line(Setup::TicTacToe, "5125").unwrap_err();
        assert_eq!(
            (e.index, e.problem),
            (3, Problem::Refused(Refusal::Occupied))
        );
        assert_eq!(e.text, "5");
        assert_eq!(
            *e.position,
            parse_line(Setup::TicTacToe, "512").unwrap().position
        );
        // Its index counts from 0, its text (for people) from 1.
        assert!(e.to_string().contains("move 4 (`5`)"), "{e}");
        assert_eq!(err(Setup::ConnectFour, "1111111"), (6, "column_full"));
        assert_eq!(err(Setup::ConnectFour, "48"), (1, "out_of_bounds"));
        assert_eq!(err(Setup::ConnectFour, "0"), (0, "out_of_bounds"));
        assert_eq!(err(Setup::TicTacToe, "50"), (1, "out_of_bounds"));
        assert_eq!(err(Setup::UltimateTicTacToe, "50"), (0, "out_of_bounds"));
        assert_eq!(err(gomoku(15), "h8 p1"), (1, "out_of_bounds"));
        assert_eq!(err(gomoku(15), "h8 a16"), (1, "out_of_bounds"));
        assert_eq!(err(gomoku(15), "h0"), (0, "out_of_bounds"));
        assert_eq!(
            err(gomoku(15), "a99999999999999999999999"),
            (0, "out_of_bounds")
        );
        assert_eq!(err(gomoku(15), "h8 h8"), (1, "occupied"));
    }

    #[test]
    fn moves_after_the_end_are_refused_as_game_over() {
        // X takes the top row at move 4; move 5 comes too late.
        let line = parse_line(Setup::TicTacToe, "14253").unwrap();
        assert!(line.position().is_over());
        assert_eq!(line.position().winner(), Some(Player::X));
        assert_eq!(err(Setup::TicTacToe, "142536"), (5, "game_over"));
    }

    #[test]
    fn anything_but_the_notation_is_unreadable() {
        assert_eq!(err(Setup::ConnectFour, "44 5"), (2, "unreadable"));
        assert_eq!(err(Setup::ConnectFour, "4a"), (1, "unreadable"));
        assert_eq!(err(Setup::ConnectFour, "4é4"), (1, "unreadable"));
        assert_eq!(err(Setup::TicTacToe, " 5"), (0, "unreadable"));
        let g = gomoku(15);
        assert_eq!(err(g, "h8  i9"), (1, "unreadable"));
        let empty = parse_line(g, "h8  i9").unwrap_err().to_string();
        assert!(empty.starts_with("move 2 is empty"), "{empty}");
        assert_eq!(err(g, " h8"), (0, "unreadable"));
        assert_eq!(err(g, "h8 "), (1, "unreadable"));
        assert_eq!(err(g, "H8"), (0, "unreadable"));
        assert_eq!(err(g, "h08"), (0, "unreadable"));
        assert_eq!(err(g, "h8\ti9"), (0, "unreadable"));
        assert_eq!(err(g, "8h"), (0, "unreadable"));
        assert_eq!(err(g, "h"), (0, "unreadable"));
        assert_eq!(err(g, "h-1"), (0, "unreadable"));
        let u = Setup::UltimateTicTacToe;
        assert_eq!(err(u, "5"), (0, "unreadable"));
        assert_eq!(err(u, "555"), (0, "unreadable"));
        assert_eq!(err(u, "55,51"), (0, "unreadable"));
        assert_eq!(err(u, "55 5a"), (1, "unreadable"));
        assert!(
            parse_line(g, "x")
                .unwrap_err()
                .to_string()
                .contains("exactly one space")
        );
    }
}
