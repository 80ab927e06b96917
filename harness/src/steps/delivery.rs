//! Steps for TC-SEND-*: the request goes out once, is never retried or
//! redirected, and the whole exchange is cut off after 15 seconds.
//!
//! Wording differs from gateway to gateway, so an error "says so" when it
//! uses one of a few words for the failure, compared without regard to case.

use std::time::Duration;

use cucumber::then;

use super::call_support::{clip, error_text, says_one_of, success_text, Repeated};
use super::failure::{fail, StepResult};
use crate::client::CallOutcome;
use crate::lag;
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

#[then("the call fails saying it timed out")]
async fn timed_out(world: &mut GatewayWorld) -> StepResult {
    fails_saying(world, "it timed out", TIMEOUT_WORDS)
}

/// TC-SEND-004, TC-SEND-005: cut off at the deadline, not long after it
/// (a deadline per read, or per phase, lets a trickle run on) nor before.
///
/// Timed where the gateway's own deadline shows: from the request's arrival
/// at the upstream to the gateway closing that connection, apart from how
/// long the answer then took to reach the harness's client (the call as the
/// client timed it, when the upstream saw no close). A late cut-off is not
/// judged when the machine held the harness's own timer up and kept the
/// gateway's threads waiting for a CPU as long, together ([`crate::lag`]):
/// a loaded runner, not the gateway.
#[then("the call was cut off 15 seconds after it began, give or take a second")]
async fn cut_off_at_deadline(world: &mut GatewayWorld) -> StepResult {
    let (sent, answered) = world.last_call_span()?;
    let at_upstream = world
        .upstream()
        .requests()
        .last()
        .and_then(|request| world.upstream().held_open(&request.path));
    let (took, timed) = match at_upstream {
        Some(held) => (
            held,
            "from the request's arrival at the upstream to the gateway closing its connection",
        ),
        None => (answered - sent, "from the call to its answer"),
    };
    if (DEADLINE_EARLIEST..=DEADLINE_LATEST).contains(&took) {
        return Ok(());
    }
    if let Some(late) = took.checked_sub(DEADLINE_LATEST) {
        if let Some(why) = lag::explains(late, sent, answered, world.last_call_waited()) {
            return Err(world.too_busy(why).into());
        }
    }
    fail!(
        "the call was cut off {:.1} s after it began ({timed}); a deadline of 15 s for the \
         whole exchange ends it between {} and {} s",
        took.as_secs_f64(),
        DEADLINE_EARLIEST.as_secs(),
        DEADLINE_LATEST.as_secs()
    );
}

/// TC-SEND-004, TC-SEND-005: an answer that comes in time is read whole.
/// When the gateway cut it off instead, and the machine held the harness's
/// own timer up and kept the gateway's threads waiting for a CPU for longer,
/// together, than the answer had to spare, the machine may have delayed it
/// past the deadline: not judged.
#[then(expr = "the answer came in time, with a text containing {string}")]
async fn in_time(world: &mut GatewayWorld, expected: String) -> StepResult {
    in_time_holding(world, &expected)
}

#[then(expr = "the answer came in time, with a text containing {repeated}")]
async fn in_time_long(world: &mut GatewayWorld, long: Repeated) -> StepResult {
    let expected = long.text(world);
    in_time_holding(world, &expected)
}

/// How much of the deadline an answer that comes "in time" has to spare:
/// the scenarios answer within about 10 s of the 15 s.
const SPARE: Duration = Duration::from_secs(4);

fn in_time_holding(world: &mut GatewayWorld, expected: &str) -> StepResult {
    let (sent, answered) = world.last_call_span()?;
    let cut_off = match world.last_call()? {
        CallOutcome::Result {
            is_error: true,
            text,
        } => says_one_of(text, TIMEOUT_WORDS),
        _ => false,
    };
    if cut_off {
        if let Some(why) = lag::explains(SPARE, sent, answered, world.last_call_waited()) {
            return Err(world.too_busy(why).into());
        }
    }
    let text = success_text(world)?;
    if !text.contains(expected) {
        fail!(
            "expected the result to contain {}\ngot:\n{}",
            clip(expected),
            clip(text)
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
