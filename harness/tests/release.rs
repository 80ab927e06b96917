//! The release workflow's build steps (`scripts/release-build`), run here on
//! the binaries the tests already built: one archive with the harness and
//! the reference gateway, a SHA-256 file that verifies every package, and a
//! harness that, unpacked, is the version being released and finds its
//! gateway. (The wheel and the npm packages, installed: `packages.rs`.)

use std::process::Command;

use hosted_mcp_conformance::kit;

use crate::support::{
    python_example::workspace,
    release::{build, rehearsal},
};

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
    let out = &rehearsal().dir;

    let host = run(Command::new("rustc").arg("-vV"));
    let target = host
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc names its host");
    let name = format!("hosted-mcp-conformance-{}-{target}", kit::VERSION);
    let archive = format!("{name}.tar.gz");
    assert!(out.join(&archive).is_file(), "{}", out.display());

    // The checksum file names every package, and verifies each as a CI job
    // (or the GitHub Action) would.
    let sums = std::fs::read_to_string(out.join("SHA256SUMS")).expect("SHA256SUMS");
    let summed: Vec<&str> = sums
        .lines()
        .filter_map(|l| l.split_once("  "))
        .map(|(_, f)| f)
        .collect();
    let packed: Vec<String> = rehearsal()
        .files
        .iter()
        .map(|f| {
            f.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(summed, packed);
    assert_eq!(
        packed.len(),
        4,
        "an archive, a wheel, two npm packages: {packed:?}"
    );
    assert_eq!(summed[0], archive);
    run(Command::new("sha256sum")
        .args(["--check", "--strict", "SHA256SUMS"])
        .current_dir(out));

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
    let elsewhere = std::env::temp_dir().join(format!("hosted-mcp-release-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&elsewhere);
    std::fs::create_dir_all(&elsewhere).expect("a scratch folder");
    run(Command::new("tar")
        .arg("-xzf")
        .arg(out.join(&archive))
        .current_dir(&elsewhere));
    let unpacked = elsewhere.join(&name);
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
        .current_dir(&elsewhere));
    assert!(checked.contains("1 passed, 0 failed"), "{checked}");

    // A tampered archive no longer verifies.
    std::fs::copy(out.join("SHA256SUMS"), elsewhere.join("SHA256SUMS")).expect("copy");
    std::fs::write(elsewhere.join(&archive), b"not the archive").expect("overwrite");
    let tampered = Command::new("sha256sum")
        .args(["--check", "--ignore-missing", "SHA256SUMS"])
        .current_dir(&elsewhere)
        .output()
        .expect("sha256sum runs");
    assert!(!tampered.status.success());
    let _ = std::fs::remove_dir_all(&elsewhere);
}

#[test]
fn a_tag_that_is_not_the_version_is_not_released() {
    let out = std::env::temp_dir().join(format!("hosted-mcp-release-tag-{}", std::process::id()));
    let built = build(&out, Some("v99.0.0"));
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

#[test]
fn the_npm_package_runs_whichever_platform_s_package_a_release_gathers() {
    // The rehearsal's files, and a second platform's npm package as another
    // runner's build would leave it beside them (the same binaries, renamed).
    let built = rehearsal();
    let dir =
        std::env::temp_dir().join(format!("hosted-mcp-release-combine-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("arm64")).expect("a scratch folder");
    for file in &built.files {
        let name = file.file_name().expect("a file name");
        if name.to_string_lossy() != format!("hosted-mcp-conformance-{}.tgz", kit::VERSION) {
            std::fs::copy(file, dir.join(name)).expect("copy a package");
        }
    }
    let platform = built
        .files
        .iter()
        .find(|f| {
            let name = f.to_string_lossy();
            name.contains("-linux-") && name.ends_with(".tgz")
        })
        .expect("the platform's npm package");
    run(Command::new("tar")
        .arg("-xzf")
        .arg(platform)
        .current_dir(dir.join("arm64")));
    run(Command::new("node")
        .args([
            "-e",
            "const fs = require('fs'); const m = JSON.parse(fs.readFileSync('package.json'));\
             m.name = '@hosted-mcp-conformance/linux-arm64-gnu'; m.cpu = ['arm64'];\
             fs.writeFileSync('package.json', JSON.stringify(m));",
        ])
        .current_dir(dir.join("arm64/package")));
    run(Command::new("npm")
        .args(["pack", "--silent", "--pack-destination"])
        .arg(&dir)
        .current_dir(dir.join("arm64/package")));
    std::fs::remove_dir_all(dir.join("arm64")).expect("remove the unpacked copy");

    let combined = Command::new(workspace().join("scripts/release-build"))
        .arg(&dir)
        .env("RELEASE_PARTS", "combine")
        .env_remove("RELEASE_TAG")
        .output()
        .expect("the release script runs");
    assert!(
        combined.status.success(),
        "{}",
        String::from_utf8_lossy(&combined.stderr)
    );
    let main = dir.join(format!("hosted-mcp-conformance-{}.tgz", kit::VERSION));
    let manifest: serde_json::Value = serde_json::from_str(&run(Command::new("tar")
        .arg("-xzOf")
        .arg(&main)
        .arg("package/package.json")))
    .expect("the main package's manifest");
    let platforms: Vec<&String> = manifest["optionalDependencies"]
        .as_object()
        .expect("optional dependencies")
        .keys()
        .collect();
    assert_eq!(
        platforms,
        [
            "@hosted-mcp-conformance/linux-arm64-gnu",
            "@hosted-mcp-conformance/linux-x64-gnu"
        ]
    );
    let sums = std::fs::read_to_string(dir.join("SHA256SUMS")).expect("SHA256SUMS");
    assert_eq!(sums.lines().count(), 5, "{sums}");
    run(Command::new("sha256sum")
        .args(["--check", "--strict", "SHA256SUMS"])
        .current_dir(&dir));
    let _ = std::fs::remove_dir_all(&dir);
}
