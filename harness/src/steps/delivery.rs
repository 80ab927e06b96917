//! Steps for TC-SEND-*: the request goes out once, is never retried or
//! redirected, and the whole exchange is cut off after 15 seconds.
//!
//! Wording differs from gateway to gateway, so an error "says so" when it
//! uses one of a few words for the failure, compared without regard to case.

use std::time::Duration;

use cucumber::then;

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
