//! The settings that say who may reach the service from where: the reverse
//! proxies whose `X-Forwarded-For` is believed (`--trusted-proxies`) and the
//! origins whose pages may call the API (`--cors-origins`). Values and their
//! parsing only: the HTTP layers use them (`api/client_ip.rs`,
//! `web/cors.rs`), so the settings depend on nothing above them.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use ip_network::IpNetwork;

/// The reverse proxies whose `X-Forwarded-For` is believed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNetwork>);

impl FromStr for TrustedProxies {
    type Err = String;

    /// A comma-separated list of addresses (`10.0.0.5`, `::1`) and networks
    /// (`10.0.0.0/8`); empty for none.
    fn from_str(list: &str) -> Result<TrustedProxies, String> {
        list.split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| {
                // A network's host bits are dropped (`10.0.0.5/8` is `10.0.0.0/8`).
                IpNetwork::from_str_truncate(item)
                    .or_else(|_| item.parse::<IpAddr>().map(IpNetwork::from))
                    .map_err(|_| {
                        format!(
                            "`{item}` is neither an IP address nor a network such as 10.0.0.0/8"
                        )
                    })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(TrustedProxies)
    }
}

impl TrustedProxies {
    /// Whether `ip` is one of the trusted proxies.
    #[must_use]
    pub fn contains(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(ip))
    }
}

/// The origins allowed to call the API from a browser.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CorsOrigins {
    /// None: browsers on other origins are refused (no CORS headers at all).
    #[default]
    None,
    /// Any origin (`*`). Tokens travel in `Authorization`, never in cookies,
    /// so `Access-Control-Allow-Origin: *` gives a page nothing it could not
    /// do with `curl`.
    Any,
    /// These origins, each `scheme://host[:port]` as browsers send it.
    Some(Vec<String>),
}

impl CorsOrigins {
    /// Whether any origin is allowed.
    #[must_use]
    pub fn enabled(&self) -> bool {
        !matches!(self, CorsOrigins::None)
    }
}

impl FromStr for CorsOrigins {
    type Err = String;

    /// A comma-separated list of origins, `*` for any, empty for none.
    fn from_str(list: &str) -> Result<CorsOrigins, String> {
        let items: Vec<&str> = list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        match items.as_slice() {
            [] => Ok(CorsOrigins::None),
            ["*"] => Ok(CorsOrigins::Any),
            _ if items.contains(&"*") => {
                Err("`*` allows every origin: give it alone, not in a list".into())
            }
            _ => items
                .iter()
                .copied()
                .map(parse_origin)
                .collect::<Result<Vec<_>, _>>()
                .map(CorsOrigins::Some),
        }
    }
}

/// An origin as a browser sends it in `Origin`: `http://localhost:5173`,
/// lower case, no path, no trailing slash.
fn parse_origin(item: &str) -> Result<String, String> {
    let rest = item
        .strip_prefix("http://")
        .or_else(|| item.strip_prefix("https://"))
        .ok_or_else(|| format!("origin {item:?} must start with http:// or https://"))?;
    let valid = !rest.is_empty()
        && rest
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b));
    if !valid {
        return Err(format!(
            "origin {item:?} must be scheme://host[:port], without a path or a trailing slash \
             (as browsers send it, e.g. http://localhost:5173)"
        ));
    }
    Ok(item.to_ascii_lowercase())
}

impl fmt::Display for CorsOrigins {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CorsOrigins::None => Ok(()),
            CorsOrigins::Any => f.write_str("*"),
            CorsOrigins::Some(origins) => f.write_str(&origins.join(",")),
        }
    }
}
