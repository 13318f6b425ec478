//! Quake 3 `games.log` reader (ioq3 `g_log`, the OSP variant, OpenArena's CTF lines).
//!
//! The log is read **line by line** and every line is thrown away once parsed: memory
//! holds the names of the players seen (interned once), the client slots of the current
//! game and one line buffer of at most [`MAX_LINE`] bytes. A line longer than that is
//! skipped and counted; its first bytes and its length are listed with the skipped lines.
//!
//! Two layers:
//! - [`QuakeParser`]: a push parser. [`feed_line`](QuakeParser::feed_line) takes one
//!   line (without its newline) and queues the [`QuakeEvent`]s it produced;
//!   [`next_event`](QuakeParser::next_event) hands them out. Names of players and weapons
//!   are interned: events carry [`PlayerRef`]/[`WeaponRef`], resolved with
//!   [`player_name`](QuakeParser::player_name) and [`weapon_name`](QuakeParser::weapon_name).
//! - [`QuakeLog`]: reads any [`Read`] to its end through a [`LineReader`] and a parser;
//!   an iterator of events. `podium frags --follow` drives the two layers itself to keep
//!   reading a growing file.
//!
//! The log is UTF-8 text: a byte-order mark before its first line is skipped, and a log
//! in UTF-16 or UTF-32 is refused at its first line ([`NotUtf8`]), as every reader of
//! podium does. What is understood (everything else is counted in [`LogSummary`], never
//! fatal):
//!
//! | line | meaning |
//! |---|---|
//! | `InitGame: \k\v…` | a game starts; `g_gametype` (tolerating `\= 0`), `mapname` |
//! | `ShutdownGame:` | the game ends; an `InitGame` while a game is open ends it as *cut off* |
//! | `ClientConnect: id` | a client slot is (re)used by a new player |
//! | `ClientDisconnect: id` | the slot is free (its player leaves their team) |
//! | `ClientUserinfoChanged: id n\name\t\team…` | a player's name and team; a new name on the same slot is a *rename* |
//! | `Kill: k v mod: text` | a frag; `k = 1022` is `<world>`; `k = v` a suicide; OSP adds a trailing field |
//! | `score: s  ping: p  client: id name` | final scoreboard |
//! | `red:r  blue:b` | final team scores |
//! | `Exit: reason` | why the game ended |
//! | `ServerTime: YYYYMMDDhhmmss …` (OSP) | the date, for decay per day |
//! | `CTF: id team event: text` (OpenArena) | flag taken (0), captured (1), returned (2), carrier fragged (3) |
//! | `----…` | separator |
//!
//! Known lines that carry nothing for rankings (`Item:`, `say:`, `ClientBegin:`, OSP's
//! `Weapon_Stats:`, `Warmup:`, …) are counted as *ignored*. A line whose timestamp is
//! followed by another timestamp (`26  0:00 ----`, line 97 of the widely copied
//! `qgames.log`: the logger overwrote a `ShutdownGame` line) is *repaired*: it is read
//! from the second timestamp on.
//!
//! The parts: the events a log yields (`events.rs`), the scanning of a line's fields
//! (`fields.rs`), the parser (`parser.rs`), the line reader (`lines.rs`); on top of them,
//! the frag ranking of a log ([`ranking`]) and its HTML stats site ([`site`]).

mod events;
mod fields;
mod lines;
mod parser;
pub mod ranking;
pub mod site;

use std::io::{self, Read};

pub use events::{
    FlagAction, GameEnd, GameInfo, GameType, Killer, LogSummary, PlayerRef, QuakeEvent,
    SkippedLine, Team, WeaponRef,
};
pub use lines::{Line, LineReader, NotUtf8, OVERLONG_HEAD};
pub use parser::QuakeParser;

/// Lines longer than this many bytes are skipped (and counted as overlong).
pub const MAX_LINE: usize = 1 << 16;

/// Longer player or weapon names are malformed (Quake 3 allows 36 characters): this
/// bounds what noise can make the reader remember.
pub const MAX_NAME: usize = 128;

/// Client id of `<world>` in `Kill` lines.
pub const WORLD: u32 = 1022;

/// Reads a whole log: an iterator of events over any byte source.
///
/// ```
/// use podium_io::quake::{QuakeEvent, QuakeLog, Killer};
/// let log = "  0:00 InitGame: \\g_gametype\\0\\mapname\\q3dm17\n\
///            \x20 0:05 ClientUserinfoChanged: 2 n\\Ann\\t\\0\n\
///            \x20 0:06 ClientUserinfoChanged: 3 n\\Bo\\t\\0\n\
///            \x20 0:09 Kill: 2 3 7: Ann killed Bo by MOD_ROCKET_SPLASH\n\
///            \x20 0:10 Kill: 1022 2 22: <world> killed Ann by MOD_TRIGGER_HURT\n\
///            \x20 0:11 ShutdownGame:\n";
/// let mut log = QuakeLog::new(log.as_bytes());
/// let kills: Vec<_> = log
///     .by_ref()
///     .filter_map(|e| match e.unwrap() {
///         QuakeEvent::Kill { killer, victim, .. } => Some((killer, victim)),
///         _ => None,
///     })
///     .collect();
/// assert_eq!(kills.len(), 2);
/// assert_eq!(kills[1].0, Killer::World);
/// assert_eq!(log.parser().player_name(kills[0].1), "Bo");
/// assert_eq!(log.parser().summary().kills, 2);
/// ```
#[derive(Debug)]
pub struct QuakeLog<R> {
    lines: LineReader<R>,
    parser: QuakeParser,
    done: bool,
    base_bytes: u64,
}

impl<R: Read> QuakeLog<R> {
    /// Reads `input` to its end.
    pub fn new(input: R) -> Self {
        QuakeLog {
            lines: LineReader::new(input),
            parser: QuakeParser::new(),
            done: false,
            base_bytes: 0,
        }
    }

    /// Continues with an existing parser (player names stay interned across files).
    pub fn with_parser(input: R, parser: QuakeParser) -> Self {
        QuakeLog {
            lines: LineReader::new(input),
            base_bytes: parser.summary().bytes,
            parser,
            done: false,
        }
    }

    /// The parser: names, weapons, summary.
    #[must_use]
    pub fn parser(&self) -> &QuakeParser {
        &self.parser
    }

    /// Gives the parser back (to read another file with the same names).
    #[must_use]
    pub fn into_parser(self) -> QuakeParser {
        self.parser
    }
}

impl<R: Read> Iterator for QuakeLog<R> {
    type Item = io::Result<QuakeEvent>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(e) = self.parser.next_event() {
                return Some(Ok(e));
            }
            if self.done {
                return None;
            }
            let line = self.lines.next_line();
            match line {
                Ok(Line::Full(line)) => self.parser.feed_line(line),
                Ok(Line::Overlong { head, len }) => self.parser.overlong_line(head, len),
                Ok(Line::End) => {
                    match self.lines.take_partial() {
                        Ok(Line::Full(last)) => self.parser.feed_line(last),
                        Ok(Line::Overlong { head, len }) => self.parser.overlong_line(head, len),
                        Ok(Line::End) => {}
                        Err(e) => {
                            self.done = true;
                            return Some(Err(e));
                        }
                    }
                    self.parser
                        .set_bytes(self.base_bytes + self.lines.consumed());
                    self.parser.finish();
                    self.done = true;
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}
