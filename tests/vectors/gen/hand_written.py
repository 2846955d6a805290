"""The files under tests/vectors/ that gen/generate.py does not write.

Every `*.json` there is either written by the generator (generate.FILES) or listed here; the
generator refuses to run when a file is neither, or both, so a new file cannot go unaccounted.

A hand-written file of behaviour vectors gives each of its vectors the rule ids (rules.py) it
pins, the way `V(..., cov)` does for generated ones. The generator reads the file back, checks
that this map names exactly its vectors, and counts them in COVERAGE.md like the rest: a vector
added to the file without an entry here, or an entry whose vector is gone, stops `--check`.
"""

from collections import namedtuple

HandWritten = namedtuple("HandWritten", "name why coverage")
# name: the path below tests/vectors/; why: the reason it is not generated (README.md shows it);
# coverage: {vector name: [rule ids]}, or None for a file that holds no behaviour vectors.

HAND_WRITTEN = [
    HandWritten(
        "edits.json",
        "Sequences (`steps`: reads, edits of the disk and of open buffers, sessions closed and "
        "reopened, writes started together), which `vectorlib.V` cannot build: it makes "
        "one-request vectors. Written with §9.",
        {
            "ledger-unchanged-write-goes-through": ["9.merge-unchanged"],
            "stale-merge-clean-disk": ["9.ledger-text", "9.merge-clean", "9.separated"],
            "stale-merge-clean-document": ["9.now", "9.merge-clean"],
            "stale-merge-conflict-refused": ["9.overlap"],
            "stale-merge-conflict-document-untouched": ["9.now", "9.overlap"],
            "stale-windowed-base-changed": ["9.ledger-window", "9.base-unmergeable"],
            "stale-windowed-base-unchanged": ["9.ledger-window", "9.merge-unchanged"],
            "stale-reject-any-change": ["9.reject"],
            "stale-reject-unchanged-writes": ["9.reject"],
            "stale-overwrite-as-before": ["9.overwrite"],
            "stale-blind-write-as-before": ["9.blind"],
            "stale-other-session-read-is-not-mine": ["9.ledger-session"],
            "stale-ledger-holds-what-was-written": ["9.after-write", "9.merge-clean"],
            "stale-close-session-drops-ledger": ["9.close-session", "9.blind"],
            "stale-deleted-since-read": ["9.deleted"],
            "stale-crlf-merge": ["9.line-endings", "9.merge-clean"],
            "stale-saved-document-windowed": ["9.saved", "9.ledger-window"],
            "clean-buffer-outside-change-read": ["9.saved", "9.stale-document"],
            "clean-buffer-outside-change-window-reads-storage": ["9.saved"],
            "clean-buffer-outside-change-window-cannot-tell": ["9.saved", "9.stale-window"],
            "clean-buffer-write-merges-outside-change": ["9.saved", "9.stale-document", "9.merge-clean"],
            "dirty-buffer-kept-over-outside-change": ["9.dirty-kept", "9.now"],
            "clean-buffer-lf-over-crlf-file-not-stale": ["9.stale-document", "9.saved"],
            "stale-unsaved-document-windowed": ["9.unprovable", "9.now"],
            "queued-writes-second-merges-onto-first": ["9.one-write", "9.merge-clean"],
            "queued-writes-overlap-refused": ["9.one-write", "9.overlap"],
            "queued-writes-other-files-independent": ["9.per-path"],
            "stale-ledger-keyed-by-real-path": ["9.ledger-real-path", "9.merge-clean"],
            "stale-document-version-unmoved-windowed": ["9.doc-version", "9.ledger-window", "9.merge-unchanged"],
            "stale-merge-adjacent-lines-refused": ["9.adjacent", "9.overlap"],
            "gemini-pre-reads-then-write-creates": ["8.agent-gemini", "9.blind", "5.create"],
            "gemini-session-reopened-without-agent": ["8.agent-gemini", "8.agent-default"],
        },
    ),
    HandWritten(
        "mcp_tools.json",
        "MCP tool calls (`tool` instead of `request`: one `tools/call`, its tool result exact), which "
        "`vectorlib.V` does not build. Written with §10.",
        {
            "mcp-read-tail-final-newline-ends-the-last-line": ["10.head-tail", "10.results"],
            "mcp-read-tail-one-line-exact-crlf": ["10.head-tail"],
            "mcp-read-tail-more-than-the-file": ["10.head-tail"],
            "mcp-read-head": ["10.head-tail"],
            "mcp-read-head-zero-is-empty": ["10.head-tail"],
            "mcp-read-head-and-tail-refused": ["10.head-tail-combined"],
            "mcp-read-tail-with-line-refused": ["10.head-tail-combined"],
            "mcp-read-line-limit-kept": ["10.results"],
            "mcp-read-relative-to-cwd": ["10.paths"],
            "mcp-read-tilde-refused": ["10.paths"],
            "mcp-read-unknown-argument-refused": ["10.arguments"],
            "mcp-read-tail-of-dirty-buffer": ["10.head-tail"],
            "mcp-read-file-deprecated-alias": ["10.read-file"],
            "mcp-read-outside-roots-is-an-error-result": ["10.results"],
            "mcp-read-multiple-errors-inline": ["10.multiple"],
            "mcp-read-multiple-output-bound": ["10.multiple", "10.bounds"],
            "mcp-read-multiple-empty-refused": ["10.multiple", "10.arguments"],
            "mcp-read-multiple-bad-member-named": ["10.arguments"],
            "mcp-media-image-by-extension": ["10.media"],
            "mcp-media-other-as-resource": ["10.media"],
            "mcp-media-too-large": ["10.media"],
            "mcp-file-info-unsaved-document-not-on-disk": ["10.file-info", "10.documents"],
            "mcp-file-info-missing": ["10.file-info"],
            "mcp-allowed-directories": ["10.allowed"],
            "mcp-list-sorted-links-denied-documents": ["10.list", "10.sorted", "10.deny-hidden", "10.links", "10.documents"],
            "mcp-list-empty-directory": ["10.list"],
            "mcp-list-allow-extensions-keeps-directories": ["10.deny-hidden"],
            "mcp-list-not-a-directory": ["10.not-a-directory"],
            "mcp-list-outside-roots": ["10.results"],
            "mcp-list-through-link-out-of-roots-refused": ["10.links"],
            "mcp-list-left-out-without-storage-listing": ["10.registry"],
            "mcp-list-unknown-argument": ["10.arguments"],
            "mcp-list-entries-bound": ["10.bounds"],
            "mcp-sizes-by-name-with-a-dirty-buffer": ["10.sizes", "10.documents"],
            "mcp-sizes-by-size-rounded-half-up": ["10.sizes"],
            "mcp-sizes-bad-sort-refused": ["10.arguments"],
            "mcp-tree-json-excludes-links": ["10.tree", "10.links", "10.deny-hidden"],
            "mcp-tree-depth-bound": ["10.bounds", "10.tree"],
            "mcp-search-files-glob": ["10.search-files"],
            "mcp-search-files-star-stays-in-one-directory": ["10.search-files"],
            "mcp-search-files-depth-first-with-directories": ["10.search-files", "10.sorted"],
            "mcp-grep-literal": ["10.grep"],
            "mcp-grep-regex-ignore-case-line-anchors": ["10.grep-regex"],
            "mcp-grep-context-groups": ["10.grep-context", "10.grep-globs"],
            "mcp-grep-gitignore-respected": ["10.grep-gitignore"],
            "mcp-grep-gitignore-off": ["10.grep-gitignore"],
            "mcp-grep-gitignore-of-a-parent": ["10.grep-gitignore"],
            "mcp-grep-unsaved-buffers": ["10.grep-documents", "10.documents"],
            "mcp-grep-binary-links-denied-skipped": ["10.grep-binary", "10.links", "10.deny-hidden"],
            "mcp-grep-max-results": ["10.bounds", "10.grep"],
        },
    ),
    HandWritten(
        "containment.json",
        "Written by hand with §8.2 (the security review), in its own layout; the generator "
        "could build these one-request vectors, but porting them would rewrite every line of "
        "the file for no change in what it pins.",
        {
            "document-under-real-name-found-through-link-on-write": ["81.doc-lookup", "81.change-path"],
            "document-under-link-name-found-through-real-name-on-write": ["81.doc-lookup"],
            "document-under-link-name-read-through-real-name": ["81.doc-lookup", "5.overlay-read"],
            "document-of-another-file-is-not-used": ["81.doc-lookup"],
            "document-write-through-link-name-write-through-hook": ["81.doc-lookup", "8.doc-write"],
            "hardlinked-file-read-refused": ["82.hard-links"],
            "hardlinked-file-window-read-refused": ["82.hard-links"],
            "hardlinked-file-write-refused-nothing-changes": ["82.hard-links"],
            "hardlinks-allowed-when-option-off-read": ["82.hard-links-off"],
            "hardlinks-allowed-when-option-off-write": ["82.hard-links-off"],
            "single-link-file-served-with-refuse-hardlinks-on": ["82.hard-links"],
        },
    ),
    HandWritten(
        "tools/tool-arguments.json",
        "the agent side's tool-argument cases, not behaviour vectors (its own format, described "
        "in its `about`), run by core/tests/tool_arguments.rs and the npm packages' agent tests.",
        None,
    ),
]
