//! Integration tests of the `podium` binary, compiled into one test binary.

#[path = "../util.rs"]
mod util;

mod rate;
mod serve;
