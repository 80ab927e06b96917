//! What the tests that launch the gateway binary share.

#![allow(dead_code)] // each test file uses its own part

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;
use std::time::{Duration, Instant};

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
        .stdout(std::process::Stdio::null());
    command
}

/// A loopback port free at the time of asking.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Waits until something accepts connections on `port`, at most 10 s.
pub fn wait_listening(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "the gateway never listened on {port}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
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
