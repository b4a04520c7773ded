//! The sentences of [`CtxpackError`] (its `Display`), and how numbers are
//! printed in them: as JavaScript prints them.

use std::fmt;

use super::{CtxpackError, TableLimit};

impl fmt::Display for CtxpackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidScore { index, value } => {
                write!(f, "items[{index}].score must be a finite number, got {}", js_number(*value))
            }
            Self::InvalidBudget { field, reason } => write!(f, "budget.{field} {reason}"),
            Self::InvalidBucketSize { value } => {
                write!(f, "bucket size must be a positive integer, got {value}")
            }
            Self::BucketSizeNotInteger { got } => {
                write!(f, "bucket size must be a positive integer, got {got}")
            }
            Self::InvalidCountEntry { index, problem, .. } => {
                write!(f, "entries[{index}]: {problem}")
            }
            Self::CountEntryShape {
                index,
                member,
                reason,
            } => {
                f.write_str("options.entries")?;
                if let Some(index) = index {
                    write!(f, "[{index}]")?;
                }
                if !member.is_empty() {
                    write!(f, ".{member}")?;
                }
                write!(f, " {reason}")
            }
            Self::TableTooLarge { .. } => self.fmt_table(f),
            Self::CountRequirementShortfall {
                index,
                satisfied,
                required,
                ..
            } => write!(
                f,
                "CountConstrainedKnapsackSlice: candidate pool for the kind of entries[{index}] has {satisfied} items but RequireCount is {required}."
            ),
            Self::CountRequirementOverBudget {
                required_tokens,
                target_tokens,
                bucket_size: 1,
            } => write!(
                f,
                "the required items need at least {required_tokens} tokens, over the budget of {target_tokens}"
            ),
            Self::CountRequirementOverBudget {
                required_tokens,
                target_tokens,
                bucket_size,
            } => write!(
                f,
                "the required items need at least {required_tokens} tokens (counts rounded up to multiples of {bucket_size}), over the budget of {target_tokens}"
            ),
            Self::NotMonotonic { slicer } => write!(
                f,
                "budget simulation is not defined for '{slicer}': its selection is not monotonic in the budget (required items can exceed it, and its value can fall as the budget grows), so a curve, a minimum budget or a slack would mislead; run the slicer at each budget instead"
            ),
            Self::InvalidOption { option, reason } if option.is_empty() => {
                write!(f, "options: {reason}")
            }
            Self::InvalidOption { option, reason } => write!(f, "options.{option} {reason}"),
            Self::InvalidField {
                field,
                index: Some(index),
                reason,
            } if field.is_empty() => write!(f, "items[{index}] {reason}"),
            Self::InvalidField {
                field,
                index: Some(index),
                reason,
            } => write!(f, "items[{index}].{field} {reason}"),
            Self::InvalidField {
                field,
                index: None,
                reason,
            } => write!(f, "{field} {reason}"),
            Self::SelfDependency { index, field, .. } => write!(
                f,
                "items[{index}].{field} must be the index of another item, got {index} (the item itself)"
            ),
            Self::CountedKindInGroup { index, members } => write!(
                f,
                "items[{index}] is in a group of {members} items and its kind has a count entry: count-constrained strategies count items, not groups"
            ),
            Self::Unreadable { field, index } => write!(
                f,
                "items[{index}].{field} could not be read: a getter or a Proxy trap threw, or a Proxy was revoked (the thrown value is this error's cause)"
            ),
            Self::InvalidInput { reason } => write!(f, "{reason}"),
        }
    }
}

impl CtxpackError {
    /// [`TableTooLarge`](Self::TableTooLarge)'s sentence: the table's shape,
    /// the limit it hit and what to raise.
    fn fmt_table(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self::TableTooLarge {
            candidates,
            capacity,
            cells,
            bytes,
            limit,
            unit,
            bucket_helps,
        } = self
        else {
            return Ok(());
        };
        let (unit_name, option) = unit.unit_and_option();
        let shape = format!(
            "knapsack table too large: {candidates} candidates x {} columns (capacity {capacity}) = {cells} cells, {bytes} bytes",
            capacity.saturating_add(1)
        );
        if *unit == TableLimit::Addressable {
            // No option raises the address space: only a coarser bucket or a smaller budget helps.
            let bucket = if *bucket_helps {
                "raise bucket_size or "
            } else {
                ""
            };
            write!(f, "{shape}, more than the {limit} bytes this platform can address; {bucket}lower the budget")
        } else {
            let bucket = if *bucket_helps { "bucket_size or " } else { "" };
            write!(
                f,
                "{shape}, over the limit of {limit} {unit_name}; raise {bucket}{option}"
            )
        }
    }
}

impl std::error::Error for CtxpackError {}

/// A number as JavaScript prints it (`NaN`, `Infinity`, `1.5`, `3`,
/// `1e+300`), so that messages read the same from Rust and from JS.
#[cfg(target_arch = "wasm32")]
pub(crate) fn js_number(v: f64) -> String {
    // JS's own conversion: the same text, without Rust's float formatting
    // code in the .wasm.
    js_sys::Number::from(v)
        .to_string_with_radix(10)
        .map(String::from)
        .unwrap_or_default()
}

/// A number as JavaScript prints it (see the wasm32 version).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn js_number(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if v != 0.0 && (v.abs() >= 1e21 || v.abs() < 1e-6) {
        let e = format!("{v:e}");
        if e.contains("e-") {
            e
        } else {
            e.replace('e', "e+")
        }
    } else {
        format!("{v}")
    }
}
