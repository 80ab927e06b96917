//! The request builder. Three ways in:
//! - checked arguments to a tool of a fixed fixture, as the gateway calls
//!   it (the arguments pass the tool's validator first);
//! - unchecked arguments to the same tools, as if the check let anything by;
//! - hand-made tools whose plans name any header, place and style, with
//!   unchecked arguments.
//!
//! Whatever is built passes the oracle's request invariants: it keeps the
//! base URL's scheme, host, port, user info and path, adds no fragment and
//! keeps the base query first, uses the plan's method, sets the gateway's
//! own headers once each and no denied header from an argument, carries no
//! CR, LF or NUL in a header, and carries the credential once, in its
//! place, as the only value there.

#![no_main]

use std::sync::OnceLock;

use arbitrary::Unstructured;
use hosted_mcp_gateway::check::Validator;
use hosted_mcp_gateway::convert::{
    BodyPlan, CallPlan, Catalogue, Hints, Location, ParameterPlan, Tool,
};
use hosted_mcp_gateway::request::{self, Destination};
use hosted_mcp_gateway_fuzz as gen;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

struct Fixture {
    tools: Vec<(Tool, Validator, Vec<String>)>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let mut tools = Vec::new();
        for text in [gen::REQUEST_FIXTURE, gen::PETSTORE] {
            let Catalogue {
                tools: converted, ..
            } = gen::catalogue(text);
            for tool in converted {
                let validator = Validator::compile(&tool.input_schema);
                let names = gen::argument_names(&tool);
                tools.push((tool, validator, names));
            }
        }
        Fixture { tools }
    })
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = run(&mut u);
});

fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let base = *u.choose(gen::BASES)?;
    let credential = if u.ratio(1, 10)? {
        String::new()
    } else if u.ratio(1, 4)? {
        gen::text(u)?
    } else {
        (*u.choose(gen::oracle::CREDENTIALS)?).to_owned()
    };
    let placement = gen::placement(u)?;
    let Ok(destination) = Destination::new(base, Some(&credential), placement.as_ref()) else {
        // A credential a header cannot carry is refused at start-up.
        return Ok(());
    };
    gen::assert_credential_settled(&destination, &credential, placement.as_ref());

    let mode = u.int_in_range(0..=2)?;
    let made;
    let (tool, arguments) = if mode < 2 {
        let (tool, validator, names) = u.choose(&fixture().tools)?;
        let keys: Vec<&str> = names.iter().map(String::as_str).collect();
        let arguments = gen::object(u, 3, &keys)?;
        // Mode 0 is the gateway's own flow: only checked arguments are built.
        if mode == 0
            && validator
                .validate(&Value::Object(arguments.clone()))
                .is_err()
        {
            return Ok(());
        }
        (tool, arguments)
    } else {
        made = hand_made_tool(u)?;
        let keys: Vec<&str> = made
            .plan
            .parameters
            .iter()
            .map(|p| p.argument.as_str())
            .chain(["body"])
            .collect();
        let arguments = gen::object(u, 3, &keys)?;
        (&made, arguments)
    };
    if let Ok(outbound) = request::build(tool, &arguments, &destination) {
        gen::assert_request_safe(
            &outbound,
            tool,
            base,
            &destination,
            &credential,
            placement.as_ref(),
        );
    }
    Ok(())
}

const HEADER_NAMES: &[&str] = &[
    "X-Trace",
    "X-Pet-Key",
    "Authorization",
    "authorization",
    "AUTHORIZATION",
    " Authorization",
    "Authorization ",
    "\tCookie",
    "Proxy-Authorization",
    "Host",
    "Content-Length",
    "Content-Type",
    "Accept",
    "User-Agent",
    "Transfer-Encoding",
    "X-Agentify-Operation",
    "x-agentify-anything",
    "Mcp-Session-Id",
    "Payment-Signature",
    "X-Api-Key",
    "Api-Key",
    "Traceparent",
    "X-Forwarded-For",
    "X-Real-Ip",
    "bad name",
    "bad\r\nname",
    "",
];

const STYLES: &[Option<&str>] = &[
    None,
    Some("form"),
    Some("simple"),
    Some("deepObject"),
    Some("pipeDelimited"),
    Some("spaceDelimited"),
    Some("label"),
    Some("matrix"),
];

const PATHS: &[&str] = &[
    "/things/{a}",
    "/{a}",
    "/.{a}",
    "/{a}/{b}/..",
    "/x/../{a}",
    "/x/%2e%2e/{a}",
    "/x/.%2E/..",
    "{a}",
    "//{a}",
    "/x?y={a}#{b}",
    "/{a}{b}",
    "/{a",
    "/}{a}{",
    "/x\\..\\{a}",
    "",
];

fn hand_made_tool(u: &mut Unstructured) -> arbitrary::Result<Tool> {
    let count = u.int_in_range(0..=5)?;
    let mut parameters = Vec::with_capacity(count);
    for index in 0..count {
        let location = *u.choose(&[Location::Path, Location::Query, Location::Header])?;
        let name = match location {
            Location::Header => (*u.choose(HEADER_NAMES)?).to_owned(),
            Location::Path => (*u.choose(&["a", "b", "a}"])?).to_owned(),
            Location::Query => {
                if u.arbitrary()? {
                    (*u.choose(&["api_key", "limit", "q", "a"])?).to_owned()
                } else {
                    gen::text(u)?
                }
            }
        };
        parameters.push(ParameterPlan {
            argument: if u.ratio(3, 4)? {
                name.clone()
            } else {
                format!("arg{index}")
            },
            name,
            location,
            style: u.choose(STYLES)?.map(str::to_owned),
            explode: u.arbitrary()?,
            required: u.arbitrary()?,
        });
    }
    let body = if u.arbitrary()? {
        Some(BodyPlan {
            content_type: (*u.choose(&[
                "application/json",
                "text/plain; charset=utf-8",
                "",
                "bad\r\ntype",
            ])?)
            .to_owned(),
            required: u.arbitrary()?,
        })
    } else {
        None
    };
    Ok(Tool {
        name: (*u.choose(&["doThing", "get_items", "bad\nname", "é"])?).to_owned(),
        title: None,
        description: None,
        hints: Hints {
            read_only: false,
            destructive: false,
            idempotent: false,
        },
        input_schema: Map::new(),
        plan: CallPlan {
            method: (*u.choose(&["GET", "POST", "DELETE", "PATCH", "BAD METHOD", ""])?).to_owned(),
            path: (*u.choose(PATHS)?).to_owned(),
            parameters,
            body,
        },
    })
}
