//! The marks printed while a run goes agree with its verdict (issue 18: a
//! run printed `F` for every expected failure and ended "0 failed").

use std::{path::Path, process::Command};

use hosted_mcp_conformance::reference;

/// The marks of a CI log: lines of marks, each ending ` [done/total]`.
fn marks(stdout: &str) -> String {
    stdout
        .lines()
        .filter_map(|line| line.split_once(" ["))
        .filter(|(marks, count)| {
            count.ends_with(']') && !marks.is_empty() && marks.chars().all(|c| ".FrxsE".contains(c))
        })
        .map(|(marks, _)| marks)
        .collect()
}

#[test]
fn expected_failures_and_recommended_misses_are_marked_as_the_verdict_counts_them() {
    let exe = env!("CARGO_BIN_EXE_hosted-mcp-conformance");
    let reference = reference::binary_for(Path::new(exe)).expect("the reference gateway builds");
    let renames = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gateways/renames_tools.py");
    let dir = std::env::temp_dir().join(format!("hosted-mcp-live-marks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let list = dir.join("known.txt");
    std::fs::write(&list, "TC-NAME-005 -- we prefix every name\n").expect("write the list");
    let gateway = format!(
        "python3 {} {} --openapi {{openapi}} --base-url {{base_url}} --port {{port}}",
        renames.display(),
        reference.display()
    );
    let run = |strict: bool| {
        let mut command = Command::new(exe);
        command
            .args(["--gateway", &gateway])
            // TC-NAME-005 is required and listed; TC-NAME-008 is recommended.
            .args(["--tags", "@TC-NAME-005 or @TC-NAME-008"])
            .arg("--expected-failures")
            .arg(&list);
        if strict {
            command.arg("--strict");
        }
        let output = command.output().expect("the harness runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        (output.status.code(), stdout)
    };

    let (code, stdout) = run(false);
    assert_eq!(code, Some(0), "{stdout}");
    let mut seen: Vec<char> = marks(&stdout).chars().collect();
    seen.sort_unstable();
    assert_eq!(seen, ['r', 'x'], "{stdout}");
    assert!(
        stdout.ends_with("0 passed, 0 failed, 1 recommended not met, 1 expected failures\n"),
        "{stdout}"
    );

    // With --strict the recommended miss fails the run, and is marked so.
    let (code, stdout) = run(true);
    assert_eq!(code, Some(1), "{stdout}");
    let mut seen: Vec<char> = marks(&stdout).chars().collect();
    seen.sort_unstable();
    assert_eq!(seen, ['F', 'x'], "{stdout}");
    assert!(
        stdout.ends_with("0 passed, 1 failed, 1 expected failures\n"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
