//! Steps for TC-AUTH-*: MCP authorization, judged with the harness's own
//! authorization server (`--client-auth oauth`, see [`crate::issuer`]).

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use anyhow::Context as _;
use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine as _};
use cucumber::{given, then, when};
use serde_json::{json, Value};
use tokio::time::sleep;

use super::failure::{fail, StepResult};
use super::support::parse_json;
use crate::{
    issuer::{Forgery, Issuer, KeyId, Signature},
    lag,
    protected::{self, Challenge},
    raw::{Exchange, TokenPlace},
    world::GatewayWorld,
};

/// How long a key change may take to be seen, as the ruling of 2026-12-07 asks.
const WITHIN: Duration = Duration::from_secs(30);

/// How long past [`WITHIN`] a key change is still watched for, so that a
/// busy machine's delay can be told from the gateway's own.
const WATCHED_BEYOND: Duration = Duration::from_secs(15);

/// How often a fresh token is tried while a key change is watched for.
const EVERY: Duration = Duration::from_secs(1);

/// The longest `Retry-After` waited on for one answer.
const LONGEST_RETRY_AFTER: Duration = Duration::from_secs(10);

/// How long tokens refused for now (503) are tried again, in all.
const RETRIED_FOR: Duration = Duration::from_secs(30);

/// The claims of the harness's own client token for the running gateway:
/// its audience and scope are what a forgery keeps.
async fn client_claims(world: &mut GatewayWorld) -> anyhow::Result<Value> {
    world.raw_http().await?;
    let auth = world
        .client_auth()
        .context("this step needs the client's token (--client-auth oauth)")?;
    let (_, value) = auth.header();
    let token = value.strip_prefix("Bearer ").unwrap_or(&value);
    let payload = token
        .split('.')
        .nth(1)
        .context("the client's credential is not a JWT")?;
    Ok(serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload)?)?)
}

/// The good token's audience, as a forgery keeps it.
async fn audience(world: &mut GatewayWorld) -> anyhow::Result<String> {
    let claims = client_claims(world).await?;
    Ok(match &claims["aud"] {
        Value::String(aud) => aud.clone(),
        Value::Array(auds) => auds
            .first()
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        _ => String::new(),
    })
}

/// A token as the scenario names it: one thing wrong with it.
fn forgery(kind: &str, audience: &str, scope: Option<&str>) -> anyhow::Result<Forgery> {
    let good = Forgery::good(audience, scope);
    let rs256 = |key, kid| Signature::Rs256 { key, kid };
    Ok(match kind {
        // Past the 30 s or so verifiers allow for clocks, either way.
        "that has expired" => Forgery {
            expires_in: -600,
            ..good
        },
        "that is not valid yet" => Forgery {
            not_before: Some(600),
            expires_in: 1200,
            ..good
        },
        "for another audience" => Forgery {
            audience: "http://127.0.0.1:9/another-resource/mcp".to_owned(),
            ..good
        },
        "of another issuer" => Forgery {
            issuer: Some("http://127.0.0.1:9/another-issuer".to_owned()),
            ..good
        },
        "with a bad signature" => Forgery {
            signature: rs256(KeyId::Second, KeyId::First),
            ..good
        },
        "that is unsigned (alg none)" => Forgery {
            signature: Signature::None,
            ..good
        },
        "signed with HS256 keyed by the issuer's public key" => Forgery {
            signature: Signature::HmacWithPublicKey { kid: KeyId::First },
            ..good
        },
        "signed by a key the issuer does not publish" => Forgery {
            signature: rs256(KeyId::Second, KeyId::Second),
            ..good
        },
        other => anyhow::bail!("no token is known as `{other}`"),
    })
}

/// Sends `tools/call` of `name` with `arguments` in the scenario's session,
/// showing `token` where `place` says. An answer of 503 with
/// `Retry-After` (a gateway that cannot check the token for now) is sent
/// again after it, for up to [`RETRIED_FOR`]; every status seen is returned.
async fn call_showing(
    world: &mut GatewayWorld,
    token: String,
    place: TokenPlace,
    name: &str,
    arguments: &str,
) -> anyhow::Result<Vec<u16>> {
    let name = world.tool_name(name).await?;
    let params = json!({"name": name, "arguments": parse_json(arguments)?});
    let raw = world.raw_http().await?;
    raw.show_token(token, place);
    let began = Instant::now();
    let mut statuses = Vec::new();
    loop {
        let answer = raw.request("tools/call", params.clone(), &[]).await?;
        statuses.push(answer.status);
        match retry_after(answer) {
            Some(wait) if began.elapsed() + wait <= RETRIED_FOR => sleep(wait).await,
            _ => return Ok(statuses),
        }
    }
}

/// How long a 503 answer asks the client to wait, if it is one.
fn retry_after(answer: &Exchange) -> Option<Duration> {
    if answer.status != 503 {
        return None;
    }
    let seconds = answer
        .headers
        .get("retry-after")?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()?;
    Some(Duration::from_secs(seconds.max(1)).min(LONGEST_RETRY_AFTER))
}

/// The last answer's `WWW-Authenticate` challenge, if it has one.
fn challenge_of(answer: &Exchange) -> Option<(String, Option<Challenge>)> {
    let value = answer.headers.get("www-authenticate")?.to_str().ok()?;
    Some((value.to_owned(), Challenge::parse(value)))
}

fn body_of(answer: &Exchange) -> String {
    answer.body.chars().take(400).collect()
}

#[given("the gateway trusts an authorization server of the scenario's own")]
async fn own_issuer(world: &mut GatewayWorld) -> StepResult {
    world.trust_own_issuer().await?;
    Ok(())
}

#[given("the authorization server publishes its second key too")]
async fn publish_second_before(world: &mut GatewayWorld) -> StepResult {
    world.issuer()?.publish(KeyId::Second);
    Ok(())
}

#[when("the authorization server rotates its second key in")]
async fn rotate_in(world: &mut GatewayWorld) -> StepResult {
    world.issuer()?.publish(KeyId::Second);
    Ok(())
}

#[when("the authorization server withdraws its first key")]
async fn withdraw(world: &mut GatewayWorld) -> StepResult {
    world.issuer()?.withdraw(KeyId::First);
    Ok(())
}

/// TC-AUTH-001: a request without a token gets 401 and a Bearer challenge
/// that says where the protected-resource metadata is.
#[then("the gateway answered HTTP 401 with a Bearer challenge naming resource_metadata")]
async fn challenged(world: &mut GatewayWorld) -> StepResult {
    let raw = world.raw_http().await?;
    let last = raw.last()?;
    let body = body_of(last);
    if last.status != 401 {
        fail!(
            "a request without a token was answered HTTP {}, not 401 with a Bearer challenge: {body}",
            last.status
        );
    }
    match challenge_of(last) {
        None => fail!(
            "a request without a token was answered 401 without a WWW-Authenticate header, \
             which MCP authorization asks to carry a Bearer challenge with resource_metadata"
        ),
        Some((value, Some(challenge))) if challenge.is_bearer() => {
            if challenge.param("resource_metadata").is_none() {
                fail!(
                    "the Bearer challenge names no resource_metadata, where an MCP client finds \
                     the authorization server: WWW-Authenticate: {value}"
                );
            }
            Ok(())
        }
        Some((value, _)) => {
            fail!("the 401's challenge is not of the Bearer scheme: WWW-Authenticate: {value}")
        }
    }
}

/// TC-AUTH-002: the challenge's `resource_metadata` is an absolute URL.
#[then("the challenge names resource_metadata by an absolute URL")]
async fn absolute(world: &mut GatewayWorld) -> StepResult {
    let raw = world.raw_http().await?;
    let last = raw.last()?;
    let pointed = challenge_of(last)
        .and_then(|(_, c)| c)
        .and_then(|c| c.param("resource_metadata").map(str::to_owned));
    let Some(pointed) = pointed else {
        let status = last.status;
        return Err(world
            .not_judged(
                "TC-AUTH-001",
                format!("the answer (HTTP {status}) has no challenge naming resource_metadata"),
            )
            .into());
    };
    let absolute = pointed.split_once("://").is_some_and(|(scheme, rest)| {
        matches!(scheme, "http" | "https") && !rest.is_empty() && !rest.starts_with('/')
    });
    if !absolute {
        fail!(
            "resource_metadata is `{pointed}`, not an absolute URL: a client that is not on the \
             gateway's own page cannot tell where it leads"
        );
    }
    Ok(())
}

/// TC-AUTH-003: the metadata a client finds names the resource (the
/// endpoint, or a URL above it on its origin) and the authorization server
/// the gateway was told to trust.
#[then(
    "the protected-resource metadata names the endpoint as the resource and the run's authorization server"
)]
async fn metadata_names(world: &mut GatewayWorld) -> StepResult {
    let issuer = world.issuer()?;
    let raw = world.raw_http().await?;
    let endpoint = raw.url().to_owned();
    let pointed = raw
        .last()
        .ok()
        .and_then(challenge_of)
        .and_then(|(_, c)| c)
        .and_then(|c| c.param("resource_metadata").map(str::to_owned))
        .and_then(|at| protected::resolve(&endpoint, &at));
    let mut tried = Vec::new();
    let mut found = None;
    for url in pointed
        .into_iter()
        .chain(protected::well_known_for(&endpoint))
    {
        match protected::fetch(&url).await {
            Ok(metadata) => {
                found = Some(metadata);
                break;
            }
            Err(error) => tried.push(format!("{error:#}")),
        }
    }
    let Some(metadata) = found else {
        fail!(
            "no protected-resource metadata (RFC 9728) was served: {}",
            tried.join("; ")
        );
    };
    let shown = metadata.document.to_string();
    let Some(resource) = metadata.resource() else {
        fail!(
            "the metadata at {} names no resource: {shown}",
            metadata.url
        );
    };
    if !names_endpoint(resource, &endpoint) {
        fail!(
            "the metadata at {} names the resource `{resource}`, which is not the MCP endpoint \
             {endpoint} nor a URL above it: a client asks tokens for it, and they would not be \
             the endpoint's",
            metadata.url
        );
    }
    let servers = metadata.authorization_servers();
    let trusted = issuer.url().trim_end_matches('/');
    if !servers.iter().any(|s| s.trim_end_matches('/') == trusted) {
        fail!(
            "the metadata at {} names the authorization servers {servers:?}, not {trusted}, the \
             one the gateway was told to trust: {shown}",
            metadata.url
        );
    }
    Ok(())
}

/// Whether `resource` is the endpoint's URL or one above it on its origin
/// (MCP lets a server name its origin as its resource).
fn names_endpoint(resource: &str, endpoint: &str) -> bool {
    let resource = resource.trim_end_matches('/');
    endpoint == resource
        || (endpoint
            .strip_prefix(resource)
            .is_some_and(|rest| rest.starts_with('/'))
            && resource.matches('/').count() >= 2)
}

#[when(
    regex = r#"^the HTTP client, showing a token (that has expired|that is not valid yet|for another audience|of another issuer|with a bad signature|that is unsigned \(alg none\)|signed with HS256 keyed by the issuer's public key|signed by a key the issuer does not publish), calls the tool "([^"]*)" with (\{.*\})$"#
)]
async fn call_with_bad_token(
    world: &mut GatewayWorld,
    kind: String,
    name: String,
    arguments: String,
) -> StepResult {
    let claims = client_claims(world).await?;
    let scope = claims["scope"].as_str().map(str::to_owned);
    let audience = audience(world).await?;
    let token = world
        .issuer()?
        .forged(&forgery(&kind, &audience, scope.as_deref())?)?;
    let statuses = call_showing(world, token, TokenPlace::Header, &name, &arguments).await?;
    note_retries(world, &statuses);
    Ok(())
}

/// Notes the 503s a call was answered before its last answer.
fn note_retries(world: &mut GatewayWorld, statuses: &[u16]) {
    if statuses.len() > 1 {
        world.note(format!(
            "the call was answered HTTP {} before its last answer, and sent again after \
             Retry-After each time",
            statuses[..statuses.len() - 1]
                .iter()
                .map(u16::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
}

/// TC-AUTH-004: the bad token was refused as RFC 6750 says: 401.
#[then("the gateway refused that token with HTTP 401")]
async fn refused_token(world: &mut GatewayWorld) -> StepResult {
    let raw = world.raw_http().await?;
    let last = raw.last()?;
    let body = body_of(last);
    match last.status {
        401 => Ok(()),
        status @ 200..=299 => fail!(
            "the gateway let the token in: HTTP {status}, where a token that fails its checks \
             gets 401: {body}"
        ),
        503 => fail!(
            "the gateway answered HTTP 503 for {} s, where a token it can check and refuse gets \
             401: {body}",
            RETRIED_FOR.as_secs()
        ),
        status => fail!("the token was answered HTTP {status}, not 401: {body}"),
    }
}

#[when(
    regex = r#"^the HTTP client, showing its token in the query string only, calls the tool "([^"]*)" with (\{.*\})$"#
)]
async fn call_with_token_in_query(
    world: &mut GatewayWorld,
    name: String,
    arguments: String,
) -> StepResult {
    let claims = client_claims(world).await?;
    let audience = audience(world).await?;
    let token = world
        .issuer()?
        .forged(&Forgery::good(&audience, claims["scope"].as_str()))?;
    call_showing(world, token, TokenPlace::Query, &name, &arguments).await?;
    Ok(())
}

/// TC-AUTH-005: a request whose only token is in the query string is not
/// let in (401, or 400 as RFC 6750 answers a malformed request).
#[then("the gateway did not let that request in")]
async fn not_let_in(world: &mut GatewayWorld) -> StepResult {
    let raw = world.raw_http().await?;
    let last = raw.last()?;
    if (200..300).contains(&last.status) {
        fail!(
            "the gateway let in a request whose token was in the query string (HTTP {}): MCP \
             forbids tokens there, where logs and histories keep them: {}",
            last.status,
            body_of(last)
        );
    }
    if !(400..500).contains(&last.status) {
        fail!(
            "a request whose token was in the query string was answered HTTP {}, not refused \
             with a 4xx: {}",
            last.status,
            body_of(last)
        );
    }
    Ok(())
}

/// TC-AUTH-006, TC-AUTH-007: a fresh token of `key` is tried each second in
/// the scenario's session, until it is let in (`wanted_in`) or refused with
/// 401; judged against [`WITHIN`] of the key change, a busy machine's delay
/// told apart.
async fn watch_key_change(world: &mut GatewayWorld, key: KeyId, wanted_in: bool) -> StepResult {
    let claims = client_claims(world).await?;
    let scope = claims["scope"].as_str().map(str::to_owned);
    let audience = audience(world).await?;
    let issuer: Arc<Issuer> = world.issuer()?;
    let name = world.tool_name("listPets").await?;
    let params = json!({"name": name, "arguments": {}});
    let waiting = world.cpu_wait();
    let changed = Instant::now();
    let mut seen = Vec::new();
    let outcome = loop {
        let token = issuer.forged(&Forgery {
            signature: Signature::Rs256 { key, kid: key },
            ..Forgery::good(&audience, scope.as_deref())
        })?;
        let raw = world.raw_http().await?;
        raw.show_token(token, TokenPlace::Header);
        let status = raw.request("tools/call", params.clone(), &[]).await?.status;
        seen.push(status);
        let done = if wanted_in {
            (200..300).contains(&status)
        } else {
            status == 401
        };
        if done {
            break Some(changed.elapsed());
        }
        if changed.elapsed() >= WITHIN + WATCHED_BEYOND {
            break None;
        }
        sleep(EVERY).await;
    };
    let what = if wanted_in {
        "a token of the key rotated in was let in"
    } else {
        "a token of the withdrawn key was refused with 401"
    };
    let statuses = summarize(&seen);
    let missed_by = match outcome {
        Some(took) if took <= WITHIN => return Ok(()),
        Some(took) => took - WITHIN,
        None => WATCHED_BEYOND,
    };
    if let Some(why) = lag::explains(missed_by, changed, Instant::now(), waiting.so_far()) {
        return Err(world.too_busy(why).into());
    }
    match outcome {
        Some(took) => fail!(
            "{what} only {:.1} s after the change at the authorization server, not within {} s \
             (answers, a fresh token each second: {statuses})",
            took.as_secs_f64(),
            WITHIN.as_secs()
        ),
        None => fail!(
            "in {} s after the change at the authorization server, no {} (answers, a fresh \
             token each second: {statuses})",
            (WITHIN + WATCHED_BEYOND).as_secs(),
            if wanted_in {
                "token of the key rotated in was let in"
            } else {
                "token of the withdrawn key was refused with 401"
            }
        ),
    }
}

/// Statuses in a row, as `401 x12, 200`.
fn summarize(statuses: &[u16]) -> String {
    let mut runs: Vec<(u16, usize)> = Vec::new();
    for &status in statuses {
        match runs.last_mut() {
            Some((last, count)) if *last == status => *count += 1,
            _ => runs.push((status, 1)),
        }
    }
    runs.iter()
        .map(|(status, count)| match count {
            1 => status.to_string(),
            n => format!("{status} x{n}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[then("a tool call showing a token of the second key is let in within 30 seconds")]
async fn rotated_in_taken(world: &mut GatewayWorld) -> StepResult {
    watch_key_change(world, KeyId::Second, true).await
}

#[then("a tool call showing a token of the first key is refused within 30 seconds")]
async fn withdrawn_refused(world: &mut GatewayWorld) -> StepResult {
    watch_key_change(world, KeyId::First, false).await
}

#[when(
    regex = r#"^the HTTP client, showing a token with none of the gateway's scopes, calls the tool "([^"]*)" with (\{.*\})$"#
)]
async fn call_without_scopes(
    world: &mut GatewayWorld,
    name: String,
    arguments: String,
) -> StepResult {
    let audience = audience(world).await?;
    let token = world.issuer()?.forged(&Forgery::good(&audience, None))?;
    let statuses = call_showing(world, token, TokenPlace::Header, &name, &arguments).await?;
    note_retries(world, &statuses);
    Ok(())
}

/// TC-AUTH-008: where the gateway says it checks scopes (its metadata lists
/// them, or its challenge names one), a token with none of them gets 403
/// and an `insufficient_scope` challenge naming a scope it lists.
#[then(
    "where the gateway checks scopes, it answered HTTP 403 with insufficient_scope naming a scope it lists"
)]
async fn insufficient_scope(world: &mut GatewayWorld) -> StepResult {
    let raw = world.raw_http().await?;
    let endpoint = raw.url().to_owned();
    let last = raw.last()?.clone();
    let (listed, told) = scopes_said(&endpoint).await;
    if listed.is_empty() {
        return Err(world
            .cannot_judge(format!(
                "the gateway says of no scope that it checks it ({told}), so no token can have \
                 too few"
            ))
            .into());
    }
    let body = body_of(&last);
    if last.status != 403 {
        fail!(
            "a token with none of the scopes the gateway checks ({}) was answered HTTP {}, not \
             403 with an insufficient_scope challenge: {body}",
            listed.join(" "),
            last.status
        );
    }
    let Some((value, challenge)) = challenge_of(&last) else {
        fail!("the 403 carries no WWW-Authenticate challenge saying which scope is needed: {body}");
    };
    let challenge = challenge.filter(Challenge::is_bearer);
    let error = challenge.as_ref().and_then(|c| c.param("error"));
    let named = challenge
        .as_ref()
        .and_then(|c| c.param("scope"))
        .map(|s| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .unwrap_or_default();
    if error != Some("insufficient_scope") {
        fail!("the 403's challenge is not a Bearer insufficient_scope error: WWW-Authenticate: {value}");
    }
    if !named.iter().any(|scope| listed.contains(scope)) {
        fail!(
            "the insufficient_scope challenge names no scope the gateway checks ({}): \
             WWW-Authenticate: {value}",
            listed.join(" ")
        );
    }
    Ok(())
}

/// The scopes the gateway says it checks: its metadata's
/// `scopes_supported`, and a scope its challenge to a request without a
/// token names; and where that was looked for.
async fn scopes_said(endpoint: &str) -> (Vec<String>, String) {
    let mut listed: Vec<String> = Vec::new();
    let metadata = protected::discover(endpoint).await;
    if let Some(metadata) = &metadata {
        listed.extend(metadata.scopes_supported().into_iter().map(str::to_owned));
    }
    if let Ok((_, Some(value))) = protected::unauthenticated(endpoint).await {
        if let Some(scope) =
            Challenge::parse(&value).and_then(|c| c.param("scope").map(str::to_owned))
        {
            listed.extend(scope.split_whitespace().map(str::to_owned));
        }
    }
    listed.sort();
    listed.dedup();
    let told = match metadata {
        Some(metadata) => format!("its metadata at {} lists no scopes_supported", metadata.url),
        None => "it serves no protected-resource metadata".to_owned(),
    };
    (listed, format!("{told}, and its challenge names no scope"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resource_is_the_endpoint_or_above_it() {
        let endpoint = "http://127.0.0.1:5/api/mcp";
        assert!(names_endpoint(endpoint, endpoint));
        assert!(names_endpoint("http://127.0.0.1:5", endpoint));
        assert!(names_endpoint("http://127.0.0.1:5/api/", endpoint));
        assert!(!names_endpoint("http://127.0.0.1:5/ap", endpoint));
        assert!(!names_endpoint("http://127.0.0.1:6/api/mcp", endpoint));
        assert!(!names_endpoint("/api/mcp", endpoint));
    }

    #[test]
    fn summarizes_answers_in_runs() {
        assert_eq!(summarize(&[401, 401, 401, 200]), "401 x3, 200");
        assert_eq!(summarize(&[]), "");
    }

    #[test]
    fn knows_every_token_the_feature_names() {
        let feature = include_str!("../../../features/authorization.feature");
        let kinds: Vec<&str> = feature
            .lines()
            .skip_while(|line| !line.contains("| token "))
            .skip(1)
            .take_while(|line| line.trim_start().starts_with('|'))
            .map(|line| line.trim().trim_matches('|').trim())
            .collect();
        assert_eq!(kinds.len(), 8);
        for kind in kinds {
            forgery(kind, "aud", None).unwrap();
        }
    }
}
