# Build stage: compile the binary. PROFILE is `dist` (fat LTO, one codegen
# unit: the image people run) unless the build says otherwise (CI builds
# `release`, which takes a fraction of the time).
FROM rust:1.95-slim-bookworm AS build
ARG PROFILE=dist
WORKDIR /src
# Dependencies first, in a layer of their own: against stub sources, so the
# layer is rebuilt only when Cargo.toml or Cargo.lock change, and a change
# to src/ or crates/ recompiles Tabula alone, not all ~300 crates (a few minutes still
# with `dist`, which optimises every crate with Tabula as one unit).
COPY Cargo.toml Cargo.lock rust-toolchain.toml build.rs ./
COPY crates/rules/Cargo.toml crates/rules/
COPY crates/bots/Cargo.toml crates/bots/
COPY crates/pairing/Cargo.toml crates/pairing/
COPY crates/tools ./crates/tools
RUN mkdir -p src crates/rules/src crates/rules/benches crates/bots/src crates/pairing/src crates/pairing/benches \
    && echo 'fn main() {}' > src/main.rs \
    && touch src/lib.rs crates/rules/src/lib.rs crates/bots/src/lib.rs crates/pairing/src/lib.rs \
    && echo 'fn main() {}' > crates/rules/benches/rules.rs \
    && echo 'fn main() {}' > crates/pairing/benches/pairing.rs \
    && cargo build --profile "$PROFILE" --locked --bin tabula \
    && rm -rf src crates/rules crates/bots crates/pairing \
        target/"$PROFILE"/.fingerprint/tabula-* target/"$PROFILE"/deps/*tabula*
COPY src ./src
# The rules and the bots (the Connect Four opening book, compiled in with
# include_bytes!, is in crates/bots/data).
COPY crates ./crates
COPY migrations ./migrations
COPY web/dist ./web/dist
RUN cargo build --profile "$PROFILE" --locked --bin tabula \
    && cp target/"$PROFILE"/tabula /tabula

# Runtime stage: a small image with the binary only, run as a non-root user.
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data tabula \
    && mkdir -p /data && chown tabula /data
COPY --from=build /tabula /usr/local/bin/tabula
USER tabula
WORKDIR /data
# No VOLUME here: the compose file mounts a named volume at /data where the
# database lives (SQLite), and instances on PostgreSQL need none (a VOLUME
# would leave an anonymous volume behind for each of them).
ENV TABULA_ADDR=0.0.0.0:8080 \
    DATABASE_URL=sqlite:///data/tabula.db \
    TABULA_LOG_FORMAT=json
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD curl -fsS http://127.0.0.1:8080/readyz || exit 1
ENTRYPOINT ["/usr/local/bin/tabula"]
