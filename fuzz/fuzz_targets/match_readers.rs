//! Fuzz target: the long CSV and JSON Lines readers on arbitrary bytes. Nothing may
//! panic; every error names the file; a reader ends after an error it cannot go on from;
//! every match read is a valid one (two entries or more).
#![no_main]

use libfuzzer_sys::fuzz_target;
use podium::Match;
use podium_io::{CsvMatches, JsonlMatches, ReadError, ReadOptions};

fn check(file: &str, items: impl Iterator<Item = Result<Match, ReadError>>) {
    for item in items {
        match item {
            Ok(m) => assert!(m.len() >= 2),
            Err(e) => {
                let message = e.to_string();
                assert!(message.starts_with(&format!("{file}:")), "{message}");
                if !e.is_recoverable() {
                    break;
                }
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check("f.csv", CsvMatches::new("f.csv", data));
    let car = ReadOptions::with_factors(["car"]);
    check("f.csv", CsvMatches::with_options("f.csv", data, &car));
    check("f.jsonl", JsonlMatches::new("f.jsonl", data));
    check("f.jsonl", JsonlMatches::with_options("f.jsonl", data, &car));
});
