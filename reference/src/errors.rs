//! The catalogue of every message an agent can get, each with a stable code.
//!
//! This is the one place where codes, their meanings, the rules that produce
//! them and their agent-facing texts are written. `docs/errors.md` is generated
//! from it by a test (`page.rs`), which keeps the two equal.
//!
//! Rule: every text starts with its code in brackets, e.g. `[UPSTREAM_STATUS]`,
//! so agents and people can look it up.

use std::fmt::Write as _;
use std::time::Duration;

use reqwest::StatusCode;

use crate::check::Violation;

/// How many bytes of a body a gateway keeps: 1 MB (TC-ANS-003).
pub const BODY_LIMIT: usize = 1_048_576;

/// How many bytes of an error status's body are shown (TC-ANS-008).
pub const ERROR_BODY_LIMIT: usize = 1024;

/// Declares [`ErrorCode`] and [`AgentMessage::code`] from one table: each code is one entry, with its
/// name, how it reaches the agent, what produces it, its meaning for the docs,
/// what the agent and the operator should do, and an example message. Adding a code is adding an entry (and the
/// [`AgentMessage`] variant it describes), so no part can be left out.
macro_rules! catalogue {
    ($(
        $variant:ident {
            code: $code:literal,
            delivery: $delivery:ident,
            produced_by: $produced_by:expr,
            meaning: $meaning:expr,
            agent: $agent:expr,
            operator: $operator:expr,
            example: $example:expr $(,)?
        }
    )*) => {
        /// Every stable code, in the order the docs list them.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($variant,)*
        }

        impl ErrorCode {
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            pub fn code(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)*
                }
            }

            pub fn delivery(self) -> Delivery {
                match self {
                    $(ErrorCode::$variant => Delivery::$delivery,)*
                }
            }

            /// What produces the code: the rules whose scenarios see it, or
            /// the reference's own reason and the test that sees it.
            pub fn produced_by(self) -> ProducedBy {
                match self {
                    $(ErrorCode::$variant => $produced_by,)*
                }
            }

            /// What the code means, for the docs.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $meaning,)*
                }
            }

            /// What the agent that got the message should do next.
            pub fn agent_should(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $agent,)*
                }
            }

            /// What the gateway's operator can do about it.
            pub fn operator_should(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $operator,)*
                }
            }

            /// A representative message, rendered by the same code as real ones.
            fn example(self) -> AgentMessage {
                match self {
                    $(ErrorCode::$variant => $example,)*
                }
            }
        }

        impl AgentMessage {
            /// The message's stable code: each variant has the code of its
            /// own name, so a message without an entry does not compile.
            pub fn code(&self) -> ErrorCode {
                match self {
                    $(AgentMessage::$variant { .. } => ErrorCode::$variant,)*
                }
            }
        }
    };
}

/// How a message reaches the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// A JSON-RPC error (code -32602), not a tool result.
    ProtocolError,
    /// A tool result with `isError: true`.
    ToolError,
    /// A note inside a successful tool result.
    Note,
    /// An HTTP status (400, 401, 403 or 503) with the message as its body,
    /// before any MCP message is read: the agent was not let in.
    HttpRefusal,
}

/// What produces a code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProducedBy {
    /// The rules in `docs/rules.md` whose scenarios produce it, each with
    /// why its scenarios meet the code.
    Rules(&'static [(&'static str, &'static str)]),
    /// No rule of the suite: a limit of the reference gateway's own. Says
    /// what sets it, and which of the reference's tests produces it.
    Reference(&'static str),
}

impl ErrorCode {
    /// The rules whose scenarios produce this code, each with why; none
    /// for the reference's own.
    pub fn reasons(self) -> &'static [(&'static str, &'static str)] {
        match self.produced_by() {
            ProducedBy::Rules(reasons) => reasons,
            ProducedBy::Reference(_) => &[],
        }
    }

    /// The rules whose scenarios produce this code; none for the reference's own.
    pub fn rules(self) -> Vec<&'static str> {
        self.reasons().iter().map(|(rule, _)| *rule).collect()
    }
}

/// The request the examples name.
fn example_target() -> String {
    "GET https://api.example.com/v1/pets?api_key=[credential]".to_owned()
}

catalogue! {
    ToolUnknown {
        code: "TOOL_UNKNOWN",
        delivery: ProtocolError,
        produced_by: ProducedBy::Rules(&[
            ("TC-PROTO-004", "its scenario calls a tool the gateway does not list"),
        ]),
        meaning: "The call named a tool the gateway does not have. Nothing was checked or sent.",
        agent: "List the tools again (`tools/list`) and call one by a listed name; the same name will fail again.",
        operator: "Nothing, unless the tool should exist: check that its operation is in the document, not deprecated, and not left out by `--include-*`/`--exclude-*` (the start-up line counts both).",
        example: AgentMessage::ToolUnknown {
            name: "listPets2".into(),
        },
    }
    AgentUnauthenticated {
        code: "AGENT_UNAUTHENTICATED",
        delivery: HttpRefusal,
        produced_by: ProducedBy::Reference(
            "letting in only the agents the operator names (`--agent-keys`, `--oauth-issuer`, \
             or an API's `agents` in the config file): HTTP 401; `reference/tests/agents.rs` \
             produces it",
        ),
        meaning: "The request to the MCP endpoint showed no credential, and this gateway lets in \
                  only agents that show one (a key, or an access token). HTTP 401, with a \
                  `WWW-Authenticate` header that names how; under MCP authorization it points at \
                  the protected-resource metadata, from which an MCP client finds the \
                  authorization server. Nothing reached the API.",
        agent: "Show the credential the gateway's operator gave you (a key), or let your MCP client get an access token: it follows `WWW-Authenticate` on its own.",
        operator: "Give the agent a key (`hosted-mcp-gateway agent-key`) or a client of your authorization server; the start-up line says who is let in.",
        example: AgentMessage::AgentUnauthenticated,
    }
    AgentRefused {
        code: "AGENT_REFUSED",
        delivery: HttpRefusal,
        produced_by: ProducedBy::Reference(
            "checking the agents' keys and access tokens: HTTP 401 for a key not in the keys \
             file, or a token that is expired, not yet valid, for another resource, from \
             another issuer, badly signed or signed by an algorithm not taken; \
             `reference/tests/agents.rs` produces each",
        ),
        meaning: "The credential shown is not one this gateway takes: a key not in its keys file \
                  (revoked, or mistyped), or an access token that is not valid here, and the \
                  message says why (expired, for another resource, from an issuer not trusted, \
                  a signature that does not verify). HTTP 401. Nothing reached the API.",
        agent: "Get a new token (MCP clients do on a 401) or ask for a valid key; the same credential is refused again.",
        operator: "The log's `agent refused` line gives the reason. A key: check its line in the keys file (and send SIGHUP after changing it). A token: check the authorization server issues it for this endpoint's resource URL.",
        example: AgentMessage::AgentRefused {
            why: "it has expired".into(),
        },
    }
    AgentTokenInQuery {
        code: "AGENT_TOKEN_IN_QUERY",
        delivery: HttpRefusal,
        produced_by: ProducedBy::Reference(
            "MCP authorization forbids access tokens in the URL: HTTP 400; \
             `reference/tests/agents.rs` produces it",
        ),
        meaning: "The request carried an access token in the URL's query (`access_token=`), where \
                  logs, proxies and histories keep it. It is refused whatever the token, with HTTP \
                  400. Nothing reached the API.",
        agent: "Send the token in the `Authorization: Bearer` header, never in the URL, and get a new one: the old one may have been seen.",
        operator: "Nothing: the client must be fixed. Treat the token as leaked.",
        example: AgentMessage::AgentTokenInQuery,
    }
    AgentScopeInsufficient {
        code: "AGENT_SCOPE_INSUFFICIENT",
        delivery: HttpRefusal,
        produced_by: ProducedBy::Reference(
            "scopes by the tools' hints (`--oauth-read-scope`, `--oauth-write-scope`): HTTP 403 \
             `insufficient_scope`; `reference/tests/agents.rs` produces it",
        ),
        meaning: "The access token is valid, but its scopes do not let this call: a token with \
                  only the read scope called a tool that is not read-only, or a token has neither \
                  scope. HTTP 403 with `WWW-Authenticate: Bearer error=\"insufficient_scope\"` \
                  naming the scope needed, from which an MCP client can ask for it (step-up \
                  authorization). Nothing reached the API.",
        agent: "Ask the authorization server for the scope named, or call only the tools tools/list shows you.",
        operator: "Grant the agent's client the scope it needs on the authorization server, if it should have it.",
        example: AgentMessage::AgentScopeInsufficient {
            needed: "mcp:write".into(),
        },
    }
    AgentCheckUnavailable {
        code: "AGENT_CHECK_UNAVAILABLE",
        delivery: HttpRefusal,
        produced_by: ProducedBy::Reference(
            "checking access tokens against the authorization server's keys, failing closed: \
             HTTP 503; `reference/tests/agents.rs` produces it",
        ),
        meaning: "The access token could not be checked: the authorization server's keys could \
                  not be fetched (it is down or unreachable) and none held can check this token. \
                  The request is refused (fail closed) with HTTP 503 and `Retry-After`. Nothing \
                  reached the API.",
        agent: "Try again after the time `Retry-After` gives.",
        operator: "The log says when the authorization server was lost and when it answers again: check that the gateway reaches it (its metadata and `jwks_uri`).",
        example: AgentMessage::AgentCheckUnavailable,
    }
    AgentKeyPending {
        code: "AGENT_KEY_PENDING",
        delivery: HttpRefusal,
        produced_by: ProducedBy::Reference(
            "checking access tokens: a token signed by a key the gateway does not hold yet, \
             when its keys were fetched too recently to fetch them again: HTTP 503 with \
             `Retry-After`; `reference/tests/agents.rs` produces it",
        ),
        meaning: "The access token names a signing key this gateway does not hold, and it fetched \
                  the authorization server's keys too recently to fetch them again now \
                  (`key_refresh_interval`, which spares the server a flood of made-up key ids). \
                  The key may be new (a rotation), so the token is not called invalid: HTTP 503 \
                  with `Retry-After`, after which the keys are fetched again and the token \
                  checked. Nothing reached the API.",
        agent: "Keep the token and send the request again after the time `Retry-After` gives; a 401 then means the token is not good.",
        operator: "Nothing, unless it lasts: a rotation at the authorization server is taken within `key_refresh_interval`. Many of these from one agent are made-up key ids.",
        example: AgentMessage::AgentKeyPending { seconds: 7 },
    }
    AgentRateLimited {
        code: "AGENT_RATE_LIMITED",
        delivery: HttpRefusal,
        produced_by: ProducedBy::Reference(
            "the per-agent limits (`agent_limits`, `--agent-calls-per-second`, \
             `--agent-calls-in-flight`): HTTP 429 with `Retry-After`; `reference/tests/front_door.rs` \
             produces it",
        ),
        meaning: "This agent made more requests than the operator lets one agent make: more a \
                  second than its rate and burst allow, or more at once than it may have in \
                  flight. Other agents of the same API are not held back by it. HTTP 429 with \
                  `Retry-After`; nothing reached the API.",
        agent: "Slow down: send the request again after the time `Retry-After` gives, and make fewer requests at once.",
        operator: "The metric `hosted_mcp_agents_limited_total` counts these by API and reason. Raise the agent's limits if it should make more calls; a runaway agent shows as one account refused over and over.",
        example: AgentMessage::AgentRateLimited {
            limit: "calls a second",
            seconds: 2,
        },
    }
    ArgumentsInvalid {
        code: "ARGUMENTS_INVALID",
        delivery: ToolError,
        produced_by: ProducedBy::Rules(&[
            ("TC-PROTO-005", "arguments that are not an object at all are refused this way"),
            ("TC-CHECK-001", "a value of the wrong `type`"),
            ("TC-CHECK-002", "a required property is missing"),
            ("TC-CHECK-003", "a property that `additionalProperties` forbids"),
            ("TC-CHECK-004", "a wrong value inside `properties`, `items` or a referenced schema"),
            ("TC-CHECK-005", "a value outside `enum`"),
            ("TC-CHECK-006", "a value other than the `const`"),
            ("TC-CHECK-007", "a string shorter or longer than its length bounds, counted in characters"),
            ("TC-CHECK-008", "an array with too few or too many items"),
            ("TC-CHECK-009", "a number outside its bounds"),
            ("TC-CHECK-010", "a string that is not in its `format`"),
            ("TC-CHECK-011", "a wrong value at depth 8 or less"),
            ("TC-CHECK-013", "its scenarios read every wrong place listed by its pointer"),
            ("TC-CHECK-014", "its scenarios check that the value sent is not shown"),
            ("TC-CHECK-015", "its scenarios check that nothing was sent after the refusal"),
            ("TC-LOAD-008", "a schema in another file of a split document refuses the argument"),
            ("TC-REQ-008", "a denied header is no argument of the tool, so an argument named after it is refused"),
            ("TC-SCHEMA-008", "a value where the schema is a `$ref` to `false`, which admits nothing"),
        ]),
        meaning: "The arguments do not match the tool's input schema, or are not an object at \
                  all. Each wrong place is listed as a JSON Pointer from the arguments object \
                  with what is wrong; the values themselves are never shown. Nothing was sent.",
        agent: "Fix the argument at each JSON Pointer named, as the tool's input schema says, and call again; the same arguments are refused again.",
        operator: "Nothing, unless valid calls are refused: then the document's schema is stricter than the API, and the document needs correcting.",
        example: AgentMessage::ArgumentsInvalid {
            violations: vec![
                Violation {
                    pointer: "/body/name".into(),
                    problem: crate::check::Problem::Missing,
                },
                Violation {
                    pointer: "/limit".into(),
                    problem: crate::check::Problem::AboveMaximum {
                        bound: 100.into(),
                        exclusive: false,
                    },
                },
            ],
        },
    }
    PathValueRefused {
        code: "PATH_VALUE_REFUSED",
        delivery: ToolError,
        produced_by: ProducedBy::Rules(&[
            ("TC-PROTO-005", "a refused path value is a tool error, like any failed call"),
            ("TC-REQ-003", "a path argument of `.` or `..`"),
            ("TC-REQ-020", "an empty path value"),
        ]),
        meaning: "A path argument cannot be used as a path segment: it is `.` or `..`, empty, \
                  or has no value. Nothing was sent.",
        agent: "Give the path argument a real value (not empty, `.` or `..`) and call again.",
        operator: "Nothing: this keeps agents from reaching other paths of the API.",
        example: AgentMessage::PathValueRefused {
            argument: "petId".into(),
            reason: PathValueProblem::DotSegment,
        },
    }
    PathEscapesBase {
        code: "PATH_ESCAPES_BASE",
        delivery: ToolError,
        produced_by: ProducedBy::Rules(&[
            ("TC-REQ-004", "a path that would leave the base URL's path"),
        ]),
        meaning: "The request's path would not stay under the base URL's path, for instance \
                  because the document's path climbs out with `..`. Nothing was sent.",
        agent: "Nothing in the arguments can fix it: the tool cannot be called as the document describes it. Report it.",
        operator: "Correct the operation's path in the document, or `--base-url`, so every request stays under the base URL's path.",
        example: AgentMessage::PathEscapesBase {
            base_path: "/v1".into(),
        },
    }
    HeaderValueRefused {
        code: "HEADER_VALUE_REFUSED",
        delivery: ToolError,
        produced_by: ProducedBy::Rules(&[
            ("TC-REQ-007", "a header value holding CR, LF or NUL"),
        ]),
        meaning: "A header argument contains a line break (CR or LF), a NUL or another control \
                  character, which could split or corrupt the request. Nothing was sent.",
        agent: "Remove the line breaks and control characters from the header argument and call again.",
        operator: "Nothing: this keeps a request from being split or corrupted.",
        example: AgentMessage::HeaderValueRefused {
            argument: "X-Trace".into(),
        },
    }
    RequestNotBuilt {
        code: "REQUEST_NOT_BUILT",
        delivery: ToolError,
        produced_by: ProducedBy::Rules(&[
            ("TC-REQ-018", "a request HTTP cannot carry, such as a header name with a space"),
        ]),
        meaning: "The document describes a request that cannot be expressed in HTTP, such as a \
                  header name with spaces or an unknown method. Nothing was sent.",
        agent: "Nothing in the arguments can fix it: the tool cannot be called. Report it.",
        operator: "Correct the operation in the document: its method, or the names of its header parameters.",
        example: AgentMessage::RequestNotBuilt {
            reason: "the document's header name `X Trace` is not a valid HTTP header name".into(),
        },
    }
    GatewayBusy {
        code: "GATEWAY_BUSY",
        delivery: ToolError,
        produced_by: ProducedBy::Reference(
            "the limit on calls in flight (`--max-calls`, 128 by default), which bounds the \
             gateway's memory whatever the load; `reference/tests/load.rs` produces it",
        ),
        meaning: "The gateway already had as many calls in flight as it allows, and this call \
                  waited the whole deadline (15 seconds) for a turn. Nothing was sent; the call \
                  can be tried again.",
        agent: "Wait a moment and call again: this call was not sent.",
        operator: "Raise `--max-calls` if the API and the machine allow more calls at once, or run more gateways behind a balancer.",
        example: AgentMessage::GatewayBusy {
            limit: 128,
            waited: Duration::from_secs(15),
        },
    }
    GatewayFault {
        code: "GATEWAY_FAULT",
        delivery: ToolError,
        produced_by: ProducedBy::Reference(
            "a bug: the gateway's own code failed (panicked) during the call. The call is \
             answered instead of left without an answer, and the gateway keeps serving; \
             the test `a_panic_inside_a_call_is_answered` in `reference/src/gateway.rs` \
             produces it",
        ),
        meaning: "The gateway failed inside this call, through a fault of its own. The request \
                  may or may not have reached the API. Please report it, with the gateway's \
                  log.",
        agent: "Call again once; if it happens again, report it.",
        operator: "A bug in the gateway: report it with the gateway's log around the call (its stderr), which holds the panic.",
        example: AgentMessage::GatewayFault,
    }
    GatewayFull {
        code: "GATEWAY_FULL",
        delivery: HttpRefusal,
        produced_by: ProducedBy::Reference(
            "the listener's cap on open connections (`--max-connections`, below the process's \
             descriptor limit) and on one client's (`--max-connections-per-client`): HTTP 503 \
             with `Retry-After`, and the connection closed; `reference/tests/front_door.rs` \
             produces it",
        ),
        meaning: "The gateway holds as many connections as it may, every one busy with a request, \
                  or the client's address holds as many as one client may. The new connection \
                  is answered with HTTP 503 and closed; connections that wait idle are closed \
                  first to make room, so a client that only opens connections cannot lock others \
                  out.",
        agent: "Try again after the time `Retry-After` gives, on a connection you keep open (keep-alive).",
        operator: "The metric `hosted_mcp_connections_closed_total{reason=\"full\"}` counts these. Raise `--max-connections` (and the descriptor limit with it), or run more gateways behind a balancer.",
        example: AgentMessage::GatewayFull {
            why: "it holds as many connections as it may",
        },
    }
    RequestTooSlow {
        code: "REQUEST_TOO_SLOW",
        delivery: HttpRefusal,
        produced_by: ProducedBy::Reference(
            "the deadline for a request's body (`--request-body-timeout`, 30 seconds): HTTP 408 \
             and the connection closed; `reference/tests/front_door.rs` produces it",
        ),
        meaning: "The request's body did not arrive whole within the deadline from its head: the \
                  client sent it too slowly, or stopped. HTTP 408, and the connection is closed. \
                  Nothing reached the API.",
        agent: "Send the request again, its body at once.",
        operator: "Nothing, unless real agents on slow links get it: then raise `--request-body-timeout`.",
        example: AgentMessage::RequestTooSlow { seconds: 30 },
    }
    UpstreamTokenFailed {
        code: "UPSTREAM_TOKEN_FAILED",
        delivery: ToolError,
        produced_by: ProducedBy::Reference(
            "the API's own OAuth (client credentials exchanged for access tokens): its token \
             endpoint refused, could not be reached or did not answer in time; \
             `reference/tests/exchange.rs` produces it",
        ),
        meaning: "The API takes access tokens its OAuth server issues to the gateway's client, \
                  and none could be had: the token endpoint refused the client (a wrong secret, \
                  `invalid_client`), could not be reached, or did not answer within 5 seconds. \
                  The message names the token endpoint and what it answered. Nothing was sent to \
                  the API.",
        agent: "Do not retry at once: the gateway cannot call this API until its token server answers. Report it.",
        operator: "Check the client id and secret (`client_id` and the credential's source) with the API's OAuth server, and that the gateway reaches the token URL the message names.",
        example: AgentMessage::UpstreamTokenFailed {
            token_url: "https://auth.example.com/oauth/token".into(),
            why: "the token endpoint answered 401 (invalid_client)".into(),
        },
    }
    UpstreamRedirect {
        code: "UPSTREAM_REDIRECT",
        delivery: ToolError,
        produced_by: ProducedBy::Rules(&[
            ("TC-SEND-003", "the upstream redirects, and the redirect is not followed"),
            ("TC-ANS-007", "the redirect comes back as this error, naming its `Location`"),
            ("TC-MASK-003", "a `Location` that holds the credential, shown masked"),
        ]),
        meaning: "The API answered with a redirect (301, 302, 303, 307 or 308). The gateway \
                  does not follow redirects; the message names the `Location`.",
        agent: "Do not retry: the API answered elsewhere, and the message names where.",
        operator: "Point `--base-url` (or the document's path) at the address the `Location` names; the gateway never follows a redirect, so the credential cannot reach another host.",
        example: AgentMessage::UpstreamRedirect {
            status: StatusCode::FOUND,
            location: Some("https://login.example.com/?next=%2Fpets".into()),
        },
    }
    UpstreamStatus {
        code: "UPSTREAM_STATUS",
        delivery: ToolError,
        produced_by: ProducedBy::Rules(&[
            ("TC-PROTO-005", "an upstream failure is a tool error, like any failed call"),
            ("TC-SEND-001", "a 5xx answer, sent once and not retried"),
            ("TC-ANS-008", "any status other than success or redirect, with the start of its body"),
            ("TC-MASK-002", "an error body that echoes the credential, shown masked"),
        ]),
        meaning: "The API answered with a status that is neither success nor redirect. The \
                  message gives the status and the start of the body (at most 1,024 bytes). \
                  The request was not retried.",
        agent: "Read the API's status and body: a 4xx usually means the API refuses what the arguments ask (change them); a 5xx or 429 may pass later.",
        operator: "A 401 or 403 means the credential, or where it goes, is wrong (the start-up line's `credential=` says where); other statuses are the API's own.",
        example: AgentMessage::UpstreamStatus {
            status: StatusCode::SERVICE_UNAVAILABLE,
            body_start: "{\"error\":\"maintenance\"}".into(),
        },
    }
    UpstreamTimeout {
        code: "UPSTREAM_TIMEOUT",
        delivery: ToolError,
        produced_by: ProducedBy::Rules(&[
            ("TC-SEND-004", "an upstream that does not answer within 15 seconds"),
            ("TC-SEND-005", "a body still trickling in at 15 seconds"),
            ("TC-MASK-007", "the gateway's own text names the URL, with the credential masked"),
        ]),
        meaning: "The whole exchange (connecting, sending and reading the answer) did not \
                  finish within the deadline of 15 seconds, so it was cut off. Not retried.",
        agent: "The API may or may not have acted: check before calling a tool that changes something again.",
        operator: "The API is slow, or the way to it drops packets: check the path to `--base-url` from the gateway's host.",
        example: AgentMessage::UpstreamTimeout {
            target: example_target(),
            deadline: Duration::from_secs(15),
        },
    }
    UpstreamUnreachable {
        code: "UPSTREAM_UNREACHABLE",
        delivery: ToolError,
        produced_by: ProducedBy::Rules(&[
            ("TC-SEND-006", "nothing accepts the connection"),
            ("TC-MASK-007", "the gateway's own text names the URL, with the credential masked"),
        ]),
        meaning: "The API's host refused the connection. Not retried.",
        agent: "Do not retry at once: the API is down or its address is wrong. Report it.",
        operator: "Check `--base-url` (host and port), and that the API is up and reachable from the gateway's host.",
        example: AgentMessage::UpstreamUnreachable {
            target: example_target(),
        },
    }
    UpstreamReset {
        code: "UPSTREAM_RESET",
        delivery: ToolError,
        produced_by: ProducedBy::Rules(&[
            ("TC-SEND-002", "the upstream resets the connection, and the request is not retried"),
            ("TC-SEND-007", "the error names the request's method and URL"),
            ("TC-MASK-007", "the gateway's own text names the URL, with the credential masked"),
        ]),
        meaning: "The connection was reset or closed before the answer was complete. Not \
                  retried.",
        agent: "The API may or may not have acted: check before calling a tool that changes something again.",
        operator: "Check the API and what stands between it and the gateway (a proxy's idle timeout, a crash, TLS spoken to a plain port).",
        example: AgentMessage::UpstreamReset {
            target: example_target(),
        },
    }
    UpstreamUntrusted {
        code: "UPSTREAM_UNTRUSTED",
        delivery: ToolError,
        produced_by: ProducedBy::Reference(
            "verifying the API's TLS certificate, against the system's authorities and those of \
             `--ca-file`, which no switch turns off; `reference/tests/tls.rs` produces it",
        ),
        meaning: "The API's TLS certificate was refused: not signed by a trusted authority, \
                  expired, or for another host name. The connection ended before anything was \
                  sent, the credential least of all. For the operator: trust a private CA with \
                  `--ca-file`, or fix the API's certificate.",
        agent: "Do not retry: the gateway will not talk to this host until its certificate is trusted. Report it.",
        operator: "Give the authority that signed the API's certificate with `--ca-file`, or fix the certificate (expired, another name, self-signed).",
        example: AgentMessage::UpstreamUntrusted {
            target: example_target(),
            why: "it has expired".into(),
        },
    }
    UpstreamFailed {
        code: "UPSTREAM_FAILED",
        delivery: ToolError,
        produced_by: ProducedBy::Rules(&[
            ("TC-SEND-007", "the upstream answers bytes that are not HTTP; the error names the request"),
            ("TC-MASK-007", "the gateway's own text names the URL, with the credential masked"),
        ]),
        meaning: "The exchange failed for another reason (name resolution, TLS, a malformed \
                  answer); the message names the cause. Not retried.",
        agent: "Do not retry at once; report the cause the message names.",
        operator: "Act on the cause named: name resolution (the host of `--base-url`), TLS, or an answer that is not HTTP (a wrong port).",
        example: AgentMessage::UpstreamFailed {
            target: example_target(),
            cause: "dns error: failed to lookup address information".into(),
        },
    }
    BodyTruncated {
        code: "BODY_TRUNCATED",
        delivery: Note,
        produced_by: ProducedBy::Rules(&[
            ("TC-ANS-003", "a body over 1,048,576 bytes is cut there, with this note"),
            ("TC-ANS-004", "the cut falls on a character boundary"),
            ("TC-ANS-009", "an endless body is read up to the limit, and the call still answers"),
            ("TC-MASK-005", "no part of the credential is left at the cut"),
        ]),
        meaning: "A note after a successful answer's text: the body was longer than 1 MB \
                  (1,048,576 bytes) and is shown only up to there, cut at a character boundary.",
        agent: "Ask for less (a smaller page, a filter) where the tool allows it; the text shown is the start of the body.",
        operator: "Nothing: the limit keeps answers within what an agent can read.",
        example: AgentMessage::BodyTruncated,
    }
    BodyNotText {
        code: "BODY_NOT_TEXT",
        delivery: Note,
        produced_by: ProducedBy::Rules(&[
            ("TC-ANS-005", "a body that is not text is described by its size and type"),
            ("TC-ANS-006", "a body with no content type that is not UTF-8 is not text"),
        ]),
        meaning: "A successful answer whose body is not text (an image, an archive, bytes that \
                  are not UTF-8) is described by its size and content type instead of shown.",
        agent: "Use the size and content type given; the bytes themselves cannot be shown.",
        operator: "Nothing, unless the API should answer text there: check what it sends for the gateway's `Accept`.",
        example: AgentMessage::BodyNotText {
            status: StatusCode::OK,
            size: BodySize::Exactly(2048),
            content_type: Some("image/png".into()),
        },
    }
    BodyEmpty {
        code: "BODY_EMPTY",
        delivery: Note,
        produced_by: ProducedBy::Rules(&[
            ("TC-ANS-010", "a successful answer with an empty body"),
        ]),
        meaning: "A successful answer without a body, such as `204 No Content`, is reported \
                  as such so the agent is not handed an empty text.",
        agent: "Nothing to read: the call succeeded.",
        operator: "Nothing.",
        example: AgentMessage::BodyEmpty {
            status: StatusCode::NO_CONTENT,
        },
    }
}

/// Why a path argument cannot be a path segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathValueProblem {
    /// TC-REQ-003: `.` or `..`, which would change the path instead of
    /// naming a resource.
    DotSegment,
    /// TC-REQ-020: an empty segment would name another resource (`/pets/`
    /// instead of `/pets/{id}`).
    Empty,
    /// The argument is absent or null.
    Absent,
}

/// How much of a body there was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodySize {
    Exactly(usize),
    /// Reading stopped at the limit; the body went on.
    MoreThan(usize),
}

/// One message for the agent, with the facts it names. Texts that came from
/// upstream or contain the URL are already masked when they get here.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentMessage {
    ToolUnknown {
        name: String,
    },
    AgentUnauthenticated,
    AgentRefused {
        why: String,
    },
    AgentTokenInQuery,
    AgentScopeInsufficient {
        needed: String,
    },
    AgentCheckUnavailable,
    AgentKeyPending {
        seconds: u64,
    },
    AgentRateLimited {
        /// What is over its limit: `calls a second` or `calls in flight`.
        limit: &'static str,
        seconds: u64,
    },
    ArgumentsInvalid {
        violations: Vec<Violation>,
    },
    PathValueRefused {
        argument: String,
        reason: PathValueProblem,
    },
    PathEscapesBase {
        base_path: String,
    },
    HeaderValueRefused {
        argument: String,
    },
    RequestNotBuilt {
        reason: String,
    },
    GatewayBusy {
        limit: usize,
        waited: Duration,
    },
    GatewayFault,
    GatewayFull {
        why: &'static str,
    },
    RequestTooSlow {
        seconds: u64,
    },
    UpstreamTokenFailed {
        token_url: String,
        why: String,
    },
    UpstreamRedirect {
        status: StatusCode,
        location: Option<String>,
    },
    UpstreamStatus {
        status: StatusCode,
        body_start: String,
    },
    UpstreamTimeout {
        target: String,
        deadline: Duration,
    },
    UpstreamUnreachable {
        target: String,
    },
    UpstreamReset {
        target: String,
    },
    UpstreamUntrusted {
        target: String,
        why: String,
    },
    UpstreamFailed {
        target: String,
        cause: String,
    },
    BodyTruncated,
    BodyNotText {
        status: StatusCode,
        size: BodySize,
        content_type: Option<String>,
    },
    BodyEmpty {
        status: StatusCode,
    },
}

impl AgentMessage {
    /// Whether the tool result carrying this message is an error.
    pub fn is_error(&self) -> bool {
        self.code().delivery() != Delivery::Note
    }

    /// The agent-facing text, starting with `[CODE] `.
    pub fn render(&self) -> String {
        let mut text = format!("[{}] ", self.code().code());
        // Writing to a String cannot fail.
        let _ = self.write_body(&mut text);
        text
    }

    fn write_body(&self, out: &mut String) -> std::fmt::Result {
        const NOTHING_SENT: &str = "nothing was sent";
        const NOT_RETRIED: &str = "it was not retried";
        match self {
            AgentMessage::ToolUnknown { name } => write!(
                out,
                "there is no tool named `{name}`; tools/list shows the tools there are"
            ),
            AgentMessage::AgentUnauthenticated => write!(
                out,
                "this gateway lets in only agents that show a credential, and this request \
                 showed none; WWW-Authenticate says how to get one"
            ),
            AgentMessage::AgentRefused { why } => write!(
                out,
                "the credential shown is not one this gateway takes: {why}"
            ),
            AgentMessage::AgentTokenInQuery => write!(
                out,
                "an access token may not travel in the URL's query, where logs keep it; send it \
                 in the Authorization header"
            ),
            AgentMessage::AgentScopeInsufficient { needed } => write!(
                out,
                "the access token's scopes do not let this call; it needs the scope `{needed}`"
            ),
            AgentMessage::AgentCheckUnavailable => write!(
                out,
                "the access token cannot be checked now: the authorization server's keys cannot \
                 be fetched; try again later"
            ),
            AgentMessage::AgentRateLimited { limit, seconds } => write!(
                out,
                "this agent is over its limit of {limit}, so {NOTHING_SENT}; other agents are \
                 not held back: send it again in {seconds} seconds"
            ),
            AgentMessage::AgentKeyPending { seconds } => write!(
                out,
                "the access token is signed by a key this gateway does not hold yet; its keys are \
                 fetched again shortly: send the request again in {seconds} seconds"
            ),
            AgentMessage::ArgumentsInvalid { violations } => {
                write!(
                    out,
                    "the arguments do not match the tool's input schema, so {NOTHING_SENT}:"
                )?;
                for violation in violations {
                    write!(out, "\n- {violation}")?;
                }
                Ok(())
            }
            AgentMessage::PathValueRefused { argument, reason } => {
                let why = match reason {
                    PathValueProblem::DotSegment => "is `.` or `..`, which would change the path",
                    PathValueProblem::Empty => "is empty, which would name another resource",
                    PathValueProblem::Absent => "has no value",
                };
                write!(out, "path argument `{argument}` {why}, so {NOTHING_SENT}")
            }
            AgentMessage::PathEscapesBase { base_path } => write!(
                out,
                "the request path would leave the base URL's path `{base_path}`, so {NOTHING_SENT}"
            ),
            AgentMessage::HeaderValueRefused { argument } => write!(
                out,
                "header argument `{argument}` contains CR, LF, NUL or another control \
                 character, so {NOTHING_SENT}"
            ),
            AgentMessage::RequestNotBuilt { reason } => write!(
                out,
                "the request could not be built: {reason}, so {NOTHING_SENT}"
            ),
            AgentMessage::GatewayBusy { limit, waited } => write!(
                out,
                "the gateway has {limit} calls in flight, its limit, and this call found no \
                 turn within {}, so {NOTHING_SENT}; try again later",
                duration_text(*waited)
            ),
            AgentMessage::GatewayFull { why } => write!(
                out,
                "this gateway cannot take another connection now: {why}; try again shortly"
            ),
            AgentMessage::RequestTooSlow { seconds } => write!(
                out,
                "the request's body did not arrive within {seconds} seconds of its head, so \
                 {NOTHING_SENT}; send it again, its body at once"
            ),
            AgentMessage::GatewayFault => write!(
                out,
                "the gateway failed inside this call (a fault of its own, logged); the request \
                 may or may not have reached the API"
            ),
            AgentMessage::UpstreamTokenFailed { token_url, why } => write!(
                out,
                "no access token for the API could be had from {token_url}: {why}; \
                 {NOTHING_SENT}"
            ),
            AgentMessage::UpstreamRedirect {
                status,
                location: Some(location),
            } => write!(
                out,
                "upstream answered {} with a redirect to {location}; redirects are not followed",
                status_text(*status)
            ),
            AgentMessage::UpstreamRedirect {
                status,
                location: None,
            } => write!(
                out,
                "upstream answered {} without a Location; redirects are not followed",
                status_text(*status)
            ),
            AgentMessage::UpstreamStatus { status, body_start } if body_start.is_empty() => {
                write!(
                    out,
                    "upstream answered {} with an empty body; {NOT_RETRIED}",
                    status_text(*status)
                )
            }
            AgentMessage::UpstreamStatus { status, body_start } => {
                write!(
                    out,
                    "upstream answered {}: {body_start}",
                    status_text(*status)
                )
            }
            AgentMessage::UpstreamTimeout { target, deadline } => write!(
                out,
                "{target} did not complete within {} and was cut off; {NOT_RETRIED}",
                duration_text(*deadline)
            ),
            AgentMessage::UpstreamUnreachable { target } => write!(
                out,
                "{target} failed: the connection was refused; {NOT_RETRIED}"
            ),
            AgentMessage::UpstreamReset { target } => write!(
                out,
                "{target} failed: the connection was reset or closed before the answer was \
                 complete; {NOT_RETRIED}"
            ),
            AgentMessage::UpstreamUntrusted { target, why } => write!(
                out,
                "{target} was not sent: the API's TLS certificate was refused, as {why}; \
                 nothing was sent"
            ),
            AgentMessage::UpstreamFailed { target, cause } => {
                write!(out, "{target} failed: {cause}; {NOT_RETRIED}")
            }
            AgentMessage::BodyTruncated => write!(
                out,
                "the answer is longer than {BODY_LIMIT} bytes (1 MB) and was cut there"
            ),
            AgentMessage::BodyNotText {
                status,
                size,
                content_type,
            } => {
                let size = match size {
                    BodySize::Exactly(1) => "1 byte".to_owned(),
                    BodySize::Exactly(bytes) => format!("{bytes} bytes"),
                    BodySize::MoreThan(bytes) => format!("more than {bytes} bytes"),
                };
                let content_type = content_type.as_deref().map_or_else(
                    || "no content type".to_owned(),
                    |kind| format!("type {kind}"),
                );
                write!(
                    out,
                    "upstream answered {} with {size} of {content_type}, which is not text and \
                     is not shown",
                    status_text(*status)
                )
            }
            AgentMessage::BodyEmpty { status } => write!(
                out,
                "upstream answered {} with an empty body",
                status_text(*status)
            ),
        }
    }
}

/// `503 Service Unavailable`, or just `599` when the status has no reason phrase.
fn status_text(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

/// `15 seconds`, or milliseconds for deadlines that are not whole seconds.
fn duration_text(deadline: Duration) -> String {
    if deadline.subsec_millis() == 0 {
        match deadline.as_secs() {
            1 => "1 second".to_owned(),
            seconds => format!("{seconds} seconds"),
        }
    } else {
        format!("{} ms", deadline.as_millis())
    }
}

/// The entry of `code` (as an agent reads it, `[CODE]`, or bare, in any
/// case) for the terminal: what it means, an example message, what to do,
/// and the rules that produce it. An unknown code is an error that lists
/// the known ones.
pub fn explain(code: &str) -> Result<String, String> {
    let wanted = code.trim().trim_start_matches('[').trim_end_matches(']');
    let Some(code) = ErrorCode::ALL
        .iter()
        .find(|c| c.code().eq_ignore_ascii_case(wanted))
    else {
        let known: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.code()).collect();
        return Err(format!(
            "no error code {wanted:?}; the codes are: {}",
            known.join(", ")
        ));
    };
    let mut text = String::new();
    let _ = write_explanation(&mut text, *code);
    Ok(text)
}

fn write_explanation(out: &mut String, code: ErrorCode) -> std::fmt::Result {
    let delivery = match code.delivery() {
        Delivery::ProtocolError => "a JSON-RPC error, -32602",
        Delivery::ToolError => "a tool result with isError: true",
        Delivery::Note => "a note after a successful result",
        Delivery::HttpRefusal => "an HTTP status before any MCP message is read",
    };
    writeln!(out, "{} (comes back as {delivery})", code.code())?;
    writeln!(out)?;
    writeln!(out, "{}", code.meaning())?;
    writeln!(out)?;
    writeln!(out, "An agent reads, for example:")?;
    writeln!(out)?;
    for line in code.example().render().lines() {
        writeln!(out, "    {line}")?;
    }
    writeln!(out)?;
    writeln!(out, "What to do:")?;
    writeln!(out, "  the agent: {}", code.agent_should())?;
    writeln!(out, "  the operator: {}", code.operator_should())?;
    writeln!(out)?;
    match code.produced_by() {
        ProducedBy::Reference(why) => writeln!(out, "Produced by no rule of the suite; {why}.")?,
        ProducedBy::Rules(reasons) => {
            writeln!(out, "Produced by the scenarios of:")?;
            for (rule, why) in reasons {
                writeln!(out, "  {rule}: {why}")?;
            }
            writeln!(
                out,
                "(hosted-mcp-conformance show RULE prints a rule and its scenarios)"
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod page;

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_code_explains_itself_and_an_unknown_one_lists_them() {
        for code in ErrorCode::ALL {
            let text =
                explain(&format!("[{}]", code.code().to_ascii_lowercase())).expect("a known code");
            assert!(text.starts_with(code.code()), "{text}");
            assert!(text.contains(code.agent_should()), "{text}");
            assert!(text.contains(code.operator_should()), "{text}");
            assert!(!code.agent_should().is_empty() && !code.operator_should().is_empty());
        }
        let unknown = explain("UPSTREAM_STATU").expect_err("not a code");
        assert!(unknown.contains("UPSTREAM_STATUS, "), "{unknown}");
    }

    #[test]
    fn codes_are_unique_and_upper_snake_case() {
        let codes: HashSet<_> = ErrorCode::ALL.iter().map(|code| code.code()).collect();
        assert_eq!(codes.len(), ErrorCode::ALL.len());
        for code in codes {
            assert!(
                code.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
                "{code}"
            );
        }
    }

    #[test]
    fn every_text_starts_with_its_code() {
        for code in ErrorCode::ALL {
            let message = code.example();
            assert_eq!(message.code(), *code);
            assert!(
                message.render().starts_with(&format!("[{}] ", code.code())),
                "{}",
                message.render()
            );
        }
    }

    #[test]
    fn status_and_deadline_texts() {
        let message = AgentMessage::UpstreamStatus {
            status: StatusCode::SERVICE_UNAVAILABLE,
            body_start: "down".into(),
        };
        assert_eq!(
            message.render(),
            "[UPSTREAM_STATUS] upstream answered 503 Service Unavailable: down"
        );
        assert_eq!(duration_text(Duration::from_secs(15)), "15 seconds");
        assert_eq!(duration_text(Duration::from_millis(250)), "250 ms");
    }

    #[test]
    fn notes_are_not_errors() {
        assert!(!AgentMessage::BodyTruncated.is_error());
        assert!(AgentMessage::UpstreamReset {
            target: "GET /".into()
        }
        .is_error());
    }
}
