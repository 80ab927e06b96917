//! Why a call is refused before anything is sent, and what the agent is
//! told of it.

use crate::errors::{AgentMessage, PathValueProblem};

/// Why a call was refused before anything was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// TC-REQ-003, TC-REQ-020: a path value that cannot be one segment
    /// (`.`, `..`, empty or missing).
    PathValue {
        argument: String,
        reason: PathValueProblem,
    },
    /// TC-REQ-004: the path would climb out of the base URL's path.
    PathEscapesBase { base_path: String },
    /// TC-REQ-007: a header value that could split the request.
    HeaderValue { argument: String },
    /// TC-REQ-018: the document describes something HTTP cannot carry.
    NotBuildable { reason: String },
}

impl From<Refusal> for AgentMessage {
    fn from(refusal: Refusal) -> AgentMessage {
        match refusal {
            Refusal::PathValue { argument, reason } => {
                AgentMessage::PathValueRefused { argument, reason }
            }
            Refusal::PathEscapesBase { base_path } => AgentMessage::PathEscapesBase { base_path },
            Refusal::HeaderValue { argument } => AgentMessage::HeaderValueRefused { argument },
            Refusal::NotBuildable { reason } => AgentMessage::RequestNotBuilt { reason },
        }
    }
}
