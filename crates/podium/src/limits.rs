//! The resource limits every front end (the command line, the Python package) applies to
//! what a caller may ask for, so that a mistyped number is a clear error instead of
//! gigabytes of memory. Each limit is a constant, checked before anything is allocated.
//! (Worker threads are capped at the cores by `podium_eval::worker_threads`.)

/// The most entries a proposed match may have for a prediction: the chances of every
/// pairwise order of 5,000 entries are 25 million numbers (200 MB).
pub const MAX_PREDICT_ENTRIES: usize = 5_000;

/// The most candidates a tuning search replays: on a grid, the product of each searched
/// parameter's number of values; at random, the samples. Every candidate is a replay of
/// the training matches, so even this many takes long on a real history.
pub const MAX_TUNE_CANDIDATES: usize = 10_000;

/// A request above a limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LimitError {
    /// More of something than the limit allows.
    #[error("{argument}: {given} {what}; at most {limit} are allowed")]
    TooMany {
        /// The argument or flag that asked for them, as the caller names it.
        argument: String,
        /// What is counted.
        what: &'static str,
        /// How many were asked for (saturated at `u128::MAX`).
        given: u128,
        /// The limit.
        limit: usize,
    },
}

/// Checks that a proposed match of `entries` entries is within
/// [`MAX_PREDICT_ENTRIES`]; `argument` names where they were given.
///
/// # Errors
/// [`LimitError::TooMany`] above the limit.
pub fn check_predict_entries(argument: &str, entries: usize) -> Result<(), LimitError> {
    if entries > MAX_PREDICT_ENTRIES {
        return Err(LimitError::TooMany {
            argument: argument.to_string(),
            what:
                "entries (the chances of every pairwise order are the square of that many numbers)",
            given: entries as u128,
            limit: MAX_PREDICT_ENTRIES,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prediction_of_more_than_5000_entries_is_refused_before_any_allocation() {
        assert_eq!(check_predict_entries("entries", 5_000), Ok(()));
        let e = check_predict_entries("--players", 30_000).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--players: 30000 entries (the chances of every pairwise order are the square of that many numbers); at most 5000 are allowed"
        );
    }
}
