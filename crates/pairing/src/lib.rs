//! Tournament pairing as pure values: no I/O, no clock, no async. The
//! service pairs its tournaments with it, and `tabula-pair` (in the tools)
//! pairs tournaments run elsewhere.
//!
//! - `trf`: FIDE's Tournament Report File (TRF16), the part pairing reads:
//!   the rounds, who had white in round 1, and per player its starting
//!   number, rating, points and the rounds played.
//! - `dutch`: the FIDE Dutch system (C.04.3, 2025) for the next round of a
//!   Swiss, as bbpPairings pairs it.
//! - `berger`: round robin on FIDE's Berger tables (Handbook C.05, Annex 1),
//!   single and double.
//! - `arena`: an arena's pairing pass over the entrants free now.
//! - `standings`: points, tie-breaks and the order of a table (swiss and
//!   round robin from a TRF tournament), and an arena's points with streaks.

pub mod arena;
pub mod berger;
pub mod dutch;
pub mod standings;
pub mod trf;
mod weight;
