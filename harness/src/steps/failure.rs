//! What a step gives back: passed, or failed with a message that shows the
//! whole chain of causes. Only steps use this; the world reports in
//! [`anyhow::Error`]s, which convert.

use std::fmt;

/// What a step returns. Its message shows the whole chain of causes, because
/// cucumber reports a failed step by its `Display`.
pub type StepResult = Result<(), StepFailure>;

/// Fails a step (or any function returning a `Result` of [`anyhow::Error`])
/// with a formatted message, like `anyhow::bail!`.
macro_rules! fail {
    ($($arg:tt)*) => {
        return Err(::anyhow::anyhow!($($arg)*).into())
    };
}
pub(crate) use fail;

/// A failed step: an [`anyhow::Error`] displayed with its causes.
#[derive(Debug)]
pub struct StepFailure(anyhow::Error);

impl From<anyhow::Error> for StepFailure {
    fn from(error: anyhow::Error) -> Self {
        Self(error)
    }
}

impl fmt::Display for StepFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#}", self.0)
    }
}
