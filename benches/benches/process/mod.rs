//! The gateway binary and what `/proc` says about a process, shared by the
//! benches that run the gateway as a user does (`callpath` and `soak`).
//! Linux only.

use std::path::{Path, PathBuf};

/// The gateway binary of this bench's profile, brought up to date with
/// `cargo build -p hosted-mcp-gateway` (plus `also`, so that a bench shares
/// one build with whatever else it runs), or the path in `$override_var`.
pub fn gateway_binary(override_var: &str, also: &[&str]) -> PathBuf {
    if let Some(bin) = std::env::var_os(override_var) {
        return PathBuf::from(bin);
    }
    let exe = std::env::current_exe().expect("the bench knows its path");
    // `target/<profile>/deps/<bench>-<hash>`
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the bench runs from target/<profile>/deps");
    let bin = profile_dir.join(format!(
        "hosted-mcp-gateway{}",
        std::env::consts::EXE_SUFFIX
    ));
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("benches/ sits in the workspace");
    let mut cargo = std::process::Command::new(std::env::var("CARGO").unwrap_or("cargo".into()));
    cargo
        .current_dir(workspace)
        .args(["build", "--quiet", "-p", "hosted-mcp-gateway"]);
    for package in also {
        cargo.args(["-p", package]);
    }
    cargo
        .arg("--target-dir")
        .arg(profile_dir.parent().expect("a target directory"));
    // What `cargo bench` set for this process (CARGO_PKG_NAME, ...) would
    // reach the nested build, where ring's build script watches some of
    // them: ring, rustls, reqwest and rmcp would be built again, and again
    // by the next plain build. As harness/src/reference.rs does.
    for (name, _) in std::env::vars_os() {
        let set_by_cargo = name.to_str().is_some_and(|name| {
            name.starts_with("CARGO_PKG_")
                || [
                    "CARGO_MANIFEST_DIR",
                    "CARGO_MANIFEST_PATH",
                    "CARGO_CRATE_NAME",
                ]
                .contains(&name)
                || ["CARGO_BIN_NAME", "CARGO_PRIMARY_PACKAGE", "OUT_DIR"].contains(&name)
        });
        if set_by_cargo {
            cargo.env_remove(name);
        }
    }
    if profile_dir
        .file_name()
        .is_some_and(|name| name == "release")
    {
        cargo.arg("--release");
    }
    let status = cargo.status().expect("cargo runs");
    assert!(
        status.success() && bin.is_file(),
        "building the gateway failed"
    );
    bin
}

/// The machine's load averages over 1, 5 and 15 minutes, to print beside
/// figures a busy machine would skew.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".into())
}

/// utime + stime of a process in clock ticks, from `/proc/<pid>/stat`.
pub fn cpu_ticks(pid: u32) -> u64 {
    let (user, kernel) = user_and_kernel_ticks(pid);
    user + kernel
}

/// `utime` and `stime` from `/proc/<pid>/stat`, (0, 0) once it is gone. The
/// kernel's share is its system calls and, on loopback, the other side's TCP
/// receive and wake-up, which the sender's `write` runs.
pub fn user_and_kernel_ticks(pid: u32) -> (u64, u64) {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The command name, in parentheses, may hold spaces: count after it.
    let after = text.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of proc_pid_stat(5); `after` starts at field 3.
    let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<u64>().ok());
    (field(14).unwrap_or(0), field(15).unwrap_or(0))
}

pub fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 {
        ticks as f64
    } else {
        100.0
    }
}

/// A process's `/proc/<pid>/status`, read once for several figures.
pub struct Status(String);

impl Status {
    /// Empty (every figure 0) once the process is gone.
    pub fn read(pid: u32) -> Status {
        Status(std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default())
    }

    /// The number after `name` (as `"Threads:"`), 0 when absent.
    pub fn number(&self, name: &str) -> u64 {
        self.0
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    }

    /// A size given in kB (as `"VmRSS:"`), in bytes.
    pub fn bytes(&self, name: &str) -> u64 {
        self.number(name) * 1024
    }
}

/// This bench started again with `--serve-upstream`, as an upstream in a
/// process of its own, so that its work is neither the gateway's nor the
/// clients': the process (ended when dropped), and where it listens.
pub async fn start_upstream() -> (tokio::process::Child, std::net::SocketAddr) {
    start_serving(&["--serve-upstream"]).await
}

/// This bench started again with `args`, serving in a process of its own
/// (see [`serve_upstream`]): the process, and where it listens.
pub async fn start_serving(args: &[&str]) -> (tokio::process::Child, std::net::SocketAddr) {
    use tokio::io::AsyncBufReadExt as _;
    let exe = std::env::current_exe().expect("the bench knows its path");
    let mut process = tokio::process::Command::new(exe)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the process starts");
    let stdout = process.stdout.take().expect("stdout is piped");
    let line = tokio::io::BufReader::new(stdout)
        .lines()
        .next_line()
        .await
        .expect("the upstream's stdout reads")
        .expect("the process says where it listens");
    (process, line.trim().parse().expect("an address"))
}

/// What the process `start_upstream` starts runs, on one thread: it binds a
/// loopback port, prints its address, and runs `serve` on it until its stdin
/// closes (the bench ended, however it ended).
pub fn serve_upstream<Serving>(serve: impl FnOnce(tokio::net::TcpListener) -> Serving)
where
    Serving: std::future::Future<Output = ()>,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        println!("{}", listener.local_addr().expect("a bound address"));
        let (mut stdin, mut sink) = (tokio::io::stdin(), tokio::io::sink());
        tokio::select! {
            () = serve(listener) => {}
            _ = tokio::io::copy(&mut stdin, &mut sink) => {}
        }
    });
}

/// Accepts connections on `listener` for ever and serves each over
/// HTTP/1.1 with the service `service_for` makes for it, Nagle off so that
/// every answer leaves as soon as it is written: the loop of each server
/// process the benches start.
pub async fn serve_connections<Serve, Answer>(
    listener: tokio::net::TcpListener,
    service_for: impl Fn(&tokio::net::TcpStream) -> Serve,
) where
    Serve: hyper::service::Service<
            hyper::Request<hyper::body::Incoming>,
            Response = hyper::Response<Answer>,
        > + Send
        + 'static,
    Serve::Future: Send + 'static,
    Serve::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    Answer: hyper::body::Body + Send + 'static,
    Answer::Data: Send,
    Answer::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = service_for(&stream);
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}
