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
    port: u16,
    config: PathBuf,
    /// Where its stderr goes, quoted when it fails to start.
    log: PathBuf,
}

impl AuthorizationServer {
    /// Starts one on a port of the kernel's choosing (no other process can
    /// take it between a pick and the bind), issuing tokens for `resources`
    /// (the first when a request names none), keeping its signing keys in
    /// `state_dir`. A gateway started after it names its issuer; its
    /// resources are given then with [`AuthorizationServer::serve`].
    pub fn start(state_dir: &Path, resources: &[String]) -> Self {
        Self::start_with(0, state_dir, resources, 300)
    }

    /// Starts it again on `port`, the one it had: with the keys kept in
    /// `state_dir`, the same server.
    pub fn start_on(port: u16, state_dir: &Path, resources: &[String]) -> Self {
        Self::start_with(port, state_dir, resources, 300)
    }

    /// As [`AuthorizationServer::start`] on `port` (0: the kernel's
    /// choice), its tokens living `ttl` seconds.
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
            port: 0,
            config,
            log: state_dir.join("server.log"),
        };
        server.run();
        server
    }

    fn run(&mut self) {
        let folder = node_client();
        let log = std::fs::File::create(&self.log).expect("the server's log is made");
        let mut child = Command::new("node")
            .arg(folder.join("authorization_server.mjs"))
            .arg(&self.config)
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("node starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the server says where it listens");
        let said: Value = serde_json::from_str(&line).unwrap_or_else(|_| {
            let _ = child.wait();
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            panic!("the authorization server did not start: {line:?}\n{log}")
        });
        self.issuer = said["issuer"].as_str().expect("an issuer").to_owned();
        self.port = said["port"].as_u64().expect("a port") as u16;
        self.process = Some(KillOnDrop::new(child));
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Issues tokens for `resources` from now on, the first the default.
    pub async fn serve(&self, resources: &[String]) {
        let answer = self
            .control("resources", Some(json!({ "resources": resources })))
            .await;
        assert_eq!(answer["resources"], json!(resources), "{answer}");
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
