//! Start-up work in instructions rather than time: loads (and converts) one
//! document a given number of times, for `valgrind --tool=callgrind`, whose
//! instruction counts do not move with the machine's load the way criterion's
//! wall-clock figures do on a shared host. Two runs that differ only in the
//! count give the work of one round, free of process start and file reading:
//!
//! ```sh
//! cargo build --release -p hosted-mcp-benches --example startup
//! ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null \
//!          | grep -o 'Collected : [0-9]*' | grep -o '[0-9]*$'; }
//! doc=../shared/corpus/twilio__twilio_api_v2010.json
//! for step in parse load convert; do
//!   echo "$step $(( ($(ir target/release/examples/startup $step $doc 3) \
//!                   - $(ir target/release/examples/startup $step $doc 1)) / 2 ))"
//! done
//! ```
//!
//! `parse` is the floor (the text into a `serde_json::Value`, JSON documents
//! only), `load` is text to our resolved model, `convert` is text to tools.

use hosted_mcp_gateway::{convert, load};

fn main() {
    let usage = "usage: startup parse|load|convert <document> <rounds>";
    let mut args = std::env::args().skip(1);
    let (Some(step), Some(path), Some(rounds)) = (args.next(), args.next(), args.next()) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let rounds: usize = rounds.parse().unwrap_or_else(|_| {
        eprintln!("{usage}");
        std::process::exit(2)
    });
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| {
        eprintln!("{path}: {error}");
        std::process::exit(1)
    });
    let mut made = 0;
    for _ in 0..rounds {
        made += match step.as_str() {
            "parse" => usize::from(serde_json::from_str::<serde_json::Value>(&text).is_ok()),
            "load" => load::load_str(&text, &path).map_or(0, |document| document.operations.len()),
            "convert" => load::load_str(&text, &path)
                .ok()
                .and_then(|document| convert::convert(&document).ok())
                .map_or(0, |catalogue| catalogue.tools.len()),
            _ => {
                eprintln!("{usage}");
                std::process::exit(2);
            }
        };
    }
    // Printed, so the work cannot be optimised away.
    println!("{made}");
}
