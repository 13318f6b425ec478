//! A league's ledger replayed exactly as its ratings are derived, with a look at every
//! match and the league it is rated in just before it is rated: what a head-to-head
//! record ([`podium::versus::HeadToHead`]) counts "expected at the time" with.

use std::sync::Arc;

use podium::{League, Match, RatingSystem};

use super::{build_system, Leagues};
use crate::derived::{rating_order, Base, Checkpoints, Derived, Seasons, Tail};
use crate::error::StoreError;
use crate::types::{LeagueId, LedgerEntry};

/// Rates `entries` from scratch as [`crate::replay_seasons`] does (voided entries
/// skipped, the others in rating order, the league reset at each season's start) and
/// shows `observe` every match with the league as it stands just before the match is
/// rated: after the reset of a season that starts at or before the match, with the
/// ratings of every match before it. Returns the state at the end, which equals the
/// store's ([`crate::replay`] and [`Leagues`] rate with the same [`Tail`]).
///
/// # Errors
/// As [`crate::replay_seasons`]; `observe` has seen the matches up to the one refused.
pub fn replay_observed(
    system: Arc<dyn RatingSystem>,
    entries: &[LedgerEntry],
    seasons: Seasons,
    mut observe: impl FnMut(&League, &Match),
) -> Result<Derived, StoreError> {
    let mut entries: Vec<LedgerEntry> = entries.iter().filter(|e| !e.voided).cloned().collect();
    rating_order(&mut entries);
    let mut tail = Tail::new(
        Base::empty(system).with_seasons(seasons),
        Checkpoints::default(),
    );
    for e in &entries {
        tail.push_observed(e, &mut observe)?;
    }
    Derived::from_tail(tail, Checkpoints::default())
}

impl Leagues {
    /// Replays league `id`'s ledger as the store holds it now, with its system and
    /// seasons, as its ratings are derived ([`replay_observed`]): `observe` sees every
    /// rated match in rating order with the league just before the match, the resets of
    /// the seasons applied where the league's own ratings apply them. Returns the state
    /// at the end: the league's ratings as of the ledger read.
    ///
    /// The ledger, system and seasons are read as of one moment: if the league's system
    /// or seasons change while its ledger is read, it is read again (before anything is
    /// shown to `observe`).
    ///
    /// # Errors
    /// [`StoreError::LeagueNotFound`], the store's failure, or as [`replay_observed`].
    pub fn replay_observed(
        &self,
        id: LeagueId,
        observe: impl FnMut(&League, &Match),
    ) -> Result<Derived, StoreError> {
        self.slot(id)?;
        let (system, entries, seasons) = loop {
            let seasons = Arc::new(self.store.seasons(id)?);
            let mut entries = Vec::new();
            let row = self.store.scan(id, None, &mut |e| {
                entries.push(e);
                Ok(())
            })?;
            // Seasons read before the ledger that are still the league's were the ones
            // in force while it was read (a season is never taken back).
            if *self.store.seasons(id)? == *seasons {
                break (build_system(&row.system, &row.config)?, entries, seasons);
            }
        };
        replay_observed(system, &entries, seasons, observe)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::LedgerMatch;
    use crate::types::{Position, SeasonRow};
    use crate::{NewLeague, Options, SqliteStore, Submission};
    use podium::season::Reset;
    use proptest::prelude::*;

    const DAY: i64 = 86_400;
    const JAN_2024: i64 = 1_704_067_200;

    /// Match `g{seq}` on day `day` of 2024, the players finishing in order.
    fn dated(seq: i64, day: i64, players: &[&str], voided: bool) -> LedgerEntry {
        let mut b = Match::builder(format!("g{seq}")).time(JAN_2024 + day * DAY);
        for (k, p) in players.iter().enumerate() {
            b = b.player(*p, podium::Finish::Rank((k + 1) as f64));
        }
        let game = b.build().unwrap();
        LedgerEntry {
            seq,
            key: format!("g{seq}"),
            time: game.time(),
            json: LedgerMatch::from_match(&game),
            hash: String::new(),
            voided,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever the order matches were entered in and wherever seasons start, the
        /// replay shows each match the league a fresh one fed the matches in rating
        /// order, reset before the first match at or after each season's start, has
        /// before it; and ends where a fresh replay of the store's ends.
        #[test]
        fn a_replay_observes_what_a_fresh_league_with_the_resets_sees(
            games in prop::collection::vec(
                (
                    0i64..8,
                    prop::sample::subsequence(vec!["ann", "bo", "cy", "dee", "eve"], 2..=4)
                        .prop_shuffle(),
                    prop::bool::weighted(0.1),
                ),
                1..16,
            ),
            starts in prop::collection::vec((0i64..9, 0i64..20, 0usize..3), 0..3),
            system in prop::sample::select(vec!["sme", "glicko2"]),
        ) {
            let entries: Vec<LedgerEntry> = games
                .iter()
                .enumerate()
                .map(|(k, (day, players, voided))| dated(k as i64 + 1, *day, players, *voided))
                .collect();
            let mut at: Vec<Position> = starts
                .iter()
                .map(|&(day, seq, _)| Position { time: Some(JAN_2024 + day * DAY), seq })
                .collect();
            at.sort_unstable();
            at.dedup();
            let resets = [
                Reset::Hard,
                Reset::Soft { pull: 0.5, widen: 0.25 },
                Reset::None,
            ];
            let seasons: Vec<SeasonRow> = at
                .iter()
                .zip(&starts)
                .enumerate()
                .map(|(k, (start, &(_, _, r)))| SeasonRow {
                    number: k as i64 + 2,
                    name: format!("S{}", k + 2),
                    start: *start,
                    reset: resets[r],
                    created_at: String::new(),
                })
                .collect();
            let sys = || podium::system(system, &podium::Settings::new()).unwrap();

            let mut seen: Vec<(String, Vec<podium::Rating>)> = Vec::new();
            let end = replay_observed(
                Arc::from(sys()),
                &entries,
                Arc::new(seasons.clone()),
                |league, game| {
                    let before = game.players().map(|(_, m)| league.rating_of(&m.player)).collect();
                    seen.push((game.id().to_string(), before));
                },
            )
            .unwrap();

            let mut order: Vec<&LedgerEntry> = entries.iter().filter(|e| !e.voided).collect();
            order.sort_by_key(|e| e.position());
            let mut league = League::new(sys());
            let mut next = 0;
            let mut expected: Vec<(String, Vec<podium::Rating>)> = Vec::new();
            for e in order {
                while seasons.get(next).is_some_and(|s| s.start <= e.position()) {
                    league = league.new_season(&seasons[next].reset).unwrap();
                    next += 1;
                }
                let game = e.json.to_match().unwrap();
                let before = game.players().map(|(_, m)| league.rating_of(&m.player)).collect();
                expected.push((e.key.clone(), before));
                league.apply(&game).unwrap();
            }
            for s in &seasons[next..] {
                league = league.new_season(&s.reset).unwrap();
            }
            prop_assert_eq!(&seen, &expected);
            for p in league.players() {
                prop_assert_eq!(end.league().rating_of(&p.name), league.rating_of(&p.name));
            }
            let fresh = crate::replay_seasons(sys(), &entries, &seasons).unwrap();
            prop_assert_eq!(end.compute_board(), fresh.compute_board());
            prop_assert_eq!(end.season(), fresh.season());
        }
    }

    fn submission(key: &str, time: &str, order: &[&str]) -> Submission {
        let results: Vec<serde_json::Value> = order
            .iter()
            .enumerate()
            .map(|(k, p)| serde_json::json!({"player": p, "rank": k + 1}))
            .collect();
        serde_json::from_value(serde_json::json!({"id": key, "time": time, "results": results}))
            .unwrap()
    }

    /// A soft reset between two seasons and matches entered out of time order: the
    /// replay shows each match the league it is rated in (the ratings before it, reset
    /// where the season starts), and ends where the league's own ratings are.
    #[test]
    fn a_replay_shows_each_match_the_league_it_is_rated_in() {
        let leagues = Leagues::open_loaded(
            Arc::new(SqliteStore::temporary().unwrap()),
            Options::default(),
        )
        .unwrap();
        let (info, token) = leagues
            .create_league(&NewLeague {
                name: "night".into(),
                system: "sme".into(),
                config: podium::Settings::new(),
            })
            .unwrap();
        let id = info.id;
        leagues.authorize(id, &token).unwrap();
        leagues
            .append(id, submission("a", "2024-01-03", &["ann", "bo"]))
            .unwrap();
        leagues
            .append(id, submission("b", "2024-01-01", &["ann", "bo"]))
            .unwrap();
        let reset = Reset::Soft {
            pull: 0.5,
            widen: 0.0,
        };
        // 2024-02-01, midnight UTC.
        leagues
            .start_season_at(id, "Spring", reset, 1_706_745_600)
            .unwrap();
        leagues
            .append(id, submission("c", "2024-02-05", &["bo", "ann"]))
            .unwrap();
        leagues
            .append(id, submission("d", "2024-02-02", &["bo", "cy"]))
            .unwrap();
        let mut seen: Vec<(String, f64)> = Vec::new();
        let end = leagues
            .replay_observed(id, |league, game| {
                seen.push((game.id().to_string(), league.rating_of("ann").value));
            })
            .unwrap();
        // A fresh league fed the matches in time order, reset between the seasons.
        let mut fresh = League::new(podium::system("sme", &podium::Settings::new()).unwrap());
        let mut expected = Vec::new();
        for (key, order) in [("b", ["ann", "bo"]), ("a", ["ann", "bo"])] {
            expected.push((key.to_string(), fresh.rating_of("ann").value));
            fresh.apply(&Match::ranked(key, &order).unwrap()).unwrap();
        }
        let season_end = fresh.rating_of("ann").value;
        fresh = fresh.new_season(&reset).unwrap();
        for (key, order) in [("d", ["bo", "cy"]), ("c", ["bo", "ann"])] {
            expected.push((key.to_string(), fresh.rating_of("ann").value));
            fresh.apply(&Match::ranked(key, &order).unwrap()).unwrap();
        }
        assert_eq!(seen.len(), 4);
        for ((k, r), (ek, er)) in seen.iter().zip(&expected) {
            assert_eq!(k, ek);
            assert!((r - er).abs() < 1e-9, "{k}: {r} v {er}");
        }
        // Match d is rated after the reset, not with the season's final ratings.
        assert!((seen[2].1 - season_end).abs() > 1.0, "{seen:?}");
        assert_eq!(end.compute_board(), leagues.leaderboard(id).unwrap());
        assert_eq!(end.season(), 2);
    }
}
