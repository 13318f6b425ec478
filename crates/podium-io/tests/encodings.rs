//! Files that hold no match or are not UTF-8 text: an empty JSON Lines file, one of blank
//! lines, UTF-16 and UTF-32 files, byte-order marks in the converters' logs, and control
//! characters in the names a message shows.

use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use podium::{League, Match};
use podium_io::datasets::{catan, codeforces};
use podium_io::ingest::{self, IngestError, Inputs, Reading};
use podium_io::{InputFormat, JsonlMatches, ReadError, ReadOptions};

/// A fresh directory of this test process.
fn scratch() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "podium-io-encodings-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn messages(items: impl Iterator<Item = Result<Match, ReadError>>) -> Vec<Result<String, String>> {
    items
        .map(|m| m.map(|m| m.id().to_string()).map_err(|e| e.to_string()))
        .collect()
}

fn jsonl(text: &[u8]) -> Vec<Result<String, String>> {
    messages(JsonlMatches::new("t.jsonl", text))
}

fn error(message: &str) -> Vec<Result<String, String>> {
    vec![Err(message.to_string())]
}

/// Rates `files` with the one way in that the command line and Python use; the error's
/// message, or the number of matches rated.
fn rate_files(files: &[&Path], format: Option<InputFormat>) -> Result<usize, String> {
    let mut inputs = Inputs::new(files.iter().map(|f| f.display().to_string()));
    inputs.format = format;
    let mut league = League::new(podium::system("sme", &podium::Settings::new()).unwrap());
    match ingest::rate(&inputs, &mut league, &Reading::default()) {
        Ok(_) => Ok(league.matches_rated() as usize),
        Err(IngestError::Read(e)) => Err(e.to_string()),
        Err(e) => Err(format!("not a read error: {e}")),
    }
}

/// Loads `files` as Python's `read_csv`/`read_jsonl` do; the error's message, or the
/// number of matches.
fn load_files(files: &[&Path]) -> Result<usize, String> {
    let inputs = Inputs::new(files.iter().map(|f| f.display().to_string()));
    let loaded: Result<_, IngestError<Infallible>> = ingest::load(&inputs, &Reading::default());
    loaded.map(|l| l.matches.len()).map_err(|e| e.to_string())
}

const MATCH_LINE: &str =
    "{\"match\":\"g1\",\"results\":[{\"player\":\"ann\",\"rank\":1},{\"player\":\"bo\",\"rank\":2}]}\n";
const EXPECTED_LINE: &str = "expected one match per line, like {\"match\":..,\"results\":[..]}";

#[test]
fn an_empty_jsonl_file_is_an_error_naming_it() {
    let empty = format!("t.jsonl:1: empty file: {EXPECTED_LINE}");
    assert_eq!(jsonl(b""), error(&empty));
    // The factor fields asked for are not what is wrong with it.
    let options = ReadOptions::with_factors(["car"]);
    assert_eq!(
        messages(JsonlMatches::with_options("t.jsonl", &b""[..], &options)),
        error(&empty)
    );
    for (text, said) in [
        (&b"\n"[..], "its only line is blank"),
        (b"\xef\xbb\xbf", "its only line is blank"),
        (b"\n \r\n\t\n", "its 3 lines are blank"),
        (b"\xef\xbb\xbf\n\n  ", "its 3 lines are blank"),
    ] {
        assert_eq!(
            jsonl(text),
            error(&format!(
                "t.jsonl:1: the file holds no matches: {said} ({EXPECTED_LINE})"
            )),
            "{text:?}"
        );
    }
    // Blank lines around a match are still ignored.
    assert_eq!(
        jsonl(format!("\n\n{MATCH_LINE}\n \n").as_bytes()),
        [Ok("g1".to_string())]
    );
}

/// The one way in (the command line's `rate`, `history`, `backtest`, Python's
/// `read_jsonl` and `rate_files`) refuses such a file, naming it, whatever comes with it.
#[test]
fn every_path_refuses_a_jsonl_file_without_a_match() {
    let dir = scratch();
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let blank = dir.join("blank.ndjson");
    std::fs::write(&blank, "\n\n").unwrap();
    let good = dir.join("good.jsonl");
    std::fs::write(&good, MATCH_LINE).unwrap();
    let named = |path: &PathBuf| format!("{}:1: empty file: {EXPECTED_LINE}", path.display());
    assert_eq!(rate_files(&[&empty], None), Err(named(&empty)));
    assert_eq!(load_files(&[&empty]), Err(named(&empty)));
    assert_eq!(rate_files(&[&good, &empty], None), Err(named(&empty)));
    let blank_message = format!(
        "{}:1: the file holds no matches: its 2 lines are blank ({EXPECTED_LINE})",
        blank.display()
    );
    assert_eq!(rate_files(&[&blank], None), Err(blank_message.clone()));
    assert_eq!(load_files(&[&blank]), Err(blank_message));
    // Named as JSON Lines whatever its name, as `--input-format jsonl` does.
    let unnamed = dir.join("games.txt");
    std::fs::write(&unnamed, "").unwrap();
    assert_eq!(
        rate_files(&[&unnamed], Some(InputFormat::Jsonl)),
        Err(named(&unnamed))
    );
    assert_eq!(rate_files(&[&good], None), Ok(1));
}

const CATAN: &str = "2030-05-07 : 10 : ann 10, bo 8\n2030-05-06 : 10 : bo 10, ann 7\n";

#[test]
fn a_catan_log_with_a_byte_order_mark_is_read() {
    let plain = catan::read("games.txt", CATAN.as_bytes()).unwrap();
    let marked = catan::read("games.txt", format!("\u{feff}{CATAN}").as_bytes()).unwrap();
    assert_eq!(plain, marked);
    assert_eq!(
        marked.iter().map(Match::id).collect::<Vec<_>>(),
        ["2030-05-06#1", "2030-05-07#1"]
    );
    // A mark is left out before the first line only: elsewhere it is part of the text.
    let later = CATAN.replace("\n2030-05-06", "\n\u{feff}2030-05-06");
    assert_eq!(
        catan::read("games.txt", later.as_bytes())
            .unwrap_err()
            .to_string(),
        "games.txt:2: field `date`: \"\\u{feff}2030-05-06\" is not valid, expected a date YYYY-MM-DD"
    );
}

#[test]
fn codeforces_standings_with_a_byte_order_mark_are_read() {
    let text = "2\nann 1 1\nbo 2 2\n";
    for text in [text.to_string(), format!("\u{feff}{text}")] {
        let codeforces::Contest::Match { game, .. } =
            codeforces::read_contest("1.txt", "1", text.as_bytes()).unwrap()
        else {
            panic!("{text:?} holds a match");
        };
        assert_eq!(game.id(), "1");
        assert_eq!(game.len(), 2);
        assert_eq!(game.place(0), 1);
        assert_eq!(game.place(1), 2);
    }
}
