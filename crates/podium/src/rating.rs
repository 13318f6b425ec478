//! A player's rating and the breakdown of one rating change.

/// A player's rating as a system keeps it.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Rating {
    /// The rating (for Bayesian systems, the mean μ).
    pub value: f64,
    /// The uncertainty σ, for systems that keep one; `None` otherwise.
    pub sigma: Option<f64>,
    /// Rated games played so far (drives K in `whitewhale`, the provisional period in `mes`).
    pub games: u32,
}

impl Rating {
    /// A rating with no uncertainty and no games played.
    #[must_use]
    pub fn new(value: f64) -> Self {
        Rating {
            value,
            sigma: None,
            games: 0,
        }
    }

    /// A rating with an uncertainty σ and no games played.
    #[must_use]
    pub fn with_sigma(value: f64, sigma: f64) -> Self {
        Rating {
            value,
            sigma: Some(sigma),
            games: 0,
        }
    }

    /// The same rating with a number of games played.
    #[must_use]
    pub fn games(self, games: u32) -> Self {
        Rating { games, ..self }
    }
}

/// Why one player's rating moved in one match: the numbers to show a player.
///
/// For the Elo-family systems `after.value = before.value + weight · k · (actual − expected)`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlayerChange {
    /// The rating before the match.
    pub before: Rating,
    /// The rating after the match (its `games` counts this match).
    pub after: Rating,
    /// The score the system expected (same units as `actual`).
    pub expected: f64,
    /// The score the player achieved.
    pub actual: f64,
    /// The step size used, for systems that have one (`None` for Bayesian systems).
    pub k: Option<f64>,
    /// The share of the match the player played (1 = all of it).
    pub weight: f64,
}

impl PlayerChange {
    /// No change: `after` is `before`, the expected and actual values its rating (a
    /// match that tells nothing, such as everyone tied).
    #[must_use]
    pub fn unchanged(before: Rating, weight: f64) -> Self {
        PlayerChange {
            before,
            after: before,
            expected: before.value,
            actual: before.value,
            k: None,
            weight,
        }
    }

    /// Builds an Elo-style change: `value += weight · k · (actual − expected)`.
    #[must_use]
    pub fn elo(before: Rating, expected: f64, actual: f64, k: f64, weight: f64) -> Self {
        let after = Rating {
            value: before.value + weight * k * (actual - expected),
            sigma: before.sigma,
            games: before.games.saturating_add(1),
        };
        PlayerChange {
            before,
            after,
            expected,
            actual,
            k: Some(k),
            weight,
        }
    }

    /// The change of the rating value.
    #[must_use]
    pub fn delta(&self) -> f64 {
        self.after.value - self.before.value
    }
}
