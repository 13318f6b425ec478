//! Inputs that hold no match, are not UTF-8 text or are not in the format read, through
//! the binary: an empty JSON Lines file to every command that rates one, a UTF-16 file,
//! control characters in a header, converters' logs saved with a byte-order mark, and
//! JSON Lines piped in without `--input-format jsonl`.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory of this test process.
fn scratch() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "podium-cli-encodings-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `path` written with `bytes`, as the argument that names it.
fn file(path: PathBuf, bytes: &[u8]) -> String {
    std::fs::write(&path, bytes).unwrap();
    path.display().to_string()
}

/// `podium ARGS` with `stdin` on standard input: exit code, stdout, stderr (the bytes as
/// written, so that a NUL byte would be seen).
fn podium(args: &[&str], stdin: &[u8]) -> (Option<i32>, String, Vec<u8>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_podium"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        out.stderr,
    )
}

/// `podium ARGS` that fails with exactly `message` on standard error, and prints nothing
/// else.
fn refused(args: &[&str], stdin: &[u8], message: &str) {
    let (code, out, err) = podium(args, stdin);
    assert_eq!(
        String::from_utf8(err).unwrap(),
        format!("error: {message}\n"),
        "{args:?}"
    );
    assert_eq!(code, Some(2), "{args:?}");
    assert_eq!(out, "", "{args:?}");
}

const EXPECTED_LINE: &str = "expected one match per line, like {\"match\":..,\"results\":[..]}";

#[test]
fn an_empty_json_lines_file_is_refused_by_every_command_that_reads_it() {
    let dir = scratch();
    let empty = file(dir.join("empty.jsonl"), b"");
    let message = format!("{empty}:1: empty file: {EXPECTED_LINE}");
    for command in ["rate", "history", "backtest"] {
        refused(&[command, &empty], b"", &message);
    }
    let blank = file(dir.join("blank.jsonl"), b"\n  \n\n");
    refused(
        &["rate", &blank],
        b"",
        &format!("{blank}:1: the file holds no matches: its 3 lines are blank ({EXPECTED_LINE})"),
    );
    refused(
        &["rate", "--input-format", "jsonl", "-"],
        b"",
        &format!("<stdin>:1: empty file: {EXPECTED_LINE}"),
    );
    // As an empty CSV file is.
    let csv = file(dir.join("empty.csv"), b"");
    refused(
        &["rate", &csv],
        b"",
        &format!("{csv}:1: empty file: expected a header row with match, player and rank or score"),
    );
}

/// `text` in UTF-16, little-endian, after its byte-order mark (as `iconv -t UTF-16`
/// writes it).
fn utf16(text: &str) -> Vec<u8> {
    std::iter::once(0xfeff)
        .chain(text.encode_utf16())
        .flat_map(u16::to_le_bytes)
        .collect()
}

#[test]
fn a_utf16_file_is_named_as_such_without_raw_nul_bytes() {
    let dir = scratch();
    let message = "the file is not UTF-8 text: it starts with a UTF-16 (little-endian) byte-order mark; expected UTF-8 text (convert it with `iconv -f UTF-16 -t UTF-8`)";
    let csv = file(
        dir.join("u16.csv"),
        &utf16("time,match,player,rank\n2024-01-01,g1,ann,1\n2024-01-01,g1,bo,2\n"),
    );
    refused(&["rate", &csv], b"", &format!("{csv}:1: {message}"));
    let jsonl = file(
        dir.join("u16.jsonl"),
        &utf16("{\"match\":\"g1\",\"results\":[{\"player\":\"ann\",\"rank\":1},{\"player\":\"bo\",\"rank\":2}]}\n"),
    );
    refused(&["rate", &jsonl], b"", &format!("{jsonl}:1: {message}"));
    // Without its mark, the NUL bytes say so.
    let bare: Vec<u8> = "match,player,rank\ng1,ann,1\ng1,bo,2\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    refused(
        &["rate", "-"],
        &bare,
        "<stdin>:1: the file is not UTF-8 text: its first line has NUL bytes between its characters, so it is probably UTF-16 (little-endian); expected UTF-8 text (convert it with `iconv -f UTF-16LE -t UTF-8`)",
    );
}

#[test]
fn control_characters_of_a_header_are_shown_escaped() {
    refused(
        &["rate", "-"],
        b"game,pl\x1b[2Jayer,rank\ng1,ann,1\n",
        "<stdin>:1: header has no `match` column (found: game,pl\\u{1b}[2Jayer,rank); expected match, player and rank or score",
    );
}

#[test]
fn converters_read_a_log_saved_with_a_byte_order_mark() {
    let dir = scratch();
    let log = "2030-05-07 : 10 : ann 10, bo 8\n";
    let plain = file(dir.join("catan.txt"), log.as_bytes());
    let marked = file(
        dir.join("bom-catan.txt"),
        format!("\u{feff}{log}").as_bytes(),
    );
    let want = "match,player,rank,score,team,time,weight\n2030-05-07#1,ann,1,,,2030-05-07,\n2030-05-07#1,bo,2,,,2030-05-07,\n";
    for log in [&plain, &marked] {
        let (code, out, err) = podium(&["import", "catan", log], b"");
        assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&err));
        assert_eq!(out, want);
    }
    let standings = dir.join("cfb");
    std::fs::create_dir_all(&standings).unwrap();
    file(
        standings.join("1.txt"),
        "\u{feff}3\nann 1 1\nbo 2 3\ncy 2 3\n".as_bytes(),
    );
    let (code, out, err) = podium(
        &["import", "codeforces", &standings.display().to_string()],
        b"",
    );
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&err));
    assert_eq!(
        out,
        "match,player,rank,score,team,time,weight\n1,ann,1,,,,\n1,bo,2,,,,\n1,cy,2,,,,\n"
    );
}

/// Two results with a factor field `car`.
const LINES: &str = "{\"match\":\"g1\",\"results\":[{\"player\":\"ann\",\"rank\":1,\"car\":\"red\"},{\"player\":\"bo\",\"rank\":2,\"car\":\"blue\"}]}\n";

#[test]
fn json_lines_on_standard_input_read_as_csv_say_how_to_read_them() {
    let (code, out, err) = podium(&["rate", "-"], LINES.as_bytes());
    let err = String::from_utf8(err).unwrap();
    assert_eq!(code, Some(2), "{out}{err}");
    assert_eq!(out, "");
    assert_eq!(
        err,
        "error: <stdin>:1: the first line is a JSON object (`{\"match\":\"g1\"…`), not a header of match, player and rank or score: the file looks like JSON Lines, one match per line; read it as such with `--input-format jsonl` (in Python `format=\"jsonl\"`)\n"
    );
    // Read as the message says, the same input is rated, its factor field found in
    // another case than the one asked for.
    let (code, out, err) = podium(
        &[
            "rate",
            "-",
            "--input-format",
            "jsonl",
            "--factor",
            "Car",
            "--factors",
            "--format",
            "csv",
        ],
        LINES.as_bytes(),
    );
    let err = String::from_utf8(err).unwrap();
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("position,player,rating"), "{out}");
    assert!(out.contains("\nCar,red,"), "{out}");
    assert!(out.contains("\nCar,blue,"), "{out}");
}
