//! The standard normal distribution: density, distribution function and its inverse,
//! shared by the Bayesian systems (Weng-Lin Thurstone-Mosteller, TrueSkill) and by the
//! predictions.
//!
//! `cdf` is computed from `erfc` (the `libm` crate), which keeps full relative precision
//! deep in the lower tail, where `0.5 · (1 + erf(x/√2))` would round to 0. `ppf` is
//! Wichura's algorithm AS241 (Applied Statistics 37(3), 1988), accurate to about 1e-16,
//! the same algorithm Python's `statistics.NormalDist.inv_cdf` uses.
//!
//! ```
//! use podium::gaussian::{cdf, pdf, ppf};
//! assert!((cdf(0.0) - 0.5).abs() < 1e-15);
//! assert!((cdf(1.959963984540054) - 0.975).abs() < 1e-12);
//! assert!((pdf(0.0) - 0.3989422804014327).abs() < 1e-15);
//! assert!((ppf(0.975) - 1.959963984540054).abs() < 1e-12);
//! ```

use std::f64::consts::{FRAC_1_SQRT_2, PI};

/// Density of the standard normal distribution at `x`.
#[must_use]
pub fn pdf(x: f64) -> f64 {
    (-0.5 * x * x).exp() / (2.0 * PI).sqrt()
}

/// Distribution function of the standard normal: `P(Z ≤ x)`.
#[must_use]
pub fn cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x * FRAC_1_SQRT_2)
}

/// Inverse of [`cdf`]: the `x` with `cdf(x) = p`, for `0 < p < 1` (±∞ at 0 and 1, NaN
/// outside).
#[must_use]
#[allow(clippy::excessive_precision, clippy::unreadable_literal)]
pub fn ppf(p: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        let num = (((((((2.5090809287301226727e+3 * r + 3.3430575583588128105e+4) * r
            + 6.7265770927008700853e+4)
            * r
            + 4.5921953931549871457e+4)
            * r
            + 1.3731693765509461125e+4)
            * r
            + 1.9715909503065514427e+3)
            * r
            + 1.3314166789178437745e+2)
            * r
            + 3.3871328727963666080e+0)
            * q;
        let den = ((((((5.2264952788528545610e+3 * r + 2.8729085735721942674e+4) * r
            + 3.9307895800092710610e+4)
            * r
            + 2.1213794301586595867e+4)
            * r
            + 5.3941960214247511077e+3)
            * r
            + 6.8718700749205790830e+2)
            * r
            + 4.2313330701600911252e+1)
            * r
            + 1.0;
        return num / den;
    }
    let r = if q <= 0.0 { p } else { 1.0 - p };
    let mut r = (-r.ln()).sqrt();
    let x = if r <= 5.0 {
        r -= 1.6;
        let num = ((((((7.74545014278341407640e-4 * r + 2.27238449892691845833e-2) * r
            + 2.41780725177450611770e-1)
            * r
            + 1.27045825245236838258e+0)
            * r
            + 3.64784832476320460504e+0)
            * r
            + 5.76949722146069140550e+0)
            * r
            + 4.63033784615654529590e+0)
            * r
            + 1.42343711074968357734e+0;
        let den = ((((((1.05075007164441684324e-9 * r + 5.47593808499534494600e-4) * r
            + 1.51986665636164571966e-2)
            * r
            + 1.48103976427480074590e-1)
            * r
            + 6.89767334985100004550e-1)
            * r
            + 1.67638483018380384940e+0)
            * r
            + 2.05319162663775882187e+0)
            * r
            + 1.0;
        num / den
    } else {
        r -= 5.0;
        let num = ((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r
            + 1.24266094738807843860e-3)
            * r
            + 2.65321895265761230930e-2)
            * r
            + 2.96560571828504891230e-1)
            * r
            + 1.78482653991729133580e+0)
            * r
            + 5.46378491116411436990e+0)
            * r
            + 6.65790464350110377720e+0;
        let den = ((((((2.04426310338993978564e-15 * r + 1.42151175831644588870e-7) * r
            + 1.84631831751005468180e-5)
            * r
            + 7.86869131145613259100e-4)
            * r
            + 1.48753612908506148525e-2)
            * r
            + 1.36929880922735805310e-1)
            * r
            + 5.99832206555887937690e-1)
            * r
            + 1.0;
        num / den
    };
    if q < 0.0 {
        -x
    } else {
        x
    }
}

/// `pdf(x) / cdf(x)` (the inverse Mills ratio), finite for every finite `x`: in the far
/// lower tail it uses the continued fraction of the Mills ratio instead of `0 / 0`.
#[must_use]
pub fn pdf_over_cdf(x: f64) -> f64 {
    if x > -30.0 {
        let c = cdf(x);
        if c > 0.0 {
            return pdf(x) / c;
        }
    }
    // Φ(x)/φ(x) = 1/(t + 1/(t + 2/(t + 3/(t + …)))) with t = −x > 0.
    let t = -x;
    let mut f = t;
    for k in (1..=40).rev() {
        f = t + f64::from(k) / f;
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ppf_inverts_cdf() {
        for &p in &[
            1e-300,
            1e-12,
            0.001,
            0.1,
            0.3,
            0.5,
            0.55,
            0.9,
            0.999,
            1.0 - 1e-12,
        ] {
            let x = ppf(p);
            assert!(
                (cdf(x) - p).abs() <= 1e-12 * p.max(1e-3),
                "p {p} x {x} cdf {}",
                cdf(x)
            );
        }
    }

    #[test]
    fn mills_ratio_is_continuous_at_the_switch() {
        let a = pdf(-29.999) / cdf(-29.999);
        let b = pdf_over_cdf(-30.001);
        assert!((a - b).abs() < 1e-2, "{a} {b}");
        assert!(pdf_over_cdf(-1e10).is_finite());
        assert!((pdf_over_cdf(-1e6) - 1e6).abs() < 1e-3);
    }
}
