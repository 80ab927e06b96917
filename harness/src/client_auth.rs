//! The credential the harness's own MCP client shows a gateway that lets in
//! only clients it knows (`--client-auth`), as hosted gateways do.
//!
//! It is not the stored credential the gateway puts on upstream requests:
//! the harness makes one afresh for each run, hands it to the gateway in
//! [`CLIENT_CREDENTIAL_ENV`] (the adapter passes it to the gateway's own
//! option), sends it on every HTTP request to the MCP endpoint, and writes
//! `[client credential]` wherever a report would show it.
//!
//! The scenarios tagged [`TAG`] judge what a gateway does with that
//! credential: it never reaches the API ([`RULE`]), and a request without
//! it, or with a wrong one, is refused with HTTP 401 (TC-PROTO-010). A run
//! without `--client-auth` has no credential to show, so they are not run
//! ([`not_run_reason`]). Other scenarios that find the credential upstream
//! leave it to [`RULE`]: it begins with `AGENT-`, as the agent's own values
//! in the request rules' scenarios do, so those scenarios see it too.
//!
//! With `--client-auth oauth` the credential is an access token of the
//! harness's own authorization server ([`Issuer`]), shown as a bearer
//! token: each gateway launched gets one of its own, minted for the
//! resource it names, and the scenarios tagged [`OAUTH_TAG`] judge its
//! MCP authorization.

use std::sync::Arc;

use anyhow::bail;

use crate::issuer::Issuer;

/// The variable that carries the client credential to the gateway.
pub const CLIENT_CREDENTIAL_ENV: &str = "HOSTED_MCP_CLIENT_CREDENTIAL";

/// What a report shows in place of the client credential.
pub const SHOWN_AS: &str = "[client credential]";

/// The tag of the scenarios that need a client credential to show.
pub const TAG: &str = "client-auth";

/// The tag of the scenarios of MCP authorization, which need the run's
/// authorization server (`--client-auth oauth`).
pub const OAUTH_TAG: &str = "oauth";

/// The rule that the client credential never reaches the API: another
/// rule's scenario that finds it there leaves the verdict to this one.
pub const RULE: &str = "TC-REQ-021";

/// Why a scenario tagged [`TAG`] is not run in a run without
/// `--client-auth`; `http` says whether the run has an HTTP gateway at all.
pub fn not_run_reason(http: bool) -> String {
    let why = if http {
        "no credential of the gateway's own clients can be shown"
    } else {
        "and a stdio gateway's client is the process that started it, which shows no credential"
    };
    let joint = if http { ", so" } else { "," };
    format!(
        "the run has no --client-auth{joint} {why}; give --client-auth bearer, header:NAME \
         or oauth with an HTTP --gateway that checks its clients"
    )
}

/// Why a scenario tagged [`OAUTH_TAG`] is not run in a run without
/// `--client-auth oauth`.
pub fn oauth_not_run_reason() -> String {
    "the run has no --client-auth oauth, so the gateway was given no authorization server to \
     trust and no token can be judged; give --client-auth oauth with an HTTP --gateway whose \
     command takes {issuer} or {jwks_uri}"
        .to_owned()
}

/// What a hand-driven request shows the gateway of the client credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// The run's credential, where `--client-auth` puts it.
    Credential,
    /// No credential at all.
    Nothing,
    /// A credential the gateway was never given, in the same place.
    Wrong,
}

impl Shown {
    /// How a report names it.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Credential => "the client credential",
            Self::Nothing => "no client credential",
            Self::Wrong => "a wrong client credential",
        }
    }
}

/// How the harness's client presents its credential to the gateway.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientAuth {
    /// The header that carries it.
    header: String,
    /// What goes before the credential in that header (`Bearer `).
    prefix: &'static str,
    credential: String,
    /// Under `--client-auth oauth`, the authorization server whose token
    /// the credential is (empty until a gateway's token is minted).
    issuer: Option<IssuerRef>,
}

/// The authorization server of a [`ClientAuth`], told apart by its URL.
#[derive(Debug, Clone)]
struct IssuerRef(Arc<Issuer>);

impl PartialEq for IssuerRef {
    fn eq(&self, other: &Self) -> bool {
        self.0.url() == other.0.url()
    }
}

impl Eq for IssuerRef {}

/// The `--client-auth` value that asks for MCP authorization.
pub const OAUTH: &str = "oauth";

impl ClientAuth {
    /// Reads `bearer` (`Authorization: Bearer …`) or `header:NAME`, with a
    /// credential new to this run. `oauth` is [`Self::oauth`]'s, which
    /// needs an authorization server running first.
    pub fn parse(place: &str) -> anyhow::Result<Self> {
        let (header, prefix) = match place.split_once(':') {
            None if place.eq_ignore_ascii_case("bearer") => ("Authorization".to_owned(), "Bearer "),
            Some((kind, name)) if kind.eq_ignore_ascii_case("header") && is_token(name) => {
                (name.to_owned(), "")
            }
            _ => bail!(
                "--client-auth takes `bearer`, `header:NAME` (a header name) or `oauth`, not `{place}`"
            ),
        };
        Ok(Self {
            header,
            prefix,
            credential: fresh_credential(),
            issuer: None,
        })
    }

    /// Access tokens of `issuer`, as bearer tokens: each gateway's own,
    /// minted once it is up ([`Self::with_token`]).
    pub fn oauth(issuer: Arc<Issuer>) -> Self {
        Self {
            header: "Authorization".to_owned(),
            prefix: "Bearer ",
            credential: String::new(),
            issuer: Some(IssuerRef(issuer)),
        }
    }

    /// The authorization server whose tokens the client shows, under
    /// `--client-auth oauth`.
    pub fn issuer(&self) -> Option<&Arc<Issuer>> {
        self.issuer.as_ref().map(|issuer| &issuer.0)
    }

    /// The same, showing `token` of `issuer`.
    pub fn with_token(issuer: Arc<Issuer>, token: String) -> Self {
        Self {
            credential: token,
            ..Self::oauth(issuer)
        }
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

    /// `headers` as a request showing `shown` sends them: behind the
    /// credential (see [`Self::with`]), behind a wrong one in its place, or
    /// with nothing in its place (an agent's header of that name left out
    /// too, so the request shows no credential at all).
    pub fn showing(&self, shown: Shown, headers: &[(String, String)]) -> Vec<(String, String)> {
        match shown {
            Shown::Credential => self.with(headers),
            Shown::Wrong => Self {
                credential: fresh_credential(),
                ..self.clone()
            }
            .with(headers),
            Shown::Nothing => headers
                .iter()
                .filter(|(name, _)| !name.eq_ignore_ascii_case(&self.header))
                .cloned()
                .collect(),
        }
    }

    /// An OpenAPI security scheme, as JSON (which YAML reads too), that puts
    /// the API's credential in the header the client shows its own in.
    pub fn scheme_in_its_place(&self) -> String {
        if self.prefix.is_empty() {
            format!(
                r#"{{"type": "apiKey", "in": "header", "name": "{}"}}"#,
                self.header
            )
        } else {
            BEARER_SCHEME.to_owned()
        }
    }

    /// An OpenAPI security scheme, as JSON, that puts the API's credential
    /// in another header than the client's: a bearer token beside a client's
    /// key header, `X-Api-Key` beside a client's `Authorization`.
    pub fn scheme_elsewhere(&self) -> String {
        if self.header.eq_ignore_ascii_case("Authorization") {
            r#"{"type": "apiKey", "in": "header", "name": "X-Api-Key"}"#.to_owned()
        } else {
            BEARER_SCHEME.to_owned()
        }
    }

    /// Whether `text` holds the credential, in any case.
    pub fn is_in(&self, text: &str) -> bool {
        find_ignoring_case(text, &self.credential).is_some()
    }

    /// `text` with each writing of the credential, in any case, as
    /// [`SHOWN_AS`], so a step's own message gives it away nowhere (a
    /// run's reports are masked as a whole too, but `--verbose` prints
    /// steps as they fail).
    pub fn masked(&self, text: &str) -> String {
        self.replaced(text, SHOWN_AS)
    }

    /// `text` without the credential's writings (in any case), to see what
    /// else it holds.
    pub fn removed_from(&self, text: &str) -> String {
        self.replaced(text, "")
    }

    fn replaced(&self, text: &str, by: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = find_ignoring_case(rest, &self.credential) {
            out.push_str(&rest[..at]);
            out.push_str(by);
            rest = &rest[at + self.credential.len()..];
        }
        out.push_str(rest);
        out
    }
}

/// An HTTP bearer scheme, as JSON.
const BEARER_SCHEME: &str = r#"{"type": "http", "scheme": "bearer"}"#;

/// Where `needle` (ASCII, as the credential is) starts in `text`, whatever
/// the case of its letters.
fn find_ignoring_case(text: &str, needle: &str) -> Option<usize> {
    let (text, needle) = (text.as_bytes(), needle.as_bytes());
    if needle.is_empty() || text.len() < needle.len() {
        return None;
    }
    (0..=text.len() - needle.len())
        .find(|&at| text[at..at + needle.len()].eq_ignore_ascii_case(needle))
}

/// Whether `name` can be an HTTP header name (RFC 9110's token).
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// A credential no earlier run used.
fn fresh_credential() -> String {
    format!("AGENT-CLIENT-{}", crate::random::fresh_hex())
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
        for wrong in ["", "basic", "header:", "header:X Key", "query:key", "oauth"] {
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

    #[test]
    fn shows_nothing_or_a_wrong_credential_in_its_place() {
        let key = ClientAuth::parse("header:X-Agent-Key").unwrap();
        let agent = [("x-agent-key".to_owned(), "AGENT-OWN".to_owned())];
        assert!(key.showing(Shown::Nothing, &agent).is_empty());
        let wrong = key.showing(Shown::Wrong, &[]);
        assert_eq!(wrong.len(), 1);
        assert_eq!(wrong[0].0, "X-Agent-Key");
        assert!(wrong[0].1.starts_with("AGENT-CLIENT-"));
        assert!(!key.is_in(&wrong[0].1));
        assert_eq!(key.showing(Shown::Credential, &[]), [key.header()]);
    }

    #[test]
    fn finds_and_masks_the_credential_in_any_case() {
        let bearer = ClientAuth::parse("bearer").unwrap();
        let lower = bearer.credential().to_lowercase();
        let text = format!(
            "authorization: bearer {lower}\r\nx: {}",
            bearer.credential()
        );
        assert!(bearer.is_in(&text));
        assert_eq!(
            bearer.masked(&text),
            format!("authorization: bearer {SHOWN_AS}\r\nx: {SHOWN_AS}")
        );
        assert_eq!(bearer.removed_from(&text), "authorization: bearer \r\nx: ");
        assert!(!bearer.is_in("AGENT-CLIENT-"));
    }

    #[test]
    fn schemes_put_the_api_s_credential_in_the_client_s_place_or_elsewhere() {
        let bearer = ClientAuth::parse("bearer").unwrap();
        assert_eq!(bearer.scheme_in_its_place(), BEARER_SCHEME);
        assert!(bearer.scheme_elsewhere().contains("X-Api-Key"));
        let key = ClientAuth::parse("header:X-Agent-Key").unwrap();
        assert!(key
            .scheme_in_its_place()
            .contains(r#""name": "X-Agent-Key""#));
        assert_eq!(key.scheme_elsewhere(), BEARER_SCHEME);
        let raw = ClientAuth::parse("header:Authorization").unwrap();
        assert!(raw.scheme_elsewhere().contains("X-Api-Key"));
    }

    #[test]
    fn says_why_its_scenarios_are_not_run() {
        assert!(not_run_reason(true).starts_with("the run has no --client-auth, so no credential"));
        assert!(not_run_reason(false)
            .contains("a stdio gateway's client is the process that started it"));
    }
}
