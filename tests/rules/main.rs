//! Rule-engine tests: enumerations, perft against naive oracles, properties and
//! hand-made edge cases, one module per game.

mod connect_four;
mod gomoku;
mod tic_tac_toe;
mod ultimate;
