//! A run stopped by Ctrl-C (SIGINT) or SIGTERM leaves nothing behind: every
//! launched gateway is killed with all it started, the temporary folders
//! are removed, the summary so far is printed, and the exit status is 130
//! or 143 (issue 18: gateways survived with PPID 1, and 32 folders stayed).

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::Mutex,
    time::{Duration, Instant},
};

use hosted_mcp_conformance::{kit, reference};

/// One run at a time: each counts the processes it launched.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Launches wrapped as LAUNCH.md suggests, `sh -c`, with a grandchild the
/// wrapper leaves in the background; both write their ids to a file.
fn wrapped_gateway(ids: &Path) -> String {
    let exe = Path::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"));
    let reference = reference::binary_for(exe).expect("the reference gateway builds");
    format!(
        "sh -c 'sleep 1000 & echo $$ $! >> {}; exec {} serve --openapi {{openapi}} --base-url {{base_url}} --listen 127.0.0.1:{{port}}'",
        ids.display(),
        reference.display()
    )
}

/// Whether the process `id` still runs (a zombie has ended).
fn running(id: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{id}/stat"))
        .ok()
        .and_then(|stat| {
            let (_, after_name) = stat.rsplit_once(") ")?;
            after_name.chars().next()
        })
        .is_some_and(|state| state != 'Z')
}

fn stopped_by(signal: libc::c_int, name: &str, code: i32) {
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let scratch = std::env::temp_dir().join(format!(
        "hosted-mcp-interrupt-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&scratch);
    let tmp = scratch.join("tmp");
    std::fs::create_dir_all(&tmp).expect("a fresh TMPDIR");
    let ids = scratch.join("ids");
    let mut harness = Command::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"))
        .args(["--gateway", &wrapped_gateway(&ids)])
        .env("TMPDIR", &tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the harness starts");

    // Scenarios are under way once a few gateways have been launched.
    let launched = || {
        std::fs::read_to_string(&ids)
            .unwrap_or_default()
            .lines()
            .count()
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while launched() < 4 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(launched() >= 4, "no gateway was launched within a minute");
    let pid = libc::pid_t::try_from(harness.id()).expect("a pid");
    // SAFETY: kill only sends a signal, to the harness this test started.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);

    let deadline = Instant::now() + Duration::from_secs(30);
    while harness.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = harness.kill();
            panic!("the harness did not end within 30 s of {name}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = harness.wait_with_output().expect("the harness's output");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let log = format!("{stdout}\n--- stderr ---\n{stderr}");

    let left: Vec<String> = std::fs::read_to_string(&ids)
        .unwrap_or_default()
        .split_whitespace()
        .filter(|id| running(id))
        .map(str::to_owned)
        .collect();
    for id in &left {
        // Leave no stray process behind, even when the test fails.
        if let Ok(id) = id.parse::<libc::pid_t>() {
            // SAFETY: kill only sends a signal, to a process this run launched.
            unsafe { libc::kill(id, libc::SIGKILL) };
        }
    }
    assert_eq!(output.status.code(), Some(code), "{log}");
    assert!(
        stdout.contains(&format!("the run was stopped by {name} after")),
        "{log}"
    );
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.contains(" passed, ") && last.contains(" failed"),
        "the summary's last line: {log}"
    );

    assert!(left.is_empty(), "still running: {left:?}\n{log}");

    // The embedded scenarios are kept once per revision, for later runs;
    // nothing else of the run may stay.
    let cache = format!(
        "hosted-mcp-conformance-{}-{}",
        kit::VERSION,
        kit::RULES_REVISION
    );
    let leftovers: Vec<PathBuf> = std::fs::read_dir(&tmp)
        .expect("read TMPDIR")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| !path.ends_with(&cache))
        .collect();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}\n{log}");
    let cached: Vec<PathBuf> = std::fs::read_dir(tmp.join(&cache))
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    assert_eq!(cached, [tmp.join(&cache).join("features")], "{log}");
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn sigterm_kills_every_gateway_removes_the_folders_and_exits_143() {
    stopped_by(libc::SIGTERM, "SIGTERM", 143);
}

#[test]
fn ctrl_c_kills_every_gateway_removes_the_folders_and_exits_130() {
    stopped_by(libc::SIGINT, "SIGINT", 130);
}
