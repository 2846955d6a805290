//! The deny list and extension allow list (semantics.md §3, §8).

use crate::path::AbsPath;

#[derive(Debug)]
struct Rule {
    pattern: String,
    /// The pattern's literal text before its first wildcard, and after its last: every name it
    /// matches starts and ends with them, so most names are turned away without the glob.
    head: String,
    tail: String,
    /// `.git/`: matches a directory name anywhere on the path, not the file name.
    directory: bool,
    writes_only: bool,
}

impl Rule {
    fn new(pattern: &str, directory: bool, writes_only: bool) -> Rule {
        // ASCII wildcards: their byte positions are character boundaries.
        let wild = |b: &u8| *b == b'*' || *b == b'?';
        let head = pattern.bytes().position(|b| wild(&b)).map_or(pattern, |i| &pattern[..i]);
        let tail = pattern.bytes().rposition(|b| wild(&b)).map_or(pattern, |i| &pattern[i + 1..]);
        Rule { pattern: pattern.to_owned(), head: head.to_owned(), tail: tail.to_owned(), directory, writes_only }
    }

    /// [`glob`] of this rule's pattern, ASCII case-insensitive like it. The byte comparisons
    /// agree with the glob's character ones: UTF-8 keeps ASCII bytes out of other characters.
    fn matches(&self, name: &str) -> bool {
        let (text, head, tail) = (name.as_bytes(), self.head.as_bytes(), self.tail.as_bytes());
        text.len() >= head.len().max(tail.len())
            && text[..head.len()].eq_ignore_ascii_case(head)
            && text[text.len() - tail.len()..].eq_ignore_ascii_case(tail)
            && glob(&self.pattern, name)
    }
}

/// Compiled deny rules; matching is allocation-free.
#[derive(Debug, Default)]
pub struct DenyList {
    rules: Vec<Rule>,
    allow_extensions: Option<Vec<String>>,
}

impl DenyList {
    pub fn new(patterns: &[String], allow_extensions: Option<&[String]>) -> DenyList {
        let rules = patterns
            .iter()
            .map(|p| {
                let (writes_only, p) = match p.strip_prefix("write:") {
                    Some(rest) => (true, rest),
                    None => (false, p.as_str()),
                };
                let (directory, p) = match p.strip_suffix('/') {
                    Some(rest) => (true, rest),
                    None => (false, p),
                };
                Rule::new(p, directory, writes_only)
            })
            .collect();
        let allow_extensions =
            allow_extensions.map(|l| l.iter().map(|e| e.trim_start_matches('.').to_ascii_lowercase()).collect());
        DenyList { rules, allow_extensions }
    }

    /// The rule that refuses `path`, if any, for the hint.
    pub fn check(&self, path: &AbsPath, writing: bool) -> Option<String> {
        self.check_rules(path, writing).or_else(|| self.check_extension(path))
    }

    /// Whether a listing, tree or search hides the entry at `path` (semantics.md §10): what a
    /// read of it would refuse. A directory is not held to `allowExtensions` (the files below
    /// it are).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))] // the MCP tools' alone
    pub fn hides(&self, path: &AbsPath, directory: bool) -> bool {
        self.check_rules(path, false).is_some() || (!directory && self.check_extension(path).is_some())
    }

    /// [`hides`](Self::hides) for the entry `name` of a directory that is itself not hidden
    /// (one a listing reached): the rules that look at every component already passed the
    /// directory's, so only the entry's own name is left to test. Allocation-free.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))] // the MCP tools' alone
    pub fn hides_entry(&self, name: &str, directory: bool) -> bool {
        self.rules.iter().any(|rule| !rule.writes_only && rule.matches(name))
            || (!directory && self.allow_extensions.as_ref().is_some_and(|allowed| !extension_in(name, allowed)))
    }

    /// The rule that refuses reading the directory `path`, if any (`allowExtensions` is for
    /// files).
    pub fn check_directory(&self, path: &AbsPath) -> Option<String> {
        self.check_rules(path, false)
    }

    /// The rule that refuses making the directory `path`, if any: the write rules
    /// (`write:.git/`), not `allowExtensions`.
    pub fn check_directory_write(&self, path: &AbsPath) -> Option<String> {
        self.check_rules(path, true)
    }

    fn check_rules(&self, path: &AbsPath, writing: bool) -> Option<String> {
        let name = path.file_name().unwrap_or("");
        for rule in self.rules.iter().filter(|r| writing || !r.writes_only) {
            let hit = if rule.directory {
                // Any component, the last included: a `.git` *file* (a worktree pointer) can
                // redirect git as surely as anything inside `.git/`.
                path.components().any(|c| rule.matches(c))
            } else {
                rule.matches(name)
            };
            if hit {
                let scope = if rule.writes_only { "write:" } else { "" };
                let slash = if rule.directory { "/" } else { "" };
                return Some(format!("denied by the pattern {scope}{}{slash}", rule.pattern));
            }
        }
        None
    }

    fn check_extension(&self, path: &AbsPath) -> Option<String> {
        let name = path.file_name().unwrap_or("");
        if let Some(allowed) = &self.allow_extensions {
            if !extension_in(name, allowed) {
                return Some("the file's extension is not in allowExtensions".to_owned());
            }
        }
        None
    }
}

/// Whether the file `name`'s extension (ASCII case-insensitive) is one of `allowed` (lower case).
fn extension_in(name: &str, allowed: &[String]) -> bool {
    name.rsplit_once('.').is_some_and(|(_, e)| allowed.iter().any(|a| a.eq_ignore_ascii_case(e)))
}

/// Glob with `*` (any run) and `?` (one character), over characters, ASCII case-insensitive
/// (on case-insensitive disks `.ENV` is `.env`).
pub fn glob(pattern: &str, text: &str) -> bool {
    // Byte offsets into both strings, one character at a time: no copies (this runs for every
    // rule on every request).
    let at = |s: &str, i: usize| s[i..].chars().next().map(|c| (c.to_ascii_lowercase(), c.len_utf8()));
    // Classic linear backtracking matcher: remembers the last `*` and retries from there.
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while let Some((t, t_len)) = at(text, ti) {
        match at(pattern, pi) {
            Some((p, p_len)) if p == '?' || p == t => {
                pi += p_len;
                ti += t_len;
            }
            Some(('*', _)) => {
                star = Some(pi);
                mark = ti;
                pi += 1;
            }
            _ => match star {
                Some(s) => {
                    pi = s + 1;
                    mark += at(text, mark).map_or(1, |(_, len)| len);
                    ti = mark;
                }
                None => return false,
            },
        }
    }
    pattern[pi..].chars().all(|c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob(".env*", ".env"));
        assert!(glob(".env*", ".env.local"));
        assert!(!glob(".env*", "a.env"));
        assert!(glob("*.pem", "cert.pem"));
        assert!(glob("a?c", "abc"));
        assert!(!glob("a?c", "ac"));
        assert!(glob("*a*b*", "xxaxxbxx"));
        assert!(!glob("*.key", "key"));
        assert!(glob(".env*", ".ENV.local"));
        // `?` is one character, not one byte; `*` may take multi-byte characters.
        assert!(glob("a?c", "aéc"));
        assert!(!glob("a??c", "aéc"));
        assert!(glob("*é*.pem", "ééé.pem"));
        assert!(glob("*", ""));
        assert!(!glob("?", ""));
    }

    proptest::proptest! {
        /// A rule's quick test of the pattern's literal ends never turns away a name the glob
        /// matches (nor lets one through it does not).
        #[test]
        fn a_rule_matches_what_its_glob_matches(pattern in "[aAé.*?]{0,6}", name in "[aAé.]{0,6}") {
            let rule = Rule::new(&pattern, false, false);
            proptest::prop_assert_eq!(rule.matches(&name), glob(&pattern, &name));
        }
    }

    #[test]
    fn an_entry_of_a_directory_that_is_not_hidden_is_judged_by_its_name() {
        let lists = [
            DenyList::new(&crate::options::DEFAULT_DENY.map(String::from), None),
            DenyList::new(&["node_modules/".into(), "*.KEY".into(), "write:.git/".into()], Some(&["rs".into()])),
        ];
        let names =
            [".env", ".env.local", "a.rs", "A.RS", "a.md", "node_modules", "x.key", ".git", "id_rsa", "é.pem", ""];
        for list in &lists {
            for name in names {
                for directory in [false, true] {
                    let path = AbsPath::parse(&format!("/p/src/{name}")).unwrap();
                    assert_eq!(list.hides_entry(name, directory), list.hides(&path, directory), "{name:?} {directory}");
                }
            }
        }
    }

    #[test]
    fn rules() {
        let list = DenyList::new(&crate::options::DEFAULT_DENY.map(String::from), None);
        let p = |s: &str| AbsPath::parse(s).unwrap();
        assert!(list.check(&p("/p/.env"), false).is_some());
        assert!(list.check(&p("/p/.git/config"), false).is_none());
        assert!(list.check(&p("/p/.git/config"), true).is_some());
        assert!(list.check(&p("/p/.git"), true).is_some());
        assert!(list.check(&p("/p/.git"), false).is_none());
        assert!(list.check(&p("/p/src/a.rs"), true).is_none());
        let ext = DenyList::new(&[], Some(&["RS".to_owned()]));
        assert!(ext.check(&p("/p/a.rs"), false).is_none());
        assert!(ext.check(&p("/p/a.md"), false).is_some());
        assert!(ext.check(&p("/p/Makefile"), false).is_some());
    }
}
