//! Integration tests of the `podium` binary, compiled into one test binary.

#[path = "../util.rs"]
mod util;

mod bayes;
mod eval;
mod examples;
mod factors;
mod groups;
mod history;
mod import;
mod newcomer;
mod one_way;
mod order;
mod rate;
mod readable;
mod readers;
mod remember;
mod safety;
mod saved;
mod seasons;
mod simulate;
mod teams;
mod versus;

#[path = "../site_check.rs"]
mod site_check;

mod frags;
mod serve;
