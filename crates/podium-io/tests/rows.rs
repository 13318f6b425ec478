//! CSV rows users get wrong: a row without a match id, a row with more fields than the
//! header (a name with a comma not quoted), a file of a header and no rows. The plain
//! reader and the general one give the same answer on each, with and without skipping
//! bad matches.

mod common;
use common::scratch;

use std::convert::Infallible;

use podium::{League, Match, Settings};
use podium_io::ingest::{self, IngestError, Inputs, Reading, Way};
use podium_io::{CsvMatches, LongCsvWriter, ReadError, ReadOptions};

/// The matches of `text` read as CSV (`t.csv`): ids, or messages.
fn csv(text: &str) -> Vec<Result<String, String>> {
    common::csv(text.as_bytes())
}

fn league() -> League {
    League::new(podium::system("sme", &Settings::new()).unwrap())
}

/// What rating `text` as file `name` gives, by the plain reader (`ingest::rate`) and by
/// the general one (`ingest::rate_each`): the standings, or the bad matches listed (and
/// their count), or the error. Both must agree.
fn rated(name: &str, text: &str, skip_bad: bool) -> Result<(Vec<String>, Vec<String>), String> {
    let dir = scratch();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let inputs = Inputs {
        skip_bad,
        ..Inputs::new([path.display().to_string()])
    };
    let reading = Reading {
        threads: 2,
        ..Reading::default()
    };
    let outcome = |r: Result<ingest::Ingested, IngestError<Infallible>>, l: &League| match r {
        Ok(done) => Ok((
            l.standings()
                .into_iter()
                .map(|s| format!("{} {:.6}", s.player, s.rating.value))
                .collect::<Vec<_>>(),
            done.skipped
                .iter()
                .map(|b| b.to_string().replace(&format!("{}", dir.display()), "DIR"))
                .collect::<Vec<_>>(),
        )),
        Err(IngestError::BadMatches { count, listed }) => Err(format!(
            "{count}: {}",
            listed
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" | ")
                .replace(&format!("{}", dir.display()), "DIR")
        )),
        Err(e) => Err(e.to_string().replace(&format!("{}", dir.display()), "DIR")),
    };
    let (mut plain, mut general) = (league(), league());
    let a = ingest::rate(&inputs, &mut plain, &reading);
    if let Ok(done) = &a {
        // The plain reader read the file, at least up to the row it does not take.
        assert!(
            matches!(
                done.files[0].way,
                Way::Plain { .. } | Way::PlainThenGeneral { .. }
            ),
            "{:?}",
            done.files[0].way
        );
    }
    let a = outcome(a, &plain);
    let b = ingest::rate_each(&inputs, &mut general, &reading, |_, _, _| {
        Ok::<(), Infallible>(())
    });
    let b = outcome(b, &general);
    assert_eq!(a, b, "the plain and general readers disagree on {text:?}");
    std::fs::remove_dir_all(dir).unwrap();
    a
}

const G2: &str = "g2,ann,1\ng2,cy,2\n";

#[test]
fn rows_without_a_match_id_before_the_first_match_are_one_bad_match() {
    let text = format!("match,player,rank\n,ann,1\n,bo,2\n{G2}");
    assert_eq!(
        csv(&text),
        [
            Err("t.csv:2: field `match`: \"\" is not valid, expected a match id".to_string()),
            Ok("g2".to_string()),
        ]
    );
    // A bad match the reader goes on from, without a match id to name.
    let e = CsvMatches::new("t.csv", text.as_bytes())
        .next()
        .unwrap()
        .unwrap_err();
    assert!(e.is_recoverable());
    assert_eq!(e.match_id(), None);
    assert!(matches!(&e, ReadError::BadLine { field, line: 2, .. } if field == "match"));

    // Skipped with skip_bad, the rest rated; without it, nothing rated.
    let (board, skipped) = rated("nameless.csv", &text, true).unwrap();
    assert_eq!(board, ["ann 1516.000000", "cy 1484.000000"]);
    assert_eq!(
        skipped,
        ["DIR/nameless.csv:2: field `match`: \"\" is not valid, expected a match id"]
    );
    assert_eq!(
        rated("nameless.csv", &text, false).unwrap_err(),
        "1: DIR/nameless.csv:2: field `match`: \"\" is not valid, expected a match id"
    );
    // A general file (a column the plain reader does not read) reads the same.
    let general = format!("match,player,rank,team\n,ann,1,\n,bo,2,\n{G2}");
    assert_eq!(
        csv(&general),
        [
            Err("t.csv:2: field `match`: \"\" is not valid, expected a match id".to_string()),
            Ok("g2".to_string()),
        ]
    );
}

#[test]
fn a_file_of_rows_without_a_match_id_is_one_bad_match() {
    let text = "match,player,rank\n,ann,1\n,bo,2\n";
    assert_eq!(
        csv(text),
        [Err(
            "t.csv:2: field `match`: \"\" is not valid, expected a match id".to_string()
        )]
    );
    let (board, skipped) = rated("nameless.csv", text, true).unwrap();
    assert!(board.is_empty());
    assert_eq!(skipped.len(), 1);
}

#[test]
fn a_row_without_a_match_id_is_refused_with_the_match_it_comes_after() {
    let text = format!("match,player,rank\ng1,ann,1\ng1,bo,2\n,cy,3\n{G2}");
    let want = "t.csv:4: field `match`: \"\" is not valid, expected a match id (the row comes after match \"g1\", which is refused with it: the row may be one of its own)";
    assert_eq!(csv(&text), [Err(want.to_string()), Ok("g2".to_string())]);
    let e = CsvMatches::new("t.csv", text.as_bytes())
        .next()
        .unwrap()
        .unwrap_err();
    assert!(e.is_recoverable());
    assert_eq!(e.match_id(), Some("g1"));
    let (board, skipped) = rated("t.csv", &text, true).unwrap();
    assert_eq!(board, ["ann 1516.000000", "cy 1484.000000"]);
    assert_eq!(skipped, [want.replace("t.csv", "DIR/t.csv")]);
    // Among the rows of one match, the match is refused once, its rows after it too.
    let text = format!("match,player,rank\ng1,ann,1\n,cy,3\ng1,bo,2\n{G2}");
    assert_eq!(
        csv(&text),
        [
            Err("t.csv:3: field `match`: \"\" is not valid, expected a match id (the row comes after match \"g1\", which is refused with it: the row may be one of its own)".to_string()),
            Ok("g2".to_string()),
        ]
    );
    assert_eq!(rated("t.csv", &text, true).unwrap().1.len(), 1);
}

#[test]
fn a_row_with_more_fields_than_the_header_refuses_its_match() {
    // The name's comma makes `Jr` the rank.
    let text = format!("match,player,rank\ng1,\"Lee, Sr\",2\ng1,Smith, Jr,1\n{G2}");
    let want = "t.csv:3: field `column 4`: \"1\" is not valid, expected a row of 3 fields as the header has, found 4 (a field that holds a comma is quoted: \"Smith, Jr\")";
    assert_eq!(csv(&text), [Err(want.to_string()), Ok("g2".to_string())]);
    let e = CsvMatches::new("t.csv", text.as_bytes())
        .next()
        .unwrap()
        .unwrap_err();
    assert!(e.is_recoverable());
    assert_eq!(e.match_id(), Some("g1"));
    // The player last: read as `Smith` alone before, now refused.
    let text = "rank,match,player\n1,g1,Smith, Jr\n2,g1,bo\n1,g2,ann\n2,g2,cy\n";
    let want = "t.csv:2: field `column 4`: \"Jr\" is not valid, expected a row of 3 fields as the header has, found 4 (a field that holds a comma is quoted: \"Smith, Jr\")";
    assert_eq!(csv(text), [Err(want.to_string()), Ok("g2".to_string())]);
    let (board, skipped) = rated("t.csv", text, true).unwrap();
    assert_eq!(board, ["ann 1516.000000", "cy 1484.000000"]);
    assert_eq!(skipped, [want.replace("t.csv", "DIR/t.csv")]);
    assert_eq!(
        rated("t.csv", text, false).unwrap_err(),
        format!("1: {}", want.replace("t.csv", "DIR/t.csv"))
    );
    // An empty field past the header counts too (a row ending in a comma).
    assert_eq!(
        csv("match,player,rank\ng,a,1,\ng,b,2\n"),
        ["t.csv:2: field `column 4`: \"\" is not valid, expected a row of 3 fields as the header has, found 4 (a field that holds a comma is quoted: \"Smith, Jr\")".to_string()].map(Err)
    );
    // Fewer fields than the header are read as before: the missing ones empty.
    assert_eq!(
        csv("match,player,rank,team\ng,a,1\ng,b,2\n"),
        [Ok("g".to_string())]
    );
}

/// Files podium writes have as many fields on each row as in the header: they read back.
#[test]
fn files_podium_writes_read_back() {
    use podium::Finish;
    let matches = [
        Match::builder("r1")
            .time(1_714_521_600)
            .team("red", ["ann", "bo, jr"], Finish::Rank(1.0))
            .factor("car", "fast, red")
            .weighted_player("cy", Finish::Rank(2.0), 0.5)
            .build()
            .unwrap(),
        Match::builder("r2")
            .time(1_714_608_000)
            .player("ann", Finish::Score(10.0))
            .player("dee \"d\"", Finish::Score(30.0))
            .build()
            .unwrap(),
    ];
    let dir = scratch();
    let path = dir.join("w.csv");
    let mut out = LongCsvWriter::new(std::fs::File::create(&path).unwrap()).factor_kinds(["car"]);
    for m in &matches {
        out.write(m).unwrap();
    }
    out.flush().unwrap();
    drop(out);
    let text = std::fs::read_to_string(&path).unwrap();
    let read: Vec<Match> = CsvMatches::with_options(
        "w.csv",
        text.as_bytes(),
        &ReadOptions::with_factors(["car"]),
    )
    .collect::<Result<_, _>>()
    .unwrap();
    assert_eq!(read, matches);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_header_without_rows_holds_no_matches() {
    let want = "t.csv:2: the file holds no matches: it has a header and no rows (expected one row per player per match after it)";
    for text in [
        "match,player,rank",
        "match,player,rank\n",
        "match,player,rank\n\n\n",
        "match,player,rank,team\n",
    ] {
        assert_eq!(csv(text), [Err(want.to_string())], "{text:?}");
        let e = CsvMatches::new("t.csv", text.as_bytes())
            .next()
            .unwrap()
            .unwrap_err();
        assert!(!e.is_recoverable());
        // Not even with skip_bad: as an empty file, it is no match file.
        for skip_bad in [false, true] {
            assert_eq!(
                rated("t.csv", text, skip_bad).unwrap_err(),
                want.replace("t.csv", "DIR/t.csv")
            );
        }
    }
    // As an empty file.
    assert_eq!(
        csv(""),
        [
            "t.csv:1: empty file: expected a header row with match, player and rank or score"
                .to_string()
        ]
        .map(Err)
    );
    // A file of rows that are all bad holds rows: each is a bad match.
    assert_eq!(
        rated("t.csv", "match,player,rank\ng,a,1\n", true).unwrap(),
        (
            vec![],
            vec!["DIR/t.csv:2: match \"g\", field `match`: a match needs at least 2 entries, found 1".to_string()]
        )
    );
}
