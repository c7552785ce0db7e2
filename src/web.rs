//! The browser side of the service: CORS for pages on other origins, the
//! play page served at `/play`, and the headers of the API page at `/docs/`.

pub mod cors;
pub mod docs;
pub mod play;

pub use cors::CorsOrigins;
