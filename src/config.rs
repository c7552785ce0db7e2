//! One typed settings struct: every setting is a flag and an environment
//! variable, with a default that runs out of the box.

use std::time::Duration;

use clap::Parser;

use crate::service::{self, Expiry, WebhookSettings};

mod access;
pub use access::{CorsOrigins, TrustedProxies};

/// `--trusted-proxies`, for clap.
fn parse_proxies(list: &str) -> Result<TrustedProxies, String> {
    list.parse()
}

/// `--cors-origins`, for clap.
fn parse_origins(list: &str) -> Result<CorsOrigins, String> {
    list.parse()
}

/// `--expire-*`, for clap.
fn parse_expiry(age: &str) -> Result<ExpireAfter, String> {
    age.parse()
}

/// `--webhook-retry`: the waits between a webhook delivery's attempts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RetrySchedule(pub Vec<Duration>);

/// As the flag takes it: `5s,30s,2m`.
impl std::fmt::Display for RetrySchedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let waits: Vec<String> = self
            .0
            .iter()
            .map(|wait| humantime::format_duration(*wait).to_string())
            .collect();
        f.write_str(&waits.join(","))
    }
}

/// A retry schedule: comma-separated durations (`5s,30s,2m`); empty: no
/// retry.
///
/// # Errors
/// A part that is not a duration.
pub fn parse_schedule(list: &str) -> Result<Vec<Duration>, String> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            humantime::parse_duration(s)
                .map_err(|e| format!("`{s}` is not a duration ({e}): use e.g. 5s,30s,2m"))
        })
        .collect()
}

/// `--webhook-retry`, for clap.
fn parse_retry(list: &str) -> Result<RetrySchedule, String> {
    parse_schedule(list).map(RetrySchedule)
}

/// A wait of at least a second: a duration (`90s`, `2m`) or seconds.
fn parse_wait(wait: &str) -> Result<Duration, String> {
    let wait = wait.trim();
    let parsed = match wait.parse::<u64>() {
        Ok(seconds) => Duration::from_secs(seconds),
        Err(_) => humantime::parse_duration(wait).map_err(|e| {
            format!("`{wait}` is not a duration ({e}): use e.g. 30s, 2m or seconds")
        })?,
    };
    if parsed < Duration::from_secs(1) {
        return Err(format!("`{wait}` is shorter than a second"));
    }
    Ok(parsed)
}

/// A pause that may be none: a duration (`10s`, `1m`) or seconds, `0` too.
fn parse_pause(pause: &str) -> Result<Duration, String> {
    match pause.trim() {
        "0" => Ok(Duration::ZERO),
        other => parse_wait(other),
    }
}

/// How long a game may stand in some state before it expires (is deleted);
/// or never (`0`).
///
/// Written as a duration, `90s`, `15m`, `24h`, `30d` (units may be combined,
/// `1h 30m`; see the `humantime` crate for every unit), or a plain number of
/// seconds.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use tabula::config::ExpireAfter;
///
/// let day: ExpireAfter = "24h".parse().unwrap();
/// assert_eq!(day.age(), Some(Duration::from_secs(86_400)));
/// assert_eq!("86400".parse::<ExpireAfter>(), Ok(day));
/// assert_eq!("0".parse::<ExpireAfter>().unwrap().age(), None);
/// assert!("soon".parse::<ExpireAfter>().is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExpireAfter(Option<Duration>);

impl ExpireAfter {
    /// Never expire.
    pub const OFF: ExpireAfter = ExpireAfter(None);

    /// Expire after `age` (`None` for a zero age: never).
    #[must_use]
    pub fn after(age: Duration) -> ExpireAfter {
        ExpireAfter((!age.is_zero()).then_some(age))
    }

    /// The age, or `None` when turned off.
    #[must_use]
    pub fn age(self) -> Option<Duration> {
        self.0
    }
}

impl std::str::FromStr for ExpireAfter {
    type Err = String;

    fn from_str(s: &str) -> Result<ExpireAfter, String> {
        let s = s.trim();
        if let Ok(seconds) = s.parse::<u64>() {
            return Ok(ExpireAfter::after(Duration::from_secs(seconds)));
        }
        humantime::parse_duration(s)
            .map(ExpireAfter::after)
            .map_err(|e| {
                format!("`{s}` is not a duration ({e}): use e.g. 90s, 15m, 24h, 30d, a number of seconds, or 0 for never")
            })
    }
}

/// The default of every setting that the service does not own, shared by
/// the flags and [`Settings::defaults`] (the service's own are its
/// constants: the retry schedule, the match window, the analysis work...).
mod default {
    use super::LogFormat;

    pub const LOG_FORMAT: LogFormat = LogFormat::Text;
    pub const ADDR: &str = "127.0.0.1:8080";
    pub const DATABASE_URL: &str = "sqlite://tabula.db";
    pub const LOG: &str = "info";
    pub const BODY_LIMIT: usize = 4096;
    pub const BOT_BUDGET_MS: u64 = 300;
    pub const BOT_THREADS: usize = 0;
    pub const WORKERS: usize = 0;
    pub const READ_POOL: u32 = 4;
    pub const RATE_LIMIT: u32 = 0;
    pub const RATE_BURST: u32 = 0;
    pub const SSE_HEARTBEAT_SECS: u64 = 15;
    pub const SHUTDOWN_TIMEOUT: u64 = 10;
    pub const BODY_TIMEOUT_SECS: u64 = 10;
    pub const MAX_STREAMS: usize = 0;
    pub const MAX_STREAMS_PER_CLIENT: usize = 64;
    pub const TRUSTED_PROXIES: &str = "";
    pub const CORS_ORIGINS: &str = "";
    pub const EXPIRE_WAITING: &str = "24h";
    pub const EXPIRE_FINISHED: &str = "30d";
    pub const EXPIRE_IDLE: &str = "0";
    pub const MATCH_WAIT: &str = "60s";
    /// `crate::domain::DEFAULT_FIRST_MOVE_MS`, as a flag's default.
    pub const FIRST_MOVE_WINDOW: &str = "30s";
    /// `crate::domain::DEFAULT_CLAIM_AFTER_MS`, as a flag's default.
    pub const CLAIM_AFTER: &str = "5m";
    /// `crate::service::DEFAULT_ROUND_PAUSE`, as a flag's default.
    pub const ROUND_PAUSE: &str = "10s";
    /// `crate::service::DEFAULT_CHALLENGE_EXPIRY`, as a flag's default.
    pub const CHALLENGE_EXPIRY: &str = "2m";
    pub const RULES_RATE: u32 = 250_000;
    /// Not a flag: how often the expiry sweeper looks for expired games.
    pub const EXPIRE_SWEEP: std::time::Duration = std::time::Duration::from_secs(5);
}

pub use crate::telemetry::LogFormat;

/// The service's settings.
#[derive(Clone, Debug, PartialEq, Eq, Parser)]
#[command(
    name = "tabula",
    version,
    about = "Tabula: a REST/JSON game-state service for tic-tac-toe, Connect Four, Gomoku and Ultimate tic-tac-toe"
)]
pub struct Settings {
    /// Address and port to listen on (use 0.0.0.0:8080 inside containers; port 0 picks a free port).
    #[arg(long, env = "TABULA_ADDR", default_value = default::ADDR)]
    pub addr: String,

    /// Database URL. An SQLite file is created and migrated if missing. PostgreSQL on several
    /// machines: a host list and `target_session_attrs=read-write`
    /// (postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write) follows a failover.
    #[arg(long, env = "DATABASE_URL", default_value = default::DATABASE_URL)]
    pub database_url: String,

    /// Log filter, e.g. `info`, `debug`, `tabula=debug,sqlx=warn` (`RUST_LOG` is read too when this is unset).
    #[arg(long = "log", env = "TABULA_LOG", default_value = default::LOG)]
    pub log: String,

    /// Log line format.
    #[arg(long, env = "TABULA_LOG_FORMAT", value_enum, default_value_t = default::LOG_FORMAT)]
    pub log_format: LogFormat,

    /// Largest accepted request body, in bytes; larger bodies get 413 `payload_too_large`.
    #[arg(long, env = "TABULA_BODY_LIMIT", default_value_t = default::BODY_LIMIT)]
    pub body_limit: usize,

    /// Time a bot may think for one move, in milliseconds (hard levels use all of it).
    #[arg(long, env = "TABULA_BOT_BUDGET_MS", default_value_t = default::BOT_BUDGET_MS)]
    pub bot_budget_ms: u64,

    /// Bot searches that may run at once (0: one per CPU core); more wait their turn.
    #[arg(long, env = "TABULA_BOT_THREADS", default_value_t = default::BOT_THREADS)]
    pub bot_threads: usize,

    /// HTTP worker threads (0: one per CPU core).
    #[arg(long, env = "TABULA_WORKERS", default_value_t = default::WORKERS)]
    pub workers: usize,

    /// Connections in the read pool (writes go through one connection).
    #[arg(long, env = "TABULA_READ_POOL", default_value_t = default::READ_POOL)]
    pub read_pool: u32,

    /// Requests per second allowed per client IP (0: no limit). Over it: 429 `rate_limited`.
    #[arg(long, env = "TABULA_RATE_LIMIT", default_value_t = default::RATE_LIMIT)]
    pub rate_limit: u32,

    /// Burst size of the per-client limit (0: the same as --rate-limit).
    #[arg(long, env = "TABULA_RATE_BURST", default_value_t = default::RATE_BURST)]
    pub rate_burst: u32,

    /// Seconds between keep-alive comments on idle event streams.
    #[arg(long, env = "TABULA_SSE_HEARTBEAT_SECS", default_value_t = default::SSE_HEARTBEAT_SECS)]
    pub sse_heartbeat_secs: u64,

    /// Seconds to let in-flight requests finish after SIGTERM/SIGINT.
    #[arg(long, env = "TABULA_SHUTDOWN_TIMEOUT", default_value_t = default::SHUTDOWN_TIMEOUT)]
    pub shutdown_timeout: u64,

    /// Seconds a client has to send a request's body once its headers are in; past it: 408 `request_timeout`.
    #[arg(long, env = "TABULA_BODY_TIMEOUT_SECS", default_value_t = default::BODY_TIMEOUT_SECS)]
    pub body_timeout_secs: u64,

    /// Event streams open at once (0: from the open-file limit, keeping a reserve for the database and other requests); past it: 503 `busy`.
    #[arg(long, env = "TABULA_MAX_STREAMS", default_value_t = default::MAX_STREAMS)]
    pub max_streams: usize,

    /// Event streams one client (address; behind trusted proxies the one they name) may hold at once (0: no limit); past it: 503 `busy`.
    #[arg(long, env = "TABULA_MAX_STREAMS_PER_CLIENT", default_value_t = default::MAX_STREAMS_PER_CLIENT)]
    pub max_streams_per_client: usize,

    /// Reverse proxies whose `X-Forwarded-For` names the client, comma-separated addresses or networks (e.g. `10.0.0.0/8,::1`); empty: trust none.
    #[arg(long, env = "TABULA_TRUSTED_PROXIES", default_value = default::TRUSTED_PROXIES, value_parser = parse_proxies)]
    pub trusted_proxies: TrustedProxies,

    /// Origins whose pages may call the API from a browser, comma-separated (e.g. `http://localhost:5173`), `*` for any; empty: none (no CORS headers).
    #[arg(long, env = "TABULA_CORS_ORIGINS", default_value = default::CORS_ORIGINS, value_parser = parse_origins)]
    pub cors_origins: CorsOrigins,

    /// Delete games still waiting for an opponent (a human seat open) after this long without a change: a duration (`90s`, `15m`, `24h`, `30d`) or seconds; 0: never.
    #[arg(long, env = "TABULA_EXPIRE_WAITING", default_value = default::EXPIRE_WAITING, value_parser = parse_expiry)]
    pub expire_waiting: ExpireAfter,

    /// Delete finished games (the round won or drawn) after this long without a change: a duration or seconds; 0: never.
    #[arg(long, env = "TABULA_EXPIRE_FINISHED", default_value = default::EXPIRE_FINISHED, value_parser = parse_expiry)]
    pub expire_finished: ExpireAfter,

    /// Delete games in progress (both seats taken, the round not over) after this long without a change: a duration or seconds; 0: never.
    #[arg(long, env = "TABULA_EXPIRE_IDLE", default_value = default::EXPIRE_IDLE, value_parser = parse_expiry)]
    pub expire_idle: ExpireAfter,

    /// How long a game waits for quick match to find it an opponent: games waiting longer without a change are passed over (their people have likely gone). A duration (`30s`, `2m`) or seconds.
    #[arg(long, env = "TABULA_MATCH_WAIT", default_value = default::MATCH_WAIT, value_parser = parse_wait)]
    pub match_wait: Duration,

    /// Between people with a Fischer clock, neither side's clock runs before its first move of a round: each side has this long for it (per-move clocks: one move's time), or the round ends `aborted`. A duration (`30s`, `2m`) or seconds.
    #[arg(long, env = "TABULA_FIRST_MOVE_WINDOW", default_value = default::FIRST_MOVE_WINDOW, value_parser = parse_wait)]
    pub first_move_window: Duration,

    /// Between two people without a clock, how long the side to move may be away before the other seat may claim the round (`POST /v1/games/{id}/claim`). A duration (`5m`, `1h`) or seconds.
    #[arg(long, env = "TABULA_CLAIM_AFTER", default_value = default::CLAIM_AFTER, value_parser = parse_wait)]
    pub claim_after: Duration,

    /// How long a swiss or round robin rests between rounds: the next round is paired this long after the last game of the one before ended. A duration (`10s`, `1m`) or seconds; 0: at once. Tournaments take the value they were created with.
    #[arg(long, env = "TABULA_ROUND_PAUSE", default_value = default::ROUND_PAUSE, value_parser = parse_pause)]
    pub round_pause: Duration,

    /// How long a challenge waits for its answer before it expires: a duration (`2m`, `90s`) or seconds.
    #[arg(long, env = "TABULA_CHALLENGE_EXPIRY", default_value = default::CHALLENGE_EXPIRY, value_parser = parse_wait)]
    pub challenge_expiry: Duration,

    /// The most work `GET /v1/rules/{kind}/analysis` may ask for (`work`: alpha-beta nodes, or playouts in ultimate tic-tac-toe); more: 422 `invalid_option`.
    #[arg(long, env = "TABULA_MAX_ANALYSIS_WORK", default_value_t = service::rules::DEFAULT_MAX_ANALYSIS_WORK)]
    pub max_analysis_work: u64,

    /// Cells of positions one client may have built a second by the rules routes (`GET` and `POST /v1/rules/{kind}/positions`: lines × the board's cells), with bursts of two full batches (0: no bound); past it: 429 `rate_limited`.
    #[arg(long, env = "TABULA_RULES_RATE", default_value_t = default::RULES_RATE)]
    pub rules_rate: u32,

    /// The operators' key: `Authorization: Bearer <key>` on `/v1/webhooks`. Unset: those paths answer 404.
    #[arg(long, env = "TABULA_ADMIN_KEY", hide_env_values = true)]
    pub admin_key: Option<String>,

    /// Waits between a webhook delivery's attempts, comma-separated durations; after the last, the delivery is marked failed.
    #[arg(long, env = "TABULA_WEBHOOK_RETRY", default_value_t = RetrySchedule(service::DEFAULT_RETRY.to_vec()), value_parser = parse_retry)]
    pub webhook_retry: RetrySchedule,

    /// Deliver webhooks to loopback, private and link-local addresses too (refused by default).
    #[arg(long, env = "TABULA_WEBHOOK_ALLOW_PRIVATE")]
    pub webhook_allow_private: bool,

    /// Disable a webhook endpoint whose every delivery has failed for this long (`24h`, `30m`, or seconds); `PATCH /v1/webhooks/{id}` turns it on again.
    #[arg(long, env = "TABULA_WEBHOOK_DISABLE_AFTER", default_value = "24h", value_parser = parse_wait)]
    pub webhook_disable_after: Duration,

    /// Sign-in by your own accounts: the HS256 secret your JWTs are signed with. A bearer JWT that verifies identifies the player `ext:<sub>`.
    #[arg(
        long,
        env = "TABULA_JWT_SECRET",
        hide_env_values = true,
        conflicts_with = "jwt_public_key"
    )]
    pub jwt_secret: Option<String>,

    /// Sign-in by your own accounts: the public key (PEM, RSA for `RS256` or Ed25519 for `EdDSA`) your JWTs are verified with: the PEM text, or the path of a file holding it.
    #[arg(long, env = "TABULA_JWT_PUBLIC_KEY")]
    pub jwt_public_key: Option<String>,

    /// The `iss` a JWT must carry (unset: not checked).
    #[arg(long, env = "TABULA_JWT_ISSUER")]
    pub jwt_issuer: Option<String>,

    /// The `aud` a JWT must carry (unset: not checked).
    #[arg(long, env = "TABULA_JWT_AUDIENCE")]
    pub jwt_audience: Option<String>,

    /// Rated quick match seats a player with a waiting player at most this many rating points away.
    #[arg(long, env = "TABULA_MATCH_WINDOW", default_value_t = service::DEFAULT_MATCH_WINDOW, value_parser = clap::value_parser!(u32).range(1..))]
    pub match_window: u32,

    /// Players one client address may create an hour (0: no limit); past it: 429 `rate_limited`. A retry with the same `Idempotency-Key` is not counted.
    #[arg(long, env = "TABULA_PLAYER_RATE", default_value_t = service::DEFAULT_PLAYER_RATE)]
    pub player_rate: u32,

    /// How often the expiry sweeper looks for expired games. Not a flag:
    /// tests shorten it (with a manual clock) or lengthen it (to run the
    /// sweeper's steps by hand).
    #[arg(skip = default::EXPIRE_SWEEP)]
    pub expire_sweep: Duration,

    /// Print the OpenAPI document to standard output and exit.
    #[arg(long)]
    pub print_openapi: bool,

    /// Where the service reads the time (game clocks, sweepers). Not a flag:
    /// the system clock, or a manual one that tests move by hand.
    #[arg(skip)]
    pub clock: crate::clock::Clock,
}

/// A default age, parsed as clap parses it (`defaults_match_the_parsed_defaults`
/// fails should a default not parse).
fn default_expiry(age: &str) -> ExpireAfter {
    age.parse().unwrap_or(ExpireAfter::OFF)
}

impl Settings {
    /// Settings with every default, as if no flag or variable were given
    /// (environment variables are ignored): the starting point for tests.
    #[must_use]
    pub fn defaults() -> Settings {
        Settings {
            addr: default::ADDR.into(),
            database_url: default::DATABASE_URL.into(),
            log: default::LOG.into(),
            log_format: default::LOG_FORMAT,
            body_limit: default::BODY_LIMIT,
            bot_budget_ms: default::BOT_BUDGET_MS,
            bot_threads: default::BOT_THREADS,
            workers: default::WORKERS,
            read_pool: default::READ_POOL,
            shutdown_timeout: default::SHUTDOWN_TIMEOUT,
            sse_heartbeat_secs: default::SSE_HEARTBEAT_SECS,
            rate_limit: default::RATE_LIMIT,
            rate_burst: default::RATE_BURST,
            body_timeout_secs: default::BODY_TIMEOUT_SECS,
            max_streams: default::MAX_STREAMS,
            max_streams_per_client: default::MAX_STREAMS_PER_CLIENT,
            trusted_proxies: TrustedProxies::default(),
            cors_origins: CorsOrigins::default(),
            expire_waiting: default_expiry(default::EXPIRE_WAITING),
            expire_finished: default_expiry(default::EXPIRE_FINISHED),
            expire_idle: default_expiry(default::EXPIRE_IDLE),
            match_wait: parse_wait(default::MATCH_WAIT).unwrap_or(Duration::from_mins(1)),
            first_move_window: Duration::from_secs(30),
            claim_after: Duration::from_mins(5),
            round_pause: Duration::from_secs(10),
            challenge_expiry: service::DEFAULT_CHALLENGE_EXPIRY,
            max_analysis_work: service::rules::DEFAULT_MAX_ANALYSIS_WORK,
            rules_rate: default::RULES_RATE,
            admin_key: None,
            webhook_retry: RetrySchedule(service::DEFAULT_RETRY.to_vec()),
            webhook_allow_private: false,
            webhook_disable_after: service::DEFAULT_DISABLE_AFTER,
            jwt_secret: None,
            jwt_public_key: None,
            jwt_issuer: None,
            jwt_audience: None,
            match_window: service::DEFAULT_MATCH_WINDOW,
            player_rate: service::DEFAULT_PLAYER_RATE,
            expire_sweep: default::EXPIRE_SWEEP,
            print_openapi: false,
            clock: crate::clock::Clock::system(),
        }
    }

    /// The ages after which games expire (`--expire-*`), as the service
    /// takes them.
    #[must_use]
    pub fn expiry(&self) -> Expiry {
        Expiry {
            waiting: self.expire_waiting.age(),
            finished: self.expire_finished.age(),
            idle: self.expire_idle.age(),
        }
    }

    /// How webhooks are delivered (`--webhook-*`), as the service takes it.
    #[must_use]
    pub fn webhooks(&self) -> WebhookSettings {
        WebhookSettings {
            retry: self.webhook_retry.0.clone(),
            allow_private: self.webhook_allow_private,
            disable_after: self.webhook_disable_after,
        }
    }

    /// The bot budget as a duration.
    #[must_use]
    pub fn bot_budget(&self) -> Duration {
        Duration::from_millis(self.bot_budget_ms)
    }

    /// How many bot searches may run at once.
    #[must_use]
    pub fn max_searches(&self) -> usize {
        if self.bot_threads > 0 {
            self.bot_threads
        } else {
            std::thread::available_parallelism().map_or(2, std::num::NonZero::get)
        }
    }

    /// The database URL without any password, for logs.
    #[must_use]
    pub fn database_url_redacted(&self) -> String {
        match (self.database_url.find("://"), self.database_url.rfind('@')) {
            (Some(scheme), Some(at)) if at > scheme => {
                format!(
                    "{}://***{}",
                    &self.database_url[..scheme],
                    &self.database_url[at..]
                )
            }
            _ => self.database_url.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_cli_definition_is_consistent() {
        Settings::command().debug_assert();
    }

    #[test]
    fn defaults_match_the_parsed_defaults() {
        use clap::FromArgMatches;
        // The runner's environment must not count: drop every `env` source.
        let command = Settings::command().mut_args(|arg| arg.env(None));
        let matches = command.try_get_matches_from(["tabula"]).expect("parses");
        let parsed = Settings::from_arg_matches(&matches).expect("complete");
        assert_eq!(parsed, Settings::defaults());
    }

    #[test]
    fn a_round_pause_may_be_zero_and_else_is_a_second_or_more() {
        assert_eq!(parse_pause("0"), Ok(Duration::ZERO));
        assert_eq!(parse_pause("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_pause("2"), Ok(Duration::from_secs(2)));
        assert!(parse_pause("500ms").is_err());
        assert!(parse_pause("soon").is_err());
    }

    #[test]
    fn expiry_ages_parse_as_durations_or_seconds_and_zero_is_off() {
        let parse = |s: &str| s.parse::<ExpireAfter>().map(ExpireAfter::age);
        assert_eq!(parse("90s"), Ok(Some(Duration::from_secs(90))));
        assert_eq!(parse("15m"), Ok(Some(Duration::from_mins(15))));
        assert_eq!(parse("24h"), Ok(Some(Duration::from_hours(24))));
        assert_eq!(parse("30d"), Ok(Some(Duration::from_hours(720))));
        assert_eq!(parse("1h 30m"), Ok(Some(Duration::from_mins(90))));
        assert_eq!(parse("1.5h"), Ok(Some(Duration::from_mins(90))));
        assert_eq!(parse("3600"), Ok(Some(Duration::from_hours(1))));
        assert_eq!(parse("0"), Ok(None));
        assert_eq!(parse("0s"), Ok(None));
        for bad in ["", "soon", "-5", "24 parsecs", "h"] {
            assert!(parse(bad).is_err(), "{bad:?} was accepted");
        }
        let defaults = Settings::defaults();
        assert_eq!(
            defaults.expire_waiting.age(),
            Some(Duration::from_hours(24))
        );
        assert_eq!(
            defaults.expire_finished.age(),
            Some(Duration::from_hours(720))
        );
        assert_eq!(defaults.expire_idle.age(), None);
    }

    #[test]
    fn expiry_flags_override_the_defaults() {
        use clap::FromArgMatches;
        let command = Settings::command().mut_args(|arg| arg.env(None));
        let matches = command
            .try_get_matches_from(["tabula", "--expire-waiting", "0", "--expire-idle", "2h"])
            .expect("parses");
        let parsed = Settings::from_arg_matches(&matches).expect("complete");
        assert_eq!(parsed.expire_waiting, ExpireAfter::OFF);
        assert_eq!(parsed.expire_idle.age(), Some(Duration::from_hours(2)));
        let refused = Settings::command()
            .mut_args(|arg| arg.env(None))
            .try_get_matches_from(["tabula", "--expire-finished", "later"]);
        assert!(refused.is_err());
    }

    #[test]
    fn the_defaults_expire_waiting_and_finished_games_but_not_idle_ones() {
        let expiry = Settings::defaults().expiry();
        assert_eq!(expiry.waiting, Some(Duration::from_hours(24)));
        assert_eq!(expiry.finished, Some(Duration::from_hours(720)));
        assert_eq!(expiry.idle, None);
    }

    #[test]
    fn schedules_parse() {
        assert_eq!(
            parse_schedule("5s, 2m").unwrap(),
            [Duration::from_secs(5), Duration::from_mins(2)]
        );
        assert!(parse_schedule("").unwrap().is_empty());
        assert!(parse_schedule("5s,soon").is_err());
    }

    #[test]
    fn the_webhook_defaults_are_the_services() {
        assert_eq!(Settings::defaults().webhooks(), WebhookSettings::default());
        assert_eq!(
            Settings::defaults().webhook_retry.to_string(),
            "5s,30s,2m,10m,1h,6h"
        );
    }

    #[test]
    fn passwords_are_redacted() {
        let mut s = Settings::defaults();
        s.database_url = "postgres://user:secret@db:5432/tabula".into();
        assert_eq!(s.database_url_redacted(), "postgres://***@db:5432/tabula");
    }
}
