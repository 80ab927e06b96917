//! The scenario's gateway through its life, as one state machine: a gateway
//! kept from an earlier scenario taken when the document is set (see
//! [`crate::pool`]), else a launch at the first step that needs it, one turn
//! at a time and made once more after a silence; its MCP session; and what
//! it left when it ended or was handed back to the pool.
//!
//! The state and its accessors are here; the transitions are filed by
//! concern: `launching` (the launches and the run's launch record),
//! `session` (the MCP session and hand-driven HTTP), `kept` (the pool's
//! side: a kept gateway taken, and handed back).

mod folders;
mod kept;
mod launching;
mod life;
mod session;
mod setup;
mod state;

pub(super) use self::state::Lifecycle;
