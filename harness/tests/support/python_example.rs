//! The example Python gateway (`examples/python-gateway`), as the tests
//! that judge it start it: its venv, installed by the project's one
//! installer, and its fork server.

use std::{
    io::{Read, Write},
    os::unix::net::UnixStream,
    path::{Path, PathBuf},
    process::{Command, Output},
    sync::Mutex,
    time::Duration,
};

/// The workspace's root.
pub fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The example's folder.
pub fn gateway_dir() -> PathBuf {
    workspace().join("examples/python-gateway")
}

/// The venv's python with the gateway's requirements installed, by the
/// project's one installer (`scripts/python-venv`).
pub fn python() -> PathBuf {
    static INSTALL: Mutex<()> = Mutex::new(());
    let _guard = INSTALL.lock().unwrap_or_else(|p| p.into_inner());
    let output = checked(
        Command::new(workspace().join("scripts/python-venv"))
            .arg(Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-example-gateway"))
            .arg(gateway_dir().join("requirements.txt")),
    );
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}

/// Runs `command`, and fails the test unless it succeeds.
pub fn checked(command: &mut Command) -> Output {
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

/// The fork server of one test: the first launch through it starts it
/// (`launch.py`), and it is stopped when this is dropped, even on a panic
/// (left alone, it would exit after 30 idle seconds).
pub struct ForkServer {
    pub socket: PathBuf,
}

impl ForkServer {
    pub fn new(name: &str) -> Self {
        // In the temporary directory: a Unix socket's path is short (108
        // bytes), and a checkout's may be long.
        let socket = std::env::temp_dir().join(format!(
            "hosted-mcp-example-{}-{name}.sock",
            std::process::id()
        ));
        let server = Self { socket };
        server.remove_files();
        server
    }

    fn file(&self, suffix: &str) -> PathBuf {
        let mut name = self.socket.clone().into_os_string();
        name.push(suffix);
        name.into()
    }

    fn remove_files(&self) {
        for suffix in ["", ".lock", ".log"] {
            let _ = std::fs::remove_file(self.file(suffix));
        }
    }

    /// Launches that could not reach the fork server and started the
    /// gateway the plain way (correct, but slow), as its log says.
    pub fn fallbacks(&self) -> Vec<String> {
        std::fs::read_to_string(self.file(".log"))
            .unwrap_or_default()
            .lines()
            .filter(|line| line.starts_with("launch.py"))
            .map(str::to_owned)
            .collect()
    }
}

impl Drop for ForkServer {
    fn drop(&mut self) {
        if let Ok(mut stream) = UnixStream::connect(&self.socket) {
            // A 4-byte big-endian length, then the request (forkserver.py).
            let _ = stream.write_all(b"\0\0\0\x04stop");
            // It closes the connection once it has stopped: its gateways
            // killed, its socket's path gone.
            let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
            let _ = stream.read(&mut [0; 1]);
        }
        self.remove_files();
    }
}
