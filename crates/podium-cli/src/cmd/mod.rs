//! One module per subcommand: its arguments (`Args`) and its `run`.

pub mod explain;
pub mod rate;
pub mod serve;
pub mod systems;
