//! No value of the configuration is ever printed back (issue 56): a secret
//! written where a reference to it belongs (a key pasted in place of the
//! variable that holds it) would otherwise end up in CI logs and log
//! collectors. Every setting that can be wrong is given a wrong value
//! holding a marker, and neither the start-up error nor a refused reload's
//! log line may show it; both name the file, the line and the key.

#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::{fixture, scratch, start_listening, wait_for_log, GATEWAY};

/// What stands for a secret in the wrong place.
const MARKER: &str = "sk_live_M4rker0fTheOperator";

/// An API entry with `extra` lines (indented under it) and `base_url`.
fn config(base_url: &str, extra: &str, top: &str) -> String {
    format!(
        "{top}apis:\n  - name: pets\n    openapi: {}\n    base_url: {base_url}\n{extra}",
        fixture().display()
    )
}

/// Every wrong value, as a config file's text.
fn wrong_configs(folder: &Path) -> Vec<(&'static str, String)> {
    let secret_file = folder.join("secret");
    std::fs::write(&secret_file, "a-real-secret-of-sorts\n").expect("written");
    let ok = "https://pets.example";
    let public = "public_url: https://mcp.example.com\n";
    vec![
        (
            "a secret as the variable's name",
            config(ok, &format!("    credential: {{ env: {MARKER} }}\n"), ""),
        ),
        (
            "a secret as the credential file",
            config(ok, &format!("    credential: {{ file: {MARKER} }}\n"), ""),
        ),
        (
            "a secret as the document",
            format!("apis:\n  - name: pets\n    openapi: {MARKER}\n    base_url: {ok}\n"),
        ),
        (
            "a secret as the CA file",
            config(ok, &format!("    ca_file: {MARKER}.pem\n"), ""),
        ),
        ("a secret as the base URL", config(MARKER, "", "")),
        (
            "a secret in the base URL's fragment",
            config(&format!("https://pets.example/#{MARKER}"), "", ""),
        ),
        (
            "a secret as a header name",
            config(
                ok,
                &format!(
                    "    credential: {{ file: {} }}\n    credential_in: header:{MARKER}/x\n",
                    secret_file.display()
                ),
                "",
            ),
        ),
        (
            "a token URL off loopback over plain http",
            config(
                ok,
                &format!(
                    "    credential: {{ file: {}, client_id: c, token_url: 'http://{MARKER}.example/t' }}\n",
                    secret_file.display()
                ),
                "",
            ),
        ),
        (
            "an issuer off loopback over plain http",
            config(
                ok,
                &format!("    agents: {{ oauth: {{ issuers: ['http://{MARKER}.example'] }} }}\n"),
                public,
            ),
        ),
        (
            "a secret as an algorithm",
            config(
                ok,
                &format!(
                    "    agents: {{ oauth: {{ issuers: ['https://auth.example'], algorithms: [{MARKER}] }} }}\n"
                ),
                public,
            ),
        ),
        (
            "a secret as the keys file",
            config(ok, &format!("    agents: {{ keys: {{ file: {MARKER} }} }}\n"), ""),
        ),
        (
            "a secret as the keys' header",
            config(
                ok,
                &format!(
                    "    agents: {{ keys: {{ file: {}, header: '{MARKER} x' }} }}\n",
                    secret_file.display()
                ),
                "",
            ),
        ),
        (
            "a secret where the credential's map belongs",
            config(ok, &format!("    credential: {MARKER}\n"), ""),
        ),
    ]
}

#[test]
fn a_refused_start_names_the_line_and_key_never_the_value() {
    let folder = scratch("config-values-start");
    for (case, text) in wrong_configs(&folder) {
        let file = folder.join("c.yaml");
        std::fs::write(&file, &text).expect("written");
        let output = Command::new(GATEWAY)
            .args(["serve", "--config"])
            .arg(&file)
            .args(["--listen", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .output()
            .expect("the gateway runs");
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{case}: {said}");
        assert!(
            !said.contains("M4rker0f"),
            "{case}: the value is printed:\n{said}"
        );
        let at = format!("{}:", file.display());
        assert!(said.contains(&at), "{case}: no file and line:\n{said}");
        assert!(said.contains("apis[0]"), "{case}: no key:\n{said}");
    }
}

#[test]
fn a_refused_reload_names_the_line_and_key_never_the_value() {
    let folder = scratch("config-values-reload");
    let file = folder.join("c.yaml");
    std::fs::write(&file, config("https://pets.example", "", "")).expect("written");
    let gateway = start_listening(|port| {
        let mut command = Command::new(GATEWAY);
        command
            .args(["serve", "--config"])
            .arg(&file)
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .stdout(Stdio::null());
        command
    });
    let cases = wrong_configs(&folder);
    for (count, (case, text)) in cases.iter().enumerate() {
        std::fs::write(&file, text).expect("written");
        let sent = Command::new("kill")
            .args(["-HUP", &gateway.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success());
        wait_for_log(&gateway, "reload refused", count + 1);
        let log = gateway.stderr_so_far();
        assert!(
            !log.contains("M4rker0f"),
            "{case}: the value is logged:\n{log}"
        );
    }
    let log = gateway.stderr_so_far();
    assert_eq!(log.matches("reload refused").count(), cases.len(), "{log}");
}
