//! Gomoku: five in a row on a square board of 5x5 to 25x25 (docs/rules.md, "Gomoku").
//!
//! The board is kept as bit rows: one `u32` per row and player, bit `col` set
//! when that player has a stone at `(row, col)`; only the first `size` rows
//! and the low `size` bits are ever used. After a move only the four lines
//! through the new stone are walked, and the winner is stored in the position.
//!
//! Under the `freestyle` rule a run of five or more wins; under `standard`
//! only a run of exactly five does, and a move that makes an overline (six or
//! more) in one direction still wins if it makes exactly five in another.

use std::fmt;

use super::{Coord, DecodeError, Game, Player, Refusal, Threat};

/// The smallest board side.
pub const MIN_SIZE: u8 = 5;
/// The largest board side (a row still fits in a `u32`).
pub const MAX_SIZE: u8 = 25;
/// The board side when no `size` option is given.
pub const DEFAULT_SIZE: u8 = 15;

/// Length of the bit-row arrays: room for the largest board.
const ROWS: usize = MAX_SIZE as usize;

/// The stones needed in a row.
const FIVE: u32 = 5;

/// The four line directions as (row step, column step): along a row, down a
/// column, down-right and down-left.
const DIRECTIONS: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/// Snapshot bytes before the bit rows: size, rule, last row, last column.
const HEADER: usize = 4;

/// Stands for "no last move" in a snapshot.
const NO_MOVE: u8 = u8::MAX;

/// Which runs win (option `rule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum GomokuRule {
    /// Five or more in a row wins.
    #[default]
    Freestyle,
    /// Exactly five in a row wins; an overline (six or more) does not.
    Standard,
}

impl GomokuRule {
    /// The API name: `freestyle` or `standard`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            GomokuRule::Freestyle => "freestyle",
            GomokuRule::Standard => "standard",
        }
    }

    /// The rule with API name `s`, if there is one.
    #[must_use]
    pub fn parse(s: &str) -> Option<GomokuRule> {
        match s {
            "freestyle" => Some(GomokuRule::Freestyle),
            "standard" => Some(GomokuRule::Standard),
            _ => None,
        }
    }

    /// Whether a (maximal) run of `len` stones wins under this rule.
    const fn wins(self, len: u32) -> bool {
        match self {
            GomokuRule::Freestyle => len >= FIVE,
            GomokuRule::Standard => len == FIVE,
        }
    }

    /// The snapshot byte.
    const fn to_byte(self) -> u8 {
        match self {
            GomokuRule::Freestyle => 0,
            GomokuRule::Standard => 1,
        }
    }

    /// The rule back from its snapshot byte.
    const fn from_byte(byte: u8) -> Option<GomokuRule> {
        match byte {
            0 => Some(GomokuRule::Freestyle),
            1 => Some(GomokuRule::Standard),
            _ => None,
        }
    }
}

impl fmt::Display for GomokuRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An option value out of range, with a message meant for the user.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OptionError(pub String);

/// Validated options of a gomoku round: the board side and the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GomokuOptions {
    size: u8,
    rule: GomokuRule,
}

impl Default for GomokuOptions {
    /// 15x15, freestyle.
    fn default() -> Self {
        GomokuOptions {
            size: DEFAULT_SIZE,
            rule: GomokuRule::Freestyle,
        }
    }
}

impl GomokuOptions {
    /// Options for a `size` x `size` board under `rule`.
    ///
    /// # Errors
    /// [`OptionError`] when `size` is not between [`MIN_SIZE`] and
    /// [`MAX_SIZE`] (inclusive), e.g. "size must be between 5 and 25, got 30".
    pub fn new(size: i64, rule: GomokuRule) -> Result<GomokuOptions, OptionError> {
        match u8::try_from(size) {
            Ok(side) if (MIN_SIZE..=MAX_SIZE).contains(&side) => {
                Ok(GomokuOptions { size: side, rule })
            }
            _ => Err(OptionError(format!(
                "size must be between {MIN_SIZE} and {MAX_SIZE}, got {size}"
            ))),
        }
    }

    /// The board side, 5 to 25.
    #[must_use]
    pub const fn size(self) -> u8 {
        self.size
    }

    /// The rule.
    #[must_use]
    pub const fn rule(self) -> GomokuRule {
        self.rule
    }
}

/// An intersection of a board, built by [`Gomoku::point`] so that it lies on
/// that board (row and column below its size, hence below [`MAX_SIZE`]).
///
/// Points order row-major.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    row: u8,
    col: u8,
}

impl Point {
    /// The row, 0 at the top.
    #[must_use]
    pub const fn row(self) -> u8 {
        self.row
    }

    /// The column, 0 at the left.
    #[must_use]
    pub const fn col(self) -> u8 {
        self.col
    }
}

impl From<Point> for Coord {
    fn from(p: Point) -> Coord {
        Coord::new(p.row, p.col)
    }
}

/// A gomoku position.
///
/// Invariants: the two players' bit rows never overlap and hold no bit at or
/// beyond `size` (rows `size..` are zero); `ply` is the number of stones;
/// `last` is the stone played at `ply - 1` (`None` only at ply 0); `winner`
/// is the player whose last move made a winning run, and the board without
/// the last stone holds no winning run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gomoku {
    options: GomokuOptions,
    stones: [[u32; ROWS]; 2],
    ply: u32,
    last: Option<Point>,
    winner: Option<Player>,
}

impl Default for Gomoku {
    /// The empty 15x15 freestyle board.
    fn default() -> Self {
        Gomoku::new(GomokuOptions::default())
    }
}

impl Gomoku {
    /// The empty board of `options`.
    #[must_use]
    pub fn new(options: GomokuOptions) -> Self {
        Gomoku {
            options,
            stones: [[0; ROWS]; 2],
            ply: 0,
            last: None,
            winner: None,
        }
    }

    /// The options this round was started with.
    #[must_use]
    pub fn options(&self) -> GomokuOptions {
        self.options
    }

    /// The board side.
    #[must_use]
    pub fn size(&self) -> u8 {
        self.options.size
    }

    /// The rule.
    #[must_use]
    pub fn rule(&self) -> GomokuRule {
        self.options.rule
    }

    /// The intersection `(row, col)` of this board.
    ///
    /// # Errors
    /// [`Refusal::OutOfBounds`] when either number is negative or not below
    /// the board size.
    pub fn point(&self, row: i64, col: i64) -> Result<Point, Refusal> {
        let on_board = |n: i64| u8::try_from(n).ok().filter(|&n| n < self.size());
        match (on_board(row), on_board(col)) {
            (Some(row), Some(col)) => Ok(Point { row, col }),
            _ => Err(Refusal::OutOfBounds),
        }
    }

    /// The stone at `p`, if any (`None` too for a point off this board).
    #[must_use]
    pub fn stone(&self, p: Point) -> Option<Player> {
        self.cell_at(p.row, p.col)
    }

    /// `player`'s bit rows, one per board row (top first): bit `c` of entry
    /// `r` is set when `player` has a stone at `(r, c)`. The slice has `size`
    /// entries and no bit at or above `size` is set.
    #[must_use]
    pub fn rows(&self, player: Player) -> &[u32] {
        &self.stones[player.index()][..usize::from(self.size())]
    }

    /// The stone played last, `None` before the first move.
    #[must_use]
    pub fn last_move(&self) -> Option<Point> {
        self.last
    }

    /// The empty intersections where a stone of `player` would make a winning
    /// run now, as bit rows like [`Gomoku::rows`] (entries from `size` on are
    /// zero). Whether the game is over is not considered.
    ///
    /// Bit-parallel, a row at a time: for each direction, the cells whose
    /// next `k` cells ahead (and behind) are all the player's, for `k` up to
    /// 5; a cell wins when some `a` ahead and `4 - a` behind meet (exactly,
    /// under the standard rule). Walking each candidate cell's lines instead
    /// cost a measurable share of a move's CPU on a 25x25 board.
    #[must_use]
    pub fn winning_cells(&self, player: Player) -> [u32; ROWS] {
        let size = usize::from(self.size());
        let full = row_mask(self.size());
        let own = &self.stones[player.index()];
        let other = &self.stones[player.other().index()];
        let rule = self.rule();
        let mut padded = [0u32; ROWS + 2 * PAD];
        padded[PAD..PAD + size].copy_from_slice(&own[..size]);
        let mut out = [0; ROWS];
        for (dr, dc) in DIRECTIONS {
            let ahead = reaching(&padded, size, dr, dc);
            let behind = reaching(&padded, size, -dr, -dc);
            for a in 0..=4 {
                let b = 4 - a;
                let rows = out
                    .iter_mut()
                    .zip(ahead[a].iter().zip(&behind[b]))
                    .take(size);
                match rule {
                    GomokuRule::Freestyle => {
                        for (cell, (&fore, &back)) in rows {
                            *cell |= fore & back;
                        }
                    }
                    GomokuRule::Standard => {
                        // Exactly five: no stone of the player right past either end.
                        let past = ahead[a + 1].iter().zip(&behind[b + 1]);
                        for ((cell, (&fore, &back)), (&fore_more, &back_more)) in rows.zip(past) {
                            *cell |= fore & !fore_more & back & !back_more;
                        }
                    }
                }
            }
        }
        for (r, cell) in out.iter_mut().enumerate().take(size) {
            *cell &= !(own[r] | other[r]) & full;
        }
        out
    }

    /// Whether `player` has a stone at `(row, col)`; false off the board.
    fn has(&self, player: Player, row: i32, col: i32) -> bool {
        let size = i32::from(self.size());
        if !(0..size).contains(&row) || !(0..size).contains(&col) {
            return false;
        }
        let bits = self.stones[player.index()][row.unsigned_abs() as usize];
        bits >> col.unsigned_abs() & 1 == 1
    }

    /// How many of `player`'s stones follow `(row, col)` without a gap in
    /// direction `(dr, dc)`, not counting `(row, col)` itself.
    fn reach(&self, player: Player, (row, col): (i32, i32), (dr, dc): (i32, i32)) -> u32 {
        let mut n = 0;
        let (mut r, mut c) = (row + dr, col + dc);
        while self.has(player, r, c) {
            n += 1;
            r += dr;
            c += dc;
        }
        n
    }

    /// For each direction, the stones of `player`'s run through `(row, col)`
    /// before and after it, counting a stone of `player` at `(row, col)`
    /// whether or not it is there yet.
    fn runs(&self, player: Player, row: i32, col: i32) -> [(u32, u32); 4] {
        DIRECTIONS.map(|(dr, dc)| {
            (
                self.reach(player, (row, col), (-dr, -dc)),
                self.reach(player, (row, col), (dr, dc)),
            )
        })
    }

    /// Whether a stone of `player` at `(row, col)` is (or would be) part of a
    /// winning run.
    fn completes_win(&self, player: Player, row: i32, col: i32) -> bool {
        let rule = self.rule();
        self.runs(player, row, col)
            .iter()
            .any(|&(back, ahead)| rule.wins(back + 1 + ahead))
    }

    /// Whether either player has a winning run anywhere on the board (a
    /// full scan, for validating snapshots).
    fn has_winning_run(&self) -> bool {
        let size = i32::from(self.size());
        let rule = self.rule();
        Player::BOTH.into_iter().any(|player| {
            (0..size).any(|row| {
                (0..size).any(|col| {
                    self.has(player, row, col)
                        && DIRECTIONS.iter().any(|&(dr, dc)| {
                            // Each maximal run is measured once, from its start.
                            !self.has(player, row - dr, col - dc)
                                && rule.wins(1 + self.reach(player, (row, col), (dr, dc)))
                        })
                })
            })
        })
    }
}

/// The empty rows either side of a player's rows in the copy [`reaching`]
/// reads: as many as its longest step.
const PAD: usize = 5;

/// `[k][r]`: the cells of row `r` whose `k` next cells along `(dr, dc)`
/// all hold a stone of the player (`k` from 0, every cell, to 5), from the
/// player's rows copied once between [`PAD`] empty rows either side
/// (`padded[PAD + r]` is row `r`), so no row index needs a check and cells
/// off the board hold no stone. Rows are bits by column below bit 25 and
/// shifts are at most 5, so nothing wraps.
fn reaching(padded: &[u32; ROWS + 2 * PAD], size: usize, dr: i32, dc: i32) -> [[u32; ROWS]; 6] {
    // A step along the row: towards lower columns (`>>`) or higher (`<<`).
    let right = u32::from(dc == 1);
    let left = u32::from(dc == -1);
    let mut out = [[0; ROWS]; 6];
    out[0] = [u32::MAX; ROWS];
    for k in 1..6 {
        let step = u32::try_from(k).unwrap_or(0);
        // The first padded row read for row 0: `PAD + dr * k`, within 0..=2 * PAD.
        let first = usize::try_from(to_i32(PAD) + dr * to_i32(k)).unwrap_or(0);
        let (done, rest) = out.split_at_mut(k);
        let rows = padded[first..first + size].iter();
        for ((cell, &before), &bits) in rest[0].iter_mut().zip(&done[k - 1]).zip(rows) {
            *cell = before & (bits >> (step * right) << (step * left));
        }
    }
    out
}

/// The low `size` bits.
const fn row_mask(size: u8) -> u32 {
    (1 << size) - 1
}

/// A board coordinate (below 32) as `i32`.
fn to_i32<T: TryInto<i32>>(n: T) -> i32 {
    n.try_into().unwrap_or(i32::MAX)
}

impl Game for Gomoku {
    type Move = Point;

    fn to_move(&self) -> Player {
        Player::at_ply(self.ply)
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn winner(&self) -> Option<Player> {
        self.winner
    }

    fn is_over(&self) -> bool {
        let size = u32::from(self.size());
        self.winner.is_some() || self.ply >= size * size
    }

    fn winning_line(&self) -> Vec<Coord> {
        let (Some(winner), Some(last)) = (self.winner, self.last) else {
            return Vec::new();
        };
        let rule = self.rule();
        let (row, col) = (i32::from(last.row), i32::from(last.col));
        let mut line = Vec::new();
        for ((back, ahead), (dr, dc)) in self.runs(winner, row, col).into_iter().zip(DIRECTIONS) {
            if !rule.wins(back + 1 + ahead) {
                continue;
            }
            for k in -to_i32(back)..=to_i32(ahead) {
                let (r, c) = (row + k * dr, col + k * dc);
                if let (Ok(r), Ok(c)) = (u8::try_from(r), u8::try_from(c)) {
                    line.push(Coord::new(r, c));
                }
            }
        }
        line.sort_unstable();
        line.dedup();
        line
    }

    fn check(&self, m: Point) -> Result<(), Refusal> {
        if self.is_over() {
            return Err(Refusal::GameOver);
        }
        let size = self.size();
        if m.row >= size || m.col >= size {
            return Err(Refusal::OutOfBounds);
        }
        if self.stone(m).is_some() {
            return Err(Refusal::Occupied);
        }
        Ok(())
    }

    fn play_unchecked(&mut self, m: Point) {
        let player = self.to_move();
        // A point is below MAX_SIZE by construction, so this indexes in range.
        self.stones[player.index()][usize::from(m.row)] |= 1 << m.col;
        self.ply += 1;
        self.last = Some(m);
        if self.completes_win(player, i32::from(m.row), i32::from(m.col)) {
            self.winner = Some(player);
        }
    }

    fn legal_moves_into(&self, out: &mut Vec<Point>) {
        out.clear();
        if self.is_over() {
            return;
        }
        let full = row_mask(self.size());
        let [x, o] = &self.stones;
        for (row, (x, o)) in (0..self.size()).zip(x.iter().zip(o)) {
            let mut empty = !(x | o) & full;
            while empty != 0 {
                let col = u8::try_from(empty.trailing_zeros()).unwrap_or(u8::MAX);
                empty &= empty - 1;
                out.push(Point { row, col });
            }
        }
    }

    fn threats(&self) -> Vec<Threat<Point>> {
        let mut out = Vec::new();
        if self.is_over() {
            return out;
        }
        let me = self.to_move();
        for player in [me, me.other()] {
            let cells = self.winning_cells(player);
            for (row, mut bits) in (0..self.size()).zip(cells) {
                while bits != 0 {
                    let col = u8::try_from(bits.trailing_zeros()).unwrap_or(u8::MAX);
                    bits &= bits - 1;
                    out.push(Threat {
                        player,
                        mv: Point { row, col },
                    });
                }
            }
        }
        out
    }

    /// Layout: size, rule (0 freestyle, 1 standard), last move row and column
    /// (255, 255 before the first move), then X's rows and O's rows, each row
    /// as its low `ceil(size / 8)` bytes, little-endian. Ply and winner are
    /// derived.
    fn encode(&self) -> Vec<u8> {
        let size = usize::from(self.size());
        let width = size.div_ceil(8);
        let mut out = Vec::with_capacity(HEADER + 2 * size * width);
        out.push(self.size());
        out.push(self.rule().to_byte());
        match self.last {
            Some(p) => out.extend([p.row, p.col]),
            None => out.extend([NO_MOVE, NO_MOVE]),
        }
        for rows in &self.stones {
            for row in &rows[..size] {
                out.extend_from_slice(&row.to_le_bytes()[..width]);
            }
        }
        out
    }

    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let [size, rule, last_row, last_col, body @ ..] = bytes else {
            return Err(DecodeError("gomoku snapshot too short"));
        };
        let options = GomokuOptions::new(i64::from(*size), GomokuRule::Standard)
            .map_err(|_| DecodeError("gomoku size out of range"))?;
        let rule = GomokuRule::from_byte(*rule).ok_or(DecodeError("unknown gomoku rule"))?;
        let options = GomokuOptions { rule, ..options };
        let size = usize::from(options.size);
        let width = size.div_ceil(8);
        if body.len() != 2 * size * width {
            return Err(DecodeError("gomoku snapshot has the wrong length"));
        }
        let mut game = Gomoku::new(options);
        for (rows, half) in game.stones.iter_mut().zip(body.chunks_exact(size * width)) {
            for (row, chunk) in rows.iter_mut().zip(half.chunks_exact(width)) {
                let mut word = [0; 4];
                word[..width].copy_from_slice(chunk);
                *row = u32::from_le_bytes(word);
                if *row & !row_mask(options.size) != 0 {
                    return Err(DecodeError("gomoku stone outside the board"));
                }
            }
        }
        let [x, o] = &game.stones;
        if x.iter().zip(o).any(|(x, o)| x & o != 0) {
            return Err(DecodeError("two stones on one intersection"));
        }
        let count = |rows: &[u32; ROWS]| rows.iter().map(|r| r.count_ones()).sum::<u32>();
        let (xs, os) = (count(x), count(o));
        if xs != os && xs != os + 1 {
            return Err(DecodeError("stone counts do not match the turn"));
        }
        game.ply = xs + os;
        game.last = match (*last_row, *last_col) {
            (NO_MOVE, NO_MOVE) => None,
            (row, col) => Some(
                game.point(i64::from(row), i64::from(col))
                    .map_err(|_| DecodeError("last move outside the board"))?,
            ),
        };
        match game.last {
            None if game.ply > 0 => return Err(DecodeError("stones but no last move")),
            Some(_) if game.ply == 0 => return Err(DecodeError("a last move on an empty board")),
            Some(p) if game.stone(p) != Some(Player::at_ply(game.ply - 1)) => {
                return Err(DecodeError("the last move is not the last mover's stone"));
            }
            _ => {}
        }
        if let Some(last) = game.last {
            // The game ends at the first winning move, so the board before the
            // last move holds no winning run (this also means every winning
            // run now goes through the last stone); the last move wins if it
            // completes one.
            let mover = Player::at_ply(game.ply - 1);
            let (row, col) = (usize::from(last.row), last.col);
            game.stones[mover.index()][row] &= !(1 << col);
            let won_before = game.has_winning_run();
            game.stones[mover.index()][row] |= 1 << col;
            if won_before {
                return Err(DecodeError("the game was already won before the last move"));
            }
            if game.completes_win(mover, i32::from(last.row), i32::from(last.col)) {
                game.winner = Some(mover);
            }
        }
        Ok(game)
    }

    fn dims(&self) -> (u8, u8) {
        (self.size(), self.size())
    }

    fn cell_at(&self, row: u8, col: u8) -> Option<Player> {
        let (row, col) = (i32::from(row), i32::from(col));
        Player::BOTH.into_iter().find(|&p| self.has(p, row, col))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// `winning_cells` against the cell-by-cell walk (`completes_win`) on
    /// random boards of every size, both rules, sparse to crowded.
    #[test]
    fn winning_cells_agree_with_walking_each_cell() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(24);
        let mut found = 0;
        for round in 0..2000 {
            let size = 5 + round % 21;
            let rule = if round % 2 == 0 {
                GomokuRule::Freestyle
            } else {
                GomokuRule::Standard
            };
            let options = GomokuOptions::new(i64::try_from(size).unwrap(), rule).unwrap();
            let mut game = Gomoku::new(options);
            let density = rng.random_range(0.1..0.9);
            for r in 0..size {
                for c in 0..size {
                    if rng.random_bool(density) {
                        game.stones[usize::from(rng.random_bool(0.5))][r] |= 1 << c;
                    }
                }
            }
            for player in Player::BOTH {
                let cells = game.winning_cells(player);
                for (r, &row) in cells.iter().enumerate() {
                    for c in 0..32 {
                        let occupied = r < size
                            && c < size
                            && (game.stones[0][r] | game.stones[1][r]) >> c & 1 == 1;
                        let expected = r < size
                            && c < size
                            && !occupied
                            && game.completes_win(player, to_i32(r), to_i32(c));
                        assert_eq!(
                            row >> c & 1 == 1,
                            expected,
                            "size {size} {rule:?} {player:?} ({r}, {c})"
                        );
                        found += usize::from(expected);
                    }
                }
            }
        }
        assert!(found > 1000, "the boards made few winning cells: {found}");
    }
}
