//! What a Quake 3 log says: the events the parser hands out, and the counts of what it
//! read.

/// A player of the log, by name (interned in the order first seen).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PlayerRef(pub u32);

/// A means of death (`MOD_*`), interned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WeaponRef(pub u16);

/// The game type from `g_gametype`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameType {
    /// 0: free for all.
    Ffa,
    /// 1: tournament (duel).
    Tournament,
    /// 2: single player.
    SinglePlayer,
    /// 3: team deathmatch.
    Team,
    /// 4: capture the flag.
    Ctf,
    /// Any other number (mods).
    Other(u32),
}

impl GameType {
    /// From the `g_gametype` number.
    #[must_use]
    pub fn from_number(n: u32) -> GameType {
        match n {
            0 => GameType::Ffa,
            1 => GameType::Tournament,
            2 => GameType::SinglePlayer,
            3 => GameType::Team,
            4 => GameType::Ctf,
            n => GameType::Other(n),
        }
    }

    /// Whether players play in teams (team kills exist). OpenArena's 5–9, 11, 12 are team
    /// modes; 10 (last man standing) is not.
    #[must_use]
    pub fn is_team(self) -> bool {
        match self {
            GameType::Team | GameType::Ctf => true,
            GameType::Other(n) => (5..=12).contains(&n) && n != 10,
            _ => false,
        }
    }

    /// A short name: `ffa`, `duel`, `single`, `team`, `ctf`, `type N`.
    #[must_use]
    pub fn label(self) -> String {
        match self {
            GameType::Ffa => "ffa".into(),
            GameType::Tournament => "duel".into(),
            GameType::SinglePlayer => "single".into(),
            GameType::Team => "team".into(),
            GameType::Ctf => "ctf".into(),
            GameType::Other(n) => format!("type {n}"),
        }
    }
}

/// A player's team (`t\` of `ClientUserinfoChanged`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Team {
    /// 0: no team (free for all).
    #[default]
    Free,
    /// 1.
    Red,
    /// 2.
    Blue,
    /// 3.
    Spectator,
}

impl Team {
    /// From the `t\\` number of a `ClientUserinfoChanged` line; anything else is no team.
    pub(crate) fn from_number(n: u32) -> Team {
        match n {
            1 => Team::Red,
            2 => Team::Blue,
            3 => Team::Spectator,
            _ => Team::Free,
        }
    }

    /// The other team of red and blue.
    #[must_use]
    pub fn other(self) -> Option<Team> {
        match self {
            Team::Red => Some(Team::Blue),
            Team::Blue => Some(Team::Red),
            _ => None,
        }
    }
}

/// Who killed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Killer {
    /// `<world>` (id 1022): lava, falling, triggers.
    World,
    /// A player.
    Player(PlayerRef),
}

/// What happened to a flag (`CTF:` lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagAction {
    /// 0: picked up the enemy flag.
    Taken,
    /// 1: brought it home.
    Captured,
    /// 2: returned own flag.
    Returned,
    /// 3: fragged the enemy flag carrier.
    CarrierFragged,
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameEnd {
    /// A `ShutdownGame` line.
    Shutdown,
    /// The next `InitGame` came without a `ShutdownGame` (a crash, or an overwritten line).
    CutOff,
    /// The input ended inside the game.
    EndOfInput,
}

/// What one game is: from its `InitGame` line.
#[derive(Debug, Clone, PartialEq)]
pub struct GameInfo {
    /// 1-based number of the game in the input.
    pub number: u32,
    /// The line of its `InitGame` (0 when the log started inside a game).
    pub line: u64,
    /// From `g_gametype`.
    pub game_type: GameType,
    /// From `mapname` (empty if missing).
    pub map: String,
}

/// One thing the log says, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum QuakeEvent {
    /// A game starts.
    GameStart(GameInfo),
    /// The server's date (OSP `ServerTime:`), as days since 1970-01-01.
    Day(i64),
    /// A client slot now holds this player on this team. `renamed_from` is the name the
    /// slot had in the same game, when it changed.
    Player {
        /// The client id (slot) in this game.
        client: u32,
        /// The player, by name.
        player: PlayerRef,
        /// Their team.
        team: Team,
        /// The slot's previous name in this game, if this is a rename.
        renamed_from: Option<PlayerRef>,
        /// The name as the log wrote it, when it differs from the player's name (Quake 3
        /// colour codes, `^1Red^7Devil` for `RedDevil`).
        raw_name: Option<String>,
    },
    /// A frag.
    Kill {
        /// Game time in tenths of a second.
        time: u32,
        /// Who killed.
        killer: Killer,
        /// Who died. `killer == Player(victim)` is a suicide.
        victim: PlayerRef,
        /// The means of death.
        weapon: WeaponRef,
        /// Killer and victim were on the same team in a team game.
        team_kill: bool,
    },
    /// A flag event.
    Flag {
        /// Who.
        player: PlayerRef,
        /// The player's team.
        team: Team,
        /// What happened.
        action: FlagAction,
    },
    /// The final team scores.
    TeamScore {
        /// Red's captures.
        red: i32,
        /// Blue's captures.
        blue: i32,
    },
    /// One line of the final scoreboard.
    Score {
        /// The player.
        player: PlayerRef,
        /// The score shown.
        score: i32,
        /// Ping in ms.
        ping: u32,
    },
    /// The game's `Exit:` reason (`Fraglimit hit.`, …).
    Exit(String),
    /// A game ended.
    GameEnd {
        /// Its number.
        number: u32,
        /// How.
        end: GameEnd,
    },
}

/// A skipped line, for the summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedLine {
    /// Its line number.
    pub line: u64,
    /// Why: `unrecognised`, `malformed` or `too long`.
    pub reason: &'static str,
    /// Its first 80 characters.
    pub text: String,
    /// Its length in bytes, without its line break.
    pub len: u64,
}

/// What the reader saw: counts of lines by kind and examples of those skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogSummary {
    /// Lines read.
    pub lines: u64,
    /// Bytes read (newlines included), as counted by the [`LineReader`](super::LineReader).
    pub bytes: u64,
    /// Games started.
    pub games: u32,
    /// Games that ended without a `ShutdownGame`.
    pub cut_off: u32,
    /// `Kill` lines read.
    pub kills: u64,
    /// Of those, by `<world>`.
    pub world_kills: u64,
    /// Of those, players who killed themselves.
    pub suicides: u64,
    /// Of those, team kills.
    pub team_kills: u64,
    /// Known lines without meaning for rankings (`Item:`, `say:`, …) and separators.
    pub ignored: u64,
    /// Lines read from their second timestamp (an overwritten line, see the module docs).
    pub repaired: u64,
    /// Empty lines.
    pub empty: u64,
    /// Lines read (not skipped) although some of their bytes are not UTF-8: the fields the
    /// reader needs are ASCII, and names or words keep U+FFFD in place of those bytes.
    pub not_utf8: u64,
    /// Lines not recognised at all.
    pub unrecognised: u64,
    /// Known events whose arguments did not parse.
    pub malformed: u64,
    /// Lines longer than [`MAX_LINE`](super::MAX_LINE), skipped.
    pub overlong: u64,
    /// The first skipped lines (unrecognised, malformed or too long), at most 10.
    pub examples: Vec<SkippedLine>,
}

impl LogSummary {
    /// Lines skipped: unrecognised, malformed and overlong.
    #[must_use]
    pub fn skipped(&self) -> u64 {
        self.unrecognised + self.malformed + self.overlong
    }

    /// What was read, in words, as `podium frags` and its stats site say it: `5,306
    /// lines, 21 games (1 cut off), 1,069 kills (240 by the world, 61 suicides, 0 team
    /// kills), 1 repaired; no lines skipped` (or `; skipped 6 lines (3 not recognised, 2
    /// malformed, 1 too long)`); lines read with bytes that are not UTF-8 are counted
    /// after the repaired ones: `, 1 line not valid UTF-8 (read, bad bytes as U+FFFD)`.
    #[must_use]
    pub fn in_words(&self) -> String {
        use super::site::{count, thousands};
        let mut out = format!(
            "{}, {} ({} cut off), {} ({} by the world, {}, {})",
            count(self.lines, "line"),
            count(u64::from(self.games), "game"),
            thousands(u64::from(self.cut_off)),
            count(self.kills, "kill"),
            thousands(self.world_kills),
            count(self.suicides, "suicide"),
            count(self.team_kills, "team kill")
        );
        if self.repaired > 0 {
            out.push_str(&format!(", {} repaired", thousands(self.repaired)));
        }
        if self.not_utf8 > 0 {
            out.push_str(&format!(
                ", {} not valid UTF-8 (read, bad bytes as U+FFFD)",
                count(self.not_utf8, "line")
            ));
        }
        if self.skipped() == 0 {
            out.push_str("; no lines skipped");
        } else {
            out.push_str(&format!(
                "; skipped {} ({} not recognised, {} malformed, {} too long)",
                count(self.skipped(), "line"),
                thousands(self.unrecognised),
                thousands(self.malformed),
                thousands(self.overlong)
            ));
        }
        out
    }

    /// Adds another summary's counts (examples are kept up to 10).
    pub fn merge(&mut self, other: &LogSummary) {
        self.lines += other.lines;
        self.bytes += other.bytes;
        self.games += other.games;
        self.cut_off += other.cut_off;
        self.kills += other.kills;
        self.world_kills += other.world_kills;
        self.suicides += other.suicides;
        self.team_kills += other.team_kills;
        self.ignored += other.ignored;
        self.repaired += other.repaired;
        self.empty += other.empty;
        self.not_utf8 += other.not_utf8;
        self.unrecognised += other.unrecognised;
        self.malformed += other.malformed;
        self.overlong += other.overlong;
        for e in &other.examples {
            if self.examples.len() < 10 {
                self.examples.push(e.clone());
            }
        }
    }
}
