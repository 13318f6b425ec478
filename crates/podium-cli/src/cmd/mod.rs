//! One module per subcommand: its arguments (`Args`) and its `run`.

pub mod explain;
pub mod frags;
pub mod import;
pub mod predict;
pub mod rate;
pub mod systems;
