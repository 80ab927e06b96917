//! The upstream over HTTPS, as every real API is: a private CA made here
//! signs the upstream's certificate, and the gateway trusts it only through
//! `--ca-file`. An untrusted, expired or wrong-host certificate is refused
//! with UPSTREAM_UNTRUSTED before any request is sent (the credential above
//! all), and no option turns verification off. An upstream that offers
//! HTTP/2 is spoken to in it.

#![cfg(unix)]

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rstest::rstest;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::rustls::{self, ServerConfig};
use tokio_rustls::TlsAcceptor;

use crate::support::{
    call_2026, free_port, http_client, result_text, start_listening, terminate, KillOnDrop, GATEWAY,
};

const CREDENTIAL: &str = "sk-tls-test-4f9a";

/// A private CA, and a certificate it signed for the upstream.
struct Certificates {
    ca_pem: String,
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
}

/// What the upstream's certificate is like.
#[derive(Debug, Clone, Copy)]
enum Leaf {
    ForLoopback,
    Expired,
    ForAnotherHost,
}

fn certificates(leaf: Leaf) -> Certificates {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().expect("CA key"))
        .expect("a CA");
    let names = match leaf {
        Leaf::ForAnotherHost => vec!["api.other.example".to_owned()],
        Leaf::ForLoopback | Leaf::Expired => vec!["127.0.0.1".to_owned()],
    };
    let mut params = CertificateParams::new(names).expect("leaf params");
    if let Leaf::Expired = leaf {
        params.not_before = rcgen::date_time_ymd(2020, 1, 1);
        params.not_after = rcgen::date_time_ymd(2021, 1, 1);
    }
    let key = KeyPair::generate().expect("leaf key");
    let certificate = params.signed_by(&key, &ca).expect("a leaf");
    Certificates {
        ca_pem: ca.pem(),
        chain: vec![certificate.der().clone()],
        key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
    }
}

/// An HTTPS upstream on loopback that answers every request with the HTTP
/// version it was asked in, and counts the requests that reached it.
struct Upstream {
    url: String,
    requests: Arc<AtomicUsize>,
}

fn serve_https(
    runtime: &tokio::runtime::Runtime,
    certificates: &Certificates,
    h2: bool,
) -> Upstream {
    let mut config =
        ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(certificates.chain.clone(), certificates.key.clone_key())
            .expect("a server config");
    config.alpn_protocols = if h2 {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    };
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = runtime
        .block_on(TcpListener::bind("127.0.0.1:0"))
        .expect("a port");
    let url = format!("https://{}", listener.local_addr().expect("an address"));
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&requests);
    runtime.spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            let counted = Arc::clone(&counted);
            tokio::spawn(async move {
                // A refused certificate ends the handshake here: no request.
                let Ok(tls) = acceptor.accept(stream).await else {
                    return;
                };
                let service = hyper::service::service_fn(move |request: hyper::Request<_>| {
                    counted.fetch_add(1, Ordering::SeqCst);
                    let body = format!("answered over {:?}", request.version());
                    async move {
                        Ok::<_, std::convert::Infallible>(hyper::Response::new(Full::new(
                            Bytes::from(body),
                        )))
                    }
                });
                let _ = hyper_util::server::conn::auto::Builder::new(
                    hyper_util::rt::TokioExecutor::new(),
                )
                .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                .await;
            });
        }
    });
    Upstream { url, requests }
}

fn document() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tls.yaml");
    std::fs::write(
        &path,
        "openapi: 3.1.0\ninfo: {title: Hello, version: \"1\"}\n\
         components: {securitySchemes: {key: {type: apiKey, in: header, name: X-Api-Key}}}\n\
         security: [{key: []}]\n\
         paths:\n  /hello:\n    get: {operationId: hello, responses: {\"200\": {description: ok}}}\n",
    )
    .expect("the document is written");
    path
}

/// The gateway in front of `upstream`, trusting `ca_pem` when given; its port.
fn gateway(upstream: &Upstream, ca_pem: Option<&str>) -> (KillOnDrop, u16) {
    let server = start_listening(|port| {
        let mut command = Command::new(GATEWAY);
        command
            .args(["serve", "--openapi"])
            .arg(document())
            .args(["--base-url", &upstream.url, "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .env("HOSTED_MCP_CREDENTIAL", CREDENTIAL)
            .stdout(Stdio::null());
        if let Some(pem) = ca_pem {
            let file = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ca-{port}.pem"));
            std::fs::write(&file, pem).expect("the CA file is written");
            command.arg("--ca-file").arg(file);
        }
        command
    });
    (server.child, server.port)
}

fn call_hello(runtime: &tokio::runtime::Runtime, port: u16) -> Value {
    runtime.block_on(call_2026(
        &http_client().build().expect("a client"),
        port,
        "hello",
        json!({}),
    ))
}

#[rstest]
#[case::http_1_1(false, "answered over HTTP/1.1")]
#[case::http_2_when_offered(true, "answered over HTTP/2.0")]
fn a_private_ca_given_with_ca_file_is_trusted(#[case] h2: bool, #[case] expected: &str) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let certificates = certificates(Leaf::ForLoopback);
    let upstream = serve_https(&runtime, &certificates, h2);
    let (mut child, port) = gateway(&upstream, Some(&certificates.ca_pem));
    let answer = call_hello(&runtime, port);
    terminate(&child);
    let _ = child.wait();
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(result_text(&answer), expected);
    assert_eq!(upstream.requests.load(Ordering::SeqCst), 1);
}

#[rstest]
#[case::no_ca_file(Leaf::ForLoopback, false, "not signed by a trusted authority")]
#[case::expired(Leaf::Expired, true, "it has expired")]
#[case::another_host(Leaf::ForAnotherHost, true, "for another host name")]
fn a_refused_certificate_sends_nothing(
    #[case] leaf: Leaf,
    #[case] trust_the_ca: bool,
    #[case] why: &str,
) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let certificates = certificates(leaf);
    let upstream = serve_https(&runtime, &certificates, false);
    let ca = trust_the_ca.then_some(certificates.ca_pem.as_str());
    let (mut child, port) = gateway(&upstream, ca);
    let answer = call_hello(&runtime, port);
    terminate(&child);
    let _ = child.wait();
    let text = result_text(&answer);
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(text.starts_with("[UPSTREAM_UNTRUSTED]"), "{text}");
    assert!(text.contains(why), "{text}");
    assert!(!text.contains(CREDENTIAL), "{text}");
    assert_eq!(
        upstream.requests.load(Ordering::SeqCst),
        0,
        "a request was sent"
    );
}

#[test]
fn a_ca_file_without_certificates_stops_the_gateway() {
    let file = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("not-a-ca.pem");
    std::fs::write(&file, "not a certificate\n").expect("written");
    let output = Command::new(GATEWAY)
        .args(["serve", "--openapi"])
        .arg(document())
        .args(["--base-url", "https://127.0.0.1:9", "--ca-file"])
        .arg(&file)
        .args(["--listen", &format!("127.0.0.1:{}", free_port())])
        .output()
        .expect("the gateway runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("CA file holds no PEM certificate"),
        "{stderr}"
    );
}
