//! The child process: a gateway launched from its template, with the
//! environment, the port reserved for it, its stderr kept, and its whole
//! process group killed with it; and how a run paces its launches.

use std::{
    fmt,
    net::TcpListener,
    path::Path,
    process::{ExitStatus, Stdio},
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use tokio::{
    io::AsyncReadExt as _,
    net::TcpStream,
    process::{Child, ChildStdin, ChildStdout, Command},
    sync::{OwnedSemaphorePermit, Semaphore},
    task::JoinHandle,
    time::{sleep, timeout, Instant},
};

use super::template::{shell_quoted, Target, Template, Transport};
use crate::{
    client_auth::{ClientAuth, CLIENT_CREDENTIAL_ENV},
    issuer::Issuer,
    lag, leftovers, protected,
};

/// The environment variable that carries the stored credential to the gateway.
pub const CREDENTIAL_ENV: &str = "HOSTED_MCP_CREDENTIAL";

/// The environment variable that says where the scenario wants the
/// credential (`bearer`, `basic`, `header:NAME`, `query:NAME`); unset when
/// the gateway must find the place in the document itself.
pub const CREDENTIAL_IN_ENV: &str = "HOSTED_MCP_CREDENTIAL_IN";

/// How long a gateway may take, from its launch, to accept TCP connections
/// (HTTP) or to answer the handshake (stdio), or to exit when it refuses its
/// document. Changed with `--start-timeout`.
pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(10);

/// How far a start-up window stretches, in all, for the time a gateway's
/// processes wait for a CPU on a busy machine.
const START_STRETCH: u32 = 6;

/// Stderr kept per gateway; enough for any start-up error, bounded against a
/// gateway that logs without end.
const STDERR_LIMIT: usize = 256 * 1024;

/// How long a failed scenario's gateway must write nothing more on stderr
/// before the report keeps it, and how long it is waited for at most: many
/// gateways write their log in batches, and a failing step's call is often
/// in the last one.
const STDERR_QUIET: Duration = Duration::from_millis(100);
const STDERR_SETTLE_LIMIT: Duration = Duration::from_secs(1);

/// How many ports an HTTP gateway is offered before a taken port counts as
/// its own failure.
const PORT_ATTEMPTS: usize = 3;

/// How a run launches gateways: which one, how many at a time, and how long
/// each may take to come up.
///
/// Scenarios run many at once, but launches wait for a free slot, and a
/// gateway's start-up window opens only when its launch does: a gateway that
/// needs seconds of CPU to start is not judged by how long it queued.
#[derive(Debug)]
pub struct Launcher {
    pub target: Target,
    pub start_timeout: Duration,
    slots: Arc<Semaphore>,
}

impl Launcher {
    pub fn new(target: Target, launches: usize, start_timeout: Duration) -> Self {
        Self {
            target,
            start_timeout,
            slots: Arc::new(Semaphore::new(launches.max(1))),
        }
    }

    /// Waits for a launch slot; the launch ends when the permit is dropped.
    pub async fn slot(&self) -> OwnedSemaphorePermit {
        Arc::clone(&self.slots)
            .acquire_owned()
            .await
            .expect("the launch semaphore is never closed")
    }
}

/// Launches at once by default: one per CPU the harness may use.
pub fn default_launches() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// What one launch fills into a template.
#[derive(Debug, Clone, Copy)]
pub struct Launch<'a> {
    /// The scenario's document, written to a file.
    pub openapi: &'a Path,
    /// The mock upstream's base URL.
    pub base_url: &'a str,
    /// The stored credential, passed in [`CREDENTIAL_ENV`].
    pub credential: &'a str,
    /// Where the credential goes, passed in [`CREDENTIAL_IN_ENV`].
    pub credential_in: Option<&'a str>,
    /// The folder the preparation step made for the document, if there is
    /// one (`{prepared}`).
    pub prepared: Option<&'a Path>,
    /// The authorization server of a scenario's own, in place of the run's
    /// (`{issuer}`, `{jwks_uri}`), under `--client-auth oauth`.
    pub issuer: Option<&'a Arc<Issuer>>,
}

/// How a gateway was launched, as a report shows it: the command as run and
/// the variables the harness set, never the credential itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Invocation {
    /// The command with its placeholders filled, quoted as a shell would need.
    pub command: String,
    /// The value of [`CREDENTIAL_IN_ENV`], when set.
    pub credential_in: Option<String>,
}

impl Invocation {
    fn of(words: &[String], launch: &Launch<'_>) -> Self {
        Self {
            credential_in: launch.credential_in.map(str::to_owned),
            ..Self::of_command(words)
        }
    }

    /// A command as run, with no variables of the harness's.
    pub fn of_command(words: &[String]) -> Self {
        Self {
            command: words
                .iter()
                .map(|word| shell_quoted(word))
                .collect::<Vec<_>>()
                .join(" "),
            credential_in: None,
        }
    }

    /// The variables the harness set, the credential's value withheld.
    pub fn environment(&self) -> String {
        let mut set = format!("{CREDENTIAL_ENV}=(the stored credential, not shown)");
        match &self.credential_in {
            Some(place) => set.push_str(&format!(" {CREDENTIAL_IN_ENV}={place}")),
            None => set.push_str(&format!(" ({CREDENTIAL_IN_ENV} unset)")),
        }
        set
    }
}

/// A gateway that did not come up: why, and what it said.
#[derive(Debug, Clone)]
pub struct StartFailure {
    /// Why the harness gave up on it.
    pub reason: String,
    /// The exit status, when the gateway exited.
    pub status: Option<ExitStatus>,
    /// Everything the gateway wrote to stderr.
    pub stderr: String,
    /// How it was launched (empty when no command was run).
    pub invocation: Invocation,
    /// Whether it was still running, silent, when its window closed.
    pub timed_out: bool,
}

/// Why, in one line: what the gateway said goes with the scenario's report
/// (once per distinct tail in the terminal), not into every message.
impl fmt::Display for StartFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the gateway did not start: {}", self.reason)
    }
}

impl std::error::Error for StartFailure {}

/// A launched gateway process. Dropping it kills the process (and, on Unix,
/// everything it started), so no gateway outlives its scenario.
#[derive(Debug)]
pub struct Gateway {
    child: Child,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_reader: JoinHandle<()>,
    stdio: Option<(ChildStdout, ChildStdin)>,
    port: Option<u16>,
    /// The path it serves MCP at, over HTTP.
    endpoint: String,
    /// The credential it wants of its clients, if any.
    client_auth: Option<ClientAuth>,
    /// Keeps the port the gateway's until the gateway is gone.
    reservation: Option<PortReservation>,
    invocation: Invocation,
    /// The process group the gateway leads, killed with it.
    group: Option<i32>,
}

impl Gateway {
    /// Starts the gateway and, over HTTP, waits until its port accepts TCP.
    ///
    /// The gateway's port is reserved for it (`PortReservation`), so no other
    /// process (another scenario's upstream, an outgoing connection) can be
    /// handed it between the harness's choice and the gateway's bind, and a
    /// client can never reach someone else's listener by mistake. A gateway
    /// that cannot share the reserved port (it binds without `SO_REUSEADDR`)
    /// is launched on plain free ports from then on, and one that exits while
    /// another process holds such a port is started again on a fresh one.
    pub async fn start(
        template: &Template,
        transport: Transport,
        launch: Launch<'_>,
        start_timeout: Duration,
    ) -> Result<Self, StartFailure> {
        if transport == Transport::Stdio {
            return Self::start_on(template, None, launch, start_timeout).await;
        }
        let no_port = |e: std::io::Error| StartFailure {
            reason: format!("no free loopback port: {e}"),
            status: None,
            stderr: String::new(),
            invocation: Invocation::default(),
            timed_out: false,
        };
        let mut attempt = 1;
        loop {
            let reserve = !CANNOT_SHARE_PORT.load(Ordering::Relaxed);
            let reservation = if reserve {
                Some(PortReservation::new().map_err(no_port)?)
            } else {
                None
            };
            let port = match &reservation {
                Some(reservation) => reservation.port,
                None => free_port().map_err(no_port)?,
            };
            let started = Self::start_on(template, Some(port), launch, start_timeout).await;
            match started {
                Err(failure) if failure.status.is_some() && attempt < PORT_ATTEMPTS => {
                    if reserve && says_address_in_use(&failure.stderr) {
                        CANNOT_SHARE_PORT.store(true, Ordering::Relaxed);
                    } else if reserve || TcpListener::bind(("127.0.0.1", port)).is_ok() {
                        return Err(failure);
                    }
                    attempt += 1;
                }
                Ok(mut gateway) => {
                    gateway.reservation = reservation;
                    return Ok(gateway);
                }
                failed => return failed,
            }
        }
    }

    /// Starts the gateway, listening on `port` over HTTP, on stdio without one.
    async fn start_on(
        template: &Template,
        port: Option<u16>,
        launch: Launch<'_>,
        start_timeout: Duration,
    ) -> Result<Self, StartFailure> {
        let port_text = port.map(|p| p.to_string()).unwrap_or_default();
        let openapi = launch.openapi.to_string_lossy();
        let prepared = launch
            .prepared
            .map(|dir| dir.to_string_lossy())
            .unwrap_or_default();
        let issuer = launch
            .issuer
            .or_else(|| template.client_auth().and_then(ClientAuth::issuer));
        let endpoint_url = port
            .map(|port| format!("http://127.0.0.1:{port}{}", template.endpoint()))
            .unwrap_or_default();
        let issuer_url = issuer.map(|i| i.url().to_owned()).unwrap_or_default();
        let jwks_uri = issuer.map(|i| i.jwks_uri()).unwrap_or_default();
        let words = template.render(&[
            ("{openapi}", &openapi),
            ("{base_url}", launch.base_url),
            ("{port}", &port_text),
            ("{prepared}", &prepared),
            ("{issuer}", &issuer_url),
            ("{jwks_uri}", &jwks_uri),
            ("{resource}", &endpoint_url),
        ]);
        // Over stdio the pipes carry MCP; over HTTP they carry nothing.
        let mcp_pipe = || {
            if port.is_some() {
                Stdio::null()
            } else {
                Stdio::piped()
            }
        };
        let mut command = Command::new(&words[0]);
        command
            .args(&words[1..])
            .env(CREDENTIAL_ENV, launch.credential)
            .env_remove(CREDENTIAL_IN_ENV)
            .stdin(mcp_pipe())
            .stdout(mcp_pipe())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        // Its own process group, so wrappers (`npx`, `uv run`, shell scripts)
        // are killed with everything they started.
        #[cfg(unix)]
        command.process_group(0);
        // Should the harness itself be killed, the kernel kills the gateway too.
        #[cfg(target_os = "linux")]
        // SAFETY: the closure runs in the child between fork and exec and only
        // calls prctl, which is async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        if let Some(place) = launch.credential_in {
            command.env(CREDENTIAL_IN_ENV, place);
        }
        command.env_remove(CLIENT_CREDENTIAL_ENV);
        // A key of the run; under oauth the gateway is told of the issuer instead.
        if let Some(auth) = template.client_auth().filter(|a| a.issuer().is_none()) {
            command.env(CLIENT_CREDENTIAL_ENV, auth.credential());
        }
        let invocation = Invocation::of(&words, &launch);
        let mut child = command.spawn().map_err(|e| StartFailure {
            reason: format!("cannot run `{}`: {e}", words[0]),
            status: None,
            stderr: String::new(),
            invocation: invocation.clone(),
            timed_out: false,
        })?;
        // Known now: once the leader has exited and been reaped, its id is
        // gone from `child`, but the group may live on in its children.
        let group = child.id().and_then(|id| i32::try_from(id).ok());
        if let Some(leader) = group {
            leftovers::group_launched(leader);
        }

        let stderr = Arc::new(Mutex::new(Vec::new()));
        let stderr_reader = {
            let sink = Arc::clone(&stderr);
            let pipe = child.stderr.take();
            tokio::spawn(async move {
                let Some(mut pipe) = pipe else { return };
                let mut buf = [0u8; 8192];
                while let Ok(n @ 1..) = pipe.read(&mut buf).await {
                    let mut sink = sink.lock().unwrap_or_else(|e| e.into_inner());
                    let room = STDERR_LIMIT.saturating_sub(sink.len());
                    sink.extend_from_slice(&buf[..n.min(room)]);
                }
            })
        };
        let stdio = match (child.stdout.take(), child.stdin.take()) {
            (Some(out), Some(input)) => Some((out, input)),
            _ => None,
        };
        let mut gateway = Self {
            child,
            stderr,
            stderr_reader,
            stdio,
            port,
            endpoint: template.endpoint().to_owned(),
            client_auth: template.client_auth().cloned(),
            reservation: None,
            invocation,
            group,
        };
        if let Some(port) = port {
            gateway.wait_for_port(port, start_timeout).await?;
            if let Some(issuer) = issuer.filter(|_| gateway.client_auth.is_some()) {
                gateway.client_auth = Some(gateway.token_of(issuer, &endpoint_url).await?);
            }
        }
        Ok(gateway)
    }

    /// The harness's client's credential for this gateway under
    /// `--client-auth oauth`: a token of `issuer` for the resource the
    /// gateway names in its metadata (else its endpoint's URL), with every
    /// scope it lists.
    async fn token_of(
        &mut self,
        issuer: &Arc<Issuer>,
        endpoint: &str,
    ) -> Result<ClientAuth, StartFailure> {
        let (resource, scopes) = protected::resource_and_scopes(endpoint).await;
        match issuer.client_token(&resource, scopes.as_deref()).await {
            Ok(token) => Ok(ClientAuth::with_token(Arc::clone(issuer), token)),
            Err(error) => Err(self
                .failure(
                    format!("the harness could not get its client a token: {error:#}"),
                    None,
                )
                .await),
        }
    }

    /// Waits for the gateway to take connections on `port`, for `within` of
    /// the time it could run: time its processes spent waiting for a CPU on
    /// a busy machine does not count against it (see [`lag::GroupWait`]),
    /// up to [`START_STRETCH`] times the window in all.
    async fn wait_for_port(&mut self, port: u16, within: Duration) -> Result<(), StartFailure> {
        let launched = Instant::now();
        let mut waited = self.group.map(lag::GroupWait::new);
        loop {
            if let Some(status) = self.child.try_wait().ok().flatten() {
                return Err(self.exited_during_start_up(status).await);
            }
            if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                return Ok(());
            }
            let elapsed = launched.elapsed();
            let for_a_cpu = waited.as_mut().map_or(Duration::ZERO, |waited| {
                waited.sample();
                waited.total()
            });
            if elapsed.saturating_sub(for_a_cpu) >= within || elapsed >= within * START_STRETCH {
                let busy = if for_a_cpu >= Duration::from_secs(1) {
                    format!(
                        ", {:.1} s of which it waited for a CPU (this machine is busy)",
                        for_a_cpu.as_secs_f64()
                    )
                } else {
                    String::new()
                };
                let reason = format!(
                    "it did not accept TCP connections on 127.0.0.1:{port} within {:.1} s of its launch{busy} (see --start-timeout)",
                    elapsed.as_secs_f64()
                );
                let mut failure = self.failure(reason, None).await;
                failure.timed_out = true;
                return Err(failure);
            }
            sleep(Duration::from_millis(50)).await;
        }
    }

    /// The process group it leads, if it was launched with one.
    pub fn group(&self) -> Option<i32> {
        self.group
    }

    /// How this gateway was launched.
    pub fn invocation(&self) -> &Invocation {
        &self.invocation
    }

    /// The MCP endpoint of an HTTP gateway.
    pub fn mcp_url(&self) -> Option<String> {
        self.port
            .map(|port| format!("http://127.0.0.1:{port}{}", self.endpoint))
    }

    /// What an MCP client of this gateway sends on every HTTP request:
    /// `agent`'s headers, behind the client credential where it wants one.
    pub fn client_headers(&self, agent: &[(String, String)]) -> Vec<(String, String)> {
        match &self.client_auth {
            Some(auth) => auth.with(agent),
            None => agent.to_vec(),
        }
    }

    /// The credential it wants of its clients, if any.
    pub fn client_auth(&self) -> Option<&ClientAuth> {
        self.client_auth.as_ref()
    }

    /// The child's stdout and stdin, for a stdio gateway (once).
    pub fn take_stdio(&mut self) -> Option<(ChildStdout, ChildStdin)> {
        self.stdio.take()
    }

    /// Waits up to `within` for the gateway to exit; its status and stderr if
    /// it did, `None` if it is still running.
    pub async fn exit_within(&mut self, within: Duration) -> Option<StartFailure> {
        let status = timeout(within, self.child.wait()).await.ok()?.ok()?;
        Some(
            self.failure(format!("it exited ({status})"), Some(status))
                .await,
        )
    }

    /// [`Self::exit_within`] for a gateway still starting (a stdio one that
    /// has not answered its handshake), worded as for a port that never
    /// opened.
    pub async fn exit_during_start_up(&mut self, within: Duration) -> Option<StartFailure> {
        let status = timeout(within, self.child.wait()).await.ok()?.ok()?;
        Some(self.exited_during_start_up(status).await)
    }

    async fn exited_during_start_up(&mut self, status: ExitStatus) -> StartFailure {
        self.failure(
            format!("it exited during start-up ({status})"),
            Some(status),
        )
        .await
    }

    /// The gateway's exit status, if it has exited.
    pub fn exit_status(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// What the gateway has written to stderr so far (since
    /// [`Self::forget_stderr`]).
    pub fn stderr(&self) -> String {
        let buf = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&buf).into_owned()
    }

    /// Waits until the gateway has written nothing on stderr for a moment
    /// (bounded): for a failure's report.
    pub async fn wait_for_quiet_stderr(&self) {
        let written = || self.stderr.lock().unwrap_or_else(|e| e.into_inner()).len();
        let until = Instant::now() + STDERR_SETTLE_LIMIT;
        let mut seen = written();
        while Instant::now() < until {
            sleep(STDERR_QUIET).await;
            let now = written();
            if now == seen {
                break;
            }
            seen = now;
        }
    }

    /// Drops what the gateway wrote to stderr so far: it serves another
    /// scenario now, whose report shows only its own part.
    pub fn forget_stderr(&mut self) {
        std::mem::take(&mut *self.stderr.lock().unwrap_or_else(|e| e.into_inner()));
    }

    /// Why the gateway is taken not to have come up, with its stderr and how
    /// it was launched.
    pub async fn failure(&mut self, reason: String, status: Option<ExitStatus>) -> StartFailure {
        // A finished reader is not awaited twice (a second failure report).
        if status.is_some() && !self.stderr_reader.is_finished() {
            // The pipe closes once the process is gone; give the reader a
            // moment to take the last lines.
            let _ = timeout(Duration::from_secs(1), &mut self.stderr_reader).await;
        }
        StartFailure {
            reason,
            status,
            stderr: self.stderr(),
            invocation: self.invocation.clone(),
            timed_out: false,
        }
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        if let Some(leader) = self.group {
            leftovers::kill_group(leader);
        }
        let _ = self.child.start_kill();
        self.stderr_reader.abort();
    }
}

/// A loopback port that was free a moment ago, for a gateway that cannot
/// share a reserved one.
fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind(("127.0.0.1", 0))?.local_addr()?.port())
}

/// Set once a gateway could not bind its reserved port.
static CANNOT_SHARE_PORT: AtomicBool = AtomicBool::new(false);

/// A loopback port bound with `SO_REUSEADDR` but not listening. While it is
/// held the kernel hands the port to no one else (neither to `bind` on port
/// 0 nor to an outgoing connection), yet a gateway that binds it with
/// `SO_REUSEADDR` too (the default of Rust, Python, Node, Go and Java
/// servers) can listen on it.
#[derive(Debug)]
struct PortReservation {
    port: u16,
    _socket: socket2::Socket,
}

impl PortReservation {
    fn new() -> std::io::Result<Self> {
        let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
        socket.set_reuse_address(true)?;
        socket.bind(&std::net::SocketAddr::from(([127, 0, 0, 1], 0)).into())?;
        let port = socket
            .local_addr()?
            .as_socket()
            .map(|a| a.port())
            .ok_or_else(|| std::io::Error::other("a loopback socket without a port"))?;
        Ok(Self {
            port,
            _socket: socket,
        })
    }
}

/// Whether a gateway's last words say its port was taken.
fn says_address_in_use(stderr: &str) -> bool {
    let stderr = stderr.to_ascii_lowercase();
    [
        "address already in use",
        "address in use",
        "eaddrinuse",
        "errno 98",
    ]
    .iter()
    .any(|words| stderr.contains(words))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reserved_port_is_handed_to_no_one_else_but_a_sharing_listener() {
        let reservation = PortReservation::new().unwrap();
        let handed_out: Vec<u16> = (0..200).filter_map(|_| free_port().ok()).collect();
        assert!(!handed_out.contains(&reservation.port));
        let sharing =
            socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
        sharing.set_reuse_address(true).unwrap();
        sharing
            .bind(&std::net::SocketAddr::from(([127, 0, 0, 1], reservation.port)).into())
            .unwrap();
        sharing.listen(1).unwrap();
    }
}
