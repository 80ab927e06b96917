//! Agents' credentials for the callpath bench: a key and its keys file, and
//! an access token with the authorization server that issued it (its
//! metadata and keys, served in this process), so that the cost of letting
//! an agent in shows beside the same call without.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::Path;

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use ring::signature::{EcdsaKeyPair, KeyPair as _, ECDSA_P256_SHA256_FIXED_SIGNING};

/// Where the token path's gateway says agents reach it (its tokens'
/// audience is this and `/mcp`): it listens on a port picked at start-up.
pub const PUBLIC_URL: &str = "http://callpath.test";

/// The key the key path's agent shows.
pub const KEY: &str = "callpath-agent-key-8d2c41";

/// Writes a keys file holding [`KEY`]'s line to `path`.
pub fn write_keys_file(path: &Path) {
    let line = hosted_mcp_gateway::agents::line_for(KEY, "callpath");
    std::fs::write(path, format!("{line}\n")).expect("the keys file is written");
}

/// An authorization server of one ES256 key, serving its RFC 8414
/// metadata and its JWKS on loopback.
pub struct Issuer {
    pub url: String,
    pair: Vec<u8>,
}

const KID: &str = "callpath-key-1";

impl Issuer {
    pub async fn start() -> Issuer {
        let random = ring::rand::SystemRandom::new();
        let pair = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &random)
            .expect("a key pair")
            .as_ref()
            .to_vec();
        let public = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &pair, &random)
            .expect("the pair reads")
            .public_key()
            .as_ref()
            .to_vec();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let address: SocketAddr = listener.local_addr().expect("an address");
        let url = format!("http://{address}");
        let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        // The uncompressed point: 0x04, then x and y of 32 bytes each.
        let jwks = serde_json::json!({"keys": [{
            "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": KID,
            "x": b64(&public[1..33]), "y": b64(&public[33..65]),
        }]})
        .to_string();
        let metadata = serde_json::json!({
            "issuer": url, "jwks_uri": format!("{url}/jwks"),
            "token_endpoint": format!("{url}/token"),
        })
        .to_string();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let (jwks, metadata) = (jwks.clone(), metadata.clone());
                tokio::spawn(async move {
                    let answer =
                        hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                            let body = match request.uri().path() {
                                "/jwks" => jwks.clone(),
                                _ => metadata.clone(),
                            };
                            async move {
                                Ok::<_, Infallible>(hyper::Response::new(Full::new(Bytes::from(
                                    body,
                                ))))
                            }
                        });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), answer)
                        .await;
                });
            }
        });
        Issuer { url, pair }
    }

    /// An access token for `resource`, valid for an hour.
    pub fn token(&self, resource: &str) -> String {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_secs();
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.kid = Some(KID.to_owned());
        header.typ = Some("at+jwt".to_owned());
        let claims = serde_json::json!({
            "iss": self.url, "aud": resource, "sub": "callpath-agent",
            "client_id": "callpath-agent", "scope": "mcp:read mcp:write",
            "iat": now, "exp": now + 3600,
        });
        jsonwebtoken::encode(
            &header,
            &claims,
            &jsonwebtoken::EncodingKey::from_ec_der(&self.pair),
        )
        .expect("the token is signed")
    }
}
