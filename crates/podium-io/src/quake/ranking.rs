//! The frag ranking of Quake 3 logs: the parser's events turned into the events of
//! [`podium::frags`], the dynamic ranking of Michael Becker's article on frag rankings
//! (2001): every frag a 1 : 0 duel, suicides and deaths by the world a −1 : 0 against an
//! imaginary equal, team kills ranking down only the killer, flag captures weighted
//! against the opposing team's mean strength.
//!
//! [`QuakeRanking`] keeps the ranking and the frag matrix of the static strengths. What
//! else a reader wants of the log, event by event (the stats site of [`super::site`]),
//! it learns through a [`Watch`].
//!
//! ```
//! use podium::frags::FragConfig;
//! use podium_io::quake::{QuakeParser, ranking::QuakeRanking};
//! let log = "  0:00 InitGame: \\g_gametype\\0\\mapname\\q3dm17\n\
//!            \x20 0:05 ClientUserinfoChanged: 2 n\\Ann\\t\\0\n\
//!            \x20 0:06 ClientUserinfoChanged: 3 n\\Bo\\t\\0\n\
//!            \x20 0:09 Kill: 2 3 7: Ann killed Bo by MOD_ROCKET_SPLASH\n\
//!            \x20 0:11 ShutdownGame:\n";
//! let mut ranking = QuakeRanking::new(FragConfig::default());
//! let mut parser = QuakeParser::new();
//! ranking.read_log(&mut parser, "games.log", &mut log.as_bytes(), &mut ())?;
//! assert_eq!(ranking.games_rated(), 1);
//! let ann = ranking.ranking().id("Ann").unwrap();
//! assert!((ranking.ranking().strength(ann) - 4.0).abs() < 1e-12); // K/2 for a win between equals
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, Read};

use podium::frags::{FragConfig, FragEvent, FragMatrix, FragRanking, PlayerId};

use super::{
    FlagAction, GameEnd, GameInfo, GameType, Killer, Line, LineReader, PlayerRef, QuakeEvent,
    QuakeParser, Team,
};

/// One kill, as a [`Watch`] learns it.
#[derive(Debug, Clone, Copy)]
pub struct KillRecord<'a> {
    /// Game time in tenths of a second.
    pub time: u32,
    /// `None`: the world.
    pub killer: Option<PlayerId>,
    /// Who died.
    pub victim: PlayerId,
    /// `MOD_*`.
    pub weapon: &'a str,
    /// A team mate was killed.
    pub team_kill: bool,
}

/// A player's strength when a game ended.
#[derive(Debug, Clone, Copy)]
pub struct GameRow {
    /// The player.
    pub player: PlayerId,
    /// Strength after the game.
    pub strength_after: f64,
}

/// What a reader of the log learns besides the ranking, event by event, with the
/// ranking's players. Every method does nothing unless implemented; `()` watches nothing.
#[allow(unused_variables)]
pub trait Watch {
    /// Whether anything is watched: when not, the ranking does not gather what it would
    /// tell (weapon names, old names).
    fn is_watching(&self) -> bool {
        true
    }
    /// A player the ranking has not met before.
    fn new_player(&mut self, player: PlayerId) {}
    /// A game starts, in log `file`.
    fn game_start(&mut self, info: &GameInfo, file: &str) {}
    /// The player had the name `old` before a rename.
    fn alias(&mut self, player: PlayerId, old: &str) {}
    /// The player is on `team` in this game, from now on (a `ClientUserinfoChanged`
    /// line).
    fn team(&mut self, player: PlayerId, team: Team) {}
    /// A kill.
    fn kill(&mut self, kill: KillRecord<'_>) {}
    /// A flag event.
    fn flag(&mut self, player: PlayerId, action: FlagAction) {}
    /// The final team scores.
    fn team_score(&mut self, red: i32, blue: i32) {}
    /// A line of the final scoreboard.
    fn score(&mut self, player: PlayerId, score: i32) {}
    /// Why the game ended.
    fn exit(&mut self, reason: String) {}
    /// The game that started ended with nothing rated (a warm-up, an empty map).
    fn drop_game(&mut self) {}
    /// A rated game ended; `rows` are its players' strengths after it.
    fn end_game(&mut self, end: GameEnd, rows: Vec<GameRow>) {}
}

impl Watch for () {
    fn is_watching(&self) -> bool {
        false
    }
}

/// The ranking being built from the events of the logs.
#[derive(Debug, Clone)]
pub struct QuakeRanking {
    /// The dynamic ranking (also keeps every player's counters).
    ranking: FragRanking,
    /// Frags between pairs, for the static strengths and the site.
    matrix: FragMatrix,
    /// The log's players → the ranking's.
    ids: Vec<Option<PlayerId>>,
    /// The game being read: its info and whether anything was rated in it.
    game: Option<(GameInfo, bool)>,
    /// Games that had rated events.
    games_rated: u64,
    /// Reusable buffer of the opposing team's players.
    opponents: Vec<PlayerId>,
    /// The log being read.
    file: String,
}

impl QuakeRanking {
    /// A ranking with `config`, nothing read.
    #[must_use]
    pub fn new(config: FragConfig) -> QuakeRanking {
        QuakeRanking {
            ranking: FragRanking::new(config),
            matrix: FragMatrix::new(),
            ids: Vec::new(),
            game: None,
            games_rated: 0,
            opponents: Vec::new(),
            file: String::new(),
        }
    }

    /// The dynamic ranking.
    #[must_use]
    pub fn ranking(&self) -> &FragRanking {
        &self.ranking
    }

    /// The frags between pairs of players.
    #[must_use]
    pub fn matrix(&self) -> &FragMatrix {
        &self.matrix
    }

    /// Games that had rated events.
    #[must_use]
    pub fn games_rated(&self) -> u64 {
        self.games_rated
    }

    /// A new log starts: its parser numbers players afresh.
    pub fn new_log(&mut self, name: &str) {
        self.ids.clear();
        self.file = name.to_string();
    }

    fn id(&mut self, parser: &QuakeParser, p: PlayerRef, watch: &mut impl Watch) -> PlayerId {
        let i = p.0 as usize;
        if self.ids.len() <= i {
            self.ids.resize(i + 1, None);
        }
        match self.ids[i] {
            Some(id) => id,
            None => {
                let id = self.ranking.player(parser.player_name(p));
                self.ids[i] = Some(id);
                watch.new_player(id);
                id
            }
        }
    }

    #[inline]
    fn rated(&mut self) {
        // Events outside any game cannot happen (the parser opens one), but stay safe.
        let (_, any) = self.game.get_or_insert_with(|| {
            (
                GameInfo {
                    number: 0,
                    line: 0,
                    game_type: GameType::Ffa,
                    map: String::new(),
                },
                false,
            )
        });
        *any = true;
    }

    /// Applies one event of the log.
    pub fn event(&mut self, parser: &QuakeParser, event: QuakeEvent, watch: &mut impl Watch) {
        match event {
            QuakeEvent::GameStart(info) => {
                watch.game_start(&info, &self.file);
                self.game = Some((info, false));
            }
            QuakeEvent::Day(day) => self.ranking.set_day(day),
            QuakeEvent::Player {
                player,
                team,
                renamed_from,
                raw_name,
                ..
            } => {
                let id = self.id(parser, player, watch);
                if watch.is_watching() {
                    watch.team(id, team);
                    if let Some(old) = renamed_from {
                        watch.alias(id, parser.player_name(old));
                    }
                    if let Some(raw) = raw_name {
                        watch.alias(id, &raw);
                    }
                }
            }
            QuakeEvent::Kill {
                time,
                killer,
                victim,
                weapon,
                team_kill,
            } => {
                self.rated();
                let v = self.id(parser, victim, watch);
                let k = match killer {
                    Killer::World => None,
                    Killer::Player(p) => Some(self.id(parser, p, watch)),
                };
                let _ = match k {
                    None => self.ranking.apply(FragEvent::WorldKill { victim: v }),
                    Some(k) if k == v => self.ranking.apply(FragEvent::Suicide { player: v }),
                    Some(k) if team_kill => self.ranking.apply(FragEvent::TeamKill {
                        killer: k,
                        victim: v,
                    }),
                    Some(k) => self.ranking.apply(FragEvent::Frag {
                        killer: k,
                        victim: v,
                    }),
                };
                if let Some(k) = k {
                    self.matrix.add(k, v);
                }
                if watch.is_watching() {
                    watch.kill(KillRecord {
                        time,
                        killer: k,
                        victim: v,
                        weapon: parser.weapon_name(weapon),
                        team_kill,
                    });
                }
            }
            QuakeEvent::Flag {
                player,
                team,
                action,
            } => {
                if action != FlagAction::Captured {
                    let id = self.id(parser, player, watch);
                    watch.flag(id, action);
                    return;
                }
                self.rated();
                let id = self.id(parser, player, watch);
                let mut opponents = std::mem::take(&mut self.opponents);
                opponents.clear();
                if let Some(other) = team.other() {
                    for p in parser.team_members(other) {
                        opponents.push(self.id(parser, p, watch));
                    }
                }
                let _ = self.ranking.apply(FragEvent::Capture {
                    player: id,
                    opponents: &opponents,
                });
                self.opponents = opponents;
                watch.flag(id, action);
            }
            QuakeEvent::TeamScore { red, blue } => watch.team_score(red, blue),
            QuakeEvent::Score { player, score, .. } => {
                let id = self.id(parser, player, watch);
                watch.score(id, score);
            }
            QuakeEvent::Exit(reason) => watch.exit(reason),
            QuakeEvent::GameEnd { end, .. } => self.end_game(end, watch),
        }
    }

    fn end_game(&mut self, end: GameEnd, watch: &mut impl Watch) {
        let Some((_, any)) = self.game.take() else {
            return;
        };
        if !any {
            // Warm-ups and empty maps: no games counted, no decay.
            watch.drop_game();
            return;
        }
        self.games_rated += 1;
        let players = self.ranking.end_game();
        let rows: Vec<GameRow> = players
            .iter()
            .map(|&p| GameRow {
                player: p,
                strength_after: self.ranking.strength(p),
            })
            .collect();
        watch.end_game(end, rows);
    }

    /// Reads a whole log, `name`, from `input` with `parser` (which keeps the counts of
    /// what it read).
    ///
    /// # Errors
    /// Read errors of the input; [`NotUtf8`](super::NotUtf8) for a log in UTF-16 or
    /// UTF-32, before anything of it is read.
    pub fn read_log(
        &mut self,
        parser: &mut QuakeParser,
        name: &str,
        input: &mut dyn Read,
        watch: &mut impl Watch,
    ) -> io::Result<()> {
        self.new_log(name);
        let mut lines = LineReader::new(input);
        self.read_available(&mut lines, parser, watch)?;
        parser.set_bytes(lines.consumed());
        self.finish_file(&mut lines, parser, watch)
    }

    /// Reads `lines` to their present end. Returns whether a kill, capture or game end
    /// came (something that changes the ranking).
    ///
    /// # Errors
    /// Read errors of the input; [`NotUtf8`](super::NotUtf8) for an input in UTF-16 or
    /// UTF-32, at its first line.
    pub fn read_available<R: Read>(
        &mut self,
        lines: &mut LineReader<R>,
        parser: &mut QuakeParser,
        watch: &mut impl Watch,
    ) -> io::Result<bool> {
        let mut changed = false;
        loop {
            match lines.next_line()? {
                Line::Full(line) => parser.feed_line(line),
                Line::Overlong { head, len } => parser.overlong_line(head, len),
                Line::End => return Ok(changed),
            }
            while let Some(e) = parser.next_event() {
                changed |= matches!(
                    e,
                    QuakeEvent::Kill { .. } | QuakeEvent::Flag { .. } | QuakeEvent::GameEnd { .. }
                );
                self.event(parser, e, watch);
            }
        }
    }

    /// Ends a file: its last line even without a line break, then what the parser still
    /// holds (a game cut off by the end of the file).
    ///
    /// # Errors
    /// [`NotUtf8`](super::NotUtf8) when that last line is the first of an input in
    /// UTF-16 or UTF-32: nothing of it is read.
    pub fn finish_file<R: Read>(
        &mut self,
        lines: &mut LineReader<R>,
        parser: &mut QuakeParser,
        watch: &mut impl Watch,
    ) -> io::Result<()> {
        match lines.take_partial()? {
            Line::Full(last) => parser.feed_line(last),
            Line::Overlong { head, len } => parser.overlong_line(head, len),
            Line::End => {}
        }
        self.finish_parser(parser, watch);
        Ok(())
    }

    /// Ends what `parser` holds (a game cut off where its input stopped).
    pub fn finish_parser(&mut self, parser: &mut QuakeParser, watch: &mut impl Watch) {
        parser.finish();
        while let Some(e) = parser.next_event() {
            self.event(parser, e, watch);
        }
    }
}

/// Watches through the watch it holds, if any.
impl<W: Watch> Watch for Option<W> {
    #[inline]
    fn is_watching(&self) -> bool {
        self.as_ref().is_some_and(Watch::is_watching)
    }
    #[inline]
    fn new_player(&mut self, player: PlayerId) {
        if let Some(w) = self {
            w.new_player(player);
        }
    }
    #[inline]
    fn game_start(&mut self, info: &GameInfo, file: &str) {
        if let Some(w) = self {
            w.game_start(info, file);
        }
    }
    #[inline]
    fn alias(&mut self, player: PlayerId, old: &str) {
        if let Some(w) = self {
            w.alias(player, old);
        }
    }
    #[inline]
    fn team(&mut self, player: PlayerId, team: Team) {
        if let Some(w) = self {
            w.team(player, team);
        }
    }
    #[inline]
    fn kill(&mut self, kill: KillRecord<'_>) {
        if let Some(w) = self {
            w.kill(kill);
        }
    }
    #[inline]
    fn flag(&mut self, player: PlayerId, action: FlagAction) {
        if let Some(w) = self {
            w.flag(player, action);
        }
    }
    #[inline]
    fn team_score(&mut self, red: i32, blue: i32) {
        if let Some(w) = self {
            w.team_score(red, blue);
        }
    }
    #[inline]
    fn score(&mut self, player: PlayerId, score: i32) {
        if let Some(w) = self {
            w.score(player, score);
        }
    }
    #[inline]
    fn exit(&mut self, reason: String) {
        if let Some(w) = self {
            w.exit(reason);
        }
    }
    #[inline]
    fn drop_game(&mut self) {
        if let Some(w) = self {
            w.drop_game();
        }
    }
    #[inline]
    fn end_game(&mut self, end: GameEnd, rows: Vec<GameRow>) {
        if let Some(w) = self {
            w.end_game(end, rows);
        }
    }
}
