//! The strong search's board: for every empty cell and each colour, the
//! [`Shape`] a stone there would make along each of the four lines, kept up
//! to date move by move, and from them the cell's [`Class`] (five, open
//! four, four-three, …) and its scores for ordering moves
//! ([`policy`](super::policy)), with a count of the cells of each class per
//! colour (so "can X make an open four?" is a lookup).
//!
//! A move changes the keys of the cells on each side of it along its four
//! lines (four under freestyle, five under standard: see
//! [`shapes`](super::shapes)); only those cells' shapes are read again, and
//! what follows from a cell's four shapes is one lookup ([`Combo`]), so
//! playing costs a few dozen table lookups. A line key's shapes for both
//! colours and its pattern weights are one lookup too ([`Link`]), and a
//! cell keeps what its keys and shapes gave last time, so a change reads
//! only what is new. Taking back looks up nothing: the play saved what it
//! changed, and it is put back.
//!
//! This is most of `hard`'s time a node, so it is built for speed, each
//! trick for a gain `gomoku-regret play` measured at the same moves: a
//! leaf needs only the totals a move would leave ([`Lines::peek`] adds them
//! up without playing it); each cell's neighbours are listed once
//! ([`Frame`]); the per-cell arrays are indexed masked, without bounds
//! checks ([`Grid`]); each cell's quad also carries the evaluation
//! network's vectors ([`net`]), summed per colour as the quad weights are.
//!
//! Over 700 lines, on purpose: the incremental state and the lookups that
//! keep it current change together, move by move and back.

use std::ops::{Index, IndexMut};
use std::sync::LazyLock;

use tabula_rules::gomoku::{Gomoku, GomokuRule};
use tabula_rules::{Game, Player};

use super::super::mix;
use super::net::{self, NET, Net, ROWS, Row};
use super::patterns::{self, WEIGHTS, Weights};
use super::policy;
use super::shapes::{self, Class, EMPTY, HALF, Key, SHAPES, Shape, Table, WALL, slot};

/// A cell of the padded board: `(row + HALF) * width + col + HALF`.
pub(super) type Spot = u16;

const CLASSES: usize = 7;

/// The per-colour state of one empty cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CellShapes {
    shapes: [Shape; 4],
    /// Its four shapes as the digits of a number in base 10 (the line
    /// `d`'s times `10^d`): the index of [`CellShapes::now`].
    combo: u16,
    /// What its shapes make ([`COMBO`] at `combo`), kept here so that a
    /// change reads only the new one.
    now: Combo,
}

/// What follows from a cell's four shapes for one colour, the same for
/// every cell: looked up by the shapes ([`CellShapes::combo`]) instead of
/// worked out at each change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Combo {
    class: u8,
    /// The quad's ordering scores as the mover's and as the opponent's
    /// ([`policy`](super::policy)).
    policy: [i16; 2],
    /// The quad's weights ([`Weights::quad`]).
    quad_weights: [i16; 2],
    /// The quad's vectors in the network ([`net::Net::rows`]).
    row: u16,
}

/// Four shapes, each a digit: [`CellShapes::combo`].
const COMBOS: usize = 10_000;
/// The combo table's length: a power of two above [`COMBOS`], so that a
/// masked index needs no bounds check.
const COMBO_SLOTS: usize = 1 << 14;
/// A line's digit in a combo.
const DIGIT: [i16; 4] = [1, 10, 100, 1_000];

/// Every combo of four shapes (and unused slots past them).
static COMBO: LazyLock<Box<[Combo; COMBO_SLOTS]>> = LazyLock::new(|| {
    let mut combos = Box::new([Combo::default(); COMBO_SLOTS]);
    let scores = policy::table();
    for (i, slot) in combos.iter_mut().enumerate().take(COMBOS) {
        let shapes = DIGIT.map(|d| SHAPES[i / d.unsigned_abs() as usize % 10]);
        let class = class_of(shapes);
        let quad = patterns::quad(shapes.map(|s| s as u8));
        *slot = Combo {
            class: class as u8,
            policy: scores.get(quad).copied().unwrap_or_default(),
            quad_weights: WEIGHTS.quad[quad & (patterns::QUAD_SLOTS - 1)],
            row: NET.row_of[quad & (patterns::QUAD_SLOTS - 1)],
        };
    }
    combos
});

/// What a line key gives its cell, in one lookup: both colours' shapes
/// along the line and the key's pattern weights ([`Weights::key`]).
#[derive(Clone, Copy, Debug, Default)]
struct Link {
    weight: [i16; 2],
    shapes: [Shape; 2],
}

/// Every key's [`Link`], by the index of the rule's shape table.
fn links(table: &Table) -> Box<[Link]> {
    (0..table.len())
        .map(|i| {
            let (x, o) = table.pair_at(i);
            // The table reads four or five cells each side; the pattern,
            // the inner four.
            let pattern = if table.half() == 4 {
                i
            } else {
                i >> 2 & 0xffff
            };
            Link {
                weight: WEIGHTS.key[pattern],
                shapes: [x, o],
            }
        })
        .collect()
}

static FREESTYLE_LINKS: LazyLock<Box<[Link]>> =
    LazyLock::new(|| links(shapes::table(GomokuRule::Freestyle)));
static STANDARD_LINKS: LazyLock<Box<[Link]>> =
    LazyLock::new(|| links(shapes::table(GomokuRule::Standard)));

/// The combo of four shapes.
fn combo_of(shapes: [Shape; 4]) -> u16 {
    let n: i32 = (0..4).map(|d| shapes[d] as i32 * i32::from(DIGIT[d])).sum();
    u16::try_from(n).unwrap_or(0)
}

/// A cell's class from its four shapes.
pub(super) fn class_of(shapes: [Shape; 4]) -> Class {
    let (mut fives, mut open_fours, mut fours, mut threes) = (0, 0, 0, 0);
    for shape in shapes {
        match shape {
            Shape::F5 => fives += 1,
            Shape::F4 => open_fours += 1,
            Shape::B4 => fours += 1,
            Shape::F3 => threes += 1,
            _ => {}
        }
    }
    if fives > 0 {
        Class::Five
    } else if open_fours > 0 || fours > 1 {
        Class::OpenFour
    } else if fours > 0 && threes > 0 {
        Class::FourThree
    } else if fours > 0 {
        Class::Four
    } else if threes > 1 {
        Class::DoubleThree
    } else if threes > 0 {
        Class::Three
    } else {
        Class::None
    }
}

/// The threat classes the evaluation counts, both sides.
const COUNTED: usize = patterns::MINE_COUNTED.len() + patterns::THEIRS_COUNTED.len();

/// Padded cells a board may have (35 × 35 at size 25), to a power of two.
const GRID: usize = 2048;

/// A value per padded cell. An index is masked to the array's size (which
/// no cell reaches), so the compiler needs no bounds check.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Grid<T>(Box<[T; GRID]>);

impl<T: Copy> Grid<T> {
    fn new(fill: T) -> Grid<T> {
        Grid(Box::new([fill; GRID]))
    }

    /// `values` for the first cells, `fill` for the rest.
    fn from(values: &[T], fill: T) -> Grid<T> {
        let mut grid = Grid::new(fill);
        grid.0[..values.len()].copy_from_slice(values);
        grid
    }
}

impl<T> Index<usize> for Grid<T> {
    type Output = T;

    #[inline]
    fn index(&self, s: usize) -> &T {
        debug_assert!(s < GRID);
        &self.0[s & (GRID - 1)]
    }
}

impl<T> IndexMut<usize> for Grid<T> {
    #[inline]
    fn index_mut(&mut self, s: usize) -> &mut T {
        debug_assert!(s < GRID);
        &mut self.0[s & (GRID - 1)]
    }
}

/// Fixed facts about a board side.
#[derive(Debug)]
struct Frame {
    size: usize,
    width: usize,
    /// The padded cells that are on the board, row-major.
    on_board: Vec<Spot>,
    /// Per padded cell, a random number per colour.
    zobrist: Grid<[u64; 2]>,
    /// Per padded cell on the board, its neighbours along its lines
    /// (`rays[ray_start[s]..ray_start[s + 1]]`), in the order of
    /// [`around`].
    rays: Vec<Ray>,
    ray_start: Vec<u32>,
}

/// A cell `n` `k` steps from a cell along line `d`, which sees that cell
/// at `shift` in its key ([`around`]).
#[derive(Clone, Copy, Debug)]
struct Ray {
    n: u16,
    d: u8,
    k: u8,
    shift: u8,
}

/// A gomoku position with its shapes (see the module docs).
pub(super) struct Lines {
    table: &'static Table,
    weights: &'static Weights,
    /// Per index of `table`, its key's [`Link`].
    links: &'static [Link],
    combos: &'static [Combo; COMBO_SLOTS],
    /// The evaluation's network (its vectors per [`Combo::row`]).
    net: &'static Net,
    totals: Totals,
    frame: Frame,
    /// 0 empty, 1 X, 2 O, 3 off the board.
    cells: Grid<u8>,
    keys: Grid<[Key; 4]>,
    /// Per padded cell and colour (meaningful while the cell is empty).
    per: Grid<[CellShapes; 2]>,
    /// Per padded cell, the stones within two steps along its lines.
    near: Grid<u8>,
    /// A bit per padded cell: empty and near a stone (the candidates).
    open: [u64; GRID / 64],
    to_move: usize,
    stones: usize,
    key: u64,
    winner: Option<usize>,
    /// Per stone played, the totals before it and where its neighbours'
    /// states start in `saved`: taking it back puts them back instead of
    /// reading the shapes again.
    history: Vec<(Totals, usize)>,
    /// The states of the empty neighbours of the stones played, before
    /// each play, in the order [`Lines::relink`] visits them.
    saved: Vec<([CellShapes; 2], [i16; 2])>,
    /// Per padded cell and line, the pattern weights of its key
    /// ([`Link::weight`]; meaningful while the cell is empty).
    weights_of: Grid<[[i16; 2]; 4]>,
}

/// The sums over the empty cells that the evaluation reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Totals {
    /// Per side to move, the pattern weights summed over the empty cells'
    /// lines ([`patterns`]).
    pattern_sum: [i32; 2],
    /// Per colour, the quad weights summed over the empty cells, that
    /// colour to move and its opponent to move.
    quad_sum: [[i32; 2]; 2],
    /// Per colour, the empty cells of each class.
    counts: [[u16; CLASSES]; 2],
    /// Per colour, the network's vectors of its quads summed over the
    /// empty cells, that colour to move then its opponent to move.
    vectors: [Row; 2],
}

impl Lines {
    /// The search's copy of `game`.
    pub(super) fn new(game: &Gomoku) -> Lines {
        let size = usize::from(game.size());
        let width = size + 2 * HALF;
        let cells = width * width;
        debug_assert!(cells <= GRID);
        let w = width.cast_signed();
        let mut on_board = Vec::with_capacity(size * size);
        let mut grid = vec![WALL as u8; cells];
        for r in 0..size {
            for c in 0..size {
                let at = (r + HALF) * width + c + HALF;
                grid[at] = EMPTY as u8;
                on_board.push(Spot::try_from(at).unwrap_or(0));
            }
        }
        let mut zobrist = Grid::new([0; 2]);
        for i in 0..cells {
            let i64 = i as u64;
            zobrist[i] = [mix(i64 * 2 + 0x90b0), mix(i64 * 2 + 0x90b1)];
        }
        let steps = [1, w, w + 1, w - 1];
        let table = shapes::table(game.rule());
        let reach = table.half().cast_signed();
        let mut keys = Grid::new([0; 4]);
        for &s in &on_board {
            let s = usize::from(s);
            for (d, &step) in steps.iter().enumerate() {
                for k in (-reach..=reach).filter(|&k| k != 0) {
                    let n = s.wrapping_add_signed(k * step);
                    keys[s][d] |= u32::from(grid[n]) << (2 * slot(k));
                }
            }
        }
        let mut rays = Vec::new();
        let mut ray_start = vec![0; cells + 1];
        for s in 0..cells {
            if grid[s] != WALL as u8 {
                around(&grid, &steps, table.half(), s, |n, d, k, shift| {
                    rays.push(Ray {
                        n: u16::try_from(n).unwrap_or(0),
                        d: u8::try_from(d).unwrap_or(0),
                        k: u8::try_from(k).unwrap_or(0),
                        shift: u8::try_from(shift).unwrap_or(0),
                    });
                });
            }
            ray_start[s + 1] = u32::try_from(rays.len()).unwrap_or(u32::MAX);
        }
        let mut lines = Lines {
            table,
            weights: &WEIGHTS,
            links: match game.rule() {
                GomokuRule::Freestyle => &FREESTYLE_LINKS,
                GomokuRule::Standard => &STANDARD_LINKS,
            },
            combos: &COMBO,
            net: &NET,
            totals: Totals::default(),
            frame: Frame {
                size,
                width,
                on_board,
                zobrist,
                rays,
                ray_start,
            },
            cells: Grid::from(&grid, WALL as u8),
            keys,
            per: Grid::new([CellShapes::default(); 2]),
            near: Grid::new(0),
            open: [0; GRID / 64],
            to_move: game.to_move().index(),
            stones: 0,
            key: 0,
            winner: None,
            history: Vec::new(),
            saved: Vec::new(),
            weights_of: Grid::new([[0; 2]; 4]),
        };
        for i in 0..lines.frame.on_board.len() {
            let s = usize::from(lines.frame.on_board[i]);
            for p in 0..2 {
                let c = &mut lines.per[s][p];
                for d in 0..4 {
                    c.shapes[d] = table.shape(lines.keys[s][d], p);
                }
                c.combo = combo_of(c.shapes);
                lines.settle(s, p);
            }
            for d in 0..4 {
                let weight = lines.link(lines.keys[s][d]).weight;
                lines.weights_of[s][d] = weight;
                lines.totals.add_pattern(weight, 1);
            }
        }
        for player in Player::BOTH {
            for (r, &bits) in game.rows(player).iter().enumerate() {
                for c in 0..size {
                    if bits >> c & 1 == 1 {
                        lines.put(lines.spot(r, c), player.index());
                    }
                }
            }
        }
        lines.winner = game.winner().map(Player::index);
        lines.to_move = game.to_move().index();
        lines
    }

    /// The padded cell of (`row`, `col`).
    pub(super) fn spot(&self, row: usize, col: usize) -> usize {
        (row + HALF) * self.frame.width + col + HALF
    }

    /// The (row, col) of a padded cell.
    pub(super) fn row_col(&self, spot: Spot) -> (usize, usize) {
        let s = usize::from(spot);
        (s / self.frame.width - HALF, s % self.frame.width - HALF)
    }

    pub(super) fn to_move(&self) -> usize {
        self.to_move
    }

    pub(super) fn key(&self) -> u64 {
        self.key
    }

    /// The key after the side to move plays `spot`.
    pub(super) fn key_after(&self, spot: Spot) -> u64 {
        self.key ^ self.frame.zobrist[usize::from(spot)][self.to_move]
    }

    pub(super) fn winner(&self) -> Option<usize> {
        self.winner
    }

    pub(super) fn empties(&self) -> usize {
        self.frame.size * self.frame.size - self.stones
    }

    /// Whether any empty cell has class `class` or better for `colour`.
    pub(super) fn has(&self, colour: usize, class: Class) -> bool {
        self.totals.has(colour, class)
    }

    /// How many empty cells have exactly class `class` for `colour`.
    #[cfg(any(test, feature = "tuning"))]
    pub(super) fn count(&self, colour: usize, class: Class) -> i32 {
        self.totals.count(colour, class)
    }

    /// The class of `spot` (empty) for `colour`.
    pub(super) fn class(&self, spot: Spot, colour: usize) -> Class {
        CLASS_OF[usize::from(self.per[usize::from(spot)][colour].now.class)]
    }

    /// The ordering scores of `spot` (empty) for `colour`
    /// ([`policy`](super::policy)): as the mover's move, and as the
    /// opponent's cell.
    pub(super) fn policy(&self, spot: Spot, colour: usize) -> [i32; 2] {
        self.per[usize::from(spot)][colour]
            .now
            .policy
            .map(i32::from)
    }

    /// The shapes of `spot` (empty) for `colour`, one a line.
    #[cfg(any(test, feature = "tuning"))]
    pub(super) fn shapes(&self, spot: Spot, colour: usize) -> [Shape; 4] {
        self.per[usize::from(spot)][colour].shapes
    }

    /// The best shape of `spot` (empty) for `colour` over its lines.
    pub(super) fn best_shape(&self, spot: Spot, colour: usize) -> Shape {
        let s = &self.per[usize::from(spot)][colour].shapes;
        s[0].max(s[1]).max(s[2]).max(s[3])
    }

    /// The empty cells of class `class` or better for `colour`.
    pub(super) fn cells_of(&self, colour: usize, class: Class, out: &mut Vec<Spot>) {
        out.clear();
        if class >= Class::Four && self.stones > 0 {
            // A four is three stones and the cell in five in a row: one
            // of those stones is within two steps, so the cell is a
            // candidate (the same order: by cell).
            self.candidates(out);
            out.retain(|&s| self.class(s, colour) >= class);
            return;
        }
        for &s in &self.frame.on_board {
            if self.cells[usize::from(s)] == 0 && self.class(s, colour) >= class {
                out.push(s);
            }
        }
    }

    /// The empty cells near a stone (within two steps along a line); the
    /// centre on an empty board.
    pub(super) fn candidates(&self, out: &mut Vec<Spot>) {
        out.clear();
        if self.stones == 0 {
            let mid = self.frame.size / 2;
            out.push(Spot::try_from(self.spot(mid, mid)).unwrap_or(0));
            return;
        }
        for (w, &bits) in self.open.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                out.push(Spot::try_from(i).unwrap_or(0));
                bits &= bits - 1;
            }
        }
        if out.is_empty() {
            out.extend(
                self.frame
                    .on_board
                    .iter()
                    .filter(|&&s| self.cells[usize::from(s)] == 0),
            );
        }
    }

    /// Plays `spot` for the side to move.
    pub(super) fn play(&mut self, spot: Spot) {
        let p = self.to_move;
        self.put(usize::from(spot), p);
        self.to_move = 1 - p;
    }

    /// Takes back `spot`, the last move.
    pub(super) fn undo(&mut self, spot: Spot) {
        let p = 1 - self.to_move;
        self.take(usize::from(spot), p);
        self.to_move = p;
    }

    fn put(&mut self, s: usize, p: usize) {
        if self.per[s][p].shapes.contains(&Shape::F5) {
            self.winner = Some(p);
        }
        self.history.push((self.totals, self.saved.len()));
        self.totals = self.filled(s);
        self.cells[s] = u8::try_from(p + 1).unwrap_or(1);
        self.mark(s);
        self.relink(s, u32::try_from(p + 1).unwrap_or(1), self.saved.len());
        self.key ^= self.frame.zobrist[s][p];
        self.stones += 1;
    }

    /// Takes back the stone on `s` of colour `p`, the last one played.
    fn take(&mut self, s: usize, p: usize) {
        let Some((totals, start)) = self.history.pop() else {
            return;
        };
        self.winner = None;
        self.cells[s] = 0;
        self.mark(s);
        self.relink(s, 0, start);
        self.saved.truncate(start);
        self.totals = totals;
        self.key ^= self.frame.zobrist[s][p];
        self.stones -= 1;
    }

    /// Writes the content `v` of `s` into its neighbours' keys. A stone
    /// (`v` 1 or 2): the shapes of those that are empty are read again,
    /// their states saved first. Empty (`v` 0, a stone taken back): their
    /// states are put back as they were before it, saved from `at` on (by
    /// the play, in this same order).
    fn relink(&mut self, s: usize, v: u32, mut at: usize) {
        let Lines {
            table,
            links,
            combos,
            net,
            totals,
            cells,
            keys,
            per,
            near,
            open,
            saved,
            weights_of,
            ..
        } = self;
        self.frame.around(s, |n, d, k, shift| {
            let old = keys[n][d];
            let key = rekey(old, shift, v);
            keys[n][d] = key;
            if k <= 2 {
                if v == 0 {
                    near[n] -= 1;
                } else {
                    near[n] += 1;
                }
                mark(open, cells, near, n);
            }
            if cells[n] != 0 {
                return;
            }
            if v == 0 {
                if let Some(&(state, weight)) = saved.get(at) {
                    per[n] = state;
                    weights_of[n][d] = weight;
                }
                at += 1;
                return;
            }
            saved.push((per[n], weights_of[n][d]));
            let now = links[table.index(key)];
            totals.relinked(weights_of[n][d], now.weight);
            weights_of[n][d] = now.weight;
            for (p, shape) in [(0, now.shapes[0]), (1, now.shapes[1])] {
                let cell = &mut per[n][p];
                if let Some(combo) = cell.reshaped(d, shape) {
                    let new = combos[usize::from(combo) & (COMBO_SLOTS - 1)];
                    totals.recount(&net.rows, p, cell.now, new);
                    cell.combo = combo;
                    cell.shapes[d] = shape;
                    cell.now = new;
                }
            }
        });
    }

    /// Sets `s`'s bit in [`Lines::open`]: whether it is empty and near.
    fn mark(&mut self, s: usize) {
        mark(&mut self.open, &self.cells, &self.near, s);
    }

    /// The totals with the empty cell `s` taken out (both colours' classes
    /// and quads, and its lines' pattern weights), as a stone on it does.
    fn filled(&self, s: usize) -> Totals {
        let mut totals = self.totals;
        for c in 0..2 {
            totals.take_out(&self.net.rows, c, self.per[s][c].now);
        }
        for &weight in &self.weights_of[s] {
            totals.add_pattern(weight, -1);
        }
        totals
    }

    /// The [`Link`] of a line key.
    #[inline]
    fn link(&self, key: Key) -> Link {
        self.links[self.table.index(key)]
    }

    /// The learned evaluation ([`patterns`]) for the side to move, in
    /// thousandths of a logit.
    pub(super) fn pattern_eval(&self) -> i32 {
        self.eval_of(&self.totals, self.to_move)
    }

    /// The learned evaluation for `me` to move of a position with these
    /// totals (this one's, or [`Lines::peek`]'s).
    pub(super) fn eval_of(&self, totals: &Totals, me: usize) -> i32 {
        let (linear, counts) = self.linear_of(totals, me);
        let opp = 1 - me;
        let mut sum = [0; net::D];
        let (mine, theirs) = (
            &totals.vectors[me][..net::D],
            &totals.vectors[opp][net::D..],
        );
        for ((s, &a), &b) in sum.iter_mut().zip(mine).zip(theirs) {
            *s = a + b;
        }
        linear + self.net.eval(&sum, &counts)
    }

    /// The learned evaluation without the network ([`patterns`] alone),
    /// for the side to move.
    #[cfg(any(test, feature = "tuning"))]
    pub(super) fn linear_eval(&self) -> i32 {
        self.linear_of(&self.totals, self.to_move).0
    }

    /// The linear part of [`Lines::eval_of`], with the counts of the
    /// threat classes it read (the mover's, then the opponent's).
    fn linear_of(&self, totals: &Totals, me: usize) -> (i32, [i32; COUNTED]) {
        let opp = 1 - me;
        let w = &self.weights.scalars;
        let mut score =
            w[0] + totals.pattern_sum[me] + totals.quad_sum[me][0] + totals.quad_sum[opp][1];
        let mut mask = 0;
        let mut bit = 0;
        let mut counts = [0; COUNTED];
        for (colour, classes) in [
            (me, &patterns::MINE_COUNTED[..]),
            (opp, &patterns::THEIRS_COUNTED[..]),
        ] {
            for &c in classes {
                let n = totals.count(colour, c);
                score += w[1 + bit] * n;
                mask |= usize::from(n > 0) << bit;
                counts[bit] = n;
                bit += 1;
            }
        }
        (score + self.weights.masks[mask], counts)
    }

    /// The totals after the side to move plays `spot`, worked out without
    /// playing it: what [`Lines::play`] would add up, read only (a leaf's
    /// evaluation needs nothing else, and then there is nothing to take
    /// back). With the key after it.
    pub(super) fn peek(&self, spot: Spot) -> (Totals, u64) {
        let s = usize::from(spot);
        let p = self.to_move;
        let v = u32::try_from(p + 1).unwrap_or(1);
        let mut after = self.filled(s);
        self.frame.around(s, |n, d, _, shift| {
            if self.cells[n] != 0 {
                return;
            }
            let old = self.keys[n][d];
            let key = rekey(old, shift, v);
            let now = self.link(key);
            after.relinked(self.weights_of[n][d], now.weight);
            for (c, shape) in [(0, now.shapes[0]), (1, now.shapes[1])] {
                let cell = &self.per[n][c];
                if let Some(combo) = cell.reshaped(d, shape) {
                    let new = self.combos[usize::from(combo) & (COMBO_SLOTS - 1)];
                    after.recount(&self.net.rows, c, cell.now, new);
                }
            }
        });
        (after, self.key_after(spot))
    }

    /// The pattern key ([`patterns`]) of `spot` (empty) along line `d`.
    #[cfg(any(test, feature = "tuning"))]
    pub(super) fn pattern_key(&self, spot: Spot, d: usize) -> u16 {
        u16::try_from(pattern(self.keys[usize::from(spot)][d])).unwrap_or(0)
    }

    /// The quad of `spot`'s (empty) shapes for `colour`.
    #[cfg(any(test, feature = "tuning"))]
    pub(super) fn quad(&self, spot: Spot, colour: usize) -> usize {
        patterns::quad(self.shapes(spot, colour).map(|s| s as u8))
    }

    /// Sets an empty cell's [`CellShapes::now`] for `p` from its combo,
    /// and counts it.
    fn settle(&mut self, s: usize, p: usize) {
        let c = &mut self.per[s][p];
        c.now = self.combos[usize::from(c.combo)];
        self.totals.put_in(&self.net.rows, p, c.now);
    }
}

impl Totals {
    /// A cell of combo `c` for `p` filled.
    #[inline]
    fn take_out(&mut self, rows: &[Row; ROWS], p: usize, c: Combo) {
        self.counts[p][usize::from(c.class)] -= 1;
        self.quad_sum[p][0] -= i32::from(c.quad_weights[0]);
        self.quad_sum[p][1] -= i32::from(c.quad_weights[1]);
        self.add_vectors(p, &rows[usize::from(c.row) & (ROWS - 1)], -1);
    }

    /// An empty cell of combo `c` for `p` counted ([`Totals::take_out`]
    /// undone).
    fn put_in(&mut self, rows: &[Row; ROWS], p: usize, c: Combo) {
        self.counts[p][usize::from(c.class)] += 1;
        self.quad_sum[p][0] += i32::from(c.quad_weights[0]);
        self.quad_sum[p][1] += i32::from(c.quad_weights[1]);
        self.add_vectors(p, &rows[usize::from(c.row) & (ROWS - 1)], 1);
    }

    /// Adds (`sign` 1) or takes out (-1) a quad's vectors for colour `p`
    /// (row 0, zeros, for a quad without: no branch to mispredict).
    #[inline]
    fn add_vectors(&mut self, p: usize, row: &Row, sign: i32) {
        for (s, &x) in self.vectors[p].iter_mut().zip(row) {
            *s += sign * x;
        }
    }

    /// A cell's combo for `p` changed from `old` to `new`.
    #[inline]
    fn recount(&mut self, rows: &[Row; ROWS], p: usize, old: Combo, new: Combo) {
        self.counts[p][usize::from(old.class)] -= 1;
        self.counts[p][usize::from(new.class)] += 1;
        for side in 0..2 {
            self.quad_sum[p][side] +=
                i32::from(new.quad_weights[side]) - i32::from(old.quad_weights[side]);
        }
        // Row 0 is zeros ([`Totals::add_vectors`]).
        let was = &rows[usize::from(old.row) & (ROWS - 1)];
        let now = &rows[usize::from(new.row) & (ROWS - 1)];
        for ((s, &a), &b) in self.vectors[p].iter_mut().zip(now).zip(was) {
            *s += a - b;
        }
    }

    /// An empty cell's line key changed, from one of pattern weights `old`
    /// to one of `new`.
    #[inline]
    fn relinked(&mut self, old: [i16; 2], new: [i16; 2]) {
        for p in 0..2 {
            self.pattern_sum[p] += i32::from(new[p]) - i32::from(old[p]);
        }
    }

    /// Adds (`sign` 1) or takes out (-1) the pattern weights of one of an
    /// empty cell's line keys.
    #[inline]
    fn add_pattern(&mut self, weight: [i16; 2], sign: i32) {
        self.pattern_sum[0] += sign * i32::from(weight[0]);
        self.pattern_sum[1] += sign * i32::from(weight[1]);
    }

    /// Whether any empty cell has class `class` or better for `colour`.
    pub(super) fn has(&self, colour: usize, class: Class) -> bool {
        self.counts[colour][class as usize..].iter().any(|&n| n > 0)
    }

    /// How many empty cells have exactly class `class` for `colour`.
    pub(super) fn count(&self, colour: usize, class: Class) -> i32 {
        i32::from(self.counts[colour][class as usize])
    }
}

impl CellShapes {
    /// Its combo with `shape` along line `d`, when that is a change.
    #[inline]
    fn reshaped(&self, d: usize, shape: Shape) -> Option<u16> {
        let was = self.shapes[d & 3];
        if shape == was {
            return None;
        }
        // The digit goes from `was` to `shape`; the sum stays in 0..10,000.
        let step = (shape as i16 - was as i16) * DIGIT[d & 3];
        Some(self.combo.wrapping_add_signed(step))
    }
}

impl Frame {
    /// Calls `f(n, d, k, shift)` for each neighbour of `s` (on the board)
    /// as [`around`] does, from the list made once.
    #[inline]
    fn around(&self, s: usize, mut f: impl FnMut(usize, usize, usize, u32)) {
        let (from, to) = (self.ray_start[s] as usize, self.ray_start[s + 1] as usize);
        for r in &self.rays[from..to] {
            f(
                usize::from(r.n),
                usize::from(r.d & 3),
                usize::from(r.k),
                u32::from(r.shift),
            );
        }
    }
}

/// Calls `f(n, d, k, shift)` for each cell `n` `k` steps (1 to `reach`)
/// from `s` along line `d`, up to the edge, with the place of `s` in its
/// key (`shift`: its two bits).
#[inline]
fn around(
    cells: &[u8],
    steps: &[isize; 4],
    reach: usize,
    s: usize,
    mut f: impl FnMut(usize, usize, isize, u32),
) {
    let reach = reach.cast_signed();
    for (d, &step) in steps.iter().enumerate() {
        for sign in [-1isize, 1] {
            for k in 1..=reach {
                let n = s.wrapping_add_signed(sign * k * step);
                if cells[n] == WALL as u8 {
                    break;
                }
                // `n` sees `s` at offset `-sign * k`.
                f(n, d, k, 2 * slot(-sign * k));
            }
        }
    }
}

/// `key` with the cell at `shift` (its two bits) set to `v`.
#[inline]
fn rekey(key: Key, shift: u32, v: u32) -> Key {
    (key & !(3 << shift)) | v << shift
}

/// Sets `s`'s bit in `open`: whether it is empty and near a stone.
#[inline]
fn mark(open: &mut [u64; GRID / 64], cells: &Grid<u8>, near: &Grid<u8>, s: usize) {
    let bit = 1u64 << (s % 64);
    let word = &mut open[(s & (GRID - 1)) / 64];
    if cells[s] == 0 && near[s] > 0 {
        *word |= bit;
    } else {
        *word &= !bit;
    }
}

/// The pattern key of a line key: the four cells each side.
#[inline]
#[cfg(any(test, feature = "tuning"))]
fn pattern(key: Key) -> usize {
    ((key >> 2) & 0xffff) as usize
}

/// Classes by number.
const CLASS_OF: [Class; CLASSES] = [
    Class::None,
    Class::Three,
    Class::DoubleThree,
    Class::Four,
    Class::FourThree,
    Class::OpenFour,
    Class::Five,
];

#[cfg(test)]
mod tests;
