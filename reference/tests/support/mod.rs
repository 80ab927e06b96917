//! What the tests that launch the gateway binary share.

#![allow(dead_code)] // each test file uses its own part

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub const GATEWAY: &str = env!("CARGO_BIN_EXE_hosted-mcp-gateway");

/// The petstore document of `fixtures/`.
pub fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/petstore.yaml")
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
