//! The credential the harness's own MCP client shows a gateway that lets in
//! only clients it knows (`--client-auth`), as hosted gateways do.
//!
//! It is not the stored credential the gateway puts on upstream requests:
//! the harness makes one afresh for each run, hands it to the gateway in
//! [`CLIENT_CREDENTIAL_ENV`] (the adapter passes it to the gateway's own
//! option), sends it on every HTTP request to the MCP endpoint, and writes
//! `[client credential]` wherever a report would show it. It begins with
//! `AGENT-`, as the agent's own values in the request rules' scenarios do,
//! so a scenario that looks for the agent's headers upstream (TC-REQ-009)
//! also sees a gateway that forwards its clients' credential.

use std::hash::{BuildHasher as _, RandomState};

use anyhow::bail;

/// The variable that carries the client credential to the gateway.
pub const CLIENT_CREDENTIAL_ENV: &str = "HOSTED_MCP_CLIENT_CREDENTIAL";

/// What a report shows in place of the client credential.
pub const SHOWN_AS: &str = "[client credential]";

/// How the harness's client presents its credential to the gateway.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientAuth {
    /// The header that carries it.
    header: String,
    /// What goes before the credential in that header (`Bearer `).
    prefix: &'static str,
    credential: String,
}

impl ClientAuth {
    /// Reads `bearer` (`Authorization: Bearer …`) or `header:NAME`, with a
    /// credential new to this run.
    pub fn parse(place: &str) -> anyhow::Result<Self> {
        let (header, prefix) = match place.split_once(':') {
            None if place.eq_ignore_ascii_case("bearer") => ("Authorization".to_owned(), "Bearer "),
            Some((kind, name)) if kind.eq_ignore_ascii_case("header") && is_token(name) => {
                (name.to_owned(), "")
            }
            _ => bail!(
                "--client-auth takes `bearer` or `header:NAME` (a header name), not `{place}`"
            ),
        };
        Ok(Self {
            header,
            prefix,
            credential: fresh_credential(),
        })
    }

    /// The credential itself, for the gateway's environment and for masking.
    pub fn credential(&self) -> &str {
        &self.credential
    }

    /// The header the client sends on every request to the MCP endpoint.
    pub fn header(&self) -> (String, String) {
        (
            self.header.clone(),
            format!("{}{}", self.prefix, self.credential),
        )
    }

    /// `headers` a scenario sends as the agent's own, with the client's
    /// credential in front. A header of the same name as the credential's
    /// gives way to it: a gateway that checks its clients would refuse the
    /// agent's own value, and the credential, which begins with `AGENT-`,
    /// is then what must not reach the upstream.
    pub fn with(&self, headers: &[(String, String)]) -> Vec<(String, String)> {
        std::iter::once(self.header())
            .chain(
                headers
                    .iter()
                    .filter(|(name, _)| !name.eq_ignore_ascii_case(&self.header))
                    .cloned(),
            )
            .collect()
    }
}

/// Whether `name` can be an HTTP header name (RFC 9110's token).
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// A credential no earlier run used: 128 bits from the standard library's
/// per-process random hash keys, with the time and process mixed in.
fn fresh_credential() -> String {
    let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
    let half = || RandomState::new().hash_one(&seed);
    format!("AGENT-CLIENT-{:016x}{:016x}", half(), half())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_where_the_credential_goes_and_makes_a_new_one_each_time() {
        let bearer = ClientAuth::parse("bearer").unwrap();
        let (name, value) = bearer.header();
        assert_eq!(name, "Authorization");
        assert_eq!(value, format!("Bearer {}", bearer.credential()));
        assert!(bearer.credential().starts_with("AGENT-CLIENT-"));
        assert_ne!(
            bearer.credential(),
            ClientAuth::parse("bearer").unwrap().credential()
        );
        let key = ClientAuth::parse("header:X-Api-Key").unwrap();
        assert_eq!(
            key.header(),
            ("X-Api-Key".to_owned(), key.credential().to_owned())
        );
        for wrong in ["", "basic", "header:", "header:X Key", "query:key"] {
            assert!(ClientAuth::parse(wrong).is_err(), "{wrong:?}");
        }
    }

    #[test]
    fn the_agents_header_of_the_same_name_gives_way() {
        let bearer = ClientAuth::parse("bearer").unwrap();
        let agent = [
            ("authorization".to_owned(), "Bearer AGENT-TOKEN".to_owned()),
            ("X-Note".to_owned(), "AGENT-NOTE".to_owned()),
        ];
        assert_eq!(
            bearer.with(&agent),
            [
                bearer.header(),
                ("X-Note".to_owned(), "AGENT-NOTE".to_owned())
            ]
        );
    }
}
