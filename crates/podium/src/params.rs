//! Named, typed parameters of a system's config, settable from text (`--set k=24`).

use std::fmt;

use crate::error::ConfigError;

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
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Float(v) => write!(f, "{v}"),
            ParamValue::Int(v) => write!(f, "{v}"),
            ParamValue::Bool(v) => write!(f, "{v}"),
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

    /// Applies `key=value` settings in order, then checks the whole config.
    ///
    /// # Errors
    /// The first setting that is unknown or invalid.
    fn apply<'a>(
        &mut self,
        settings: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<(), ConfigError>
    where
        Self: Sized,
    {
        for (k, v) in settings {
            self.set(k, v)?;
        }
        Ok(())
    }
}

/// Parses a parameter value of type `Self` from text.
pub trait ParamType: Sized + Copy {
    /// What the parameter accepts, for error messages.
    const EXPECTED: &'static str;
    /// Parses the text.
    fn parse_param(s: &str) -> Option<Self>;
    /// Wraps the value.
    fn to_value(self) -> ParamValue;
}

impl ParamType for f64 {
    const EXPECTED: &'static str = "a finite number";
    fn parse_param(s: &str) -> Option<Self> {
        s.trim().parse::<f64>().ok().filter(|v| v.is_finite())
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
        _ => Err(ConfigError::InvalidValue {
            param: param.to_string(),
            value: raw.to_string(),
            expected: if rule.is_empty() {
                T::EXPECTED.to_string()
            } else {
                format!("{} {rule}", T::EXPECTED)
            },
        }),
    }
}

/// Implements [`Configure`] for a config struct from a list of its fields:
/// `field: Type [where |v| rule, "rule text"] => "doc"`.
#[macro_export]
#[doc(hidden)]
macro_rules! configure {
    ($ty:ty, $system:literal { $( $field:ident : $t:ty $(where $rule:expr, $rule_doc:literal)? => $doc:literal ),* $(,)? }) => {
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
        }
    };
}
