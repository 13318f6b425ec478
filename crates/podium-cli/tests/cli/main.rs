//! Integration tests of the `podium` binary, compiled into one test binary.

#[path = "../util.rs"]
mod util;

mod bayes;
mod eval;
mod examples;
mod factors;
mod import;
mod newcomer;
mod one_way;
mod rate;
mod readers;
mod remember;
mod safety;

#[path = "../site_check.rs"]
mod site_check;

mod frags;
mod serve;
