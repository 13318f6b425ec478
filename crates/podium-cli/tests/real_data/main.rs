//! The real-data suite: the datasets in `../shared/data`, through the `podium` binary.
//! Run with `cargo test -p podium-cli --features real-data --test real_data`.

#[path = "../util.rs"]
mod util;

#[path = "../site_check.rs"]
mod site_check;

mod bayes;
mod datasets;
mod eval;
mod factors;
mod kalman;
mod quake;
mod remember;
mod serve;
