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
        "mcp_changes.json",
        "MCP `tools/call` vectors (`request.method` `tools/call`, `expect.toolError`), which "
        "`vectorlib.V` does not build: the tools that change files, §10.3. Several are `steps` "
        "(a read, the disk changing, then an edit).",
        {
            "mcp-write-file-creates-missing-parents": ["103.write-file"],
            "mcp-write-file-relative-path-keeps-crlf": ["103.write-file"],
            "mcp-write-file-open-document-takes-the-text": ["103.write-file"],
            "mcp-write-file-rejected-changes-nothing": ["103.approval"],
            "mcp-write-file-deny-list": ["103.deny"],
            "mcp-edit-file-answers-the-reference-diff": ["103.edit-diff", "103.edit-order"],
            "mcp-edit-file-edits-apply-in-order": ["103.edit-order", "103.edit-diff"],
            "mcp-edit-file-not-found-names-the-edit": ["103.edit-unique"],
            "mcp-edit-file-ambiguous-is-refused": ["103.edit-unique"],
            "mcp-edit-file-overlapping-occurrences-are-ambiguous": ["103.edit-unique"],
            "mcp-edit-file-whitespace-is-not-guessed": ["103.edit-no-flex"],
            "mcp-edit-file-keeps-crlf": ["103.edit-endings", "103.edit-diff"],
            "mcp-edit-file-keeps-the-bom": ["103.edit-endings"],
            "mcp-edit-file-dry-run-changes-nothing": ["103.edit-dry-run"],
            "mcp-edit-file-missing-file": ["103.edit-missing"],
            "mcp-edit-file-edits-the-open-buffer": ["103.edit-order", "103.edit-diff"],
            "mcp-edit-file-arguments-named": ["103.edit-args"],
            "mcp-edit-file-empty-edits": ["103.edit-args"],
            "mcp-edit-file-after-the-user-changed-the-file-keeps-their-lines": ["103.edit-ledger"],
            "mcp-edit-file-reject-mode-refuses-a-changed-file": ["103.edit-ledger"],
            "mcp-create-directory-makes-each-missing-component": ["103.mkdir"],
            "mcp-create-directory-lists-only-what-it-made": ["103.mkdir"],
            "mcp-create-directory-existing-is-silent": ["103.mkdir-exists"],
            "mcp-create-directory-over-a-file": ["103.mkdir-exists"],
            "mcp-create-directory-rejected": ["103.approval"],
            "mcp-create-directory-outside-roots": ["103.deny"],
            "mcp-move-file-renames": ["103.move"],
            "mcp-move-file-never-replaces": ["103.move-no-replace"],
            "mcp-move-file-destination-directory-must-exist": ["103.move-checks"],
            "mcp-move-file-missing-source": ["103.move-checks"],
            "mcp-move-file-destination-outside-roots": ["103.move-checks"],
            "mcp-move-file-into-itself": ["103.move-checks"],
            "mcp-move-file-root-is-not-moved": ["103.move-checks"],
            "mcp-move-file-directory": ["103.move"],
            "mcp-move-file-open-document-follows": ["103.move-documents"],
            "mcp-move-file-refuses-a-symlink": ["103.move-checks"],
            "mcp-move-file-deny-list": ["103.deny"],
            "mcp-move-file-rejected": ["103.approval"],
            "mcp-create-directory-without-symlinks": ["103.mkdir", "103.mkdir-exists"],
            "mcp-move-file-without-symlinks-destination-directory-must-exist": ["103.move-checks"],
        },
    ),
    HandWritten(
        "tools/tool-arguments.json",
        "the agent side's tool-argument cases, not behaviour vectors (its own format, described "
        "in its `about`), run by core/tests/tool_arguments.rs and the npm packages' agent tests.",
        None,
    ),
]
