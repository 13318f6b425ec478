//! One way to rate a match: whichever way a league is given its matches (one by one
//! with [`League::apply`], through the ranking shortcut [`League::apply_ranked`] that
//! readers of plain files use, asked first with [`League::try_rate`], or from a copy
//! taken midway), every registered system ends with bit-for-bit the same ratings.

use podium::league::Slot;
use podium::{Finish, League, Match, Rating, Settings};
use proptest::prelude::*;

/// One entry of a generated match: its players (one, or a team of two), its finish
/// (place or score), each member's weight and a factor value (`car`).
#[derive(Debug, Clone)]
struct Entry {
    players: Vec<usize>,
    finish: f64,
    half: bool,
    car: Option<u8>,
}

/// A generated match: its entries, whether finishes are scores, and whether it has a time.
#[derive(Debug, Clone)]
struct Game {
    entries: Vec<Entry>,
    scores: bool,
    timed: bool,
}

impl Game {
    /// Whether it is what plain readers hand to [`League::apply_ranked`]: single players
    /// who each played the whole match, ranked, without time or factors.
    fn plain(&self) -> bool {
        !self.scores
            && !self.timed
            && self
                .entries
                .iter()
                .all(|e| e.players.len() == 1 && !e.half && e.car.is_none())
    }

    fn build(&self, k: usize, factors: bool) -> Match {
        let mut b = Match::builder(format!("m{k}"));
        if self.timed {
            b = b.time(1_700_000_000 + 86_400 * k as i64);
        }
        for (i, e) in self.entries.iter().enumerate() {
            let finish = if self.scores {
                Finish::Score(e.finish)
            } else {
                Finish::Rank(e.finish)
            };
            let members = e.players.iter().map(|p| podium::Member {
                player: format!("p{p}"),
                weight: if e.half { 0.5 } else { 1.0 },
            });
            b = b.entry(podium::Entry {
                team: (e.players.len() > 1).then(|| format!("t{k}-{i}")),
                members: members.collect(),
                finish,
                factors: Vec::new(),
            });
            if let (Some(c), true) = (e.car, factors) {
                b = b.factor("car", format!("c{c}"));
            }
        }
        b.build().expect("generated matches are valid")
    }

    /// Players best first with their places, as a plain reader gives them.
    fn ranking(&self) -> (Vec<String>, Vec<usize>) {
        let mut order: Vec<&Entry> = self.entries.iter().collect();
        order.sort_by(|a, b| a.finish.total_cmp(&b.finish));
        let mut places = Vec::with_capacity(order.len());
        for (i, e) in order.iter().enumerate() {
            let tied = i > 0 && order[i - 1].finish == e.finish;
            places.push(if tied { places[i - 1] } else { i + 1 });
        }
        let names = order.iter().map(|e| format!("p{}", e.players[0])).collect();
        (names, places)
    }
}

fn game() -> impl Strategy<Value = Game> {
    let entry = (
        0usize..12,
        prop::option::of(0usize..12),
        0u8..4,
        prop::bool::weighted(0.2),
        prop::option::of(0u8..3),
    );
    (
        prop::collection::vec(entry, 2..6),
        prop::bool::weighted(0.3),
        prop::bool::weighted(0.3),
        prop::bool::weighted(0.4),
    )
        .prop_map(|(raw, scores, timed, solo)| {
            // Players are distinct across the match: a player met again is dropped.
            let mut seen = std::collections::HashSet::new();
            let mut entries = Vec::new();
            for (a, b, finish, half, car) in raw {
                let mut players: Vec<usize> = std::iter::once(a)
                    .chain(b.filter(|_| !solo))
                    .filter(|p| seen.insert(*p))
                    .collect();
                players.dedup();
                if !players.is_empty() {
                    entries.push(Entry {
                        players,
                        finish: f64::from(finish),
                        half: half && !solo,
                        car: car.filter(|_| !solo),
                    });
                }
            }
            Game {
                entries,
                scores,
                timed,
            }
        })
        .prop_filter("two entries or more", |g| g.entries.len() >= 2)
}

/// Every player's rating as bits: the value, σ and games, by name.
fn bits(league: &League) -> Vec<(String, u64, Option<u64>, u32)> {
    let mut out: Vec<_> = league
        .players()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let r: Rating = league.current(i);
            (
                p.name.clone(),
                r.value.to_bits(),
                r.sigma.map(f64::to_bits),
                r.games,
            )
        })
        .collect();
    out.sort();
    out
}

fn factor_bits(league: &League) -> Vec<(String, u64)> {
    let mut out: Vec<_> = league
        .factors()
        .iter()
        .map(|f| (f.factor.to_string(), f.rating.value.to_bits()))
        .collect();
    out.sort();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_way_into_a_league_gives_the_same_ratings(games in prop::collection::vec(game(), 1..14)) {
        for spec in podium::systems() {
            let sys: std::sync::Arc<dyn podium::RatingSystem> =
                std::sync::Arc::from(podium::system(spec.name, &Settings::new()).unwrap());
            let factors = sys.capabilities().rates_factors;
            let mut one = League::shared(sys.clone());
            let mut ranked = League::shared(sys.clone());
            let mut asked = League::shared(sys.clone());
            let mut copy: Option<League> = None;
            for (k, g) in games.iter().enumerate() {
                let m = g.build(k, factors);
                let a = one.apply(&m);
                // Readers of plain files: the ranking shortcut where it applies.
                let b = if g.plain() {
                    let (names, places) = g.ranking();
                    let mut slots: Vec<Slot<'_>> =
                        names.iter().map(|n| Slot::New(n.as_str())).collect();
                    ranked.apply_ranked(m.id(), &mut slots, &places)
                } else {
                    ranked.apply(&m).map(|_| ())
                };
                prop_assert_eq!(a.is_ok(), b.is_ok(), "{}: {:?} / {:?}", spec.name, a.as_ref().err(), b.err());
                // Asked first, then rated: what it was told is what it stored.
                let told = asked.try_rate(&m);
                let c = asked.apply(&m);
                if let (Ok(told), Ok(c)) = (&told, &c) {
                    let stored: Vec<_> = c.changes.iter().map(|(_, ch)| *ch).collect();
                    prop_assert_eq!(&told.changes, &stored, "{}", spec.name);
                }
                prop_assert_eq!(told.is_ok(), c.is_ok(), "{}", spec.name);
                if k == games.len() / 2 {
                    copy = Some(one.clone());
                } else if let Some(copy) = copy.as_mut() {
                    let _ = copy.apply(&m);
                }
            }
            prop_assert_eq!(bits(&one), bits(&ranked), "{}", spec.name);
            prop_assert_eq!(bits(&one), bits(&asked), "{}", spec.name);
            prop_assert_eq!(factor_bits(&one), factor_bits(&asked), "{}", spec.name);
            if let Some(copy) = copy {
                prop_assert_eq!(bits(&one), bits(&copy), "{}", spec.name);
            }
        }
    }
}

/// A free-for-all of `players` (of a pool of 12; a player may come twice, which is
/// refused) with places from `finishes`, as a plain reader gives it.
fn ranked_game() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    prop::collection::vec((0usize..12, 0u8..3), 2..6).prop_map(|raw| {
        let mut raw = raw;
        raw.sort_by_key(|&(_, f)| f);
        let mut places: Vec<usize> = Vec::with_capacity(raw.len());
        for (i, &(_, f)) in raw.iter().enumerate() {
            let tied = i > 0 && raw[i - 1].1 == f;
            places.push(if tied { places[i - 1] } else { i + 1 });
        }
        (raw.into_iter().map(|(p, _)| p).collect(), places)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Matches handed on in batches ([`League::apply_batch`], rated at the same time
    /// where they share no player) end as one after the other: the same players in the
    /// same order with the same ratings to the bit and the same statistics, and a batch
    /// stops at the match rated alone would refuse (a player twice; `elo` refuses more
    /// than two entries).
    #[test]
    fn a_batch_rates_as_its_matches_one_after_the_other(
        games in prop::collection::vec(ranked_game(), 1..40),
        cuts in prop::collection::vec(1usize..12, 1..6),
        known in 0usize..12,
    ) {
        let names: Vec<String> = (0..12).map(|p| format!("p{p}")).collect();
        for spec in podium::systems() {
            let sys: std::sync::Arc<dyn podium::RatingSystem> =
                std::sync::Arc::from(podium::system(spec.name, &Settings::new()).unwrap());
            let mut alone = League::shared(sys.clone());
            let mut batched = League::shared(sys.clone());
            let mut refused = Vec::new();
            for (k, (players, places)) in games.iter().enumerate() {
                let mut slots: Vec<Slot<'_>> =
                    players.iter().map(|&p| Slot::New(names[p].as_str())).collect();
                if alone.apply_ranked(&format!("m{k}"), &mut slots, places).is_err() {
                    refused.push(k);
                }
            }
            // Batches of the sizes in `cuts`, in turn; players the league knew when the
            // batch was made are given by index for the first `known` of the pool.
            let mut next = 0;
            let mut stopped = Vec::new();
            let mut batch = podium::RankedBatch::default();
            let mut cut = cuts.iter().cycle();
            while next < games.len() {
                let size = *cut.next().unwrap();
                batch.clear();
                let first = next;
                for (k, (players, places)) in games.iter().enumerate().skip(first).take(size) {
                    let slots: Vec<Slot<'_>> = players
                        .iter()
                        .map(|&p| match batched.index_of(&names[p]) {
                            Some(i) if p < known => Slot::Known(i),
                            _ => Slot::New(names[p].as_str()),
                        })
                        .collect();
                    batch.push(&format!("m{k}"), slots, places);
                }
                match batched.apply_batch(&batch) {
                    Ok(()) => next = first + batch.len(),
                    Err((at, _)) => {
                        stopped.push(first + at);
                        next = first + at + 1;
                    }
                }
            }
            prop_assert_eq!(&refused, &stopped, "{}", spec.name);
            prop_assert_eq!(alone.matches_rated(), batched.matches_rated(), "{}", spec.name);
            let records = |l: &League| {
                l.players()
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let r = l.current(i);
                        (p.name.clone(), r.value.to_bits(), r.sigma.map(f64::to_bits), r.games, format!("{:?}", p.stats))
                    })
                    .collect::<Vec<_>>()
            };
            prop_assert_eq!(records(&alone), records(&batched), "{}", spec.name);
        }
    }
}
