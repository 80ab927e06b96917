//! A real OAuth authorization server for the tests: oidc-provider (npm,
//! OpenID Certified), run by `tests/node/authorization_server.mjs`,
//! installed with the node client's pinned packages.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use super::{http_client, node_client, KillOnDrop};

/// The clients every server knows, with the scopes each may have.
pub const READ_WRITE_CLIENT: (&str, &str) = ("agent-rw", "rw-secret-9c1d7e02f4a6");
pub const READ_ONLY_CLIENT: (&str, &str) = ("agent-ro", "ro-secret-3b8f51c0d2e9");

/// A running authorization server.
pub struct AuthorizationServer {
    process: Option<KillOnDrop>,
    pub issuer: String,
    config: PathBuf,
}

impl AuthorizationServer {
    /// Starts one on `port` that issues tokens for `resources` (the first
    /// when a request names none), keeping its signing keys in `state_dir`,
    /// so that started again on the same port it is the same server.
    pub fn start_on(port: u16, state_dir: &Path, resources: &[String]) -> Self {
        Self::start_with(port, state_dir, resources, 300)
    }

    /// As [`AuthorizationServer::start_on`], its tokens living `ttl`
    /// seconds.
    pub fn start_with(port: u16, state_dir: &Path, resources: &[String], ttl: u64) -> Self {
        std::fs::create_dir_all(state_dir).expect("the state folder is made");
        let config = state_dir.join("config.json");
        let clients = [
            (READ_WRITE_CLIENT, "mcp:read mcp:write"),
            (READ_ONLY_CLIENT, "mcp:read"),
        ]
        .map(|((client_id, client_secret), scope)| {
            json!({"client_id": client_id, "client_secret": client_secret, "scope": scope})
        });
        let settings = json!({
            "port": port,
            "state_dir": state_dir,
            "clients": clients,
            "resources": resources,
            "default_resource": resources.first(),
            "access_token_ttl": ttl,
        });
        std::fs::write(&config, settings.to_string()).expect("the config is written");
        let mut server = AuthorizationServer {
            process: None,
            issuer: String::new(),
            config,
        };
        server.run();
        server
    }

    fn run(&mut self) {
        let folder = node_client();
        let mut child = Command::new("node")
            .arg(folder.join("authorization_server.mjs"))
            .arg(&self.config)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the server says where it listens");
        let said: Value = serde_json::from_str(&line)
            .unwrap_or_else(|_| panic!("the authorization server did not start: {line:?}"));
        self.issuer = said["issuer"].as_str().expect("an issuer").to_owned();
        self.process = Some(KillOnDrop::new(child));
    }

    /// Stops it, as an outage would.
    pub fn stop(&mut self) {
        self.process = None;
    }

    /// Freezes it (SIGSTOP), as a stalled server: connections are taken by
    /// the kernel and never answered.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// Lets it run again (SIGCONT).
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, which: &str) {
        let process = self.process.as_ref().expect("the server runs");
        let sent = Command::new("kill")
            .args([which, &process.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "kill {which} failed");
    }

    /// An access token by the client-credentials grant, for `resource`.
    pub async fn token(&self, client: (&str, &str), scope: &str, resource: &str) -> String {
        let response = http()
            .post(format!("{}/token", self.issuer))
            .basic_auth(client.0, Some(client.1))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(
                url::form_urlencoded::Serializer::new(String::new())
                    .append_pair("grant_type", "client_credentials")
                    .append_pair("scope", scope)
                    .append_pair("resource", resource)
                    .finish(),
            )
            .send()
            .await
            .expect("the token endpoint answers");
        let answer: Value = response.json().await.expect("JSON");
        answer["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no token: {answer}"))
            .to_owned()
    }

    /// A token made by hand: `valid`, or one of the broken kinds the server
    /// knows (expired, not_yet_valid, wrong_issuer, bad_signature, alg_none,
    /// hs256_public_key, malformed_header, unknown_kid, old_kid).
    pub async fn mint(&self, kind: &str, audience: &str, scope: &str) -> String {
        let answer = self
            .control(
                "mint",
                Some(json!({"kind": kind, "audience": audience, "scope": scope})),
            )
            .await;
        answer["token"]
            .as_str()
            .unwrap_or_else(|| panic!("not minted: {answer}"))
            .to_owned()
    }

    /// Withdraws the signing key for a new one.
    pub async fn rotate(&self) {
        self.control("rotate", Some(json!({}))).await;
    }

    /// How many requests each of its endpoints had.
    pub async fn counts(&self) -> Value {
        self.control("counts", None).await
    }

    async fn control(&self, what: &str, body: Option<Value>) -> Value {
        let url = format!("{}/_test/{what}", self.issuer);
        let client = http();
        let request = match body {
            Some(body) => client.post(url).json(&body),
            None => client.get(url),
        };
        request
            .send()
            .await
            .expect("the test control answers")
            .json()
            .await
            .expect("JSON")
    }
}

fn http() -> reqwest::Client {
    http_client().build().expect("a client")
}
