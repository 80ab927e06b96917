//! JSON equality and number ordering as JSON Schema sees them: `1` equals `1.0`.

use std::cmp::Ordering;

use serde_json::{Number, Value};

/// Orders two numbers exactly when both are integers, through `f64` otherwise.
pub(super) fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64()) {
        return Some(a.cmp(&b));
    }
    if let (Some(a), Some(b)) = (a.as_u64(), b.as_u64()) {
        return Some(a.cmp(&b));
    }
    a.as_f64()?.partial_cmp(&b.as_f64()?)
}

/// JSON equality for `enum` and `const` (TC-CHECK-005, TC-CHECK-006).
pub(super) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => compare(a, b) == Some(Ordering::Equal),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| equal(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.get(key).is_some_and(|b| equal(a, b)))
        }
        _ => a == b,
    }
}

/// An integer by value, as JSON Schema counts it: `1.0` is one.
pub(super) fn is_integer(number: &Number) -> bool {
    number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn numbers_equal_across_representations() {
        assert!(equal(&json!(1), &json!(1.0)));
        assert!(equal(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!equal(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!equal(&json!("1"), &json!(1)));
    }

    #[test]
    fn large_integers_compare_exactly() {
        let big = Number::from(u64::MAX);
        let smaller = Number::from(u64::MAX - 1);
        assert_eq!(compare(&big, &smaller), Some(Ordering::Greater));
        assert_eq!(compare(&Number::from(-1), &big), Some(Ordering::Less));
    }
}
