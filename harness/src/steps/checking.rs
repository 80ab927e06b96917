//! Steps for TC-CHECK-*: arguments are checked against the input schema
//! before anything is sent, and a failure names places, never values.

use cucumber::{gherkin::Step, then, when};
use serde_json::Value;

use super::failure::{fail, StepResult};
use super::{
    call_support::{
        arguments_with, call_listed, clip, error_text, names_dotted, names_pointer,
        nothing_reached, result, the_request,
    },
    support::{first_column, parse_json, tool},
};
use crate::json::{follow, same_json, show};
use crate::world::GatewayWorld;

#[when(regex = r#"^the client calls "([^"]*)" with (.+) placed at "([^"]*)"$"#)]
async fn call_with_value_at(
    world: &mut GatewayWorld,
    name: String,
    value: String,
    pointer: String,
) -> StepResult {
    let arguments = arguments_with(&pointer, parse_json(&value)?)?;
    call_listed(world, &name, arguments).await?;
    Ok(())
}

#[then(expr = "the call is refused at {string}")]
async fn refused_at(world: &mut GatewayWorld, pointer: String) -> StepResult {
    refused_at_all(world, &[pointer])
}

#[then("the call is refused at each of:")]
async fn refused_at_each(world: &mut GatewayWorld, step: &Step) -> StepResult {
    refused_at_all(world, &first_column(step)?)
}

/// The error names each place. Whether anything was sent is TC-CHECK-015's
/// matter, judged in that rule's own scenarios. A place is named where the
/// gateway took its argument, if the call put it elsewhere (the argument
/// rules' matter); named in another form than a JSON Pointer, it is
/// TC-CHECK-013's matter, which other scenarios cannot see past.
fn refused_at_all(world: &mut GatewayWorld, pointers: &[String]) -> StepResult {
    let text = refusal_text(world)?.to_owned();
    let mut missing = Vec::new();
    let mut dotted = Vec::new();
    for pointer in pointers {
        let forms = world.as_the_gateway_placed(pointer);
        if forms.iter().any(|form| names_pointer(&text, form)) {
            continue;
        }
        match forms.iter().find_map(|form| names_dotted(&text, form)) {
            Some(written) => dotted.push(format!("{pointer} as {written}")),
            None => missing.push(forms.join(" or ")),
        }
    }
    if !missing.is_empty() {
        fail!("the error does not name {missing:?}:\n{}", clip(&text));
    }
    if !dotted.is_empty() {
        let why = format!(
            "the error names {dotted:?}, not as JSON Pointers:\n{}",
            clip(&text)
        );
        if world.judges(PLACES_AS_POINTERS) {
            fail!("{why}");
        }
        return Err(world.not_judged(PLACES_AS_POINTERS, why).into());
    }
    Ok(())
}

/// The rule that a refusal names places as JSON Pointers.
const PLACES_AS_POINTERS: &str = "TC-CHECK-013";

/// The text of a refusal, which is a tool error. A call that sent nothing
/// but answered in a result not marked as an error refused all the same:
/// the form is TC-PROTO-005's matter, and a scenario of another rule cannot
/// see its own past it (what a refusal names, say), so it is not judged.
fn refusal_text(world: &mut GatewayWorld) -> anyhow::Result<&str> {
    let unseen = match result(world)? {
        (false, text)
            if world.upstream().requests().is_empty() && !world.judges(ERRORS_ARE_TOOL_ERRORS) =>
        {
            Some(clip(text))
        }
        _ => None,
    };
    if let Some(text) = unseen {
        return Err(world.not_judged(
            ERRORS_ARE_TOOL_ERRORS,
            format!("nothing was sent, and the answer is a result not marked as an error:\n{text}"),
        ));
    }
    error_text(world)
}

/// A refusal is a tool error, given before anything reaches the upstream.
#[then("the call is refused")]
async fn refused(world: &mut GatewayWorld) -> StepResult {
    let text = clip(refusal_text(world)?);
    // An error once the call reached the upstream may be the upstream's, not
    // a refusal: whether a refused call sends anything is TC-CHECK-015's
    // matter, failed in its own scenarios; elsewhere nothing is seen.
    let sent = world.upstream().requests().len();
    if sent > 0 {
        if world.judges(NOTHING_SENT_AFTER_REFUSAL) {
            fail!("the call reached the upstream ({sent} request(s)) before it failed:\n{text}");
        }
        return Err(world
            .not_judged(
                NOTHING_SENT_AFTER_REFUSAL,
                format!(
                    "the call reached the upstream ({sent} request(s)) and failed after, so \
                     whether it was refused cannot be told:\n{text}"
                ),
            )
            .into());
    }
    Ok(())
}

/// The rule that a refused call sends nothing.
const NOTHING_SENT_AFTER_REFUSAL: &str = "TC-CHECK-015";

/// The rule that a refusal is a tool result with isError.
const ERRORS_ARE_TOOL_ERRORS: &str = "TC-PROTO-005";

#[then("the call reached the upstream")]
async fn reached(world: &mut GatewayWorld) -> StepResult {
    if world.upstream().requests().is_empty() {
        let (_, text) = result(world)?;
        fail!(
            "the call sent nothing upstream; it answered:\n{}",
            clip(text)
        );
    }
    Ok(())
}

/// TC-CHECK-015 judges what follows a failed check. A call that went
/// through unrefused (the matter of the checking rule named) leaves it
/// nothing to see; one refused in a result not marked as an error (TC-PROTO-005's
/// matter) is judged on what it sent all the same.
#[then(
    regex = r#"^if the call was refused, which (TC-[A-Z]+-\d+) asks for, nothing reached the upstream$"#
)]
async fn refused_sends_nothing(world: &mut GatewayWorld, rule: String) -> StepResult {
    let (is_error, text) = result(world)?;
    let sent = world.upstream().requests().len();
    if !is_error && sent > 0 {
        let text = clip(text);
        return Err(world
            .not_judged(
                &rule,
                format!("the call was not refused: it reached the upstream and answered:\n{text}"),
            )
            .into());
    }
    nothing_reached(world)?;
    Ok(())
}

/// An outcome that holds only where the gateway published the schema the
/// way another rule asks (a translated OpenAPI 3.0 form, say): where it did
/// not, that rule fails in its own scenarios, and this one cannot see its
/// matter.
#[then(
    regex = r#"^the call (is refused|is refused at "[^"]*"|reached the upstream), where the input schema of "([^"]*)" has "([^"]*)" equal to (.+), as (TC-[A-Z]+-\d+) asks$"#
)]
async fn outcome_where_published(
    world: &mut GatewayWorld,
    outcome: String,
    name: String,
    pointer: String,
    json: String,
    rule: String,
) -> StepResult {
    let schema = tool(world, &name).await?["inputSchema"].clone();
    let expected = required_as_taken(world, &schema, &pointer, parse_json(&json)?);
    let at = super::schemas::moved_argument(world, &schema, &pointer).unwrap_or(pointer);
    let published = world.unless_unusable(follow(&schema, &at))?;
    if !published.is_some_and(|v| same_json(v, &expected)) {
        let found = published.map_or("nothing".to_owned(), show);
        return Err(world
            .not_judged(
                &rule,
                format!(
                    "the input schema of {name:?} has {found} at {at}, not {}:\n{}",
                    show(&expected),
                    clip(&show(&schema))
                ),
            )
            .into());
    }
    match outcome.as_str() {
        "is refused" => refused(world).await,
        "reached the upstream" => reached(world).await,
        at => {
            let pointer = at.trim_start_matches("is refused at ").trim_matches('"');
            refused_at_all(world, &[pointer.to_owned()])
        }
    }
}

/// A list of required arguments, as the rules name them, under the names
/// of the arguments that hold them in the tool's input schema (`data` for
/// `body`, `params` for `limit`), where the call would give them so.
fn required_as_taken(
    world: &GatewayWorld,
    schema: &Value,
    pointer: &str,
    expected: Value,
) -> Value {
    let (Some(taken), Value::Array(names), "/required") =
        (schema["properties"].as_object(), &expected, pointer)
    else {
        return expected;
    };
    if !world.renames_arguments() {
        return expected;
    }
    let held: Option<Vec<Value>> = names
        .iter()
        .map(|name| {
            let name = name.as_str()?;
            crate::naming::holding_argument(name, taken).map(Value::String)
        })
        .collect();
    held.map_or(expected, Value::Array)
}

/// The words that come with one place the error names (see
/// [`places_come_with_problems`]).
#[then(expr = "the result says what is wrong at {string}")]
async fn says_what_is_wrong(world: &mut GatewayWorld, pointer: String) -> StepResult {
    let forms = world.as_the_gateway_placed(&pointer);
    let text = error_text(world)?;
    let places = pointers_in(text);
    let Some(index) = places
        .iter()
        .position(|(s, e)| forms.iter().any(|form| text[*s..*e] == *form))
    else {
        fail!("the error does not name {pointer}:\n{}", clip(text));
    };
    if !has_words(&problem_words(text, &places, index)) {
        fail!(
            "{pointer} comes with no words saying what is wrong:\n{}",
            clip(text)
        );
    }
    Ok(())
}

#[then(regex = r#"^the request carried (.+) at "(/body(?:/[^"]*)?)"$"#)]
async fn request_carried(world: &mut GatewayWorld, value: String, pointer: String) -> StepResult {
    let expected = parse_json(&value)?;
    let request = the_request(world)?;
    let body: Value = serde_json::from_slice(&request.body).map_err(|e| {
        anyhow::anyhow!(
            "the request's body is not JSON ({e}): {}",
            String::from_utf8_lossy(&request.body)
        )
    })?;
    let inside = &pointer["/body".len()..];
    match body.pointer(inside) {
        Some(actual) if same_json(actual, &expected) => Ok(()),
        Some(actual) => fail!(
            "the request carried {} at {pointer}, expected {}",
            show(actual),
            show(&expected)
        ),
        None => fail!("the request carried nothing at {pointer}:\n{}", show(&body)),
    }
}

#[then(expr = "the result does not name {string}")]
async fn does_not_name(world: &mut GatewayWorld, pointer: String) -> StepResult {
    let forms = world.as_the_gateway_placed(&pointer);
    let (_, text) = result(world)?;
    let named = forms.iter().find_map(|form| {
        names_pointer(text, form)
            .then(|| form.clone())
            .or_else(|| names_dotted(text, form))
    });
    if let Some(named) = named {
        fail!(
            "the result names {named} ({pointer}), which is not wrong:\n{}",
            clip(text)
        );
    }
    Ok(())
}

/// Each expected place must come with words saying what is wrong (the text
/// after it up to the next place, or else the text before it on its line),
/// and places with different problems must not all read the same.
#[then("each place the result names comes with what is wrong")]
async fn places_come_with_problems(world: &mut GatewayWorld) -> StepResult {
    let text = error_text(world)?;
    let places = pointers_in(text);
    if places.is_empty() {
        fail!("the error names no JSON Pointer:\n{}", clip(text));
    }
    let mut problems = Vec::new();
    for (index, (start, end)) in places.iter().enumerate() {
        let words = problem_words(text, &places, index);
        if !has_words(&words) {
            fail!(
                "{} comes with no words saying what is wrong:\n{}",
                &text[*start..*end],
                clip(text)
            );
        }
        problems.push(words.trim().to_lowercase());
    }
    problems.dedup();
    if problems.len() < 2 {
        fail!(
            "every place reads the same, whatever is wrong there:\n{}",
            clip(text)
        );
    }
    Ok(())
}

/// What the text says about the place at `index` of `places`: the text after
/// it up to the next place or the end of its line, or else the text before
/// it on its line.
fn problem_words(text: &str, places: &[(usize, usize)], index: usize) -> String {
    let (start, end) = places[index];
    let line_start = text[..start].rfind('\n').map_or(0, |at| at + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |at| end + at);
    let next = places
        .get(index + 1)
        .map_or(line_end, |(s, _)| (*s).min(line_end));
    let previous = index
        .checked_sub(1)
        .map_or(line_start, |i| places[i].1.max(line_start));
    let after = &text[end..next.max(end)];
    let before = &text[previous.min(start)..start];
    if has_words(after) { after } else { before }.to_owned()
}

/// Where each JSON Pointer (`/` followed by a token) starts and ends in `text`.
fn pointers_in(text: &str) -> Vec<(usize, usize)> {
    let is_token = |c: char| c.is_alphanumeric() || "/_-.~".contains(c);
    let mut places = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let starts_here = c == '/' && !text[..at].chars().next_back().is_some_and(is_token);
        if !starts_here {
            continue;
        }
        let mut end = at + 1;
        while let Some(&(next_at, next)) = chars.peek() {
            if !is_token(next) {
                break;
            }
            end = next_at + next.len_utf8();
            chars.next();
        }
        if end > at + 1 {
            places.push((at, end));
        }
    }
    places
}

fn has_words(text: &str) -> bool {
    text.split(|c: char| !c.is_alphabetic())
        .any(|word| word.chars().count() >= 3)
}
