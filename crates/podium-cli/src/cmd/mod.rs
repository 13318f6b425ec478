//! One module per subcommand: its arguments (`Args`) and its `run`.

pub mod backtest;
pub mod explain;
pub mod frags;
pub mod history;
pub mod import;
pub mod predict;
pub mod rate;
pub mod seasons;
pub mod serve;
pub mod simulate;
pub mod systems;
pub mod teams;
pub mod tune;
pub mod versus;
