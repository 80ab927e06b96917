//! Steps for TC-REQ-*: the one request a call sends, as the mock upstream
//! recorded it on the wire.

use anyhow::Context as _;
use cucumber::{gherkin::Step, given, then, when};
use serde_json::Value;

use super::failure::{fail, StepResult};
use super::{
    call_support::{
        client_credential_not_judged, error_text, expand, listed, nothing_reached, only_request,
        result, same_raw_path, the_request,
    },
    support::{doc_string, parse_json, table},
};
use crate::client_auth::{self, ClientAuth};
use crate::json::{same_json, show};
use crate::world::GatewayWorld;

#[given(expr = "the API lives under the base path {string}")]
async fn base_path(world: &mut GatewayWorld, path: String) -> StepResult {
    Ok(world.set_base_path(&path)?)
}

/// A base URL may carry a query of its own (an API version, say), which
/// every request keeps.
#[given(expr = "the gateway's base URL has the path and query {string}")]
async fn base_path_and_query(world: &mut GatewayWorld, path_and_query: String) -> StepResult {
    Ok(world.set_base_path(&path_and_query)?)
}

#[when(regex = r#"^the client calls "([^"]*)" with (\{.*\}) sending the HTTP headers:$"#)]
async fn call_with_headers(
    world: &mut GatewayWorld,
    name: String,
    arguments: String,
    step: &Step,
) -> StepResult {
    let headers: Vec<(String, String)> = table(step)?
        .iter()
        .map(|row| (row[0].clone(), row.get(1).cloned().unwrap_or_default()))
        .collect();
    listed(world, &name).await?;
    world
        .call_tool_with_headers(&name, parse_json(&arguments)?, &headers)
        .await?;
    Ok(())
}

#[then("nothing reached the upstream")]
async fn nothing_upstream(world: &mut GatewayWorld) -> StepResult {
    nothing_reached(world)?;
    Ok(())
}

#[then("the upstream received exactly one request")]
async fn exactly_one(world: &mut GatewayWorld) -> StepResult {
    only_request(world)?;
    Ok(())
}

/// The redirect stayed unfollowed: the upstream got only the call's own
/// request. A gateway that followed it (breaking the rule named) leaves
/// nothing of the redirect for the scenario to judge: not judged.
#[then(regex = r"^the redirect was not followed, which (TC-[A-Z]+-\d+) requires$")]
async fn redirect_not_followed(world: &mut GatewayWorld, rule: String) -> StepResult {
    let requests = world.upstream().requests();
    if requests.len() > 1 {
        let first: Vec<String> = requests
            .iter()
            .take(3)
            .map(|r| format!("{} {}", r.method, r.path))
            .collect();
        let more = if requests.len() > first.len() {
            ", ..."
        } else {
            ""
        };
        return Err(world
            .not_judged(
                &rule,
                format!(
                "the gateway followed the redirect (the upstream received {} requests: {}{more})",
                requests.len(),
                first.join(", ")
            ),
            )
            .into());
    }
    Ok(())
}

#[then(expr = "the upstream received exactly one request: {word} {string}")]
async fn exactly_one_to(world: &mut GatewayWorld, method: String, path: String) -> StepResult {
    let request = only_request(world)?;
    if request.method != method || !same_raw_path(&request.path, &path) {
        fail!(
            "expected {method} {path} upstream, got {} {}",
            request.method,
            request.path
        );
    }
    Ok(())
}

#[then(expr = "the request's raw path is {string}")]
async fn raw_path(world: &mut GatewayWorld, path: String) -> StepResult {
    let request = the_request(world)?;
    if !same_raw_path(&request.path, &path) {
        fail!(
            "expected the raw path {path}, the upstream received {}",
            request.path
        );
    }
    Ok(())
}

/// The decoded query pairs, in order for each name; names may come in any order.
#[then("the request's query is:")]
async fn query_is(world: &mut GatewayWorld, step: &Step) -> StepResult {
    let request = the_request(world)?;
    let mut expected: Vec<(String, String)> = table(step)?
        .iter()
        .map(|row| {
            (
                row[0].clone(),
                expand(world, row.get(1).map_or("", String::as_str)),
            )
        })
        .collect();
    let mut actual = request.query_pairs();
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    actual.sort_by(|a, b| a.0.cmp(&b.0));
    if actual != expected {
        fail!(
            "expected the query pairs {expected:?}, got {actual:?} ({})",
            raw_query(&request)
        );
    }
    Ok(())
}

#[then("the request has no query")]
async fn no_query(world: &mut GatewayWorld) -> StepResult {
    let request = the_request(world)?;
    if let Some(query) = request.query.filter(|q| !q.is_empty()) {
        fail!("expected no query, got ?{query}");
    }
    Ok(())
}

#[then(expr = "the request's header {string} is {string}")]
async fn header_is(world: &mut GatewayWorld, name: String, value: String) -> StepResult {
    let expected = expand(world, &value);
    let request = the_request(world)?;
    let values: Vec<String> = request
        .header_all(&name)
        .into_iter()
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .collect();
    if values != [expected.as_str()] {
        // Nothing wrong but the client credential beside the value: that
        // is the client credential's own rule.
        let deferred = deferring(world).is_some_and(|auth| {
            let others: Vec<&String> = values.iter().filter(|v| !auth.is_in(v)).collect();
            others.len() < values.len() && others == [&expected]
        });
        if deferred {
            return Err(client_credential_not_judged(
                world,
                &format!("its {name} header, beside the value expected"),
            )
            .into());
        }
        fail!(
            "{}",
            masked(
                world,
                &format!(
                    "expected {name} to be sent once as {expected:?}, it was sent as {values:?}:\n{request}"
                )
            )
        );
    }
    Ok(())
}

#[then(expr = "the request's header {string} contains {string}")]
async fn header_contains(world: &mut GatewayWorld, name: String, part: String) -> StepResult {
    let request = the_request(world)?;
    match request.header(&name) {
        Some(value) if String::from_utf8_lossy(value).contains(&part) => Ok(()),
        Some(value) => fail!(
            "expected {name} to contain {part:?}, it is {:?}",
            String::from_utf8_lossy(value)
        ),
        None => fail!("the request has no {name} header:\n{request}"),
    }
}

#[then(expr = "the request has a non-empty {string} header")]
async fn header_present(world: &mut GatewayWorld, name: String) -> StepResult {
    let request = the_request(world)?;
    match request.header(&name) {
        Some(value) if !value.iter().all(u8::is_ascii_whitespace) => Ok(()),
        _ => fail!("expected a non-empty {name} header:\n{request}"),
    }
}

#[then(expr = "the request has no {string} header")]
async fn header_absent(world: &mut GatewayWorld, name: String) -> StepResult {
    let request = the_request(world)?;
    let values = request.header_all(&name);
    if values.is_empty() {
        return Ok(());
    }
    // The client credential passed on in that header is its own rule's
    // matter, not this scenario's.
    let deferred = deferring(world).is_some_and(|auth| {
        values
            .iter()
            .all(|value| auth.is_in(&String::from_utf8_lossy(value)))
    });
    if deferred {
        return Err(client_credential_not_judged(
            world,
            &format!("a {name} header, where none should be"),
        )
        .into());
    }
    fail!(
        "{}",
        masked(world, &format!("expected no {name} header:\n{request}"))
    );
}

/// The `Content-Type` without its parameters (`; charset=...`).
#[then(expr = "the request's media type is {string}")]
async fn media_type(world: &mut GatewayWorld, expected: String) -> StepResult {
    let request = the_request(world)?;
    let content_type = request
        .header("content-type")
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .with_context(|| format!("the request has no Content-Type:\n{request}"))?;
    let media_type = content_type.split(';').next().unwrap_or("").trim();
    if !media_type.eq_ignore_ascii_case(&expected) {
        fail!("expected the media type {expected}, the request has Content-Type {content_type:?}");
    }
    Ok(())
}

#[then("the request's body is the JSON:")]
async fn body_is_json(world: &mut GatewayWorld, step: &Step) -> StepResult {
    let expected = parse_json(doc_string(step)?)?;
    let actual = json_body(world)?;
    if !same_json(&actual, &expected) {
        fail!(
            "expected the body {}, got {}",
            show(&expected),
            show(&actual)
        );
    }
    Ok(())
}

/// The upstream request's body, read as JSON.
fn json_body(world: &GatewayWorld) -> anyhow::Result<Value> {
    let request = the_request(world)?;
    serde_json::from_slice(&request.body).with_context(|| {
        format!(
            "the request's body is not JSON: {:?}",
            String::from_utf8_lossy(&request.body)
        )
    })
}

/// One member of the JSON body, by JSON Pointer: present, with this value
/// (a `null` must arrive as `null`, not be left out).
#[then(regex = r#"^the request's body holds (.+) at "([^"]*)"$"#)]
async fn body_holds(world: &mut GatewayWorld, json: String, pointer: String) -> StepResult {
    let expected = parse_json(&json)?;
    let actual = json_body(world)?;
    match actual.pointer(&pointer) {
        Some(value) if same_json(value, &expected) => Ok(()),
        Some(value) => fail!(
            "expected {} at {pointer:?} of the body, got {}",
            show(&expected),
            show(value)
        ),
        None => fail!(
            "expected {} at {pointer:?} of the body, which has nothing there: {}",
            show(&expected),
            show(&actual)
        ),
    }
}

#[then("the request has no body")]
async fn no_body(world: &mut GatewayWorld) -> StepResult {
    let request = the_request(world)?;
    if !request.body.is_empty() {
        fail!(
            "expected no body, got {:?}",
            String::from_utf8_lossy(&request.body)
        );
    }
    Ok(())
}

/// Without regard to case. Where `text` is found only in the client
/// credential (`AGENT-`, which it begins with), what reached the upstream
/// is the client credential's own rule's matter: the scenario is not judged.
#[then(expr = "no byte that reached the upstream contains {string}")]
async fn wire_lacks(world: &mut GatewayWorld, text: String) -> StepResult {
    let needle = expand(world, &text).to_lowercase();
    let mut client_credential_seen = false;
    for bytes in world.upstream().wire_bytes() {
        let received = String::from_utf8_lossy(&bytes).into_owned();
        let rest = match deferring(world) {
            Some(auth) => {
                client_credential_seen |= auth.is_in(&received);
                auth.removed_from(&received)
            }
            None => received.clone(),
        };
        if rest.to_lowercase().contains(&needle) {
            fail!(
                "{text:?} reached the upstream:\n{}",
                masked(world, &received.to_lowercase())
            );
        }
    }
    if client_credential_seen {
        return Err(client_credential_not_judged(world, "the bytes it received").into());
    }
    Ok(())
}

/// TC-REQ-021: the credential the client showed the gateway is the
/// gateway's own, and goes nowhere near the API, in any case of its
/// letters. The failure shows what the upstream received, the credential
/// masked.
#[then("no byte that reached the upstream contains the client credential")]
async fn wire_lacks_client_credential(world: &mut GatewayWorld) -> StepResult {
    let auth = shown_client_credential(world)?.clone();
    for bytes in world.upstream().wire_bytes() {
        let received = String::from_utf8_lossy(&bytes);
        if auth.is_in(&received) {
            fail!(
                "the client credential ({}), which the client showed the gateway in its {} \
                 header, reached the upstream: a gateway's own clients' credential is never \
                 passed on to the API. The upstream received:\n{}",
                client_auth::SHOWN_AS,
                auth.header().0,
                auth.masked(&received)
            );
        }
    }
    Ok(())
}

/// The call's request reached the upstream, so that what it carried can be
/// judged; a gateway that sent nothing breaks the rule named, whose own
/// scenarios judge that, and leaves this one not judged.
#[then(regex = r"^the call reached the upstream, which (TC-[A-Z]+-\d+) requires$")]
async fn call_reached(world: &mut GatewayWorld, rule: String) -> StepResult {
    if world.upstream().requests().is_empty() {
        let answer = result(world)
            .map(|(_, text)| masked(world, text))
            .unwrap_or_default();
        return Err(world
            .not_judged(
                &rule,
                format!("the call sent no request upstream, so nothing it carried can be seen (it answered: {answer})"),
            )
            .into());
    }
    Ok(())
}

/// A document whose security schemes depend on where the run's client
/// shows its credential (`--client-auth`): `{{scheme_in_the_client_credential_place}}`
/// puts the API's credential in that same header, `{{scheme_elsewhere}}`
/// in another one.
#[given("the OpenAPI document, written for where the client shows its credential:")]
async fn document_for_client_credential(world: &mut GatewayWorld, step: &Step) -> StepResult {
    let auth = shown_client_credential(world)?;
    let text = doc_string(step)?
        .replace(
            "{{scheme_in_the_client_credential_place}}",
            &auth.scheme_in_its_place(),
        )
        .replace("{{scheme_elsewhere}}", &auth.scheme_elsewhere());
    world.set_document(&text).await?;
    Ok(())
}

/// The client credential the run shows the gateway; a step that needs one
/// in a run without `--client-auth` (its scenario not tagged for it) fails.
fn shown_client_credential(world: &GatewayWorld) -> anyhow::Result<&ClientAuth> {
    world.client_auth().with_context(|| {
        format!(
            "this step needs a client credential, and {} (tag the scenario @{} to have it not run)",
            client_auth::not_run_reason(true),
            client_auth::TAG
        )
    })
}

/// The client credential, where a step that finds it upstream leaves the
/// verdict to its own rule: in a run with `--client-auth`, in a scenario
/// of another rule.
fn deferring(world: &GatewayWorld) -> Option<&ClientAuth> {
    world
        .client_auth()
        .filter(|_| !world.judges(client_auth::RULE))
}

/// `text` with the client credential masked, where the run has one.
fn masked(world: &GatewayWorld, text: &str) -> String {
    match world.client_auth() {
        Some(auth) => auth.masked(text),
        None => text.to_owned(),
    }
}

#[then(expr = "the request's query parameter {string} is {string}")]
async fn query_parameter_is(world: &mut GatewayWorld, name: String, value: String) -> StepResult {
    let expected = expand(world, &value);
    let request = the_request(world)?;
    let values: Vec<String> = request
        .query_pairs()
        .into_iter()
        .filter(|(n, _)| *n == name)
        .map(|(_, v)| v)
        .collect();
    if values != [expected.as_str()] {
        fail!(
            "expected the query parameter {name} once as {expected:?}, got {values:?} ({})",
            raw_query(&request)
        );
    }
    Ok(())
}

/// TC-REQ-016 is kept either way: the credential alone in its place, or the
/// call refused with nothing sent.
#[then(
    regex = r#"^the request's (header|query parameter) "([^"]*)" is "([^"]*)", or the call is refused and nothing reached the upstream$"#
)]
async fn credential_alone_or_refused(
    world: &mut GatewayWorld,
    place: String,
    name: String,
    value: String,
) -> StepResult {
    let refused = result(world)?.0;
    if refused && nothing_reached(world).is_ok() {
        return Ok(());
    }
    let sent = match place.as_str() {
        "header" => header_is(world, name, value).await,
        _ => query_parameter_is(world, name, value).await,
    };
    match (sent, refused) {
        (Ok(()), _) => Ok(()),
        (Err(failure), true) => fail!(
            "the call was refused, yet something reached the upstream; and {failure}:\n{}",
            error_text(world)?
        ),
        (Err(failure), false) => Err(failure),
    }
}

/// The query as it came on the wire, for a failure message.
fn raw_query(request: &mock_upstream::RecordedRequest) -> String {
    match &request.query {
        Some(query) => format!("the query as sent: ?{query}"),
        None => "the request had no query".to_owned(),
    }
}
