//! The release workflow's build steps (`scripts/release-build`), run here on
//! the binaries the tests already built: one archive with the harness and
//! the reference gateway, a SHA-256 file that verifies it, and a harness
//! that, unpacked, is the version being released and finds its gateway.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use hosted_mcp_conformance::{kit, reference};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the harness lives in the workspace")
        .to_path_buf()
}

/// Runs the release script into `out` on the tests' own binaries.
fn release_build(out: &Path, tag: Option<&str>) -> Output {
    let harness = Path::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"));
    // The reference gateway, built beside the harness as a run would build it.
    let gateway = reference::binary_for(harness).expect("the reference gateway builds");
    assert_eq!(gateway.parent(), harness.parent());
    let mut script = Command::new(workspace().join("scripts/release-build"));
    script
        .arg(out)
        .env("RELEASE_BINARIES_DIR", harness.parent().expect("a folder"))
        .env_remove("RELEASE_TAG");
    if let Some(tag) = tag {
        script.env("RELEASE_TAG", tag);
    }
    script.output().expect("the release script runs")
}

fn run(command: &mut Command) -> String {
    let output = command.output().expect("the command runs");
    assert!(
        output.status.success(),
        "{command:?}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_release_archive_holds_both_binaries_and_its_checksum_verifies() {
    let out = std::env::temp_dir().join(format!("hosted-mcp-release-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let built = release_build(&out, None);
    assert!(
        built.status.success(),
        "{}: {}",
        built.status,
        String::from_utf8_lossy(&built.stderr)
    );

    let host = run(Command::new("rustc").arg("-vV"));
    let target = host
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc names its host");
    let name = format!("hosted-mcp-conformance-{}-{target}", kit::VERSION);
    let archive = format!("{name}.tar.gz");
    assert!(out.join(&archive).is_file(), "{}", out.display());

    // The checksum file names the archive and verifies it, as a CI job would.
    let sums = std::fs::read_to_string(out.join("SHA256SUMS")).expect("SHA256SUMS");
    assert!(sums.ends_with(&format!("  {archive}\n")), "{sums}");
    run(Command::new("sha256sum")
        .args(["--check", "--strict", "SHA256SUMS"])
        .current_dir(&out));

    let listing = run(Command::new("tar").arg("-tzf").arg(out.join(&archive)));
    let mut files: Vec<&str> = listing.lines().collect();
    files.sort_unstable();
    let expected: Vec<String> = [
        "",
        "CHANGELOG.md",
        "LAUNCH.md",
        "README.md",
        "hosted-mcp-conformance",
        "hosted-mcp-gateway",
    ]
    .iter()
    .map(|file| format!("{name}/{file}"))
    .collect();
    assert_eq!(files, expected);

    let notes = std::fs::read_to_string(out.join("NOTES.md")).expect("the release notes");
    assert!(
        notes.starts_with(&format!("## [{}] - ", kit::VERSION)),
        "{notes}"
    );

    // Unpacked anywhere, the harness is the version released, and runs the
    // reference packed beside it when given no --gateway.
    run(Command::new("tar")
        .arg("-xzf")
        .arg(out.join(&archive))
        .current_dir(&out));
    let unpacked = out.join(&name);
    let version = run(Command::new(unpacked.join("hosted-mcp-conformance")).arg("--version"));
    assert_eq!(
        version.trim(),
        format!(
            "hosted-mcp-conformance {} (rules revision {})",
            kit::VERSION,
            kit::RULES_REVISION
        )
    );
    let checked = run(Command::new(unpacked.join("hosted-mcp-conformance"))
        .args(["--tags", "@TC-HINT-001"])
        .env("PATH", "/usr/bin:/bin")
        .current_dir(&out));
    assert!(checked.contains("1 passed, 0 failed"), "{checked}");

    // A tampered archive no longer verifies.
    std::fs::write(out.join(&archive), b"not the archive").expect("overwrite");
    let tampered = Command::new("sha256sum")
        .args(["--check", "SHA256SUMS"])
        .current_dir(&out)
        .output()
        .expect("sha256sum runs");
    assert!(!tampered.status.success());
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_tag_that_is_not_the_version_is_not_released() {
    let out = std::env::temp_dir().join(format!("hosted-mcp-release-tag-{}", std::process::id()));
    let built = release_build(&out, Some("v99.0.0"));
    assert!(!built.status.success());
    let stderr = String::from_utf8_lossy(&built.stderr);
    assert!(
        stderr.contains(&format!(
            "tag v99.0.0 does not name version {}",
            kit::VERSION
        )),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing is packed for a wrong tag");
}
