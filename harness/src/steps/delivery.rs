//! Steps for TC-SEND-*: the request goes out once, is never retried or
//! redirected, and the whole exchange is cut off after 15 seconds.
//!
//! Wording differs from gateway to gateway, so an error "says so" when it
//! uses one of a few words for the failure, compared without regard to case.

use std::time::Duration;

use cucumber::{given, then};
use mock_upstream::Behaviour;

use super::call_support::{clip, error_text, says_one_of};
use super::failure::{fail, StepResult};
use crate::world::GatewayWorld;

const TIMEOUT_WORDS: &[&str] = &[
    "timed out",
    "timeout",
    "time-out",
    "time out",
    "deadline",
    "did not complete within",
    "15 s",
];
const RESET_WORDS: &[&str] = &["reset", "closed", "aborted", "broken", "incomplete"];
/// Words for a refused connection. Bare "connect" is not one: "connection
/// reset" contains it too.
const REFUSED_WORDS: &[&str] = &[
    "refused",
    "unreachable",
    "could not connect",
    "cannot connect",
    "can't connect",
    "unable to connect",
    "failed to connect",
    "connection attempts failed",
    "connecterror",
];

#[given(expr = "the upstream resets the connection on {string}")]
async fn resets(world: &mut GatewayWorld, route: String) -> StepResult {
    world.upstream().set_behaviour(&route, Behaviour::Reset);
    Ok(())
}

#[given(expr = "the upstream answers {string} with bytes that are not HTTP")]
async fn not_http(world: &mut GatewayWorld, route: String) -> StepResult {
    world.upstream().set_behaviour(&route, Behaviour::NotHttp);
    Ok(())
}

#[given(expr = "the upstream never answers on {string}")]
async fn stalls(world: &mut GatewayWorld, route: String) -> StepResult {
    world.upstream().set_behaviour(&route, Behaviour::Stall);
    Ok(())
}

#[given(expr = "the upstream holds its answer on {string} back for {int} seconds")]
async fn delays(world: &mut GatewayWorld, route: String, seconds: u64) -> StepResult {
    world.upstream().set_behaviour(
        &route,
        Behaviour::DelayHeaders(Duration::from_secs(seconds)),
    );
    Ok(())
}

#[given(
    expr = "the upstream answers {string} at once, then trickles {string} every second without end"
)]
async fn trickles(world: &mut GatewayWorld, route: String, chunk: String) -> StepResult {
    world.upstream().set_behaviour(
        &route,
        Behaviour::Trickle {
            status: 200,
            content_type: "text/plain".into(),
            chunk: chunk.into_bytes(),
            interval: Duration::from_secs(1),
        },
    );
    Ok(())
}

#[given(
    expr = "the upstream answers {string} at once, then sends {string} {int} times, one a second"
)]
async fn sends_slowly(
    world: &mut GatewayWorld,
    route: String,
    chunk: String,
    count: usize,
) -> StepResult {
    world.upstream().set_behaviour(
        &route,
        Behaviour::Chunked {
            status: 200,
            content_type: "text/plain".into(),
            chunks: vec![chunk.into_bytes(); count],
            pause: Duration::from_secs(1),
        },
    );
    Ok(())
}

/// Starts the gateway first (it is given the address while it still
/// answers), then closes the port.
#[given("the gateway is running, and nothing listens at the upstream's address any more")]
async fn nothing_listens(world: &mut GatewayWorld) -> StepResult {
    world.start().await?;
    world.upstream().refuse_connections().await;
    Ok(())
}

#[then("the call fails saying it timed out")]
async fn timed_out(world: &mut GatewayWorld) -> StepResult {
    fails_saying(world, "it timed out", TIMEOUT_WORDS)
}

/// TC-SEND-004, TC-SEND-005: cut off at the deadline, not long after it
/// (a deadline per read, or per phase, lets a trickle run on) nor before.
#[then("the call was cut off 15 seconds after it began, give or take a second")]
async fn cut_off_at_deadline(world: &mut GatewayWorld) -> StepResult {
    let took = world.last_call_took()?;
    if !(DEADLINE_EARLIEST..=DEADLINE_LATEST).contains(&took) {
        fail!(
            "the call ended {:.1} s after it began; a deadline of 15 s for the whole \
             exchange ends it between {} and {} s",
            took.as_secs_f64(),
            DEADLINE_EARLIEST.as_secs(),
            DEADLINE_LATEST.as_secs()
        );
    }
    Ok(())
}

const DEADLINE_EARLIEST: Duration = Duration::from_secs(14);
const DEADLINE_LATEST: Duration = Duration::from_secs(16);

#[then("the call fails saying the connection was reset")]
async fn was_reset(world: &mut GatewayWorld) -> StepResult {
    fails_saying(world, "the connection was reset", RESET_WORDS)?;
    // A reset is not a refusal: the two call for different fixes.
    does_not_say(world, "the connection was reset", &["refused"])
}

#[then("the call fails saying the connection was refused")]
async fn was_refused(world: &mut GatewayWorld) -> StepResult {
    fails_saying(world, "the connection was refused", REFUSED_WORDS)?;
    does_not_say(world, "the connection was refused", &["reset"])
}

fn fails_saying(world: &GatewayWorld, what: &str, words: &[&str]) -> StepResult {
    let text = error_text(world)?;
    if !says_one_of(text, words) {
        fail!(
            "expected an error saying {what} (one of {words:?}), got:\n{}",
            clip(text)
        );
    }
    Ok(())
}

fn does_not_say(world: &GatewayWorld, what: &str, words: &[&str]) -> StepResult {
    let text = error_text(world)?;
    if says_one_of(text, words) {
        fail!(
            "expected an error saying {what}, but it says {words:?} too, which names \
             another failure:\n{}",
            clip(text)
        );
    }
    Ok(())
}
