//! Webhook events: what a change of a game tells a team's backend (see
//! docs/guide.md "Webhooks"). Pure: which events one write of a game makes, from
//! the game before and after it; the store records them with the write.

use super::GameRecord;

/// An event a webhook endpoint may subscribe to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WebhookEvent {
    GameCreated,
    GameJoined,
    MovePlayed,
    GameEnded,
    GameDeleted,
    /// A tournament started (its entrants ranked).
    TournamentStarted,
    /// A swiss or round robin round was paired.
    TournamentRoundStarted,
    /// A tournament ended (or was cancelled).
    TournamentFinished,
}

impl WebhookEvent {
    /// Every event, in the order a write that makes several records them.
    pub const ALL: [WebhookEvent; 8] = [
        WebhookEvent::GameCreated,
        WebhookEvent::GameJoined,
        WebhookEvent::MovePlayed,
        WebhookEvent::GameEnded,
        WebhookEvent::GameDeleted,
        WebhookEvent::TournamentStarted,
        WebhookEvent::TournamentRoundStarted,
        WebhookEvent::TournamentFinished,
    ];

    /// Its name on the wire (`move.played`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            WebhookEvent::GameCreated => "game.created",
            WebhookEvent::GameJoined => "game.joined",
            WebhookEvent::MovePlayed => "move.played",
            WebhookEvent::GameEnded => "game.ended",
            WebhookEvent::GameDeleted => "game.deleted",
            WebhookEvent::TournamentStarted => "tournament.started",
            WebhookEvent::TournamentRoundStarted => "tournament.round_started",
            WebhookEvent::TournamentFinished => "tournament.finished",
        }
    }

    /// The event named `name`, if there is one.
    #[must_use]
    pub fn parse(name: &str) -> Option<WebhookEvent> {
        WebhookEvent::ALL.into_iter().find(|e| e.as_str() == name)
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of events (an endpoint's filter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventSet(u8);

impl EventSet {
    /// The set of `events`.
    pub fn of(events: impl IntoIterator<Item = WebhookEvent>) -> EventSet {
        EventSet(events.into_iter().fold(0, |set, e| set | e.bit()))
    }

    #[must_use]
    pub fn contains(self, event: WebhookEvent) -> bool {
        self.0 & event.bit() != 0
    }

    #[must_use]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The union of two sets.
    #[must_use]
    pub fn with(self, other: EventSet) -> EventSet {
        EventSet(self.0 | other.0)
    }

    /// The events, in [`WebhookEvent::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = WebhookEvent> {
        WebhookEvent::ALL
            .into_iter()
            .filter(move |e| self.contains(*e))
    }
}

/// What one write of a game made, besides its moves (`move.played`, one per
/// move the write recorded, which the store knows): the game's creation,
/// a seat taken, the round's end, the game's deletion. `before` is the game
/// as stored before the write (none for a creation), `after` as written.
#[must_use]
pub fn happened(before: Option<&GameRecord>, after: &GameRecord, deleted: bool) -> EventSet {
    let mut events = Vec::new();
    match before {
        None => events.push(WebhookEvent::GameCreated),
        Some(before) => {
            let open = |g: &GameRecord| g.seats.iter().filter(|s| s.is_open()).count();
            if open(after) < open(before) {
                events.push(WebhookEvent::GameJoined);
            }
            // A round that ends: the same round, over now and not before (a
            // restart begins another round, which is not an ending).
            if before.round == after.round && !before.is_over() && after.is_over() {
                events.push(WebhookEvent::GameEnded);
            }
        }
    }
    if before.is_none() && after.is_over() {
        events.push(WebhookEvent::GameEnded);
    }
    if deleted {
        events.push(WebhookEvent::GameDeleted);
    }
    EventSet::of(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sets_keep_their_order() {
        for e in WebhookEvent::ALL {
            assert_eq!(WebhookEvent::parse(e.as_str()), Some(e));
        }
        assert_eq!(WebhookEvent::parse("game.started"), None);
        let set = EventSet::of([WebhookEvent::GameEnded, WebhookEvent::GameCreated]);
        assert_eq!(
            set.iter().collect::<Vec<_>>(),
            [WebhookEvent::GameCreated, WebhookEvent::GameEnded]
        );
        assert!(!set.contains(WebhookEvent::MovePlayed));
        assert!(EventSet::default().is_empty());
    }
}
