//! Files that hold no match or are not UTF-8 text: an empty JSON Lines file, one of blank
//! lines, UTF-16 and UTF-32 files, byte-order marks in the converters' logs, and control
//! characters in the names a message shows.

mod common;
use common::{csv, jsonl, messages, scratch};

use std::convert::Infallible;
use std::path::{Path, PathBuf};

use podium::{League, Match};
use podium_io::datasets::{catan, codeforces, f1};
use podium_io::ingest::{self, IngestError, Inputs, Reading};
use podium_io::{CsvMatches, InputFormat, JsonlMatches, ReadOptions};

fn error(message: &str) -> Vec<Result<String, String>> {
    vec![Err(message.to_string())]
}

/// `text` in UTF-16 (`bits` 16) or UTF-32 (32), big- or little-endian, with or
/// without a byte-order mark.
fn wide(text: &str, bits: u8, big_endian: bool, mark: bool) -> Vec<u8> {
    let text = if mark {
        format!("\u{feff}{text}")
    } else {
        text.to_string()
    };
    let mut out = Vec::new();
    if bits == 16 {
        for unit in text.encode_utf16() {
            out.extend(if big_endian {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            });
        }
    } else {
        for c in text.chars() {
            let c = u32::from(c);
            out.extend(if big_endian {
                c.to_be_bytes()
            } else {
                c.to_le_bytes()
            });
        }
    }
    out
}

/// Every way of writing a text in UTF-16 or UTF-32, with the message that names it.
fn wide_forms(text: &str) -> Vec<(Vec<u8>, String)> {
    let mut out = Vec::new();
    for bits in [16, 32] {
        for big_endian in [false, true] {
            let order = if big_endian { "big" } else { "little" };
            let from = format!("UTF-{bits}{}", if big_endian { "BE" } else { "LE" });
            out.push((
                wide(text, bits, big_endian, true),
                format!("the file is not UTF-8 text: it starts with a UTF-{bits} ({order}-endian) byte-order mark; expected UTF-8 text (convert it with `iconv -f UTF-{bits} -t UTF-8`)"),
            ));
            out.push((
                wide(text, bits, big_endian, false),
                format!("the file is not UTF-8 text: its first line has NUL bytes between its characters, so it is probably UTF-{bits} ({order}-endian); expected UTF-8 text (convert it with `iconv -f {from} -t UTF-8`)"),
            ));
        }
    }
    out
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

#[test]
fn a_utf16_or_utf32_csv_file_is_named_as_such() {
    let text = "match,player,rank\ng1,ann,1\ng1,bo,2\n";
    let dir = scratch();
    for (i, (bytes, message)) in wide_forms(text).into_iter().enumerate() {
        assert_eq!(csv(&bytes), error(&format!("t.csv:1: {message}")), "{i}");
        // Through the one way in, which tries the fast reader first.
        let path = dir.join(format!("u{i}.csv"));
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(
            rate_files(&[&path], None),
            Err(format!("{}:1: {message}", path.display()))
        );
    }
    // With Windows line breaks too.
    let crlf = wide(
        "match,player,rank\r\ng1,ann,1\r\ng1,bo,2\r\n",
        16,
        false,
        true,
    );
    assert_eq!(
        csv(&crlf),
        error("t.csv:1: the file is not UTF-8 text: it starts with a UTF-16 (little-endian) byte-order mark; expected UTF-8 text (convert it with `iconv -f UTF-16 -t UTF-8`)")
    );
}

#[test]
fn a_utf16_or_utf32_jsonl_file_is_named_as_such() {
    let text = format!("{MATCH_LINE}{}", MATCH_LINE.replace("g1", "g2"));
    for (i, (bytes, message)) in wide_forms(&text).into_iter().enumerate() {
        // One error for the file, not one bad match per line.
        assert_eq!(
            jsonl(&bytes),
            error(&format!("t.jsonl:1: {message}")),
            "{i}"
        );
    }
}

/// A NUL byte here and there is not a file in UTF-16: the reader names where it is, as it
/// names any other character that is not allowed there, shown escaped.
#[test]
fn a_stray_nul_byte_is_named_where_it_is_and_shown_escaped() {
    assert_eq!(
        csv(b"match,pl\0ayer,rank\ng1,ann,1\n"),
        error("t.csv:1: header has no `player` column (found: match,pl\\0ayer,rank); expected match, player and rank or score")
    );
    let line = MATCH_LINE.replace("ann", "a\0nn");
    assert_eq!(
        jsonl(line.as_bytes()),
        error("t.jsonl:1: field `json`: \"{\\\"match\\\":\\\"g1\\\",\\\"results\\\":[{\\\"player\\\":\\\"a\\0nn\\\",\\\"rank\\\":1},{\\\"player\" is not valid, expected a match object like {\"match\":..,\"results\":[..]} (control character (\\u0000-\\u001F) found while parsing a string at column 38 of the line)")
    );
}

#[test]
fn control_characters_in_a_header_are_shown_escaped() {
    assert_eq!(
        csv(b"game,pl\x1b[31mayer\x1b[0m,rank\n"),
        error("t.csv:1: header has no `match` column (found: game,pl\\u{1b}[31mayer\\u{1b}[0m,rank); expected match, player and rank or score")
    );
    assert_eq!(
        csv(b"match\tplayer\trank\ng1\tann\t1\n"),
        error("t.csv:1: header has no `match` column (found: match\\tplayer\\trank); expected match, player and rank or score (podium reads comma-separated files, and this one looks separated by tabs: write it with commas)")
    );
    let options = ReadOptions::with_factors(["car"]);
    assert_eq!(
        messages(CsvMatches::with_options(
            "t.csv",
            &b"match,player,rank,c\x07ar\n"[..],
            &options
        )),
        error("t.csv:1: header has no `car` column, named as a factor column (found: match,player,rank,c\\u{7}ar)")
    );
    // JSON Lines read as CSV: the first line is shown, escaped too.
    assert_eq!(
        csv(b"{\"match\":\"g\x01\"}\n"),
        error("t.csv:1: the first line is a JSON object (`{\"match\":\"g\\u{1}\"}`), not a header of match, player and rank or score: the file looks like JSON Lines, one match per line; read it as such with `--input-format jsonl` (in Python `format=\"jsonl\"`)")
    );
}

/// Latin-1 text is not UTF-8 either, and is said to be so where it is.
#[test]
fn latin1_text_is_named_where_it_is() {
    assert_eq!(
        csv(b"match,player,rank\ng1,Ren\xe9,1\ng1,bo,2\n"),
        error("t.csv:2: field `player`: \"Ren\u{fffd}\" is not valid, expected valid UTF-8 text")
    );
    assert_eq!(
        csv(b"match,pl\xe9yer,rank\ng1,Ren,1\n"),
        error("t.csv:1: header has no `player` column (found: match,pl\u{fffd}yer,rank); expected match, player and rank or score")
    );
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
    for (bytes, message) in wide_forms(CATAN) {
        assert_eq!(
            catan::read("games.txt", &bytes[..])
                .unwrap_err()
                .to_string(),
            format!("games.txt:1: {message}")
        );
    }
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
    for (bytes, message) in wide_forms(text) {
        assert_eq!(
            codeforces::read_contest("1.txt", "1", &bytes[..])
                .unwrap_err()
                .to_string(),
            format!("1.txt:1: {message}")
        );
    }
}

#[test]
fn f1_tables_in_utf16_are_named_as_such() {
    let races = "raceId,year,round,circuitId,name,date\n7,1950,1,9,British Grand Prix,1950-05-13\n";
    let results = "resultId,raceId,driverId,constructorId,positionOrder\n1,7,1,2,2\n2,7,2,1,1\n";
    let drivers = "driverId,driverRef\n1,fangio\n2,farina\n";
    let constructors = "constructorId,constructorRef\n1,alfa\n2,maserati\n";
    let read = |drivers: &[u8]| {
        f1::read(
            ("races.csv", races.as_bytes()),
            ("results.csv", results.as_bytes()),
            ("drivers.csv", drivers),
            ("constructors.csv", constructors.as_bytes()),
        )
        .map(|races| races.len())
        .map_err(|e| e.to_string())
    };
    assert_eq!(read(drivers.as_bytes()), Ok(1));
    for (bytes, message) in wide_forms(drivers) {
        assert_eq!(read(&bytes), Err(format!("drivers.csv:1: {message}")));
    }
    assert_eq!(
        read(b"driverId,driver\x1bRef\n1,fangio\n"),
        Err(
            "drivers.csv:1: header has no `driverRef` column (found: driverId,driver\\u{1b}Ref)"
                .to_string()
        )
    );
}
