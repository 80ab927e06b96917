//! Verdicts that depend on a clock hold on a busy machine (issue 50): the
//! scenarios that time the gateway (tagged `@slow`: the 15 s deadline, and
//! answers that come in time) run against the reference twice while four
//! busy processes take the cores, and none fails. What the machine's load
//! explains is not judged, never failed; a gateway late on a quiet
//! machine still fails (`lag`'s unit tests, and the example gateway's
//! TC-SEND-005 variant).

use std::process::{Child, Command, Stdio};

use serde_json::Value;

use crate::support::turns::Turn;

/// Processes that keep a core busy each, killed when dropped.
struct Busy(Vec<Child>);

impl Busy {
    fn start(count: usize) -> Busy {
        Busy(
            (0..count)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .stdin(Stdio::null())
                        .spawn()
                        .expect("a busy process starts")
                })
                .collect(),
        )
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[test]
fn the_timing_scenarios_hold_while_four_busy_processes_run() {
    let _turn = Turn::take(module_path!());
    let _busy = Busy::start(4);
    let folder = std::env::temp_dir().join(format!("hosted-mcp-timing-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a folder");
    for round in 1..=2 {
        let json = folder.join(format!("round-{round}.json"));
        let output = Command::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"))
            .args(["--tags", "@slow", "--json"])
            .arg(&json)
            .output()
            .expect("the harness runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let report: Value = serde_json::from_str(
            &std::fs::read_to_string(&json)
                .unwrap_or_else(|e| panic!("no report ({e}):\n{stdout}")),
        )
        .expect("the report is JSON");
        let count = |status: &str| report["counts"][status].as_u64().unwrap_or(0);
        assert!(output.status.success(), "round {round}:\n{stdout}");
        assert_eq!(
            count("failed") + count("error"),
            0,
            "round {round}:\n{stdout}"
        );
        assert!(
            count("passed") >= 4,
            "round {round}: the timing scenarios ran:\n{stdout}"
        );
    }
    let _ = std::fs::remove_dir_all(&folder);
}
