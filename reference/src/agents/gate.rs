//! One API's checks of its agents: who the request's credential lets in,
//! how a refusal is said (status, challenge, catalogue message), and the
//! endpoint's protected-resource metadata.

use std::time::Duration;

use hyper::header::{HeaderMap, HeaderName, AUTHORIZATION};
use hyper::StatusCode;

use super::admitted::{Admitted, AgentsSettings, Reach, Refusal, DEFAULT_KEY_REFRESH_INTERVAL};
use super::authority::Authorities;
use super::errors::GateError;
use super::keys::KeyRing;
use super::token::{self, TokenCheck};
use crate::errors::AgentMessage;

/// The URL an endpoint is known by, for tokens' audience and its metadata.
#[derive(Debug, Clone)]
pub struct Resource {
    /// The endpoint's public URL: `https://mcp.example.com/mcp/pets`.
    pub url: String,
    /// Where its protected-resource metadata is served.
    pub metadata_url: String,
}

impl Resource {
    /// The resource of the endpoint at `path` of a gateway reached at
    /// `public_url` (scheme and authority), its metadata at the well-known
    /// URI RFC 9728 derives from it.
    pub fn at(public_url: &str, path: &str) -> Resource {
        let base = public_url.trim_end_matches('/');
        Resource {
            url: format!("{base}{path}"),
            metadata_url: format!("{base}{METADATA_PREFIX}{path}"),
        }
    }
}

/// What RFC 9728 puts before a resource's path for its metadata.
pub const METADATA_PREFIX: &str = "/.well-known/oauth-protected-resource";

/// One API's checks of its agents.
pub struct Gate {
    keys: Option<(KeyRing, KeyPlace)>,
    keys_file: Option<std::path::PathBuf>,
    tokens: Option<TokenCheck>,
    resource: Resource,
    retry_after: Duration,
}

/// Where agents show their key.
enum KeyPlace {
    Bearer,
    /// A header, and its name as the operator wrote it.
    Header(HeaderName, String),
}

/// A refusal as HTTP says it.
pub struct Refused {
    pub status: StatusCode,
    /// The `WWW-Authenticate` value, when the status takes one.
    pub challenge: Option<String>,
    /// `Retry-After` seconds, for a refusal that may pass later.
    pub retry_after: Option<u64>,
    /// The catalogue message, for the body.
    pub message: String,
}

impl Gate {
    /// Lets in anyone who reaches the port.
    pub fn open(resource: Resource) -> Gate {
        Gate {
            keys: None,
            keys_file: None,
            tokens: None,
            resource,
            retry_after: DEFAULT_KEY_REFRESH_INTERVAL,
        }
    }

    /// The checks `settings` ask for, with the keys file read now. An error
    /// says what is wrong (a keys file that cannot be read, an algorithm
    /// not taken).
    pub fn build(
        settings: &AgentsSettings,
        resource: Resource,
        authorities: &Authorities,
        client: &reqwest::Client,
    ) -> Result<Gate, GateError> {
        let mut gate = Gate::open(resource);
        if let Some(keys) = &settings.keys {
            let ring = KeyRing::read(&keys.file)?;
            let place = match &keys.header {
                None => KeyPlace::Bearer,
                Some(name) => KeyPlace::Header(
                    HeaderName::from_bytes(name.as_bytes())
                        .map_err(|_| GateError::KeyHeaderName)?,
                    name.clone(),
                ),
            };
            gate.keys = Some((ring, place));
            gate.keys_file = Some(keys.file.clone());
        }
        if let Some(oauth) = &settings.oauth {
            if oauth.issuers.is_empty() {
                return Err(GateError::NoIssuer);
            }
            for issuer in &oauth.issuers {
                oauth
                    .cleartext
                    .check(issuer)
                    .map_err(|why| GateError::IssuerUrl { why })?;
            }
            let algorithms = if oauth.algorithms.is_empty() {
                token::DEFAULT_ALGORITHMS.to_vec()
            } else {
                oauth
                    .algorithms
                    .iter()
                    .map(|name| name.parse().map_err(|_| GateError::UnknownAlgorithm))
                    .collect::<Result<_, _>>()?
            };
            let authorities = oauth
                .issuers
                .iter()
                .map(|issuer| {
                    authorities.get(issuer, client, oauth.key_refresh_interval, oauth.cleartext)
                })
                .collect();
            gate.tokens = Some(TokenCheck::new(
                gate.resource.url.clone(),
                authorities,
                oauth.scopes.clone(),
                algorithms,
            )?);
            gate.retry_after = oauth.key_refresh_interval;
        }
        Ok(gate)
    }

    /// Whether agents must show a credential.
    pub fn checks(&self) -> bool {
        self.keys.is_some() || self.tokens.is_some()
    }

    /// Whether some agents may be let in for read-only tools only.
    pub fn limits_tools(&self) -> bool {
        self.tokens.as_ref().is_some_and(|t| t.scopes().is_some())
    }

    /// The scope that lets every tool, when scopes are configured.
    pub fn write_scope(&self) -> Option<&str> {
        self.tokens
            .as_ref()
            .and_then(|tokens| tokens.scopes())
            .map(|names| names.write.as_str())
    }

    /// Who the request's credential lets in, or why it does not.
    pub async fn admit(
        &self,
        headers: &HeaderMap,
        query: Option<&str>,
    ) -> Result<Admitted, Refusal> {
        if !self.checks() {
            return Ok(Admitted::anyone());
        }
        if query.is_some_and(has_token) {
            return Err(Refusal::TokenInQuery);
        }
        let bearer = bearer(headers);
        if let Some((ring, place)) = &self.keys {
            let shown = match place {
                KeyPlace::Header(name, _) => headers.get(name).and_then(|v| v.to_str().ok()),
                KeyPlace::Bearer => bearer,
            };
            if let Some(key) = shown {
                match ring.find(key) {
                    Some((label, principal)) => {
                        return Ok(Admitted {
                            agent: label.to_owned(),
                            principal: principal.to_owned(),
                            account: format!("key {label}"),
                            reach: Reach::All,
                        })
                    }
                    // A bearer value that is no key may still be a token.
                    None if matches!(place, KeyPlace::Bearer) && self.tokens.is_some() => {}
                    None => return Err(Refusal::KeyUnknown),
                }
            }
        }
        match (&self.tokens, bearer) {
            (Some(tokens), Some(token)) => tokens.check(token).await,
            (None, Some(_)) => Err(Refusal::KeyUnknown),
            (_, None) => Err(Refusal::NoCredential),
        }
    }

    /// Takes out of `headers` every header an agent shows a credential in,
    /// whether or not this gate reads it: nothing behind the gate may hold
    /// one.
    pub fn strip_credentials(&self, headers: &mut HeaderMap) {
        headers.remove(AUTHORIZATION);
        if let Some((_, KeyPlace::Header(name, _))) = &self.keys {
            headers.remove(name);
        }
    }

    /// How `refusal` is answered: its status, challenge and message.
    pub fn refused(&self, refusal: &Refusal) -> Refused {
        let (status, message, error) = match refusal {
            Refusal::NoCredential => (
                StatusCode::UNAUTHORIZED,
                AgentMessage::AgentUnauthenticated,
                None,
            ),
            Refusal::KeyUnknown => (
                StatusCode::UNAUTHORIZED,
                AgentMessage::AgentRefused {
                    why: "the key is not one of this gateway's agents' keys".to_owned(),
                },
                Some(("invalid_token", None)),
            ),
            Refusal::TokenInvalid { why } => (
                StatusCode::UNAUTHORIZED,
                AgentMessage::AgentRefused { why: why.clone() },
                Some(("invalid_token", None)),
            ),
            Refusal::TokenInQuery => (
                StatusCode::BAD_REQUEST,
                AgentMessage::AgentTokenInQuery,
                Some(("invalid_request", None)),
            ),
            Refusal::ScopeInsufficient { needed } => (
                StatusCode::FORBIDDEN,
                AgentMessage::AgentScopeInsufficient {
                    needed: needed.clone(),
                },
                Some(("insufficient_scope", Some(needed.as_str()))),
            ),
            Refusal::AuthorityUnavailable => {
                return Refused {
                    status: StatusCode::SERVICE_UNAVAILABLE,
                    challenge: None,
                    retry_after: Some(self.retry_after.as_secs().max(1)),
                    message: AgentMessage::AgentCheckUnavailable.render(),
                }
            }
            Refusal::KeyNotYetKnown { retry_after } => {
                let seconds = retry_after.as_secs_f64().ceil().max(1.0) as u64;
                return Refused {
                    status: StatusCode::SERVICE_UNAVAILABLE,
                    challenge: None,
                    retry_after: Some(seconds),
                    message: AgentMessage::AgentKeyPending { seconds }.render(),
                };
            }
        };
        let message = message.render();
        Refused {
            status,
            challenge: Some(self.challenge(error, &message)),
            retry_after: None,
            message,
        }
    }

    /// The `WWW-Authenticate` value: under MCP authorization, where the
    /// metadata is and the scopes to ask for (RFC 9728, MCP 2025-11-25).
    fn challenge(&self, error: Option<(&str, Option<&str>)>, message: &str) -> String {
        let mut parts = Vec::new();
        let scheme = match (&self.tokens, &self.keys) {
            (None, Some((_, KeyPlace::Header(_, name)))) => {
                parts.push(format!("header=\"{name}\""));
                "ApiKey"
            }
            _ => "Bearer",
        };
        parts.push("realm=\"hosted-mcp-gateway\"".to_owned());
        if let Some(tokens) = &self.tokens {
            parts.push(format!(
                "resource_metadata=\"{}\"",
                self.resource.metadata_url
            ));
            let asked = match error {
                Some((_, Some(needed))) => Some(needed.to_owned()),
                _ => tokens
                    .scopes()
                    .map(|names| format!("{} {}", names.read, names.write)),
            };
            if let Some(scope) = asked {
                parts.push(format!("scope=\"{scope}\""));
            }
        }
        if let Some((code, _)) = error {
            parts.push(format!("error=\"{code}\""));
            // The message without its code, quotes taken out.
            let description = message
                .split_once("] ")
                .map_or(message, |(_, text)| text)
                .replace(['"', '\\'], "'");
            parts.push(format!("error_description=\"{description}\""));
        }
        format!("{scheme} {}", parts.join(", "))
    }

    /// The endpoint's protected-resource metadata (RFC 9728), when it takes
    /// access tokens.
    pub fn metadata(&self) -> Option<serde_json::Value> {
        let tokens = self.tokens.as_ref()?;
        let mut metadata = serde_json::json!({
            "resource": self.resource.url,
            "authorization_servers": tokens.issuers().collect::<Vec<_>>(),
            "bearer_methods_supported": ["header"],
            "resource_name": "hosted-mcp-gateway",
        });
        if let Some(names) = tokens.scopes() {
            metadata["scopes_supported"] = serde_json::json!([names.read, names.write]);
        }
        Some(metadata)
    }

    /// Who is let in, for the start-up line.
    pub fn describe(&self) -> String {
        let mut who = Vec::new();
        if let (Some((ring, place)), Some(file)) = (&self.keys, &self.keys_file) {
            let shown = match place {
                KeyPlace::Bearer => "Authorization: Bearer".to_owned(),
                KeyPlace::Header(_, name) => format!("header {name}"),
            };
            who.push(format!(
                "agents with one of the {} keys of {} ({shown})",
                ring.len(),
                file.display()
            ));
        }
        if let Some(tokens) = &self.tokens {
            let scopes = tokens.scopes().map_or_else(String::new, |names| {
                format!(
                    "; scope {} for read-only tools, {} for all",
                    names.read, names.write
                )
            });
            who.push(format!(
                "access tokens of {} for {}{scopes}",
                tokens.issuers().collect::<Vec<_>>().join(", "),
                self.resource.url
            ));
        }
        if who.is_empty() {
            "anyone who reaches the port".to_owned()
        } else {
            who.join(", or ")
        }
    }
}

/// The token of `Authorization: Bearer`, the scheme in any case.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|token| !token.is_empty())
}

/// Whether a query carries an access token (RFC 6750's `access_token`).
fn has_token(query: &str) -> bool {
    query
        .split('&')
        .any(|pair| pair.split('=').next() == Some("access_token"))
}

/// A client for the authorization servers' metadata and keys, on the same
/// TLS stack as the upstream's.
pub fn authority_client() -> Result<reqwest::Client, GateError> {
    crate::deliver::install_crypto_provider();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(GateError::Client)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::admitted::{OAuthSettings, ScopeNames};
    use crate::agents::keys::line_for;
    use crate::cleartext::Cleartext;
    use rstest::rstest;
    use serde_json::json;

    /// Nothing listens there: no test here fetches an issuer's keys.
    const ISSUER: &str = "http://127.0.0.1:9";
    const KEY: &str = "key-of-ada-1d2e";

    fn resource() -> Resource {
        Resource::at("https://mcp.example.com/", "/mcp/pets")
    }

    /// A gate taking `keys` (in the header named, or as a bearer token)
    /// and, with `tokens`, access tokens (scoped, with `scoped`).
    fn gate(keys: Option<Option<&str>>, tokens: bool, scoped: bool) -> Gate {
        let settings = AgentsSettings {
            keys: None,
            oauth: tokens.then(|| OAuthSettings {
                issuers: vec![ISSUER.to_owned()],
                scopes: scoped.then(|| ScopeNames {
                    read: "mcp:read".to_owned(),
                    write: "mcp:write".to_owned(),
                }),
                algorithms: Vec::new(),
                key_refresh_interval: Duration::from_secs(60),
                cleartext: Cleartext::LoopbackOnly,
            }),
        };
        let client = authority_client().expect("a client");
        let mut gate =
            Gate::build(&settings, resource(), &Authorities::default(), &client).expect("a gate");
        if let Some(header) = keys {
            let ring = KeyRing::parse(&line_for(KEY, "ada")).expect("a key ring");
            let place = match header {
                None => KeyPlace::Bearer,
                Some(name) => KeyPlace::Header(
                    HeaderName::from_bytes(name.as_bytes()).expect("a name"),
                    name.to_owned(),
                ),
            };
            gate.keys = Some((ring, place));
            gate.keys_file = Some("/etc/gateway/agents.keys".into());
        }
        gate
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(name, value)| {
                (
                    HeaderName::from_static(name),
                    value.parse().expect("a value"),
                )
            })
            .collect()
    }

    #[rstest]
    #[case("access_token=abc", true)]
    #[case("page=2&access_token=", true)]
    #[case("access_tokens=abc", false)]
    #[case("page=access_token", false)]
    #[case("", false)]
    fn a_token_in_the_query_is_told_by_its_name(#[case] query: &str, #[case] found: bool) {
        assert_eq!(has_token(query), found);
    }

    #[tokio::test]
    async fn a_bearer_value_that_is_no_key_is_tried_as_a_token_where_tokens_are_taken() {
        let shown = headers(&[("authorization", "Bearer not-a-key")]);
        let as_token = gate(Some(None), true, false).admit(&shown, None).await;
        assert!(matches!(as_token, Err(Refusal::TokenInvalid { .. })));
        let keys_only = gate(Some(None), false, false).admit(&shown, None).await;
        assert_eq!(keys_only, Err(Refusal::KeyUnknown));
        // A key header is never a token, whatever else the gate takes.
        let wrong_key = headers(&[("x-agent-key", "not-a-key")]);
        let in_header = gate(Some(Some("x-agent-key")), true, false)
            .admit(&wrong_key, None)
            .await;
        assert_eq!(in_header, Err(Refusal::KeyUnknown));
        let right_key = headers(&[("x-agent-key", KEY)]);
        let admitted = gate(Some(Some("x-agent-key")), true, false)
            .admit(&right_key, None)
            .await
            .expect("admitted");
        assert_eq!(admitted.agent, "ada");
    }

    #[tokio::test]
    async fn a_token_in_the_query_is_refused_before_anything_else() {
        let shown = headers(&[("authorization", &format!("Bearer {KEY}"))]);
        let refused = gate(Some(None), true, false)
            .admit(&shown, Some("access_token=x"))
            .await;
        assert_eq!(refused, Err(Refusal::TokenInQuery));
    }

    #[test]
    fn a_key_header_is_challenged_by_its_name() {
        let refused = gate(Some(Some("X-Agent-Key")), false, false).refused(&Refusal::KeyUnknown);
        assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
        assert_eq!(
            refused.challenge.as_deref(),
            Some(
                "ApiKey header=\"X-Agent-Key\", realm=\"hosted-mcp-gateway\", \
                 error=\"invalid_token\", error_description=\"the credential shown is not one \
                 this gateway takes: the key is not one of this gateway's agents' keys\""
            )
        );
    }

    #[test]
    fn under_mcp_authorization_the_challenge_says_where_the_metadata_is_and_what_to_ask() {
        let gate = gate(None, true, true);
        let metadata = "resource_metadata=\"https://mcp.example.com/.well-known/\
                        oauth-protected-resource/mcp/pets\"";
        assert_eq!(
            gate.refused(&Refusal::NoCredential).challenge,
            Some(format!(
                "Bearer realm=\"hosted-mcp-gateway\", {metadata}, scope=\"mcp:read mcp:write\""
            ))
        );
        // Short of a scope, the one it needs.
        let refused = gate.refused(&Refusal::ScopeInsufficient {
            needed: "mcp:write".to_owned(),
        });
        assert_eq!(refused.status, StatusCode::FORBIDDEN);
        assert_eq!(
            refused.challenge,
            Some(format!(
                "Bearer realm=\"hosted-mcp-gateway\", {metadata}, scope=\"mcp:write\", \
                 error=\"insufficient_scope\", error_description=\"the access token's scopes \
                 do not let this call; it needs the scope `mcp:write`\""
            ))
        );
    }

    #[test]
    fn the_metadata_names_the_resource_its_issuers_and_scopes() {
        assert_eq!(gate(Some(None), false, false).metadata(), None);
        assert_eq!(
            gate(None, true, true).metadata(),
            Some(json!({
                "resource": "https://mcp.example.com/mcp/pets",
                "authorization_servers": [ISSUER],
                "bearer_methods_supported": ["header"],
                "resource_name": "hosted-mcp-gateway",
                "scopes_supported": ["mcp:read", "mcp:write"],
            }))
        );
    }

    #[test]
    fn scopes_limit_tools_only_where_configured() {
        let scoped = gate(None, true, true);
        assert!(scoped.limits_tools());
        assert_eq!(scoped.write_scope(), Some("mcp:write"));
        for unscoped in [gate(None, true, false), gate(Some(None), false, false)] {
            assert!(!unscoped.limits_tools());
            assert_eq!(unscoped.write_scope(), None);
        }
    }

    #[test]
    fn the_start_up_line_says_who_is_let_in() {
        assert_eq!(
            Gate::open(resource()).describe(),
            "anyone who reaches the port"
        );
        assert_eq!(
            gate(Some(None), false, false).describe(),
            "agents with one of the 1 keys of /etc/gateway/agents.keys (Authorization: Bearer)"
        );
        assert_eq!(
            gate(Some(Some("X-Agent-Key")), true, true).describe(),
            "agents with one of the 1 keys of /etc/gateway/agents.keys (header X-Agent-Key), \
             or access tokens of http://127.0.0.1:9 for https://mcp.example.com/mcp/pets; \
             scope mcp:read for read-only tools, mcp:write for all"
        );
    }
}
