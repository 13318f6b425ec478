//! Converters from public datasets to podium matches, used by `podium import`.

pub mod codeforces;
