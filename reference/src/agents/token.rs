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
    nbf: Option<u64>,
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
        self.check_at(token, now()).await
    }

    /// [`TokenCheck::check`] at `now` (seconds since 1970): one clock for
    /// the token's `exp` and `nbf` and for how long it is kept.
    async fn check_at(&self, token: &str, now: u64) -> Result<Admitted, Refusal> {
        let fingerprint = sha256(token.as_bytes());
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
        // `exp` and `nbf` are judged below, on the clock the kept tokens
        // are judged on.
        validation.validate_exp = false;
        validation.set_issuer(&[authority.issuer()]);
        validation.set_audience(&[&self.resource]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let data =
            jsonwebtoken::decode::<Claims>(token, &verifier.key, &validation).map_err(|error| {
                invalid(match error.kind() {
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
        if claims.exp.saturating_add(LEEWAY) < now {
            return Err(invalid("it has expired"));
        }
        if claims
            .nbf
            .is_some_and(|nbf| nbf > now.saturating_add(LEEWAY))
        {
            return Err(invalid("it is not valid yet (`nbf`)"));
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::authority_client;
    use crate::cleartext::Cleartext;
    use ring::rand::SystemRandom;
    use ring::signature::{EcdsaKeyPair, KeyPair as _, ECDSA_P256_SHA256_FIXED_SIGNING};
    use serde_json::{json, Value};
    use std::time::Duration;
    use wiremock::matchers::path;
    use wiremock::{Mock, MockServer, ResponseTemplate};

    const RESOURCE: &str = "https://mcp.example.com/mcp/pets";

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    }

    /// An ES256 key of the issuer's, under `kid`.
    struct SigningKey {
        kid: String,
        pkcs8: Vec<u8>,
        /// The uncompressed point: 0x04, then x and y of 32 bytes each.
        public: Vec<u8>,
    }

    impl SigningKey {
        fn new(kid: &str) -> SigningKey {
            let random = SystemRandom::new();
            let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &random)
                .expect("a key pair")
                .as_ref()
                .to_vec();
            let public =
                EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &pkcs8, &random)
                    .expect("the pair reads")
                    .public_key()
                    .as_ref()
                    .to_vec();
            SigningKey {
                kid: kid.to_owned(),
                pkcs8,
                public,
            }
        }

        /// Its JWK; `pinned` names its algorithm there.
        fn jwk(&self, pinned: bool) -> Value {
            let mut jwk = json!({
                "kty": "EC", "crv": "P-256", "kid": self.kid, "use": "sig",
                "x": b64(&self.public[1..33]), "y": b64(&self.public[33..65]),
            });
            if pinned {
                jwk["alg"] = json!("ES256");
            }
            jwk
        }

        fn sign(&self, claims: &Value) -> String {
            let mut header = jsonwebtoken::Header::new(Algorithm::ES256);
            header.kid = Some(self.kid.clone());
            jsonwebtoken::encode(
                &header,
                claims,
                &jsonwebtoken::EncodingKey::from_ec_der(&self.pkcs8),
            )
            .expect("the token is signed")
        }
    }

    /// An authorization server on loopback: its metadata, and the keys it
    /// is told to publish.
    struct Issuer {
        server: MockServer,
    }

    impl Issuer {
        async fn start() -> Issuer {
            Issuer {
                server: MockServer::start().await,
            }
        }

        fn url(&self) -> String {
            self.server.uri()
        }

        /// Publishes these keys from now on (`true`: the JWK pins ES256).
        async fn publish(&self, keys: &[(&SigningKey, bool)]) {
            self.server.reset().await;
            let url = self.url();
            Mock::given(path("/.well-known/oauth-authorization-server"))
                .respond_with(
                    ResponseTemplate::new(200)
                        .set_body_json(json!({"issuer": url, "jwks_uri": format!("{url}/jwks")})),
                )
                .mount(&self.server)
                .await;
            let keys: Vec<Value> = keys.iter().map(|(key, pinned)| key.jwk(*pinned)).collect();
            Mock::given(path("/jwks"))
                .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "keys": keys })))
                .mount(&self.server)
                .await;
        }

        /// A good token's claims at `at`, with `changes` laid over them
        /// (`null` takes a claim out).
        fn claims(&self, at: u64, changes: Value) -> Value {
            let mut claims = json!({
                "iss": self.url(), "aud": RESOURCE, "sub": "ada", "client_id": "ada-agent",
                "iat": at, "exp": at + 600, "scope": "mcp:read mcp:write",
            });
            for (name, value) in changes.as_object().expect("an object") {
                match value {
                    Value::Null => claims.as_object_mut().expect("an object").remove(name),
                    value => claims
                        .as_object_mut()
                        .expect("an object")
                        .insert(name.clone(), value.clone()),
                };
            }
            claims
        }

        /// The tokens of this issuer, its keys fetched again whenever a
        /// token names one not held.
        fn check(&self, scopes: Option<ScopeNames>) -> TokenCheck {
            let authority = Authority::new(
                &self.url(),
                authority_client().expect("a client"),
                Duration::ZERO,
                Cleartext::LoopbackOnly,
            );
            TokenCheck::new(
                RESOURCE.to_owned(),
                vec![Arc::new(authority)],
                scopes,
                DEFAULT_ALGORITHMS.to_vec(),
            )
            .expect("a check")
        }
    }

    fn scope_names() -> ScopeNames {
        ScopeNames {
            read: "mcp:read".to_owned(),
            write: "mcp:write".to_owned(),
        }
    }

    /// Why the token was refused as invalid.
    fn why(verdict: Result<Admitted, Refusal>) -> String {
        match verdict {
            Err(Refusal::TokenInvalid { why }) => why,
            other => panic!("not refused as invalid: {other:?}"),
        }
    }

    /// A token of this header and these claims, its signature bytes made up.
    fn forged(header: Value, claims: &Value) -> String {
        format!(
            "{}.{}.{}",
            b64(header.to_string().as_bytes()),
            b64(claims.to_string().as_bytes()),
            b64(b"not a signature")
        )
    }

    #[tokio::test]
    async fn a_valid_token_lets_in_its_client_for_its_subject() {
        let issuer = Issuer::start().await;
        let key = SigningKey::new("k1");
        issuer.publish(&[(&key, true)]).await;
        let check = issuer.check(None);
        let admitted = check
            .check(&key.sign(&issuer.claims(now(), json!({}))))
            .await
            .expect("admitted");
        let principal = format!("token:{} ada", issuer.url());
        assert_eq!(
            admitted,
            Admitted {
                agent: "ada-agent".to_owned(),
                account: principal.clone(),
                principal,
                reach: Reach::All,
            }
        );
        assert_eq!(check.issuers().collect::<Vec<_>>(), [issuer.url()]);
        assert_eq!(check.scopes(), None);
    }

    #[tokio::test]
    async fn the_scopes_granted_say_which_tools_it_may_call() {
        let issuer = Issuer::start().await;
        let key = SigningKey::new("k1");
        issuer.publish(&[(&key, true)]).await;
        let check = issuer.check(Some(scope_names()));
        assert_eq!(check.scopes(), Some(&scope_names()));
        let at = now();
        for (granted, reach) in [
            (json!({"scope": "mcp:read mcp:write"}), Some(Reach::All)),
            (json!({"scope": "profile mcp:read"}), Some(Reach::ReadOnly)),
            (json!({"scope": null, "scp": "mcp:write"}), Some(Reach::All)),
            (
                json!({"scope": null, "scp": ["x", "mcp:read"]}),
                Some(Reach::ReadOnly),
            ),
            (json!({"scope": "profile"}), None),
            (json!({"scope": null}), None),
        ] {
            let verdict = check
                .check_at(&key.sign(&issuer.claims(at, granted.clone())), at)
                .await;
            match reach {
                Some(reach) => assert_eq!(verdict.map(|a| a.reach), Ok(reach), "{granted}"),
                None => assert_eq!(
                    verdict,
                    Err(Refusal::ScopeInsufficient {
                        needed: "mcp:read".to_owned()
                    }),
                    "{granted}"
                ),
            }
        }
    }

    #[tokio::test]
    async fn each_refusal_says_what_is_wrong_with_the_token() {
        let issuer = Issuer::start().await;
        let (pinned, unpinned) = (SigningKey::new("pinned"), SigningKey::new("unpinned"));
        issuer.publish(&[(&pinned, true), (&unpinned, false)]).await;
        let check = issuer.check(None);
        let at = now();
        let claims = |changes| issuer.claims(at, changes);
        let cases = [
            (
                pinned.sign(&claims(json!({"exp": at - LEEWAY - 1}))),
                "it has expired",
            ),
            (
                pinned.sign(&claims(json!({"nbf": at + LEEWAY + 1}))),
                "it is not valid yet (`nbf`)",
            ),
            (
                pinned.sign(&claims(json!({"aud": "https://mcp.example.com/mcp/other"}))),
                "it is for another resource: its `aud` is not this endpoint",
            ),
            (
                pinned.sign(&claims(json!({"aud": null}))),
                "it lacks `exp`, `iss` or `aud`",
            ),
            (
                SigningKey::new("pinned").sign(&claims(json!({}))),
                "its signature does not verify",
            ),
            (
                forged(json!({"alg": "ES384", "kid": "pinned"}), &claims(json!({}))),
                "its algorithm is not the one its key is for",
            ),
            (
                forged(
                    json!({"alg": "PS256", "kid": "unpinned"}),
                    &claims(json!({})),
                ),
                "its algorithm is not the one its key is for",
            ),
            (
                forged(json!({"alg": "HS256", "kid": "pinned"}), &claims(json!({}))),
                "it is signed with HS256, which this gateway does not take",
            ),
            (
                pinned.sign(&claims(json!({"iss": null}))),
                "it names no issuer (`iss`)",
            ),
            (
                pinned.sign(&claims(json!({"iss": "https://auth.example.com"}))),
                "its issuer is not one this gateway trusts",
            ),
            (
                "not a token".to_owned(),
                "it is not a JWT with a header this gateway can read",
            ),
        ];
        for (token, expected) in cases {
            assert_eq!(why(check.check_at(&token, at).await), expected);
        }
        // Within the leeway either way, it is taken.
        for changes in [json!({"exp": at - LEEWAY}), json!({"nbf": at + LEEWAY})] {
            assert!(check
                .check_at(&pinned.sign(&claims(changes)), at)
                .await
                .is_ok());
        }
    }

    #[tokio::test]
    async fn a_kept_token_is_refused_once_past_its_exp() {
        let issuer = Issuer::start().await;
        let key = SigningKey::new("k1");
        issuer.publish(&[(&key, true)]).await;
        let check = issuer.check(None);
        let at = now();
        let exp = at + 60;
        let token = key.sign(&issuer.claims(at, json!({ "exp": exp })));
        assert!(check.check_at(&token, at).await.is_ok());
        assert!(check.check_at(&token, exp + LEEWAY).await.is_ok());
        assert_eq!(
            why(check.check_at(&token, exp + LEEWAY + 1).await),
            "it has expired"
        );
        // On the machine's own clock, an expired token is refused.
        let expired = key.sign(&issuer.claims(at - 3600, json!({})));
        assert_eq!(why(check.check(&expired).await), "it has expired");
    }

    #[tokio::test]
    async fn a_token_of_a_key_not_published_is_refused_for_five_minutes() {
        let issuer = Issuer::start().await;
        let (known, later) = (SigningKey::new("known"), SigningKey::new("later"));
        issuer.publish(&[(&known, true)]).await;
        let check = issuer.check(None);
        let at = now();
        let token = later.sign(&issuer.claims(at, json!({})));
        assert_eq!(why(check.check_at(&token, at).await), UNKNOWN_KEY);

        // Published now, the key checks the token only once the refusal
        // kept has run out.
        issuer.publish(&[(&known, true), (&later, true)]).await;
        let kept_until = at + REFUSAL_KEPT;
        assert_eq!(
            why(check.check_at(&token, kept_until - 1).await),
            UNKNOWN_KEY
        );
        assert!(check.check_at(&token, kept_until).await.is_ok());
    }

    #[tokio::test]
    async fn a_withdrawn_key_refuses_its_tokens_and_the_refusal_is_kept() {
        let issuer = Issuer::start().await;
        let (old, new) = (SigningKey::new("old"), SigningKey::new("new"));
        issuer.publish(&[(&old, true)]).await;
        let check = issuer.check(None);
        let at = now();
        let first = old.sign(&issuer.claims(at, json!({"sub": "first"})));
        assert!(check.check_at(&first, at).await.is_ok());

        // The issuer rotates: the fetch a token of the new key asks for
        // shows the old one gone.
        issuer.publish(&[(&new, true)]).await;
        let renewed = new.sign(&issuer.claims(at, json!({})));
        assert!(check.check_at(&renewed, at).await.is_ok());
        assert_eq!(why(check.check_at(&first, at).await), WITHDRAWN);
        let second = old.sign(&issuer.claims(at, json!({"sub": "second"})));
        assert_eq!(why(check.check_at(&second, at).await), WITHDRAWN);

        // Published again and fetched (for a token of a third key), the old
        // key checks tokens anew once the refusal kept has run out.
        let third = SigningKey::new("third");
        issuer
            .publish(&[(&old, true), (&new, true), (&third, true)])
            .await;
        let other = third.sign(&issuer.claims(at, json!({})));
        assert!(check.check_at(&other, at).await.is_ok());
        let kept_until = at + REFUSAL_KEPT;
        assert_eq!(
            why(check.check_at(&second, kept_until - 1).await),
            WITHDRAWN
        );
        assert!(check.check_at(&second, kept_until).await.is_ok());
    }

    fn refused_until(exp: u64) -> Kept {
        Kept {
            exp,
            verdict: Verdict::Refused(UNKNOWN_KEY),
        }
    }

    #[test]
    fn a_full_store_of_kept_tokens_drops_the_expired_first_then_all() {
        let check = TokenCheck::new(String::new(), Vec::new(), None, Vec::new()).expect("a check");
        let at = 1_000;
        let fingerprint = |n: usize| sha256(&n.to_le_bytes());
        // Half expired (one of them this very second), half still valid.
        for n in 0..KEPT_TOKENS {
            let exp = match n % 2 {
                0 if n == 0 => at,
                0 => at - 1,
                _ => at + 1,
            };
            check.keep(fingerprint(n), refused_until(exp), at);
        }
        check.keep(fingerprint(KEPT_TOKENS), refused_until(at + 1), at);
        let kept = check.lock();
        assert_eq!(kept.len(), KEPT_TOKENS / 2 + 1);
        assert!(kept.contains_key(&fingerprint(1)));
        assert!(!kept.contains_key(&fingerprint(0)));
        assert!(!kept.contains_key(&fingerprint(2)));
        drop(kept);

        // Full of valid tokens, it starts again empty.
        let check = TokenCheck::new(String::new(), Vec::new(), None, Vec::new()).expect("a check");
        for n in 0..KEPT_TOKENS {
            check.keep(fingerprint(n), refused_until(at + 1), at);
        }
        check.keep(fingerprint(KEPT_TOKENS), refused_until(at + 1), at);
        assert_eq!(check.lock().len(), 1);
    }

    #[test]
    fn an_hmac_is_never_taken() {
        for algorithm in [Algorithm::HS256, Algorithm::HS384, Algorithm::HS512] {
            let built = TokenCheck::new(String::new(), Vec::new(), None, vec![algorithm]);
            assert!(matches!(built, Err(GateError::SymmetricAlgorithm(_))));
        }
    }

    #[test]
    fn the_clock_reads_seconds_since_1970() {
        let seconds = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("after 1970")
            .as_secs();
        assert!(now().abs_diff(seconds) <= 1);
    }
}
