//! The gateway driven in-process through `host::Server`, as `main` drives
//! it: built from settings, served on a loopback listener, reloaded, and
//! stopped, with no process to spawn or signal.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use hosted_mcp_gateway::agents::{AgentsSettings, LimitSettings};
use hosted_mcp_gateway::convert::CredentialPlacement;
use hosted_mcp_gateway::gateway::Limits;
use hosted_mcp_gateway::host::{
    ApiSettings, ConnectionLimits, CredentialSource, Origin, Server, ServerOptions, Settings,
};
use hosted_mcp_gateway::mcp::{HttpAccess, HttpOptions, Sessions};
use hosted_mcp_gateway::watch::Metrics;

use crate::support::{call_2026, fixture, http_client, result_text, scratch};

/// Echoes the credential it got.
struct EchoKey;

impl Respond for EchoKey {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let key = request
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        ResponseTemplate::new(200).set_body_json(json!({ "saw": key.len() }))
    }
}

fn settings(base_url: &str, credential_file: &std::path::Path) -> Settings {
    Settings {
        apis: vec![ApiSettings {
            name: None,
            openapi: fixture(),
            tools: Default::default(),
            base_url: base_url.to_owned(),
            credential: CredentialSource::File(credential_file.to_owned()),
            placement: Some(CredentialPlacement::Bearer),
            ca_file: None,
            agents: AgentsSettings::default(),
            limits: LimitSettings::default(),
            exchange: None,
            origin: Origin::Flags,
        }],
        public_url: None,
        limits_store: None,
    }
}

fn options() -> ServerOptions {
    ServerOptions {
        http: HttpOptions {
            access: HttpAccess::default(),
            sessions: Sessions::Stateless,
            on_loopback: true,
        },
        limits: Limits::default(),
        connections: ConnectionLimits {
            max_open: 64,
            per_client: None,
            head_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            send_timeout: Duration::from_secs(30),
        },
        body_timeout: Duration::from_secs(30),
        descriptors: None,
        listen_url: None,
        census_interval: Duration::from_secs(10),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_starts_reloads_and_stops_in_process() {
    let api = MockServer::start().await;
    Mock::given(any()).respond_with(EchoKey).mount(&api).await;
    let folder = scratch("server-in-process");
    let credential = folder.join("credential");
    std::fs::write(&credential, "short-one\n").expect("written");
    let server = Arc::new(
        Server::new(
            &settings(&api.uri(), &credential),
            options(),
            Arc::new(Metrics::new()),
        )
        .expect("built"),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bound");
    let port = listener.local_addr().expect("an address").port();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn({
        let server = Arc::clone(&server);
        async move {
            server
                .serve(listener, async {
                    let _ = stopped.await;
                })
                .await
        }
    });
    let client = http_client().build().expect("a client");
    let call = || call_2026(&client, port, "showPetById", json!({"petId": "1"}));
    let first = call().await;
    assert!(result_text(&first).contains("\"saw\": 16"), "{first}");

    // A new credential, read on reload, goes with the next call; the
    // routes' version says one reload.
    std::fs::write(&credential, "a-much-longer-credential\n").expect("written");
    let changes = server
        .reload(&settings(&api.uri(), &credential))
        .expect("reloaded");
    assert_eq!(changes.version, 2);
    assert_eq!(server.routes().version, 2);
    let second = call().await;
    assert!(result_text(&second).contains("\"saw\": 31"), "{second}");

    // A reload that cannot be built changes nothing.
    let refused = server.reload(&settings("not a url", &credential));
    assert!(refused.is_err());
    assert_eq!(server.routes().version, 2);
    let third = call().await;
    assert!(result_text(&third).contains("\"saw\": 31"), "{third}");

    let _ = stop.send(());
    let ended = tokio::time::timeout(Duration::from_secs(30), serving)
        .await
        .expect("it stops")
        .expect("joined");
    assert!(ended.is_ok(), "{ended:?}");
}
