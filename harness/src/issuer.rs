//! The harness's own authorization server (`--client-auth oauth`): what a
//! gateway that checks its agents' tokens (MCP authorization, an OAuth 2.1
//! resource server) is told to trust, on loopback.
//!
//! It serves its metadata (RFC 8414 at `/.well-known/oauth-authorization-server`,
//! and the same as OpenID Connect discovery), its keys as a JWKS, and a token
//! endpoint where the harness's client gets its tokens (client credentials,
//! with RFC 8707's `resource`). Tokens are JWTs signed with RS256, the one
//! algorithm every verifier in the field takes (OpenID Connect makes it the
//! only mandatory one). The keys are RSA keys made afresh for each run;
//! `ring`, the crypto the harness already builds, cannot make RSA keys, so
//! the `rsa` crate makes them, and `jsonwebtoken` (on `ring`) signs.
//!
//! A scenario can rotate a key in, or withdraw one, at an issuer of its own
//! ([`Issuer::another`]): the run's issuer serves every other scenario at
//! once, and its keys never change. Tokens no authorization server would
//! issue (expired, for another audience, unsigned, ...) are made by
//! [`Issuer::forged`], for the scenarios that check they are refused.
//! Every token minted is remembered, so the run's reports mask them all.

use std::{
    convert::Infallible,
    sync::{Arc, Mutex},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use anyhow::{bail, Context as _};
use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine as _};
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::{body::Incoming, Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use jsonwebtoken::{crypto, Algorithm, EncodingKey};
use rsa::{
    pkcs1::EncodeRsaPrivateKey as _, pkcs8::EncodePublicKey as _, traits::PublicKeyParts as _,
    RsaPrivateKey,
};
use serde_json::{json, Value};
use tokio::{net::TcpListener, task::JoinHandle};

/// Where the RFC 8414 metadata is.
const RFC8414_PATH: &str = "/.well-known/oauth-authorization-server";
/// Where OpenID Connect discovery looks.
const OPENID_PATH: &str = "/.well-known/openid-configuration";
const JWKS_PATH: &str = "/jwks";
const TOKEN_PATH: &str = "/token";

/// The harness's client at its own authorization server.
pub const CLIENT_ID: &str = "hosted-mcp-conformance";

/// How long the tokens the token endpoint issues are valid.
const TOKEN_LIFETIME: Duration = Duration::from_secs(3600);

/// The size of the run's RSA keys: the least any verifier takes.
const KEY_BITS: usize = 2048;

/// A signing key of the run, with what its JWK and the HMAC attack need.
struct SigningKey {
    encoding: EncodingKey,
    /// The modulus and exponent, base64url, as a JWK writes them.
    n: String,
    e: String,
    /// The public key as PEM (SubjectPublicKeyInfo): what a verifier that
    /// takes the token's word for its algorithm uses as an HMAC secret.
    public_pem: String,
}

impl SigningKey {
    fn generate() -> anyhow::Result<Self> {
        let private = RsaPrivateKey::new(&mut rsa::rand_core::OsRng, KEY_BITS)
            .context("cannot make an RSA key")?;
        let der = private
            .to_pkcs1_der()
            .context("cannot write the RSA key as DER")?;
        let public_pem = private
            .to_public_key()
            .to_public_key_pem(rsa::pkcs8::LineEnding::LF)
            .context("cannot write the RSA public key as PEM")?;
        Ok(Self {
            encoding: EncodingKey::from_rsa_der(der.as_bytes()),
            n: URL_SAFE_NO_PAD.encode(private.n().to_bytes_be()),
            e: URL_SAFE_NO_PAD.encode(private.e().to_bytes_be()),
            public_pem,
        })
    }
}

/// Which of the run's two keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyId {
    /// The key every issuer publishes from the start.
    First,
    /// The key a rotation brings in; never published at the run's issuer.
    Second,
}

impl KeyId {
    /// The key's `kid`.
    pub fn kid(self) -> &'static str {
        match self {
            Self::First => "conformance-key-1",
            Self::Second => "conformance-key-2",
        }
    }
}

/// What the issuers of one run share: the keys, and every token minted.
struct Shared {
    keys: [SigningKey; 2],
    minted: Mutex<Vec<String>>,
    client_secret: String,
}

/// An authorization server on loopback, serving until it is dropped.
pub struct Issuer {
    url: String,
    shared: Arc<Shared>,
    /// The keys its JWKS publishes.
    published: Arc<Mutex<Vec<KeyId>>>,
    server: JoinHandle<()>,
}

impl std::fmt::Debug for Issuer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Issuer").field("url", &self.url).finish()
    }
}

impl Drop for Issuer {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// A token as a scenario wants it forged.
#[derive(Debug, Clone)]
pub struct Forgery {
    /// The `aud` claim.
    pub audience: String,
    /// The `iss` claim: the issuer's own URL unless given.
    pub issuer: Option<String>,
    /// The `scope` claim; none when `None`.
    pub scope: Option<String>,
    /// Seconds from now to `exp` (negative: expired).
    pub expires_in: i64,
    /// Seconds from now to `nbf`, if it has one.
    pub not_before: Option<i64>,
    pub signature: Signature,
}

/// How a forged token is signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signature {
    /// RS256 with `key`, its header naming `kid`'s key.
    Rs256 { key: KeyId, kid: KeyId },
    /// `alg: none`, no signature.
    None,
    /// HS256 with the public key's PEM of `kid` as the secret, its header
    /// naming that key.
    HmacWithPublicKey { kid: KeyId },
}

impl Forgery {
    /// A good token for `audience`: what the issuer would issue.
    pub fn good(audience: &str, scope: Option<&str>) -> Self {
        Self {
            audience: audience.to_owned(),
            issuer: None,
            scope: scope.map(str::to_owned),
            expires_in: 600,
            not_before: None,
            signature: Signature::Rs256 {
                key: KeyId::First,
                kid: KeyId::First,
            },
        }
    }
}

impl Issuer {
    /// Makes the run's keys and starts the run's authorization server.
    pub async fn start() -> anyhow::Result<Arc<Self>> {
        let keys = tokio::task::spawn_blocking(|| {
            // Two keys on two threads: each is a search for primes.
            let second = std::thread::spawn(SigningKey::generate);
            let first = SigningKey::generate()?;
            let second = second
                .join()
                .map_err(|_| anyhow::anyhow!("making an RSA key panicked"))??;
            anyhow::Ok([first, second])
        })
        .await
        .context("making the run's keys failed")??;
        let shared = Arc::new(Shared {
            keys,
            minted: Mutex::default(),
            client_secret: crate::random::fresh_hex(),
        });
        Self::serve(shared).await
    }

    /// An issuer of its own for one scenario, with the run's keys and the
    /// first one published, whose keys the scenario may change.
    pub async fn another(&self) -> anyhow::Result<Arc<Self>> {
        Self::serve(Arc::clone(&self.shared)).await
    }

    async fn serve(shared: Arc<Shared>) -> anyhow::Result<Arc<Self>> {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .context("the authorization server cannot bind a loopback port")?;
        let url = format!("http://127.0.0.1:{}", listener.local_addr()?.port());
        let published = Arc::new(Mutex::new(vec![KeyId::First]));
        let state = Arc::new(State {
            url: url.clone(),
            shared: Arc::clone(&shared),
            published: Arc::clone(&published),
        });
        let server = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let state = Arc::clone(&state);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let state = Arc::clone(&state);
                        async move { Ok::<_, Infallible>(state.answer(request).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(Arc::new(Self {
            url,
            shared,
            published,
            server,
        }))
    }

    /// The issuer's URL, as tokens' `iss` and its metadata name it.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Where its keys are.
    pub fn jwks_uri(&self) -> String {
        format!("{}{JWKS_PATH}", self.url)
    }

    /// Publishes `key` beside the keys published (a rotation).
    pub fn publish(&self, key: KeyId) {
        let mut published = self.published.lock().unwrap_or_else(|e| e.into_inner());
        if !published.contains(&key) {
            published.push(key);
        }
    }

    /// Stops publishing `key` (a withdrawal).
    pub fn withdraw(&self, key: KeyId) {
        self.published
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|k| *k != key);
    }

    /// A token for the harness's client from the token endpoint, over
    /// HTTP as any client gets one: for `resource`, with `scope` if given.
    pub async fn client_token(
        &self,
        resource: &str,
        scope: Option<&str>,
    ) -> anyhow::Result<String> {
        let mut form = vec![
            ("grant_type", "client_credentials"),
            ("client_id", CLIENT_ID),
            ("client_secret", self.shared.client_secret.as_str()),
            ("resource", resource),
        ];
        if let Some(scope) = scope {
            form.push(("scope", scope));
        }
        let body = form
            .iter()
            .map(|(name, value)| format!("{name}={}", form_encoded(value)))
            .collect::<Vec<_>>()
            .join("&");
        let answer = crate::wire::http_client()
            .post(format!("{}{TOKEN_PATH}", self.url))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(body)
            .timeout(Duration::from_secs(10))
            .send()
            .await
            .context("the harness's authorization server did not answer")?;
        let status = answer.status();
        let answer: Value = answer
            .json()
            .await
            .context("the token endpoint's answer is not JSON")?;
        match answer.get("access_token").and_then(Value::as_str) {
            Some(token) if status.is_success() => Ok(token.to_owned()),
            _ => bail!("the token endpoint refused the harness's client ({status}): {answer}"),
        }
    }

    /// A token made as `forgery` says, remembered for masking.
    pub fn forged(&self, forgery: &Forgery) -> anyhow::Result<String> {
        let now = unix_now();
        let mut claims = json!({
            "iss": forgery.issuer.as_deref().unwrap_or(&self.url),
            "sub": CLIENT_ID,
            "client_id": CLIENT_ID,
            "aud": forgery.audience,
            "iat": now,
            "exp": now.saturating_add_signed(forgery.expires_in),
            "jti": crate::random::fresh_hex(),
        });
        if let Some(offset) = forgery.not_before {
            claims["nbf"] = json!(now.saturating_add_signed(offset));
        }
        if let Some(scope) = &forgery.scope {
            claims["scope"] = json!(scope);
        }
        let token = self.shared.sign(&claims, forgery.signature)?;
        self.shared.remember(&token);
        Ok(token)
    }

    /// Every token minted so far by this run's issuers.
    pub fn minted(&self) -> Vec<String> {
        self.shared
            .minted
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl Shared {
    fn key(&self, id: KeyId) -> &SigningKey {
        match id {
            KeyId::First => &self.keys[0],
            KeyId::Second => &self.keys[1],
        }
    }

    fn remember(&self, token: &str) {
        self.minted
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(token.to_owned());
    }

    /// `claims` as a JWT signed as `signature` says.
    fn sign(&self, claims: &Value, signature: Signature) -> anyhow::Result<String> {
        let (alg, kid) = match signature {
            Signature::Rs256 { kid, .. } => ("RS256", Some(kid)),
            Signature::None => ("none", None),
            Signature::HmacWithPublicKey { kid } => ("HS256", Some(kid)),
        };
        let mut header = json!({"alg": alg, "typ": "JWT"});
        if let Some(kid) = kid {
            header["kid"] = json!(kid.kid());
        }
        let message = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signed = match signature {
            Signature::Rs256 { key, .. } => crypto::sign(
                message.as_bytes(),
                &self.key(key).encoding,
                Algorithm::RS256,
            )?,
            Signature::None => String::new(),
            Signature::HmacWithPublicKey { kid } => crypto::sign(
                message.as_bytes(),
                &EncodingKey::from_secret(self.key(kid).public_pem.as_bytes()),
                Algorithm::HS256,
            )?,
        };
        Ok(format!("{message}.{signed}"))
    }
}

/// What the server's connections answer from.
struct State {
    url: String,
    shared: Arc<Shared>,
    published: Arc<Mutex<Vec<KeyId>>>,
}

impl State {
    async fn answer(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        let (parts, body) = request.into_parts();
        match (&parts.method, parts.uri.path()) {
            (&Method::GET, RFC8414_PATH) => json_answer(StatusCode::OK, &self.metadata(false)),
            (&Method::GET, OPENID_PATH) => json_answer(StatusCode::OK, &self.metadata(true)),
            (&Method::GET, JWKS_PATH) => json_answer(StatusCode::OK, &self.jwks()),
            (&Method::POST, TOKEN_PATH) => {
                let body = body
                    .collect()
                    .await
                    .map(|b| b.to_bytes())
                    .unwrap_or_default();
                let (status, answer) = self.token(&String::from_utf8_lossy(&body));
                json_answer(status, &answer)
            }
            _ => json_answer(StatusCode::NOT_FOUND, &json!({"error": "not_found"})),
        }
    }

    fn metadata(&self, openid: bool) -> Value {
        let url = &self.url;
        let mut metadata = json!({
            "issuer": url,
            "jwks_uri": format!("{url}{JWKS_PATH}"),
            "token_endpoint": format!("{url}{TOKEN_PATH}"),
            "grant_types_supported": ["client_credentials"],
            "token_endpoint_auth_methods_supported": ["client_secret_post"],
            // No authorization endpoint: its one client uses client credentials.
            "response_types_supported": [],
        });
        if openid {
            metadata["subject_types_supported"] = json!(["public"]);
            metadata["id_token_signing_alg_values_supported"] = json!(["RS256"]);
        }
        metadata
    }

    fn jwks(&self) -> Value {
        let published = self
            .published
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let keys: Vec<Value> = published
            .iter()
            .map(|id| {
                let key = self.shared.key(*id);
                json!({
                    "kty": "RSA", "use": "sig", "alg": "RS256", "kid": id.kid(),
                    "n": key.n, "e": key.e,
                })
            })
            .collect();
        json!({ "keys": keys })
    }

    /// The token endpoint: client credentials for the harness's client, a
    /// token for the `resource` asked for, signed with a published key.
    fn token(&self, form: &str) -> (StatusCode, Value) {
        let field = |name: &str| {
            form.split('&')
                .filter_map(|pair| pair.split_once('='))
                .find(|(key, _)| *key == name)
                .map(|(_, value)| form_decoded(value))
        };
        let refuse = |status, error: &str| (status, json!({ "error": error }));
        if field("grant_type").as_deref() != Some("client_credentials") {
            return refuse(StatusCode::BAD_REQUEST, "unsupported_grant_type");
        }
        let secret_ok =
            field("client_secret").is_some_and(|secret| secret == self.shared.client_secret);
        if field("client_id").as_deref() != Some(CLIENT_ID) || !secret_ok {
            return refuse(StatusCode::UNAUTHORIZED, "invalid_client");
        }
        let Some(resource) = field("resource").filter(|r| !r.is_empty()) else {
            return refuse(StatusCode::BAD_REQUEST, "invalid_target");
        };
        let scope = field("scope").filter(|s| !s.is_empty());
        let key = self
            .published
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .first()
            .copied();
        let Some(key) = key else {
            return refuse(StatusCode::SERVICE_UNAVAILABLE, "temporarily_unavailable");
        };
        let now = unix_now();
        let mut claims = json!({
            "iss": self.url,
            "sub": CLIENT_ID,
            "client_id": CLIENT_ID,
            "aud": resource,
            "iat": now,
            "exp": now + TOKEN_LIFETIME.as_secs(),
            "jti": crate::random::fresh_hex(),
        });
        if let Some(scope) = &scope {
            claims["scope"] = json!(scope);
        }
        match self
            .shared
            .sign(&claims, Signature::Rs256 { key, kid: key })
        {
            Ok(token) => {
                self.shared.remember(&token);
                let mut answer = json!({
                    "access_token": token,
                    "token_type": "Bearer",
                    "expires_in": TOKEN_LIFETIME.as_secs(),
                });
                if let Some(scope) = scope {
                    answer["scope"] = json!(scope);
                }
                (StatusCode::OK, answer)
            }
            Err(_) => refuse(StatusCode::INTERNAL_SERVER_ERROR, "server_error"),
        }
    }
}

fn json_answer(status: StatusCode, value: &Value) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response.headers_mut().insert(
        hyper::header::CACHE_CONTROL,
        hyper::header::HeaderValue::from_static("no-store"),
    );
    response
}

fn form_encoded(value: &str) -> String {
    percent_encoding::utf8_percent_encode(value, percent_encoding::NON_ALPHANUMERIC).to_string()
}

fn form_decoded(value: &str) -> String {
    percent_encoding::percent_decode_str(&value.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned()
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims_of(token: &str) -> Value {
        let payload = token.split('.').nth(1).unwrap();
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap()
    }

    fn header_of(token: &str) -> Value {
        let header = token.split('.').next().unwrap();
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(header).unwrap()).unwrap()
    }

    #[tokio::test]
    async fn serves_metadata_keys_and_tokens_that_verify() {
        let issuer = Issuer::start().await.unwrap();
        let http = crate::wire::http_client();
        for path in [RFC8414_PATH, OPENID_PATH] {
            let metadata: Value = http
                .get(format!("{}{path}", issuer.url()))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            assert_eq!(metadata["issuer"], issuer.url());
            assert_eq!(metadata["jwks_uri"], issuer.jwks_uri());
        }
        let jwks: jsonwebtoken::jwk::JwkSet = http
            .get(issuer.jwks_uri())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(jwks.keys.len(), 1);
        let token = issuer
            .client_token("http://127.0.0.1:9/mcp", Some("mcp:read mcp:write"))
            .await
            .unwrap();
        let key = jsonwebtoken::DecodingKey::from_jwk(&jwks.keys[0]).unwrap();
        let mut validation = jsonwebtoken::Validation::new(Algorithm::RS256);
        validation.set_audience(&["http://127.0.0.1:9/mcp"]);
        validation.set_issuer(&[issuer.url()]);
        let data = jsonwebtoken::decode::<Value>(&token, &key, &validation).unwrap();
        assert_eq!(data.claims["scope"], "mcp:read mcp:write");
        assert_eq!(data.header.kid.as_deref(), Some(KeyId::First.kid()));
        assert!(issuer.minted().contains(&token));

        // A forgery signed by the second key under the first's kid does not verify.
        let forged = issuer
            .forged(&Forgery {
                signature: Signature::Rs256 {
                    key: KeyId::Second,
                    kid: KeyId::First,
                },
                ..Forgery::good("http://127.0.0.1:9/mcp", None)
            })
            .unwrap();
        assert!(jsonwebtoken::decode::<Value>(&forged, &key, &validation).is_err());
        assert!(issuer.minted().contains(&forged));
    }

    #[tokio::test]
    async fn forges_what_no_authorization_server_issues() {
        let issuer = Issuer::start().await.unwrap();
        let none = issuer
            .forged(&Forgery {
                signature: Signature::None,
                ..Forgery::good("aud", None)
            })
            .unwrap();
        assert!(none.ends_with('.'));
        assert_eq!(header_of(&none)["alg"], "none");
        let hmac = issuer
            .forged(&Forgery {
                signature: Signature::HmacWithPublicKey { kid: KeyId::First },
                ..Forgery::good("aud", None)
            })
            .unwrap();
        assert_eq!(header_of(&hmac)["alg"], "HS256");
        let secret = issuer.shared.key(KeyId::First).public_pem.clone();
        let mut validation = jsonwebtoken::Validation::new(Algorithm::HS256);
        validation.set_audience(&["aud"]);
        jsonwebtoken::decode::<Value>(
            &hmac,
            &jsonwebtoken::DecodingKey::from_secret(secret.as_bytes()),
            &validation,
        )
        .unwrap();
        let expired = issuer
            .forged(&Forgery {
                expires_in: -600,
                not_before: Some(-900),
                issuer: Some("http://elsewhere.example".to_owned()),
                ..Forgery::good("aud", Some("s"))
            })
            .unwrap();
        let claims = claims_of(&expired);
        assert_eq!(claims["iss"], "http://elsewhere.example");
        assert!(claims["exp"].as_u64().unwrap() < unix_now());
        assert_eq!(claims["scope"], "s");
    }

    #[tokio::test]
    async fn a_scenario_s_own_issuer_rotates_and_withdraws_keys() {
        let run = Issuer::start().await.unwrap();
        let own = run.another().await.unwrap();
        assert_ne!(own.url(), run.url());
        own.publish(KeyId::Second);
        own.withdraw(KeyId::First);
        let http = crate::wire::http_client();
        let kids = |jwks: Value| -> Vec<String> {
            jwks["keys"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k["kid"].as_str().unwrap().to_owned())
                .collect()
        };
        let own_keys: Value = http
            .get(own.jwks_uri())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(kids(own_keys), [KeyId::Second.kid()]);
        let run_keys: Value = http
            .get(run.jwks_uri())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(kids(run_keys), [KeyId::First.kid()]);
        // A wrong secret gets no token.
        let refused = http
            .post(format!("{}{TOKEN_PATH}", run.url()))
            .body("grant_type=client_credentials&client_id=hosted-mcp-conformance&client_secret=x&resource=r")
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 401);
    }
}
