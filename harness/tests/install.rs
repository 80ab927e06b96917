//! The harness is a tool others install: `cargo install` puts it in a root
//! of its own, and from any other directory it runs the scenarios it carries
//! (no source folder needed) and names the kit and rules revision it checked.

use std::{path::Path, process::Command};

use hosted_mcp_conformance::{kit, launch::reference_binary_beside};
use serde_json::Value;

#[test]
fn an_installed_harness_runs_its_own_scenarios_from_anywhere() {
    let scratch = std::env::temp_dir().join(format!("hosted-mcp-install-{}", std::process::id()));
    let (root, elsewhere) = (scratch.join("root"), scratch.join("elsewhere"));
    std::fs::create_dir_all(&elsewhere).expect("a directory to run from");
    let harness_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The workspace's target directory, so what is built already is reused.
    let target_dir = Path::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"))
        .parent()
        .and_then(Path::parent)
        .expect("the target directory");
    let install = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["install", "--quiet", "--debug", "--locked", "--path"])
        .arg(harness_dir)
        .arg("--root")
        .arg(&root)
        .arg("--target-dir")
        .arg(target_dir)
        .output()
        .expect("cargo install runs");
    assert!(
        install.status.success(),
        "cargo install failed: {}",
        String::from_utf8_lossy(&install.stderr)
    );

    let installed = root.join("bin").join("hosted-mcp-conformance");
    let gateway = reference_binary_beside(Path::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance")))
        .expect("the reference gateway builds");
    let template = format!(
        "{} serve --openapi {{openapi}} --base-url {{base_url}} --listen 127.0.0.1:{{port}}",
        gateway.display()
    );
    let run = Command::new(&installed)
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

    let version = Command::new(&installed)
        .arg("--version")
        .output()
        .expect("--version");
    assert!(String::from_utf8_lossy(&version.stdout).contains(kit::RULES_REVISION));
    let _ = std::fs::remove_dir_all(&scratch);
}
