//! The browser side of the service: CORS for pages on other origins, and
//! the play page served at `/play`.

pub mod cors;
pub mod play;

pub use cors::CorsOrigins;
