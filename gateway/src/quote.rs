//! Quoting for SQL text: string literals and identifiers. It depends on nothing else in the
//! gateway, so both the schema cache's catalog query (`schema`) and the request statements
//! (`sql`, `plan`, `read`) quote with it without depending on each other.

/// A string literal (standard_conforming_strings: only `'` is doubled). A value that may
/// hold NUL goes through `sql::check_no_nul` first.
pub fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

pub fn ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

pub fn qualified(schema: &str, name: &str) -> String {
    format!("{}.{}", ident(schema), ident(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_identifiers_cannot_break_out() {
        assert_eq!(literal("it's"), "'it''s'");
        assert_eq!(literal(r"a\'b"), r"'a\''b'");
        assert_eq!(ident("we\"ird"), "\"we\"\"ird\"");
        assert_eq!(qualified("s", "t\"x"), "\"s\".\"t\"\"x\"");
    }
}
