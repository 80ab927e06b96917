//! The admin listener, on an address of its own (`--admin-listen`), never
//! the MCP port, so that what an operator watches is not what agents reach:
//!
//! - `GET /healthz`: 200 while the process serves;
//! - `GET /readyz`: 200 once every API is loaded and until the gateway
//!   stops, else 503, for a load balancer's checks;
//! - `GET /metrics`: the metrics, in the OpenMetrics text format.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::{Method, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use super::metrics::Metrics;

/// Brings the counts of things alive up to date before a scrape.
pub type BeforeScrape = Arc<dyn Fn() -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// The content type of the OpenMetrics text format.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Serves the admin endpoints on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    metrics: Arc<Metrics>,
    before_scrape: BeforeScrape,
    shutdown: impl Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of descriptors, say: the MCP port matters more.
                Err(_) => {
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => return,
        };
        let metrics = Arc::clone(&metrics);
        let before_scrape = Arc::clone(&before_scrape);
        tokio::spawn(async move {
            let answer = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                let metrics = Arc::clone(&metrics);
                let before_scrape = Arc::clone(&before_scrape);
                async move { Ok::<_, Infallible>(answer(&request, &metrics, &before_scrape).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), answer)
                .await;
        });
    }
}

async fn answer(
    request: &hyper::Request<Incoming>,
    metrics: &Metrics,
    before_scrape: &BeforeScrape,
) -> hyper::Response<Full<Bytes>> {
    if request.method() != Method::GET {
        return text(StatusCode::METHOD_NOT_ALLOWED, "only GET\n".to_owned());
    }
    match request.uri().path() {
        "/healthz" => text(StatusCode::OK, "ok\n".to_owned()),
        "/readyz" if metrics.is_ready() => text(StatusCode::OK, "ready\n".to_owned()),
        "/readyz" => text(StatusCode::SERVICE_UNAVAILABLE, "not ready\n".to_owned()),
        "/metrics" => {
            before_scrape().await;
            let mut response = text(StatusCode::OK, metrics.encode());
            response
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static(OPENMETRICS));
            response
        }
        _ => text(
            StatusCode::NOT_FOUND,
            "not found: /healthz, /readyz and /metrics are served here\n".to_owned(),
        ),
    }
}

fn text(status: StatusCode, body: String) -> hyper::Response<Full<Bytes>> {
    let mut response = hyper::Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}
