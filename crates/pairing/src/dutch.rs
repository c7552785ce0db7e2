//! The FIDE Dutch system (Handbook C.04.3, the rules in force from 2025):
//! the next round of a Swiss tournament given as TRF16.
//!
//! Pairing is a sequence of maximum-weight matchings over the players still
//! to pair, as bbpPairings (the reference the contract names) computes it.
//! Each criterion is a field of the edge weight, the absolute ones and the
//! completion of the round in the highest bits, then the quality criteria in
//! their order (C.04.3 C: pairs in the bracket and the scores paired,
//! the bye assignee's unplayed games, the colour preferences, the repeated
//! floaters and their scores), so that the heaviest matching is the best
//! pairing. Brackets are paired from the top score down: a first matching
//! decides which moved-down players the bracket pairs and with whom (S1's
//! order), a second which players are exchanged between S1 and S2 (fewest,
//! then the smallest difference of their numbers), and each pair is then fixed
//! in the order the rules give, the matching re-solved after each choice so
//! that what is fixed never makes the rest of the round impossible.
//!
//! Colours are allocated by C.04.3 E (the preferences, then the last round
//! the two had different colours, then the higher-ranked player's preference
//! or the starting rank's parity). The pairs come out in the order of
//! publication: by the higher player's score, the lower's, the higher's rank,
//! the bye last.

// The weights' fields and the brackets' vertices read best in the rules'
// own short names: h(igher) and l(ower) players, b(racket) and g(roups) bits.
#![allow(
    clippy::many_single_char_names,
    reason = "the short names of the rules' text"
)]

use std::collections::HashMap;

use integer_blossom::max_weight_matching;

use crate::trf::{Colour, Outcome, Tournament};
use crate::weight::{Big, Wide};

/// A round's pairing: its boards (white first, by starting number) in the
/// order of publication, and who has the pairing-allocated bye.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub boards: Vec<(u32, u32)>,
    pub bye: Option<u32>,
}

/// Why a round cannot be paired.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DutchError {
    /// No pairing satisfies the absolute criteria (no rematch, at most one
    /// bye each, the colour limits).
    #[error("no pairing satisfies the absolute criteria")]
    NoPairing,
    /// The weights would need more than 8,192 bits (thousands of score
    /// groups).
    #[error("the tournament has too many score groups to pair")]
    TooLarge,
}

/// Pairs the next round of `t`: the round after the last one any player was
/// paired in. Players whose line already holds that round (`0000 - Z`, a
/// half-point bye asked for) are not paired.
///
/// # Errors
/// [`DutchError::NoPairing`] when the absolute criteria leave no pairing.
pub fn pair(t: &Tournament) -> Result<Pairing, DutchError> {
    let field = Field::new(t);
    if field.sorted.is_empty() {
        return Ok(Pairing {
            boards: Vec::new(),
            bye: None,
        });
    }
    let bits = field.weight_bits() + 2;
    let mates = if bits <= <i128 as Wide>::ROOM {
        run::<i128>(&field)
    } else if bits <= Big::<bnum::types::I256>::ROOM {
        run::<Big<bnum::types::I256>>(&field)
    } else if bits <= Big::<bnum::types::I512>::ROOM {
        run::<Big<bnum::types::I512>>(&field)
    } else if bits <= Big::<bnum::types::I1024>::ROOM {
        run::<Big<bnum::types::I1024>>(&field)
    } else if bits <= Big::<bnum::types::I2048>::ROOM {
        run::<Big<bnum::types::I2048>>(&field)
    } else if bits <= Big::<bnum::types::I4096>::ROOM {
        run::<Big<bnum::types::I4096>>(&field)
    } else if bits <= Big::<bnum::types::I8192>::ROOM {
        run::<Big<bnum::types::I8192>>(&field)
    } else {
        return Err(DutchError::TooLarge);
    }?;
    Ok(field.publish(&mates))
}

/// What a player's round was, as pairing reads it.
#[derive(Clone, Copy, Debug)]
struct Game {
    /// The opponent's index; `None` for a bye or a round not paired.
    opponent: Option<usize>,
    colour: Option<Colour>,
    /// Played over the board (not a forfeit, not a bye).
    played: bool,
    /// Paired in that round (a game, a forfeit, the pairing-allocated bye).
    paired: bool,
    halves: u32,
}

/// A player with what pairing derives from its rounds.
#[derive(Clone, Debug)]
struct Player {
    /// The starting number.
    number: u32,
    /// The rank among the players in the tournament (from 0): ties of score
    /// go to the lower rank, and its parity allocates colours.
    rank: usize,
    /// Points in halves.
    score: u32,
    /// One per round played, padded to the rounds played.
    games: Vec<Game>,
    /// Games played over the board.
    played: u32,
    /// |whites − blacks|.
    imbalance: u32,
    /// The colour it should have next, if any.
    preference: Option<Colour>,
    /// The colour of its last two games, when they were the same.
    repeated: Option<Colour>,
    /// A preference from an imbalance of one (not absolute).
    strong: bool,
    /// May have the bye: no point yet without playing (C.04.3 A.5).
    bye_eligible: bool,
}

impl Player {
    /// May have this round's bye: eligible, and no more points than the
    /// bye assignee the round's first matching found.
    fn bye_candidate(&self, bye: &Bye) -> bool {
        self.bye_eligible && self.score <= bye.score
    }

    fn absolute_imbalance(&self) -> bool {
        self.imbalance > 1
    }

    /// An absolute colour preference: an imbalance over one, or the same
    /// colour twice running.
    fn absolute(&self) -> bool {
        self.absolute_imbalance() || self.repeated.is_some()
    }

    /// The score before the last `back` of the `played` rounds (a withdrawn
    /// player's line may hold the round to come).
    fn score_before(&self, played: usize, back: usize) -> u32 {
        self.score
            - self.games[played - back..played]
                .iter()
                .map(|g| g.halves)
                .sum::<u32>()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Float {
    Down,
    Up,
    None,
}

fn other(c: Option<Colour>) -> Option<Colour> {
    c.map(|c| match c {
        Colour::White => Colour::Black,
        Colour::Black => Colour::White,
    })
}

/// Two preferences that one pair can both meet.
fn preferences_agree(a: Option<Colour>, b: Option<Colour>) -> bool {
    a != b || a.is_none()
}

/// Bits needed to write `n` (0 for 0).
fn bits_for(n: usize) -> u32 {
    usize::BITS - n.leading_zeros()
}

/// The tournament as the matchings see it.
struct Field {
    /// Every player by index (starting number − 1).
    players: Vec<Player>,
    /// The players to pair, by score then rank: the matchings' vertices.
    sorted: Vec<usize>,
    /// Pairs that have played each other over the board.
    met: Vec<Vec<bool>>,
    rounds_played: usize,
    /// The last round: two players with the same absolute preference may
    /// meet when either has more than half the points possible.
    last_round: bool,
    /// The score groups' bit offsets in a scores field, the lowest group at 0.
    group_shift: HashMap<u32, u32>,
    /// Bits of a count within a bracket (the largest score group's size).
    group_bits: u32,
    /// Bits of a field with one sub-field per score group.
    groups_bits: u32,
    /// White in round 1 for the top-ranked player (`XXC white1`).
    first_colour: Colour,
}

/// Who has the bye, as the round's first matching found it.
struct Bye {
    /// The bye assignee's score (0 with an even count: then no one).
    score: u32,
    /// The bye assignee is the one player the current bracket sends down:
    /// then fewer unplayed games count (C.04.3 C.9).
    single: bool,
    /// Among players of the bye's score, the rank of each count of games
    /// played (most played first).
    unplayed_rank: HashMap<u32, u64>,
}

impl Field {
    fn new(t: &Tournament) -> Field {
        let index = |n: u32| n as usize - 1;
        let rounds_paired = t
            .players
            .iter()
            .map(|p| {
                p.rounds
                    .iter()
                    .rposition(|e| {
                        e.opponent.is_some()
                            || matches!(e.outcome, Outcome::Bye | Outcome::ForfeitWin)
                    })
                    .map_or(0, |r| r + 1)
                    .max(p.rounds.len().saturating_sub(1))
            })
            .max()
            .unwrap_or(0);
        // Every player's line already holds the round after: that round
        // counts as played, and the next one is paired.
        let rounds_played =
            if !t.players.is_empty() && t.players.iter().all(|p| p.rounds.len() > rounds_paired) {
                rounds_paired + 1
            } else {
                rounds_paired
            };
        let mut players = Vec::with_capacity(t.players.len());
        let mut rank = 0;
        let mut in_tournament = Vec::with_capacity(t.players.len());
        for p in &t.players {
            let mut games: Vec<Game> = p
                .rounds
                .iter()
                .map(|e| Game {
                    opponent: e.opponent.map(index),
                    colour: e.colour.filter(|_| e.outcome.played()),
                    played: e.outcome.played() && e.opponent.is_some(),
                    paired: e.opponent.is_some()
                        || matches!(e.outcome, Outcome::Bye | Outcome::ForfeitWin),
                    halves: e.outcome.halves(),
                })
                .collect();
            let present = games.len() <= rounds_played || games.iter().any(|g| g.paired);
            in_tournament.push(present && games.len() <= rounds_played);
            if games.len() < rounds_played {
                games.resize(
                    rounds_played,
                    Game {
                        opponent: None,
                        colour: None,
                        played: false,
                        paired: false,
                        halves: 0,
                    },
                );
            }
            let (mut whites, mut blacks, mut run, mut last) = (0u32, 0u32, 0u32, None);
            for g in games.iter().filter(|g| g.played) {
                match g.colour {
                    Some(Colour::White) => whites += 1,
                    _ => blacks += 1,
                }
                run = if run > 0 && g.colour == last {
                    run + 1
                } else {
                    1
                };
                last = g.colour;
            }
            let lower = if whites > blacks {
                Colour::Black
            } else {
                Colour::White
            };
            let imbalance = whites.abs_diff(blacks);
            let preference = if imbalance > 1 {
                Some(lower)
            } else if run > 1 {
                other(last)
            } else if imbalance > 0 {
                Some(lower)
            } else if run > 0 {
                other(last)
            } else {
                None
            };
            let repeated = if run > 1 { last } else { None };
            let bye_eligible = !games
                .iter()
                .any(|g| !g.played && (g.halves >= 2 || (g.paired && g.opponent.is_none())));
            let mut player = Player {
                number: p.number,
                rank,
                // The rounds played (the written points may count a bye
                // asked for in the round to come).
                score: games[..rounds_played].iter().map(|g| g.halves).sum(),
                played: games.iter().filter(|g| g.played).count() as u32,
                games,
                imbalance,
                preference,
                repeated,
                strong: false,
                bye_eligible,
            };
            player.strong = !player.absolute() && imbalance > 0;
            if present {
                rank += 1;
            }
            players.push(player);
        }
        let mut met = vec![vec![false; players.len()]; players.len()];
        for (i, p) in players.iter().enumerate() {
            for g in p.games.iter().filter(|g| g.played) {
                if let Some(o) = g.opponent {
                    met[i][o] = true;
                    met[o][i] = true;
                }
            }
        }
        let mut sorted: Vec<usize> = (0..players.len()).filter(|&i| in_tournament[i]).collect();
        sorted.sort_by_key(|&i| (std::cmp::Reverse(players[i].score), players[i].rank));

        // Score groups from the lowest up: each gets a sub-field as wide as
        // its size needs.
        let mut group_shift = HashMap::new();
        let (mut groups_bits, mut largest, mut size) = (0, 0, 0);
        for (k, &i) in sorted.iter().enumerate().rev() {
            size += 1;
            let score = players[i].score;
            if k == 0 || players[sorted[k - 1]].score > score {
                group_shift.insert(score, groups_bits);
                largest = largest.max(size);
                groups_bits += bits_for(size);
                size = 0;
            }
        }
        Field {
            last_round: t
                .rounds
                .is_some_and(|r| r > 0 && rounds_played + 1 >= r as usize),
            players,
            sorted,
            met,
            rounds_played,
            group_shift,
            group_bits: bits_for(largest),
            groups_bits,
            first_colour: if t.white1 {
                Colour::White
            } else {
                Colour::Black
            },
        }
    }

    /// The bits of every field below the weight's top one (which takes 2).
    fn weight_bits(&self) -> u32 {
        let (b, g) = (self.group_bits, self.groups_bits);
        let floats = match self.rounds_played {
            0 => 0,
            1 => 2 * b + 2 * g,
            _ => 4 * b + 4 * g,
        };
        // pairs and scores in the bracket and the next, the bye's unplayed
        // games, four colour fields, floaters, three ordering fields and one
        // bit.
        2 * b + 2 * g + 2 * b + 4 * b + floats + 3 * b + 1
    }

    fn score(&self, vertex: usize) -> u32 {
        self.players[self.sorted[vertex]].score
    }

    /// The absolute criteria: never the same opponent twice over the board,
    /// never two players with the same absolute colour preference (in the
    /// last round, unless one of them has more than half the points possible).
    fn compatible(&self, a: usize, b: usize) -> bool {
        let (p, q) = (&self.players[a], &self.players[b]);
        let top = self.rounds_played as u32;
        !self.met[a][b]
            && (!p.absolute()
                || !q.absolute()
                || p.preference != q.preference
                || (self.last_round && (p.score > top || q.score > top)))
    }

    fn float(&self, p: &Player, back: usize) -> Float {
        let g = p.games[self.rounds_played - back];
        if !g.played {
            return if g.halves > 0 {
                Float::Down
            } else {
                Float::None
            };
        }
        let Some(o) = g.opponent else {
            return Float::None;
        };
        let (mine, theirs) = (
            p.score_before(self.rounds_played, back),
            self.players[o].score_before(self.rounds_played, back),
        );
        match mine.cmp(&theirs) {
            std::cmp::Ordering::Greater => Float::Down,
            std::cmp::Ordering::Less => Float::Up,
            std::cmp::Ordering::Equal => Float::None,
        }
    }

    /// The weight of pairing `higher` (earlier in the order) with `lower`:
    /// `current` when `lower` is in the bracket being paired, `next` when it
    /// is in the score group below it.
    fn edge<W: Wide>(
        &self,
        higher: usize,
        lower: usize,
        current: bool,
        next: bool,
        bye: &Bye,
    ) -> W {
        if !self.compatible(higher, lower) {
            return W::ZERO;
        }
        let (h, l) = (&self.players[higher], &self.players[lower]);
        let (b, g) = (self.group_bits, self.groups_bits);
        let bit = |c: bool| W::small(u64::from(c));
        let at = |score: u32| W::ONE << self.group_shift[&score];
        let zero = W::ZERO;

        // The round complete, the bye to a candidate.
        let mut r =
            W::small(1 + u64::from(!h.bye_candidate(bye)) + u64::from(!l.bye_candidate(bye)));
        // Pairs in this bracket, then the scores they pair.
        r = (r << b) | bit(current);
        r = (r << g) | if current { at(h.score) } else { zero };
        // The same for the next bracket.
        r = (r << b) | bit(next);
        r = (r << g) | if next { at(h.score) } else { zero };
        // The bye assignee's unplayed games.
        r = r << (2 * b);
        if bye.single {
            if h.score == bye.score {
                r = r | W::small(bye.unplayed_rank[&h.played]);
            }
            if l.score == bye.score {
                r += W::small(bye.unplayed_rank[&l.played]);
            }
        }
        // Colour preferences: the imbalance limit, the three-in-a-row limit,
        // the preferences met, the strong preferences met.
        let same = l.preference == h.preference;
        r = (r << b)
            | bit(current && (!l.absolute_imbalance() || !h.absolute_imbalance() || !same));
        let runs_differ = if l.imbalance == h.imbalance {
            l.repeated.is_none() || l.repeated != h.repeated
        } else {
            let less = if l.imbalance > h.imbalance { h } else { l };
            less.repeated != other(l.preference)
        };
        r = (r << b) | bit(current && (!l.absolute() || !h.absolute() || !same || runs_differ));
        r = (r << b) | bit(current && preferences_agree(l.preference, h.preference));
        r = (r << b)
            | bit(current
                && ((!l.strong && !l.absolute())
                    || (!h.strong && !h.absolute())
                    || (l.absolute() && h.absolute())
                    || !same));
        // Floaters repeated from the last round and the one before.
        let backs: &[usize] = match self.rounds_played {
            0 => &[],
            1 => &[1],
            _ => &[1, 2],
        };
        for &back in backs {
            r = r << b;
            if current {
                r = r | bit(self.float(l, back) == Float::Down);
                r += bit(h.score <= l.score && self.float(h, back) == Float::Down);
            }
            r = (r << b) | bit(current && !(h.score > l.score && self.float(l, back) == Float::Up));
        }
        // Their scores.
        for &back in backs {
            r = r << g;
            if current {
                if self.float(l, back) == Float::Down {
                    r += at(l.score);
                }
                if self.float(h, back) == Float::Down {
                    r += at(h.score);
                }
            }
            r = r << g;
            if current && !(self.float(l, back) == Float::Up && h.score > l.score) {
                r = r | at(h.score);
            }
        }
        // Room for the orders of S1, S2 and the exchanges.
        r << (3 * b + 1)
    }

    /// The weight the round's first matching (odd count) gives a pair: the
    /// round complete with the bye to an eligible player, in as low a score
    /// group as can be.
    fn bye_edge<W: Wide>(&self, a: usize, b: usize) -> W {
        if !self.compatible(a, b) {
            return W::ZERO;
        }
        let (p, q) = (&self.players[a], &self.players[b]);
        let r = W::small(1 + u64::from(!p.bye_eligible) + u64::from(!q.bye_eligible));
        let r = (r << self.groups_bits)
            | W::small(u64::from(
                self.group_shift[&p.score] + self.group_shift[&q.score],
            ));
        let top = self.score(0);
        (r << self.group_bits) | W::small(u64::from(p.score >= top))
    }

    /// The colour `p` gets against `q` (C.04.3 E).
    fn colour(&self, p: &Player, q: &Player) -> Colour {
        if let Some(c) = neutral_colour(p, q) {
            return c;
        }
        let q_ranks_higher =
            (p.score, std::cmp::Reverse(p.rank)) < (q.score, std::cmp::Reverse(q.rank));
        let first = self.first_colour;
        let flip = |c: Colour| other(Some(c)).unwrap_or(c);
        match p.preference {
            None if q_ranks_higher => {
                if q.rank % 2 == 1 {
                    first
                } else {
                    flip(first)
                }
            }
            None => {
                if p.rank % 2 == 1 {
                    flip(first)
                } else {
                    first
                }
            }
            Some(mine) if q_ranks_higher => other(q.preference).unwrap_or(flip(mine)),
            Some(mine) => mine,
        }
    }

    /// The boards in the order of publication from each player's mate.
    fn publish(&self, mates: &[Option<usize>]) -> Pairing {
        let mut boards = Vec::new();
        let mut bye = None;
        for &i in &self.sorted {
            match mates[i] {
                Some(j) if i < j => {
                    let (p, q) = (&self.players[i], &self.players[j]);
                    boards.push(if self.colour(p, q) == Colour::White {
                        (i, j)
                    } else {
                        (j, i)
                    });
                }
                Some(_) => {}
                None => bye = Some(self.players[i].number),
            }
        }
        let key = |&(w, b): &(usize, usize)| {
            let (p, q) = (&self.players[w], &self.players[b]);
            let (hi, lo) =
                if (p.score, std::cmp::Reverse(p.rank)) < (q.score, std::cmp::Reverse(q.rank)) {
                    (q, p)
                } else {
                    (p, q)
                };
            (
                std::cmp::Reverse(hi.score),
                std::cmp::Reverse(lo.score),
                hi.rank,
            )
        };
        boards.sort_by_key(key);
        Pairing {
            boards: boards
                .into_iter()
                .map(|(w, b)| (self.players[w].number, self.players[b].number))
                .collect(),
            bye,
        }
    }
}

/// The colour `p` gets against `q` from their preferences and histories
/// alone (C.04.3 E.1–E.4); `None` when these leave it to the ranks.
fn neutral_colour(p: &Player, q: &Player) -> Option<Colour> {
    if preferences_agree(p.preference, q.preference) {
        return p.preference.or_else(|| other(q.preference));
    }
    if p.absolute() && (p.imbalance > q.imbalance || !q.absolute()) {
        return p.preference;
    }
    if q.absolute() && (q.imbalance > p.imbalance || !p.absolute()) {
        return other(q.preference);
    }
    if p.strong && !q.strong {
        return p.preference;
    }
    if q.strong && !p.strong {
        return other(q.preference);
    }
    // The last round in which they had different colours: each takes the
    // other's colour of that round.
    let mut a = p.games.iter().rev().filter(|g| g.played).map(|g| g.colour);
    let mut b = q.games.iter().rev().filter(|g| g.played).map(|g| g.colour);
    loop {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => {}
            (Some(Some(_)), Some(y @ Some(_))) => return y,
            _ => return None,
        }
    }
}

/// A symmetric weight matrix over the vertices, solved from scratch on each
/// call over the vertices not yet paired for good.
struct Matching<W> {
    n: usize,
    weight: Vec<W>,
    /// The mate of each vertex paired for good.
    fixed: Vec<Option<usize>>,
}

impl<W: Wide> Matching<W> {
    fn new(n: usize) -> Matching<W> {
        Matching {
            n,
            weight: vec![W::ZERO; n * n],
            fixed: vec![None; n],
        }
    }

    fn set(&mut self, a: usize, b: usize, w: W) {
        self.weight[a * self.n + b] = w;
        self.weight[b * self.n + a] = w;
    }

    /// Each vertex's mate, itself when unmatched. A pair fixed for good has
    /// no other edge, so the rest is solved without it (the solver's time
    /// grows with the cube of its vertices).
    fn solve(&self) -> Vec<usize> {
        let open: Vec<usize> = (0..self.n).filter(|&v| self.fixed[v].is_none()).collect();
        let k = open.len();
        let mut weight = Vec::with_capacity(k * k);
        for &a in &open {
            weight.extend(open.iter().map(|&b| self.weight[a * self.n + b]));
        }
        let mut mate: Vec<usize> = (0..self.n).map(|v| self.fixed[v].unwrap_or(v)).collect();
        for (i, m) in max_weight_matching(&weight, k).into_iter().enumerate() {
            if let Some(j) = m {
                mate[open[i]] = open[j];
            }
        }
        mate
    }

    /// `a` and `b` are a pair for good.
    fn fix(&mut self, a: usize, b: usize) {
        self.fixed[a] = Some(b);
        self.fixed[b] = Some(a);
    }
}

/// Each player's mate by index (`None`: the bye).
#[allow(
    clippy::too_many_lines,
    reason = "one bracket's steps read in order, as the rules give them"
)]
fn run<W: Wide>(f: &Field) -> Result<Vec<Option<usize>>, DutchError> {
    let n = f.sorted.len();
    let player = |v: usize| f.sorted[v];
    let mut m = Matching::new(n);
    let mut bye = Bye {
        score: 0,
        single: false,
        unplayed_rank: HashMap::new(),
    };
    let odd = n % 2 == 1;
    for v in 0..n {
        for u in 0..v {
            let w = if odd {
                f.bye_edge(player(v), player(u))
            } else {
                f.edge(player(u), player(v), false, false, &bye)
            };
            m.set(v, u, w);
        }
    }

    // Is the round possible at all, and who would have the bye?
    let mut mate = m.solve();
    let unmatched: Vec<usize> = (0..n).filter(|&v| mate[v] == v).collect();
    if unmatched.len() > 1
        || unmatched
            .first()
            .is_some_and(|&v| !f.players[player(v)].bye_eligible)
    {
        return Err(DutchError::NoPairing);
    }
    if let Some(&v) = unmatched.first() {
        bye.score = f.score(v);
        let top = f.score(0);
        bye.single = bye.score >= top
            && (0..n)
                .take_while(|&u| f.score(u) >= top)
                .all(|u| f.score(mate[u]) >= top);
        let mut played: Vec<u32> = (0..n)
            .filter(|&u| f.score(u) == bye.score)
            .map(|u| f.players[player(u)].played)
            .collect();
        played.sort_unstable_by(|a, b| b.cmp(a));
        for (k, p) in played.into_iter().enumerate() {
            bye.unplayed_rank.insert(p, k as u64);
        }
        for v in 0..n {
            for u in 0..v {
                m.set(v, u, f.edge(player(u), player(v), false, false, &bye));
            }
        }
    }

    let mut result = vec![None; f.players.len()];
    let mut matched = vec![false; n];
    // The bracket: its moved-down players, its own score group, and the score
    // group below (vertices, in order).
    let top = f.score(0);
    let mut next = (0..n).take_while(|&v| f.score(v) >= top).count();
    let mut bracket: Vec<usize> = (0..next).collect();
    let mut moved_down = 0;
    let mut resident_start = 0;
    while bracket.len() > 1 || next < n {
        let next_begin = bracket.len();
        let next_start = resident_start + (next_begin - moved_down);
        let group_start = next;
        while next < n && f.score(next) >= f.score(group_start) {
            bracket.push(next);
            next += 1;
        }
        let in_group = |v: usize| v >= resident_start && v < next_start;
        let mut base: Vec<Vec<W>> = vec![Vec::new(); bracket.len()];
        for larger in moved_down..bracket.len() {
            base[larger] = (0..larger)
                .map(|smaller| {
                    f.edge(
                        player(bracket[smaller]),
                        player(bracket[larger]),
                        larger < next_begin,
                        larger >= next_begin,
                        &bye,
                    )
                })
                .collect();
            for smaller in 0..larger {
                m.set(bracket[larger], bracket[smaller], base[larger][smaller]);
            }
        }
        // The weight with the exchanges' fields: fewer exchanges, then the
        // smallest difference of the exchanged numbers.
        let exchange_weight =
            |base: &Vec<Vec<W>>, smaller: usize, larger: usize, index: usize, pairs: usize| {
                let r = base[larger][smaller];
                if r == W::ZERO {
                    return r;
                }
                let kept = W::small(u64::from(index < pairs)) << (2 * f.group_bits + 1);
                r + kept - W::small(2 * index as u64)
            };
        mate = m.solve();

        // Which moved-down players this bracket pairs: as many as it can, the
        // highest scores first, then by order.
        let mut k = 0;
        while k < moved_down {
            let score = f.score(bracket[k]);
            let same: Vec<usize> = (k..moved_down)
                .take_while(|&j| f.score(bracket[j]) >= score)
                .collect();
            let mut left = same.len();
            let mut can = same.iter().filter(|&&j| in_group(mate[bracket[j]])).count();
            for &j in &same {
                if can == 0 {
                    break;
                }
                let v = bracket[j];
                if left <= can {
                    matched[v] = true;
                    left -= 1;
                    can -= 1;
                    continue;
                }
                left -= 1;
                if !in_group(mate[v]) {
                    for o in moved_down..next_begin {
                        let w = base[o][j];
                        if w != W::ZERO {
                            m.set(v, bracket[o], w | W::ONE);
                        }
                    }
                    mate = m.solve();
                }
                if in_group(mate[v]) {
                    matched[v] = true;
                    can -= 1;
                    for o in moved_down..next_begin {
                        let w = base[o][j];
                        if w != W::ZERO {
                            let w = (w | W::small((next_begin - moved_down) as u64)) + W::ONE;
                            m.set(v, bracket[o], w);
                        }
                    }
                }
            }
            k += same.len();
        }

        // Their opponents, in S1's order: the highest resident it can have.
        for j in 0..moved_down {
            let v = bracket[j];
            if !matched[v] {
                continue;
            }
            let mut addend = bracket.len() as u64;
            for o in (moved_down..next_begin).rev() {
                if matched[bracket[o]] {
                    continue;
                }
                let w = base[o][j];
                if w != W::ZERO {
                    m.set(v, bracket[o], w + W::small(addend));
                    addend += 1;
                }
            }
            mate = m.solve();
            let u = mate[v];
            matched[u] = true;
            m.fix(v, u);
        }

        // The remainder: S1 (those paired with a later resident) and S2.
        let mut remainder = Vec::new();
        let mut pairs = 0;
        for (j, &v) in bracket.iter().enumerate().take(next_begin).skip(moved_down) {
            if mate[v] < resident_start {
                continue;
            }
            remainder.push(j);
            if mate[v] < v {
                pairs += 1;
            }
        }
        let s1_end = pairs;
        for (b_i, &b_j) in remainder.iter().enumerate() {
            for (a_i, &a_j) in remainder.iter().enumerate().take(b_i) {
                m.set(
                    bracket[a_j],
                    bracket[b_j],
                    exchange_weight(&base, a_j, b_j, a_i, pairs),
                );
            }
        }
        mate = m.solve();
        let in_s1 = |mate: &[usize], v: usize| mate[v] > v && mate[v] < next_start;
        let exchanges = remainder[..s1_end]
            .iter()
            .filter(|&&j| !in_s1(&mate, bracket[j]))
            .count();

        // Exchange the lowest of S1 that can be.
        let mut left = exchanges;
        let mut at = s1_end;
        while at > 0 && left > 0 {
            at -= 1;
            let j = remainder[at];
            let v = bracket[j];
            if in_s1(&mate, v) {
                for &o in &remainder[at + 1..] {
                    let w = exchange_weight(&base, j, o, at, pairs);
                    if w != W::ZERO {
                        m.set(v, bracket[o], w - W::ONE);
                    }
                }
                mate = m.solve();
            }
            let exchange = !in_s1(&mate, v);
            if exchange {
                left -= 1;
            }
            for &o in &remainder[at + 1..] {
                if exchange {
                    base[o][j] = W::ZERO;
                }
                m.set(v, bracket[o], exchange_weight(&base, j, o, at, pairs));
            }
        }

        // And the highest of S2.
        let mut left = exchanges;
        let mut index = s1_end;
        while index < remainder.len() && left > 1 {
            let j = remainder[index];
            let v = bracket[j];
            let already = in_s1(&mate, v);
            if !already {
                for &o in &remainder[index + 1..] {
                    let w = exchange_weight(&base, j, o, index, pairs);
                    if w != W::ZERO {
                        m.set(v, bracket[o], w + W::ONE);
                    }
                }
                mate = m.solve();
            }
            if in_s1(&mate, v) {
                left -= 1;
                for &o in &remainder[..index] {
                    base[j][o] = W::ZERO;
                    m.set(v, bracket[o], W::ZERO);
                }
                for o in next_begin..bracket.len() {
                    base[o][j] = W::ZERO;
                    m.set(v, bracket[o], W::ZERO);
                }
            }
            if !already {
                for &o in &remainder[index + 1..] {
                    m.set(v, bracket[o], exchange_weight(&base, j, o, index, pairs));
                }
            }
            index += 1;
        }

        // S1 and S2 settled: only S1–S2 edges stay.
        for (a_i, &a_j) in remainder.iter().enumerate() {
            let a = bracket[a_j];
            for &b_j in &remainder[a_i + 1..] {
                let b = bracket[b_j];
                if !in_s1(&mate, a) || in_s1(&mate, b) {
                    base[b_j][a_j] = W::ZERO;
                }
                m.set(a, b, base[b_j][a_j]);
            }
        }

        // Each of S1, in order, takes the first of S2 it can.
        for &j in &remainder {
            let v = bracket[j];
            if !in_s1(&mate, v) {
                continue;
            }
            let mut addend = 0u64;
            for &o in remainder.iter().rev() {
                if o <= j || matched[bracket[o]] {
                    continue;
                }
                let w = base[o][j];
                if w != W::ZERO {
                    m.set(v, bracket[o], w + W::small(addend));
                }
                addend += 1;
            }
            mate = m.solve();
            let u = mate[v];
            matched[v] = true;
            matched[u] = true;
            m.fix(v, u);
        }

        // The next bracket: this one's unpaired players moved down, and the
        // score group below.
        let mut carried = Vec::new();
        moved_down = 0;
        bye.single = odd && group_start < n && bye.score >= f.score(group_start);
        for (j, &v) in bracket.iter().enumerate() {
            if j < next_begin && matched[v] {
                result[player(v)] = Some(player(mate[v]));
                result[player(mate[v])] = Some(player(v));
            } else {
                carried.push(v);
                if j < next_begin {
                    moved_down += 1;
                }
                if bye.single && f.score(mate[v]) < f.score(group_start) {
                    bye.single = false;
                }
            }
        }
        bracket = carried;
        resident_start = next_start;
    }
    Ok(result)
}
