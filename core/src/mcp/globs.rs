//! Glob patterns as the reference server's minimatch reads them (`dot: true`): `*` and `?` stay
//! within one path component, `**` crosses directories, dotfiles match, matched against a path
//! relative to the directory searched with `/` separators. globset compiles them (the ripgrep
//! family's matcher) — no matcher of our own.

use crate::error::AcpFsError;
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// One pattern from argument `field` (an invalid one is refused naming it).
pub(crate) fn glob(field: &str, pattern: &str) -> Result<Glob, AcpFsError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| AcpFsError::invalid_params(field, format!("invalid glob {pattern:?}: {}", e.kind())))
}

/// Several patterns as one set; `expand` may add forms of each (all from the same argument).
pub(crate) fn set(field: &str, patterns: &[String], expand: fn(&str) -> Vec<String>) -> Result<GlobSet, AcpFsError> {
    let mut set = GlobSetBuilder::new();
    for (i, p) in patterns.iter().enumerate() {
        let name = format!("{field}[{i}]");
        for form in expand(p) {
            set.add(glob(&name, &form)?);
        }
    }
    set.build().map_err(|e| AcpFsError::invalid_params(field, e.to_string()))
}

/// The pattern as given.
pub(crate) fn as_given(p: &str) -> Vec<String> {
    vec![p.to_owned()]
}

/// `directory_tree`'s excludes, as the reference server reads them: a pattern with `*` is a
/// glob on the relative path; any other also matches that name at any depth, and everything
/// below it.
pub(crate) fn tree_exclude(p: &str) -> Vec<String> {
    if p.contains('*') {
        vec![p.to_owned()]
    } else {
        vec![p.to_owned(), format!("**/{p}"), format!("**/{p}/**")]
    }
}

/// `search_text`'s include/exclude, as ripgrep's `-g` reads them: a pattern without `/`
/// matches a name at any depth.
pub(crate) fn anywhere(p: &str) -> Vec<String> {
    if p.contains('/') {
        vec![p.trim_start_matches('/').to_owned()]
    } else {
        vec![format!("**/{p}")]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimatch_like() {
        let m = |p: &str, path: &str| glob("pattern", p).unwrap().compile_matcher().is_match(path);
        assert!(m("*.ts", "a.ts") && !m("*.ts", "src/a.ts"), "* stays in one component");
        assert!(m("**/*.ts", "src/deep/a.ts") && m("**/*.ts", "a.ts"));
        assert!(m("*", ".env"), "dotfiles match (dot: true)");
        let e = glob("excludePatterns[0]", "a[").unwrap_err();
        assert_eq!(e.data["field"], "excludePatterns[0]");
        let tree = set("excludePatterns", &["node_modules".into()], tree_exclude).unwrap();
        assert!(tree.is_match("node_modules") && tree.is_match("a/node_modules") && tree.is_match("a/node_modules/x"));
        assert!(!tree.is_match("node_modules2"));
        let any = set("include", &["*.rs".into()], anywhere).unwrap();
        assert!(any.is_match("a.rs") && any.is_match("src/deep/a.rs") && !any.is_match("a.rsx"));
    }
}
