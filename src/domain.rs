//! The records the service works with: a game as stored (its position,
//! seats, round and version), its moves and other changes, seat tokens, the
//! filter of a listing, a stored idempotent answer, and the bot
//! [`Level`](crate::ai::Level).
//!
//! Over 700 lines, on purpose: a game's record and the rules of its state
//! (seats, clock, outcome, the offer, the match key) are one value whose
//! methods check each other; the records around it that stand alone
//! (`player`, `rating`, `webhook`) are modules of their own.
//!
//! They are plain values over the rules' types. The service builds and
//! changes them, the store persists them (`store` depends on this module,
//! not the other way round), and the HTTP layer renders them. Nothing here
//! does I/O.

pub mod challenge;
pub mod player;
pub mod rating;
pub mod tournament;
pub mod webhook;

use std::fmt;

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::rules::{AnyGame, GameKind, MoveInput, Player, Setup, Status};

pub use crate::ai::{Level, UnknownLevel};

/// The SHA-256 of a seat token: what is stored instead of the token.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenHash([u8; 32]);

impl TokenHash {
    /// Hashes a presented token.
    #[must_use]
    pub fn of(token: &str) -> TokenHash {
        TokenHash(Sha256::digest(token.as_bytes()).into())
    }

    /// A stored hash back from its bytes; `None` unless there are 32.
    #[must_use]
    pub fn from_slice(bytes: &[u8]) -> Option<TokenHash> {
        bytes.try_into().ok().map(TokenHash)
    }

    /// The hash's bytes, as stored.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TokenHash(…)")
    }
}

/// Who sits in a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seat {
    /// A person; `token` is `None` while the seat is open.
    Human { token: Option<TokenHash> },
    /// A server bot.
    Bot { level: Level, seed: u64 },
}

impl Seat {
    /// A human seat nobody has taken yet.
    #[must_use]
    pub fn is_open(&self) -> bool {
        matches!(self, Seat::Human { token: None })
    }
}

/// The game-level status, which adds `waiting` and resignation to the
/// position's own status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameStatus {
    Waiting,
    InProgress,
    Won,
    Draw,
}

impl GameStatus {
    pub const ALL: [GameStatus; 4] = [
        GameStatus::Waiting,
        GameStatus::InProgress,
        GameStatus::Won,
        GameStatus::Draw,
    ];

    /// The API (and database) name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            GameStatus::Waiting => "waiting",
            GameStatus::InProgress => "in_progress",
            GameStatus::Won => "won",
            GameStatus::Draw => "draw",
        }
    }

    /// The status named `s`, if any.
    #[must_use]
    pub fn parse(s: &str) -> Option<GameStatus> {
        GameStatus::ALL.into_iter().find(|g| g.as_str() == s)
    }
}

/// How a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    Line,
    FullBoard,
    Resignation,
    /// A side's clock ran out.
    Timeout,
    /// Both sides agreed a draw.
    Agreement,
    /// A round that ended before each side had moved (a rated one by
    /// resignation, time or agreement; any by a missed first-move deadline
    /// or a claim): no result, no rating change.
    Aborted,
    /// The side to move left without a clock, and the other side claimed
    /// the round (won or drawn).
    Abandoned,
    /// A tournament game whose side to move missed its first-move deadline:
    /// it loses, the game not played.
    Forfeit,
}

impl EndReason {
    /// The API name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            EndReason::Line => "line",
            EndReason::FullBoard => "full_board",
            EndReason::Resignation => "resignation",
            EndReason::Timeout => "timeout",
            EndReason::Agreement => "agreement",
            EndReason::Aborted => "aborted",
            EndReason::Abandoned => "abandoned",
            EndReason::Forfeit => "forfeit",
        }
    }
}

/// How a round ended other than on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The seat that resigned.
    Resignation(Player),
    /// The seat whose clock ran out.
    Timeout(Player),
    /// A draw both seats agreed.
    Agreement,
    /// The seat that let its first-move deadline pass: the round is aborted.
    NoFirstMove(Player),
    /// The seat that claimed the round (won, or drawn when `draw`) after the
    /// other side, to move, had been gone for the claim delay.
    Claimed { by: Player, draw: bool },
}

/// What a claim asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimResult {
    Win,
    Draw,
}

/// The longest seat name, in characters.
pub const NAME_MAX_CHARS: usize = 32;

/// A name as it is checked and stored: NFC-normalized, white space
/// (any `White_Space` character, NBSP included) trimmed at both ends and
/// each inner run made one space; then checked by [`check_name`].
///
/// # Errors
/// A message saying what is wrong with it.
pub fn normalize_name(name: &str) -> Result<String, String> {
    use unicode_normalization::UnicodeNormalization;
    let nfc: String = name.nfc().collect();
    let normalized = nfc.split(char::is_whitespace).filter(|w| !w.is_empty());
    let normalized = normalized.collect::<Vec<_>>().join(" ");
    check_name(&normalized)?;
    Ok(normalized)
}

/// Most combining marks one character may carry: enough for any script's
/// diacritics, not for a tower of them drawn over the neighbouring text.
const MARKS_PER_CHARACTER: usize = 8;

/// A seat's name (see [`normalize_name`]): 1 to [`NAME_MAX_CHARS`]
/// characters, at least one of which prints, none that hides or reorders
/// text, and no word that mixes scripts.
///
/// Refused, by their Unicode properties (ICU's data, not a table of our
/// own): the general categories Other (controls, format characters such
/// as direction isolates and soft hyphens, surrogates, private use,
/// unassigned code points and noncharacters) and the line and paragraph
/// separators; default-ignorable code points (fillers such as U+3164,
/// the combining grapheme joiner) but inside an emoji sequence (a zero
/// width joiner between pictographs, a variation selector or tag after an
/// emoji); U+2800; a combining mark with no character before it to sit
/// on, or past `MARKS_PER_CHARACTER` on one; a word (a run between
/// spaces) whose characters have no script in common, as Unicode TS #39
/// resolves them (the `unicode-security` crate): `Fаrm` with a Cyrillic
/// `а` is refused, `東京タワー` and `R2-D2` are not.
///
/// # Errors
/// A message saying what is wrong with it.
pub fn check_name(name: &str) -> Result<(), String> {
    use icu_properties::props::{
        DefaultIgnorableCodePoint, Emoji, ExtendedPictographic, GeneralCategory,
        GeneralCategoryGroup, WhiteSpace,
    };
    use icu_properties::{CodePointMapData, CodePointSetData};
    use unicode_security::MixedScript;
    let category = CodePointMapData::<GeneralCategory>::new();
    let ignorable = CodePointSetData::new::<DefaultIgnorableCodePoint>();
    let space = CodePointSetData::new::<WhiteSpace>();
    let emoji = CodePointSetData::new::<Emoji>();
    let pictograph = CodePointSetData::new::<ExtendedPictographic>();
    let chars: Vec<char> = name.chars().collect();
    if chars.len() > NAME_MAX_CHARS {
        return Err(format!(
            "`name` has {} characters; at most {NAME_MAX_CHARS} are allowed",
            chars.len()
        ));
    }
    let mut prints = false;
    // The character marks sit on (none at the start or after a space), how
    // many it carries, and the last one that was not a mark or selector.
    let mut base: Option<char> = None;
    let mut marks = 0;
    for (i, &c) in chars.iter().enumerate() {
        let gc = category.get(c);
        let next = chars.get(i + 1).copied();
        let in_emoji = match c {
            // A variation selector after an emoji (a keycap's digit too).
            '\u{FE0E}' | '\u{FE0F}' => base.is_some_and(|b| emoji.contains(b)),
            // A joiner between two pictographs.
            '\u{200D}' => {
                base.is_some_and(|b| pictograph.contains(b))
                    && next.is_some_and(|n| pictograph.contains(n))
            }
            // A tag sequence's tags and its end, after a pictograph.
            '\u{E0020}'..='\u{E007F}' => base.is_some_and(|b| pictograph.contains(b)),
            _ => false,
        };
        let hidden = GeneralCategoryGroup::Other.contains(gc)
            || matches!(
                gc,
                GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator
            )
            || ignorable.contains(c)
            || c == BRAILLE_BLANK;
        if hidden && !in_emoji {
            return Err(format!(
                "`name` may hold printable characters only, not U+{:04X}",
                u32::from(c)
            ));
        }
        if in_emoji {
            if c == '\u{200D}' {
                base = None;
            }
            continue;
        }
        let blank = space.contains(c);
        if GeneralCategoryGroup::Mark.contains(gc) {
            if base.is_none() {
                return Err(format!(
                    "`name` has a combining mark (U+{:04X}) with no character before it",
                    u32::from(c)
                ));
            }
            marks += 1;
            if marks > MARKS_PER_CHARACTER {
                return Err(format!(
                    "`name` has more than {MARKS_PER_CHARACTER} combining marks on one character"
                ));
            }
        } else {
            base = (!blank).then_some(c);
            marks = 0;
        }
        prints |= !blank;
    }
    if !prints {
        return Err("`name` must have at least one visible character".into());
    }
    if let Some(word) = name.split(' ').find(|w| !w.is_single_script()) {
        return Err(format!(
            "`name` mixes scripts in one word ({word:?}): write each word in one script"
        ));
    }
    Ok(())
}

/// U+2800 BRAILLE PATTERN BLANK: a symbol by category, but it prints
/// nothing, so it passes for a space that is not one.
const BRAILLE_BLANK: char = '\u{2800}';

/// What an offer proposes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OfferKind {
    Takeback,
    Draw,
    Restart,
    /// A new game of the same terms, seats swapped (after a round).
    Rematch,
}

impl OfferKind {
    pub const ALL: [OfferKind; 4] = [
        OfferKind::Takeback,
        OfferKind::Draw,
        OfferKind::Restart,
        OfferKind::Rematch,
    ];

    /// The API (and database) name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            OfferKind::Takeback => "takeback",
            OfferKind::Draw => "draw",
            OfferKind::Restart => "restart",
            OfferKind::Rematch => "rematch",
        }
    }

    /// The kind named `s`, if any.
    #[must_use]
    pub fn parse(s: &str) -> Option<OfferKind> {
        OfferKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// A pending offer: what, by which seat, when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offer {
    pub kind: OfferKind,
    pub by: Player,
    pub at: DateTime<Utc>,
}

/// A game's time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// Each side has a budget; `increment_ms` is added after each of its moves.
    Fischer { initial_ms: i64, increment_ms: i64 },
    /// Each move within a fixed time.
    PerMove { per_move_ms: i64 },
}

impl TimeControl {
    /// The longest budget accepted: 30 days.
    pub const MAX_MS: i64 = 30 * 24 * 3600 * 1000;

    /// A side's time at the start of a round.
    #[must_use]
    pub const fn initial_ms(self) -> i64 {
        match self {
            TimeControl::Fischer { initial_ms, .. } => initial_ms,
            TimeControl::PerMove { per_move_ms } => per_move_ms,
        }
    }
}

/// The first-move deadline of Fischer clocks by default
/// (`--first-move-window`), in milliseconds.
pub const DEFAULT_FIRST_MOVE_MS: i64 = 30_000;

/// A round's clock. Time runs for the side to move while both seats are
/// taken and the round is not over; `since` is when it started running
/// (`None` while stopped). Between people, a side's first move of the round
/// runs against a first-move deadline instead (see
/// [`GameRecord::first_move_pending`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameClock {
    pub control: TimeControl,
    /// Each side's time left, by [`Player::index`], as of `since` for the
    /// running side (per-move clocks: the time for one move).
    pub remaining_ms: [i64; 2],
    pub since: Option<DateTime<Utc>>,
    /// The time a side has for its first move of a round between people
    /// (Fischer: the first-move window; per-move clocks: one move's time).
    pub first_move_ms: i64,
}

impl GameClock {
    /// A stopped clock with each side's initial time, and a first-move
    /// window of `first_move_ms` (Fischer clocks; a per-move clock's is its
    /// time for one move).
    #[must_use]
    pub fn new(control: TimeControl, first_move_ms: i64) -> GameClock {
        let initial = control.initial_ms();
        GameClock {
            control,
            remaining_ms: [initial, initial],
            since: None,
            first_move_ms: match control {
                TimeControl::Fischer { .. } => first_move_ms,
                TimeControl::PerMove { per_move_ms } => per_move_ms,
            },
        }
    }

    /// When `side`'s time runs out, if it is running.
    #[must_use]
    pub fn deadline(&self, side: Player) -> Option<DateTime<Utc>> {
        self.since
            .map(|s| s + chrono::TimeDelta::milliseconds(self.remaining_ms[side.index()]))
    }

    /// `side`'s time left at `now`, `running` being the side whose time runs.
    #[must_use]
    pub fn remaining_at(&self, side: Player, running: Option<Player>, now: DateTime<Utc>) -> i64 {
        let left = self.remaining_ms[side.index()];
        match self.since {
            Some(since) if running == Some(side) => {
                (left - (now - since).num_milliseconds()).max(0)
            }
            _ => left,
        }
    }
}

/// A game as stored: the current round's position and everything around it.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    pub id: Uuid,
    pub position: AnyGame,
    /// Seats X and O, indexed by [`Player::index`].
    pub seats: [Seat; 2],
    pub hotseat: bool,
    pub round: u32,
    /// How the current round ended, if not on the board.
    pub ending: Option<Ending>,
    /// The version this state is shown with (its `ETag`): the stored one,
    /// or one past it when [`GameRecord::settle`] derived a timeout that is
    /// not recorded yet, so that the two states never share a validator.
    pub version: i64,
    /// Whether `version` is one past the stored version: a timeout found at
    /// read time and not yet written (see [`GameRecord::settle`]).
    pub derived: bool,
    /// Seat names, by [`Player::index`].
    pub names: [Option<String>; 2],
    /// Private: not listed; joining needs the invite code.
    pub private: bool,
    /// The hash of a private game's invite code.
    pub invite: Option<TokenHash>,
    /// The pending offer, if any.
    pub offer: Option<Offer>,
    /// The current round's clock; `None` without one.
    pub clock: Option<GameClock>,
    /// When this record was read or written: clocks are shown as of then.
    pub as_of: DateTime<Utc>,
    /// The seats' players, whether the game is rated, the last rating change.
    pub players: player::Players,
    /// The game this one is a rematch of.
    pub rematch_of: Option<Uuid>,
    /// This game's rematch, once one was made (at most one).
    pub rematch: Option<Uuid>,
    /// Whether hints, analyses and bot moves may reach a round in
    /// progress, and how many each seat asked for in this round.
    pub assistance: Assistance,
    /// Since when the side to move has been to move (a round in progress
    /// with both seats taken): what a claim counts from.
    pub turn: Option<Turn>,
    /// How long the side to move of a round between two people without a
    /// clock may stay away before the other may claim (`--claim-after`).
    pub claim_after_ms: i64,
    /// The tournament this game is a board of, and its round.
    pub tournament: Option<(Uuid, u32)>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// How long the side to move may be away before a claim, by default
/// (`--claim-after`), in milliseconds.
pub const DEFAULT_CLAIM_AFTER_MS: i64 = 5 * 60 * 1000;

/// Help from the service's bots in a round in progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Assistance {
    /// Set at create (`"assistance": "forbidden"`); rated games are always
    /// forbidden (see [`GameRecord::assistance_forbidden`]).
    pub forbidden: bool,
    /// Hints, analyses and bot moves asked for in this round, by seat.
    pub used: [u32; 2],
}

/// A turn of the side to move: the round and ply it began at, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    pub round: u32,
    pub ply: u32,
    pub since: DateTime<Utc>,
}

impl GameRecord {
    /// A game of `setup` at version 1, made now, with two open human seats
    /// and the nil id: a start for tests, which set what they need.
    #[must_use]
    pub fn blank(setup: Setup) -> GameRecord {
        let now = Utc::now();
        GameRecord {
            id: Uuid::nil(),
            position: AnyGame::new(setup),
            seats: [Seat::Human { token: None }; 2],
            hotseat: false,
            round: 1,
            ending: None,
            version: 1,
            derived: false,
            created_at: now,
            updated_at: now,
            names: [None, None],
            private: false,
            invite: None,
            offer: None,
            clock: None,
            as_of: now,
            players: player::Players::default(),
            rematch_of: None,
            rematch: None,
            assistance: Assistance::default(),
            turn: None,
            claim_after_ms: DEFAULT_CLAIM_AFTER_MS,
            tournament: None,
        }
    }

    #[must_use]
    pub fn kind(&self) -> GameKind {
        self.position.kind()
    }

    #[must_use]
    pub fn seat(&self, player: Player) -> &Seat {
        &self.seats[player.index()]
    }

    /// Whether a human seat is still free.
    #[must_use]
    pub fn has_open_seat(&self) -> bool {
        self.seats.iter().any(Seat::is_open)
    }

    /// Whether the round is over (line, full board, resignation, timeout
    /// or agreement).
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.ending.is_some() || self.position.is_over()
    }

    /// The terms under which quick match may seat a stranger in this game
    /// (see [`match_key`]): its kind and options, if it is a public game
    /// between two people, without a clock, from the empty board of its
    /// first round. `None` for every other game, which quick match never
    /// joins. (Whether a seat is open is the game's status, not its terms.)
    #[must_use]
    pub fn match_key(&self) -> Option<String> {
        let fresh = self.round == 1 && self.position.ply() == 0;
        (self.between_two_people() && !self.private && fresh).then(|| {
            match_key(
                self.position.setup(),
                self.clock.map(|c| c.control),
                self.players.rated,
            )
        })
    }

    /// Whether two people play each other: both seats human (taken or
    /// not), not a hotseat game.
    #[must_use]
    pub fn between_two_people(&self) -> bool {
        !self.hotseat && self.seats.iter().all(|s| matches!(s, Seat::Human { .. }))
    }

    /// The side whose clock or first-move deadline runs: the side to move,
    /// while the round has a clock, both seats are taken and it is not over.
    #[must_use]
    pub fn clock_running(&self) -> Option<Player> {
        (self.clock.is_some() && !self.is_over() && !self.has_open_seat())
            .then(|| self.position.to_move())
    }

    /// Whether the side to move has yet to make its first move of the round
    /// in a game with a clock where neither seat is the service's bot: its
    /// own time does not run, a first-move deadline does.
    #[must_use]
    pub fn first_move_pending(&self) -> bool {
        self.clock.is_some()
            && self.position.ply() < 2
            && !self.seats.iter().any(|s| matches!(s, Seat::Bot { .. }))
    }

    /// The side whose own time runs (not during its first move: see
    /// [`GameRecord::first_move_pending`]).
    #[must_use]
    pub fn time_running(&self) -> Option<Player> {
        self.clock_running()
            .filter(|_| !self.first_move_pending())
            .filter(|_| self.clock.is_some_and(|c| c.since.is_some()))
    }

    /// When the side to move's first-move deadline passes, while one runs.
    #[must_use]
    pub fn first_move_deadline(&self) -> Option<DateTime<Utc>> {
        self.clock_running()?;
        if !self.first_move_pending() {
            return None;
        }
        let clock = self.clock?;
        clock
            .since
            .map(|s| s + chrono::TimeDelta::milliseconds(clock.first_move_ms))
    }

    /// When the running side's time (or first-move deadline) runs out, if
    /// one runs.
    #[must_use]
    pub fn deadline(&self) -> Option<DateTime<Utc>> {
        let side = self.clock_running()?;
        if self.first_move_pending() {
            return self.first_move_deadline();
        }
        self.clock.and_then(|c| c.deadline(side))
    }

    /// Starts or stops the clock after a change made at `now`: it runs
    /// from `now` for the side to move if it should run, and is stopped
    /// otherwise. A side's time is charged by [`GameRecord::charge_move`].
    ///
    /// A bot's clock is not started here: it runs only while the bot
    /// searches (the service sets `since` to the search's start when it
    /// records the reply), so a bot never loses on time while its reply
    /// waits for a free search slot on a busy server.
    pub fn sync_clock(&mut self, now: DateTime<Utc>) {
        let running = self
            .clock_running()
            .is_some_and(|side| !matches!(self.seat(side), Seat::Bot { .. }));
        if let Some(clock) = &mut self.clock {
            clock.since = match clock.since {
                Some(since) if running => Some(since),
                None if running => Some(now),
                _ => None,
            };
        }
    }

    /// Charges `side` for the time its move, made at `now`, took, and adds
    /// its increment (Fischer); a first move (`first`: made while
    /// [`GameRecord::first_move_pending`]) costs nothing. The clock stops;
    /// [`GameRecord::sync_clock`] starts it for the other side.
    pub fn charge_move(&mut self, side: Player, first: bool, now: DateTime<Utc>) {
        if let Some(clock) = &mut self.clock
            && let Some(since) = clock.since.take()
            && let TimeControl::Fischer { increment_ms, .. } = clock.control
            && !first
        {
            let left = &mut clock.remaining_ms[side.index()];
            *left = (*left - (now - since).num_milliseconds()).max(0) + increment_ms;
        }
    }

    /// Resets the clock for a new round (stopped, each side's initial time).
    pub fn reset_clock(&mut self) {
        if let Some(clock) = &mut self.clock {
            *clock = GameClock::new(clock.control, clock.first_move_ms);
        }
    }

    /// Ends the round if the running side's time is out at `now` (by
    /// timeout; aborted when it was a first-move deadline that passed);
    /// true if it did. A read shows the ending so, and a write records it.
    /// The state so derived is another state than the stored one: it is
    /// shown one version past it ([`GameRecord::derived`]), the version the
    /// timeout sweeper records it with, so `If-Match` with the stored
    /// version's `ETag` no longer matches and a cache revalidates.
    pub fn settle(&mut self, now: DateTime<Utc>) -> bool {
        self.as_of = now;
        let Some(side) = self.clock_running() else {
            return false;
        };
        if self.deadline().is_none_or(|d| now < d) {
            return false;
        }
        let first = self.first_move_pending();
        let Some(clock) = &mut self.clock else {
            return false;
        };
        clock.since = None;
        if first {
            self.ending = Some(Ending::NoFirstMove(side));
        } else {
            clock.remaining_ms[side.index()] = 0;
            self.ending = Some(Ending::Timeout(side));
        }
        self.offer = None;
        if !self.derived {
            self.version += 1;
            self.derived = true;
        }
        true
    }

    /// Notes when the side to move's turn began, after a change at `now`:
    /// kept while the round and ply are those of the turn, set to `now`
    /// when they changed (a move, a takeback, a new round, a join), and
    /// cleared while the round is not in progress with both seats taken.
    pub fn mark_turn(&mut self, now: DateTime<Utc>) {
        let (round, ply) = (self.round, self.position.ply());
        self.turn = if self.is_over() || self.has_open_seat() {
            None
        } else {
            match self.turn {
                Some(t) if t.round == round && t.ply == ply => Some(t),
                _ => Some(Turn {
                    round,
                    ply,
                    since: now,
                }),
            }
        };
    }

    /// When the seat not to move may claim the round: a round in progress
    /// between two people without a clock, `claim_after_ms` after the side
    /// to move's turn began; `None` for every other round.
    #[must_use]
    pub fn claimable_at(&self) -> Option<DateTime<Utc>> {
        if !self.between_two_people()
            || self.clock.is_some()
            || self.is_over()
            || self.has_open_seat()
        {
            return None;
        }
        // A game last written before turns were kept: its last change.
        let since = self.turn.map_or(self.updated_at, |t| t.since);
        Some(since + chrono::TimeDelta::milliseconds(self.claim_after_ms))
    }

    /// `by` claims the round at `now`: won, or drawn. The round ends
    /// (`abandoned`; `aborted` before each side has moved).
    ///
    /// # Errors
    /// When no claim is open to `by` now: when one will be (`None` if none
    /// will, as with a clock, or for the side to move).
    pub fn claim(
        &mut self,
        by: Player,
        result: ClaimResult,
        now: DateTime<Utc>,
    ) -> Result<(), Option<DateTime<Utc>>> {
        let at = self.claimable_at();
        if self.position.to_move() == by {
            return Err(None);
        }
        match at {
            Some(at) if now >= at => {
                self.ending = Some(Ending::Claimed {
                    by,
                    draw: result == ClaimResult::Draw,
                });
                self.offer = None;
                Ok(())
            }
            other => Err(other),
        }
    }

    /// Whether hints, analyses and bot moves are refused while the round is
    /// in progress: rated games, and games created so.
    #[must_use]
    pub fn assistance_forbidden(&self) -> bool {
        self.assistance.forbidden || self.players.rated
    }

    /// The version in the store (one less than `version` while a derived
    /// timeout is shown).
    #[must_use]
    pub fn stored_version(&self) -> i64 {
        self.version - i64::from(self.derived)
    }

    /// The status, winner and end reason of the current round.
    #[must_use]
    pub fn outcome(&self) -> (GameStatus, Option<Player>, Option<EndReason>) {
        if self.aborted() {
            return (GameStatus::Draw, None, Some(EndReason::Aborted));
        }
        match self.ending {
            Some(Ending::Resignation(loser)) => {
                return (
                    GameStatus::Won,
                    Some(loser.other()),
                    Some(EndReason::Resignation),
                );
            }
            Some(Ending::Timeout(loser)) => {
                return (
                    GameStatus::Won,
                    Some(loser.other()),
                    Some(EndReason::Timeout),
                );
            }
            Some(Ending::Agreement) => {
                return (GameStatus::Draw, None, Some(EndReason::Agreement));
            }
            Some(Ending::Claimed { by, draw: false }) => {
                return (GameStatus::Won, Some(by), Some(EndReason::Abandoned));
            }
            Some(Ending::Claimed { draw: true, .. }) => {
                return (GameStatus::Draw, None, Some(EndReason::Abandoned));
            }
            // A tournament game: the absent side loses by forfeit.
            Some(Ending::NoFirstMove(loser)) if self.tournament.is_some() => {
                return (
                    GameStatus::Won,
                    Some(loser.other()),
                    Some(EndReason::Forfeit),
                );
            }
            // Aborted: answered above.
            Some(Ending::NoFirstMove(_)) | None => {}
        }
        match self.position.status() {
            Status::Won { winner, .. } => (GameStatus::Won, Some(winner), Some(EndReason::Line)),
            Status::Draw => (GameStatus::Draw, None, Some(EndReason::FullBoard)),
            Status::InProgress { .. } if self.has_open_seat() => (GameStatus::Waiting, None, None),
            Status::InProgress { .. } => (GameStatus::InProgress, None, None),
        }
    }

    /// Whether the round counts for nothing: a side missed its first-move
    /// deadline, or it ended before each side had made a move by a claim or
    /// (rated rounds) by resignation, time or agreement.
    #[must_use]
    pub fn aborted(&self) -> bool {
        // A tournament game always counts: a missed first move is a forfeit.
        if self.tournament.is_some() {
            return false;
        }
        let early = self.position.ply() < 2;
        match self.ending {
            Some(Ending::NoFirstMove(_)) => true,
            Some(Ending::Claimed { .. }) => early,
            Some(_) => self.players.rated && early,
            None => false,
        }
    }

    /// The seat whose token matches, if any. In a hotseat game the token
    /// matches both seats; the side to move is returned.
    #[must_use]
    pub fn seat_of(&self, token: &TokenHash) -> Option<Player> {
        let matches =
            |p: Player| matches!(self.seat(p), Seat::Human { token: Some(t) } if t == token);
        let to_move = self.position.to_move();
        let order = [to_move, to_move.other()];
        order
            .into_iter()
            .find(|&p| matches(p))
            .or_else(|| self.players.seat_of(token, order))
    }

    /// X's score in the round, once it is over: 1 a win, 0.5 a draw, 0 a loss.
    #[must_use]
    pub fn x_score(&self) -> Option<f64> {
        match self.outcome() {
            (_, _, Some(EndReason::Aborted | EndReason::Forfeit)) => None,
            (GameStatus::Won, Some(Player::X), _) => Some(1.0),
            (GameStatus::Won, Some(Player::O), _) => Some(0.0),
            (GameStatus::Draw, _, _) => Some(0.5),
            _ => None,
        }
    }
}

/// What a rated game's match key starts with: rated and unrated games are
/// never paired by quick match.
pub const RATED_KEY_PREFIX: &str = "rated/";

/// The terms of a game as one string, the same for every game of those
/// terms: its kind and options (`tic_tac_toe`, `connect_four`,
/// `ultimate_tic_tac_toe`, `gomoku/15/freestyle`: size, rule), its clock if
/// any (`/clock/300000+2000`, `/clock/per-move/86400000`), and
/// [`RATED_KEY_PREFIX`] first when rated. Quick match pairs players by it.
///
/// # Examples
/// ```
/// use tabula::domain::{TimeControl, match_key};
/// use tabula::rules::{GomokuOptions, GomokuRule, Setup};
///
/// assert_eq!(match_key(Setup::ConnectFour, None, false), "connect_four");
/// let options = GomokuOptions::new(9, GomokuRule::Standard).unwrap();
/// assert_eq!(match_key(Setup::Gomoku(options), None, false), "gomoku/9/standard");
/// let blitz = TimeControl::Fischer { initial_ms: 180_000, increment_ms: 2000 };
/// assert_eq!(
///     match_key(Setup::ConnectFour, Some(blitz), true),
///     "rated/connect_four/clock/180000+2000"
/// );
/// ```
#[must_use]
pub fn match_key(setup: Setup, clock: Option<TimeControl>, rated: bool) -> String {
    let terms = match setup {
        Setup::Gomoku(o) => format!("gomoku/{}/{}", o.size(), o.rule().as_str()),
        other => other.kind().as_str().to_owned(),
    };
    let mut key = match clock {
        Some(TimeControl::Fischer {
            initial_ms,
            increment_ms,
        }) => format!("{terms}/clock/{initial_ms}+{increment_ms}"),
        Some(TimeControl::PerMove { per_move_ms }) => {
            format!("{terms}/clock/per-move/{per_move_ms}")
        }
        None => terms,
    };
    if rated {
        key.insert_str(0, RATED_KEY_PREFIX);
    }
    key
}

/// One played move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    pub round: u32,
    /// 1 for the first move of a round.
    pub ply: u32,
    /// The game's version after this move.
    pub version: i64,
    pub player: Player,
    pub mv: MoveInput,
    pub at: DateTime<Utc>,
}

/// What a change that is not a move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    Create,
    /// The seat taken.
    Join(Player),
    Restart,
    /// The seat that resigned.
    Resign(Player),
    /// An offer made, by the seat.
    Offer(OfferKind, Player),
    /// The offer declined, by the seat that declined it.
    OfferDeclined(OfferKind, Player),
    /// The offer withdrawn, by the seat that made it.
    OfferWithdrawn(OfferKind, Player),
    /// Moves taken back: the round's line now has this many moves.
    Takeback(u32),
    /// A draw agreed.
    Draw,
    /// The seat whose time ran out.
    Timeout(Player),
    /// The game was deleted: its last change, at a version of its own.
    Deleted(DeleteReason),
    /// A rematch of the game was made: the new game's id.
    Rematch(Uuid),
    /// The seat that claimed the round (won, or drawn when `true`).
    Claim(Player, bool),
    /// The seat that asked for a hint, an analysis or a bot move in a round
    /// in progress (the game's `assistance_used` counts it).
    Assistance(Player),
}

/// What a change did: a move played, or one of the other changes (the
/// history stores them apart: moves, and events). The one definition of a
/// change's kind: the service replays and streams these, the API renders
/// them (`api/events.rs`), the store records them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    Move(MoveRecord),
    Event(EventType),
}

/// Why a game was deleted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeleteReason {
    /// A seat of the game deleted it (`DELETE /v1/games/{id}`).
    BySeat,
    /// The expiry sweeper deleted it: waiting, finished or idle for too long
    /// (see `service::Expiry`).
    Expired,
}

/// A change that is not a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventRecord {
    pub version: i64,
    pub event: EventType,
    /// The round after the change.
    pub round: u32,
    pub at: DateTime<Utc>,
}

/// The filter of a game listing.
#[derive(Clone, Debug, Default)]
pub struct ListFilter {
    pub kind: Option<GameKind>,
    pub status: Option<GameStatus>,
    pub open: Option<bool>,
    /// Only games older than this cursor.
    pub before: Option<i64>,
    pub limit: u32,
}

/// What an idempotent request asked, hashed: the SHA-256 of its operation
/// (one per method and route), its body in canonical form (as parsed, so
/// that the same body spelled otherwise is the same request) and its token's
/// hash. The record of an `Idempotency-Key` holds it, so that the key reused
/// for another request is told apart from a retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestHash([u8; 32]);

impl RequestHash {
    /// The hash of `operation` with canonical `body`, sent with `token`.
    #[must_use]
    pub fn of(operation: &str, body: &str, token: &TokenHash) -> RequestHash {
        let mut hash = Sha256::new();
        for part in [operation.as_bytes(), body.as_bytes()] {
            hash.update(part.len().to_le_bytes());
            hash.update(part);
        }
        hash.update(token.as_bytes());
        RequestHash(hash.finalize().into())
    }

    /// As stored: lower-case hex.
    #[must_use]
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// A stored hash back from its hex; `None` unless it is 32 bytes of hex.
    #[must_use]
    pub fn from_hex(s: &str) -> Option<RequestHash> {
        hex::decode(s).ok()?.try_into().ok().map(RequestHash)
    }
}

/// The record of an `Idempotency-Key`: the request it was first sent with
/// (`None` for records stored before requests were hashed, which answer any
/// retry) and the answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdempotentRecord {
    pub request: Option<RequestHash>,
    pub response: StoredResponse,
}

impl IdempotentRecord {
    /// Whether `request` is a retry of the recorded one.
    #[must_use]
    pub fn answers(&self, request: &RequestHash) -> bool {
        self.request.is_none_or(|r| r == *request)
    }
}

/// A stored answer to an idempotent request: its status, its JSON body, and
/// the version of the game the body carries (its `ETag`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredResponse {
    pub status: u16,
    pub body: String,
    pub version: i64,
}

#[cfg(test)]
mod tests;
