//! Where the gateway may speak plain `http://` to a party it trusts with
//! secrets or for keys: an authorization server (whose keys decide who gets
//! in) and an API's token endpoint (which receives the stored client
//! secret). Over plain HTTP anyone on the path could read the secret or
//! swap the keys, so only a loopback host is spoken to that way (a sidecar,
//! a test), unless the operator says otherwise for a network they trust.

use thiserror::Error;

/// Whether plain HTTP is taken off loopback.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Cleartext {
    /// `https://` anywhere, `http://` to a loopback host only.
    #[default]
    LoopbackOnly,
    /// `http://` to any host as well: the operator's choice.
    Allowed,
}

/// Why a URL is not spoken to. Never holds the URL: it may be a value of
/// the configuration, which messages do not repeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum UrlRefused {
    #[error("is not an absolute URL")]
    NotAUrl,
    #[error("is neither https:// nor http://")]
    NotHttp,
    #[error("is plain http:// to a host that is not loopback, where anyone on the way can read or change what passes")]
    CleartextOffLoopback,
}

impl Cleartext {
    /// Whether `url` may be spoken to.
    pub fn check(self, url: &str) -> Result<(), UrlRefused> {
        let parsed = url::Url::parse(url).map_err(|_| UrlRefused::NotAUrl)?;
        match parsed.scheme() {
            "https" => Ok(()),
            "http" if self == Cleartext::Allowed || is_loopback(&parsed) => Ok(()),
            "http" => Err(UrlRefused::CleartextOffLoopback),
            _ => Err(UrlRefused::NotHttp),
        }
    }
}

fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => {
            name.eq_ignore_ascii_case("localhost")
                || name.to_ascii_lowercase().ends_with(".localhost")
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_anywhere_and_http_to_loopback_only() {
        let rule = Cleartext::LoopbackOnly;
        for taken in [
            "https://auth.example.com",
            "http://127.0.0.1:8080/realms/x",
            "http://127.9.9.9",
            "http://[::1]:9000",
            "http://localhost:3000",
            "http://keys.localhost",
        ] {
            assert_eq!(rule.check(taken), Ok(()), "{taken}");
        }
        assert_eq!(
            rule.check("http://auth.example.com"),
            Err(UrlRefused::CleartextOffLoopback)
        );
        assert_eq!(
            rule.check("http://10.0.0.1"),
            Err(UrlRefused::CleartextOffLoopback)
        );
        assert_eq!(
            rule.check("http://localhost.example.com"),
            Err(UrlRefused::CleartextOffLoopback)
        );
        assert_eq!(rule.check("ftp://auth"), Err(UrlRefused::NotHttp));
        assert_eq!(rule.check("auth.example.com"), Err(UrlRefused::NotAUrl));
        assert_eq!(Cleartext::Allowed.check("http://auth.example.com"), Ok(()));
    }
}
