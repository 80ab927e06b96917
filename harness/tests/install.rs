//! The harness is a tool others install: a copy of the binary, alone in a
//! `bin` folder (as `cargo install` or the release archive leaves it), run
//! from any other directory, runs the scenarios it carries and names the kit
//! and rules revision it checked. Without `--gateway` it checks the reference
//! found beside it or on PATH, or says how to get one; it never tries to
//! build one. (The copy is the tests' own build: a `cargo install` here
//! compiled some 300 crates again with the harness's features alone, minutes
//! of CI for the same binary.)

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use hosted_mcp_conformance::{kit, reference};
use serde_json::Value;

#[test]
fn an_installed_harness_runs_its_own_scenarios_from_anywhere() {
    let installed = Installed::new("anywhere");
    let elsewhere = installed.scratch.join("elsewhere");
    let gateway = reference::binary_for(Path::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance")))
        .expect("the reference gateway builds");
    let template = format!(
        "{} serve --openapi {{openapi}} --base-url {{base_url}} --listen 127.0.0.1:{{port}}",
        gateway.display()
    );
    let run = Command::new(installed.bin.join("hosted-mcp-conformance"))
        .current_dir(&elsewhere)
        .args([
            "--gateway",
            &template,
            "--tags",
            "@TC-HINT-001 or @TC-NAME-005",
        ])
        .args(["--json", "report.json"])
        .output()
        .expect("the installed harness runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(elsewhere.join("report.json"))
            .expect("the report, written where it ran"),
    )
    .expect("JSON");
    assert!(
        report["counts"]["passed"].as_u64().unwrap_or(0) >= 2,
        "{report}"
    );
    assert_eq!(report["kit"]["rules_revision"], kit::RULES_REVISION);
    assert_eq!(report["kit"]["version"], kit::VERSION);
    // Scenario files are named as the kit names them, not by a build path.
    let file = report["scenarios"][0]["file"].as_str().unwrap_or_default();
    assert!(file.starts_with("features/"), "{file}");
    assert!(
        stdout.contains(&format!("rules revision {}", kit::RULES_REVISION)),
        "{stdout}"
    );

    let version = Command::new(installed.bin.join("hosted-mcp-conformance"))
        .arg("--version")
        .output()
        .expect("--version");
    assert!(String::from_utf8_lossy(&version.stdout).contains(kit::RULES_REVISION));
}

/// A harness copied out of the build, as an install leaves it: in a `bin`
/// folder of its own (the folder name that once made it run `cargo build
/// --profile bin`), with a scratch folder to run from.
struct Installed {
    scratch: PathBuf,
    bin: PathBuf,
}

impl Installed {
    fn new(name: &str) -> Self {
        let scratch =
            std::env::temp_dir().join(format!("hosted-mcp-{name}-{}", std::process::id()));
        let bin = scratch.join("bin");
        std::fs::create_dir_all(&bin).expect("a bin folder");
        std::fs::create_dir_all(scratch.join("elsewhere")).expect("a folder to run from");
        std::fs::copy(
            env!("CARGO_BIN_EXE_hosted-mcp-conformance"),
            bin.join("hosted-mcp-conformance"),
        )
        .expect("the harness copies");
        Self { scratch, bin }
    }

    /// Puts a copy of the workspace's reference gateway in `folder`.
    fn add_reference(&self, folder: &Path) {
        let built = reference::binary_for(Path::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance")))
            .expect("the reference gateway builds in the workspace");
        std::fs::create_dir_all(folder).expect("a folder for the gateway");
        std::fs::copy(built, folder.join("hosted-mcp-gateway")).expect("the gateway copies");
    }

    /// Runs the copy without --gateway, on one cheap rule, with `path` as PATH.
    fn run(&self, path: &str) -> Output {
        Command::new(self.bin.join("hosted-mcp-conformance"))
            .current_dir(self.scratch.join("elsewhere"))
            .env("PATH", path)
            .args(["--tags", "@TC-HINT-001", "--json", "report.json"])
            .output()
            .expect("the copied harness runs")
    }

    /// The gateway command the run's report names.
    fn gateway_run(&self) -> String {
        let report: Value = serde_json::from_str(
            &std::fs::read_to_string(self.scratch.join("elsewhere/report.json"))
                .expect("the report"),
        )
        .expect("JSON");
        report["gateway"]["http"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

/// A PATH with the system's tools and no reference gateway.
const SYSTEM_PATH: &str = "/usr/bin:/bin";

#[test]
fn an_installed_harness_without_a_gateway_says_to_pass_one() {
    let installed = Installed::new("no-gateway");
    let run = installed.run(SYSTEM_PATH);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("nor on PATH"), "{stderr}");
    assert!(stderr.contains("--gateway"), "{stderr}");
    assert!(
        stderr.contains("cargo install --locked --git <this kit's repository> hosted-mcp-gateway"),
        "{stderr}"
    );
    assert!(!stderr.contains("profile"), "{stderr}");
}

#[test]
fn an_installed_harness_checks_the_reference_on_path() {
    let installed = Installed::new("on-path");
    let tools = installed.scratch.join("tools");
    installed.add_reference(&tools);
    assert_passes_with_reference_in(
        &installed,
        &format!("{}:{SYSTEM_PATH}", tools.display()),
        &tools,
    );
}

#[test]
fn an_installed_harness_checks_the_reference_beside_it() {
    let installed = Installed::new("beside");
    installed.add_reference(&installed.bin);
    assert_passes_with_reference_in(&installed, SYSTEM_PATH, &installed.bin);
}

/// Runs the installed harness with `path` as PATH: it passes, and the
/// gateway it launched is the reference in `folder`.
fn assert_passes_with_reference_in(installed: &Installed, path: &str, folder: &Path) {
    let run = installed.run(path);
    assert!(
        run.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let gateway = installed.gateway_run();
    assert!(
        gateway.starts_with(&format!("{}/hosted-mcp-gateway serve", folder.display())),
        "{gateway}"
    );
}
