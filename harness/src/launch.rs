//! The launch contract: one way to start any gateway, whatever its language.
//!
//! A gateway is a command line with placeholders (`{openapi}`, `{base_url}`,
//! `{port}`; under `--client-auth oauth` also `{issuer}`, `{jwks_uri}` and
//! `{resource}`) and the stored credential in the environment: the
//! [`Template`] (`template`), and the child process launched from it
//! ([`Gateway`], `child`). `harness/LAUNCH.md` states the contract for
//! people implementing other gateways.

mod child;
mod template;

pub use child::{
    default_launches, Gateway, Invocation, Launch, Launcher, StartFailure, CREDENTIAL_ENV,
    CREDENTIAL_IN_ENV, DEFAULT_START_TIMEOUT,
};
pub use template::{shell_quoted, Target, Template, Transport, DEFAULT_ENDPOINT, PLACEHOLDERS};
