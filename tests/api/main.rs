//! Black-box API tests: each test spawns the app on port 0 with a fresh
//! SQLite file and speaks HTTP to it.

mod concurrency;
mod errors;
mod events;
mod games;
mod helpers;
mod moves;
mod openapi;
mod persistence;
mod scale;
mod system;
