//! Black-box API tests: each test spawns the app on port 0 with a fresh
//! SQLite file and speaks HTTP to it.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers as well as tests may unwrap: the panic is the failure message"
)]

mod analysis;
mod bots;
mod browser;
mod challenges;
mod clocks;
mod concurrency;
mod errors;
mod errors_requests;
mod events;
mod expiry;
mod fair_play;
mod games;
mod helpers;
mod http;
mod leaderboard;
mod life;
mod limits;
mod matches;
mod moves;
mod notation;
mod offers;
mod openapi;
mod persistence;
mod players;
#[path = "../common/postgres.rs"]
mod postgres;
#[path = "../common/receiver.rs"]
mod receiver;
mod rematch;
mod rules_service;
mod scale;
mod seats;
mod sign_in;
mod system;
mod tournaments;
mod webhook_bots;
mod webhooks;
mod webhooks_disabling;
mod webhooks_retries;
