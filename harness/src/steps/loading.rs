//! Steps for TC-LOAD-*: documents that load, and documents that must not.

use cucumber::{then, when};

use crate::{
    fail,
    world::{GatewayWorld, StepResult},
};

/// Marks of a crash rather than a handled error, in the languages gateways
/// are commonly written in.
const CRASH_MARKS: [&str; 3] = [
    "panicked at",
    "Traceback (most recent call last)",
    "Uncaught",
];

#[when("the gateway loads the document, whether it accepts it or not")]
async fn loads_either_way(world: &mut GatewayWorld) -> StepResult {
    // Listing forces a lazy gateway to read its document; a refusal is fine here.
    let _ = world.list_tools().await;
    Ok(())
}

#[then(expr = "the gateway refuses to start, and its error names {string}")]
async fn refuses(world: &mut GatewayWorld, place: String) -> StepResult {
    let failure = world.start_refused().await?;
    if let Some(mark) = CRASH_MARKS.iter().find(|m| failure.stderr.contains(*m)) {
        fail!(
            "the gateway crashed ({mark:?}) instead of reporting the error:\n{}",
            failure.stderr
        );
    }
    if !failure
        .stderr
        .to_lowercase()
        .contains(&place.to_lowercase())
    {
        fail!(
            "the gateway refused the document, but its error does not name {place:?}:\n{}",
            failure.stderr
        );
    }
    Ok(())
}

#[then("the upstream has received no request")]
async fn upstream_untouched(world: &mut GatewayWorld) -> StepResult {
    let requests = world.upstream().requests();
    if let Some(first) = requests.first() {
        fail!(
            "the upstream received {} request(s), first {} {}",
            requests.len(),
            first.method,
            first.target
        );
    }
    Ok(())
}
