//! The pairing crate's tests: FIDE's Berger tables, and every committed
//! Swiss case (`../shared/data/swiss/`) read as TRF16 and written back.

#![allow(
    clippy::unwrap_used,
    reason = "tests may unwrap: the panic is the failure message"
)]

mod arena;
mod berger;
mod dutch;
mod standings;
mod swiss;
mod trf;
