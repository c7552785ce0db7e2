//! The client's address, as the per-client rate limit keys it: the peer of
//! the connection, unless that peer is a reverse proxy the operator trusts
//! (`--trusted-proxies`), in which case the address the proxies recorded in
//! `X-Forwarded-For`.
//!
//! Only trusted proxies are believed: a client can send any
//! `X-Forwarded-For` it likes, so the list is read from the right (the
//! entries the trusted proxies appended) and the first address that is not
//! itself a trusted proxy is the client. Without trusted proxies the header
//! is ignored.

use std::net::{IpAddr, SocketAddr};

use actix_web::http::header::HeaderMap;

pub use crate::config::TrustedProxies;

impl TrustedProxies {
    /// The client behind a connection from `peer` with these `headers`.
    #[must_use]
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.contains(peer) {
            return peer;
        }
        let mut last_trusted = peer;
        // Several headers count as one list, in order (RFC 9110 5.3).
        let hops: Vec<&str> = headers
            .get_all("x-forwarded-for")
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect();
        for hop in hops.into_iter().rev() {
            match parse_hop(hop) {
                Some(ip) if self.contains(ip) => last_trusted = ip,
                Some(ip) => return ip,
                // Not written by a proxy of ours: nothing left of it is
                // believable.
                None => return last_trusted,
            }
        }
        last_trusted
    }
}

/// One `X-Forwarded-For` entry: an address, possibly with a port
/// (`203.0.113.7:4711`, `[2001:db8::1]:4711`).
fn parse_hop(hop: &str) -> Option<IpAddr> {
    hop.parse::<IpAddr>()
        .ok()
        .or_else(|| hop.parse::<SocketAddr>().ok().map(|s| s.ip()))
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::{HeaderName, HeaderValue};

    use super::*;

    fn forwarded(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for v in values {
            headers.append(
                HeaderName::from_static("x-forwarded-for"),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        headers
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn lists_of_addresses_and_networks_are_read_and_nonsense_is_named() {
        let t: TrustedProxies = " 10.0.0.0/8, 192.168.1.5 ,::1".parse().unwrap();
        assert!(t.contains(ip("10.20.30.40")));
        assert!(t.contains(ip("192.168.1.5")));
        assert!(!t.contains(ip("192.168.1.6")));
        assert!(t.contains(ip("::1")));
        assert_eq!(
            "".parse::<TrustedProxies>().unwrap(),
            TrustedProxies::default()
        );
        let err = "10.0.0.0/8,nginx".parse::<TrustedProxies>().unwrap_err();
        assert!(err.contains("`nginx`"), "{err}");
    }

    #[test]
    fn the_header_is_ignored_unless_the_peer_is_trusted() {
        let t: TrustedProxies = "10.0.0.1".parse().unwrap();
        let h = forwarded(&["203.0.113.7"]);
        assert_eq!(t.client(ip("198.51.100.2"), &h), ip("198.51.100.2"));
        assert_eq!(t.client(ip("10.0.0.1"), &h), ip("203.0.113.7"));
        let none = TrustedProxies::default();
        assert_eq!(none.client(ip("10.0.0.1"), &h), ip("10.0.0.1"));
    }

    #[test]
    fn the_client_is_the_rightmost_address_that_is_not_a_trusted_proxy() {
        let t: TrustedProxies = "10.0.0.0/8".parse().unwrap();
        // The client forged the first entry; the proxies appended the rest.
        let h = forwarded(&["1.2.3.4, 203.0.113.7", "10.0.0.9"]);
        assert_eq!(t.client(ip("10.0.0.1"), &h), ip("203.0.113.7"));
        let ports = forwarded(&["[2001:db8::1]:4711, 203.0.113.8:80"]);
        assert_eq!(t.client(ip("10.0.0.1"), &ports), ip("203.0.113.8"));
        // Only proxies, or garbage behind them: the last proxy is the client.
        assert_eq!(
            t.client(ip("10.0.0.1"), &forwarded(&["10.0.0.7"])),
            ip("10.0.0.7")
        );
        assert_eq!(
            t.client(ip("10.0.0.1"), &forwarded(&["junk, 10.0.0.7"])),
            ip("10.0.0.7")
        );
        assert_eq!(t.client(ip("10.0.0.1"), &HeaderMap::new()), ip("10.0.0.1"));
    }
}

/// The client of a request, as [`TrustedProxies::client`] finds it (`None`
/// when the connection has no peer address, as in some tests): the key of
/// per-client shares (bot searches).
#[derive(Clone, Copy, Debug)]
pub struct ClientAddr(pub Option<IpAddr>);

impl actix_web::FromRequest for ClientAddr {
    type Error = std::convert::Infallible;
    type Future = std::future::Ready<Result<ClientAddr, std::convert::Infallible>>;

    fn from_request(req: &actix_web::HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let proxies = req
            .app_data::<actix_web::web::Data<super::AppState>>()
            .map(|state| &state.proxies);
        let client = req.peer_addr().map(|peer| match proxies {
            Some(proxies) => proxies.client(peer.ip(), req.headers()),
            None => peer.ip(),
        });
        std::future::ready(Ok(ClientAddr(client)))
    }
}
