//! Generates a large Quake 3 `games.log` for the `podium frags` benchmark: the real games
//! of the given logs, concatenated again and again, each copy with its players renamed
//! (`Zeh` becomes `Zeh~17`), so the output has many games and many distinct players like
//! a busy server's log of months.
//!
//! ```text
//! cargo run --release -p podium-cli --example gen_quake_log -- OUT SIZE_MB GROUPS LOG...
//! ```
//! `GROUPS` is how many renamed copies of the roster exist (copy i uses suffix i mod
//! GROUPS): players = roster size × GROUPS.

use std::collections::BTreeSet;
use std::fs;
use std::io::{BufWriter, Write};

/// A template line: literal pieces and, between them, the index of a roster name.
struct Template {
    pieces: Vec<Vec<u8>>,
    names: Vec<usize>,
}

fn names_of(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in text.lines() {
        if let Some(i) = line.find("ClientUserinfoChanged: ") {
            let rest = &line[i..];
            if let Some(n) = rest.find(" n\\") {
                let after = &rest[n + 3..];
                if let Some(end) = after.find('\\') {
                    if !after[..end].is_empty() {
                        names.insert(after[..end].to_string());
                    }
                }
            }
        }
    }
    names
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: gen_quake_log OUT SIZE_MB GROUPS LOG...");
        std::process::exit(2);
    }
    let out = &args[0];
    let size: u64 = args[1].parse::<u64>().expect("SIZE_MB") * 1_000_000;
    let groups: usize = args[2].parse::<usize>().expect("GROUPS").max(1);
    let mut text = String::new();
    for log in &args[3..] {
        let t = fs::read(log)?;
        text.push_str(&String::from_utf8_lossy(&t));
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    // Longest names first, so that a name inside another is not replaced inside it.
    let mut roster: Vec<String> = names_of(&text).into_iter().collect();
    roster.sort_by_key(|n| std::cmp::Reverse(n.len()));
    let mut templates = Vec::new();
    for line in text.lines() {
        let mut pieces = vec![Vec::new()];
        let mut names = Vec::new();
        let mut rest = line;
        'scan: while !rest.is_empty() {
            for (i, n) in roster.iter().enumerate() {
                // Names appear after `n\`, `killed `, before ` killed`/` by`, at line ends.
                if let Some(after) = rest.strip_prefix(n.as_str()) {
                    let prev = pieces.last().unwrap().last().copied();
                    let boundary_before = matches!(prev, None | Some(b'\\' | b' '));
                    let boundary_after =
                        after.is_empty() || after.starts_with('\\') || after.starts_with(' ');
                    if boundary_before && boundary_after {
                        names.push(i);
                        pieces.push(Vec::new());
                        rest = after;
                        continue 'scan;
                    }
                }
            }
            let c = rest.chars().next().unwrap();
            let mut buf = [0; 4];
            pieces
                .last_mut()
                .unwrap()
                .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            rest = &rest[c.len_utf8()..];
        }
        pieces.last_mut().unwrap().push(b'\n');
        templates.push(Template { pieces, names });
    }
    let mut w = BufWriter::with_capacity(1 << 20, fs::File::create(out)?);
    let mut written = 0u64;
    let mut copy = 0usize;
    let mut suffixed: Vec<Vec<u8>> = Vec::new();
    while written < size {
        let g = copy % groups;
        suffixed.clear();
        suffixed.extend(roster.iter().map(|n| format!("{n}~{g}").into_bytes()));
        for t in &templates {
            for (k, piece) in t.pieces.iter().enumerate() {
                w.write_all(piece)?;
                written += piece.len() as u64;
                if let Some(&n) = t.names.get(k) {
                    w.write_all(&suffixed[n])?;
                    written += suffixed[n].len() as u64;
                }
            }
        }
        copy += 1;
    }
    w.flush()?;
    eprintln!(
        "{out}: {written} bytes, {copy} copies of {} lines, {} players",
        templates.len(),
        roster.len() * groups.min(copy)
    );
    Ok(())
}
