//! The order of a leaderboard: established players first, or every player by rating.
//!
//! A player who has just joined and won twice can have the highest rating of a league
//! while the system is still unsure of it (a provisional rating, see
//! [`RatingSystem::is_provisional`](crate::RatingSystem::is_provisional)). The default
//! order, [`Order::Established`], lists the players whose ratings are not provisional
//! first and the provisional ones after them, each group by rating descending then name:
//! the top of a board is held by players the system has seen enough of.

use std::fmt;
use std::str::FromStr;

/// How a leaderboard orders its players ([`League::standings_in`](crate::League::standings_in)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Order {
    /// Players whose rating is not provisional first, by rating descending then name;
    /// provisional players after them in the same order.
    #[default]
    Established,
    /// Every player by rating descending, then name.
    Rating,
}

impl Order {
    /// Every order, by the name [`FromStr`] reads.
    pub const ALL: [Order; 2] = [Order::Established, Order::Rating];

    /// The order's name: `established` or `rating`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Order::Established => "established",
            Order::Rating => "rating",
        }
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no [`Order`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error("unknown order {given:?}: expected \"established\" (settled players first) or \"rating\" (every player by rating)")]
pub struct OrderError {
    /// The name given.
    pub given: String,
}

impl FromStr for Order {
    type Err = OrderError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Order::ALL
            .into_iter()
            .find(|o| o.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| OrderError {
                given: s.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{League, Match, Settings};

    /// Eight game nights of ann, bo, cy and dee; frank joins the last two and wins both.
    fn frank_joins_late(system: &str) -> League {
        let mut league = League::new(crate::system(system, &Settings::new()).unwrap());
        let four = ["ann", "bo", "cy", "dee"];
        for night in 0..8 {
            let mut order: Vec<&str> = four
                .iter()
                .cycle()
                .skip(night % 4)
                .take(4)
                .copied()
                .collect();
            if night >= 6 {
                order.insert(0, "frank");
            }
            let game = Match::ranked(format!("night {}", night + 1), &order).unwrap();
            league.apply(&game).unwrap();
        }
        league
    }

    #[test]
    fn a_player_who_won_their_two_games_stands_below_the_established_players() {
        for system in ["sme", crate::DEFAULT_SYSTEM, "trueskill"] {
            let league = frank_joins_late(system);
            let by_rating = league.standings_in(Order::Rating);
            assert_eq!(
                by_rating[0].player, "frank",
                "{system}: two wins rate frank highest"
            );
            let board = league.standings();
            let names: Vec<&str> = board.iter().map(|s| s.player.as_str()).collect();
            assert_eq!(names[4], "frank", "{system}: {names:?}");
            assert!(board[4].provisional && board[..4].iter().all(|s| !s.provisional));
            assert_eq!(
                board.iter().map(|s| s.position).collect::<Vec<_>>(),
                [1, 2, 3, 4, 5]
            );
            // The established four keep their order by rating among themselves.
            let four: Vec<&str> = by_rating
                .iter()
                .map(|s| s.player.as_str())
                .filter(|p| *p != "frank")
                .collect();
            assert_eq!(&names[..4], four.as_slice(), "{system}");
        }
    }

    #[test]
    fn an_order_reads_back_its_own_name() {
        for o in Order::ALL {
            assert_eq!(o.name().parse::<Order>().unwrap(), o);
        }
        assert_eq!(" Rating ".parse::<Order>().unwrap(), Order::Rating);
        assert_eq!(Order::default(), Order::Established);
    }

    #[test]
    fn an_unknown_order_names_what_was_given_and_what_is_expected() {
        let e = "elo".parse::<Order>().unwrap_err();
        assert_eq!(e.given, "elo");
        assert!(e.to_string().contains("\"established\""), "{e}");
    }
}
