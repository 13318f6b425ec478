//! The push parser of Quake 3 log lines.

use std::collections::{HashMap, VecDeque};

use super::events::{
    FlagAction, GameEnd, GameInfo, GameType, Killer, LogSummary, PlayerRef, QuakeEvent,
    SkippedLine, Team, WeaponRef,
};
use super::fields::{int, signed, strip, timestamp, trim, trim_start};
use super::{MAX_NAME, WORLD};

#[derive(Debug, Clone, Copy)]
struct Slot {
    player: PlayerRef,
    team: Team,
    fresh: bool,
}

/// The push parser: feed lines, take events. See the module docs.
#[derive(Debug, Default)]
pub struct QuakeParser {
    names: Vec<String>,
    name_index: HashMap<String, PlayerRef>,
    weapons: Vec<String>,
    weapon_index: HashMap<String, WeaponRef>,
    weapon_cache: Vec<Option<WeaponRef>>,
    slots: Vec<Option<Slot>>,
    game: Option<(u32, GameType)>,
    events: VecDeque<QuakeEvent>,
    summary: LogSummary,
}

/// A player's name as the ranking knows it: the log's name without its Quake 3 colour
/// codes (`^` and the character after it, unless that is another `^`: `^1Red^7Devil` is
/// `RedDevil`), white space trimmed. A name that is nothing but colour codes and spaces
/// keeps its raw spelling, trimmed (`^1^2` stays `^1^2`).
pub(crate) fn plain_name(raw: &str) -> std::borrow::Cow<'_, str> {
    let raw = raw.trim();
    if !raw.contains('^') {
        return raw.into();
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '^' && chars.peek().is_some_and(|&n| n != '^') {
            chars.next();
            continue;
        }
        out.push(c);
    }
    let plain = out.trim();
    if plain.is_empty() {
        raw.into()
    } else {
        plain.to_string().into()
    }
}

/// Days since 1970-01-01 of a civil date, `None` for a date that does not exist.
fn day_number(y: i64, m: i64, d: i64) -> Option<i64> {
    let date = jiff::civil::Date::new(
        i16::try_from(y).ok()?,
        i8::try_from(m).ok()?,
        i8::try_from(d).ok()?,
    )
    .ok()?;
    Some(i64::from(
        (date - jiff::civil::Date::constant(1970, 1, 1)).get_days(),
    ))
}

impl QuakeParser {
    /// A parser with nothing seen.
    #[must_use]
    pub fn new() -> Self {
        QuakeParser::default()
    }

    /// The name of a player.
    ///
    /// # Panics
    /// If `p` was not handed out by this parser.
    #[must_use]
    pub fn player_name(&self, p: PlayerRef) -> &str {
        &self.names[p.0 as usize]
    }

    /// Number of distinct player names seen.
    #[must_use]
    pub fn players(&self) -> usize {
        self.names.len()
    }

    /// The name of a means of death (`MOD_ROCKET`, …).
    ///
    /// # Panics
    /// If `w` was not handed out by this parser.
    #[must_use]
    pub fn weapon_name(&self, w: WeaponRef) -> &str {
        &self.weapons[w.0 as usize]
    }

    /// The players on `team` in the current game, by their latest slot assignment.
    #[must_use]
    pub fn team_members(&self, team: Team) -> Vec<PlayerRef> {
        let mut out: Vec<PlayerRef> = self
            .slots
            .iter()
            .flatten()
            .filter(|s| s.team == team)
            .map(|s| s.player)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The counts so far.
    #[must_use]
    pub fn summary(&self) -> &LogSummary {
        &self.summary
    }

    /// Records the bytes read so far (the parser sees lines, not bytes).
    pub fn set_bytes(&mut self, bytes: u64) {
        self.summary.bytes = bytes;
    }

    /// The next queued event.
    pub fn next_event(&mut self) -> Option<QuakeEvent> {
        self.events.pop_front()
    }

    /// Counts a line that was too long to read (see [`LineReader`](super::lines::LineReader)),
    /// of which `head` are the first bytes and `len` the length, and keeps it as an example.
    pub fn overlong_line(&mut self, head: &[u8], len: u64) {
        self.summary.lines += 1;
        self.summary.overlong += 1;
        self.example("too long", head, len);
    }

    /// Ends input: a game still open ends as [`GameEnd::EndOfInput`].
    pub fn finish(&mut self) {
        if let Some((number, _)) = self.game.take() {
            self.summary.cut_off += 1;
            self.events.push_back(QuakeEvent::GameEnd {
                number,
                end: GameEnd::EndOfInput,
            });
        }
    }

    fn intern(&mut self, name: &str) -> PlayerRef {
        if let Some(&p) = self.name_index.get(name) {
            return p;
        }
        let p = PlayerRef(self.names.len() as u32);
        self.names.push(name.to_string());
        self.name_index.insert(name.to_string(), p);
        p
    }

    fn weapon(&mut self, name: &str) -> WeaponRef {
        if let Some(&w) = self.weapon_index.get(name) {
            return w;
        }
        let w = WeaponRef(u16::try_from(self.weapons.len()).unwrap_or(u16::MAX));
        if w.0 == u16::MAX {
            // More than 65,535 distinct means of death is noise: fold them together.
            return self.weapon("MOD_UNKNOWN");
        }
        self.weapons.push(name.to_string());
        self.weapon_index.insert(name.to_string(), w);
        w
    }

    /// The weapon of a Kill line: cached by the line's means-of-death number, checked
    /// against the name (mods renumber), else looked up by name.
    fn weapon_bytes(&mut self, mod_id: u32, name: &[u8]) -> WeaponRef {
        let slot = mod_id as usize;
        if let Some(Some(w)) = self.weapon_cache.get(slot) {
            if self.weapons[w.0 as usize].as_bytes() == name {
                return *w;
            }
        }
        let w = match std::str::from_utf8(name) {
            Ok(n) => self.weapon(n),
            Err(_) => self.weapon(&String::from_utf8_lossy(name)),
        };
        if slot < 256 {
            if self.weapon_cache.len() <= slot {
                self.weapon_cache.resize(slot + 1, None);
            }
            self.weapon_cache[slot] = Some(w);
        }
        w
    }

    fn skip(&mut self, reason: &'static str, line: &[u8]) {
        if reason == "unrecognised" {
            self.summary.unrecognised += 1;
        } else {
            self.summary.malformed += 1;
        }
        self.example(reason, line, line.len() as u64);
    }

    /// Keeps a skipped line of `len` bytes beginning with `line` among the first ten.
    fn example(&mut self, reason: &'static str, line: &[u8], len: u64) {
        if self.summary.examples.len() < 10 {
            let text = String::from_utf8_lossy(line);
            self.summary.examples.push(SkippedLine {
                line: self.summary.lines,
                reason,
                text: text.chars().take(80).collect(),
                len,
            });
        }
    }

    /// Starts a game when events arrive outside any (a log that begins mid-game).
    fn ensure_game(&mut self) -> GameType {
        if let Some((_, t)) = self.game {
            return t;
        }
        self.start_game(0, GameType::Ffa, String::new());
        GameType::Ffa
    }

    fn start_game(&mut self, line: u64, game_type: GameType, map: String) {
        if let Some((number, _)) = self.game.take() {
            self.summary.cut_off += 1;
            self.events.push_back(QuakeEvent::GameEnd {
                number,
                end: GameEnd::CutOff,
            });
        }
        self.summary.games += 1;
        let number = self.summary.games;
        self.slots.clear();
        self.game = Some((number, game_type));
        self.events.push_back(QuakeEvent::GameStart(GameInfo {
            number,
            line,
            game_type,
            map,
        }));
    }

    fn slot(&self, id: u32) -> Option<Slot> {
        self.slots.get(id as usize).copied().flatten()
    }

    /// Parses one line (without its newline) and queues its events. A line read (not
    /// skipped) with bytes that are not UTF-8 is counted in [`LogSummary::not_utf8`].
    pub fn feed_line(&mut self, raw: &[u8]) {
        let skipped = self.summary.skipped();
        self.read_line(raw);
        if self.summary.skipped() == skipped && !raw.is_ascii() && std::str::from_utf8(raw).is_err()
        {
            self.summary.not_utf8 += 1;
        }
    }

    fn read_line(&mut self, raw: &[u8]) {
        self.summary.lines += 1;
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        let mut s = trim_start(line);
        if s.is_empty() {
            self.summary.empty += 1;
            return;
        }
        let mut time = 0;
        if s[0].is_ascii_digit() {
            match timestamp(s) {
                Some((t, rest)) => {
                    time = t;
                    s = trim_start(rest);
                }
                None => return self.skip("unrecognised", raw),
            }
            if s.first().is_some_and(u8::is_ascii_digit) {
                // Line 97 of qgames.log: `26  0:00 ----`, an overwritten line.
                match timestamp(s) {
                    Some((t, rest)) => {
                        self.summary.repaired += 1;
                        time = t;
                        s = trim_start(rest);
                    }
                    None => return self.skip("unrecognised", raw),
                }
            }
        }
        if s.starts_with(b"---") && s.iter().all(|&b| b == b'-' || b.is_ascii_whitespace()) {
            self.summary.ignored += 1;
            return;
        }
        let Some(colon) = memchr::memchr(b':', s) else {
            return self.skip("unrecognised", raw);
        };
        let (event, args) = (&s[..colon], &s[colon + 1..]);
        let ok = match event {
            b"Kill" => self.kill(time, args),
            b"ClientDisconnect" => self.disconnect(args),
            b"Item" | b"ClientBegin" | b"say" | b"sayteam" | b"tell" | b"Warmup"
            | b"Game_Start" | b"Game_End" | b"Weapon_Stats" | b"Award" | b"Challenge" | b"Info"
            | b"Playerstore" | b"Restore" | b"PlayerScore" | b"Callvote" | b"Vote" | b"Team"
            | b"ClientConnect_Bot" => {
                self.summary.ignored += 1;
                true
            }
            b"ClientConnect" => self.connect(args),
            b"ClientUserinfoChanged" => self.userinfo(args),
            b"InitGame" => self.init_game(args),
            b"ShutdownGame" => {
                if let Some((number, _)) = self.game.take() {
                    self.events.push_back(QuakeEvent::GameEnd {
                        number,
                        end: GameEnd::Shutdown,
                    });
                }
                self.summary.ignored += 1;
                true
            }
            b"score" => self.score(args),
            b"red" => self.team_score(args),
            b"Exit" => {
                self.ensure_game();
                let reason = String::from_utf8_lossy(trim(args)).into_owned();
                self.events.push_back(QuakeEvent::Exit(reason));
                true
            }
            b"ServerTime" => self.server_time(args),
            b"CTF" => self.ctf(args),
            _ => return self.skip("unrecognised", raw),
        };
        if !ok {
            self.skip("malformed", raw);
        }
    }

    fn init_game(&mut self, args: &[u8]) -> bool {
        let mut game_type = GameType::Ffa;
        let mut map = String::new();
        let mut parts = trim(args).split(|&b| b == b'\\');
        if parts.next().is_some_and(|first| !first.is_empty()) {
            return false;
        }
        while let (Some(k), Some(v)) = (parts.next(), parts.next()) {
            match k {
                b"g_gametype" => {
                    // Tolerates `\= 0` seen in real logs.
                    let digits = v.iter().skip_while(|b| !b.is_ascii_digit());
                    let d: Vec<u8> = digits.copied().collect();
                    if let Some((n, _)) = int(&d) {
                        game_type = GameType::from_number(n);
                    }
                }
                b"mapname" => map = String::from_utf8_lossy(v).into_owned(),
                _ => {}
            }
        }
        self.start_game(self.summary.lines, game_type, map);
        self.summary.ignored += 0;
        true
    }

    fn connect(&mut self, args: &[u8]) -> bool {
        let Some((id, _)) = int(trim_start(args)) else {
            return false;
        };
        self.ensure_game();
        if let Some(Some(slot)) = self.slots.get_mut(id as usize) {
            slot.fresh = true;
        }
        true
    }

    fn disconnect(&mut self, args: &[u8]) -> bool {
        let Some((id, _)) = int(trim_start(args)) else {
            return false;
        };
        // The slot is free: the player no longer counts for their team.
        if let Some(slot) = self.slots.get_mut(id as usize) {
            *slot = None;
        }
        self.summary.ignored += 1;
        true
    }

    fn userinfo(&mut self, args: &[u8]) -> bool {
        let Some((id, rest)) = int(trim_start(args)) else {
            return false;
        };
        if id >= 1024 {
            return false;
        }
        let mut name: Option<&[u8]> = None;
        let mut team = Team::Free;
        let mut parts = trim(rest).split(|&b| b == b'\\');
        while let (Some(k), Some(v)) = (parts.next(), parts.next()) {
            match k {
                b"n" => name = Some(v),
                b"t" => team = Team::from_number(int(v).map_or(0, |(n, _)| n)),
                _ => {}
            }
        }
        let Some(name) = name.filter(|n| n.len() <= MAX_NAME) else {
            return false;
        };
        let raw = String::from_utf8_lossy(name);
        let name = plain_name(&raw);
        if name.is_empty() {
            return false;
        }
        let raw_name = (name != raw.trim()).then(|| raw.trim().to_string());
        self.ensure_game();
        let player = self.intern(&name);
        let idx = id as usize;
        if self.slots.len() <= idx {
            self.slots.resize(idx + 1, None);
        }
        let renamed_from = match self.slots[idx] {
            Some(old) if !old.fresh && old.player != player => Some(old.player),
            _ => None,
        };
        self.slots[idx] = Some(Slot {
            player,
            team,
            fresh: false,
        });
        self.events.push_back(QuakeEvent::Player {
            client: id,
            player,
            team,
            renamed_from,
            raw_name,
        });
        true
    }

    fn kill(&mut self, time: u32, args: &[u8]) -> bool {
        let s = trim_start(args);
        let Some((k, s)) = int(s) else { return false };
        let Some((v, s)) = int(trim_start(s)) else {
            return false;
        };
        let Some((mod_id, s)) = int(trim_start(s)) else {
            return false;
        };
        let Some(text) = s.strip_prefix(b":") else {
            return false;
        };
        let text = trim(text);
        // `<killer> killed <victim> by MOD_X[ extra]`: the weapon is the token after the
        // last " by ".
        let Some(by) = text.windows(4).rposition(|w| w == b" by ") else {
            return false;
        };
        let weapon = &text[by + 4..];
        let weapon = weapon.split(|&b| b == b' ').next().unwrap_or(weapon);
        if weapon.is_empty() || weapon.len() > MAX_NAME {
            return false;
        }
        let names = &text[..by];
        let game_type = self.ensure_game();
        let victim = match self.slot(v) {
            Some(slot) => slot.player,
            None => {
                // The slot was never announced (the log began mid-game): take the name
                // from the text.
                let Some(at) = memchr::memmem::find(names, b" killed ") else {
                    return false;
                };
                let text = String::from_utf8_lossy(trim(&names[at + 8..]));
                let name = plain_name(&text);
                if name.is_empty() || text.len() > MAX_NAME {
                    return false;
                }
                self.intern(&name)
            }
        };
        let killer_slot = if k == WORLD { None } else { self.slot(k) };
        let killer = if k == WORLD {
            Killer::World
        } else if k == v {
            Killer::Player(victim)
        } else {
            match killer_slot {
                Some(slot) => Killer::Player(slot.player),
                None => {
                    let Some(at) = memchr::memmem::find(names, b" killed ") else {
                        return false;
                    };
                    let text = String::from_utf8_lossy(trim(&names[..at]));
                    let name = plain_name(&text);
                    if name.is_empty() || text.len() > MAX_NAME || name == "<world>" {
                        return false;
                    }
                    Killer::Player(self.intern(&name))
                }
            }
        };
        let weapon = self.weapon_bytes(mod_id, weapon);
        let team_kill = match (killer_slot, self.slot(v)) {
            (Some(a), Some(b)) => {
                game_type.is_team()
                    && k != v
                    && a.team == b.team
                    && matches!(a.team, Team::Red | Team::Blue)
            }
            _ => false,
        };
        self.summary.kills += 1;
        match killer {
            Killer::World => self.summary.world_kills += 1,
            Killer::Player(p) if p == victim => self.summary.suicides += 1,
            _ if team_kill => self.summary.team_kills += 1,
            _ => {}
        }
        self.events.push_back(QuakeEvent::Kill {
            time,
            killer,
            victim,
            weapon,
            team_kill,
        });
        true
    }

    fn score(&mut self, args: &[u8]) -> bool {
        let s = trim_start(args);
        let Some((score, s)) = signed(s) else {
            return false;
        };
        let Some(s) = strip(trim_start(s), b"ping:") else {
            return false;
        };
        let Some((ping, s)) = int(trim_start(s)) else {
            return false;
        };
        let Some(s) = strip(trim_start(s), b"client:") else {
            return false;
        };
        let Some((_client, s)) = int(trim_start(s)) else {
            return false;
        };
        let text = String::from_utf8_lossy(trim(s));
        let name = plain_name(&text);
        if name.is_empty() || text.len() > MAX_NAME {
            return false;
        }
        self.ensure_game();
        let player = self.intern(&name);
        self.events.push_back(QuakeEvent::Score {
            player,
            score,
            ping,
        });
        true
    }

    fn team_score(&mut self, args: &[u8]) -> bool {
        let Some((red, s)) = signed(trim_start(args)) else {
            return false;
        };
        let Some(s) = strip(trim_start(s), b"blue:") else {
            return false;
        };
        let Some((blue, _)) = signed(trim_start(s)) else {
            return false;
        };
        self.ensure_game();
        self.events.push_back(QuakeEvent::TeamScore { red, blue });
        true
    }

    fn server_time(&mut self, args: &[u8]) -> bool {
        let s = trim_start(args);
        let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
        if n < 8 {
            return false;
        }
        let num = |r: std::ops::Range<usize>| {
            s[r].iter().fold(0i64, |a, &b| a * 10 + i64::from(b - b'0'))
        };
        let Some(day) = day_number(num(0..4), num(4..6), num(6..8)) else {
            return false;
        };
        self.events.push_back(QuakeEvent::Day(day));
        true
    }

    fn ctf(&mut self, args: &[u8]) -> bool {
        let s = trim_start(args);
        let Some((client, s)) = int(s) else {
            return false;
        };
        let Some((_team, s)) = signed(trim_start(s)) else {
            return false;
        };
        let Some((action, _)) = int(trim_start(s)) else {
            return false;
        };
        let action = match action {
            0 => FlagAction::Taken,
            1 => FlagAction::Captured,
            2 => FlagAction::Returned,
            3 => FlagAction::CarrierFragged,
            _ => return false,
        };
        self.ensure_game();
        let Some(slot) = self.slot(client) else {
            // "The flag was returned" by nobody (client −1 does not parse): nothing to rate.
            return true;
        };
        self.events.push_back(QuakeEvent::Flag {
            player: slot.player,
            team: slot.team,
            action,
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quake::{QuakeLog, MAX_LINE};

    fn events(text: &str) -> (Vec<QuakeEvent>, QuakeParser) {
        let mut log = QuakeLog::new(text.as_bytes());
        let ev: Vec<_> = log.by_ref().map(Result::unwrap).collect();
        (ev, log.into_parser())
    }

    #[test]
    fn days_since_1970() {
        assert_eq!(day_number(1970, 1, 1), Some(0));
        assert_eq!(day_number(2017, 6, 21), Some(17_338));
        assert_eq!(day_number(1969, 12, 31), Some(-1));
        assert_eq!(day_number(2017, 2, 29), None);
    }

    /// Found by the fuzz target: `6:999999999 Item:` overflowed the seconds.
    #[test]
    fn regression_timestamp_with_huge_seconds_saturates() {
        let (_, p) = events("  6:999999999 Item: 8 weapon_railgun\n");
        assert_eq!(p.summary().ignored, 1);
    }

    #[test]
    fn games_kills_renames_and_world() {
        let log = "  0:00 InitGame: \\sv_hostname\\x\\g_gametype\\= 0\\mapname\\q3dm17\n\
                   \x20 0:01 ClientConnect: 2\n\
                   \x20 0:01 ClientUserinfoChanged: 2 n\\Dono da Bola\\t\\0\\model\\sarge\n\
                   \x20 0:02 ClientUserinfoChanged: 2 n\\Mocinha\\t\\0\\model\\sarge\n\
                   \x20 0:03 ClientUserinfoChanged: 3 n\\Zeh\\t\\0\n\
                   \x20 0:04 Kill: 3 2 7: Zeh killed Mocinha by MOD_ROCKET_SPLASH\n\
                   \x20 0:05 Kill: 2 2 7: Mocinha killed Mocinha by MOD_ROCKET_SPLASH\n\
                   \x20 0:06 Kill: 1022 3 22: <world> killed Zeh by MOD_TRIGGER_HURT\n\
                   \x20 0:07 Item: 2 weapon_rocketlauncher\n\
                   \x20 0:08 Exit: Fraglimit hit.\n\
                   \x20 0:08 score: 1  ping: 4  client: 3 Zeh\n\
                   \x20 0:08 score: -1  ping: 4  client: 2 Mocinha\n\
                   \x20 0:09 ShutdownGame:\n";
        let (ev, p) = events(log);
        assert!(
            matches!(&ev[0], QuakeEvent::GameStart(g) if g.game_type == GameType::Ffa && g.map == "q3dm17")
        );
        let renames: Vec<_> = ev
            .iter()
            .filter_map(|e| match e {
                QuakeEvent::Player {
                    renamed_from: Some(old),
                    player,
                    ..
                } => Some((p.player_name(*old), p.player_name(*player))),
                _ => None,
            })
            .collect();
        assert_eq!(renames, vec![("Dono da Bola", "Mocinha")]);
        let kills: Vec<_> = ev
            .iter()
            .filter_map(|e| match e {
                QuakeEvent::Kill {
                    killer,
                    victim,
                    weapon,
                    time,
                    ..
                } => Some((
                    *killer,
                    p.player_name(*victim),
                    p.weapon_name(*weapon),
                    *time,
                )),
                _ => None,
            })
            .collect();
        let zeh = p.name_index["Zeh"];
        let moc = p.name_index["Mocinha"];
        assert_eq!(
            kills,
            vec![
                (Killer::Player(zeh), "Mocinha", "MOD_ROCKET_SPLASH", 40),
                (Killer::Player(moc), "Mocinha", "MOD_ROCKET_SPLASH", 50),
                (Killer::World, "Zeh", "MOD_TRIGGER_HURT", 60),
            ]
        );
        assert!(ev.contains(&QuakeEvent::Score {
            player: moc,
            score: -1,
            ping: 4
        }));
        assert!(ev.contains(&QuakeEvent::Exit("Fraglimit hit.".into())));
        assert_eq!(
            ev.last(),
            Some(&QuakeEvent::GameEnd {
                number: 1,
                end: GameEnd::Shutdown
            })
        );
        let s = p.summary();
        assert_eq!((s.kills, s.world_kills, s.suicides), (3, 1, 1));
        assert_eq!((s.games, s.cut_off, s.skipped()), (1, 0, 0));
    }

    #[test]
    fn colour_codes_are_stripped_from_names() {
        assert_eq!(plain_name("^1Red^7Devil"), "RedDevil");
        assert_eq!(plain_name(" ^3 Zeh ^7"), "Zeh");
        assert_eq!(plain_name("a^^1b"), "a^b");
        assert_eq!(plain_name("up^"), "up^");
        assert_eq!(plain_name("^xŁ^ódź"), "Łdź");
        // Nothing but colour codes: the raw name, trimmed.
        assert_eq!(plain_name(" ^1^2 "), "^1^2");
        assert_eq!(plain_name("^1 ^7"), "^1 ^7");
    }

    #[test]
    fn coloured_names_are_one_player_with_their_spelling_kept() {
        let log = "  0:00 InitGame: \\g_gametype\\0\\mapname\\q3dm6\n\
                   \x20 0:01 ClientConnect: 2\n\
                   \x20 0:01 ClientUserinfoChanged: 2 n\\^1Red^7Devil\\t\\0\\model\\x\n\
                   \x20 0:01 ClientUserinfoChanged: 4 n\\RedDevil\\t\\0\\model\\x\n\
                   \x20 0:02 Kill: 2 4 7: ^1Red^7Devil killed RedDevil by MOD_ROCKET\n\
                   \x20 0:03 Kill: 1022 9 22: <world> killed ^2Zeh by MOD_LAVA\n\
                   \x20 0:04 score: 3  ping: 4  client: 9 ^2Zeh^7\n";
        let (ev, p) = events(log);
        let players: Vec<_> = ev
            .iter()
            .filter_map(|e| match e {
                QuakeEvent::Player {
                    player, raw_name, ..
                } => Some((p.player_name(*player), raw_name.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            players,
            vec![
                ("RedDevil", Some("^1Red^7Devil".to_string())),
                ("RedDevil", None)
            ]
        );
        let red = p.name_index["RedDevil"];
        let zeh = p.name_index["Zeh"];
        assert!(ev.contains(&QuakeEvent::Kill {
            time: 20,
            killer: Killer::Player(red),
            victim: red,
            weapon: WeaponRef(0),
            team_kill: false
        }));
        assert!(ev.contains(&QuakeEvent::Score {
            player: zeh,
            score: 3,
            ping: 4
        }));
        assert_eq!(p.players(), 2);
        assert_eq!(p.summary().suicides, 1);
    }

    #[test]
    fn lines_with_bytes_not_utf8_are_read_and_counted() {
        let log = b"  0:00 InitGame: \\g_gametype\\0\\mapname\\q3\xffdm\n\
                    \x20 0:01 ClientUserinfoChanged: 2 n\\R\xffD\\t\\0\n\
                    \x20 0:01 ClientUserinfoChanged: 3 n\\x\\t\\0\n\
                    \x20 0:02 Kill: 2 3 7: R\xffD killed x by MOD_ROCKET\n\
                    \x20 0:03 Kill: 3 9 7: x killed Z\xc3 by MOD_ROCKET\n\
                    \x20 bad \xff\n\
                    \x20 0:04 say: caf\xc3\xa9\n";
        let mut log = QuakeLog::new(&log[..]);
        let ev: Vec<_> = log.by_ref().map(Result::unwrap).collect();
        let p = log.parser();
        assert!(
            matches!(&ev[0], QuakeEvent::GameStart(g) if g.map == "q3\u{fffd}dm"),
            "{ev:?}"
        );
        let kills: Vec<_> = ev
            .iter()
            .filter_map(|e| match e {
                QuakeEvent::Kill {
                    killer: Killer::Player(k),
                    victim,
                    ..
                } => Some((p.player_name(*k), p.player_name(*victim))),
                _ => None,
            })
            .collect();
        assert_eq!(kills, vec![("R\u{fffd}D", "x"), ("x", "Z\u{fffd}")]);
        let s = p.summary();
        // The InitGame, the name, both kills; not the skipped line, nor valid UTF-8.
        assert_eq!((s.not_utf8, s.unrecognised, s.kills), (4, 1, 2));
        assert!(
            s.in_words()
                .contains(", 4 lines not valid UTF-8 (read, bad bytes as U+FFFD); skipped 1 line"),
            "{}",
            s.in_words()
        );
    }

    #[test]
    fn client_ids_are_reused_across_games_and_reconnects() {
        let log = "0:00 InitGame: \\g_gametype\\0\n\
                   0:01 ClientUserinfoChanged: 2 n\\Ann\\t\\0\n\
                   0:02 ShutdownGame:\n\
                   0:00 InitGame: \\g_gametype\\0\n\
                   0:01 ClientUserinfoChanged: 2 n\\Bo\\t\\0\n\
                   0:02 ClientConnect: 2\n\
                   0:02 ClientUserinfoChanged: 2 n\\Cy\\t\\0\n";
        let (ev, p) = events(log);
        let players: Vec<_> = ev
            .iter()
            .filter_map(|e| match e {
                QuakeEvent::Player {
                    player,
                    renamed_from,
                    ..
                } => Some((p.player_name(*player), renamed_from.is_some())),
                _ => None,
            })
            .collect();
        assert_eq!(players, vec![("Ann", false), ("Bo", false), ("Cy", false)]);
        // The second game had no shutdown: it ends at the end of input.
        assert_eq!(
            ev.last(),
            Some(&QuakeEvent::GameEnd {
                number: 2,
                end: GameEnd::EndOfInput
            })
        );
    }

    #[test]
    fn disconnected_players_leave_their_team_and_long_names_are_malformed() {
        let long = "x".repeat(MAX_NAME + 1);
        let log = format!(
            "0:00 InitGame: \\g_gametype\\4\n\
             0:01 ClientUserinfoChanged: 1 n\\A\\t\\1\n\
             0:01 ClientUserinfoChanged: 2 n\\B\\t\\1\n\
             0:01 ClientUserinfoChanged: 3 n\\{long}\\t\\2\n\
             0:02 ClientDisconnect: 2\n"
        );
        let mut log = QuakeLog::new(log.as_bytes());
        for e in log.by_ref() {
            e.unwrap();
        }
        let p = log.parser();
        assert_eq!(p.team_members(Team::Red), vec![p.name_index["A"]]);
        assert_eq!(p.summary().malformed, 1);
        assert_eq!(p.players(), 2);
    }

    #[test]
    fn line_97_quirk_and_cut_off_games() {
        let log = " 26:09 Item: 2 weapon_rocketlauncher\n\
                   \x2026  0:00 ------------------------------------------------------------\n\
                   \x20 0:00 InitGame: \\g_gametype\\4\\mapname\\ctf1\n";
        let (ev, p) = events(log);
        // An Item before any InitGame is ignored; the quirk line is repaired; the InitGame
        // starts game 1 (nothing to cut off: no game was open).
        assert_eq!(p.summary().repaired, 1);
        assert_eq!(p.summary().skipped(), 0);
        assert!(matches!(&ev[0], QuakeEvent::GameStart(g) if g.game_type == GameType::Ctf));
        let log = "0:00 InitGame: \\g_gametype\\0\n0:01 Item: 1 x\n\x2026  0:00 ----\n0:00 InitGame: \\g_gametype\\0\n";
        let (ev, _) = events(log);
        assert_eq!(
            ev[1],
            QuakeEvent::GameEnd {
                number: 1,
                end: GameEnd::CutOff
            }
        );
    }

    #[test]
    fn osp_kill_lines_server_time_and_team_kills() {
        let log = "0.0 InitGame: \\g_gametype\\4\\mapname\\ctf\n\
                   0.0 ServerTime:\t20170621112856\t11:28:56 (21 Jun 2017)\n\
                   2.8 ClientUserinfoChanged: 0 n\\A\\t\\1\n\
                   2.8 ClientUserinfoChanged: 1 n\\B\\t\\1\n\
                   2.8 ClientUserinfoChanged: 2 n\\C\\t\\2\n\
                   66.6 Kill: 0 1 3: A killed B by MOD_MACHINEGUN 1\n\
                   66.8 Kill: 2 0 3: C killed A by MOD_MACHINEGUN 8\n\
                   70.0 CTF: 2 1 1: C captured the RED flag!\n\
                   70.0 red:0  blue:1\n";
        let (ev, p) = events(log);
        assert!(ev.contains(&QuakeEvent::Day(17_338)));
        let tk: Vec<_> = ev
            .iter()
            .filter_map(|e| match e {
                QuakeEvent::Kill {
                    team_kill, weapon, ..
                } => Some((*team_kill, p.weapon_name(*weapon).to_string())),
                _ => None,
            })
            .collect();
        assert_eq!(
            tk,
            vec![
                (true, "MOD_MACHINEGUN".to_string()),
                (false, "MOD_MACHINEGUN".to_string())
            ]
        );
        let c = p.name_index["C"];
        assert!(ev.contains(&QuakeEvent::Flag {
            player: c,
            team: Team::Blue,
            action: FlagAction::Captured
        }));
        assert!(ev.contains(&QuakeEvent::TeamScore { red: 0, blue: 1 }));
        assert_eq!(p.team_members(Team::Red).len(), 2);
        assert_eq!(p.summary().team_kills, 1);
    }

    #[test]
    fn garbage_is_counted_never_fatal() {
        let mut bytes = b"0:00 InitGame: \\g_gametype\\0\nhello world\n\xff\xfe\x00\x01\n 1:00 Kill: 2 3\n 1:00 Kill: 1022 9 22: <world> killed Ghost by MOD_FALLING\n1:01 Bogus: thing\n\n 1:02 Kill: 2 3 4: a killed".to_vec();
        bytes.extend(std::iter::repeat(b'x').take(MAX_LINE + 10));
        bytes.extend(b"\n1:03 ShutdownGame:\n1:04 Kill: 1 2 3: A kil");
        let mut log = QuakeLog::new(&bytes[..]);
        let ev: Vec<_> = log.by_ref().map(Result::unwrap).collect();
        let s = log.parser().summary();
        // The world kill of an unannounced slot takes the name from the text.
        assert_eq!(s.kills, 1);
        assert_eq!(s.overlong, 1);
        assert_eq!(s.unrecognised, 3); // hello, binary, Bogus
        assert_eq!(s.malformed, 2); // the short Kill and the half-written last line
        assert_eq!(s.empty, 1);
        assert_eq!(s.lines, 10);
        assert_eq!(s.bytes, bytes.len() as u64);
        let examples: Vec<_> = s
            .examples
            .iter()
            .map(|e| (e.line, e.reason, e.text.as_str(), e.len))
            .collect();
        let overlong = format!(" 1:02 Kill: 2 3 4: a killed{}", "x".repeat(53));
        assert_eq!(
            examples,
            vec![
                (2, "unrecognised", "hello world", 11),
                (3, "unrecognised", "\u{fffd}\u{fffd}\0\u{1}", 4),
                (4, "malformed", " 1:00 Kill: 2 3", 15),
                (6, "unrecognised", "1:01 Bogus: thing", 17),
                (8, "too long", overlong.as_str(), (MAX_LINE + 37) as u64),
                (10, "malformed", "1:04 Kill: 1 2 3: A kil", 23),
            ]
        );
        assert!(matches!(ev.last(), Some(QuakeEvent::GameEnd { .. })));
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(data in proptest::collection::vec(proptest::num::u8::ANY, 0..2000)) {
            let mut log = QuakeLog::new(&data[..]);
            if read_or_refused(&mut log) {
                proptest::prop_assert_eq!(log.parser().summary().bytes, data.len() as u64);
            }
        }

        #[test]
        fn mangled_real_lines_never_panic(cut in 0usize..200, noise in proptest::collection::vec(proptest::num::u8::ANY, 0..20)) {
            let base = "  0:00 InitGame: \\g_gametype\\4\\mapname\\x\n 0:01 ClientUserinfoChanged: 2 n\\Ann\\t\\1\n 0:02 Kill: 2 2 7: Ann killed Ann by MOD_ROCKET 1\n 0:03 score: 5  ping: 1  client: 2 Ann\n 0:04 CTF: 2 1 1: Ann captured\n 0:05 red:1  blue:2\n";
            let mut data = base.as_bytes()[..cut.min(base.len())].to_vec();
            data.extend(noise);
            data.extend(base.as_bytes());
            let mut log = QuakeLog::new(&data[..]);
            read_or_refused(&mut log);
        }
    }

    /// Reads `log` to its end: whether it was read, or else refused (as UTF-16 or
    /// UTF-32, as its first line shows) before any event.
    fn read_or_refused(log: &mut QuakeLog<&[u8]>) -> bool {
        let mut events = 0;
        for e in log.by_ref() {
            match e {
                Ok(_) => events += 1,
                Err(e) => {
                    assert!(super::super::NotUtf8::of(&e).is_some(), "{e}");
                    assert_eq!((events, log.parser().summary().lines), (0, 0));
                    return false;
                }
            }
        }
        true
    }
}
