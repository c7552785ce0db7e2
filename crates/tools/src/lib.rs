//! Programs around the service, as this crate's examples (see its manifest
//! and `docs/benchmarks.md` for how each is run). The library is empty.
