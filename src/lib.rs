//! Tabula: a REST/JSON game-state service for k-in-a-row games.

/// Pure game logic: the four games and the types they share.
pub mod rules;
