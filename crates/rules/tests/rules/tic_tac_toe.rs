//! Tic-tac-toe: the full game tree, perft against a naive oracle, properties
//! checked against the same oracle, and hand-made edge cases.
//!
//! The oracle keeps a plain `[Option<Player>; 9]` and decides everything by
//! scanning its eight lines, written out as cell triples; the engine keeps
//! bit masks and a precomputed line table.

use std::collections::HashSet;

use proptest::collection::vec;
use proptest::prelude::*;
use tabula_rules::tic_tac_toe::{Cell, TicTacToe};
use tabula_rules::{Coord, Game, Player, Refusal, Status, Threat};

// ---------------------------------------------------------------- oracle --

/// The eight lines as (row, col) triples.
const NAIVE_LINES: [[(usize, usize); 3]; 8] = [
    [(0, 0), (0, 1), (0, 2)],
    [(1, 0), (1, 1), (1, 2)],
    [(2, 0), (2, 1), (2, 2)],
    [(0, 0), (1, 0), (2, 0)],
    [(0, 1), (1, 1), (2, 1)],
    [(0, 2), (1, 2), (2, 2)],
    [(0, 0), (1, 1), (2, 2)],
    [(0, 2), (1, 1), (2, 0)],
];

/// The naive oracle: a plain board, full scans, nothing cached.
#[derive(Clone, Debug, Default)]
struct Naive {
    cells: [Option<Player>; 9],
}

impl Naive {
    fn at(&self, r: usize, c: usize) -> Option<Player> {
        self.cells[r * 3 + c]
    }

    fn stones(&self) -> usize {
        self.cells.iter().filter(|c| c.is_some()).count()
    }

    fn to_move(&self) -> Player {
        if self.stones().is_multiple_of(2) {
            Player::X
        } else {
            Player::O
        }
    }

    /// The lines held by one player.
    fn full_lines(&self) -> Vec<(Player, [(usize, usize); 3])> {
        NAIVE_LINES
            .iter()
            .filter_map(|line| {
                let first = self.at(line[0].0, line[0].1)?;
                line.iter()
                    .all(|&(r, c)| self.at(r, c) == Some(first))
                    .then_some((first, *line))
            })
            .collect()
    }

    fn winner(&self) -> Option<Player> {
        self.full_lines().first().map(|&(p, _)| p)
    }

    fn over(&self) -> bool {
        self.winner().is_some() || self.stones() == 9
    }

    fn winning_line(&self) -> Vec<Coord> {
        let mut cells: Vec<Coord> = self
            .full_lines()
            .iter()
            .flat_map(|(_, line)| line.iter().map(|&(r, c)| Coord::new(r as u8, c as u8)))
            .collect();
        cells.sort();
        cells.dedup();
        cells
    }

    /// Why cell `i` may not be played, if it may not.
    fn refusal(&self, i: usize) -> Option<Refusal> {
        if self.over() {
            Some(Refusal::GameOver)
        } else if self.cells[i].is_some() {
            Some(Refusal::Occupied)
        } else {
            None
        }
    }

    fn legal(&self) -> Vec<usize> {
        if self.over() {
            return Vec::new();
        }
        (0..9).filter(|&i| self.cells[i].is_none()).collect()
    }

    fn play(&mut self, i: usize) {
        assert!(self.refusal(i).is_none(), "oracle refuses cell {i}");
        self.cells[i] = Some(self.to_move());
    }

    /// Whether a stone of `p` on empty cell `i` would make a line.
    fn would_win(&self, p: Player, i: usize) -> bool {
        let mut next = self.clone();
        next.cells[i] = Some(p);
        next.full_lines().iter().any(|&(q, _)| q == p)
    }

    /// Adds one to `counts[d]` for every move sequence of length `d` from
    /// here (`counts[0]` for this position itself).
    fn perft(&self, counts: &mut [u64]) {
        counts[0] += 1;
        if counts.len() > 1 {
            for i in self.legal() {
                let mut next = self.clone();
                next.cells[i] = Some(self.to_move());
                next.perft(&mut counts[1..]);
            }
        }
    }
}

// --------------------------------------------------------------- helpers --

fn cell(i: usize) -> Cell {
    Cell::from_index(i as u8).expect("cell index below 9")
}

/// Plays row-major cell indices from the start, each of which must be legal.
fn play_all(cells: &[usize]) -> TicTacToe {
    let mut game = TicTacToe::new();
    for &i in cells {
        game.try_play(cell(i))
            .unwrap_or_else(|r| panic!("cell {i} refused: {r:?}"));
    }
    game
}

/// As `Naive::perft`, through the engine.
fn engine_perft(game: &TicTacToe, counts: &mut [u64]) {
    counts[0] += 1;
    if counts.len() > 1 {
        for m in game.legal_moves() {
            engine_perft(&game.clone().play(m).expect("legal move"), &mut counts[1..]);
        }
    }
}

/// Asserts that the engine and the oracle describe the same position.
fn assert_agrees(game: &TicTacToe, naive: &Naive) {
    let over = naive.over();
    let status = match naive.winner() {
        Some(winner) => Status::Won {
            winner,
            line: naive.winning_line(),
        },
        None if over => Status::Draw,
        None => Status::InProgress {
            to_move: naive.to_move(),
        },
    };
    assert_eq!(game.status(), status);
    assert_eq!(game.is_over(), over);
    assert_eq!(game.ply() as usize, naive.stones());
    assert_eq!(game.to_move(), naive.to_move());
    assert_eq!(game.dims(), (3, 3));
    for r in 0..3u8 {
        for c in 0..3u8 {
            assert_eq!(game.cell_at(r, c), naive.at(r.into(), c.into()));
        }
    }
    let legal: Vec<usize> = game
        .legal_moves()
        .iter()
        .map(|c| c.index().into())
        .collect();
    assert_eq!(legal, naive.legal());
}

/// The threats by trying every cell: the side to move's through the engine,
/// the other player's through the oracle (any empty cell).
fn brute_threats(game: &TicTacToe, naive: &Naive) -> Vec<Threat<Cell>> {
    let mut out = Vec::new();
    if naive.over() {
        return out;
    }
    let me = game.to_move();
    for m in game.legal_moves() {
        if game.clone().play(m).expect("legal").winner() == Some(me) {
            out.push(Threat { player: me, mv: m });
        }
    }
    for i in (0..9).filter(|&i| naive.cells[i].is_none()) {
        if naive.would_win(me.other(), i) {
            out.push(Threat {
                player: me.other(),
                mv: cell(i),
            });
        }
    }
    out
}

// ---------------------------------------------------- tree and perft --

#[derive(Default, Debug, PartialEq)]
struct Outcomes {
    games: u64,
    x_wins: u64,
    o_wins: u64,
    draws: u64,
}

fn count_games(game: &TicTacToe, out: &mut Outcomes) {
    if game.is_over() {
        out.games += 1;
        match game.status() {
            Status::Won {
                winner: Player::X, ..
            } => out.x_wins += 1,
            Status::Won {
                winner: Player::O, ..
            } => out.o_wins += 1,
            Status::Draw => out.draws += 1,
            Status::InProgress { .. } => panic!("over but in progress"),
        }
        return;
    }
    let mut moves = Vec::new();
    game.legal_moves_into(&mut moves);
    assert!(!moves.is_empty(), "in progress without a legal move");
    for m in moves {
        count_games(&game.clone().play(m).expect("legal move"), out);
    }
}

#[test]
fn every_game_played_to_its_end_gives_the_known_totals() {
    let mut out = Outcomes::default();
    count_games(&TicTacToe::new(), &mut out);
    assert_eq!(
        out,
        Outcomes {
            games: 255_168,
            x_wins: 131_184,
            o_wins: 77_904,
            draws: 46_080,
        }
    );
}

#[test]
fn perft_by_depth_matches_the_naive_oracle() {
    let mut counts = [0; 11];
    engine_perft(&TicTacToe::new(), &mut counts);
    let mut expected = [0; 11];
    Naive::default().perft(&mut expected);
    assert_eq!(counts, expected);
    // Sanity of the oracle itself: 9 * 8 * 7 * 6 sequences before anyone can
    // win, nothing after the ninth move.
    assert_eq!(&expected[..5], &[1, 9, 72, 504, 3024]);
    assert_eq!(expected[10], 0);
}

#[test]
fn every_reachable_position_agrees_with_the_oracle() {
    // Walks the whole tree once per distinct position, comparing status,
    // board, legal moves, threats and the snapshot round trip.
    fn walk(game: &TicTacToe, naive: &Naive, seen: &mut HashSet<Vec<u8>>) {
        if !seen.insert(game.encode()) {
            return;
        }
        assert_agrees(game, naive);
        assert_eq!(game.threats(), brute_threats(game, naive));
        assert_eq!(TicTacToe::decode(&game.encode()).as_ref(), Ok(game));
        for i in naive.legal() {
            let mut next = naive.clone();
            next.play(i);
            walk(&game.clone().play(cell(i)).expect("legal"), &next, seen);
        }
    }
    let mut seen = HashSet::new();
    walk(&TicTacToe::new(), &Naive::default(), &mut seen);
    assert_eq!(seen.len(), 5478);
}

#[test]
fn decode_accepts_exactly_the_reachable_positions() {
    let mut reachable = HashSet::new();
    let mut stack = vec![TicTacToe::new()];
    while let Some(game) = stack.pop() {
        if reachable.insert(game.encode()) {
            stack.extend(
                game.legal_moves()
                    .into_iter()
                    .map(|m| game.clone().play(m).expect("legal")),
            );
        }
    }
    let mut accepted = 0;
    for x in 0u16..512 {
        for o in 0u16..512 {
            let bytes: Vec<u8> = x.to_le_bytes().into_iter().chain(o.to_le_bytes()).collect();
            match TicTacToe::decode(&bytes) {
                Ok(game) => {
                    accepted += 1;
                    assert!(
                        reachable.contains(&bytes),
                        "unreachable {x:09b}/{o:09b} accepted"
                    );
                    assert_eq!(game.encode(), bytes);
                }
                Err(_) => assert!(
                    !reachable.contains(&bytes),
                    "reachable {x:09b}/{o:09b} refused"
                ),
            }
        }
    }
    assert_eq!(accepted, reachable.len());
}

// ------------------------------------------------------------ properties --

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_games_follow_the_oracle(picks in vec(any::<u8>(), 0..12)) {
        let mut game = TicTacToe::new();
        let mut naive = Naive::default();
        for pick in picks {
            assert_agrees(&game, &naive);
            prop_assert_eq!(TicTacToe::decode(&game.encode()), Ok(game.clone()));
            prop_assert_eq!(game.threats(), brute_threats(&game, &naive));
            let legal = game.legal_moves();
            for i in 0..9 {
                let m = cell(i);
                crate::assert_refused_as(&game, &legal, m, naive.refusal(i))?;
            }
            if legal.is_empty() {
                break;
            }
            let m = legal[usize::from(pick) % legal.len()];
            game.try_play(m).expect("listed move is legal");
            naive.play(m.index().into());
        }
    }

    #[test]
    fn decode_never_panics_and_accepts_only_its_own_encodings(bytes in vec(any::<u8>(), 0..8)) {
        if let Ok(game) = TicTacToe::decode(&bytes) {
            prop_assert_eq!(game.encode(), bytes);
        }
    }

    #[test]
    fn cells_are_built_only_on_the_board(row in any::<i64>(), col in any::<i64>()) {
        let on_board = (0..3).contains(&row) && (0..3).contains(&col);
        match Cell::new(row, col) {
            Ok(c) => {
                prop_assert!(on_board);
                prop_assert_eq!((i64::from(c.row()), i64::from(c.col())), (row, col));
                prop_assert_eq!(i64::from(c.index()), row * 3 + col);
            }
            Err(refusal) => {
                prop_assert!(!on_board);
                prop_assert_eq!(refusal, Refusal::OutOfBounds);
            }
        }
    }
}

// ------------------------------------------------------------ by hand --

#[test]
fn a_taken_cell_is_refused_as_occupied_and_the_position_is_kept() {
    let game = play_all(&[4]);
    let err = game.clone().play(cell(4)).unwrap_err();
    assert_eq!(err.refusal, Refusal::Occupied);
    assert_eq!(err.refusal.reason(), "occupied");
    assert_eq!(err.position, game);
    assert_eq!(game.to_move(), Player::O);
}

#[test]
fn cells_off_the_board_are_refused_as_out_of_bounds() {
    for (row, col) in [
        (-1, 0),
        (0, -1),
        (3, 0),
        (0, 3),
        (3, 3),
        (i64::MIN, 0),
        (0, i64::MIN),
        (i64::MAX, i64::MAX),
        (1, 4),
    ] {
        assert_eq!(
            Cell::new(row, col),
            Err(Refusal::OutOfBounds),
            "({row}, {col})"
        );
    }
    assert_eq!(Cell::new(2, 2).map(Cell::index), Ok(8));
    assert_eq!(Cell::new(1, 0).map(|c| (c.row(), c.col())), Ok((1, 0)));
}

#[test]
fn from_index_accepts_only_indices_below_nine() {
    for i in 0..9u8 {
        let c = Cell::from_index(i).expect("in range");
        assert_eq!((c.index(), c.row(), c.col()), (i, i / 3, i % 3));
    }
    assert_eq!(Cell::from_index(9), None);
    assert_eq!(Cell::from_index(u8::MAX), None);
}

#[test]
fn any_move_after_a_win_is_refused_as_game_over() {
    // X: 0, 1, 2 (top row); O: 3, 4.
    let game = play_all(&[0, 3, 1, 4, 2]);
    assert_eq!(game.winner(), Some(Player::X));
    assert!(game.legal_moves().is_empty());
    assert!(game.threats().is_empty());
    assert_eq!(game.check(cell(8)), Err(Refusal::GameOver));
    // Game over comes before occupied.
    assert_eq!(game.check(cell(0)), Err(Refusal::GameOver));
    assert_eq!(Refusal::GameOver.reason(), "game_over");
}

#[test]
fn a_full_board_without_a_line_is_a_draw_and_refuses_moves() {
    // X O X / X O O / O X X
    let game = play_all(&[0, 1, 2, 4, 3, 5, 7, 6, 8]);
    assert_eq!(game.status(), Status::Draw);
    assert_eq!(game.winner(), None);
    assert!(game.winning_line().is_empty());
    assert_eq!(game.check(cell(0)), Err(Refusal::GameOver));
}

#[test]
fn a_last_move_completing_two_lines_lists_all_five_cells() {
    // X: 1, 2, 4, 8, then 0 completes the top row and the main diagonal on
    // the last free cell: a win, not a draw.
    let game = play_all(&[1, 3, 2, 5, 4, 6, 8, 7, 0]);
    let coords = |cells: &[(u8, u8)]| {
        cells
            .iter()
            .map(|&(r, c)| Coord::new(r, c))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        game.status(),
        Status::Won {
            winner: Player::X,
            line: coords(&[(0, 0), (0, 1), (0, 2), (1, 1), (2, 2)]),
        }
    );
}

#[test]
fn o_wins_with_the_column_it_completes() {
    // X: 0, 1, 7; O: 2, 5, 8 (the right column).
    let game = play_all(&[0, 2, 1, 5, 7, 8]);
    assert_eq!(game.winner(), Some(Player::O));
    assert_eq!(
        game.winning_line(),
        vec![Coord::new(0, 2), Coord::new(1, 2), Coord::new(2, 2)]
    );
    assert_eq!(game.ply(), 6);
}

#[test]
fn threats_list_the_movers_wins_first_then_the_other_players() {
    // X: 0, 1; O: 3, 4; X to move. X wins at 2; O would win at 5.
    let game = play_all(&[0, 3, 1, 4]);
    assert_eq!(
        game.threats(),
        vec![
            Threat {
                player: Player::X,
                mv: cell(2)
            },
            Threat {
                player: Player::O,
                mv: cell(5)
            },
        ]
    );
}

#[test]
fn threats_of_the_side_to_move_come_first_when_o_is_to_move() {
    // X: 0, 4, 6; O: 8, 2; O to move. O wins at 5 (right column); X would
    // win at 3 (left column). X's diagonals are blocked by O.
    let game = play_all(&[0, 8, 4, 2, 6]);
    assert_eq!(game.to_move(), Player::O);
    assert_eq!(
        game.threats(),
        vec![
            Threat {
                player: Player::O,
                mv: cell(5)
            },
            Threat {
                player: Player::X,
                mv: cell(3)
            },
        ]
    );
    assert!(TicTacToe::new().threats().is_empty());
}

#[test]
fn empty_board_and_display() {
    let game = TicTacToe::new();
    assert_eq!(game.status(), Status::InProgress { to_move: Player::X });
    assert_eq!(game.legal_moves().len(), 9);
    assert_eq!(game.dims(), (3, 3));
    let game = play_all(&[5]);
    assert_eq!(game.cell_at(1, 2), Some(Player::X));
    assert_eq!(game.cell_at(2, 1), None);
    assert_eq!(game.cell_at(3, 0), None);
    assert_eq!(game.cell_at(255, 255), None);
}

#[test]
fn decode_refuses_inconsistent_snapshots() {
    let snap = |x: u16, o: u16| -> Vec<u8> {
        x.to_le_bytes().into_iter().chain(o.to_le_bytes()).collect()
    };
    let refused = |bytes: &[u8]| TicTacToe::decode(bytes).is_err();
    assert!(refused(&[]));
    assert!(refused(&[0, 0, 0]));
    assert!(refused(&[0, 0, 0, 0, 0]));
    assert!(refused(&snap(1 << 9, 0)), "a stone beyond the board");
    assert!(refused(&snap(0b1, 0b1)), "overlapping stones");
    assert!(refused(&snap(0b11, 0)), "X two ahead");
    assert!(refused(&snap(0, 0b1)), "O ahead of X");
    assert!(refused(&snap(0b111, 0b111_000)), "both players have a line");
    assert!(
        refused(&snap(0b111, 0b11_000_000 | 0b1_000)),
        "O moved after X won"
    );
    assert!(
        refused(&snap(0b1_0100_0011, 0b111_000)),
        "X moved after O won"
    );
    assert_eq!(
        TicTacToe::decode(&snap(0b0_0100_0011, 0b111_000)).map(|g| g.winner()),
        Ok(Some(Player::O))
    );
    assert_eq!(TicTacToe::decode(&snap(0, 0)), Ok(TicTacToe::new()));
    assert_eq!(
        TicTacToe::decode(&snap(0b111, 0b11_000)).map(|g| g.winner()),
        Ok(Some(Player::X))
    );
}
