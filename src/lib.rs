//! Tabula: a REST/JSON game-state service for k-in-a-row games.
//!
//! Dependencies point one way: `api → service → {rules, ai, store}`,
//! `ai → rules`, `store → rules` (conversions only).

/// Bots and hints over the rules: levels, seeded strategies, time budgets.
pub mod ai;
/// HTTP handlers, wire types, errors as problem+json, the OpenAPI document.
pub mod api;
/// One typed settings struct, from flags and environment.
pub mod config;
/// The records the service works with: games, seats, moves, changes, levels.
pub mod domain;
/// Pure game logic: the four games and the types they share.
pub mod rules;
/// The use cases: where rules, ai and store meet; transactions and versions.
pub mod service;
/// Builds the actix app, binds, serves, stops gracefully.
pub mod startup;
/// Persistence: games, moves, tokens and idempotency records on SQLite.
pub mod store;
/// Logging setup and request metrics.
pub mod telemetry;

pub use config::Settings;
pub use startup::Application;
