//! Turns between the tests that run whole suites. They share one test
//! binary, so libtest may start a test of one module while a test of
//! another runs. Tests of one module may run together, as they were
//! written to (each module keeps its own finer limits); tests of different
//! modules that take a turn never do, so no test judges a gateway's timing
//! while another module's suite holds the cores. Tests that take no turn
//! (quick, single-scenario runs) go between them.

use std::sync::{Condvar, Mutex, PoisonError};

/// The module whose tests hold the turn, and how many of them.
static HOLDER: Mutex<(Option<&'static str>, usize)> = Mutex::new((None, 0));
static FREED: Condvar = Condvar::new();

/// The turn of `module` (pass `module_path!()`), held until dropped.
pub struct Turn;

impl Turn {
    pub fn take(module: &'static str) -> Turn {
        let mut holder = HOLDER.lock().unwrap_or_else(PoisonError::into_inner);
        while holder.0.is_some_and(|held| held != module) {
            holder = FREED.wait(holder).unwrap_or_else(PoisonError::into_inner);
        }
        *holder = (Some(module), holder.1 + 1);
        Turn
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut holder = HOLDER.lock().unwrap_or_else(PoisonError::into_inner);
        holder.1 -= 1;
        if holder.1 == 0 {
            holder.0 = None;
            FREED.notify_all();
        }
    }
}
