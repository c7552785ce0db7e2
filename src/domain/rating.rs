//! Glicko-2 ratings, as Glickman's "Example of the Glicko-2 system" (2013)
//! describes them: a rating, its deviation (how uncertain it is) and a
//! volatility (how erratic the player's results are). Each rated game is one
//! rating period for both players: their ratings move by that one result.
//!
//! Pure arithmetic: no I/O, no clock (a rating does not widen with idle time
//! here; the deviation shrinks with games and grows only through volatility).

/// The system constant τ: how much volatility may change in one period
/// (Glickman suggests 0.3 to 1.2; smaller is steadier).
pub const TAU: f64 = 0.5;
/// A new player's rating, deviation and volatility.
pub const START: Rating = Rating {
    rating: 1500.0,
    deviation: 350.0,
    volatility: 0.06,
};
/// A rating whose deviation is above this is provisional: not yet on the
/// leaderboard.
pub const PROVISIONAL_ABOVE: f64 = 110.0;

/// The factor between the Glicko scale and the Glicko-2 scale.
const SCALE: f64 = 173.7178;
/// Convergence tolerance of the volatility iteration.
const EPSILON: f64 = 0.000_001;

/// A player's rating in one kind, on the Glicko scale (1500 for a newcomer).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

/// A result from the rated player's side: 1 a win, 0.5 a draw, 0 a loss.
pub type Score = f64;

impl Rating {
    /// Whether the rating is still provisional (deviation above 110).
    #[must_use]
    pub fn provisional(&self) -> bool {
        self.deviation > PROVISIONAL_ABOVE
    }

    /// This rating after one rating period with the given games (opponent's
    /// rating before the period, and the score against them).
    #[must_use]
    pub fn after(&self, games: &[(Rating, Score)]) -> Rating {
        // Step 2: to the Glicko-2 scale.
        let mu = (self.rating - 1500.0) / SCALE;
        let phi = self.deviation / SCALE;
        let sigma = self.volatility;
        if games.is_empty() {
            // Step 6 only: the deviation grows by the volatility.
            let phi_star = phi.hypot(sigma);
            return Rating {
                deviation: phi_star * SCALE,
                ..*self
            };
        }
        // Steps 3 and 4: the estimated variance v and improvement Δ.
        let mut inverse_v = 0.0;
        let mut sum = 0.0;
        for (opponent, score) in games {
            let mu_j = (opponent.rating - 1500.0) / SCALE;
            let g = g(opponent.deviation / SCALE);
            let e = expected(mu, mu_j, g);
            inverse_v += g * g * e * (1.0 - e);
            sum += g * (score - e);
        }
        let v = 1.0 / inverse_v;
        let delta = v * sum;
        // Step 5: the new volatility (the Illinois algorithm).
        let sigma = volatility(phi, sigma, v, delta);
        // Steps 6 and 7: the new deviation and rating.
        let phi_star = phi.hypot(sigma);
        let phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu = mu + phi * phi * sum;
        // Step 8: back to the Glicko scale.
        Rating {
            rating: SCALE * mu + 1500.0,
            deviation: SCALE * phi,
            volatility: sigma,
        }
    }
}

/// Both players' ratings after one game between them; `x_score` is X's
/// (1 a win for X, 0.5 a draw, 0 a loss).
#[must_use]
pub fn after_game(x: Rating, o: Rating, x_score: Score) -> (Rating, Rating) {
    (x.after(&[(o, x_score)]), o.after(&[(x, 1.0 - x_score)]))
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

fn expected(mu: f64, mu_j: f64, g_j: f64) -> f64 {
    1.0 / (1.0 + (-g_j * (mu - mu_j)).exp())
}

/// Step 5 of Glickman's description: σ' by the Illinois algorithm.
fn volatility(phi: f64, sigma: f64, v: f64, delta: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let tau2 = TAU * TAU;
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / tau2
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * TAU) < 0.0 {
            k += 1.0;
        }
        a - k * TAU
    };
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);
    // Bounded: the interval at least halves every other step; 100 steps is
    // far past double precision.
    for _ in 0..100 {
        if (big_b - big_a).abs() <= EPSILON {
            break;
        }
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = c;
        f_b = f_c;
    }
    (big_a / 2.0).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(rating: f64, deviation: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    #[test]
    fn glickmans_worked_example() {
        // A 1500 / 200 / 0.06 player beats 1400/30, loses to 1550/100 and
        // to 1700/300 in one period: 1464.06, 151.52, 0.05999.
        let after = r(1500.0, 200.0).after(&[
            (r(1400.0, 30.0), 1.0),
            (r(1550.0, 100.0), 0.0),
            (r(1700.0, 300.0), 0.0),
        ]);
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.059_99).abs() < 0.000_01, "{after:?}");
    }

    #[test]
    fn a_game_moves_both_ratings_opposite_ways_and_narrows_both() {
        let (x, o) = after_game(START, START, 1.0);
        assert!(x.rating > 1500.0 && o.rating < 1500.0);
        assert!(
            (x.rating - 1500.0 + (o.rating - 1500.0)).abs() < 1e-9,
            "{x:?} {o:?}"
        );
        assert!(x.deviation < 350.0 && o.deviation < 350.0);
        assert!(x.provisional());
        // A draw between equals leaves the ratings where they were.
        let (x, o) = after_game(START, START, 0.5);
        assert!((x.rating - 1500.0).abs() < 1e-9 && (o.rating - 1500.0).abs() < 1e-9);
    }

    #[test]
    fn the_deviation_falls_below_the_provisional_mark_with_games() {
        let mut a = START;
        let mut b = START;
        let mut n = 0;
        while a.provisional() {
            (a, b) = after_game(a, b, if n % 3 == 0 { 0.0 } else { 1.0 });
            n += 1;
            assert!(n < 100, "{a:?}");
        }
        assert!(n > 5, "only {n} games");
    }

    #[test]
    fn random_sequences_match_an_independent_implementation() {
        // scripts/glicko2-reference.py: the paper again, in Python.
        let data: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/data/glicko2-sequences.json")).unwrap();
        let of = |v: &serde_json::Value| Rating {
            rating: v[0].as_f64().unwrap(),
            deviation: v[1].as_f64().unwrap(),
            volatility: v[2].as_f64().unwrap(),
        };
        let mut checked = 0;
        for sequence in data["sequences"].as_array().unwrap() {
            let mut players = [START; 4];
            for game in sequence.as_array().unwrap() {
                let x = usize::try_from(game["x"].as_u64().unwrap()).unwrap();
                let o = usize::try_from(game["o"].as_u64().unwrap()).unwrap();
                let (after_x, after_o) =
                    after_game(players[x], players[o], game["x_score"].as_f64().unwrap());
                for (ours, theirs) in [
                    (after_x, of(&game["x_after"])),
                    (after_o, of(&game["o_after"])),
                ] {
                    assert!(
                        (ours.rating - theirs.rating).abs() < 1e-6,
                        "{ours:?} {theirs:?}"
                    );
                    assert!(
                        (ours.deviation - theirs.deviation).abs() < 1e-6,
                        "{ours:?} {theirs:?}"
                    );
                    assert!(
                        (ours.volatility - theirs.volatility).abs() < 1e-9,
                        "{ours:?} {theirs:?}"
                    );
                }
                (players[x], players[o]) = (after_x, after_o);
                checked += 1;
            }
        }
        assert_eq!(checked, 300);
    }
}
