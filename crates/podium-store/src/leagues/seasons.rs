//! Seasons of a league: started by its admin, recorded in the ledger, served with their
//! boards ([`crate::derived`] applies the resets).

use std::sync::Arc;

use podium::season::Reset;

use super::{lock, read, ready, ready_mut, write, Leagues};
use crate::error::{quote, StoreError};
use crate::types::{BoardRow, LeagueId, Position, SeasonInfo, SeasonRow};

/// The name of a league's first season, which starts with the league.
pub const FIRST_SEASON: &str = "Season 1";

/// The longest season name, in characters.
pub const MAX_SEASON_NAME: usize = 100;

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

impl Leagues {
    /// Starts a new season of league `id` now (see [`Leagues::start_season_at`]).
    ///
    /// # Errors
    /// As [`Leagues::start_season_at`].
    pub fn start_season(
        &self,
        id: LeagueId,
        name: &str,
        reset: Reset,
    ) -> Result<SeasonInfo, StoreError> {
        self.start_season_at(id, name, reset, now())
    }

    /// Starts a new season of league `id` at `now` (Unix seconds): the current season's
    /// board is kept as it stands, the league is reset, and every match entered after it
    /// belongs to the new season. In a league of dated matches the season starts on the
    /// day of `now` (midnight UTC, a date as the pages enter it; or at the last match or
    /// season start, if later), after the matches already entered: a match entered
    /// later and dated that day or after belongs to the new season, one dated before is
    /// placed by its date, in the season it was played in, and that season's board and
    /// every later one are worked out again. In a league without dates (or without
    /// matches yet) the season starts at the next ledger position.
    ///
    /// # Errors
    /// [`StoreError::InvalidSeason`] for a name that is empty, longer than
    /// [`MAX_SEASON_NAME`] characters, has a control character or is used already
    /// (letter case aside), or a reset out of range;
    /// [`StoreError::Reset`] when the system refuses the reset. Nothing is stored then.
    pub fn start_season_at(
        &self,
        id: LeagueId,
        name: &str,
        reset: Reset,
        now: i64,
    ) -> Result<SeasonInfo, StoreError> {
        let name = super::check_season_name(name)?;
        reset.check().map_err(|e| StoreError::InvalidSeason {
            message: format!("reset: {e}"),
        })?;
        let slot = self.slot(id)?;
        let _w = lock(&slot.writer);
        let mut writer = self.store.lock(id)?;
        self.catch_up(&slot)?;
        let season = self.read_slot(&slot, |d| {
            let seasons = d.seasons();
            // Unique in the league around spaces and letter case aside, as league names
            // are on the server: `spring` is `Spring`'s name.
            let key = super::name_key(name);
            let taken = std::iter::once(FIRST_SEASON)
                .chain(seasons.iter().map(|s| s.name.as_str()))
                .find(|taken| super::name_key(taken) == key);
            if let Some(taken) = taken {
                return Err(StoreError::InvalidSeason {
                    message: format!("name: league {id} has a season named {} already; give the new season another name", quote(taken)),
                });
            }
            // The reset must work before anything is stored.
            d.league()
                .new_season(&reset)
                .map_err(|source| StoreError::Reset {
                    season: seasons.len() as i64 + 2,
                    source,
                })?;
            // Starts never go back: after the last match and the last start.
            let last = d.last_position().and_then(|p| p.time);
            let previous = seasons.last().and_then(|s| s.start.time);
            let time = if d.timed() == Some(true) || previous.is_some() {
                let day = now - now.rem_euclid(86_400);
                Some(day.max(last.unwrap_or(day)).max(previous.unwrap_or(day)))
            } else {
                None
            };
            Ok(SeasonRow {
                number: seasons.len() as i64 + 2,
                name: name.to_string(),
                start: Position { time, seq: 0 },
                reset,
                created_at: String::new(),
            })
        })?;
        let mut season = season;
        season.start.seq = ready(&read(&slot.state), id)?.row.head.last_seq + 1;
        let head = writer.start_season(&season)?;
        drop(writer);
        // Read back as stored (with its time of creation).
        let seasons = Arc::new(self.store.seasons(id)?);
        let mut state = write(&slot.state);
        let loaded = ready_mut(&mut state, id)?;
        loaded.row.head = head;
        loaded.derived.start_seasons(seasons)?;
        let info = season_infos(&loaded.derived)
            .pop()
            .expect("the season just started");
        Ok(info)
    }

    /// The seasons of league `id`, the first first, with their match counts.
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], [`StoreError::NotReady`].
    pub fn seasons(&self, id: LeagueId) -> Result<Vec<SeasonInfo>, StoreError> {
        self.read_whole(id, |d| Ok(season_infos(d)))
    }

    /// The board of season `number` of league `id`: its final board for a season that
    /// ended, the live board for the current one.
    ///
    /// # Errors
    /// [`StoreError::SeasonNotFound`], [`StoreError::LeagueNotFound`],
    /// [`StoreError::NotReady`].
    pub fn season_board(&self, id: LeagueId, number: i64) -> Result<Vec<BoardRow>, StoreError> {
        self.read_whole(id, |d| {
            if number == d.season() {
                return Ok(d.compute_board());
            }
            d.archived(number)
                .map(|b| b.as_ref().clone())
                .ok_or(StoreError::SeasonNotFound { league: id, number })
        })
    }
}

/// Every season of a derived state, the first first.
fn season_infos(d: &crate::Derived) -> Vec<SeasonInfo> {
    let counts = d.season_matches();
    let current = d.season();
    let mut out = vec![SeasonInfo {
        number: 1,
        name: FIRST_SEASON.to_string(),
        start_seq: 1,
        start_time: None,
        reset: None,
        created_at: None,
        matches: counts[0],
        current: current == 1,
    }];
    for (s, &matches) in d.seasons().iter().zip(&counts[1..]) {
        out.push(SeasonInfo {
            number: s.number,
            name: s.name.clone(),
            start_seq: s.start.seq,
            start_time: s.start.time.map(podium_io::format_time),
            reset: Some(s.reset),
            created_at: Some(s.created_at.clone()),
            matches,
            current: current == s.number,
        });
    }
    out
}
