//! The real-data suite: the datasets in `../shared/data`, through the `podium` binary.
//! Run with `cargo test -p podium-cli --features real-data --test real_data`.

mod serve;
#[path = "../util.rs"]
mod util;
