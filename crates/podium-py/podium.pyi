"""podium: ratings for multiplayer games (free-for-alls, teams, ties, partial play).

Type stubs of the `podium` module of the `podium-ratings` package.
"""

import datetime
import os
from typing import (
    Any,
    Dict,
    Generic,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    SupportsFloat,
    SupportsIndex,
    Tuple,
    TypeVar,
    Union,
    final,
    overload,
)

__version__: str
__all__ = [
    "BacktestResult",
    "Candidate",
    "Change",
    "ConfigError",
    "Entry",
    "FactorChange",
    "FactorStanding",
    "League",
    "Match",
    "MatchError",
    "Matches",
    "Parameter",
    "PodiumError",
    "Prediction",
    "RateError",
    "RateSummary",
    "Rating",
    "ReadError",
    "SimulationResult",
    "Standing",
    "System",
    "Table",
    "TuneResult",
    "__version__",
    "backtest",
    "read",
    "read_csv",
    "read_jsonl",
    "simulate",
    "systems",
    "tune",
    "versus",
]

# Numbers as the module takes them: an integer is an int or anything with `__index__`
# (numpy's integers), a real number anything with `__float__` (numpy's floats too).
_Int = SupportsIndex
_Real = SupportsFloat
# A time as the module gives it: a datetime in UTC, or the RFC 3339 text of a time before
# the year 1, which a datetime cannot hold.
_Time = Union[datetime.datetime, str]

# ---------------------------------------------------------------- errors

class PodiumError(ValueError):
    """Base class of podium's errors (a ValueError): a bad match, system, parameter or file."""

class MatchError(PodiumError):
    """A match that cannot exist: fewer than two entries, a player twice, an empty team, a
    finish that is not a finite number, ranks mixed with scores, a weight outside (0, 1], a
    player id, team name or match id that is not valid (empty, over 200 bytes, with
    surrounding spaces or control characters), or a bad factor (a kind or value that is
    empty, too long, with surrounding spaces or control characters, a kind with '=' or
    named like a field, a value that is not a string or a whole number within 64 bits, two
    values of one kind or more than 16 kinds for one entry). From `rate_many` and
    `Matches(...)`, given a list: `errors` lists every such match of the list by its
    position (`matches[500]: ...`), and nothing is rated or kept (unless `skip_bad`)."""

    errors: list[str]

class ConfigError(PodiumError):
    """An unknown system, a parameter it does not have, a value it does not accept, or
    settings of the lab (simulation, backtest, tuning) out of their range."""

class RateError(PodiumError):
    """A match the system cannot rate (e.g. elo and three entries, or factors that tell
    entries apart for a system that does not rate factors), a rating it cannot use, or an
    update that would leave a rating that is not a finite number. Nothing of
    the match (or of the batch) is applied. From `rate_many`: `errors` lists every such
    match. From `load_initial`: `file`, `line` and `field` of the bad row."""

    errors: list[str]
    file: Optional[str]
    line: Optional[int]
    field: Optional[str]
    match_id: Optional[str]

class ReadError(PodiumError):
    """A file of matches that cannot be read. The message names the file, the line and
    the field; the attributes hold the first problem's place, `errors` every problem."""

    file: Optional[str]
    line: Optional[int]
    field: Optional[str]
    match_id: Optional[str]
    errors: list[str]

# ---------------------------------------------------------------- tables

_Row = TypeVar("_Row")

@final
class Table(Generic[_Row]):
    """A read-only sequence of rows (plain objects whose fields are the `columns`)."""

    @property
    def columns(self) -> list[str]: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, key: int, /) -> _Row: ...
    @overload
    def __getitem__(self, key: slice, /) -> "Table[_Row]": ...
    @overload
    def __getitem__(self, key: str, /) -> list[Any]:
        """A column's values, by name."""
    def __iter__(self) -> Iterator[_Row]: ...
    def to_list(self) -> list[_Row]: ...
    def to_dicts(self) -> list[dict[str, Any]]:
        """The rows as dicts, one entry per column."""
    def to_pandas(self) -> Any:
        """The table as a `pandas.DataFrame` (needs pandas)."""

@final
class Standing:
    """One row of a leaderboard."""

    position: int
    player: str
    rating: float
    sigma: Optional[float]
    games: int
    avg_size: float
    wins: float
    win_pct: float
    expected_win_pct: float
    net_pct: float
    last_played: Optional[_Time]
    last_match: Optional[str]
    provisional: bool
    def to_dict(self) -> dict[str, Any]: ...

@final
class Change:
    """Why one player's rating moved in one match."""

    match_id: str
    time: Optional[_Time]
    player: str
    place: int
    rating_before: float
    sigma_before: Optional[float]
    expected: float
    actual: float
    k: Optional[float]
    weight: float
    change: float
    rating_after: float
    sigma_after: Optional[float]
    def to_dict(self) -> dict[str, Any]: ...

@final
class Rating:
    """A player's rating."""

    player: str
    value: float
    sigma: Optional[float]
    games: int
    def to_dict(self) -> dict[str, Any]: ...

@final
class FactorStanding:
    """A factor the league has met (a car, a seat, a faction): its rating (what it adds to
    the strength of an entry that carries it) and its matches."""

    kind: str
    value: str
    rating: float
    sigma: Optional[float]
    matches: int
    wins: float
    win_pct: float
    expected_win_pct: float
    def to_dict(self) -> dict[str, Any]: ...

@final
class FactorChange:
    """Why one factor's rating moved in one match."""

    match_id: str
    time: Optional[_Time]
    kind: str
    value: str
    rating_before: float
    sigma_before: Optional[float]
    expected: float
    actual: float
    k: Optional[float]
    change: float
    rating_after: float
    sigma_after: Optional[float]
    def to_dict(self) -> dict[str, Any]: ...

# A parameter's value: a number, a bool, or text (a list of numbers, "0,12,25,50").
_ParamValue = Union[float, int, bool, str]
# A parameter's value as given: a number, a bool, text, or a list of numbers.
_ParamGiven = Union[_ParamValue, _Real, Sequence[_Real]]

@final
class Parameter:
    """One parameter of a system."""

    name: str
    value: _ParamValue
    default: _ParamValue
    doc: str
    def to_dict(self) -> dict[str, Any]: ...

# ---------------------------------------------------------------- systems

@final
class System:
    """A rating system with its parameters, built by name: `System("plackett-luce",
    beta=4.0)`. Parameters not given keep their defaults; a bad one raises `ConfigError`."""

    def __new__(cls, name: str, /, **params: _ParamGiven) -> "System": ...
    @property
    def name(self) -> str: ...
    @property
    def summary(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def params(self) -> dict[str, _ParamValue]:
        """Every parameter's value, by name."""
    @property
    def parameters(self) -> Table[Parameter]:
        """Every parameter with its value, default and meaning."""
    @property
    def has_uncertainty(self) -> bool: ...
    @property
    def rates_factors(self) -> bool:
        """Whether the system rates factors (a car, a seat, a faction) beside the players."""
    def with_params(self, **params: _ParamGiven) -> "System": ...
    def __getnewargs_ex__(self) -> tuple[tuple[str], dict[str, _ParamValue]]: ...
    def win_probability(self, a: Union[_Real, tuple[_Real, _Real]], b: Union[_Real, tuple[_Real, _Real]]) -> float:
        """The chance that a player rated `a` finishes ahead of one rated `b`; a rating
        the system cannot rate (NaN, beyond ±1e9, a negative σ) raises `RateError`."""

def systems() -> Table[System]:
    """Every rating system at its defaults."""

# ---------------------------------------------------------------- matches

_PlayerId = str
_EntryKey = Union[_PlayerId, tuple[_PlayerId, ...], frozenset[_PlayerId]]
_Ranking = Sequence[Union[_PlayerId, Sequence[_PlayerId]]]
# Keys are entries (_EntryKey: a player id, a team name, a tuple or frozenset of a team's
# players), typed Any: a Mapping's keys are invariant, so that a dict[str, int] would not
# be a Mapping[_EntryKey, ...], and a dict mixing players and teams is inferred with keys
# of neither type.
_Places = Mapping[Any, _Real]
_TimeLike = Union[datetime.datetime, datetime.date, str, _Int, _Real]
# An entry's factors, kind -> value: {"car": "ferrari", "seat": 1}.
_EntryFactors = Mapping[str, Union[str, _Int]]
# Entries' factors: an entry (a player id, a team name, or a tuple of a team's players) -> its factors.
_Factors = Mapping[Any, _EntryFactors]

@final
class Entry:
    """One entry of a match: a player, or a team whose members share one finish."""

    team: Optional[str]
    players: list[str]
    weights: list[float]
    place: int
    score: Optional[float]
    factors: dict[str, str]
    def to_dict(self) -> dict[str, Any]: ...

@final
class Match:
    """A validated match: a ranking best first (inner lists are teams), a mapping of
    places (equal places are ties), or `scores=`; with `teams`, `weights` (partial play),
    `factors` (entry -> {kind: value}), `time` and `id`."""

    def __new__(
        cls,
        results: Optional[Union[_Ranking, _Places]] = None,
        /,
        *,
        scores: Optional[_Places] = None,
        teams: Optional[Mapping[str, Sequence[_PlayerId]]] = None,
        weights: Optional[Mapping[_PlayerId, _Real]] = None,
        factors: Optional[_Factors] = None,
        time: Optional[_TimeLike] = None,
        id: Optional[str] = None,
    ) -> "Match": ...
    @property
    def id(self) -> Optional[str]: ...
    @property
    def time(self) -> Optional[_Time]: ...
    @property
    def entries(self) -> list[Entry]: ...
    @property
    def players(self) -> list[str]: ...
    @property
    def places(self) -> list[tuple[str, int]]: ...
    def __len__(self) -> int: ...
    def to_dicts(self) -> list[dict[str, Any]]: ...
    def __reduce__(self) -> tuple[Any, ...]:
        """Pickling: the match is built again exactly (`pickle`, `copy`)."""
    def __copy__(self) -> "Match": ...
    def __deepcopy__(self, memo: Any, /) -> "Match": ...

_MatchLike = Union[Match, _Ranking, _Places]

@final
class Matches:
    """A history of matches in rating order, kept compactly (what the readers return)."""

    def __new__(cls, matches: Optional[Iterable[_MatchLike]] = None, /, *, skip_bad: bool = False) -> "Matches":
        """Matches in any accepted form, those without an id numbered from 1; a match that
        cannot exist raises `MatchError` naming its position, or with `skip_bad` is left
        out and listed in `skipped`."""
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, key: int, /) -> Match: ...
    @overload
    def __getitem__(self, key: slice, /) -> "Matches": ...
    def __iter__(self) -> Iterator[Match]: ...
    @property
    def skipped(self) -> list[str]: ...
    @property
    def players(self) -> list[str]: ...
    def to_dicts(self) -> list[dict[str, Any]]: ...
    def to_pandas(self) -> Any: ...
    def __reduce__(self) -> tuple[Any, ...]:
        """Pickling: the matches (and `skipped`) are built again exactly."""
    def __copy__(self) -> "Matches": ...
    def __deepcopy__(self, memo: Any, /) -> "Matches": ...

_PathLike = Union[str, os.PathLike[str]]
# Columns (CSV) or result fields (JSON Lines) read as factor kinds.
_FactorColumns = Union[str, Sequence[str]]

def versus(
    matches: Union[_PathLike, Sequence[_PathLike], "Matches", Iterable["_MatchLike"]],
    player: str,
    opponent: Optional[str] = None,
    /,
    *,
    system: Union[System, str, None] = None,
    min_meetings: _Int = 3,
    frequent: _Int = 5,
    **params: _ParamGiven,
) -> Dict[str, Any]:
    """Head-to-head as `podium versus` gives it, by rating the matches again: with an
    opponent, their record (`meetings`, `ahead`, `behind`, `ties`, `together`,
    `actual_share`, `expected_share`, `surplus`, `today`); without, the player's
    `nemesis`, `favourite` and `frequent` opponents, all three among opponents met at
    least `min_meetings` times. `matches` is a path or a list of paths (read as
    `podium.read` reads them), or matches as `backtest` takes them."""
def read(
    paths: Union[_PathLike, Sequence[_PathLike]],
    /,
    *,
    format: Optional[str] = None,
    skip_bad: bool = False,
    factors: Optional[_FactorColumns] = None,
) -> Matches:
    """Reads match files (long CSV or JSON Lines by extension, or `format`) in rating
    order; `factors` names columns to read as the entries' factors. Raises `ReadError`
    naming file, line and field, or `OSError`."""

def read_csv(
    paths: Union[_PathLike, Sequence[_PathLike]], /, *, skip_bad: bool = False, factors: Optional[_FactorColumns] = None
) -> Matches: ...
def read_jsonl(
    paths: Union[_PathLike, Sequence[_PathLike]], /, *, skip_bad: bool = False, factors: Optional[_FactorColumns] = None
) -> Matches: ...

# ---------------------------------------------------------------- leagues

@final
class RateSummary:
    rated: int
    skipped: list[str]
    def to_dict(self) -> dict[str, Any]: ...

@final
class Prediction:
    """What a system expects of a proposed match; lists follow the entries' order."""

    entries: list[str]
    players: list[list[str]]
    factors: list[dict[str, str]]
    factor_ratings: list[dict[str, float]]
    rating: list[float]
    sigma: list[Optional[float]]
    win: list[float]
    ahead: list[list[float]]
    expected_place: list[float]
    draw: Optional[float]
    quality: Optional[float]
    new_players: list[str]
    new_factors: list[str]
    def to_dicts(self) -> list[dict[str, Any]]: ...
    def to_pandas(self) -> Any: ...

@final
class League:
    """A pool of players rated by one system, match after match."""

    def __new__(
        cls, system: Union[System, str, None] = None, /, *, history: bool = True, **params: _ParamGiven
    ) -> "League": ...
    @property
    def system(self) -> System: ...
    @property
    def matches_rated(self) -> int: ...
    @property
    def players(self) -> list[str]: ...
    @property
    def learned(self) -> dict[str, float]:
        """What the system learned from every match rather than of one player (kalman-mmr: the filter in use, the calibration, the newcomer prior); empty for the others."""
    @property
    def keeps_history(self) -> bool: ...
    def __len__(self) -> int: ...
    def __contains__(self, player: str, /) -> bool: ...
    def rate(
        self,
        match: _MatchLike,
        /,
        *,
        id: Optional[str] = None,
        time: Optional[_TimeLike] = None,
        factors: Optional[_Factors] = None,
    ) -> Table[Change]:
        """Rates one match; returns each player's change, best first (the factors' changes
        are in `factor_history()`). A match whose id the league rated, or dated before
        the league's last dated match, raises `RateError`."""
    def rate_many(
        self,
        matches: Union[Matches, Iterable[_MatchLike]],
        /,
        *,
        skip_bad: bool = False,
        at_once: Optional[bool] = None,
    ) -> RateSummary:
        """Rates matches in order, all or nothing (unless `skip_bad`); matches given
        other than as a `Matches` are stored first, as `Matches(...)` stores them, and
        rated as a `Matches` is. A match whose id the league rated, or dated before the
        league's last dated match, is a bad match, and so is a match of the list that
        cannot exist (`MatchError` naming its position, `matches[500]: ...`);
        `at_once` rates free-for-alls in batches on every core (True) or one by one
        (False), by default as the first matches show to be faster (the same ratings
        either way)."""
    def rate_files(
        self,
        paths: Union[_PathLike, Sequence[_PathLike]],
        /,
        *,
        format: Optional[str] = None,
        skip_bad: bool = False,
        factors: Optional[_FactorColumns] = None,
        at_once: Optional[bool] = None,
    ) -> RateSummary:
        """Rates match files as `podium rate` does (plain files on several threads, as they
        are read), all or nothing (unless `skip_bad`), after the league's matches: a match
        whose id the league rated, or dated before the league's last dated match, is a
        bad match; `factors` names columns to read as the entries' factors; `at_once` as
        in `rate_many`."""
    def standings(self, *, min_games: _Int = 0, by: str = "rating", order: str = "established") -> Table[Standing]: ...
    def rating(self, player: str) -> Rating: ...
    def history(self, player: Optional[str] = None, /) -> Table[Change]: ...
    def factor_standings(self) -> Table[FactorStanding]:
        """Every factor met, by kind, best rated first (`podium rate --factors`)."""
    def factor_rating(self, kind: str, value: str) -> FactorStanding: ...
    def factor_history(self, kind: Optional[str] = None, value: Optional[str] = None) -> Table[FactorChange]: ...
    def predict(
        self,
        entries: Union[Match, Sequence[Union[_PlayerId, Sequence[_PlayerId]]]],
        /,
        *,
        time: Optional[_TimeLike] = None,
        factors: Optional[_Factors] = None,
    ) -> Prediction:
        """What the system expects of a proposed match: player ids or lists of them
        (teams), or a `Match`, whose entries and factors are taken at its time (unless
        `time` is given), its results left out."""
    def balance(
        self,
        players: Iterable[str],
        /,
        teams: Optional[_Int] = None,
        sizes: Optional[Iterable[_Int]] = None,
        tables: Optional[_Int] = None,
        apart: Optional[Iterable[Iterable[str]]] = (),
        together: Optional[Iterable[Iterable[str]]] = (),
        fix: Optional[Mapping[str, _Int]] = None,
        newcomers: Optional[Iterable[str]] = (),
        top: _Int = 1,
    ) -> List[Dict[str, Any]]:
        """The fairest splits of the players present, best first, as `podium teams`
        proposes them: each a dict with `teams` (or `tables`): a list of dicts with
        `players`, `win` (or `player_win`) and `unevenness`; and the split's
        `unevenness`, `spread` and `exact`. `fix` maps a player to a team numbered from 1;
        `newcomers` names players the league has not rated yet (balanced at a newcomer's
        rating; any other unknown player raises `PodiumError`). At most 200 players
        (more raises `ConfigError`); Ctrl-C returns at once, the search finishing in the
        background."""
    def set_initial(self, player: str, rating: _Real, /, *, sigma: Optional[_Real] = None, games: _Int = 0) -> None: ...
    def load_initial(self, path: _PathLike) -> None:
        """Sets starting ratings from a CSV file `player,rating[,games][,sigma]`, all or
        nothing: `ReadError` for a row that cannot be read, `RateError` for a rating the
        system cannot start from, each with the `file`, `line` and `field`."""
    def new_season(self, *, reset: str = "soft", pull: Optional[float] = None, widen: Optional[float] = None) -> None:
        """Starts a new season: `reset` "hard", "soft" (with `pull`, default 0.5, and
        `widen`, default 0.25) or "none". Games and wins start again, and `standings()`
        lists the season's players only."""
    def copy(self) -> "League": ...
    def __copy__(self) -> "League": ...
    def __deepcopy__(self, memo: Any, /) -> "League": ...
    def save(self, path: _PathLike) -> None: ...
    @staticmethod
    def load(
        path: _PathLike, /, system: Union[System, str, None] = None, *, history: bool = True, **params: _ParamGiven
    ) -> "League": ...
    def __getstate__(self) -> Tuple[bytes, bool, bool, bytes]: ...
    def __setstate__(
        self, state: Union[Tuple[bytes, bool, bool, bytes], Tuple[bytes, bool, bool], Tuple[bytes, bool]], /
    ) -> None: ...

# ---------------------------------------------------------------- the lab

@final
class BacktestResult:
    system: str
    accuracy: Optional[float]
    log_loss: Optional[float]
    warm_pairs: int
    concordant: int
    tied: int
    discordant: int
    matches_rated: int
    matches_scored: int
    seconds: float
    accuracy_se: Optional[float]
    error: Optional[str]
    def to_dict(self) -> dict[str, Any]: ...

_Systems = Union[str, System, Sequence[Union[str, System]]]
# One end of a backtest's window: an int is a match number (1 = the first), a datetime, a
# date or a string a time; a float is neither (TypeError).
_Bound = Union[_Int, datetime.datetime, datetime.date, str]

def backtest(
    matches: Union[Matches, Iterable[_MatchLike]],
    systems: Optional[_Systems] = None,
    /,
    *,
    start: Optional[_Bound] = None,
    end: Optional[_Bound] = None,
    log_loss: bool = True,
    threads: _Int = 0,
    factors: Optional[_FactorColumns] = None,
) -> Table[BacktestResult]:
    """Scores each system's pre-match predictions on the warm pairs of each match, with the
    matches' factors (those of the kinds `factors`, when given)."""

@final
class SimulationResult:
    rounds: list[int]
    trials: int
    ideal: float
    mean_score: list[float]
    seat_advantage: Optional[float]
    @property
    def curves(self) -> dict[str, list[float]]: ...
    @property
    def errors(self) -> dict[str, str]: ...
    @property
    def seats(self) -> dict[str, dict[str, list[float]]]: ...
    def to_dicts(self) -> list[dict[str, Any]]: ...
    def to_pandas(self) -> Any: ...

def simulate(
    systems: Optional[_Systems] = None,
    /,
    *,
    true_ratings: Optional[Sequence[_Real]] = None,
    sd: _Real = 200.0,
    rounds: Optional[Sequence[_Int]] = None,
    trials: _Int = 10000,
    seed: _Int = 1,
    jitter: _Real = 1.0,
    threads: _Int = 0,
    seat_advantage: Optional[_Real] = None,
) -> SimulationResult: ...

@final
class Candidate:
    params: dict[str, _ParamValue]
    accuracy: Optional[float]
    log_loss: Optional[float]
    warm_pairs: int
    error: Optional[str]
    def to_dict(self) -> dict[str, Any]: ...

@final
class TuneResult:
    best: System
    best_params: dict[str, _ParamValue]
    train_matches: int
    test_matches: int
    test: BacktestResult
    default_test: BacktestResult
    keep_defaults: Optional[bool]
    candidates: Table[Candidate]

_SearchSpec = Union[tuple[_Real, _Real], tuple[_Real, _Real, _Real], Sequence[Union[_ParamValue, _Real]], str]

def tune(
    matches: Union[Matches, Iterable[_MatchLike]],
    system: Union[System, str],
    params: Mapping[str, _SearchSpec],
    /,
    *,
    train: _Real = 0.5,
    steps: _Int = 8,
    samples: Optional[_Int] = None,
    seed: _Int = 1,
    metric: str = "accuracy",
    threads: _Int = 0,
    factors: Optional[_FactorColumns] = None,
) -> TuneResult: ...
