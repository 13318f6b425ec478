//! JSON Lines a user gets wrong, through the binary: piped into `-` without
//! `--input-format jsonl`, and a factor field named in another case than `--factor`.

use std::io::Write;
use std::process::{Command, Stdio};

const LINES: &str = "{\"match\":\"g1\",\"results\":[{\"player\":\"ann\",\"rank\":1,\"car\":\"red\"},{\"player\":\"bo\",\"rank\":2,\"car\":\"blue\"}]}\n";

/// `podium ARGS` with `stdin` on standard input: exit code, stdout, stderr.
fn podium(args: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_podium"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn json_lines_on_standard_input_read_as_csv_say_how_to_read_them() {
    let (code, out, err) = podium(&["rate", "-"], LINES);
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
        LINES,
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("position,player,rating"), "{out}");
    assert!(out.contains("\nCar,red,"), "{out}");
    assert!(out.contains("\nCar,blue,"), "{out}");
}
