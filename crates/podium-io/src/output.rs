//! Output files that never destroy what a command reads.
//!
//! [`Output::create`] opens what a command writes to: `-` is standard output; any other
//! name is a file, written whole into a temporary file beside it and renamed over it by
//! [`Output::commit`] only once everything was written, so that a failed run leaves the
//! old file (or none) in place. It refuses:
//!
//! - a file that is one of the command's inputs, however it is named (a link, `./`,
//!   another path to it): the same device and inode on Unix, the same canonical path
//!   elsewhere;
//! - anything but a regular file: a directory, a device (`/dev/full`), a pipe.
//!
//! [`distinct`] refuses two outputs of one command that name the same file, whether it
//! exists yet or not: the one written last would replace the other.
//!
//! A symbolic link is followed: the file it points to is replaced, the link stays.
//! What goes to standard output is held in a temporary file until [`Output::commit`] too:
//! a run that fails prints nothing of it.
//!
//! ```
//! use std::io::Write;
//! use podium_io::output::{Output, OutputError};
//!
//! let dir = std::env::temp_dir().join(format!("podium-output-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let input = dir.join("games.csv");
//! std::fs::write(&input, "match,player,rank\n")?;
//! let input = input.display().to_string();
//! // The input itself, as an output: refused, the file untouched.
//! let err = Output::create(&input, &[&input]).unwrap_err();
//! assert!(matches!(err, OutputError::IsInput { .. }));
//! assert_eq!(std::fs::read_to_string(&input)?, "match,player,rank\n");
//! // Another file: written when committed.
//! let report = dir.join("report.csv").display().to_string();
//! let mut out = Output::create(&report, &[&input])?;
//! out.write_all(b"a,b\n")?;
//! out.commit()?;
//! assert_eq!(std::fs::read_to_string(&report)?, "a,b\n");
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why an output cannot be written where asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// The output is one of the inputs.
    #[error("{path}: cannot write over {input}, which is read as an input")]
    IsInput {
        /// The output asked for.
        path: String,
        /// The input it is.
        input: String,
    },
    /// The output exists and is not a regular file.
    #[error("{path}: cannot write to {kind}; give a file name")]
    NotAFile {
        /// The output asked for.
        path: String,
        /// What it is: "a directory", "a device", …
        kind: &'static str,
    },
    /// A directory was asked for and something else is there.
    #[error("{path}: not a directory; give a directory to write into")]
    NotADirectory {
        /// The directory asked for.
        path: String,
    },
    /// Two outputs of one command name the same file: the one written last would
    /// replace the other.
    #[error("{}", same_file(first, first_path, second, second_path))]
    SameFile {
        /// What the first output is (an option such as `--save`).
        first: String,
        /// Its path as given.
        first_path: String,
        /// What the second output is.
        second: String,
        /// Its path as given.
        second_path: String,
    },
    /// The output cannot be written.
    #[error("cannot write {path}")]
    Io {
        /// The output asked for.
        path: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

/// The message of [`OutputError::SameFile`].
fn same_file(first: &str, first_path: &str, second: &str, second_path: &str) -> String {
    if first_path == second_path {
        format!("{first} and {second} both name {first_path}: give two files")
    } else {
        format!(
            "{first} {first_path} and {second} {second_path} name the same file: give two files"
        )
    }
}

/// Checks that no two of a command's `outputs`, each `(what, path)` (`what` an option
/// such as `--save`), name the same file, before anything is written: the same path, or
/// the same file by another name (`./`, a link, another path to its directory), whether
/// it exists yet or not. `-` (standard output) is not a file and is left out.
///
/// ```
/// use podium_io::output::{distinct, OutputError};
///
/// assert!(distinct(&[("--save", "league.json"), ("--history", "history.csv")]).is_ok());
/// assert!(distinct(&[("--save", "-"), ("--history", "-")]).is_ok());
/// let err = distinct(&[("--save", "same.out"), ("--history", "same.out")]).unwrap_err();
/// assert_eq!(err.to_string(), "--save and --history both name same.out: give two files");
/// let err = distinct(&[("--save", "same.out"), ("--history", "./same.out")]).unwrap_err();
/// assert!(matches!(err, OutputError::SameFile { .. }));
/// assert_eq!(
///     err.to_string(),
///     "--save same.out and --history ./same.out name the same file: give two files"
/// );
/// ```
///
/// # Errors
/// [`OutputError::SameFile`] naming the first two outputs that are one file.
pub fn distinct(outputs: &[(&str, &str)]) -> Result<(), OutputError> {
    let files: Vec<(&str, &str, Identity)> = outputs
        .iter()
        .filter(|(_, path)| *path != "-")
        .map(|&(what, path)| (what, path, Identity::of(Path::new(path))))
        .collect();
    for (i, (first, first_path, a)) in files.iter().enumerate() {
        if let Some((second, second_path, _)) = files[i + 1..]
            .iter()
            .find(|(_, path, b)| path == first_path || a == b)
        {
            return Err(OutputError::SameFile {
                first: (*first).to_string(),
                first_path: (*first_path).to_string(),
                second: (*second).to_string(),
                second_path: (*second_path).to_string(),
            });
        }
    }
    Ok(())
}

/// Which file a path names, whether it exists or not: the file's identity when it exists
/// ([`FileId`]: a link and its target, two hard links are one file), else its canonical
/// directory and its name.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    File(FileId),
    Path(PathBuf),
}

impl Identity {
    fn of(path: &Path) -> Identity {
        if let (Ok(meta), Ok(canonical)) = (fs::metadata(path), fs::canonicalize(path)) {
            return Identity::File(FileId::of(&meta, &canonical));
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        match (fs::canonicalize(dir), path.file_name()) {
            (Ok(dir), Some(name)) => Identity::Path(dir.join(name)),
            _ => Identity::Path(path.to_path_buf()),
        }
    }
}

/// Something a command writes to, committed only when complete (see the module docs).
#[derive(Debug)]
pub struct Output {
    /// The temporary file written to.
    out: BufWriter<File>,
    /// Where it goes on commit.
    to: Target,
    /// The temporary file's path, while it has one (removed if not committed).
    tmp: Option<PathBuf>,
}

#[derive(Debug)]
enum Target {
    Stdout,
    File {
        /// The file to replace (links followed).
        path: PathBuf,
        /// Its name as given, for messages.
        shown: String,
    },
}

impl Output {
    /// Opens `spec` for writing (`-` is standard output), refusing any of `inputs` (paths
    /// of files the command reads; `-` among them is ignored) and anything but a regular
    /// file.
    ///
    /// # Errors
    /// [`OutputError`] saying which input the output is, what it is if not a file, or why
    /// the temporary file beside it cannot be made.
    pub fn create(spec: &str, inputs: &[&str]) -> Result<Output, OutputError> {
        if spec == "-" {
            return Output::stdout().map_err(|source| OutputError::Io {
                path: "standard output".into(),
                source,
            });
        }
        let target = check(Path::new(spec), inputs)?;
        Output::open(target, spec.to_string())
    }

    /// As [`Output::create`] for a file named by a path (`-` is a file of that name),
    /// with the inputs' identities found once ([`Inputs`]): for a command that writes many
    /// files.
    ///
    /// # Errors
    /// As [`Output::create`].
    pub fn file(path: &Path, inputs: &Inputs) -> Result<Output, OutputError> {
        let target = inputs.check(path)?;
        Output::open(target, path.display().to_string())
    }

    /// The path of the file written on commit (links followed), `None` for standard output.
    #[must_use]
    pub fn path(&self) -> Option<&Path> {
        match &self.to {
            Target::Stdout => None,
            Target::File { path, .. } => Some(path),
        }
    }

    fn stdout() -> io::Result<Output> {
        let (file, path) = temporary(&std::env::temp_dir(), "stdout")?;
        // On Unix the open file outlives its name: nothing is left behind whatever
        // happens. Elsewhere the name goes on commit or drop.
        let tmp = if cfg!(unix) {
            fs::remove_file(&path)?;
            None
        } else {
            Some(path)
        };
        Ok(Output {
            out: BufWriter::new(file),
            to: Target::Stdout,
            tmp,
        })
    }

    fn open(path: PathBuf, shown: String) -> Result<Output, OutputError> {
        let io = |source| OutputError::Io {
            path: shown.clone(),
            source,
        };
        let (file, tmp) = beside(&path).map_err(io)?;
        // The new file keeps the permissions of the one it replaces.
        if let Ok(meta) = fs::metadata(&path) {
            fs::set_permissions(&tmp, meta.permissions()).map_err(io)?;
        }
        Ok(Output {
            out: BufWriter::new(file),
            to: Target::File { path, shown },
            tmp: Some(tmp),
        })
    }

    /// Puts what was written in place: renames the temporary file over the file, or copies
    /// it to standard output.
    ///
    /// # Errors
    /// The output cannot be written or renamed into place (the old file is then intact).
    pub fn commit(mut self) -> Result<(), OutputError> {
        let shown = match &self.to {
            Target::Stdout => "standard output".to_string(),
            Target::File { shown, .. } => shown.clone(),
        };
        let io = |source| OutputError::Io {
            path: shown.clone(),
            source,
        };
        self.out.flush().map_err(io)?;
        match &self.to {
            Target::Stdout => {
                let file = self.out.get_mut();
                file.seek(SeekFrom::Start(0)).map_err(io)?;
                let mut stdout = io::stdout().lock();
                io::copy(file, &mut stdout).map_err(io)?;
                stdout.flush().map_err(io)?;
            }
            Target::File { path, .. } => {
                let tmp = self
                    .tmp
                    .as_ref()
                    .expect("a file output has a temporary file");
                fs::rename(tmp, path).map_err(io)?;
                self.tmp = None;
            }
        }
        Ok(())
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = fs::remove_file(tmp);
        }
    }
}

/// An output file for writers that take a path rather than a stream (image encoders that
/// choose the format by the extension): they write [`OutputPath::path`], a new file beside
/// the output with the same extension, which [`OutputPath::commit`] renames over it. The
/// same checks as [`Output::create`]; standard output is not one.
#[derive(Debug)]
pub struct OutputPath {
    tmp: PathBuf,
    target: PathBuf,
    shown: String,
    committed: bool,
}

impl OutputPath {
    /// Checks `spec` as [`Output::create`] does and reserves the temporary file.
    ///
    /// # Errors
    /// As [`Output::create`]; `-` is refused.
    pub fn create(spec: &str, inputs: &[&str]) -> Result<OutputPath, OutputError> {
        if spec == "-" {
            return Err(OutputError::NotAFile {
                path: spec.into(),
                kind: "standard output",
            });
        }
        let target = check(Path::new(spec), inputs)?;
        let (_, tmp) = beside(&target).map_err(|source| OutputError::Io {
            path: spec.into(),
            source,
        })?;
        Ok(OutputPath {
            tmp,
            target,
            shown: spec.into(),
            committed: false,
        })
    }

    /// The file to write.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Renames the file written over the output.
    ///
    /// # Errors
    /// The rename fails (the old file is then intact).
    pub fn commit(mut self) -> Result<(), OutputError> {
        if let Ok(meta) = fs::metadata(&self.target) {
            let _ = fs::set_permissions(&self.tmp, meta.permissions());
        }
        fs::rename(&self.tmp, &self.target).map_err(|source| OutputError::Io {
            path: self.shown.clone(),
            source,
        })?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for OutputPath {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// The files a command reads, which no output may replace: their identities, found once.
#[derive(Debug, Default)]
pub struct Inputs {
    files: Vec<(FileId, String)>,
}

impl Inputs {
    /// The files of `paths` that exist (`-` is standard input, not a file).
    #[must_use]
    pub fn new(paths: &[&str]) -> Inputs {
        let files = paths
            .iter()
            .filter(|p| **p != "-")
            .filter_map(|p| {
                let meta = fs::metadata(p).ok()?;
                let canonical = fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p));
                Some((FileId::of(&meta, &canonical), (*p).to_string()))
            })
            .collect();
        Inputs { files }
    }

    /// As [`check`].
    ///
    /// # Errors
    /// As [`check`].
    pub fn check(&self, path: &Path) -> Result<PathBuf, OutputError> {
        check_against(path, self)
    }
}

/// Checks that `path` may be written as an output of a command reading `inputs`; returns
/// the file to replace (links followed).
///
/// # Errors
/// As [`Output::create`].
pub fn check(path: &Path, inputs: &[&str]) -> Result<PathBuf, OutputError> {
    check_against(path, &Inputs::new(inputs))
}

fn check_against(path: &Path, inputs: &Inputs) -> Result<PathBuf, OutputError> {
    let shown = path.display().to_string();
    let io = |source| OutputError::Io {
        path: shown.clone(),
        source,
    };
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // A link to nothing would be replaced by a file: refused.
            if fs::symlink_metadata(path).is_ok() {
                return Err(io(io::Error::new(
                    io::ErrorKind::NotFound,
                    "a symbolic link to a file that does not exist",
                )));
            }
            return Ok(path.to_path_buf());
        }
        Err(e) => return Err(io(e)),
    };
    if !meta.is_file() {
        return Err(OutputError::NotAFile {
            path: shown,
            kind: kind(&meta),
        });
    }
    let target = fs::canonicalize(path).map_err(io)?;
    let id = FileId::of(&meta, &target);
    if let Some((_, input)) = inputs.files.iter().find(|(f, _)| *f == id) {
        return Err(OutputError::IsInput {
            path: shown,
            input: input.clone(),
        });
    }
    Ok(target)
}

/// What a file that is not a regular one is, in words.
fn kind(meta: &fs::Metadata) -> &'static str {
    if meta.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
        if t.is_fifo() {
            return "a pipe";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "something other than a regular file"
}

/// Which file a path names: device and inode on Unix, the canonical path elsewhere.
#[derive(Debug, PartialEq, Eq, Hash)]
pub(crate) enum FileId {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg(not(unix))]
    Path(PathBuf),
}

impl FileId {
    #[allow(unused_variables)]
    pub(crate) fn of(meta: &fs::Metadata, canonical: &Path) -> FileId {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            FileId::Inode(meta.dev(), meta.ino())
        }
        #[cfg(not(unix))]
        {
            FileId::Path(canonical.to_path_buf())
        }
    }
}

/// A new file beside `path` (in its directory), named after it.
fn beside(path: &Path) -> io::Result<(File, PathBuf)> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    temporary(dir, &name)
}

/// A new file in `dir` named after `name`, made by this process only.
fn temporary(dir: &Path, name: &str) -> io::Result<(File, PathBuf)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        // Hidden, and ending as the output does (its extension kept).
        let path = dir.join(format!(".podium-{}-{n}.{name}", std::process::id()));
        match OpenOptions::new()
            .write(true)
            .read(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => return Ok((f, path)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Dir(PathBuf);

    impl Dir {
        fn new(name: &str) -> Dir {
            let p =
                std::env::temp_dir().join(format!("podium-output-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&p);
            fs::create_dir_all(&p).unwrap();
            Dir(p)
        }

        fn file(&self, name: &str, text: &str) -> String {
            let p = self.0.join(name);
            fs::write(&p, text).unwrap();
            p.display().to_string()
        }

        fn path(&self, name: &str) -> String {
            self.0.join(name).display().to_string()
        }

        /// The names in the directory, sorted.
        fn names(&self) -> Vec<String> {
            let mut v: Vec<String> = fs::read_dir(&self.0)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn an_input_is_never_an_output_however_it_is_named() {
        let d = Dir::new("inputs");
        let input = d.file("in.csv", "x");
        let dotted = format!("{}/./in.csv", d.0.display());
        for out in [input.clone(), dotted] {
            let err = Output::create(&out, &["-", &input]).unwrap_err();
            assert!(matches!(err, OutputError::IsInput { .. }), "{err}");
            assert_eq!(
                err.to_string(),
                format!("{out}: cannot write over {input}, which is read as an input")
            );
        }
        #[cfg(unix)]
        {
            let link = d.0.join("link.csv");
            std::os::unix::fs::symlink(&input, &link).unwrap();
            let hard = d.0.join("hard.csv");
            fs::hard_link(&input, &hard).unwrap();
            for out in [&link, &hard] {
                let err = Output::create(&out.display().to_string(), &[&input]).unwrap_err();
                assert!(matches!(err, OutputError::IsInput { .. }), "{err}");
            }
        }
        assert_eq!(fs::read_to_string(&input).unwrap(), "x");
        assert!(!d.names().iter().any(|n| n.starts_with(".podium-")));
    }

    #[test]
    fn two_outputs_naming_one_file_are_refused_whether_it_exists_or_not() {
        let d = Dir::new("distinct");
        let out = d.path("same.out");
        let dotted = format!("{}/./same.out", d.0.display());
        let same = |a: &str, b: &str| {
            let err = distinct(&[("--save", a), ("--history", b)]).unwrap_err();
            assert!(matches!(err, OutputError::SameFile { .. }), "{err}");
            err.to_string()
        };
        for exists in [false, true] {
            if exists {
                fs::write(&out, "old").unwrap();
            }
            assert_eq!(
                same(&out, &out),
                format!("--save and --history both name {out}: give two files")
            );
            assert_eq!(
                same(&out, &dotted),
                format!("--save {out} and --history {dotted} name the same file: give two files")
            );
        }
        #[cfg(unix)]
        {
            let link = d.0.join("link.out");
            std::os::unix::fs::symlink(&out, &link).unwrap();
            let hard = d.0.join("hard.out");
            fs::hard_link(&out, &hard).unwrap();
            for other in [&link, &hard] {
                same(&out, &other.display().to_string());
            }
            // A directory named through a link, the file not there yet.
            let sub = d.0.join("sub");
            fs::create_dir(&sub).unwrap();
            let via = d.0.join("via");
            std::os::unix::fs::symlink(&sub, &via).unwrap();
            same(
                &sub.join("new.out").display().to_string(),
                &via.join("new.out").display().to_string(),
            );
        }
        // Other files, and standard output twice, are fine; nothing was written.
        distinct(&[
            ("--save", &out),
            ("--history", &d.path("other.out")),
            ("--plot", "-"),
        ])
        .unwrap();
        distinct(&[("--save", "-"), ("--history", "-")]).unwrap();
        assert_eq!(fs::read_to_string(&out).unwrap(), "old");
    }

    #[test]
    fn only_regular_files_are_written() {
        let d = Dir::new("kinds");
        let err = Output::create(&d.0.display().to_string(), &[]).unwrap_err();
        assert!(
            matches!(
                err,
                OutputError::NotAFile {
                    kind: "a directory",
                    ..
                }
            ),
            "{err}"
        );
        #[cfg(unix)]
        {
            let err = Output::create("/dev/null", &[]).unwrap_err();
            assert!(
                matches!(
                    err,
                    OutputError::NotAFile {
                        kind: "a device",
                        ..
                    }
                ),
                "{err}"
            );
            use std::os::unix::fs::FileTypeExt;
            assert!(fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device());
        }
    }

    #[test]
    fn a_file_is_replaced_only_when_committed() {
        let d = Dir::new("commit");
        let path = d.file("out.csv", "old");
        {
            let mut out = Output::create(&path, &[]).unwrap();
            out.write_all(b"half").unwrap();
            // Dropped without commit: the old file stays, no temporary file is left.
        }
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(d.names(), ["out.csv"]);
        let mut out = Output::create(&path, &[]).unwrap();
        out.write_all(b"new").unwrap();
        out.commit().unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(d.names(), ["out.csv"]);
        // A new file in a new place.
        let fresh = d.path("fresh.csv");
        let mut out = Output::create(&fresh, &[&path]).unwrap();
        out.write_all(b"1").unwrap();
        out.commit().unwrap();
        assert_eq!(fs::read_to_string(&fresh).unwrap(), "1");
    }

    #[test]
    fn a_path_output_keeps_the_extension_and_is_renamed_on_commit() {
        let d = Dir::new("path");
        let input = d.file("in.csv", "x");
        assert!(OutputPath::create(&input, &[&input]).is_err());
        assert!(OutputPath::create("-", &[]).is_err());
        let png = d.path("chart.png");
        {
            let out = OutputPath::create(&png, &[&input]).unwrap();
            assert_eq!(out.path().extension().unwrap(), "png");
            fs::write(out.path(), "half").unwrap();
        }
        assert_eq!(d.names(), ["in.csv"]);
        let out = OutputPath::create(&png, &[&input]).unwrap();
        fs::write(out.path(), "image").unwrap();
        out.commit().unwrap();
        assert_eq!(fs::read_to_string(&png).unwrap(), "image");
        assert_eq!(d.names(), ["chart.png", "in.csv"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_followed_and_kept() {
        let d = Dir::new("link");
        let target = d.file("target.csv", "old");
        let link = d.0.join("link.csv");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let mut out = Output::create(&link.display().to_string(), &[]).unwrap();
        out.write_all(b"new").unwrap();
        out.commit().unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        // A link to nothing is refused: it would become a file.
        let dangling = d.0.join("dangling.csv");
        std::os::unix::fs::symlink(d.0.join("nothing"), &dangling).unwrap();
        assert!(Output::create(&dangling.display().to_string(), &[]).is_err());
    }
}
