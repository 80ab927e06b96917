use rstest::rstest;
use serde_json::{json, Map, Value};

use super::*;

const MARKER: &str = "zq-sent-value-7f3a";

fn schema(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("test schema must be an object, got {other}"),
    }
}

/// An arguments schema with one property `x` of the given schema.
fn one_property(property: Value) -> Validator {
    Validator::compile(&schema(json!({
        "type": "object",
        "properties": {"x": property},
        "additionalProperties": false
    })))
}

fn problems(validator: &Validator, arguments: Value) -> Vec<(String, Problem)> {
    match validator.validate(&arguments) {
        Ok(()) => Vec::new(),
        Err(violations) => violations
            .into_iter()
            .map(|violation| (violation.pointer, violation.problem))
            .collect(),
    }
}

fn accepts(property: Value, value: Value) -> bool {
    one_property(property)
        .validate(&json!({ "x": value }))
        .is_ok()
}

#[rstest]
#[case::string(json!({"type": "string"}), json!("a"), true)]
#[case::string_rejects_number(json!({"type": "string"}), json!(1), false)]
#[case::integer(json!({"type": "integer"}), json!(3), true)]
#[case::integral_float_is_integer(json!({"type": "integer"}), json!(1.0), true)]
#[case::fraction_is_not_integer(json!({"type": "integer"}), json!(1.5), false)]
#[case::integer_is_number(json!({"type": "number"}), json!(3), true)]
#[case::number(json!({"type": "number"}), json!(2.5), true)]
#[case::boolean(json!({"type": "boolean"}), json!(true), true)]
#[case::boolean_rejects_string(json!({"type": "boolean"}), json!("true"), false)]
#[case::null(json!({"type": "null"}), json!(null), true)]
#[case::null_rejected(json!({"type": "string"}), json!(null), false)]
#[case::type_list_admits_null(json!({"type": ["string", "null"]}), json!(null), true)]
#[case::type_list_rejects_other(json!({"type": ["string", "null"]}), json!(1), false)]
#[case::object(json!({"type": "object"}), json!({}), true)]
#[case::array(json!({"type": "array"}), json!([]), true)]
#[case::array_rejects_object(json!({"type": "array"}), json!({}), false)]
#[case::unknown_type_ignored(json!({"type": "thing"}), json!(1), true)]
fn type_keyword(#[case] property: Value, #[case] value: Value, #[case] valid: bool) {
    assert_eq!(accepts(property, value), valid);
}

#[test]
fn wrong_type_names_expected_and_found_types() {
    let validator = one_property(json!({"type": ["integer", "null"]}));
    assert_eq!(
        problems(&validator, json!({"x": "a"})),
        vec![(
            "/x".to_owned(),
            Problem::WrongType {
                expected: TypeSet::from_keyword(&json!(["integer", "null"])).expect("types"),
                found: JsonType::String
            }
        )]
    );
    let message = validator
        .validate(&json!({"x": "a"}))
        .expect_err("wrong type")[0]
        .to_string();
    assert_eq!(message, "/x: must be null or an integer, not a string");
}

/// The wrong-type message reads as English: the right article, and " or "
/// only between the types a keyword admits.
#[test]
fn a_wrong_type_reads_as_english() {
    let expected = TypeSet::from_keyword(&json!(["string", "null"])).expect("types");
    for (found, text) in [
        (JsonType::Object, "must be null or a string, not an object"),
        (JsonType::Array, "must be null or a string, not an array"),
        (
            JsonType::Integer,
            "must be null or a string, not an integer",
        ),
        (JsonType::Boolean, "must be null or a string, not a boolean"),
    ] {
        let problem = Problem::WrongType { expected, found };
        assert_eq!(problem.to_string(), text);
    }
    let problem = Problem::WrongType {
        expected: TypeSet::from_keyword(&json!("object")).expect("a type"),
        found: JsonType::Number,
    };
    assert_eq!(problem.to_string(), "must be an object, not a number");
}

/// A type named twice is still admitted; the converter removes repeats,
/// but the set must not depend on it.
#[test]
fn a_type_named_twice_is_admitted_once() {
    let twice = TypeSet::from_keyword(&json!(["string", "string"])).expect("a type");
    assert!(twice.admits(&json!("a")));
    assert_eq!(twice, TypeSet::only(JsonType::String));
}

#[test]
fn missing_required_property_is_named_by_its_own_pointer() {
    let validator = Validator::compile(&schema(json!({
        "type": "object",
        "required": ["body"],
        "properties": {"body": {
            "type": "object",
            "required": ["name", "age"],
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}
        }}
    })));
    assert_eq!(
        problems(&validator, json!({})),
        vec![("/body".to_owned(), Problem::Missing)]
    );
    assert_eq!(
        problems(&validator, json!({"body": {"age": 3}})),
        vec![("/body/name".to_owned(), Problem::Missing)]
    );
}

#[test]
fn forbidden_additional_property_is_named_by_its_own_pointer() {
    let validator = Validator::compile(&schema(json!({
        "type": "object",
        "properties": {"body": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "additionalProperties": false
        }},
        "additionalProperties": false
    })));
    assert_eq!(
        problems(
            &validator,
            json!({"extra": 1, "body": {"name": "a", "nick": "b"}})
        ),
        vec![
            ("/extra".to_owned(), Problem::NotAllowed),
            ("/body/nick".to_owned(), Problem::NotAllowed)
        ]
    );
}

#[test]
fn schema_valued_additional_properties_are_checked() {
    let validator = one_property(json!({
        "type": "object",
        "properties": {"known": {"type": "string"}},
        "additionalProperties": {"type": "integer"}
    }));
    assert!(validator
        .validate(&json!({"x": {"known": "a", "n": 1}}))
        .is_ok());
    assert_eq!(
        problems(&validator, json!({"x": {"known": "a", "n": "one"}})),
        vec![(
            "/x/n".to_owned(),
            Problem::WrongType {
                expected: TypeSet::from_keyword(&json!("integer")).expect("type"),
                found: JsonType::String
            }
        )]
    );
}

#[test]
fn absent_additional_properties_allows_anything() {
    assert!(accepts(
        json!({"type": "object"}),
        json!({"anything": [1, 2]})
    ));
}

#[test]
fn nested_items_are_checked_with_indexes_in_the_pointer() {
    let validator = Validator::compile(&schema(json!({
        "type": "object",
        "properties": {"body": {
            "type": "object",
            "properties": {"tags": {"type": "array", "items": {"type": "string", "maxLength": 3}}}
        }}
    })));
    assert_eq!(
        problems(&validator, json!({"body": {"tags": ["ok", "fine", 7]}})),
        vec![
            ("/body/tags/1".to_owned(), Problem::TooLong { max: 3 }),
            (
                "/body/tags/2".to_owned(),
                Problem::WrongType {
                    expected: TypeSet::from_keyword(&json!("string")).expect("type"),
                    found: JsonType::Integer
                }
            )
        ]
    );
}

#[rstest]
#[case::listed(json!("b"), true)]
#[case::unlisted(json!("d"), false)]
#[case::numeric_equality(json!(2.0), true)]
#[case::object_member(json!({"k": [1]}), true)]
#[case::object_differs(json!({"k": [2]}), false)]
fn enum_keyword(#[case] value: Value, #[case] valid: bool) {
    let property = json!({"enum": ["a", "b", 2, {"k": [1.0]}]});
    assert_eq!(accepts(property, value), valid);
}

#[rstest]
#[case::equal(json!(1), true)]
#[case::numerically_equal(json!(1.0), true)]
#[case::different(json!(2), false)]
#[case::different_type(json!("1"), false)]
fn const_keyword(#[case] value: Value, #[case] valid: bool) {
    assert_eq!(accepts(json!({"const": 1}), value), valid);
}

#[rstest]
#[case::ascii_fits("abc", true)]
#[case::ascii_too_long("abcd", false)]
#[case::multi_byte_counts_once("äöü", true)]
#[case::emoji_counts_once("😀😀😀", true)]
#[case::four_emoji_too_long("😀😀😀😀", false)]
#[case::too_short("a", false)]
#[case::multi_byte_too_short("é", false)]
fn lengths_count_characters(#[case] text: &str, #[case] valid: bool) {
    assert_eq!(
        accepts(json!({"minLength": 2, "maxLength": 3}), json!(text)),
        valid
    );
}

#[test]
fn lengths_report_their_bounds() {
    let validator = one_property(json!({"minLength": 2, "maxLength": 3}));
    assert_eq!(
        problems(&validator, json!({"x": "abcd"})),
        vec![("/x".to_owned(), Problem::TooLong { max: 3 })]
    );
    assert_eq!(
        problems(&validator, json!({"x": ""})),
        vec![("/x".to_owned(), Problem::TooShort { min: 2 })]
    );
}

#[rstest]
#[case::empty(json!([]), Some(Problem::TooFewItems { min: 1 }))]
#[case::one(json!([1]), None)]
#[case::two(json!([1, 2]), None)]
#[case::three(json!([1, 2, 3]), Some(Problem::TooManyItems { max: 2 }))]
fn item_counts(#[case] value: Value, #[case] expected: Option<Problem>) {
    let validator = one_property(json!({"type": "array", "minItems": 1, "maxItems": 2}));
    let expected: Vec<_> = expected.into_iter().map(|p| ("/x".to_owned(), p)).collect();
    assert_eq!(problems(&validator, json!({ "x": value })), expected);
}

#[rstest]
#[case::minimum_met(json!({"minimum": 5}), json!(5), true)]
#[case::below_minimum(json!({"minimum": 5}), json!(4.99), false)]
#[case::maximum_met(json!({"maximum": 5}), json!(5.0), true)]
#[case::above_maximum(json!({"maximum": 5}), json!(6), false)]
#[case::exclusive_minimum_equal(json!({"exclusiveMinimum": 5}), json!(5), false)]
#[case::exclusive_minimum_above(json!({"exclusiveMinimum": 5}), json!(5.01), true)]
#[case::exclusive_maximum_equal(json!({"exclusiveMaximum": 5}), json!(5.0), false)]
#[case::exclusive_maximum_below(json!({"exclusiveMaximum": 5}), json!(4), true)]
#[case::negative(json!({"minimum": -3}), json!(-4), false)]
#[case::openapi_30_boolean_form(json!({"minimum": 5, "exclusiveMinimum": true}), json!(5), false)]
#[case::bounds_ignore_strings(json!({"minimum": 5}), json!("1"), true)]
fn ranges(#[case] property: Value, #[case] value: Value, #[case] valid: bool) {
    assert_eq!(accepts(property, value), valid);
}

#[test]
fn range_messages_name_the_bound() {
    let validator = one_property(json!({"exclusiveMaximum": 10}));
    let violations = validator.validate(&json!({"x": 12})).expect_err("too big");
    assert_eq!(violations[0].to_string(), "/x: must be less than 10");
}

#[rstest]
#[case::date_time("date-time", "2024-02-29T10:00:00Z", true)]
#[case::bad_date_time("date-time", "2024-02-30T10:00:00Z", false)]
#[case::date("date", "2024-02-29", true)]
#[case::bad_date("date", "29.02.2024", false)]
#[case::email("email", "a@b.example", true)]
#[case::bad_email("email", "a.b.example", false)]
#[case::uuid("uuid", "123e4567-e89b-12d3-a456-426614174000", true)]
#[case::bad_uuid("uuid", "123e4567", false)]
#[case::unchecked_format("ipv4", "not an address", true)]
fn formats(#[case] format: &str, #[case] text: &str, #[case] valid: bool) {
    assert_eq!(accepts(json!({"format": format}), json!(text)), valid);
}

#[test]
fn format_ignores_non_strings() {
    assert!(accepts(json!({"format": "uuid"}), json!(12)));
}

#[rstest]
#[case::pattern(json!({"type": "string", "pattern": "^a$"}), json!("b"))]
#[case::one_of(json!({"oneOf": [{"type": "string"}, {"type": "string"}]}), json!("b"))]
#[case::any_of(json!({"anyOf": [{"type": "string"}]}), json!(1))]
#[case::all_of(json!({"allOf": [{"type": "string"}]}), json!(1))]
#[case::not(json!({"not": {"type": "integer"}}), json!(1))]
#[case::multiple_of(json!({"multipleOf": 3}), json!(4))]
#[case::unique_items(json!({"uniqueItems": true}), json!([1, 1]))]
fn unchecked_keywords_are_ignored(#[case] property: Value, #[case] value: Value) {
    assert!(accepts(property, value));
}

/// Nine nested objects `a`, the innermost holding `leaf`: the value of `leaf`
/// sits at depth `levels + 1`.
fn nested(levels: usize, leaf: Value) -> (Map<String, Value>, Value) {
    let mut schema = json!({"type": "object", "properties": {"leaf": {"type": "string"}}});
    let mut value = json!({ "leaf": leaf });
    for _ in 0..levels {
        schema = json!({"type": "object", "properties": {"a": schema}});
        value = json!({ "a": value });
    }
    (self::schema(schema), value)
}

#[test]
fn a_wrong_value_at_depth_8_is_reported() {
    let (schema, arguments) = nested(7, json!(1));
    let violations = Validator::compile(&schema)
        .validate(&arguments)
        .expect_err("depth 8 is checked");
    assert_eq!(violations[0].pointer, "/a/a/a/a/a/a/a/leaf");
}

#[test]
fn a_wrong_value_at_depth_9_is_not_checked() {
    let (schema, arguments) = nested(8, json!(1));
    assert_eq!(Validator::compile(&schema).validate(&arguments), Ok(()));
}

#[test]
fn recursive_references_resolve_and_stop_at_the_depth_limit() {
    let validator = Validator::compile(&schema(json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            }
        }}
    })));
    assert!(validator
        .validate(&json!({"tree": {"name": "root", "children": [{"name": "leaf"}]}}))
        .is_ok());
    assert_eq!(
        problems(
            &validator,
            json!({"tree": {"name": "root", "children": [{"name": 1}]}})
        ),
        vec![(
            "/tree/children/0/name".to_owned(),
            Problem::WrongType {
                expected: TypeSet::from_keyword(&json!("string")).expect("type"),
                found: JsonType::Integer
            }
        )]
    );
    // Deep recursion ends at the depth limit instead of overflowing.
    let mut deep = json!({"name": 1});
    for _ in 0..500 {
        deep = json!({"name": "n", "children": [deep]});
    }
    assert!(validator.validate(&json!({ "tree": deep })).is_ok());
}

#[test]
fn references_that_loop_or_lead_nowhere_check_nothing() {
    let validator = Validator::compile(&schema(json!({
        "type": "object",
        "properties": {
            "looping": {"$ref": "#/$defs/A"},
            "dangling": {"$ref": "#/$defs/Missing"},
            "external": {"$ref": "https://example.com/schema.json"}
        },
        "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}
    })));
    assert!(validator
        .validate(&json!({"looping": 1, "dangling": 2, "external": 3}))
        .is_ok());
}

#[test]
fn skipping_bare_references_keeps_the_hop_count() {
    // `B` is reached at hops 2, 4, … 32 and reports at each visit: the walk
    // must count the bare `$ref`s it skips exactly as if it visited them.
    let validator = Validator::compile(&schema(json!({
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/A"}},
        "$defs": {
            "A": {"$ref": "#/$defs/B"},
            "B": {"$ref": "#/$defs/A", "type": "string"}
        }
    })));
    let found = problems(&validator, json!({"x": 1}));
    assert_eq!(found.len(), 16);
    assert!(found.iter().all(|(pointer, _)| pointer == "/x"));
    assert_eq!(validator.validate(&json!({"x": "a"})), Ok(()));
}

#[test]
fn children_keywords_beside_references_check_each_value_once() {
    // Found by fuzzing (issue 9): each `D` checks its members against `D1`
    // and references the next, so a member met `D1` once per `D` in the
    // chain, and a value n levels down 4^n times: an object 8 deep gave
    // 65,536 copies of one violation, and a longer chain exhausted memory.
    let validator = Validator::compile(&schema(json!({
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/D1"}},
        "$defs": {
            "D1": {"$ref": "#/$defs/D2", "additionalProperties": {"$ref": "#/$defs/D1"}},
            "D2": {"$ref": "#/$defs/D3", "additionalProperties": {"$ref": "#/$defs/D1"}},
            "D3": {"$ref": "#/$defs/D4", "additionalProperties": {"$ref": "#/$defs/D1"}},
            "D4": {"additionalProperties": {"$ref": "#/$defs/D1"}, "const": {}}
        }
    })));
    let (_, deep) = nested(8, json!({}));
    let found = problems(&validator, json!({ "x": deep }));
    // One `const` violation per object checked: `x` and the seven levels
    // below it (deeper ones are left to the API, TC-CHECK-011).
    let pointers: Vec<&str> = found.iter().map(|(pointer, _)| pointer.as_str()).collect();
    assert_eq!(pointers.len(), 8, "{pointers:?}");
    assert!(found
        .iter()
        .all(|(_, problem)| *problem == Problem::NotConst));
}

#[test]
fn reference_to_an_escaped_name_resolves() {
    let validator = Validator::compile(&schema(json!({
        "properties": {"x": {"$ref": "#/$defs/a~1b%20c"}},
        "$defs": {"a/b c": {"type": "string"}}
    })));
    assert!(validator.validate(&json!({"x": 1})).is_err());
}

#[test]
fn pointers_escape_tilde_and_slash() {
    let validator = Validator::compile(&schema(json!({
        "type": "object",
        "properties": {"a/b": {"type": "object", "properties": {"c~d": {"type": "string"}}}},
        "required": ["e/f~"],
        "additionalProperties": false
    })));
    assert_eq!(
        problems(&validator, json!({"a/b": {"c~d": 1}, "g~/": 1}))
            .into_iter()
            .map(|(pointer, _)| pointer)
            .collect::<Vec<_>>(),
        vec!["/e~1f~0", "/a~1b/c~0d", "/g~0~1"]
    );
}

#[test]
fn every_violation_is_collected() {
    let validator = Validator::compile(&schema(json!({
        "type": "object",
        "required": ["id", "body"],
        "properties": {
            "id": {"type": "integer", "minimum": 1},
            "limit": {"type": "integer", "maximum": 100},
            "body": {"type": "object"}
        },
        "additionalProperties": false
    })));
    let found = problems(&validator, json!({"id": 0, "limit": 101, "x": true}));
    assert_eq!(
        found.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
        vec!["/body", "/id", "/limit", "/x"]
    );
}

#[test]
fn missing_members_come_first_in_the_order_required_names_them() {
    let validator = Validator::compile(&schema(json!({
        "type": "object",
        "properties": {
            "outer": {
                "type": "object",
                "required": ["b", "extra", "a", "b"],
                "properties": {
                    "a": {"type": "string"},
                    "b": {"type": "string"},
                    "c": {"type": "string"}
                },
                "additionalProperties": {"type": "integer"}
            },
            "after": {"type": "string"}
        }
    })));
    let wrong_type = |expected: &str, found| Problem::WrongType {
        expected: TypeSet::from_keyword(&json!(expected)).expect("type"),
        found,
    };
    assert_eq!(
        problems(&validator, json!({"outer": {"c": 1, "z": "x"}, "after": 1})),
        vec![
            ("/outer/b".to_owned(), Problem::Missing),
            ("/outer/extra".to_owned(), Problem::Missing),
            ("/outer/a".to_owned(), Problem::Missing),
            ("/outer/b".to_owned(), Problem::Missing),
            (
                "/outer/c".to_owned(),
                wrong_type("string", JsonType::Integer)
            ),
            (
                "/outer/z".to_owned(),
                wrong_type("integer", JsonType::String)
            ),
            ("/after".to_owned(), wrong_type("string", JsonType::Integer)),
        ]
    );
    assert_eq!(
        problems(&validator, json!({"outer": {"a": "x", "b": "y"}})),
        vec![("/outer/extra".to_owned(), Problem::Missing)]
    );
    assert_eq!(
        validator.validate(&json!({"outer": {"a": "x", "b": "y", "extra": 1}})),
        Ok(())
    );
}

#[test]
fn large_string_enums_are_looked_up_exactly() {
    let mut values: Vec<Value> = (0..300).map(|n| json!(format!("value_{n}"))).collect();
    values.push(json!(7));
    let validator = one_property(json!({ "enum": values }));
    assert!(validator.validate(&json!({"x": "value_0"})).is_ok());
    assert!(validator.validate(&json!({"x": "value_299"})).is_ok());
    assert!(validator.validate(&json!({"x": 7.0})).is_ok());
    for rejected in [json!("value_300"), json!("value_"), json!("7"), json!(null)] {
        assert_eq!(
            problems(&validator, json!({ "x": rejected })),
            vec![("/x".to_owned(), Problem::NotInEnum)]
        );
    }
}

#[test]
fn false_schema_rejects_the_value() {
    assert!(!accepts(json!(false), json!(1)));
    assert!(accepts(json!(true), json!(1)));
}

#[test]
fn messages_never_contain_the_value_sent() {
    let validator = Validator::compile(&schema(json!({
        "type": "object",
        "properties": {
            "s": {"type": "integer"},
            "l": {"maxLength": 3, "minLength": 100},
            "e": {"enum": ["a"]},
            "c": {"const": "a"},
            "f": {"format": "email"},
            "d": {"format": "date-time"},
            "n": {"type": "array", "maxItems": 0},
            "o": {"type": "object", "additionalProperties": false}
        },
        "additionalProperties": false
    })));
    let arguments = json!({
        "s": MARKER, "l": MARKER, "e": MARKER, "c": MARKER, "f": MARKER, "d": MARKER,
        "n": [MARKER], "o": {"k": MARKER}
    });
    let violations = validator.validate(&arguments).expect_err("all wrong");
    assert_eq!(violations.len(), 9);
    for violation in violations {
        let message = violation.to_string();
        assert!(!message.contains(MARKER), "{message}");
    }
}

#[test]
fn valid_arguments_pass() {
    let validator = Validator::compile(&schema(json!({
        "type": "object",
        "required": ["petId"],
        "properties": {
            "petId": {"type": "integer", "minimum": 1},
            "body": {"type": "object", "properties": {"name": {"type": "string", "minLength": 1}}}
        },
        "additionalProperties": false
    })));
    assert_eq!(
        validator.validate(&json!({"petId": 3, "body": {"name": "Rex"}})),
        Ok(())
    );
}

/// Issue 7: what `additionalProperties` forbids is what neither `properties`
/// nor `patternProperties` names. Patterns are not checked (TC-CHECK-012),
/// so a member whose name could match one is never additional.
#[rstest]
#[case::prefix_matches(json!({"^x-": {}}), "x-trace", true)]
#[case::prefix_does_not_match(json!({"^x-": {}}), "trace", false)]
#[case::anywhere_matches(json!({"_id": {}}), "user_id", true)]
#[case::anywhere_does_not_match(json!({"_id": {}}), "userid", false)]
#[case::escaped_literal(json!({"^a\\.b": {}}), "a.b.c", true)]
#[case::escaped_literal_differs(json!({"^a\\.b": {}}), "aXb", false)]
#[case::class_after_prefix(json!({"^[a-z]+$": {}}), "lower", true)]
#[case::class_may_match_anything(json!({"^[a-z]+$": {}}), "UPPER", true)]
#[case::optional_last_character(json!({"^ab?c": {}}), "ac", true)]
#[case::starred_last_character(json!({"^ab*": {}}), "a", true)]
#[case::braced_last_character(json!({"^ab{0,1}": {}}), "a", true)]
#[case::plus_keeps_the_character(json!({"^ab+": {}}), "a", false)]
#[case::alternation(json!({"^a|b": {}}), "b", true)]
#[case::unevaluable(json!({"^a(": {}}), "b", true)]
#[case::class_escape(json!({"^\\d": {}}), "x", true)]
#[case::any_of_several(json!({"^a": {}, "^b": {}}), "b", true)]
#[case::pattern_schema_false_is_not_checked(json!({"^x-": false}), "x-trace", true)]
fn pattern_properties_are_not_additional(
    #[case] patterns: Value,
    #[case] name: &str,
    #[case] valid: bool,
) {
    for additional in [json!(false), json!({"type": "integer"})] {
        let property = json!({
            "type": "object",
            "properties": {"known": {"type": "string"}},
            "patternProperties": patterns,
            "additionalProperties": additional
        });
        assert_eq!(
            accepts(property, json!({ "known": "a", name: "text" })),
            valid,
            "{name} beside additionalProperties {additional}"
        );
    }
}

/// Issue 7: `items` is about the items after `prefixItems`, whose own schemas
/// are not checked (TC-CHECK-012).
#[rstest]
#[case::none(json!([]), true)]
#[case::within_the_prefix(json!([1, "a"]), true)]
#[case::prefix_not_checked(json!(["a", 1]), true)]
#[case::one_too_many(json!([1, "a", true]), false)]
fn items_false_after_prefix_items_allows_the_prefix(#[case] value: Value, #[case] valid: bool) {
    let property = json!({
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "string"}],
        "items": false
    });
    assert_eq!(accepts(property, value), valid);
}

#[test]
fn items_after_prefix_items_are_checked_from_their_index() {
    let validator = one_property(json!({
        "type": "array",
        "prefixItems": [{"type": "string"}],
        "items": {"type": "integer"}
    }));
    assert_eq!(validator.validate(&json!({"x": ["a", 1, 2]})), Ok(()));
    assert_eq!(
        problems(&validator, json!({"x": ["a", 1, "b"]})),
        vec![(
            "/x/2".to_owned(),
            Problem::WrongType {
                expected: TypeSet::from_keyword(&json!("integer")).expect("type"),
                found: JsonType::String
            }
        )]
    );
}

#[rstest]
#[case::additional_items(json!({"type": "array", "items": {"type": "integer"}, "additionalItems": false}), json!([1, 2]))]
#[case::tuple_items(json!({"type": "array", "items": [{"type": "integer"}]}), json!(["a", "b"]))]
#[case::unevaluated_items(json!({"type": "array", "prefixItems": [{}], "unevaluatedItems": false}), json!([1]))]
#[case::unevaluated_properties(json!({"type": "object", "properties": {"a": {}}, "unevaluatedProperties": false}), json!({"a": 1}))]
fn other_item_and_member_keywords_refuse_nothing(#[case] property: Value, #[case] value: Value) {
    assert!(accepts(property, value));
}

/// The walk keeps a set of visits only where a `$ref` has children's
/// keywords beside it: there a value can reach one node by several paths
/// (fuzzing found checks growing exponentially with nesting), and
/// everywhere else a valid call allocates nothing.
#[rstest]
#[case::items_beside_a_ref(json!({"$ref": "#/$defs/List", "items": {"type": "string"}}), true)]
#[case::properties_beside_a_ref(json!({"$ref": "#/$defs/Map", "properties": {"a": {}}}), true)]
#[case::additional_schema_beside_a_ref(
    json!({"$ref": "#/$defs/Map", "additionalProperties": {"type": "string"}}),
    true
)]
#[case::a_bound_beside_a_ref(json!({"$ref": "#/$defs/List", "maxItems": 3}), false)]
#[case::a_plain_reference(json!({"$ref": "#/$defs/List"}), false)]
#[case::children_without_a_ref(
    json!({"type": "object", "properties": {"a": {"type": "array", "items": {}}}}),
    false
)]
fn visits_are_remembered_only_where_paths_can_converge(
    #[case] property: Value,
    #[case] converging: bool,
) {
    let validator = Validator::compile(&schema(json!({
        "type": "object",
        "properties": {"x": property},
        "$defs": {"List": {"type": "array"}, "Map": {"type": "object"}}
    })));
    assert_eq!(validator.converging, converging);
}
