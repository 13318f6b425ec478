//! The readers on inputs that are not what they should be: pipes, endless lines, byte
//! order marks, quotes never closed, keys given twice, lines that are not matches, and
//! arbitrary bytes.

mod common;
use common::{csv, jsonl, messages, scratch};

use std::convert::Infallible;
use std::io::{self, BufReader, Read};

use podium::{League, Match};
use podium_io::ingest::{self, Inputs, Reading};
use podium_io::{CsvMatches, JsonlMatches, ReadError, ReadOptions};

fn jsonl_with(text: &[u8], kinds: &[&str]) -> Vec<Result<String, String>> {
    let options = ReadOptions::with_factors(kinds.iter().copied());
    messages(JsonlMatches::with_options("t.jsonl", text, &options))
}

/// Runs `f` on a thread of its own and waits for it a long while: a reader that hangs
/// fails the test instead of hanging it.
fn guarded<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{what} did not finish"))
}

#[cfg(unix)]
fn fifo(path: &std::path::Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
}

/// A named pipe is opened once and read as standard input is: opening it again would
/// wait for a writer that is gone.
#[cfg(unix)]
#[test]
fn reading_a_fifo_does_not_hang() {
    for (name, text) in [
        ("games.csv", "match,player,rank\ng1,ann,1\ng1,bo,2\ng2,bo,1\ng2,cy,2\n"),
        (
            "games.jsonl",
            "{\"match\":\"g1\",\"results\":[{\"player\":\"ann\",\"rank\":1},{\"player\":\"bo\",\"rank\":2}]}\n",
        ),
    ] {
      // Whether a writer is gone before a second open is a race: it is run many times.
      for _ in 0..20 {
        let path = scratch().join(name);
        fifo(&path);
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                let _ = std::fs::write(&path, text);
            })
        };
        let inputs = Inputs::new([path.display().to_string()]);
        let (rated, way) = guarded("reading a named pipe", move || {
            let mut league = League::new(podium::system("sme", &podium::Settings::new()).unwrap());
            let done = ingest::rate(&inputs, &mut league, &Reading::default()).unwrap();
            (league.matches_rated(), done.files[0].way.clone())
        });
        writer.join().unwrap();
        assert_eq!(rated, if name.ends_with("csv") { 2 } else { 1 }, "{name}");
        assert!(matches!(way, ingest::Way::General { .. }), "{name}: {way:?}");
      }
    }
}

/// A source without line breaks is refused once a line passes the limit, naming the file
/// and the line, instead of filling memory.
#[test]
fn a_line_longer_than_the_limit_is_refused() {
    let endless = guarded("reading endless CSV", || {
        messages(CsvMatches::new("z.csv", io::repeat(0)))
    });
    assert_eq!(
        endless,
        [Err(
            "z.csv:1: a line longer than 1 MiB, the most a CSV line may hold".to_string()
        )]
    );
    let endless = guarded("reading endless JSON Lines", || {
        messages(JsonlMatches::new(
            "z.jsonl",
            BufReader::new(io::repeat(b' ')),
        ))
    });
    assert_eq!(
        endless,
        [Err(
            "z.jsonl:1: a line longer than 16 MiB, the most a JSON Lines line may hold".to_string()
        )]
    );

    // After good matches, on the line where it starts; a line of exactly the limit is read.
    // (The length is in a column the reader skips: an id that long is not one.)
    let mut text = b"match,player,rank,note\ng1,ann,1,\ng1,bo,2,\n".to_vec();
    let note = "n".repeat(podium_io::MAX_LINE - "g2,ann,1,".len());
    text.extend_from_slice(format!("g2,ann,1,{note}\ng2,bo,2,\n").as_bytes());
    let mut long = text.clone();
    long.extend_from_slice(format!("g3,ann,1,{note}x\ng3,bo,2,\ng4,a,1,\ng4,b,2,\n").as_bytes());
    assert_eq!(csv(&text), [Ok("g1".to_string()), Ok("g2".to_string())]);
    let refused = "t.csv:6: a line longer than 1 MiB, the most a CSV line may hold".to_string();
    // g2 may go on in the line refused: it is not handed on.
    assert_eq!(csv(&long), [Ok("g1".to_string()), Err(refused.clone())]);
    // A quote left open makes the rest of the file one field: the error says so.
    let mut open = b"match,player,rank\ng1,\"ann,1\n".to_vec();
    open.extend(std::iter::repeat_n(b'x', podium_io::MAX_LINE));
    assert_eq!(
        csv(&open),
        [Err("t.csv:2: a line longer than 1 MiB, the most a CSV line may hold (the quote opened on line 2 is still open there: a quoted field runs on to its closing quote)".to_string())]
    );

    // The plain reader of regular files hands the line to the general reader, which
    // refuses it: the same error, and nothing rated.
    let path = scratch().join("long.csv");
    std::fs::write(&path, &long).unwrap();
    let inputs = Inputs::new([path.display().to_string()]);
    let mut league = League::new(podium::system("sme", &podium::Settings::new()).unwrap());
    let err = ingest::rate(&inputs, &mut league, &Reading::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        refused.replace("t.csv", &path.display().to_string())
    );
    // Limits of JSON Lines: a line of exactly the limit is read (here, as bad JSON).
    let mut line = vec![b'x'; podium_io::MAX_JSON_LINE];
    line.push(b'\n');
    let read = jsonl(&line);
    assert_eq!(read.len(), 1);
    assert!(read[0]
        .as_ref()
        .unwrap_err()
        .starts_with("t.jsonl:1: field `json`"));
}

#[test]
fn a_jsonl_file_with_a_byte_order_mark_is_read() {
    let line = "{\"match\":\"g1\",\"results\":[{\"player\":\"ann\",\"rank\":1},{\"player\":\"bo\",\"rank\":2}]}\n";
    let with_mark = format!("\u{feff}{line}");
    assert_eq!(jsonl(with_mark.as_bytes()), [Ok("g1".to_string())]);
    assert_eq!(jsonl_with(with_mark.as_bytes(), &["car"]).len(), 2);
    // Only at the start of the file.
    let later = format!("{line}\u{feff}{}", line.replace("g1", "g2"));
    let read = jsonl(later.as_bytes());
    assert_eq!(read[0], Ok("g1".to_string()));
    assert!(
        read[1]
            .as_ref()
            .unwrap_err()
            .starts_with("t.jsonl:2: field `json`"),
        "{read:?}"
    );
}

#[test]
fn an_unterminated_quote_names_where_it_opens() {
    let text = b"match,player,rank\ng1,ann,1\ng1,\"bo,2\ng2,cy,1\ng2,dee,2\n";
    assert_eq!(
        csv(text),
        [Err("t.csv:3: field `player`: the quote that opens it is never closed (the field runs on to the end of the file); close it, or double a quote inside a quoted field (\"\")".to_string())]
    );
    // In the header, the column's number.
    let read = csv(b"match,player,\"rank\n");
    assert!(
        read[0]
            .as_ref()
            .unwrap_err()
            .starts_with("t.csv:1: field `column 3`: the quote"),
        "{read:?}"
    );
    // A quote inside a field, not at its start, is a character of it.
    assert_eq!(
        csv(b"match,player,rank\ng1,a\"nn,1\ng1,bo,2\n"),
        [Ok("g1".to_string())]
    );
}

#[test]
fn a_repeated_json_key_is_named() {
    let text = br#"{"match":"g1","results":[{"player":"ann","rank":1},{"player":"bo","rank":2,"player":"cy"}]}"#;
    let want = "t.jsonl:1: field `results[1].player`: \"cy\" is not valid, expected `player` once: this object gives it twice, and which of the values is meant is not known";
    assert_eq!(jsonl(text), [Err(want.to_string())]);
    // Read with factors too (where a JSON value would keep the last silently).
    assert_eq!(jsonl_with(text, &["car"])[0], Err(want.to_string()));
    let text = br#"{"match":"g1","match":"g2","results":[]}"#;
    let read = jsonl(text);
    assert_eq!(
        read,
        [Err("t.jsonl:1: field `match`: \"g2\" is not valid, expected `match` once: this object gives it twice, and which of the values is meant is not known".to_string())]
    );
    // `id` is another name of `match`.
    let text = br#"{"match":"g1","id":"g2","results":[]}"#;
    assert_eq!(
        jsonl(text),
        [Err("t.jsonl:1: field `id`: \"g2\" is not valid, expected `match` or `id`, not both: `id` is another name of `match`, and which of the two is meant is not known".to_string())]
    );
    // The match can be skipped: its id is known.
    let e = JsonlMatches::new(
        "t.jsonl",
        &br#"{"match":"g","results":[{"player":"a","rank":1,"rank":2}]}"#[..],
    )
    .next()
    .unwrap()
    .unwrap_err();
    assert_eq!(e.match_id(), Some("g"));
    assert!(
        e.to_string().contains("field `results[0].rank`: \"2\""),
        "{e}"
    );
}

#[test]
fn a_factors_object_in_json_lines_is_told_how_factors_are_written() {
    let text = br#"{"match":"g1","results":[{"player":"ann","rank":1,"factors":{"car":"red"}},{"player":"bo","rank":2}]}"#;
    assert_eq!(
        jsonl(text),
        [Err(r#"t.jsonl:1: field `results[0].factors`: "{\"car\":\"red\"}" is not valid, expected no such field: a result has player, rank or score, team and weight; a factor is not an object but a field of the result itself, named by its kind: {"player":..,"rank":..,"car":"red"}, read with `--factor car` (in Python `factors=["car"]`)"#.to_string())]
    );
    let text = br#"{"match":"g1","factors":{"seat":1},"results":[{"player":"ann","rank":1},{"player":"bo","rank":2}]}"#;
    let read = jsonl(text);
    assert!(
        read[0].as_ref().unwrap_err().ends_with(r#"a match has the fields match, time and results; a factor is not an object but a field of the result itself, named by its kind: {"player":..,"rank":..,"seat":"1"}, read with `--factor seat` (in Python `factors=["seat"]`)"#),
        "{read:?}"
    );
}

/// In JSON Lines a line is one match: a line that is not a readable match (bad JSON, no
/// match id, not an object) is a bad match of its own, as a bad match with an id is.
/// With `skip_bad` the good matches are rated and the bad lines listed by line; without,
/// every bad line is listed and nothing may be used.
#[test]
fn lines_that_are_not_matches_are_bad_matches_that_skip_bad_skips() {
    let dir = scratch();
    let g1 = "{\"match\":\"g1\",\"results\":[{\"player\":\"a\",\"rank\":1},{\"player\":\"b\",\"rank\":2}]}\n";
    let g5 = "{\"match\":\"g5\",\"results\":[{\"player\":\"a\",\"rank\":2},{\"player\":\"b\",\"rank\":1}]}\n";
    let bad = "{\"match\":\"g2\",\"results\":[{\"player\":\"a\",\"rank\":1},\n\
        {\"results\":[{\"player\":\"a\",\"rank\":1},{\"player\":\"b\",\"rank\":2}]}\n\
        []\n";
    let path = dir.join("b.jsonl");
    std::fs::write(&path, format!("{g1}{bad}{g5}")).unwrap();
    let good = dir.join("good.jsonl");
    std::fs::write(&good, format!("{g1}{g5}")).unwrap();
    let file = path.display().to_string();
    let want: Vec<String> = [
        "2: field `json`: \"{\\\"match\\\":\\\"g2\\\",\\\"results\\\":[{\\\"player\\\":\\\"a\\\",\\\"rank\\\":1},\" is not valid, expected a match object like {\"match\":..,\"results\":[..]} (EOF while parsing a value at column 49 of the line)",
        "3: field `match`: \"\" is not valid, expected the match id, a string: it is required",
        "4: field `json`: \"[]\" is not valid, expected a match object like {\"match\":..,\"results\":[..]}",
    ]
    .iter()
    .map(|m| format!("{file}:{m}"))
    .collect();

    let inputs = Inputs {
        skip_bad: true,
        ..Inputs::new([file.clone()])
    };
    let mut league = fresh_sme();
    let done = ingest::rate(&inputs, &mut league, &Reading::default()).unwrap();
    let skipped: Vec<String> = done.skipped.iter().map(ToString::to_string).collect();
    assert_eq!(skipped, want);
    assert_eq!(league.matches_rated(), 2);
    // g1 and g5 rated as a file of them alone rates them.
    let mut alone = fresh_sme();
    ingest::rate(
        &Inputs::new([good.display().to_string()]),
        &mut alone,
        &Reading::default(),
    )
    .unwrap();
    assert_eq!(league.standings(), alone.standings());
    // Read into memory too, as the evaluation commands read.
    let loaded = ingest::load(&inputs, &Reading::default()).unwrap();
    let ids: Vec<&str> = loaded.matches.iter().map(Match::id).collect();
    assert_eq!(ids, ["g1", "g5"]);
    assert_eq!(loaded.skipped.len(), 3);

    // Without skip_bad: every bad line is listed, and nothing may be used.
    let e = ingest::rate(
        &Inputs::new([file.clone()]),
        &mut fresh_sme(),
        &Reading::default(),
    )
    .unwrap_err();
    let ingest::IngestError::BadMatches { count, listed } = e else {
        panic!("{e}");
    };
    assert_eq!(count, 3);
    let listed: Vec<String> = listed.iter().map(ToString::to_string).collect();
    assert_eq!(listed, want);
    assert!(matches!(
        ingest::load(&Inputs::new([file]), &Reading::default()),
        Err(ingest::IngestError::BadMatches { count: 3, .. })
    ));
    std::fs::remove_dir_all(dir).unwrap();
}

mod arbitrary_bytes {
    use super::*;
    use proptest::prelude::*;

    /// Bytes that are sometimes match files: pieces of CSV and JSON Lines, and any byte.
    fn input() -> impl Strategy<Value = Vec<u8>> {
        let pieces = prop::collection::vec(
            prop::sample::select(vec![
                &b"match,player,rank\n"[..],
                b"match,player,score,team,time,weight\n",
                b"g1,ann,1\n",
                b"g1,bo,2\n",
                b"g2,bo,1\n",
                b"g2,cy,2\n",
                b"g2,cy,1,x\n",
                b",ann,1\n",
                b"g1,bo, jr,2\n",
                b"g1,",
                b"g2,",
                b"ann,",
                b"bo,",
                b"1",
                b"2",
                b"-0.5",
                b"2024-05-01",
                b"9999-12-31",
                b",",
                b"\n",
                b"\r\n",
                b"\r",
                b"\"",
                b"\"\"",
                b" ",
                b"\xef\xbb\xbf",
                b"\xff",
                b"{\"match\":\"g1\",\"results\":[",
                b"{\"player\":\"ann\",\"rank\":1}",
                b"{\"player\":\"bo\",\"rank\":2,\"rank\":3}",
                b"]}",
                b"}",
                b"null",
            ]),
            0..24,
        )
        .prop_map(|p| p.concat());
        prop_oneof![pieces, prop::collection::vec(any::<u8>(), 0..96)]
    }

    /// Match files, mostly well formed: matches of distinct players with ranks or
    /// scores, and now and then one of [`input`]'s pieces among them.
    fn rows() -> impl Strategy<Value = Vec<u8>> {
        let one = (
            prop::sample::subsequence(vec!["ann", "bo", "cy", "dee", "ed"], 2..5),
            prop::collection::vec(prop::sample::select(vec!["1", "2", "3", "2.5", "-1"]), 5),
        );
        (
            prop::collection::vec(one, 0..8),
            prop::option::weighted(0.2, (input(), any::<prop::sample::Index>())),
        )
            .prop_map(|(matches, noise)| {
                let mut text = Vec::new();
                for (i, (players, finishes)) in matches.iter().enumerate() {
                    for (p, f) in players.iter().zip(finishes) {
                        text.extend_from_slice(format!("m{i},{p},{f}\n").as_bytes());
                    }
                }
                if let Some((piece, at)) = noise {
                    let at = at.index(text.len() + 1);
                    text.splice(at..at, piece);
                }
                text
            })
    }

    /// Every item of a reader, checked: an error names the file, and the reader ends
    /// after an error it cannot go on from, and in any case after a few items per line.
    fn checked(
        file: &str,
        text: &[u8],
        items: impl Iterator<Item = Result<Match, ReadError>>,
    ) -> Result<Vec<Result<Match, String>>, TestCaseError> {
        let bound = 2 + text.iter().filter(|&&b| b == b'\n' || b == b'\r').count();
        let mut out = Vec::new();
        for item in items.take(bound + 1) {
            let fatal = matches!(&item, Err(e) if !e.is_recoverable());
            let item = item.map_err(|e| e.to_string());
            if let Err(message) = &item {
                prop_assert!(
                    message.starts_with(&format!("{file}:"))
                        || message.starts_with(&format!("cannot read {file}")),
                    "{}",
                    message
                );
            }
            out.push(item);
            if fatal {
                break;
            }
        }
        prop_assert!(
            out.len() <= bound,
            "{} items from {} lines",
            out.len(),
            bound
        );
        Ok(out)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The CSV reader takes any bytes: matches, or errors that name the file, never
        /// a panic or a loop.
        #[test]
        fn the_csv_reader_takes_any_bytes(text in input()) {
            let read = checked("t.csv", &text, CsvMatches::new("t.csv", &text[..]))?;
            // Matches it accepts are valid ones, and the same whatever the factor columns.
            for m in read.iter().flatten() {
                prop_assert!(m.len() >= 2);
            }
        }

        /// The JSON Lines reader too, with and without factor fields.
        #[test]
        fn the_jsonl_reader_takes_any_bytes(text in input()) {
            let plain = checked("t.jsonl", &text, JsonlMatches::new("t.jsonl", &text[..]))?;
            let options = ReadOptions::with_factors(["car"]);
            let factored = checked("t.jsonl", &text, JsonlMatches::with_options("t.jsonl", &text[..], &options))?;
            // Without a `car` field, asking for it changes no match (only adds the error
            // that no result has the field).
            if !text.windows(5).any(|w| w == b"\"car\"") {
                let ids = |r: &[Result<Match, String>]| r.iter().flatten().map(|m| m.id().to_string()).collect::<Vec<_>>();
                prop_assert_eq!(ids(&plain), ids(&factored));
            }
        }

        /// A file the plain reader reads (a header it takes, then any bytes) rates as the
        /// general reader rates it: the same ratings, or the same errors.
        #[test]
        fn the_plain_and_general_csv_readers_agree(body in prop_oneof![rows(), input()], header in prop::sample::select(vec!["match,player,rank\n", "match,player,score,x\n"]),
            // Elo refuses matches of more than two entries: the plain reader hands them
            // over to the general one, which lists them.
            system in prop::sample::select(vec!["sme", "elo"]),
        ) {
            let dir = scratch();
            let path = dir.join("t.csv");
            let mut text = header.as_bytes().to_vec();
            text.extend_from_slice(&body);
            std::fs::write(&path, &text).unwrap();
            let inputs = Inputs::new([path.display().to_string()]);
            let system = || podium::system(system, &podium::Settings::new()).unwrap();
            let (mut plain, mut general) = (League::new(system()), League::new(system()));
            let reading = Reading { threads: 2, ..Reading::default() };
            let a = ingest::rate(&inputs, &mut plain, &reading);
            let b = ingest::rate_each(&inputs, &mut general, &reading, |_, _, _| Ok::<(), Infallible>(()));
            let outcome = |r: Result<ingest::Ingested, ingest::IngestError<Infallible>>| match r {
                Ok(_) => Ok(()),
                Err(ingest::IngestError::BadMatches { count, listed }) => {
                    Err((count, listed.iter().map(ToString::to_string).collect::<Vec<_>>()))
                }
                Err(e) => Err((0, vec![e.to_string()])),
            };
            let (a, b) = (outcome(a), outcome(b));
            prop_assert_eq!(&a, &b);
            if a.is_ok() {
                let board = |l: &League| l.standings().into_iter().map(|s| (s.player, s.rating.value.to_bits())).collect::<Vec<_>>();
                prop_assert_eq!(board(&plain), board(&general));
            }
            std::fs::remove_dir_all(dir).unwrap();
        }
    }

    #[test]
    fn a_reader_that_fails_is_an_error_naming_the_file() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        let read = messages(CsvMatches::new("t.csv", Broken));
        assert_eq!(read, [Err("cannot read t.csv".to_string())]);
    }
}

/// Plain files long enough for several batches rate the same whether their matches go
/// one by one or in batches on every core, and as the general reader rates them: the
/// same ratings to the bit, and the same bad matches (a match of three players for
/// `elo`, which rates two; a match id an earlier file used; a row the plain reader does
/// not take), with and without `skip_bad`.
#[test]
fn batches_rated_at_once_rate_as_matches_one_by_one() {
    let dir = scratch();
    // A small generator, so that the files are the same on every run.
    let mut seed: u64 = 0x5eed;
    let mut next = move |n: u64| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    let mut file = |name: &str, matches: usize, prefix: &str, odd: &[(usize, &str)], two: bool| {
        let mut text = String::from("match,player,rank\n");
        for k in 0..matches {
            if let Some((_, row)) = odd.iter().find(|(at, _)| *at == k) {
                text.push_str(row);
                continue;
            }
            let n = if two { 2 } else { 2 + next(5) as usize };
            let mut players: Vec<u64> = Vec::new();
            while players.len() < n {
                let p = next(300);
                if !players.contains(&p) {
                    players.push(p);
                }
            }
            for (i, p) in players.iter().enumerate() {
                let rank = if i > 0 && next(6) == 0 { i } else { i + 1 };
                text.push_str(&format!("{prefix}{k},p{p},{rank}\n"));
            }
        }
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let plain = file("plain.csv", 3_500, "m", &[], false);
    let pairs = file(
        "pairs.csv",
        3_500,
        "m",
        &[(2_900, "m2900,a,1\nm2900,b,2\nm2900,c,3\n")],
        true,
    );
    let again = file(
        "again.csv",
        3_000,
        "n",
        &[(2_500, "m7,a,1\nm7,b,2\n")],
        false,
    );
    let quoted = file(
        "quoted.csv",
        3_000,
        "q",
        &[(2_600, "q2600,\"a\",1\nq2600,b,2\n")],
        false,
    );
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![plain.clone()], "trueskill"),
        (vec![plain.clone()], "elo-mmr"),
        (vec![plain.clone()], "glicko2"),
        (vec![pairs], "elo"),
        (vec![plain.clone(), again], "trueskill"),
        (vec![plain, quoted], "elo-mmr"),
    ];
    for (files, system) in cases {
        for skip_bad in [false, true] {
            let inputs = Inputs {
                skip_bad,
                ..Inputs::new(files.clone())
            };
            let rate = |at_once: Option<bool>, general: bool| {
                let mut league =
                    League::new(podium::system(system, &podium::Settings::new()).unwrap());
                let reading = Reading {
                    threads: 2,
                    at_once,
                    ..Reading::default()
                };
                let done = if general {
                    ingest::rate_each(&inputs, &mut league, &reading, |_, _, _| {
                        Ok::<(), Infallible>(())
                    })
                } else {
                    ingest::rate(&inputs, &mut league, &reading)
                };
                let done = match done {
                    Ok(done) => Ok(done
                        .skipped
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()),
                    Err(ingest::IngestError::BadMatches { count, listed }) => Err((
                        count,
                        listed.iter().map(ToString::to_string).collect::<Vec<_>>(),
                    )),
                    Err(e) => panic!("{e}"),
                };
                let board: Vec<_> = league
                    .players()
                    .iter()
                    .map(|p| {
                        (
                            p.name.clone(),
                            p.rating.value.to_bits(),
                            p.rating.sigma.map(f64::to_bits),
                            p.stats.games,
                        )
                    })
                    .collect();
                (done, board, league.matches_rated())
            };
            let batches = rate(Some(true), false);
            let one_by_one = rate(Some(false), false);
            let general = rate(None, true);
            let what = format!("{files:?} {system} skip_bad {skip_bad}");
            assert_eq!(batches.0, one_by_one.0, "{what}");
            assert_eq!(batches.0, general.0, "{what}");
            assert_eq!(batches.2, one_by_one.2, "{what}");
            assert_eq!(batches.1, one_by_one.1, "{what}");
            let sorted = |mut b: Vec<_>| {
                b.sort();
                b
            };
            assert_eq!(sorted(batches.1), sorted(general.1), "{what}");
            if skip_bad || files.len() == 1 && system != "elo" {
                assert!(batches.2 > 3_000, "{what}: {}", batches.2);
            }
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A history that begins without times and takes dated matches later, as the league
/// server keeps it (and exports it): read from JSON Lines and from CSV it rates as the
/// server rates its ledger, the undated matches first in file order, then the dated
/// ones by time, ties in file order; every player's rating the same to the bit. A match
/// without a time after a dated one is refused, naming the file, the line and the field.
#[test]
fn a_history_that_begins_without_times_rates_as_the_league_server_rates_it() {
    let dir = scratch();
    // (id, time, players best first), in the order of the file (the server's ledger).
    let games: [(&str, Option<&str>, [&str; 3]); 6] = [
        ("u1", None, ["ann", "bo", "cy"]),
        ("u2", None, ["cy", "ann", "bo"]),
        ("d3", Some("2024-05-09"), ["bo", "cy", "ann"]),
        ("d1", Some("2024-05-01"), ["ann", "cy", "bo"]),
        ("d2", Some("2024-05-01"), ["cy", "bo", "ann"]),
        ("d4", Some("2024-06-20"), ["bo", "ann", "cy"]),
    ];
    let mut jsonl = String::new();
    let mut csv = String::from("match,player,rank,time\n");
    for (id, time, players) in &games {
        let results: Vec<String> = players
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{{\"player\":\"{p}\",\"rank\":{}}}", i + 1))
            .collect();
        let time_field = time
            .map(|t| format!(",\"time\":\"{t}\""))
            .unwrap_or_default();
        jsonl.push_str(&format!(
            "{{\"match\":\"{id}\"{time_field},\"results\":[{}]}}\n",
            results.join(",")
        ));
        for (i, p) in players.iter().enumerate() {
            csv.push_str(&format!("{id},{p},{},{}\n", i + 1, time.unwrap_or("")));
        }
    }
    let jsonl_path = dir.join("ledger.jsonl");
    let csv_path = dir.join("ledger.csv");
    std::fs::write(&jsonl_path, &jsonl).unwrap();
    std::fs::write(&csv_path, &csv).unwrap();
    // The server's order: undated by ledger position, then dated by (time, position).
    let server_order = ["u1", "u2", "d1", "d2", "d3", "d4"];
    let file_order: Vec<&str> = games.iter().map(|g| g.0).collect();
    for system in ["glicko2", "sme", "trueskill"] {
        let fresh = || League::new(podium::system(system, &podium::Settings::new()).unwrap());
        let replay = replayed(fresh(), &games, &server_order);
        // The order matters: the file's own order rates otherwise.
        assert_ne!(
            replayed(fresh(), &games, &file_order).standings(),
            replay.standings()
        );
        for path in [&jsonl_path, &csv_path] {
            let mut league = fresh();
            let inputs = Inputs::new([path.display().to_string()]);
            ingest::rate(&inputs, &mut league, &Reading::default()).unwrap();
            assert_eq!(league.standings(), replay.standings(), "{system} {path:?}");
            assert_eq!(league.matches_rated(), 6);
        }
    }
    // A match without a time after the dated ones: refused, whichever the format.
    let late = "{\"match\":\"u9\",\"results\":[{\"player\":\"ann\",\"rank\":1},{\"player\":\"bo\",\"rank\":2}]}\n";
    std::fs::write(&jsonl_path, format!("{jsonl}{late}")).unwrap();
    std::fs::write(&csv_path, format!("{csv}u9,ann,1,\nu9,bo,2,\n")).unwrap();
    for (path, line, dated_line) in [(&jsonl_path, 7, 3), (&csv_path, 20, 8)] {
        let mut league = fresh_sme();
        let inputs = Inputs::new([path.display().to_string()]);
        let e = ingest::rate(&inputs, &mut league, &Reading::default()).unwrap_err();
        let ingest::IngestError::BadMatches { count: 1, listed } = e else {
            panic!("{e}");
        };
        let said = listed[0].to_string();
        assert!(
            said.contains(&format!(
                "{}:{line}: field `time`: \"\" is not valid, expected a time: once a match has a time, every later match needs one (only the matches before the first with a time may have none); match \"u9\" comes after match \"d3\" (line {dated_line}), which has one",
                path.display()
            )),
            "{said}"
        );
    }
    // Across files alike: a file of undated matches after one with dated matches.
    let undated = dir.join("undated.csv");
    std::fs::write(&undated, "match,player,rank\nu8,ann,1\nu8,bo,2\n").unwrap();
    std::fs::write(&csv_path, csv).unwrap();
    let files = [&csv_path, &undated].map(|p| p.display().to_string());
    let e = ingest::rate(&Inputs::new(files), &mut fresh_sme(), &Reading::default()).unwrap_err();
    let ingest::IngestError::BadMatches { count: 1, listed } = e else {
        panic!("{e}");
    };
    let said = listed[0].to_string();
    assert!(
        said.contains(&format!(
            "{}:2: field `time`: \"\" is not valid, expected a time: once a match has a time, every later match needs one (only the matches before the first with a time may have none); an earlier file has dated matches",
            undated.display()
        )),
        "{said}"
    );
    // The other way round is a history that begins without times.
    let files = [&undated, &csv_path].map(|p| p.display().to_string());
    ingest::rate(&Inputs::new(files), &mut fresh_sme(), &Reading::default()).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}

/// `league` after rating `games` (id, time, players best first) in the order of `ids`.
fn replayed(mut league: League, games: &[(&str, Option<&str>, [&str; 3])], ids: &[&str]) -> League {
    for id in ids {
        let (id, time, players) = games.iter().find(|g| g.0 == *id).unwrap();
        let mut m = Match::builder(*id);
        if let Some(t) = time {
            m = m.time(podium_io::parse_time(t).unwrap());
        }
        for (i, p) in players.iter().enumerate() {
            m = m.player(*p, podium::Finish::Rank((i + 1) as f64));
        }
        league.apply(&m.build().unwrap()).unwrap();
    }
    league
}

/// An empty league rated by `sme`.
fn fresh_sme() -> League {
    League::new(podium::system("sme", &podium::Settings::new()).unwrap())
}
