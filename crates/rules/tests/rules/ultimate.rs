//! Ultimate tic-tac-toe: perft against a naive oracle, properties checked
//! against the same oracle, and snapshots (the hand-made games for the
//! special rules: `ultimate_cases.rs`).
//!
//! The oracle keeps a plain array of 81 cells (`board * 9 + cell`) and its own
//! active board, and decides every question by scanning: each inner board's
//! eight lines for its owner, each board for fullness, the outer board's
//! eight lines over those owners. Nothing is cached between calls. The engine
//! keeps bit masks, an outer board and a stored outcome.
//!

use proptest::collection::vec;
use proptest::prelude::*;
use tabula_rules::ultimate::{InnerStatus, Move, Ultimate};
use tabula_rules::{Coord, Game, Player, Refusal, Status, Threat};

// ---------------------------------------------------------------- oracle --

/// The eight lines of a 3x3 board as row-major cell triples.
pub(crate) const NAIVE_LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

/// The lines of a 3x3 board (given cell by cell) held by one player.
pub(crate) fn owned_lines(board: [Option<Player>; 9]) -> Vec<(Player, [usize; 3])> {
    NAIVE_LINES
        .iter()
        .filter_map(|&line| {
            let owner = board[line[0]]?;
            line.iter()
                .all(|&i| board[i] == Some(owner))
                .then_some((owner, line))
        })
        .collect()
}

/// The naive oracle.
#[derive(Clone, Debug)]
pub(crate) struct Naive {
    cells: [Option<Player>; 81],
    active: Option<usize>,
}

impl Naive {
    fn new() -> Naive {
        Naive {
            cells: [None; 81],
            active: None,
        }
    }

    fn board(&self, b: usize) -> [Option<Player>; 9] {
        std::array::from_fn(|c| self.cells[b * 9 + c])
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

    fn board_status(&self, b: usize) -> InnerStatus {
        let board = self.board(b);
        match owned_lines(board).first() {
            Some(&(p, _)) => InnerStatus::Won(p),
            None if board.iter().all(Option::is_some) => InnerStatus::Drawn,
            None => InnerStatus::Open,
        }
    }

    fn finished(&self, b: usize) -> bool {
        self.board_status(b) != InnerStatus::Open
    }

    /// The outer board: who owns each inner board.
    fn outer(&self) -> [Option<Player>; 9] {
        std::array::from_fn(|b| match self.board_status(b) {
            InnerStatus::Won(p) => Some(p),
            _ => None,
        })
    }

    fn winner(&self) -> Option<Player> {
        owned_lines(self.outer()).first().map(|&(p, _)| p)
    }

    fn winning_line(&self) -> Vec<Coord> {
        let mut boards: Vec<usize> = owned_lines(self.outer())
            .iter()
            .flat_map(|(_, l)| *l)
            .collect();
        boards.sort_unstable();
        boards.dedup();
        boards
            .iter()
            .map(|&b| Coord::new((b / 3) as u8, (b % 3) as u8))
            .collect()
    }

    fn over(&self) -> bool {
        self.winner().is_some() || (0..9).all(|b| self.finished(b))
    }

    pub(crate) fn status(&self) -> Status {
        match self.winner() {
            Some(winner) => Status::Won {
                winner,
                line: self.winning_line(),
            },
            None if self.over() => Status::Draw,
            None => Status::InProgress {
                to_move: self.to_move(),
            },
        }
    }

    /// Why `(b, c)` may not be played now, if it may not.
    fn refusal(&self, b: usize, c: usize) -> Option<Refusal> {
        if self.over() {
            Some(Refusal::GameOver)
        } else if self.active.is_some_and(|a| a != b) {
            Some(Refusal::WrongBoard)
        } else if self.finished(b) {
            Some(Refusal::BoardFinished)
        } else if self.cells[b * 9 + c].is_some() {
            Some(Refusal::Occupied)
        } else {
            None
        }
    }

    fn legal(&self) -> Vec<(usize, usize)> {
        if self.over() {
            return Vec::new();
        }
        let finished: [bool; 9] = std::array::from_fn(|b| self.finished(b));
        let mut out = Vec::new();
        for (b, &done) in finished.iter().enumerate() {
            if done || self.active.is_some_and(|a| a != b) {
                continue;
            }
            for c in 0..9 {
                if self.cells[b * 9 + c].is_none() {
                    out.push((b, c));
                }
            }
        }
        out
    }

    /// Plays a move the caller knows to be legal.
    fn play_unchecked(&mut self, b: usize, c: usize) {
        self.cells[b * 9 + c] = Some(self.to_move());
        self.active = if self.finished(c) { None } else { Some(c) };
    }

    fn play(&mut self, b: usize, c: usize) {
        assert_eq!(self.refusal(b, c), None, "oracle refuses ({b}, {c})");
        self.play_unchecked(b, c);
    }

    /// Whether a stone of `p` on empty cell `(b, c)` would win the game.
    fn would_win(&self, p: Player, b: usize, c: usize) -> bool {
        let mut next = self.clone();
        next.cells[b * 9 + c] = Some(p);
        next.winner() == Some(p)
    }

    /// Adds one to `counts[d]` for every move sequence of length `d` from
    /// here (`counts[0]` for this position itself).
    fn perft(&self, counts: &mut [u64]) {
        counts[0] += 1;
        if counts.len() > 1 {
            for (b, c) in self.legal() {
                let mut next = self.clone();
                next.play_unchecked(b, c);
                next.perft(&mut counts[1..]);
            }
        }
    }
}

// --------------------------------------------------------------- helpers --

pub(crate) fn mv(b: usize, c: usize) -> Move {
    Move::new(b as i64, c as i64).expect("board and cell below 9")
}

pub(crate) fn idx(m: Move) -> (usize, usize) {
    (m.board().into(), m.cell().into())
}

/// Plays `(board, cell)` pairs from the start in the engine and the oracle,
/// asserting at every step that they agree and that the move is accepted.
pub(crate) fn replay(moves: &[(usize, usize)]) -> (Ultimate, Naive) {
    let mut game = Ultimate::new();
    let mut naive = Naive::new();
    for (i, &(b, c)) in moves.iter().enumerate() {
        assert_agrees(&game, &naive);
        game.try_play(mv(b, c))
            .unwrap_or_else(|r| panic!("move {} ({b}, {c}) refused: {r:?}", i + 1));
        naive.play(b, c);
    }
    assert_agrees(&game, &naive);
    (game, naive)
}

pub(crate) fn play(moves: &[(usize, usize)]) -> Ultimate {
    replay(moves).0
}

/// As `Naive::perft`, through the engine.
pub(crate) fn engine_perft(game: &Ultimate, counts: &mut [u64]) {
    counts[0] += 1;
    if counts.len() > 1 {
        let mut moves = Vec::new();
        game.legal_moves_into(&mut moves);
        for m in moves {
            let mut next = game.clone();
            next.play_unchecked(m);
            engine_perft(&next, &mut counts[1..]);
        }
    }
}

/// Asserts that the engine and the oracle describe the same position.
pub(crate) fn assert_agrees(game: &Ultimate, naive: &Naive) {
    assert_eq!(game.status(), naive.status());
    assert_eq!(game.is_over(), naive.over());
    assert_eq!(game.winner(), naive.winner());
    assert_eq!(game.ply() as usize, naive.stones());
    assert_eq!(game.to_move(), naive.to_move());
    let active = if naive.over() { None } else { naive.active };
    assert_eq!(game.active_board().map(usize::from), active);
    for b in 0..9u8 {
        assert_eq!(
            game.board_status(b),
            naive.board_status(b.into()),
            "board {b}"
        );
    }
    assert_eq!(game.dims(), (9, 9));
    for r in 0..9usize {
        for c in 0..9usize {
            let (b, cell) = ((r / 3) * 3 + c / 3, (r % 3) * 3 + c % 3);
            assert_eq!(
                game.cell_at(r as u8, c as u8),
                naive.cells[b * 9 + cell],
                "grid ({r}, {c})"
            );
        }
    }
    let legal: Vec<(usize, usize)> = game.legal_moves().into_iter().map(idx).collect();
    assert_eq!(legal, naive.legal());
}

/// The threats by trying every move: the side to move's legal moves through
/// the engine, the other player's moves on any empty cell of an unfinished
/// board through the oracle.
pub(crate) fn brute_threats(game: &Ultimate, naive: &Naive) -> Vec<Threat<Move>> {
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
    for b in (0..9).filter(|&b| !naive.finished(b)) {
        for c in (0..9).filter(|&c| naive.cells[b * 9 + c].is_none()) {
            if naive.would_win(me.other(), b, c) {
                out.push(Threat {
                    player: me.other(),
                    mv: mv(b, c),
                });
            }
        }
    }
    out
}

/// A small deterministic generator (xorshift64) for picking moves.
pub(crate) struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

pub(crate) fn threat(player: Player, b: usize, c: usize) -> Threat<Move> {
    Threat {
        player,
        mv: mv(b, c),
    }
}

// ------------------------------------------------------------------ perft --

#[test]
fn perft_to_depth_five_matches_the_naive_oracle() {
    let mut counts = [0; 6];
    engine_perft(&Ultimate::new(), &mut counts);
    let mut expected = [0; 6];
    Naive::new().perft(&mut expected);
    assert_eq!(counts, expected);
    // The published values, as a check on the oracle.
    assert_eq!(expected, [1, 81, 720, 6336, 55_080, 473_256]);
}

#[test]
fn perft_from_random_middle_games_matches_the_naive_oracle() {
    // Positions 10 to 60 plies deep, where boards are won, drawn and sent
    // to; depth 3 from each, and the two agree along the way there.
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut finished_seen = 0;
    for round in 0..60 {
        let plies = 10 + rng.below(51);
        let mut game = Ultimate::new();
        let mut naive = Naive::new();
        for _ in 0..plies {
            let legal = naive.legal();
            if legal.is_empty() {
                break;
            }
            let (b, c) = legal[rng.below(legal.len())];
            game.try_play(mv(b, c)).expect("oracle-legal move");
            naive.play(b, c);
            assert_agrees(&game, &naive);
        }
        finished_seen += (0..9).filter(|&b| naive.finished(b)).count();
        let mut counts = [0; 4];
        engine_perft(&game, &mut counts);
        let mut expected = [0; 4];
        naive.perft(&mut expected);
        assert_eq!(counts, expected, "round {round}, {} plies", game.ply());
    }
    assert!(
        finished_seen > 60,
        "the sample should include finished boards"
    );
}

// ------------------------------------------------------------ properties --

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_games_follow_the_oracle(picks in vec(any::<u16>(), 0..90)) {
        let mut game = Ultimate::new();
        let mut naive = Naive::new();
        for pick in picks {
            assert_agrees(&game, &naive);
            prop_assert_eq!(Ultimate::decode(&game.encode()), Ok(game.clone()));
            prop_assert_eq!(game.threats(), brute_threats(&game, &naive));
            let legal = game.legal_moves();
            for b in 0..9 {
                for c in 0..9 {
                    let m = mv(b, c);
                    crate::assert_refused_as(&game, &legal, m, naive.refusal(b, c))?;
                }
            }
            if legal.is_empty() {
                break;
            }
            let m = legal[usize::from(pick) % legal.len()];
            game.try_play(m).expect("listed move is legal");
            naive.play(m.board().into(), m.cell().into());
        }
    }

    #[test]
    fn decode_never_panics_on_arbitrary_bytes(bytes in vec(any::<u8>(), 0..48)) {
        if let Ok(game) = Ultimate::decode(&bytes) {
            prop_assert_eq!(game.encode(), bytes);
        }
    }

    #[test]
    fn decode_of_damaged_snapshots_never_panics_and_stays_canonical(
        picks in vec(any::<u16>(), 0..80),
        damage in vec((0usize..37, any::<u8>()), 1..4),
    ) {
        let mut game = Ultimate::new();
        for pick in picks {
            let legal = game.legal_moves();
            if legal.is_empty() {
                break;
            }
            game.try_play(legal[usize::from(pick) % legal.len()]).expect("legal");
        }
        let mut bytes = game.encode();
        for (at, byte) in damage {
            bytes[at] = byte;
        }
        if let Ok(decoded) = Ultimate::decode(&bytes) {
            prop_assert_eq!(decoded.encode(), bytes);
            prop_assert!(decoded.ply() <= 81);
        }
    }

    #[test]
    fn moves_are_built_only_in_range(board in any::<i64>(), cell in any::<i64>()) {
        let in_range = (0..9).contains(&board) && (0..9).contains(&cell);
        match Move::new(board, cell) {
            Ok(m) => {
                prop_assert!(in_range);
                prop_assert_eq!((i64::from(m.board()), i64::from(m.cell())), (board, cell));
            }
            Err(refusal) => {
                prop_assert!(!in_range);
                prop_assert_eq!(refusal, Refusal::OutOfBounds);
            }
        }
    }
}

/// X wins boards 0, 4 and 8 (the outer main diagonal). In each board X
/// plays its line while O answers with the cell that sends X back.
pub(crate) const X_WINS_THE_DIAGONAL: [(usize, usize); 17] = [
    // Board 0: top row.
    (0, 1),
    (1, 0),
    (0, 2),
    (2, 0),
    (0, 0),
    // O is free (board 0 is won); board 4: middle row.
    (6, 4),
    (4, 3),
    (3, 4),
    (4, 5),
    (5, 4),
    (4, 4),
    // O is free again (board 4 is won); board 8: bottom row.
    (1, 8),
    (8, 6),
    (6, 8),
    (8, 7),
    (7, 8),
    (8, 8),
];

/// X wins board 0 along its top row while O keeps sending X back to board 0;
/// X's last cell (0) sends O to board 0, which is now won.
pub(crate) const X_WINS_BOARD_0: [(usize, usize); 5] = [(0, 1), (1, 0), (0, 2), (2, 0), (0, 0)];

// --------------------------------------------------------------- snapshots --

/// A snapshot from raw parts: X's and O's board masks and the active byte.
pub(crate) fn snapshot(x: [u16; 9], o: [u16; 9], active: u8) -> Vec<u8> {
    x.iter()
        .chain(&o)
        .flat_map(|m| m.to_le_bytes())
        .chain([active])
        .collect()
}

#[test]
fn decode_refuses_inconsistent_snapshots() {
    const NONE: u8 = 255;
    let empty = [0u16; 9];
    let with = |b: usize, mask: u16| {
        let mut boards = [0u16; 9];
        boards[b] = mask;
        boards
    };
    let refused = |bytes: Vec<u8>, why: &str| assert!(Ultimate::decode(&bytes).is_err(), "{why}");

    assert_eq!(
        Ultimate::decode(&snapshot(empty, empty, NONE)),
        Ok(Ultimate::new())
    );
    refused(Vec::new(), "empty");
    refused(snapshot(empty, empty, NONE)[..36].to_vec(), "short");
    let mut long = snapshot(empty, empty, NONE);
    long.push(0);
    refused(long, "long");
    refused(snapshot(empty, empty, 9), "active board 9");
    refused(snapshot(empty, empty, 0), "active board before any move");
    refused(
        snapshot(with(0, 1 << 9), empty, NONE),
        "stone beyond the board",
    );
    refused(snapshot(with(0, 0b1), with(0, 0b1), 0), "overlap");
    refused(snapshot(with(0, 0b11), empty, 0), "X two ahead");
    refused(snapshot(empty, with(0, 0b1), 0), "O ahead");
    // X at (4, 4): O must play in board 4; an active board 3 has no X stone
    // on cell 3, and no active board needs a finished board to be sent to.
    assert!(Ultimate::decode(&snapshot(with(4, 1 << 4), empty, 4)).is_ok());
    refused(
        snapshot(with(4, 1 << 4), empty, 3),
        "active board not sent to",
    );
    refused(
        snapshot(with(4, 1 << 4), empty, NONE),
        "free choice without a finished board",
    );
    // Lines of both players in one board.
    let mut x = empty;
    let mut o = empty;
    x[0] = 0b111;
    x[1] = 0b1;
    o[0] = 0b111_000;
    o[1] = 0b10;
    refused(snapshot(x, o, 1), "both players own board 0");
    // Two parallel lines of X in one board: no single last move made them.
    let mut x = empty;
    x[0] = 0b111_111;
    let o = [0b1, 0b1, 0b1, 0b1, 0b1, 0b1, 0, 0, 0];
    refused(snapshot(x, o, 1), "board won twice over");
    // The diagonal game decodes; with one more O stone it does not.
    let game = play(&X_WINS_THE_DIAGONAL);
    let bytes = game.encode();
    assert_eq!(Ultimate::decode(&bytes), Ok(game));
    let mut more = bytes.clone();
    more[18 + 2 * 5] |= 1 << 7; // O at (5, 7)
    refused(more, "O moved after X won");
    let mut active = bytes;
    active[36] = 5;
    refused(active, "active board after the game ended");
    // A finished board cannot be the active one.
    let won = play(&X_WINS_BOARD_0);
    let mut bytes = won.encode();
    bytes[36] = 0;
    refused(bytes, "active board already won");
}
