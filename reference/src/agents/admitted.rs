//! What the checks decide, and what the operator configures them with.

use std::path::PathBuf;
use std::time::Duration;

use crate::cleartext::Cleartext;

/// How long the keys of an authorization server are kept from being fetched
/// again for an unknown key id, unless configured otherwise.
pub const DEFAULT_KEY_REFRESH_INTERVAL: Duration = Duration::from_secs(10);

/// How agents show who they are, for one API. Nothing configured lets in
/// anyone who reaches the port.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentsSettings {
    pub keys: Option<KeysSettings>,
    pub oauth: Option<OAuthSettings>,
}

/// Keys from a file of their hashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeysSettings {
    pub file: PathBuf,
    /// The header that carries the key; `None` for `Authorization: Bearer`.
    pub header: Option<String>,
}

/// MCP authorization: access tokens of these authorization servers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthSettings {
    /// The issuers whose tokens are taken, as their metadata names them.
    pub issuers: Vec<String>,
    /// Scopes by the tools' hints; `None` lets every valid token call every
    /// tool.
    pub scopes: Option<ScopeNames>,
    /// The signing algorithms taken; empty for the default allow-list.
    pub algorithms: Vec<String>,
    /// At most one fetch of an issuer's keys per this long for tokens
    /// naming a key not held.
    pub key_refresh_interval: Duration,
    /// Whether issuers are spoken to over plain http off loopback.
    pub cleartext: Cleartext,
}

/// The two scopes tools are let by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeNames {
    /// Lets the tools hinted read-only.
    pub read: String,
    /// Lets every tool.
    pub write: String,
}

/// An agent let in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admitted {
    /// Who, for the log: a key's label, a token's client or subject.
    pub agent: String,
    /// Who, to tell agents apart (see [`super::SessionOwners`]): the key
    /// itself, by a digest of its hash, or the token's issuer and subject.
    /// Two keys with one label are two agents; one user's tokens, renewed,
    /// are one.
    pub principal: String,
    /// Who, to its per-agent limits: a key's label (the keys of one label,
    /// as while one is rotated out, share them), or the token's issuer and
    /// subject.
    pub account: String,
    pub reach: Reach,
}

/// Who gets in where the gate lets in anyone who reaches the port.
pub const ANYONE: &str = "anyone";

impl Admitted {
    /// Anyone who reaches the port, where nobody is asked who they are.
    pub fn anyone() -> Admitted {
        Admitted {
            agent: ANYONE.to_owned(),
            principal: ANYONE.to_owned(),
            account: ANYONE.to_owned(),
            reach: Reach::All,
        }
    }

    /// Whether this agent was told apart from others by a credential.
    pub fn told_apart(&self) -> bool {
        self.principal != ANYONE
    }
}

/// The tools an agent may call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    All,
    /// The tools hinted read-only.
    ReadOnly,
}

/// Why an agent was not let in. None of them holds what the agent showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No key and no token.
    NoCredential,
    /// A key that is not in the keys file.
    KeyUnknown,
    /// A token that is not valid here, and why.
    TokenInvalid { why: String },
    /// A token in the URL's query, where logs and histories keep it.
    TokenInQuery,
    /// A valid token whose scopes do not let this call.
    ScopeInsufficient { needed: String },
    /// The authorization server's keys could not be had to check the token.
    AuthorityUnavailable,
    /// The token names a key not held, and the keys were fetched too
    /// recently to fetch them again: it may be good in `retry_after`.
    KeyNotYetKnown { retry_after: Duration },
}

impl Refusal {
    /// A short stable name, for logs and metrics.
    pub fn reason(&self) -> &'static str {
        match self {
            Refusal::NoCredential => "no_credential",
            Refusal::KeyUnknown => "key_unknown",
            Refusal::TokenInvalid { .. } => "token_invalid",
            Refusal::TokenInQuery => "token_in_query",
            Refusal::ScopeInsufficient { .. } => "scope_insufficient",
            Refusal::AuthorityUnavailable => "authority_unavailable",
            Refusal::KeyNotYetKnown { .. } => "key_not_yet_known",
        }
    }
}
