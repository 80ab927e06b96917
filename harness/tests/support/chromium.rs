//! Headless Chromium for the tests that render a page as a reader's browser
//! does: the HTML report (harness/tests/html_report.rs) and the
//! documentation site (site/tests/site.rs, which includes this file by
//! `#[path]`, as the fuzz targets include the oracle adapter).
//!
//! Needs Chromium at `/usr/bin/chromium` (or the path in `CHROMIUM`); a test
//! fails, not skips, without it. `.ci/run` installs it.

use std::{
    fs::File,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

/// How long one Chromium run may take.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(90);

/// The Chromium binary; the test fails, saying how to install it, without one.
pub fn chromium() -> PathBuf {
    let path = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        path.is_file(),
        "this test renders a page in a real browser, and there is no Chromium at {}: \
         install it with `sudo apt-get install -y --no-install-recommends chromium` \
         (Debian/Ubuntu; .ci/run does it), or set CHROMIUM to a Chromium binary",
        path.display()
    );
    path
}

/// Runs Chromium headless on `page` with a profile of its own and no way
/// to reach any host; returns what it printed on stdout.
pub fn browse(dir: &Path, run: &str, page: &Path, extra: &[&str]) -> String {
    let profile = dir.join(format!("profile-{run}"));
    let stdout_path = dir.join(format!("{run}.stdout"));
    let stderr_path = dir.join(format!("{run}.stderr"));
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--host-resolver-rules=MAP * ~NOTFOUND",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(File::create(&stdout_path).expect("stdout file"))
        .stderr(File::create(&stderr_path).expect("stderr file"))
        .spawn()
        .expect("Chromium starts");
    let deadline = Instant::now() + BROWSER_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for Chromium") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "Chromium ({run}) took over {BROWSER_TIMEOUT:?}; its stderr:\n{}",
                std::fs::read_to_string(&stderr_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        status.success(),
        "Chromium ({run}) exited with {status}; its stderr:\n{}",
        std::fs::read_to_string(&stderr_path).unwrap_or_default()
    );
    std::fs::read_to_string(&stdout_path).expect("Chromium's stdout")
}
