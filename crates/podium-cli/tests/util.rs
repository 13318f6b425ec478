//! Helpers shared by the integration test binaries: run `podium`, make scratch dirs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The `podium` binary under test.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_podium"))
}

/// The result of one run of `podium`.
#[derive(Debug)]
pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(o: Output) -> Run {
        Run {
            status: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }

    /// Asserts success and returns standard output.
    #[track_caller]
    pub fn ok(&self) -> &str {
        assert_eq!(
            self.status, 0,
            "podium failed:\n{}\n{}",
            self.stderr, self.stdout
        );
        &self.stdout
    }

    /// Asserts failure (no panic) and returns standard error.
    #[track_caller]
    pub fn err(&self) -> &str {
        assert_ne!(
            self.status, 0,
            "podium should have failed:\n{}",
            self.stdout
        );
        assert!(
            !self.stderr.contains("panicked"),
            "podium panicked:\n{}",
            self.stderr
        );
        &self.stderr
    }
}

/// Runs `podium` with arguments.
pub fn podium<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Run {
    Run::from(
        bin()
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("podium runs"),
    )
}

/// Runs `podium` with arguments and the log filter `RUST_LOG=filter`.
pub fn podium_logged<S: AsRef<std::ffi::OsStr>>(args: &[S], filter: &str) -> Run {
    Run::from(
        bin()
            .args(args)
            .env("RUST_LOG", filter)
            .stdin(Stdio::null())
            .output()
            .expect("podium runs"),
    )
}

/// Runs `podium` with arguments and `input` on standard input.
pub fn podium_stdin<S: AsRef<std::ffi::OsStr>>(args: &[S], input: &str) -> Run {
    use std::io::Write;
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("podium runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    Run::from(child.wait_with_output().unwrap())
}

/// A fresh scratch directory, removed when dropped.
pub struct Dir(pub PathBuf);

impl Dir {
    pub fn new(name: &str) -> Dir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "podium-test-{}-{}-{}",
            name,
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }

    /// Writes a file and returns its path as a string.
    pub fn file(&self, name: &str, contents: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, contents).unwrap();
        p.to_string_lossy().into_owned()
    }

    pub fn path(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The repository's root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// `../shared/data` beside the repository (the real datasets), or a clear failure.
/// `PODIUM_SHARED_DATA` points elsewhere.
pub fn shared_data() -> PathBuf {
    let p = std::env::var_os("PODIUM_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("../shared/data"));
    assert!(
        p.is_dir(),
        "the real-data suite needs the datasets at {} (a checkout of shared/ beside the repository)",
        p.display()
    );
    p
}

/// The labels of an SVG chart's text elements, in document order.
pub fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = &t[t.find('>')? + 1..t.find("</text>")?];
            Some(body.trim().to_string())
        })
        .collect()
}

/// Parses `podium ... --format csv` output into rows of named fields.
pub fn csv_rows(text: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let headers = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            headers
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// A running `podium serve` on a free loopback port with database `db`, killed (SIGKILL)
/// when dropped.
pub struct Server {
    /// The server process.
    pub child: std::process::Child,
    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub base: String,
}

impl Server {
    pub fn start(db: &str) -> Server {
        use std::io::{BufRead, BufReader};
        let mut child = bin()
            .args(["serve", "--db", db, "--addr", "127.0.0.1:0"])
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("podium serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let base = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .trim_end_matches('/')
            .to_string();
        Server { child, base }
    }

    /// Kills the server at once (SIGKILL on Unix) and waits for it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}
