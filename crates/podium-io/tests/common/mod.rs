//! What the reader tests share: scratch directories, and the matches a reader yields as
//! their ids or error messages. (Each test file compiles this module on its own; one
//! that reads no JSON Lines leaves `jsonl` unused.)

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use podium::Match;
use podium_io::{CsvMatches, JsonlMatches, ReadError};

/// A fresh directory of this test process.
pub fn scratch() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "podium-io-{}-{}-{}",
        env!("CARGO_CRATE_NAME"),
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Each match read as its id, each bad one as its message.
pub fn messages(
    items: impl Iterator<Item = Result<Match, ReadError>>,
) -> Vec<Result<String, String>> {
    items
        .map(|m| m.map(|m| m.id().to_string()).map_err(|e| e.to_string()))
        .collect()
}

/// [`messages`] of `text` read as CSV (`t.csv`).
pub fn csv(text: &[u8]) -> Vec<Result<String, String>> {
    messages(CsvMatches::new("t.csv", text))
}

/// [`messages`] of `text` read as JSON Lines (`t.jsonl`).
#[allow(dead_code)]
pub fn jsonl(text: &[u8]) -> Vec<Result<String, String>> {
    messages(JsonlMatches::new("t.jsonl", text))
}
