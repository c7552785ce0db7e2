//! Tabula: a REST/JSON game-state service for k-in-a-row games.
//!
//! # Dependencies
//! They point one way, and nothing points back up:
//!
//! ```text
//! startup ──► web ──► api ──► service ──► ai ──► rules
//!    │         │       │         ├──────► store ──► domain ──► rules, ai::Level, pairing
//!    │         │       │         └──────► rules, domain, clock, telemetry
//!    └─────────┴───────┴──► config ──► service's defaults, telemetry's LogFormat
//! ```
//!
//! `rules` and `ai` are crates of their own (`crates/rules`, `crates/bots`,
//! re-exported here under those names), and so is `pairing`
//! (`crates/pairing`, named `tabula_pairing`, which depends on nothing of
//! ours): `rules` depends on nothing of the
//! service and does no I/O; `ai` depends on `rules` only; neither has tokio,
//! sqlx or actix in its dependency tree, which their manifests keep so.
//! `api` reaches the store only through `service` (the value types it renders
//! come from `domain`, `rules` and `service`); `store` knows nothing of `ai`
//! but its levels. `config` reads the flags; it takes the defaults the
//! service owns from the service and the log format from `telemetry`, and
//! `startup` turns its `Settings` into what each layer takes, so that no
//! layer below names `config` (`api` and `web` take two of its values, the
//! trusted proxies and the allowed origins). `telemetry` and `clock` name
//! no other module. `tests/layers.rs` holds all of this, and that every
//! module is named in the map below.
//!
//! # Module map
//! - `rules`: the four games as pure values (`docs/rules.md` is their
//!   reference): `any_game` (the closed set and wire-level moves),
//!   `tic_tac_toe`, `connect_four`, `gomoku`, `ultimate`, `lines3` (the 3x3
//!   line masks the two tic-tac-toes share) and `notation` (a line of moves
//!   as one string, per kind).
//! - `domain`: the records the service works with: a game and its seats,
//!   token hashes, moves, changes (`EventType`, the one definition of what a
//!   change that is not a move did), list filters, stored idempotent
//!   answers, `player` (players, their seats' bindings, rated rounds'
//!   changes), `rating` (Glicko-2, pure arithmetic), `webhook` (which
//!   events a write makes), `challenge` (one player's challenge to
//!   another) and `tournament` (a tournament, its entrants and
//!   boards; its next step, pairings, standings and TRF, through the
//!   `tabula-pairing` crate).
//! - `ai`: bots, hints and analyses (`analysis`: every legal move
//!   evaluated): `limits` (work and time budgets), `random`,
//!   `easy`, the strategies `alpha_beta` and `mcts`, and one file per game
//!   (`tic_tac_toe`, `connect_four`, `gomoku` with its `board`, the
//!   threat searches `vcf` and `vct` and the main search `engine` over the
//!   line `shapes` that `lines` keeps, `ultimate`).
//! - `store`: persistence behind one seam, one module per kind of record,
//!   each with its SQL for both backends: `games` (whose columns one list
//!   defines), `moves` (the history), `idempotency`, `players`, `webhooks`
//!   and `outbox` (events recorded with their change), `matches` (quick
//!   match's choice), `tournaments` (one row each, and their changes),
//!   `challenges` (one row each, each player's own events, webhook bots'
//!   move URLs); `db` (the backends and the write transaction; `sqlite`
//!   opens and locks the file, `hosts` reads a PostgreSQL host list and
//!   follows a failover) and `writer` (SQLite's single writer,
//!   batching jobs into group commits).
//! - `service`: the use cases, where rules, ai and store meet: `writes`
//!   (create, join, play, restart, rematch, claim, resign, delete), `history` (reads,
//!   listings, history, positions, event replay), `bots` (hints, analyses,
//!   bot moves, bot replies), `notation` (a round as text, a new game's
//!   set-up line), `offers` (offers, the timeout sweeper), `matches` (quick
//!   match), `expiry` (the sweeper that deletes games left waiting,
//!   finished or idle too long), `players` (keys, JWT sign-in, seats bound
//!   to players, rated rounds rated in the write that ends them),
//!   `webhooks` (endpoints, the deliverer), `webhook_bots` (bots the
//!   service asks for their moves at their URL), `challenges` (challenges
//!   made, answered, cancelled; a player's event stream and the events a
//!   game's start and end tell its players), `tournaments` (create, enter,
//!   start; the sweeper that pairs rounds; a game's end recorded in the
//!   write that ends it) and `rules` (rules as a service: positions,
//!   batches and analyses of lines, nothing stored).
//! - `api`: HTTP: `games`, `moves`, `bots`, `kinds`, `matches`, `offers`,
//!   `players`, `rules`, `tournaments`, `challenges`, `webhooks` (one file per OpenAPI tag), `events`
//!   (Server-Sent Events), `system` (health, readiness, metrics), `extract`
//!   (body parsing and the typed path, token and precondition extractors),
//!   `headers` (headers sent twice, `If-None-Match`), `reply` (shared
//!   success answers), `wire` (the JSON types by subject), `error`
//!   (problem+json), `responses` (the answers of the OpenAPI document,
//!   error sets declared once) and `examples` (for the OpenAPI document),
//!   `rate_limit`, `rules_limits` (what the rules routes may take of the
//!   machine), `client_ip` (the client behind trusted proxies).
//! - `web`: the browser side: `cors` (`--cors-origins`), `docs` (the
//!   headers of the Swagger UI at `/docs/`) and `play` (the page at `/play`, its
//!   assets embedded from `web/dist`).
//! - `clock`: where "now" comes from (a manual clock in tests).
//! - `config`: the settings, as flags and environment variables; `access`
//!   (who may reach the service: trusted proxies, allowed origins).
//! - `telemetry`: logging (its format) and request metrics.
//! - `startup`: builds the app from the settings, binds, serves, stops
//!   gracefully.

/// Bots and hints over the rules: the `tabula-bots` crate.
pub use tabula_bots as ai;
/// HTTP handlers, wire types, errors as problem+json, the OpenAPI document.
pub mod api;
/// The time source: the system clock, or a manual one in tests.
pub mod clock;
/// One typed settings struct, from flags and environment.
pub mod config;
/// The records the service works with: games, seats, moves, changes, levels.
pub mod domain;
/// Pure game logic, the four games: the `tabula-rules` crate.
pub use tabula_rules as rules;
/// The use cases: where rules, ai and store meet; transactions and versions.
pub mod service;
/// Builds the actix app, binds, serves, stops gracefully.
pub mod startup;
/// Persistence: games, moves, changes and idempotent answers on SQLite or PostgreSQL.
pub mod store;
/// Logging setup and request metrics.
pub mod telemetry;
/// The browser side: CORS, and the play page at `/play`.
pub mod web;

pub use config::Settings;
pub use startup::Application;
