//! Access tokens: JWTs issued by a trusted authorization server for this
//! endpoint, as the MCP authorization spec asks of a resource server.
//!
//! A token is taken when its signature verifies with a key of the issuer it
//! names (one of those configured), by an algorithm of the allow-list
//! (asymmetric only: never `none`, never an HMAC, so a public key can never
//! serve as an HMAC secret), the key's own algorithm where its JWK pins
//! one; when its `aud` is this endpoint's resource URL (RFC 8707), so a
//! token for another resource, another API of this gateway included, is
//! refused; and when it is within `exp` and `nbf`, give or take a small
//! leeway for clocks. Its `scope` (or `scp`) then says which tools it may
//! call.
//!
//! Checked tokens are kept, by the SHA-256 of the token, until their `exp`
//! and never past it, so an agent's later requests cost a hash rather than
//! a signature check; with the key that checked them, so that a kept token
//! is refused as soon as its issuer withdraws that key.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde::Deserialize;

use super::admitted::{Admitted, Reach, Refusal, ScopeNames};
use super::authority::{Authority, HeldKey, Lookup, StillHeld};
use super::errors::GateError;
use super::hash::sha256;

/// Seconds of clock difference forgiven on `exp` and `nbf`.
const LEEWAY: u64 = 30;

/// Checked tokens kept at most; when full, the expired go, then all.
const KEPT_TOKENS: usize = 10_000;

/// The algorithms a token may be signed with unless configured otherwise.
pub const DEFAULT_ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Checks tokens for one endpoint.
pub struct TokenCheck {
    /// This endpoint's resource URL: every token's `aud` must hold it.
    resource: String,
    authorities: Vec<Arc<Authority>>,
    scopes: Option<ScopeNames>,
    algorithms: Vec<Algorithm>,
    kept: Mutex<HashMap<[u8; 32], Kept>>,
}

/// A token checked before, kept until `exp`.
#[derive(Clone)]
struct Kept {
    exp: u64,
    verdict: Verdict,
}

#[derive(Clone)]
enum Verdict {
    Admitted {
        admitted: Admitted,
        /// Which of the authorities issued it, and with which key.
        authority: usize,
        key: HeldKey,
    },
    /// Refused for good: its key was withdrawn, or a fetch of the keys
    /// made after it was first shown has no key of its id.
    Refused(&'static str),
}

/// Why a kept token is refused.
const WITHDRAWN: &str = "its signing key has been withdrawn by its issuer";
const UNKNOWN_KEY: &str = "no key of its issuer has its key id (`kid`): an old key, or none";

/// How long a token refused for an unknown key is remembered as refused.
const REFUSAL_KEPT: u64 = 300;

#[derive(Deserialize)]
struct Claims {
    #[serde(default)]
    sub: Option<String>,
    #[serde(default)]
    client_id: Option<String>,
    exp: u64,
    #[serde(default)]
    scope: Option<String>,
    /// Some servers list scopes as `scp`, a string or an array.
    #[serde(default)]
    scp: Option<serde_json::Value>,
}

impl TokenCheck {
    /// Only asymmetric algorithms are taken: an HMAC in `algorithms` is an
    /// error, since it would let anyone holding the public key sign.
    pub fn new(
        resource: String,
        authorities: Vec<Arc<Authority>>,
        scopes: Option<ScopeNames>,
        algorithms: Vec<Algorithm>,
    ) -> Result<TokenCheck, GateError> {
        for algorithm in &algorithms {
            let name = match algorithm {
                Algorithm::HS256 => "HS256",
                Algorithm::HS384 => "HS384",
                Algorithm::HS512 => "HS512",
                _ => continue,
            };
            return Err(GateError::SymmetricAlgorithm(name));
        }
        Ok(TokenCheck {
            resource,
            authorities,
            scopes,
            algorithms,
            kept: Mutex::new(HashMap::new()),
        })
    }

    pub fn scopes(&self) -> Option<&ScopeNames> {
        self.scopes.as_ref()
    }

    pub fn issuers(&self) -> impl Iterator<Item = &str> {
        self.authorities.iter().map(|authority| authority.issuer())
    }

    /// Who the token lets in, and to which tools.
    pub async fn check(&self, token: &str) -> Result<Admitted, Refusal> {
        let fingerprint = sha256(token.as_bytes());
        let now = now();
        let kept = match self.kept_token(&fingerprint).filter(|kept| now < kept.exp) {
            Some(kept) => kept,
            None => {
                let checked = self.verify(token, now).await?;
                self.keep(fingerprint, checked.clone(), now);
                checked
            }
        };
        match kept.verdict {
            Verdict::Refused(why) => Err(invalid(why)),
            Verdict::Admitted {
                admitted,
                authority,
                key,
            } => match self.authorities[authority].still_holds(&key) {
                StillHeld::Yes => Ok(admitted),
                StillHeld::Unknowable => Err(Refusal::AuthorityUnavailable),
                StillHeld::Withdrawn => {
                    if let Some(kept) = self.lock().get_mut(&fingerprint) {
                        kept.verdict = Verdict::Refused(WITHDRAWN);
                    }
                    Err(invalid(WITHDRAWN))
                }
            },
        }
    }

    fn keep(&self, fingerprint: [u8; 32], checked: Kept, now: u64) {
        let mut kept = self.lock();
        if kept.len() >= KEPT_TOKENS {
            kept.retain(|_, kept| now < kept.exp);
            if kept.len() >= KEPT_TOKENS {
                kept.clear();
            }
        }
        kept.insert(fingerprint, checked);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Kept>> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn kept_token(&self, fingerprint: &[u8; 32]) -> Option<Kept> {
        self.lock().get(fingerprint).cloned()
    }

    /// The verdict on a token not kept: admitted, refused for good (to be
    /// kept), or an error for a refusal that may not last.
    async fn verify(&self, token: &str, now: u64) -> Result<Kept, Refusal> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| invalid("it is not a JWT with a header this gateway can read"))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(invalid(&format!(
                "it is signed with {:?}, which this gateway does not take",
                header.alg
            )));
        }
        let issuer =
            unverified_issuer(token).ok_or_else(|| invalid("it names no issuer (`iss`)"))?;
        let (position, authority) = self
            .authorities
            .iter()
            .enumerate()
            .find(|(_, authority)| authority.issuer() == issuer)
            .ok_or_else(|| invalid("its issuer is not one this gateway trusts"))?;
        let verifier = match authority.key(header.kid.as_deref()).await {
            Lookup::Found(verifier) => verifier,
            Lookup::Unknown => {
                return Ok(Kept {
                    exp: now + REFUSAL_KEPT,
                    verdict: Verdict::Refused(UNKNOWN_KEY),
                })
            }
            Lookup::Withdrawn => {
                return Ok(Kept {
                    exp: now + REFUSAL_KEPT,
                    verdict: Verdict::Refused(WITHDRAWN),
                })
            }
            Lookup::NotYet { retry_after } => return Err(Refusal::KeyNotYetKnown { retry_after }),
            Lookup::Unavailable => return Err(Refusal::AuthorityUnavailable),
        };
        if verifier
            .algorithm
            .is_some_and(|pinned| pinned != header.alg)
        {
            return Err(invalid("its algorithm is not the one its key is for"));
        }
        let mut validation = Validation::new(header.alg);
        validation.leeway = LEEWAY;
        validation.validate_nbf = true;
        validation.set_issuer(&[authority.issuer()]);
        validation.set_audience(&[&self.resource]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let data =
            jsonwebtoken::decode::<Claims>(token, &verifier.key, &validation).map_err(|error| {
                invalid(match error.kind() {
                    ErrorKind::ExpiredSignature => "it has expired",
                    ErrorKind::ImmatureSignature => "it is not valid yet (`nbf`)",
                    ErrorKind::InvalidAudience => {
                        "it is for another resource: its `aud` is not this endpoint"
                    }
                    ErrorKind::InvalidIssuer => "its issuer is not one this gateway trusts",
                    ErrorKind::InvalidSignature => "its signature does not verify",
                    ErrorKind::InvalidAlgorithm => "its algorithm is not the one its key is for",
                    ErrorKind::MissingRequiredClaim(_) => "it lacks `exp`, `iss` or `aud`",
                    _ => "it cannot be read as an access token",
                })
            })?;
        let claims = data.claims;
        let granted = granted_scopes(&claims);
        let reach = match &self.scopes {
            None => Reach::All,
            Some(names) if granted.contains(&names.write) => Reach::All,
            Some(names) if granted.contains(&names.read) => Reach::ReadOnly,
            Some(names) => {
                return Err(Refusal::ScopeInsufficient {
                    needed: names.read.clone(),
                })
            }
        };
        // The user the token speaks for, else the client acting on its own
        // (client credentials): one user's renewed tokens keep its sessions.
        let principal = format!(
            "token:{issuer} {}",
            claims
                .sub
                .as_deref()
                .or(claims.client_id.as_deref())
                .unwrap_or_default()
        );
        let agent = claims
            .client_id
            .or(claims.sub)
            .unwrap_or_else(|| "a token without a subject".to_owned());
        Ok(Kept {
            // Kept no longer than the token is valid, whatever the leeway.
            exp: claims.exp.max(now),
            verdict: Verdict::Admitted {
                admitted: Admitted {
                    agent,
                    account: principal.clone(),
                    principal,
                    reach,
                },
                authority: position,
                key: verifier.held_as,
            },
        })
    }
}

fn invalid(why: &str) -> Refusal {
    Refusal::TokenInvalid {
        why: why.to_owned(),
    }
}

/// The token's `iss`, read before its signature is checked, only to know
/// whose keys check it.
fn unverified_issuer(token: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Issuer {
        iss: String,
    }
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    serde_json::from_slice::<Issuer>(&bytes).ok().map(|i| i.iss)
}

fn granted_scopes(claims: &Claims) -> Vec<String> {
    let mut granted: Vec<String> = claims
        .scope
        .iter()
        .flat_map(|scope| scope.split_whitespace())
        .map(str::to_owned)
        .collect();
    match &claims.scp {
        Some(serde_json::Value::String(scp)) => {
            granted.extend(scp.split_whitespace().map(str::to_owned));
        }
        Some(serde_json::Value::Array(scp)) => {
            granted.extend(scp.iter().filter_map(|s| s.as_str()).map(str::to_owned));
        }
        _ => {}
    }
    granted
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}
