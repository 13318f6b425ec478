//! What both backends store the same way: a league's config, a match's body, the log of
//! changes.

use podium::Settings;

use crate::body::LedgerMatch;
use crate::error::StoreError;
use crate::types::{ChangeAction, ChangeLog, LeagueId, LeagueRow, LedgerEntry, Position};

/// A league's config as stored: JSON of its settings.
pub(crate) fn config_text(config: &Settings) -> String {
    serde_json::to_string(config).expect("config serialises")
}

/// A league's stored config, read back.
pub(crate) fn parse_config(id: LeagueId, text: &str) -> Result<Settings, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt {
        message: format!("league {id}: config {text:?}: {e}"),
    })
}

/// A match as stored: its JSON form.
pub(crate) fn body(json: &LedgerMatch) -> String {
    serde_json::to_string(json).expect("a match serialises")
}

/// A stored match, read back.
pub(crate) fn to_entry(
    seq: i64,
    key: String,
    body: &str,
    hash: String,
    time: Option<i64>,
    voided: bool,
) -> Result<LedgerEntry, StoreError> {
    let json: LedgerMatch = serde_json::from_str(body).map_err(|e| StoreError::Corrupt {
        message: format!("match {key:?}: {e}"),
    })?;
    Ok(LedgerEntry {
        seq,
        key,
        time,
        json,
        hash,
        voided,
    })
}

/// A league's name, system and config as the log of changes keeps them.
pub(crate) fn league_text(name: &str, system: &str, config: &Settings) -> String {
    serde_json::json!({"name": name, "system": system, "config": config}).to_string()
}

/// What the log of changes keeps of a league before a reconfiguration.
pub(crate) fn old_league_text(old: &LeagueRow) -> String {
    league_text(&old.name, &old.system, &old.config)
}

/// One entry of the log of changes, from its columns and those of the match it names
/// (`None` when there is none).
pub(crate) fn change_log(
    id: i64,
    action: &str,
    key: Option<String>,
    time: Option<i64>,
    seq: Option<i64>,
    voided: Option<bool>,
) -> Result<ChangeLog, StoreError> {
    let key = || {
        key.clone().ok_or_else(|| StoreError::Corrupt {
            message: format!("change {id} ({action}) names no match"),
        })
    };
    let action = match action {
        "void" => ChangeAction::Void { key: key()? },
        "correct" => ChangeAction::Correct { key: key()? },
        "configure" => ChangeAction::Configure,
        "season" => ChangeAction::Season,
        other => {
            return Err(StoreError::Corrupt {
                message: format!("change {id} has an unknown action {other:?}"),
            })
        }
    };
    Ok(ChangeLog {
        id,
        action,
        now: match (seq, voided) {
            (Some(seq), Some(false)) => Some(Position { time, seq }),
            _ => None,
        },
    })
}

/// A season's reset as stored (JSON).
pub(crate) fn reset_text(reset: &podium::season::Reset) -> String {
    serde_json::to_string(reset).expect("a reset serialises")
}

/// What the change log keeps of a season started.
pub(crate) fn season_text(season: &crate::types::SeasonRow) -> String {
    serde_json::to_string(season).expect("a season serialises")
}

/// A season read back from the store.
pub(crate) fn season_row(
    league: crate::types::LeagueId,
    number: i64,
    name: String,
    start: Position,
    reset: &str,
    created_at: String,
) -> Result<crate::types::SeasonRow, StoreError> {
    let reset = serde_json::from_str(reset).map_err(|e| StoreError::Corrupt {
        message: format!(
            "season {number} of league {league} has a reset that cannot be read ({e}): {reset}"
        ),
    })?;
    Ok(crate::types::SeasonRow {
        number,
        name,
        start,
        reset,
        created_at,
    })
}
