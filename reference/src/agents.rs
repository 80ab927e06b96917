//! Who may use an API of the gateway: the agents' own credentials, checked
//! in front of MCP, before any message is read, never inside the call flow.
//!
//! An API lets in anyone who reaches the port (the default, fine on
//! loopback), or only agents that show a key of its keys file ([`keys`]),
//! or an access token of a trusted authorization server, as the MCP
//! authorization spec makes an HTTP MCP server an OAuth 2.1 resource server
//! ([`token`], [`authority`]): protected-resource metadata (RFC 9728), a 401
//! whose `WWW-Authenticate` points at it, tokens checked for this endpoint's
//! resource URL (RFC 8707), scopes by the tools' hints with a 403
//! `insufficient_scope` for step-up. Whatever the agent shows stays here:
//! nothing of the agent's request reaches the call flow but the tool's name
//! and arguments (TC-REQ-009), its credential least of all.

mod admission;
mod admitted;
mod authority;
mod errors;
mod gate;
mod hash;
mod keys;
mod limits;
mod ownership;
mod refusals;
mod sessions;
mod shared;
mod token;

pub use admission::Admission;
pub use admitted::{
    Admitted, AgentsSettings, KeysSettings, OAuthSettings, Reach, Refusal, ScopeNames,
    DEFAULT_KEY_REFRESH_INTERVAL,
};
pub use authority::{Authorities, KEYS_REFRESHED_EVERY};
pub use errors::{FetchError, GateError, RandomFailed};
pub use gate::{authority_client, Gate, Refused, Resource, METADATA_PREFIX};
pub use keys::{line_for, new_key, KeyRing};
pub use limits::{AgentLimits, InFlight, LimitReason, LimitSettings, Limited};
pub use ownership::{AliveSessions, SessionOwnership, SessionOwnershipLayer};
pub use refusals::{plain, Refusals};
pub use sessions::{Bookkeeping, SessionOwners};
pub use shared::SharedRate;
