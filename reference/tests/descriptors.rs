//! Out of file descriptors, the HTTP gateway neither spins nor stops: under a
//! low `RLIMIT_NOFILE` (set with util-linux's `prlimit`), more connections
//! than it may hold wait in the backlog while it backs off, and once they
//! close it answers again.

#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{fixture, start_listening, KillOnDrop, GATEWAY};
/// Descriptors the gateway may hold: a dozen for itself, the rest for clients.
const DESCRIPTORS: u32 = 32;
/// Connections opened at once: well past what the limit leaves.
const CONNECTIONS: usize = 64;

struct Gateway {
    child: KillOnDrop,
    port: u16,
}

impl Gateway {
    fn start() -> Gateway {
        // prlimit (util-linux) execs the gateway: the same pid.
        let server = start_listening(|port| {
            let mut command = Command::new("prlimit");
            command
                .arg(format!("--nofile={DESCRIPTORS}:{DESCRIPTORS}"))
                .arg("--")
                .arg(GATEWAY)
                .args(["serve", "--openapi"])
                .arg(fixture())
                .args(["--base-url", "http://127.0.0.1:9", "--listen"])
                .arg(format!("127.0.0.1:{port}"))
                .stdout(Stdio::null());
            command
        });
        Gateway {
            child: server.child,
            port: server.port,
        }
    }

    /// CPU time the gateway has used so far (prlimit execs it: same pid).
    fn cpu(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id()))
            .expect("the gateway is running");
        // Fields after the command name, which is in parentheses.
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        // USER_HZ is 100 on Linux.
        Duration::from_millis(ticks * 10)
    }

    /// The HTTP status of an MCP `initialize` POST.
    fn initialize(&self) -> String {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            self.port,
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer.lines().next().unwrap_or_default().to_owned()
    }
}

#[test]
fn out_of_descriptors_the_gateway_backs_off_and_recovers() {
    let gateway = Gateway::start();
    assert!(gateway.initialize().contains(" 200 "), "answers at first");

    let held: Vec<TcpStream> = (0..CONNECTIONS)
        .map(|_| TcpStream::connect(("127.0.0.1", gateway.port)).expect("the backlog takes it"))
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let before = gateway.cpu();
    std::thread::sleep(Duration::from_secs(2));
    let used = gateway.cpu() - before;
    // A loop that retries at once burns the whole 2 s; backing off, almost
    // nothing. The bound is loose so a loaded machine cannot trip it.
    assert!(
        used < Duration::from_millis(500),
        "the gateway spun while out of descriptors: {used:?} of CPU in 2 s"
    );

    drop(held);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = gateway.initialize();
        if status.contains(" 200 ") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no answer once the connections closed: {status:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
