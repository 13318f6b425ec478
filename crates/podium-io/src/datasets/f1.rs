//! Formula 1 results in the Ergast schema (`races.csv`, `results.csv`, `drivers.csv`,
//! `constructors.csv`, as in the Kaggle "Formula 1 World Championship" data and its
//! mirrors).
//!
//! Every race with results becomes one match:
//! - the race's id is `YEAR-ROUND NAME` (e.g. `2009-01 Australian Grand Prix`) and its
//!   time the race date; races are returned in date order (then by round);
//! - each driver finishes at `positionOrder`, the full finishing order including
//!   retirements; equal `positionOrder`s (shared drives of the 1950s) are ties;
//! - with [`read_scores`], when `results.csv` has `laps` and `milliseconds` columns and
//!   the race's winner has both, every driver's finish is a score in seconds, minus the time behind the
//!   winner: 0 for the winner; otherwise the larger of the estimate (the gap on the
//!   clock for a car on the lead lap; for a car laps down, or out, its missing laps times
//!   the winner's mean lap time) and the gap of the driver listed above plus [`MIN_GAP`],
//!   so every driver is at least [`MIN_GAP`] behind the one above him (shared places
//!   share a score) and the scores order the drivers exactly as `positionOrder` does.
//!   Races whose winner has no time keep their places as ranks;
//! - a driver listed more than once in one race (he drove two cars) keeps his best place;
//! - drivers are named by `driverRef` (`hamilton`, `michael_schumacher`), readable and
//!   unique; should two drivers share one, the later in `drivers.csv` gets `-<driverId>`
//!   appended, or, should that be another driver's `driverRef` (or a name given already),
//!   the first free of `-<driverId>-2`, `-<driverId>-3`, ...: a driver's own `driverRef`
//!   is never given to another (constructors are named the same way);
//! - each driver's entry carries the factor `constructor` ([`podium::factor`]): the
//!   `constructorRef` of the car he drove (`ferrari`, `mclaren`), one factor for the
//!   constructor's whole history;
//! - races without results (scheduled, not yet run) are left out.
//!
//! ```
//! use podium_io::datasets::f1;
//! let races = "raceId,year,round,circuitId,name,date\n7,1950,1,9,\"British Grand Prix\",\"1950-05-13\"\n";
//! let results = "resultId,raceId,driverId,positionOrder\n1,7,1,2\n2,7,2,1\n";
//! let results = "resultId,raceId,driverId,constructorId,positionOrder\n1,7,1,2,2\n2,7,2,1,1\n";
//! let drivers = "driverId,driverRef\n1,\"fangio\"\n2,\"farina\"\n";
//! let constructors = "constructorId,constructorRef\n1,\"alfa\"\n2,\"maserati\"\n";
//! let races = f1::read(
//!     ("races.csv", races.as_bytes()),
//!     ("results.csv", results.as_bytes()),
//!     ("drivers.csv", drivers.as_bytes()),
//!     ("constructors.csv", constructors.as_bytes()),
//! )
//! .unwrap();
//! assert_eq!(races[0].id(), "1950-01 British Grand Prix");
//! assert_eq!(races[0].entries()[0].members[0].player, "farina");
//! assert_eq!(races[0].entries()[0].factors[0].to_string(), "constructor=alfa");
//! ```

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::io::Read;

use podium::{Factor, Finish, Match, ResultRow};

use super::{field_error, match_error};
use crate::error::{escape_controls, ReadError, Wide};
use crate::time::parse_time;

/// A source that notes where each line begins, so that a record's line is found from its
/// byte offset: the `csv` crate's own line count ([`csv::Position::line`]) falls one
/// behind per line in a file whose lines end in `\r\n`, where a record's offset is that
/// of the `\n` ending the line before it.
struct Lines<R> {
    inner: R,
    /// Bytes read so far.
    read: u64,
    /// Line breaks (`\n`) read so far.
    breaks: u64,
    /// Whether the bytes since the last `\n` (or the start) are all `\r`.
    at_start: bool,
    /// The offset and 1-based number of the first byte of each line that is not a line
    /// break (`\r` or `\n`): where a record on that line begins, in order.
    starts: Vec<(u64, u64)>,
}

impl<R> Lines<R> {
    fn new(inner: R) -> Lines<R> {
        Lines {
            inner,
            read: 0,
            breaks: 0,
            at_start: true,
            starts: Vec::new(),
        }
    }

    /// The line of a record at byte `offset`: that of the first byte at or after it that
    /// is not a line break (the blank lines and line breaks before a record are skipped).
    fn line(&self, offset: u64) -> u64 {
        let i = self.starts.partition_point(|&(at, _)| at < offset);
        self.starts
            .get(i)
            .map_or(self.breaks + 1, |&(_, line)| line)
    }
}

impl<R: Read> Read for Lines<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        for (i, &b) in buf[..n].iter().enumerate() {
            match b {
                b'\n' => {
                    self.breaks += 1;
                    self.at_start = true;
                }
                b'\r' => {}
                _ if self.at_start => {
                    self.starts.push((self.read + i as u64, self.breaks + 1));
                    self.at_start = false;
                }
                _ => {}
            }
        }
        self.read += n as u64;
        Ok(n)
    }
}

/// One CSV table with its columns found by name.
struct Table<R: Read> {
    file: String,
    reader: csv::Reader<Lines<R>>,
    header: csv::StringRecord,
}

impl<R: Read> Table<R> {
    fn open(file: &str, input: R) -> Result<Self, ReadError> {
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .flexible(true)
            .from_reader(Lines::new(input));
        // A header in UTF-16 or UTF-32 is said to be so, before it is read as text.
        let raw = match reader.byte_headers() {
            Ok(raw) => raw.clone(),
            Err(e) => return Err(csv_error(file, e, reader.get_ref())),
        };
        if let Some(wide) = Wide::of_header(raw.iter()) {
            return Err(wide.error(file, 1));
        }
        let header = match reader.headers() {
            Ok(header) => header.clone(),
            Err(e) => return Err(csv_error(file, e, reader.get_ref())),
        };
        Ok(Table {
            file: file.to_string(),
            reader,
            header,
        })
    }

    /// The index of column `name`.
    fn column(&self, name: &str) -> Result<usize, ReadError> {
        self.header
            .iter()
            .position(|h| h.trim_start_matches('\u{feff}') == name)
            .ok_or_else(|| ReadError::Format {
                file: self.file.clone(),
                line: 1,
                message: format!(
                    "header has no `{name}` column (found: {})",
                    escape_controls(&self.header.iter().collect::<Vec<_>>().join(","))
                ),
            })
    }

    /// Calls `f` with each record and its line.
    fn each(
        &mut self,
        mut f: impl FnMut(&str, u64, &csv::StringRecord) -> Result<(), ReadError>,
    ) -> Result<(), ReadError> {
        let mut rec = csv::StringRecord::new();
        loop {
            match self.reader.read_record(&mut rec) {
                Ok(true) => {
                    let lines = self.reader.get_ref();
                    let line = rec.position().map_or(0, |p| lines.line(p.byte()));
                    f(&self.file, line, &rec)?;
                }
                Ok(false) => return Ok(()),
                Err(e) => return Err(csv_error(&self.file, e, self.reader.get_ref())),
            }
        }
    }
}

/// A CSV error as a [`ReadError`], at the line of `lines` where the record starts.
fn csv_error<R>(file: &str, e: csv::Error, lines: &Lines<R>) -> ReadError {
    let line = e.position().map_or(0, |p| lines.line(p.byte()));
    match e.into_kind() {
        csv::ErrorKind::Io(source) => ReadError::Io {
            file: file.to_string(),
            source,
        },
        csv::ErrorKind::Utf8 { err, .. } => ReadError::Format {
            file: file.to_string(),
            line,
            message: format!("field {} is not UTF-8 text", err.field() + 1),
        },
        other => ReadError::Format {
            file: file.to_string(),
            line,
            message: format!("not readable as CSV: {other:?}"),
        },
    }
}

/// A field that must be present (Ergast writes `\N` for null).
fn required<'r>(
    file: &str,
    line: u64,
    rec: &'r csv::StringRecord,
    col: usize,
    field: &str,
    expected: &str,
) -> Result<&'r str, ReadError> {
    match rec.get(col) {
        Some(v) if !v.is_empty() && v != "\\N" => Ok(v),
        v => Err(field_error(file, line, field, v.unwrap_or(""), expected)),
    }
}

struct Race {
    id: String,
    time: i64,
    round: u32,
    line: u64,
}

/// One driver's result in a race.
struct Finisher {
    driver: String,
    constructor: String,
    pos: u32,
    /// Laps completed and race time in milliseconds, where given.
    laps: Option<u32>,
    millis: Option<u64>,
    line: u64,
}

/// The least gap, in seconds, between drivers at different places whose laps and times
/// do not tell them apart (cars out on the same lap, a dead heat on the clock).
pub const MIN_GAP: f64 = 1.0;

/// [`MIN_GAP`] in milliseconds, the unit the gaps are worked out in.
const MIN_GAP_MS: u64 = 1000;

/// The most laps `results.csv` may give a driver: far beyond any race (the Indianapolis
/// 500 of the 1950s, the longest, has 200), low enough that every gap is exact.
pub const MAX_LAPS: u32 = 10_000;

/// The longest race time `results.csv` may give, in milliseconds: 7 days (the longest
/// race on record took a little over 4 hours). With [`MAX_LAPS`] it bounds every gap
/// well below 2^53 ms, where each is exact as a float.
pub const MAX_MILLIS: u64 = 7 * 24 * 3600 * 1000;

/// The milliseconds behind the winner of each of `finishers` (sorted by place, the winner
/// first, one row per driver), or `None` when the winner has no laps or time. A car on
/// the lead lap with a time is behind by its time on the clock; any other car by its
/// missing laps at the winner's mean lap time, to the nearest millisecond (the resolution
/// of the source). Each gap is at least the one above it, and [`MIN_GAP`] more at a later
/// place: worked out in whole milliseconds, the gaps keep the places exactly.
fn gaps(finishers: &[&Finisher]) -> Option<Vec<u64>> {
    let winner = finishers.first()?;
    let (laps, millis) = (winner.laps?, winner.millis?);
    if laps == 0 {
        return None;
    }
    let mut out: Vec<u64> = Vec::with_capacity(finishers.len());
    for (i, f) in finishers.iter().enumerate() {
        let estimate = match (f.laps, f.millis) {
            (Some(l), Some(ms)) if l >= laps => ms.saturating_sub(millis),
            (l, _) => {
                // Laps and times are bounded (MAX_LAPS, MAX_MILLIS): no overflow.
                let missing = u128::from(laps.saturating_sub(l.unwrap_or(0)));
                let (total, laps) = (missing * u128::from(millis), u128::from(laps));
                u64::try_from((2 * total + laps) / (2 * laps)).unwrap_or(u64::MAX)
            }
        };
        let gap = match i.checked_sub(1) {
            None => 0,
            Some(j) if finishers[j].pos == f.pos => out[j],
            Some(j) => estimate.max(out[j].saturating_add(MIN_GAP_MS)),
        };
        out.push(gap);
    }
    Some(out)
}

/// The finishes of one race's drivers (sorted by place, one row per driver): scores
/// (minus the seconds behind the winner) when the winner's laps and time are known,
/// places otherwise.
#[must_use]
fn margins(finishers: &[&Finisher]) -> Vec<Finish> {
    match gaps(finishers) {
        Some(g) => {
            // A whole number of milliseconds below 2^53 is exact as a float, and the
            // division keeps the order of numbers a second apart.
            let out: Vec<Finish> = g
                .into_iter()
                .map(|g| Finish::Score(0.0 - g as f64 / 1000.0))
                .collect();
            debug_assert!(keeps_places(finishers, &out));
            out
        }
        None => finishers
            .iter()
            .map(|f| Finish::Rank(f64::from(f.pos)))
            .collect(),
    }
}

/// Whether `finishes` order `finishers` (sorted by place) exactly as their places do:
/// equal at a shared place, lower at each later place.
fn keeps_places(finishers: &[&Finisher], finishes: &[Finish]) -> bool {
    finishers
        .windows(2)
        .zip(finishes.windows(2))
        .all(|(f, s)| match (s[0], s[1]) {
            (Finish::Score(a), Finish::Score(b)) if f[0].pos == f[1].pos => a == b,
            (Finish::Score(a), Finish::Score(b)) => a > b,
            _ => false,
        })
}

/// The factor kind of a driver's car.
pub const CONSTRUCTOR: &str = "constructor";

/// Reads the four tables, each given as `(name for errors, reader)`, and returns one
/// match per race with results, in date order.
///
/// # Errors
/// [`ReadError`] naming the file, line and field of the first problem: a missing column,
/// a race without a valid date, a duplicate `raceId`, `driverId` or `constructorId`, a
/// result for an unknown race, driver or constructor, a `positionOrder` that is not a
/// positive whole number, or a race with fewer than two drivers.
pub fn read<A: Read, B: Read, C: Read, D: Read>(
    races: (&str, A),
    results: (&str, B),
    drivers: (&str, C),
    constructors: (&str, D),
) -> Result<Vec<Match>, ReadError> {
    read_as(races, results, drivers, constructors, false)
}

/// Like [`read`], but where `results.csv` has `laps` and `milliseconds` and the race's
/// winner has both, each driver's finish is a score, minus the seconds behind the winner
/// (as the module documentation says), with the places of [`read`]; races whose winner has
/// no time keep ranks.
///
/// # Errors
/// As [`read`], and a `laps` that is not a whole number from 0 to [`MAX_LAPS`] or a
/// `milliseconds` that is not one from 1 to [`MAX_MILLIS`].
pub fn read_scores<A: Read, B: Read, C: Read, D: Read>(
    races: (&str, A),
    results: (&str, B),
    drivers: (&str, C),
    constructors: (&str, D),
) -> Result<Vec<Match>, ReadError> {
    read_as(races, results, drivers, constructors, true)
}

fn read_as<A: Read, B: Read, C: Read, D: Read>(
    races: (&str, A),
    results: (&str, B),
    drivers: (&str, C),
    constructors: (&str, D),
    scores: bool,
) -> Result<Vec<Match>, ReadError> {
    let names = read_names(drivers.0, drivers.1, "driver")?;
    let cars = read_names(constructors.0, constructors.1, "constructor")?;
    let race_list = read_races(races.0, races.1)?;
    let mut by_race: HashMap<String, Vec<Finisher>> = HashMap::new();
    let mut t = Table::open(results.0, results.1)?;
    let (race_col, driver_col, car_col, pos_col) = (
        t.column("raceId")?,
        t.column("driverId")?,
        t.column("constructorId")?,
        t.column("positionOrder")?,
    );
    // Read for scores only, and optional: without them the races keep their places as ranks.
    let (laps_col, ms_col) = if scores {
        (t.column("laps").ok(), t.column("milliseconds").ok())
    } else {
        (None, None)
    };
    let number = |rec: &csv::StringRecord, col: Option<usize>| {
        col.and_then(|c| rec.get(c))
            .filter(|v| !v.is_empty() && *v != "\\N")
            .map(str::to_string)
    };
    t.each(|file, line, rec| {
        let race = required(file, line, rec, race_col, "raceId", "a raceId of races.csv")?;
        if !race_list.contains_key(race) {
            return Err(field_error(
                file,
                line,
                "raceId",
                race,
                "a raceId of races.csv",
            ));
        }
        let driver = required(
            file,
            line,
            rec,
            driver_col,
            "driverId",
            "a driverId of drivers.csv",
        )?;
        if !names.contains_key(driver) {
            return Err(field_error(
                file,
                line,
                "driverId",
                driver,
                "a driverId of drivers.csv",
            ));
        }
        let expected = "a constructorId of constructors.csv";
        let car = required(file, line, rec, car_col, "constructorId", expected)?;
        let Some(car) = cars.get(car) else {
            return Err(field_error(file, line, "constructorId", car, expected));
        };
        let expected = "the finishing order, a whole number ≥ 1";
        let pos = required(file, line, rec, pos_col, "positionOrder", expected)?;
        let pos: u32 = pos
            .parse()
            .ok()
            .filter(|&p| p >= 1)
            .ok_or_else(|| field_error(file, line, "positionOrder", pos, expected))?;
        let laps = match number(rec, laps_col) {
            None => None,
            Some(v) => Some(
                v.parse::<u32>()
                    .ok()
                    .filter(|&l| l <= MAX_LAPS)
                    .ok_or_else(|| {
                        field_error(
                            file,
                            line,
                            "laps",
                            &v,
                            &format!("the laps completed, a whole number from 0 to {MAX_LAPS}"),
                        )
                    })?,
            ),
        };
        let millis = match number(rec, ms_col) {
            None => None,
            Some(v) => Some(
                v.parse::<u64>()
                    .ok()
                    .filter(|ms| (1..=MAX_MILLIS).contains(ms))
                    .ok_or_else(|| {
                        field_error(
                            file,
                            line,
                            "milliseconds",
                            &v,
                            &format!("the race time in milliseconds, a whole number from 1 to {MAX_MILLIS} (7 days)"),
                        )
                    })?,
            ),
        };
        by_race.entry(race.to_string()).or_default().push(Finisher {
            driver: driver.to_string(),
            constructor: car.clone(),
            pos,
            laps,
            millis,
            line,
        });
        Ok(())
    })?;

    let mut order: Vec<(&String, &Race)> = race_list
        .iter()
        .filter(|(id, _)| by_race.contains_key(*id))
        .collect();
    order.sort_by_key(|(_, r)| (r.time, r.round, r.line));
    let mut out = Vec::with_capacity(order.len());
    for (race_id, race) in order {
        let mut finishers = by_race.remove(race_id).unwrap_or_default();
        // A driver who drove two cars keeps his best place (then his first row).
        finishers.sort_by_key(|f| (f.pos, f.line));
        let mut seen: HashMap<&str, ()> = HashMap::new();
        let drivers: Vec<&Finisher> = finishers
            .iter()
            .filter(|f| seen.insert(f.driver.as_str(), ()).is_none())
            .collect();
        let finishes = if scores {
            margins(&drivers)
        } else {
            drivers
                .iter()
                .map(|f| Finish::Rank(f64::from(f.pos)))
                .collect()
        };
        let rows: Vec<ResultRow> = drivers
            .iter()
            .zip(finishes)
            .map(|(f, finish)| ResultRow {
                player: names[&f.driver].clone(),
                team: None,
                finish,
                weight: 1.0,
                factors: vec![Factor::new(CONSTRUCTOR, f.constructor.as_str())],
            })
            .collect();
        let m = Match::from_rows(race.id.clone(), Some(race.time), rows)
            .map_err(|e| match_error(races.0, race.line, &race.id, e))?;
        out.push(m);
    }
    Ok(out)
}

/// The names of the drivers (`what` = `driver`) or constructors (`constructor`): each
/// `<what>Id` to its `<what>Ref`, made unique. The first row of each ref keeps it; a later
/// row with the same ref gets `<ref>-<id>`, or, should that be some row's ref or a name
/// given already, the first of `<ref>-<id>-2`, `<ref>-<id>-3`, ... that is neither. So a
/// ref is never taken from the row that has it, and the names depend on the file alone.
fn read_names(
    file: &str,
    input: impl Read,
    what: &str,
) -> Result<HashMap<String, String>, ReadError> {
    let mut t = Table::open(file, input)?;
    let (id_field, ref_field) = (format!("{what}Id"), format!("{what}Ref"));
    let (id_col, ref_col) = (t.column(&id_field)?, t.column(&ref_field)?);
    // Every row's id and ref, in file order; then the names, once every ref is known.
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut ids: HashMap<String, ()> = HashMap::new();
    t.each(|file, line, rec| {
        let id = required(file, line, rec, id_col, &id_field, &format!("a {what} id"))?;
        let r = required(
            file,
            line,
            rec,
            ref_col,
            &ref_field,
            &format!("a {what} name"),
        )?;
        if ids.insert(id.to_string(), ()).is_some() {
            return Err(field_error(
                file,
                line,
                &id_field,
                id,
                &format!("a {id_field} not listed before"),
            ));
        }
        rows.push((id.to_string(), r.to_string()));
        Ok(())
    })?;
    // The refs as given: no name made up for a later row may be one of them.
    let refs: HashMap<&str, ()> = rows.iter().map(|(_, r)| (r.as_str(), ())).collect();
    let mut given: HashMap<String, ()> = HashMap::new();
    let mut names: HashMap<String, String> = HashMap::with_capacity(rows.len());
    for (id, r) in &rows {
        let name = if given.contains_key(r) {
            let taken = |n: &str| refs.contains_key(n) || given.contains_key(n);
            let mut name = format!("{r}-{id}");
            let mut k = 1u64;
            while taken(&name) {
                k += 1;
                name = format!("{r}-{id}-{k}");
            }
            name
        } else {
            r.clone()
        };
        given.insert(name.clone(), ());
        names.insert(id.clone(), name);
    }
    Ok(names)
}

fn read_races(file: &str, input: impl Read) -> Result<HashMap<String, Race>, ReadError> {
    let mut t = Table::open(file, input)?;
    let cols = (
        t.column("raceId")?,
        t.column("year")?,
        t.column("round")?,
        t.column("name")?,
        t.column("date")?,
    );
    let mut races: HashMap<String, Race> = HashMap::new();
    t.each(|file, line, rec| {
        let id = required(file, line, rec, cols.0, "raceId", "a race id")?;
        let year = required(file, line, rec, cols.1, "year", "the season")?;
        let expected = "the round of the season, a whole number";
        let round_text = required(file, line, rec, cols.2, "round", expected)?;
        let round: u32 = round_text
            .parse()
            .map_err(|_| field_error(file, line, "round", round_text, expected))?;
        let name = required(file, line, rec, cols.3, "name", "the race's name")?;
        let date = required(file, line, rec, cols.4, "date", "a date YYYY-MM-DD")?;
        let time = parse_time(date)
            .ok_or_else(|| field_error(file, line, "date", date, "a date YYYY-MM-DD"))?;
        let race = Race {
            id: format!("{year}-{round:02} {name}"),
            time,
            round,
            line,
        };
        match races.entry(id.to_string()) {
            Entry::Occupied(_) => Err(field_error(
                file,
                line,
                "raceId",
                id,
                "a raceId not listed before",
            )),
            Entry::Vacant(v) => {
                v.insert(race);
                Ok(())
            }
        }
    })?;
    Ok(races)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RACES: &str = "raceId,year,round,circuitId,name,date,time\n\
        2,2009,2,2,\"Malaysian Grand Prix\",\"2009-04-05\",\"09:00:00\"\n\
        1,2009,1,1,\"Australian Grand Prix\",\"2009-03-29\",\\N\n\
        9,2026,1,1,\"Australian Grand Prix\",\"2026-03-08\",\\N\n";
    const DRIVERS: &str = "driverId,driverRef,number,code\n\
        1,\"hamilton\",44,\"HAM\"\n2,\"button\",22,\\N\n3,\"barrichello\",\\N,\\N\n";

    const CONSTRUCTORS: &str = "constructorId,constructorRef,name\n\
        1,\"mclaren\",\"McLaren\"\n2,\"brawn\",\"Brawn\"\n";

    fn run(races: &str, results: &str, drivers: &str) -> Result<Vec<Match>, ReadError> {
        read(
            ("races.csv", races.as_bytes()),
            ("results.csv", results.as_bytes()),
            ("drivers.csv", drivers.as_bytes()),
            ("constructors.csv", CONSTRUCTORS.as_bytes()),
        )
    }

    fn run_scores(races: &str, results: &str, drivers: &str) -> Result<Vec<Match>, ReadError> {
        read_scores(
            ("races.csv", races.as_bytes()),
            ("results.csv", results.as_bytes()),
            ("drivers.csv", drivers.as_bytes()),
            ("constructors.csv", CONSTRUCTORS.as_bytes()),
        )
    }

    fn finish(m: &Match) -> Vec<(String, usize)> {
        m.players()
            .map(|(e, p)| (p.player.clone(), m.place(e)))
            .collect()
    }

    fn p(name: &str, place: usize) -> (String, usize) {
        (name.to_string(), place)
    }

    #[test]
    fn races_in_date_order_finish_by_position_order() {
        let results = "resultId,raceId,driverId,constructorId,position,positionOrder\n\
            1,2,1,1,\\N,3\n2,2,2,2,1,1\n3,2,3,2,2,2\n\
            4,1,3,2,2,2\n5,1,2,2,1,1\n6,1,1,1,\\N,3\n";
        let got = run(RACES, results, DRIVERS).unwrap();
        // Race 9 has no results yet and is left out; race 1 is run before race 2.
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].id(), "2009-01 Australian Grand Prix");
        assert_eq!(got[0].time(), parse_time("2009-03-29"));
        assert_eq!(got[1].id(), "2009-02 Malaysian Grand Prix");
        assert_eq!(
            finish(&got[1]),
            [p("button", 1), p("barrichello", 2), p("hamilton", 3)]
        );
    }

    fn scores(m: &Match) -> Vec<(String, f64)> {
        m.players()
            .map(|(e, p)| match m.entries()[e].finish {
                Finish::Score(s) => (p.player.clone(), s),
                Finish::Rank(r) => panic!("{} has rank {r}, expected a score", p.player),
            })
            .collect()
    }

    const FIVE: &str = "driverId,driverRef\n1,\"a\"\n2,\"b\"\n3,\"c\"\n4,\"d\"\n5,\"e\"\n6,\"f\"\n";

    #[test]
    fn read_keeps_ranks_even_when_laps_and_times_are_given() {
        let results = "raceId,driverId,constructorId,positionOrder,laps,milliseconds\n\
            1,1,1,1,10,1000000\n1,2,2,2,10,1005500\n1,3,2,2,x,y\n";
        let got = run(RACES, results, FIVE).unwrap();
        let finishes: Vec<Finish> = got[0].entries().iter().map(|e| e.finish).collect();
        assert_eq!(
            finishes,
            [Finish::Rank(1.0), Finish::Rank(2.0), Finish::Rank(2.0)]
        );
    }

    #[test]
    fn a_car_a_lap_down_scores_below_the_lead_lap_whatever_its_time() {
        // a wins 10 laps in 1000 s (100 s a lap); b is 5.5 s behind; c is on the lead lap
        // 150 s behind (slower than a lap); d is a lap down, e and f went out on lap 3
        // (f is listed behind e).
        let results = "raceId,driverId,constructorId,positionOrder,laps,milliseconds\n\
            1,4,1,4,9,\\N\n1,1,1,1,10,1000000\n1,2,2,2,10,1005500\n\
            1,3,2,3,10,1150000\n1,6,1,6,3,\\N\n1,5,2,5,3,\\N\n";
        let got = run_scores(RACES, results, FIVE).unwrap();
        let s = |n: &str, v: f64| (n.to_string(), v);
        assert_eq!(
            scores(&got[0]),
            [
                s("a", 0.0),
                s("b", -5.5),
                s("c", -150.0),
                // One lap at the winner's 100 s would be 100 s: put a second behind c.
                s("d", -151.0),
                s("e", -700.0),
                s("f", -701.0)
            ]
        );
        // The places are positionOrder's.
        assert_eq!(
            finish(&got[0]),
            [
                p("a", 1),
                p("b", 2),
                p("c", 3),
                p("d", 4),
                p("e", 5),
                p("f", 6)
            ]
        );
    }

    #[test]
    fn scores_keep_every_place_and_tie_of_position_order() {
        // A shared drive (two drivers at place 2), a dead heat on the clock at different
        // places, a car with laps but no time: the places are positionOrder's.
        let results = "raceId,driverId,constructorId,positionOrder,laps,milliseconds\n\
            1,1,1,1,20,2000000\n1,2,1,2,20,2010000\n1,3,2,2,20,2010000\n\
            1,4,2,4,20,2010000\n1,5,1,5,20,\\N\n1,6,2,6,19,\\N\n";
        let got = run_scores(RACES, results, FIVE).unwrap();
        assert_eq!(
            finish(&got[0]),
            [
                p("a", 1),
                p("b", 2),
                p("c", 2),
                p("d", 4),
                p("e", 5),
                p("f", 6)
            ]
        );
        let s = |n: &str, v: f64| (n.to_string(), v);
        assert_eq!(
            scores(&got[0]),
            [
                s("a", 0.0),
                s("b", -10.0),
                s("c", -10.0),
                s("d", -11.0),
                s("e", -12.0),
                s("f", -100.0)
            ]
        );
    }

    #[test]
    fn every_driver_is_at_least_min_gap_behind_the_one_above() {
        // As in the 2009 Australian Grand Prix: 0.807 s and 1.604 s behind on the clock
        // become 1 s and 2 s; a gap larger than the one above plus MIN_GAP is kept.
        let results = "raceId,driverId,constructorId,positionOrder,laps,milliseconds\n\
            1,1,1,1,58,5655784\n1,2,1,2,58,5656591\n1,3,2,3,58,5657388\n\
            1,4,2,4,58,5660784\n";
        let got = run_scores(RACES, results, FIVE).unwrap();
        let s = |n: &str, v: f64| (n.to_string(), v);
        assert_eq!(
            scores(&got[0]),
            [s("a", 0.0), s("b", -1.0), s("c", -2.0), s("d", -5.0)]
        );
    }

    #[test]
    fn a_race_whose_winner_has_no_time_keeps_its_ranks() {
        let results = "raceId,driverId,constructorId,positionOrder,laps,milliseconds\n\
            1,1,1,1,20,\\N\n1,2,1,2,20,\\N\n2,1,1,2,5,\\N\n2,2,1,1,5,60000\n";
        let got = run_scores(RACES, results, FIVE).unwrap();
        assert_eq!(got[0].entries()[1].finish, Finish::Rank(2.0));
        // b won in 60 s; a is listed behind on the same laps without a time: MIN_GAP.
        assert_eq!(got[1].entries()[0].finish, Finish::Score(0.0));
        assert_eq!(got[1].entries()[1].finish, Finish::Score(-MIN_GAP));
        assert_eq!(finish(&got[1]), [p("b", 1), p("a", 2)]);
        assert_eq!(
            run_scores(RACES, "raceId,driverId,constructorId,positionOrder,laps\n1,1,1,1,x\n", FIVE)
                .unwrap_err()
                .to_string(),
            "results.csv:2: field `laps`: \"x\" is not valid, expected the laps completed, a whole number from 0 to 10000"
        );
    }

    #[test]
    fn laps_and_times_no_race_has_are_refused() {
        let header = "raceId,driverId,constructorId,positionOrder,laps,milliseconds\n";
        let err = |rows: &str| {
            run_scores(RACES, &format!("{header}{rows}"), FIVE)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("1,1,1,1,1,18446744073709551615\n1,2,1,2,0,\\N\n1,3,1,3,4294967295,\\N\n"),
            "results.csv:2: field `milliseconds`: \"18446744073709551615\" is not valid, expected the race time in milliseconds, a whole number from 1 to 604800000 (7 days)"
        );
        assert_eq!(
            err("1,1,1,1,1,60000\n1,2,1,2,0,\\N\n1,3,1,3,4294967295,\\N\n"),
            "results.csv:4: field `laps`: \"4294967295\" is not valid, expected the laps completed, a whole number from 0 to 10000"
        );
        assert_eq!(
            err("1,1,1,1,10001,60000\n1,2,1,2,0,\\N\n"),
            "results.csv:2: field `laps`: \"10001\" is not valid, expected the laps completed, a whole number from 0 to 10000"
        );
        assert_eq!(
            err("1,1,1,1,10,60000\n1,2,1,2,10,604800001\n"),
            "results.csv:3: field `milliseconds`: \"604800001\" is not valid, expected the race time in milliseconds, a whole number from 1 to 604800000 (7 days)"
        );
        assert_eq!(
            err("1,1,1,1,10,0\n1,2,1,2,10,1\n"),
            "results.csv:2: field `milliseconds`: \"0\" is not valid, expected the race time in milliseconds, a whole number from 1 to 604800000 (7 days)"
        );
    }

    #[test]
    fn scores_keep_the_places_at_the_bounds_of_laps_and_times() {
        let s = |n: &str, v: f64| (n.to_string(), v);
        // One lap in 7 days: a car out on lap 1 is 604800 s behind, one with the most
        // laps but no time a second behind him, another at the same laps a second more.
        let results = "raceId,driverId,constructorId,positionOrder,laps,milliseconds\n\
            1,1,1,1,1,604800000\n1,2,1,2,0,\\N\n1,3,1,3,10000,\\N\n1,4,1,4,10000,\\N\n";
        let got = run_scores(RACES, results, FIVE).unwrap();
        assert_eq!(
            scores(&got[0]),
            [
                s("a", 0.0),
                s("b", -604800.0),
                s("c", -604801.0),
                s("d", -604802.0)
            ]
        );
        // The most laps in 7 days: a car out at once is the whole race behind; one a lap
        // down 60.48 s; the next, 9999 laps down, a second behind the whole race.
        let results = "raceId,driverId,constructorId,positionOrder,laps,milliseconds\n\
            1,1,1,1,10000,604800000\n1,2,1,2,9999,\\N\n1,3,1,3,0,\\N\n1,4,1,4,1,\\N\n";
        let got = run_scores(RACES, results, FIVE).unwrap();
        assert_eq!(
            scores(&got[0]),
            [
                s("a", 0.0),
                s("b", -60.48),
                s("c", -604800.0),
                s("d", -604801.0)
            ]
        );
        // A lap at the winner's mean time rounds to the nearest millisecond: 2 laps of
        // 1000.0005 s are 2000.001 s; 1 lap is 1000.0005, which rounds up.
        let results = "raceId,driverId,constructorId,positionOrder,laps,milliseconds\n\
            1,1,1,1,2,2000001\n1,2,1,2,1,\\N\n";
        let got = run_scores(RACES, results, FIVE).unwrap();
        assert_eq!(scores(&got[0]), [s("a", 0.0), s("b", -1000.001)]);
    }

    #[test]
    fn keeps_places_tells_scores_that_break_the_order() {
        let f = |pos: u32| Finisher {
            driver: String::new(),
            constructor: String::new(),
            pos,
            laps: None,
            millis: None,
            line: 0,
        };
        let (a, b, c) = (f(1), f(2), f(2));
        let drivers = [&a, &b, &c];
        let at = |v: [f64; 3]| v.map(Finish::Score);
        assert!(keeps_places(&drivers, &at([0.0, -1.0, -1.0])));
        // Two places that share a score, a shared place split, a later place above.
        assert!(!keeps_places(&drivers, &at([-1.0, -1.0, -1.0])));
        assert!(!keeps_places(&drivers, &at([0.0, -1.0, -2.0])));
        assert!(!keeps_places(&drivers, &at([0.0, 1.0, 1.0])));
    }

    #[test]
    fn each_entry_carries_its_constructor() {
        let results = "raceId,driverId,constructorId,positionOrder\n1,1,1,2\n1,2,2,1\n1,3,2,3\n";
        let got = run(RACES, results, DRIVERS).unwrap();
        let cars: Vec<String> = got[0]
            .entries()
            .iter()
            .map(|e| e.factors.iter().map(ToString::to_string).collect())
            .collect();
        assert_eq!(
            cars,
            [
                "constructor=brawn",
                "constructor=mclaren",
                "constructor=brawn"
            ]
        );
        assert_eq!(
            run(RACES, "raceId,driverId,constructorId,positionOrder\n1,1,9,1\n", DRIVERS)
                .unwrap_err()
                .to_string(),
            "results.csv:2: field `constructorId`: \"9\" is not valid, expected a constructorId of constructors.csv"
        );
    }

    #[test]
    fn duplicate_position_order_is_a_tie() {
        let results = "raceId,driverId,constructorId,positionOrder\n1,1,1,1\n1,2,1,2\n1,3,1,2\n";
        let got = run(RACES, results, DRIVERS).unwrap();
        assert_eq!(
            finish(&got[0]),
            [p("hamilton", 1), p("button", 2), p("barrichello", 2)]
        );
    }

    #[test]
    fn a_driver_in_two_cars_keeps_his_best_place() {
        let results =
            "raceId,driverId,constructorId,positionOrder\n1,1,1,4\n1,2,1,2\n1,1,1,1\n1,3,1,3\n";
        let got = run(RACES, results, DRIVERS).unwrap();
        assert_eq!(
            finish(&got[0]),
            [p("hamilton", 1), p("button", 2), p("barrichello", 3)]
        );
    }

    #[test]
    fn a_name_made_unique_is_never_another_drivers_ref() {
        // smith-2 is driver 3's own ref: driver 2 may not take it.
        let drivers = "driverId,driverRef\n1,\"smith\"\n2,\"smith\"\n3,\"smith-2\"\n4,\"jones\"\n";
        let results = "raceId,driverId,constructorId,positionOrder\n\
            1,1,1,1\n1,2,1,2\n1,3,1,3\n1,4,1,4\n";
        let got = run(RACES, results, drivers).unwrap();
        assert_eq!(
            finish(&got[0]),
            [
                p("smith", 1),
                p("smith-2-2", 2),
                p("smith-2", 3),
                p("jones", 4)
            ]
        );
        // Listed the other way round, driver 3 keeps its ref all the same.
        let drivers = "driverId,driverRef\n3,\"smith-2\"\n2,\"smith\"\n1,\"smith\"\n4,\"jones\"\n";
        let got = run(RACES, results, drivers).unwrap();
        assert_eq!(
            finish(&got[0]),
            [
                p("smith-1", 1),
                p("smith", 2),
                p("smith-2", 3),
                p("jones", 4)
            ]
        );
        // Constructors are named the same way.
        let cars = "constructorId,constructorRef\n1,\"lotus\"\n2,\"lotus\"\n3,\"lotus-2\"\n";
        let results = "raceId,driverId,constructorId,positionOrder\n1,1,1,1\n1,2,2,2\n1,3,3,3\n";
        let got = read(
            ("races.csv", RACES.as_bytes()),
            ("results.csv", results.as_bytes()),
            ("drivers.csv", DRIVERS.as_bytes()),
            ("constructors.csv", cars.as_bytes()),
        )
        .unwrap();
        let cars: Vec<String> = got[0]
            .entries()
            .iter()
            .map(|e| e.factors[0].to_string())
            .collect();
        assert_eq!(
            cars,
            [
                "constructor=lotus",
                "constructor=lotus-2-2",
                "constructor=lotus-2"
            ]
        );
    }

    #[test]
    fn shared_driver_refs_are_made_unique() {
        let drivers = "driverId,driverRef\n1,\"smith\"\n2,\"smith\"\n3,\"jones\"\n";
        let results = "raceId,driverId,constructorId,positionOrder\n1,1,1,1\n1,2,1,2\n1,3,1,3\n";
        let got = run(RACES, results, drivers).unwrap();
        assert_eq!(
            finish(&got[0]),
            [p("smith", 1), p("smith-2", 2), p("jones", 3)]
        );
    }

    /// `text` with its lines ending in `eol`.
    fn ended(text: &str, eol: &str) -> String {
        text.replace('\n', eol)
    }

    /// Gives one byte per read, so that a line break falls between reads.
    struct OneByte<'a>(&'a [u8]);

    impl Read for OneByte<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match (self.0.split_first(), buf.first_mut()) {
                (Some((&b, rest)), Some(slot)) => {
                    *slot = b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn errors_name_the_line_with_crlf_line_breaks_too() {
        // A blank line and a note over two lines before the bad driver, on line 6.
        let results = "raceId,driverId,constructorId,positionOrder,note\n\
            1,1,1,1,\n\
            \n\
            1,2,2,2,\"over\ntwo lines\"\n\
            1,7,1,3,\n\
            1,3,2,4,\n";
        for eol in ["\n", "\r\n"] {
            let results = ended(results, eol);
            let err = run(&ended(RACES, eol), &results, &ended(DRIVERS, eol)).unwrap_err();
            assert_eq!(
                err.to_string(),
                "results.csv:6: field `driverId`: \"7\" is not valid, expected a driverId of drivers.csv",
                "{eol:?}"
            );
            let err = read(
                ("races.csv", OneByte(ended(RACES, eol).as_bytes())),
                ("results.csv", OneByte(results.as_bytes())),
                ("drivers.csv", OneByte(ended(DRIVERS, eol).as_bytes())),
                (
                    "constructors.csv",
                    OneByte(ended(CONSTRUCTORS, eol).as_bytes()),
                ),
            )
            .unwrap_err();
            assert_eq!(
                err.to_string(),
                "results.csv:6: field `driverId`: \"7\" is not valid, expected a driverId of drivers.csv",
                "{eol:?}, one byte per read"
            );
            // The races' lines too, and a row that is not UTF-8 (line 4).
            let races = ended(RACES, eol).replace("2009-03-29", "29/03/2009");
            assert_eq!(
                run(&races, &results, DRIVERS).unwrap_err().to_string(),
                "races.csv:3: field `date`: \"29/03/2009\" is not valid, expected a date YYYY-MM-DD",
                "{eol:?}"
            );
            let mut latin = ended("driverId,driverRef\n1,a\n2,b\n3,rä\n", eol).into_bytes();
            let at = latin.iter().position(|&b| b == 0xC3).unwrap();
            latin.splice(at..at + 2, [0xE4]);
            let err = read(
                ("races.csv", RACES.as_bytes()),
                ("results.csv", results.as_bytes()),
                ("drivers.csv", latin.as_slice()),
                ("constructors.csv", CONSTRUCTORS.as_bytes()),
            )
            .unwrap_err();
            assert_eq!(
                err.to_string(),
                "drivers.csv:4: field 2 is not UTF-8 text",
                "{eol:?}"
            );
        }
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let err = |races: &str, results: &str, drivers: &str| {
            run(races, results, drivers).unwrap_err().to_string()
        };
        assert_eq!(
            err(RACES, "raceId,driverId,constructorId,positionOrder\n1,1,1,1\n1,7,1,2\n", DRIVERS),
            "results.csv:3: field `driverId`: \"7\" is not valid, expected a driverId of drivers.csv"
        );
        assert!(err(
            RACES,
            "raceId,driverId,constructorId,positionOrder\n5,1,1,1\n",
            DRIVERS
        )
        .starts_with("results.csv:2: field `raceId`: \"5\""));
        assert!(err(
            RACES,
            "raceId,driverId,constructorId,positionOrder\n1,1,1,\\N\n",
            DRIVERS
        )
        .starts_with("results.csv:2: field `positionOrder`"));
        assert!(err(
            RACES,
            "raceId,driverId,constructorId,positionOrder\n1,1,1,0\n",
            DRIVERS
        )
        .starts_with("results.csv:2: field `positionOrder`"));
        assert!(
            err(RACES, "raceId,driverId,constructorId\n1,1,1\n", DRIVERS)
                .starts_with("results.csv:1: header has no `positionOrder` column")
        );
        let bad_date = "raceId,year,round,name,date\n1,2009,1,\"X\",\"29/03/2009\"\n";
        assert!(err(
            bad_date,
            "raceId,driverId,constructorId,positionOrder\n",
            DRIVERS
        )
        .starts_with("races.csv:2: field `date`: \"29/03/2009\""));
        assert!(err(
            RACES,
            "raceId,driverId,constructorId,positionOrder\n",
            "driverId,driverRef\n1,a\n1,b\n"
        )
        .starts_with("drivers.csv:3: field `driverId`"));
        let one = err(
            RACES,
            "raceId,driverId,constructorId,positionOrder\n1,1,1,1\n",
            DRIVERS,
        );
        assert!(
            one.starts_with("races.csv:3: match \"2009-01 Australian Grand Prix\"")
                && one.contains("at least 2 entries"),
            "{one}"
        );
    }
}
