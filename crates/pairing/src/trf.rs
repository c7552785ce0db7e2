//! FIDE's Tournament Report File, TRF16: the part pairing reads and writes.
//!
//! A player line (`001`) holds, by column (1-based): the starting number
//! (5-8), the name (15-47), the rating (49-52), the points (81-84), the rank
//! (86-89), then one block of 10 characters per round from column 92: the
//! opponent's starting number (4 columns, `0000` for none), a space, the
//! colour (`w`, `b` or `-`), a space, the result. `XXR` gives the
//! tournament's rounds, `XXC white1` that the first player had white in
//! round 1 (`black1`, black); other lines are kept out of the way.

use std::fmt::Write as _;

/// A side's colour in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    White,
    Black,
}

/// What a round brought a player (the TRF's result codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `1`: won over the board.
    Win,
    /// `=`: drawn over the board.
    Draw,
    /// `0`: lost over the board.
    Loss,
    /// `+`: won by forfeit (the game not played).
    ForfeitWin,
    /// `-`: lost by forfeit.
    ForfeitLoss,
    /// `U`: the pairing-allocated bye (a full point).
    Bye,
    /// `H`: a half-point bye.
    HalfBye,
    /// `F`: a full-point bye asked for.
    FullBye,
    /// `Z`: the round missed (no point).
    Absent,
}

impl Outcome {
    /// The TRF code.
    #[must_use]
    pub const fn code(self) -> char {
        match self {
            Outcome::Win => '1',
            Outcome::Draw => '=',
            Outcome::Loss => '0',
            Outcome::ForfeitWin => '+',
            Outcome::ForfeitLoss => '-',
            Outcome::Bye => 'U',
            Outcome::HalfBye => 'H',
            Outcome::FullBye => 'F',
            Outcome::Absent => 'Z',
        }
    }

    /// The outcome of a code, if it is one.
    #[must_use]
    pub fn parse(code: char) -> Option<Outcome> {
        [
            Outcome::Win,
            Outcome::Draw,
            Outcome::Loss,
            Outcome::ForfeitWin,
            Outcome::ForfeitLoss,
            Outcome::Bye,
            Outcome::HalfBye,
            Outcome::FullBye,
            Outcome::Absent,
        ]
        .into_iter()
        .find(|o| o.code() == code)
    }

    /// Its points, in halves: a win or a full bye 2, a draw or a half bye 1.
    #[must_use]
    pub const fn halves(self) -> u32 {
        match self {
            Outcome::Win | Outcome::ForfeitWin | Outcome::Bye | Outcome::FullBye => 2,
            Outcome::Draw | Outcome::HalfBye => 1,
            Outcome::Loss | Outcome::ForfeitLoss | Outcome::Absent => 0,
        }
    }

    /// Whether a game was played over the board.
    #[must_use]
    pub const fn played(self) -> bool {
        matches!(self, Outcome::Win | Outcome::Draw | Outcome::Loss)
    }
}

/// One round of a player: the opponent (none for a bye or a round missed),
/// the colour (none when no game was played), what it brought.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub opponent: Option<u32>,
    pub colour: Option<Colour>,
    pub outcome: Outcome,
}

/// A player as the file tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    /// The starting number (the pairing number), from 1.
    pub number: u32,
    pub name: String,
    /// 0 when unrated.
    pub rating: u32,
    /// Points as written, in halves.
    pub points: u32,
    /// The rounds played so far, in order.
    pub rounds: Vec<Entry>,
}

impl Player {
    /// The points its rounds bring, in halves.
    #[must_use]
    pub fn scored(&self) -> u32 {
        self.rounds.iter().map(|e| e.outcome.halves()).sum()
    }
}

/// A tournament as the file tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tournament {
    /// `012`: the tournament's name, if given.
    pub name: Option<String>,
    /// `XXR`: how many rounds the tournament has.
    pub rounds: Option<u32>,
    /// `XXC`: whether the first player had white in round 1 (`white1`, the
    /// default) or black (`black1`).
    pub white1: bool,
    /// In starting-number order.
    pub players: Vec<Player>,
}

/// A file that cannot be read: the line (from 1) and why.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("line {line}: {message}")]
pub struct TrfError {
    pub line: usize,
    pub message: String,
}

/// Reads a TRF16 file.
///
/// # Errors
/// The first line that is not what TRF16 says: a player line with a bad
/// number, rating, points or round, players not numbered 1, 2, 3, …, an
/// opponent who is no player, or points that are not the sum of the rounds
/// (or of all rounds but the last).
pub fn parse(text: &str) -> Result<Tournament, TrfError> {
    let mut t = Tournament {
        name: None,
        rounds: None,
        white1: true,
        players: Vec::new(),
    };
    // Lines end with LF, CRLF or a lone CR (bbpPairings' generator writes CR).
    for (i, line) in text.lines().flat_map(|l| l.split('\r')).enumerate() {
        let fail = |message: String| TrfError {
            line: i + 1,
            message,
        };
        match line.get(..3) {
            Some("012") => t.name = Some(field(line, 5, line.len()).to_owned()),
            Some("XXR") => {
                let n = field(line, 5, line.len());
                t.rounds = Some(
                    n.parse()
                        .map_err(|_| fail(format!("XXR {n:?}: not a number of rounds")))?,
                );
            }
            Some("XXC") => {
                let words: Vec<&str> = field(line, 5, line.len()).split_whitespace().collect();
                if words.contains(&"black1") {
                    t.white1 = false;
                } else if words.contains(&"white1") {
                    t.white1 = true;
                }
            }
            Some("001") => t.players.push(player(line).map_err(fail)?),
            _ => {}
        }
    }
    for (i, p) in t.players.iter().enumerate() {
        if p.number as usize != i + 1 {
            return Err(TrfError {
                line: 0,
                message: format!(
                    "player {} is listed {}th: players go 1, 2, 3, …",
                    p.number,
                    i + 1
                ),
            });
        }
        let count = t.players.len();
        if let Some(bad) = p
            .rounds
            .iter()
            .filter_map(|e| e.opponent)
            .find(|&o| o == 0 || o as usize > count || o == p.number)
        {
            return Err(TrfError {
                line: 0,
                message: format!("player {}'s opponent {bad} is no other player", p.number),
            });
        }
        // The points of every round given, or of all but the last (a bye
        // asked for in the round to come, which some programs count later).
        let before_last = p.rounds.last().map(|e| p.scored() - e.outcome.halves());
        if p.scored() != p.points && before_last != Some(p.points) {
            return Err(TrfError {
                line: 0,
                message: format!(
                    "player {} has {} points written, {} from its rounds",
                    p.number,
                    halves_text(p.points),
                    halves_text(p.scored())
                ),
            });
        }
    }
    Ok(t)
}

/// Columns `from` to `to` of a line (from 1, both included), trimmed.
fn field(line: &str, from: usize, to: usize) -> &str {
    line.get(from - 1..to.min(line.len())).unwrap_or("").trim()
}

/// A player line.
fn player(line: &str) -> Result<Player, String> {
    let number: u32 = field(line, 5, 8)
        .parse()
        .map_err(|_| format!("starting number {:?}", field(line, 5, 8)))?;
    let rating = match field(line, 49, 52) {
        "" => 0,
        r => r.parse().map_err(|_| format!("rating {r:?}"))?,
    };
    let points = match field(line, 81, 84) {
        "" => 0,
        p => parse_halves(p).ok_or_else(|| format!("points {p:?}"))?,
    };
    let mut rounds = Vec::new();
    let mut at = 92;
    while line.len() >= at + 7 {
        let block = line.get(at - 1..(at + 9).min(line.len())).unwrap_or("");
        let bytes = block.as_bytes();
        let opponent: u32 = block
            .get(..4)
            .map(str::trim)
            .and_then(|o| o.parse().ok())
            .ok_or_else(|| format!("round {}: opponent {:?}", rounds.len() + 1, block.get(..4)))?;
        let colour = match bytes.get(5) {
            Some(b'w') => Some(Colour::White),
            Some(b'b') => Some(Colour::Black),
            Some(b'-' | b' ') => None,
            other => return Err(format!("round {}: colour {other:?}", rounds.len() + 1)),
        };
        let outcome = bytes
            .get(7)
            .and_then(|&c| Outcome::parse(char::from(c)))
            .ok_or_else(|| {
                format!(
                    "round {}: result {:?}",
                    rounds.len() + 1,
                    bytes.get(7).map(|&c| char::from(c))
                )
            })?;
        rounds.push(Entry {
            opponent: (opponent != 0).then_some(opponent),
            colour,
            outcome,
        });
        at += 10;
    }
    Ok(Player {
        number,
        name: field(line, 15, 47).to_owned(),
        rating,
        points,
        rounds,
    })
}

/// `2.5` as 5 halves.
fn parse_halves(text: &str) -> Option<u32> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, "0"));
    let whole: u32 = whole.parse().ok()?;
    let half = match frac {
        "0" | "" => 0,
        "5" => 1,
        _ => return None,
    };
    Some(whole * 2 + half)
}

/// 5 halves as `2.5`.
#[must_use]
pub fn halves_text(halves: u32) -> String {
    format!("{}.{}", halves / 2, if halves % 2 == 1 { 5 } else { 0 })
}

/// The file of a tournament, as `parse` reads it back (the columns TRF16
/// gives each field).
#[must_use]
pub fn write(t: &Tournament) -> String {
    let mut out = String::new();
    if let Some(name) = &t.name {
        let _ = writeln!(out, "012 {name}");
    }
    if let Some(rounds) = t.rounds {
        let _ = writeln!(out, "XXR {rounds}");
    }
    let _ = writeln!(out, "XXC {}", if t.white1 { "white1" } else { "black1" });
    for p in &t.players {
        let mut line = format!(
            "001 {:>4}      {:<33} {:>4}",
            p.number,
            p.name,
            if p.rating == 0 {
                String::new()
            } else {
                p.rating.to_string()
            }
        );
        line = format!("{line:<80}{:>4}     ", halves_text(p.points));
        for e in &p.rounds {
            let colour = match e.colour {
                Some(Colour::White) => 'w',
                Some(Colour::Black) => 'b',
                None => '-',
            };
            // No opponent (a bye, a round missed) is written `0000`.
            let opponent = e
                .opponent
                .map_or_else(|| "0000".to_owned(), |o| format!("{o:>4}"));
            let _ = write!(line, "  {opponent} {colour} {}", e.outcome.code());
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}
