//! How late this machine runs the harness's own timers, so that a verdict
//! that depends on a clock is never made on a machine too busy to keep
//! time.
//!
//! A thread of its own sleeps a tenth of a second at a time and notes how
//! much later than asked it woke. On a quiet machine that is well under a
//! millisecond; on a CI runner shared with builds it can be seconds, and
//! the gateway under test is held up as much. A scenario that times the
//! gateway asks for the worst lateness over its measurement, and for how
//! long the gateway's own threads waited for a CPU meanwhile ([`CpuWait`]):
//! when the two explain a miss, the scenario is not judged, and says so,
//! rather than failed. Waiting is counted for the gateway timed, not for
//! the machine: on a runner where something else always waits, a gateway
//! that was never held up is still judged. The thread starts on first use
//! and lives as long as the process.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// How long the probe sleeps between looks at the clock.
pub const TICK: Duration = Duration::from_millis(100);

/// How long lateness is remembered: longer than any timed scenario.
const MEMORY: Duration = Duration::from_secs(600);

/// Lateness below this is noise, and not kept.
const NOISE: Duration = Duration::from_millis(5);

/// Each late wake-up: when it woke, and how late.
static LATE: OnceLock<Mutex<VecDeque<(Instant, Duration)>>> = OnceLock::new();

/// Starts the probe, once per process.
pub fn start() {
    LATE.get_or_init(|| {
        std::thread::Builder::new()
            .name("lag-probe".into())
            .spawn(probe)
            .expect("the lag probe's thread starts");
        Mutex::new(VecDeque::new())
    });
}

fn probe() {
    loop {
        let planned = Instant::now() + TICK;
        std::thread::sleep(TICK);
        let woke = Instant::now();
        let late = woke.saturating_duration_since(planned);
        if late < NOISE {
            continue;
        }
        let Some(log) = LATE.get() else { continue };
        let mut log = log.lock().unwrap_or_else(PoisonError::into_inner);
        while log
            .front()
            .is_some_and(|(at, _)| woke.duration_since(*at) > MEMORY)
        {
            log.pop_front();
        }
        log.push_back((woke, late));
    }
}

/// The latest the probe woke, beyond its tick, between `from` and `to`:
/// how much this machine held up a timer meanwhile. Zero before the probe
/// started.
pub fn worst_between(from: Instant, to: Instant) -> Duration {
    let Some(log) = LATE.get() else {
        return Duration::ZERO;
    };
    let log = log.lock().unwrap_or_else(PoisonError::into_inner);
    worst_in(log.iter().copied(), from, to)
}

/// The worst of `late` wake-ups whose span (the tick they slept and the
/// lateness after it) meets `from..=to`.
fn worst_in(
    late: impl Iterator<Item = (Instant, Duration)>,
    from: Instant,
    to: Instant,
) -> Duration {
    late.filter(|(woke, late)| {
        *woke >= from
            && woke
                .checked_sub(*late + TICK)
                .is_none_or(|slept| slept <= to)
    })
    .map(|(_, late)| late)
    .max()
    .unwrap_or_default()
}

/// Why a timing missed by `missed_by` proves nothing: the harness's own
/// timer was held up, and the gateway's threads waited for a CPU
/// (`gateway_waited`, see [`CpuWait`]), as long between `from` and `to`
/// taken together (a late cut-off is a chain of both: the gateway's timer,
/// then the harness noticing); `None` when they were not, and the miss is
/// the gateway's.
pub fn explains(
    missed_by: Duration,
    from: Instant,
    to: Instant,
    gateway_waited: Duration,
) -> Option<String> {
    let lag = worst_between(from, to);
    if lag + gateway_waited < missed_by {
        return None;
    }
    Some(format!(
        "this machine was too busy to time it (meanwhile a {:.1} s timer of the harness fired \
         {:.1} s late, and the gateway's threads waited {:.1} s in all for a CPU, against the \
         {:.1} s the timing missed by); run it again on a quieter machine, alone with \
         --scenario",
        TICK.as_secs_f64(),
        lag.as_secs_f64(),
        gateway_waited.as_secs_f64(),
        missed_by.as_secs_f64()
    ))
}

/// How long the threads of the gateway under test waited for a CPU while
/// they could run, over one timed span: taken before it, read after it.
/// Summed over its threads, it bounds how late a chain of its wake-ups (a
/// timer, then the task that closes the connection) can have come. The
/// harness's own threads are not summed: they wake every few milliseconds
/// for reasons of their own, and on a busy machine their small waits add
/// up to seconds that held up nothing; the lag probe's worst lateness
/// stands for them.
pub struct CpuWait {
    gateway: Option<GroupWait>,
    before: Duration,
}

impl CpuWait {
    /// Starts counting for the gateway whose process group is `group`, if
    /// it has one.
    pub fn start(group: Option<i32>) -> CpuWait {
        let mut gateway = group.map(GroupWait::new);
        if let Some(gateway) = &mut gateway {
            gateway.sample();
        }
        let before = gateway.as_ref().map_or(Duration::ZERO, GroupWait::total);
        CpuWait { gateway, before }
    }

    /// How long they waited since [`Self::start`].
    pub fn so_far(mut self) -> Duration {
        let Some(gateway) = &mut self.gateway else {
            return Duration::ZERO;
        };
        gateway.sample();
        gateway.total().saturating_sub(self.before)
    }
}

/// The entries of a `/proc` folder named by a number (processes, threads),
/// by that number.
fn numbered(folder: &str) -> impl Iterator<Item = (u32, std::path::PathBuf)> {
    std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let number = entry.file_name().to_str()?.parse::<u32>().ok()?;
            Some((number, entry.path()))
        })
}

/// How long the processes of one process group (a launched gateway and
/// whatever it started) waited for a CPU while they could run, as the
/// kernel counts it (`/proc/<pid>/task/<tid>/schedstat`, its second
/// field). Sampled while a start-up window runs, so that a process that
/// has ended still counts with its last figure.
pub struct GroupWait {
    group: i32,
    /// Nanoseconds waited, by thread.
    seen: HashMap<u32, u64>,
}

impl GroupWait {
    pub fn new(group: i32) -> GroupWait {
        GroupWait {
            group,
            seen: HashMap::new(),
        }
    }

    /// Looks at every thread of the group now: its CPU wait is the second
    /// field of its `schedstat`, in nanoseconds.
    pub fn sample(&mut self) {
        for (pid, process) in numbered("/proc") {
            if process_group(pid) != Some(self.group) {
                continue;
            }
            for (tid, thread) in numbered(&format!("{}/task", process.display())) {
                let waited = std::fs::read_to_string(thread.join("schedstat"))
                    .ok()
                    .and_then(|text| text.split_whitespace().nth(1)?.parse::<u64>().ok());
                if let Some(waited) = waited {
                    self.seen.insert(tid, waited);
                }
            }
        }
    }

    /// What the group has waited for a CPU, in all, by the last sample.
    pub fn total(&self) -> Duration {
        Duration::from_nanos(self.seen.values().sum())
    }
}

/// The process group of `pid`, from `/proc/<pid>/stat` (its fifth field,
/// counted after the command's closing parenthesis).
fn process_group(pid: u32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(2)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lateness_counts_where_its_span_meets_the_measurement() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let ms = Duration::from_millis;
        let late = [
            (at(1_000), ms(20)),
            (at(5_000), ms(2_500)),
            (at(9_000), ms(300)),
        ];
        // Before 5 s the big stall has not ended; it began at 2.4 s.
        assert_eq!(worst_in(late.into_iter(), at(0), at(2_000)), ms(20));
        assert_eq!(worst_in(late.into_iter(), at(3_000), at(4_000)), ms(2_500));
        assert_eq!(worst_in(late.into_iter(), at(6_000), at(10_000)), ms(300));
        assert_eq!(worst_in(late.into_iter(), at(9_500), at(10_000)), ms(0));
    }

    #[test]
    fn a_group_is_found_and_its_waiting_read() {
        let own = process_group(std::process::id()).expect("this process has a group");
        let mut wait = GroupWait::new(own);
        wait.sample();
        assert!(!wait.seen.is_empty(), "this process's threads are seen");
        let before = wait.total();
        wait.sample();
        assert!(wait.total() >= before, "waiting only grows");
        assert_eq!(process_group(u32::MAX), None);
    }

    #[test]
    fn a_span_counts_only_its_own_waiting() {
        let own = process_group(std::process::id());
        let span = CpuWait::start(own);
        let waited = span.so_far();
        assert!(
            waited < Duration::from_secs(5),
            "nothing here waits for seconds: {waited:?}"
        );
        assert_eq!(CpuWait::start(None).so_far(), Duration::ZERO);
    }

    #[test]
    fn a_miss_is_explained_only_by_as_much_lateness() {
        start();
        let now = Instant::now();
        assert!(explains(Duration::from_secs(30), now, now, Duration::ZERO).is_none());
        assert!(
            explains(Duration::from_secs(3), now, now, Duration::from_secs(3)).is_some(),
            "as long a wait of the gateway's for a CPU explains a miss"
        );
        assert!(explains(Duration::from_secs(3), now, now, Duration::from_secs(2)).is_none());
        let said = explains(Duration::ZERO, now, now, Duration::ZERO)
            .expect("no miss is always explained");
        assert!(
            said.contains("too busy") && said.contains("--scenario"),
            "{said}"
        );
    }
}
