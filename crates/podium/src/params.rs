//! Named, typed parameters of a system's config, settable from text (`--set k=24`).

use std::fmt;

use crate::error::ConfigError;

/// The largest magnitude a rating, a scale, a step size or an uncertainty may have:
/// beyond any real rating scale, and far enough from the largest `f64` (about 1e308)
/// that squares, and sums over matches of a million entries, of numbers this size stay
/// finite. Systems refuse parameters and starting ratings beyond it.
pub const MAX_MAGNITUDE: f64 = 1e9;

/// The smallest uncertainty σ (or performance noise β) the Bayesian systems accept: the
/// inverse of its square stays finite with room to spare.
pub const MIN_SIGMA: f64 = 1e-9;

/// Whether `v` is a rating or offset the systems' arithmetic holds for: `|v| ≤ 1e9`.
#[must_use]
pub fn in_range(v: f64) -> bool {
    v.abs() <= MAX_MAGNITUDE
}

/// Whether `v` is a positive scale, step size or factor the systems' arithmetic holds for:
/// `0 < v ≤ 1e9`.
#[must_use]
pub fn positive(v: f64) -> bool {
    v > 0.0 && v <= MAX_MAGNITUDE
}

/// Whether `v` is a rate or a growth that may be zero: `0 ≤ v ≤ 1e9`.
#[must_use]
pub fn non_negative(v: f64) -> bool {
    (0.0..=MAX_MAGNITUDE).contains(&v)
}

/// Whether `v` is an uncertainty σ (or noise β) the Bayesian systems' arithmetic holds
/// for: `1e-9 ≤ v ≤ 1e9`.
#[must_use]
pub fn sigma(v: f64) -> bool {
    (MIN_SIGMA..=MAX_MAGNITUDE).contains(&v)
}

/// The value of one parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum ParamValue {
    /// A real number.
    Float(f64),
    /// A whole number.
    Int(u64),
    /// A switch.
    Bool(bool),
    /// A short list of real numbers (written `0.5,0.75`; empty as `none`).
    List(FloatList),
}

/// A short list of real numbers held inline (at most [`FloatList::CAPACITY`]), so that a
/// parameter value stays a plain copyable value: Elo-MMR's `noob_delay` factors.
///
/// ```
/// use podium::params::FloatList;
/// let l = FloatList::from_slice(&[0.5, 0.75]).unwrap();
/// assert_eq!(l.as_slice(), [0.5, 0.75]);
/// assert_eq!(l.to_string(), "0.5,0.75");
/// assert_eq!(FloatList::default().to_string(), "none");
/// ```
#[derive(Clone, Copy, PartialEq)]
pub struct FloatList {
    len: u8,
    values: [f64; FloatList::CAPACITY],
}

impl FloatList {
    /// The most values a list holds.
    pub const CAPACITY: usize = 16;

    /// The list of `values`, or `None` when there are more than [`FloatList::CAPACITY`].
    #[must_use]
    pub fn from_slice(values: &[f64]) -> Option<Self> {
        if values.len() > Self::CAPACITY {
            return None;
        }
        let mut list = FloatList::default();
        list.values[..values.len()].copy_from_slice(values);
        list.len = values.len() as u8;
        Some(list)
    }

    /// The values.
    #[must_use]
    pub fn as_slice(&self) -> &[f64] {
        &self.values[..usize::from(self.len)]
    }
}

impl Default for FloatList {
    fn default() -> Self {
        FloatList {
            len: 0,
            values: [0.0; Self::CAPACITY],
        }
    }
}

impl fmt::Debug for FloatList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl fmt::Display for FloatList {
    /// Comma-separated values, `none` for the empty list.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.len == 0 {
            return f.write_str("none");
        }
        for (i, v) in self.as_slice().iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{v}")?;
        }
        Ok(())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for FloatList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.as_slice())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for FloatList {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let values = Vec::<f64>::deserialize(d)?;
        FloatList::from_slice(&values).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "at most {} values, found {}",
                FloatList::CAPACITY,
                values.len()
            ))
        })
    }
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Float(v) => write!(f, "{v}"),
            ParamValue::Int(v) => write!(f, "{v}"),
            ParamValue::Bool(v) => write!(f, "{v}"),
            ParamValue::List(v) => write!(f, "{v}"),
        }
    }
}

/// One parameter of a system: its name, current value and meaning.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Param {
    /// The name used in `--set name=value`.
    pub name: &'static str,
    /// The current value.
    pub value: ParamValue,
    /// One line on what it does.
    pub doc: &'static str,
}

/// A system config whose fields can be listed and set by name.
pub trait Configure {
    /// The system's registered name, for error messages.
    const SYSTEM: &'static str;

    /// Every parameter with its current value.
    fn params(&self) -> Vec<Param>;

    /// Sets one parameter from text. Dashes and underscores in `key` are equivalent.
    ///
    /// # Errors
    /// [`ConfigError::UnknownParam`] or [`ConfigError::InvalidValue`].
    fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError>;

    /// Checks the whole config: each value against the range [`Configure::set`] checks
    /// it by (a config built in code is refused as its text would be), then the rules
    /// that tie parameters together (a lower bound not above its upper bound).
    ///
    /// # Errors
    /// [`ConfigError::InvalidValue`] for the first parameter out of its range, as
    /// [`Configure::set`] gives it for the value's text; [`ConfigError::Inconsistent`]
    /// naming the parameters and the rule.
    fn validate(&self) -> Result<(), ConfigError> {
        Ok(())
    }

    /// Applies settings in order, then checks the whole config ([`Configure::validate`]).
    ///
    /// # Errors
    /// The first setting that is unknown or invalid, or the config's inconsistency.
    fn apply(&mut self, settings: &Settings) -> Result<(), ConfigError>
    where
        Self: Sized,
    {
        for (k, v) in settings.iter() {
            self.set(k, v)?;
        }
        self.validate()
    }
}

/// Parameter settings by name, as text: what `--set k=24` on a command line or a league's
/// config on the server give. Applied in order over a system's defaults, so a later
/// setting of the same parameter wins.
///
/// ```
/// use podium::Settings;
/// let s = Settings::parse(["k=24", "scale = 300"]).unwrap();
/// assert_eq!(s.iter().collect::<Vec<_>>(), [("k", "24"), ("scale", "300")]);
/// assert_eq!(s, Settings::new().with("k", "24").with("scale", "300"));
/// assert!(Settings::parse(["k"]).is_err());
/// assert!(Settings::parse(["k=24", "k=32"]).is_err());
/// let sys = podium::system("sme", &s).unwrap();
/// assert_eq!(sys.describe().params[0].value, podium::ParamValue::Float(24.0));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct Settings {
    pairs: Vec<(String, String)>,
}

impl Settings {
    /// No settings: every parameter at its default.
    #[must_use]
    pub fn new() -> Self {
        Settings::default()
    }

    /// Parses `key=value` items as given on a command line; spaces around the key and
    /// the value are trimmed.
    ///
    /// A parameter given twice (the same key, with the same system prefix or none; dashes
    /// and underscores alike) is refused: which of the two was meant cannot be told.
    ///
    /// # Errors
    /// [`ConfigError::MalformedSetting`] for an item without `=` or with an empty key;
    /// [`ConfigError::RepeatedSetting`] for a key given twice.
    pub fn parse<I>(items: I) -> Result<Self, ConfigError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let pairs: Vec<(String, String)> = items
            .into_iter()
            .map(|s| {
                let s = s.as_ref();
                s.split_once('=')
                    .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                    .filter(|(k, _)| !k.is_empty())
                    .ok_or_else(|| ConfigError::MalformedSetting {
                        setting: s.to_string(),
                    })
            })
            .collect::<Result<_, _>>()?;
        let settings = Settings { pairs };
        settings.check_repeated()?;
        Ok(settings)
    }

    /// Refuses a parameter set twice (the same key, with the same system prefix or none;
    /// dashes and underscores alike), as [`Settings::parse`] does: for settings gathered
    /// otherwise, such as keyword arguments, where which of the two was meant cannot be
    /// told either.
    ///
    /// # Errors
    /// [`ConfigError::RepeatedSetting`] naming the first key set twice and both settings.
    pub fn check_repeated(&self) -> Result<(), ConfigError> {
        // The same key as a system reads it: its system prefix in any case, then the
        // parameter with dashes as underscores (`Configure::set`).
        let same = |k: &str| match k.split_once('.') {
            Some((sys, key)) => (Some(sys.to_ascii_lowercase()), key.replace('-', "_")),
            None => (None, k.replace('-', "_")),
        };
        let pairs = &self.pairs;
        for (i, (key, value)) in pairs.iter().enumerate() {
            if let Some((k, v)) = pairs[..i].iter().find(|(k, _)| same(k) == same(key)) {
                return Err(ConfigError::RepeatedSetting {
                    key: k.clone(),
                    first: format!("{k}={v}"),
                    second: format!("{key}={value}"),
                });
            }
        }
        Ok(())
    }

    /// These settings and then `key = value`.
    #[must_use]
    pub fn with(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.push(key, value);
        self
    }

    /// Adds `key = value` after the settings so far.
    pub fn push(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.pairs.push((key.into(), value.into()));
    }

    /// The settings in order, as `(key, value)`.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The value set last for `key`, if any (dashes and underscores in keys are
    /// equivalent, as for [`Configure::set`]).
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&str> {
        let key = key.replace('-', "_");
        self.pairs
            .iter()
            .rev()
            .find(|(k, _)| k.replace('-', "_") == key)
            .map(|(_, v)| v.as_str())
    }

    /// Whether there are no settings.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// These settings followed by `later` (whose values win where both set a key).
    #[must_use]
    pub fn then(&self, later: &Settings) -> Settings {
        let mut pairs = self.pairs.clone();
        pairs.extend(later.pairs.iter().cloned());
        Settings { pairs }
    }

    /// The settings meant for system `name` when one list serves several systems: keys
    /// `name.key` (the system's name in any case) lose their prefix, keys with another
    /// system's prefix are left out, plain keys are kept.
    ///
    /// ```
    /// use podium::Settings;
    /// let s = Settings::parse(["k=20", "sme.k=24", "shares.scale=300"]).unwrap();
    /// assert_eq!(s.for_system("sme"), Settings::new().with("k", "20").with("k", "24"));
    /// ```
    #[must_use]
    pub fn for_system(&self, name: &str) -> Settings {
        let pairs = self
            .pairs
            .iter()
            .filter_map(|(k, v)| match k.split_once('.') {
                Some((sys, key)) if sys.eq_ignore_ascii_case(name) => {
                    Some((key.to_string(), v.clone()))
                }
                Some(_) => None,
                None => Some((k.clone(), v.clone())),
            })
            .collect();
        Settings { pairs }
    }

    /// The systems named by prefixed keys (`name.key`), as written, in order.
    pub fn prefixes(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.pairs
            .iter()
            .filter_map(|(k, _)| k.split_once('.').map(|(sys, _)| (sys, k.as_str())))
    }
}

impl fmt::Display for Settings {
    /// `key=value` items separated by spaces, as a command line gives them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (k, v)) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{k}={v}")?;
        }
        Ok(())
    }
}

impl<K: Into<String>, V: Into<String>, const N: usize> From<[(K, V); N]> for Settings {
    /// `Settings::from([("k", "24")])`.
    fn from(pairs: [(K, V); N]) -> Self {
        pairs.into_iter().collect()
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for Settings {
    fn from_iter<T: IntoIterator<Item = (K, V)>>(iter: T) -> Self {
        Settings {
            pairs: iter
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }
}

/// Parses a parameter value of type `Self` from text.
pub trait ParamType: Sized + Copy {
    /// What the parameter accepts, for error messages.
    const EXPECTED: &'static str;
    /// Parses the text.
    fn parse_param(s: &str) -> Option<Self>;
    /// Whether the value is one that [`ParamType::parse_param`] can give (a number is
    /// finite), before any rule of the system.
    fn is_valid(self) -> bool {
        true
    }
    /// What the parameter accepts under a rule of the system (`rule`, e.g. "in [0, 1]").
    fn expected_under(rule: &str) -> String {
        format!("{} {rule}", Self::EXPECTED)
    }
    /// Wraps the value.
    fn to_value(self) -> ParamValue;
}

impl ParamType for f64 {
    const EXPECTED: &'static str = "a finite number";
    fn parse_param(s: &str) -> Option<Self> {
        s.trim().parse::<f64>().ok().filter(|v| v.is_finite())
    }
    fn is_valid(self) -> bool {
        self.is_finite()
    }
    fn to_value(self) -> ParamValue {
        ParamValue::Float(self)
    }
}

impl ParamType for u32 {
    const EXPECTED: &'static str = "a whole number ≥ 0";
    fn parse_param(s: &str) -> Option<Self> {
        s.trim().parse().ok()
    }
    fn to_value(self) -> ParamValue {
        ParamValue::Int(u64::from(self))
    }
}

impl ParamType for bool {
    const EXPECTED: &'static str = "true or false";
    fn parse_param(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" | "on" => Some(true),
            "false" | "no" | "0" | "off" => Some(false),
            _ => None,
        }
    }
    fn to_value(self) -> ParamValue {
        ParamValue::Bool(self)
    }
}

impl ParamType for FloatList {
    const EXPECTED: &'static str = "comma-separated numbers (at most 16) or none";
    fn parse_param(s: &str) -> Option<Self> {
        let s = s.trim();
        if s.is_empty() || s.eq_ignore_ascii_case("none") {
            return Some(FloatList::default());
        }
        let values = s
            .split(',')
            .map(f64::parse_param)
            .collect::<Option<Vec<f64>>>()?;
        FloatList::from_slice(&values)
    }
    fn is_valid(self) -> bool {
        self.as_slice().iter().all(|v| v.is_finite())
    }
    /// The rule says how many numbers and which: "comma-separated numbers, one to eight
    /// values, each in [0, 10000]".
    fn expected_under(rule: &str) -> String {
        format!("comma-separated numbers, {rule}")
    }
    fn to_value(self) -> ParamValue {
        ParamValue::List(self)
    }
}

/// The error of a value of `param` that is not valid under `rule`, as the user sees it.
fn not_valid<T: ParamType>(param: &str, value: String, rule: &str) -> ConfigError {
    ConfigError::InvalidValue {
        param: param.to_string(),
        value,
        expected: if rule.is_empty() {
            T::EXPECTED.to_string()
        } else {
            T::expected_under(rule)
        },
    }
}

/// Checks a parsed value against a rule, building the error the user sees.
#[doc(hidden)]
pub fn check<T: ParamType>(
    param: &str,
    raw: &str,
    ok: impl Fn(T) -> bool,
    rule: &str,
) -> Result<T, ConfigError> {
    match T::parse_param(raw) {
        Some(v) if ok(v) => Ok(v),
        _ => Err(not_valid::<T>(param, raw.to_string(), rule)),
    }
}

/// Checks a value held by a config against a rule, as [`check`] checks its text: the
/// same error, the value written as [`Configure::params`] writes it.
#[doc(hidden)]
pub fn check_held<T: ParamType>(
    param: &str,
    value: T,
    ok: impl Fn(T) -> bool,
    rule: &str,
) -> Result<(), ConfigError> {
    if value.is_valid() && ok(value) {
        Ok(())
    } else {
        Err(not_valid::<T>(param, value.to_value().to_string(), rule))
    }
}

/// Implements [`Configure`] for a config struct from a list of its fields:
/// `field: Type [where |v| rule, "rule text"] => "doc"`, and optionally
/// `validate |config| body` after the list: the rules that tie fields together.
/// [`Configure::set`] checks a value's text against its field's rule;
/// [`Configure::validate`] checks every field's value against its rule, then runs the
/// body.
#[macro_export]
#[doc(hidden)]
macro_rules! configure {
    (@whole $config:ident) => {
        Ok(())
    };
    (@whole $config:ident |$c:ident| $check:block) => {{
        let $c = $config;
        $check
    }};
    ($ty:ty, $system:literal { $( $field:ident : $t:ty $(where $rule:expr, $rule_doc:literal)? => $doc:literal ),* $(,)? } $(validate |$c:ident| $check:block)?) => {
        impl $crate::params::Configure for $ty {
            const SYSTEM: &'static str = $system;
            fn params(&self) -> Vec<$crate::params::Param> {
                vec![$( $crate::params::Param {
                    name: stringify!($field),
                    value: <$t as $crate::params::ParamType>::to_value(self.$field),
                    doc: $doc,
                } ),*]
            }
            fn set(&mut self, key: &str, value: &str) -> Result<(), $crate::ConfigError> {
                let key = key.trim().replace('-', "_");
                $(
                    if key == stringify!($field) {
                        #[allow(unused_mut, unused_assignments)]
                        let mut rule: fn($t) -> bool = |_| true;
                        #[allow(unused_mut, unused_assignments)]
                        let mut rule_doc = "";
                        $( rule = $rule; rule_doc = $rule_doc; )?
                        self.$field = $crate::params::check::<$t>(stringify!($field), value, rule, rule_doc)?;
                        return Ok(());
                    }
                )*
                Err($crate::ConfigError::UnknownParam {
                    system: $system,
                    param: key,
                    known: [$(stringify!($field)),*].join(", "),
                })
            }
            fn validate(&self) -> Result<(), $crate::ConfigError> {
                $(
                    {
                        #[allow(unused_mut, unused_assignments)]
                        let mut rule: fn($t) -> bool = |_| true;
                        #[allow(unused_mut, unused_assignments)]
                        let mut rule_doc = "";
                        $( rule = $rule; rule_doc = $rule_doc; )?
                        $crate::params::check_held::<$t>(stringify!($field), self.$field, rule, rule_doc)?;
                    }
                )*
                $crate::configure!(@whole self $(|$c| $check)?)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::params::{Configure, FloatList, Settings};
    use crate::systems::elo_mmr::EloMmrConfig;
    use crate::systems::sme::SmeConfig;
    use crate::ConfigError;

    /// The error of setting `key` to `value` as text on the defaults of `C`.
    fn by_text<C: Configure + Default>(key: &str, value: &str) -> ConfigError {
        C::default()
            .apply(&Settings::new().with(key, value))
            .unwrap_err()
    }

    /// A config built in code is refused as its text would be: the same error, naming the
    /// parameter, its value and its range.
    #[test]
    fn a_typed_config_out_of_range_is_refused_as_its_text() {
        let sme = |k: f64| SmeConfig {
            k,
            ..SmeConfig::default()
        };
        let err = sme(-24.0).validate().unwrap_err();
        assert_eq!(err, by_text::<SmeConfig>("k", "-24"));
        assert_eq!(
            err.to_string(),
            "parameter k: \"-24\" is not valid, expected a finite number in (0, 1e9]"
        );
        assert_eq!(
            sme(f64::NAN).validate().unwrap_err().to_string(),
            "parameter k: \"NaN\" is not valid, expected a finite number in (0, 1e9]"
        );
        assert_eq!(
            sme(f64::INFINITY).validate().unwrap_err().to_string(),
            "parameter k: \"inf\" is not valid, expected a finite number in (0, 1e9]"
        );
        assert_eq!(sme(24.0).validate(), Ok(()));
        // The first field out of range is named, in the order of the parameters.
        let both = SmeConfig {
            k: 0.0,
            scale: -1.0,
            ..SmeConfig::default()
        };
        assert!(matches!(
            both.validate(),
            Err(ConfigError::InvalidValue { ref param, .. }) if param == "k"
        ));
    }

    #[test]
    fn a_typed_list_out_of_range_is_refused_as_its_text() {
        let with = |delay: &[f64]| EloMmrConfig {
            noob_delay: FloatList::from_slice(delay).unwrap(),
            ..EloMmrConfig::default()
        };
        let err = with(&[0.5, 0.0]).validate().unwrap_err();
        assert_eq!(err, by_text::<EloMmrConfig>("noob_delay", "0.5,0"));
        assert_eq!(
            err.to_string(),
            "parameter noob_delay: \"0.5,0\" is not valid, expected comma-separated numbers, each in [1e-6, 1000], at most 16 of them, or none"
        );
        assert_eq!(
            with(&[f64::NAN]).validate().unwrap_err().to_string(),
            "parameter noob_delay: \"NaN\" is not valid, expected comma-separated numbers, each in [1e-6, 1000], at most 16 of them, or none"
        );
        assert_eq!(with(&[0.6, 0.8]).validate(), Ok(()));
        assert_eq!(with(&[]).validate(), Ok(()));
    }

    /// Every system's defaults pass its own checks, and each parameter's default value
    /// reads back as text through the same checks.
    #[test]
    fn every_default_is_valid_and_reads_back() {
        for spec in crate::systems() {
            let sys = crate::system(spec.name, &Settings::new()).unwrap();
            let settings: Settings = (spec.defaults)()
                .into_iter()
                .map(|p| (p.name, p.value.to_string()))
                .collect();
            let again = crate::system(spec.name, &settings).unwrap();
            assert_eq!(
                again.describe().params,
                sys.describe().params,
                "{}",
                spec.name
            );
        }
    }

    /// The error of a bad list names the list's own rule once, not the general
    /// "comma-separated numbers (at most 16) or none" before a rule that contradicts it.
    #[test]
    fn a_bad_taus_value_reads_as_one_sentence() {
        let err = |system: &str, key: &str, value: &str| {
            let settings: Settings = [(key, value)].into_iter().collect();
            crate::system(system, &settings).unwrap_err().to_string()
        };
        for value in ["1,2,3,4,5,6,7,8,9", "x", "-1", "none"] {
            assert_eq!(
                err("kalman-mmr", "taus", value),
                format!("parameter taus: {value:?} is not valid, expected comma-separated numbers, one to eight values, each in [0, 10000]")
            );
        }
        assert_eq!(
            err("elo-mmr", "noob_delay", "0"),
            "parameter noob_delay: \"0\" is not valid, expected comma-separated numbers, each in [1e-6, 1000], at most 16 of them, or none"
        );
        assert_eq!(
            err("elo", "k", "x"),
            "parameter k: \"x\" is not valid, expected a finite number in (0, 1e9]"
        );
    }
}
