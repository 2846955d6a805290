//! Windows: the decisions of listings, moves and directory removal (windows_dirs.rs), written
//! against the walk's [`System`] so that they are tested on any platform with faked answers,
//! including the ones Wine cannot produce (junctions, a symlink opened itself, placeholders).

use super::win_walk::{
    directly_below, entry_of, Dir, SysError, SysKind, System, ATTR_DIRECTORY, ATTR_REPARSE_POINT, TAG_NAME_SURROGATE,
};
use crate::storage::{DirEntry, FileKind, Metadata};

/// One entry of a directory as its listing (`FILE_ID_BOTH_DIR_INFORMATION`) describes it,
/// without opening it.
#[derive(Clone, Debug)]
pub(super) struct RawEntry {
    /// The name as stored (UTF-16; not necessarily valid Unicode).
    pub name: Vec<u16>,
    pub attributes: u32,
    /// The reparse tag when `attributes` has `FILE_ATTRIBUTE_REPARSE_POINT` (else 0).
    pub tag: u32,
    pub size: u64,
    /// Last write, in 100 ns ticks since 1601 (negative: none).
    pub modified: i64,
}

/// What a listing says of one entry, or `None` for `.`, `..` and names no engine path can hold.
pub(super) fn dir_entry(raw: RawEntry) -> Option<DirEntry> {
    let name = String::from_utf16(&raw.name).ok()?;
    if name == "." || name == ".." {
        return None;
    }
    let kind = if listed_as_link(raw.attributes, raw.tag) {
        FileKind::Symlink
    } else if raw.attributes & ATTR_DIRECTORY != 0 {
        FileKind::Directory
    } else {
        // Cloud-file placeholders and other in-place reparse points are the files they hold.
        FileKind::File
    };
    let size = if kind == FileKind::Directory { 0 } else { raw.size };
    Some(DirEntry { name, meta: Metadata { modified: unix_nanos(raw.modified), ..Metadata::new(kind, size) } })
}

/// Whether a directory entry is a link: a name surrogate (symlink, junction, mount point), or a
/// reparse point with no tag, which is how Wine lists a Unix symlink.
fn listed_as_link(attributes: u32, tag: u32) -> bool {
    attributes & ATTR_REPARSE_POINT != 0 && (tag == 0 || tag & TAG_NAME_SURROGATE != 0)
}

/// A Windows time (100 ns ticks since 1601) in nanoseconds since 1970, as `std` reports it.
fn unix_nanos(ticks: i64) -> Option<u64> {
    const UNIX_EPOCH_TICKS: u64 = 116_444_736_000_000_000;
    u64::try_from(ticks).ok()?.checked_sub(UNIX_EPOCH_TICKS)?.checked_mul(100)
}

/// `handle`, opened as `name` below `dir` without following a reparse point, if it is that entry
/// itself: directly below `dir` (its final path) and the file its directory entry lists (same id,
/// a link exactly where the entry is one). `links`: a symlink or junction held as itself (as
/// Windows opens one) may be the entry; under Wine, which follows a Unix symlink regardless,
/// such an entry never passes (one to a file of the same directory is told by its final path's
/// name).
pub(super) fn verify<S: System>(
    sys: &S,
    dir: &Dir<S::Handle>,
    name: &str,
    handle: S::Handle,
    links: bool,
) -> Result<S::Handle, SysError> {
    let (attributes, tag) = sys.attribute_tag(&handle)?;
    let is_link = attributes & ATTR_REPARSE_POINT != 0 && tag & TAG_NAME_SURROGATE != 0;
    if is_link && !links {
        return Err(SysError::escape(&format!("{name} is a symlink, junction or mount point (reparse tag {tag:#x})")));
    }
    let path = sys.final_path(&handle)?;
    if !directly_below(&dir.path, &path) && !directly_below(&sys.final_path(&dir.handle)?, &path) {
        return Err(SysError::escape(&format!("{name} leads to {path}")));
    }
    // Under Wine a link to another file of the same directory passes that and the entry's id
    // (listed as the file it leads to); the final path names that file, not the link.
    let reached = path.rsplit('\\').next().unwrap_or("");
    let same_name = || reached.chars().flat_map(char::to_lowercase).eq(name.chars().flat_map(char::to_lowercase));
    if sys.follows_file_links() && !same_name() {
        return Err(SysError::escape(&format!("{name} leads to {path}")));
    }
    // A fresh handle of the directory: a handle's listing keeps the name of its first query.
    match entry_of(sys, dir, name)? {
        Some((a, t, id)) if listed_as_link(a, t) == is_link && id == sys.file_id(&handle)? => Ok(handle),
        None => Err(SysError::new(SysKind::NotFound, format!("{name} is gone"))),
        Some(_) => Err(SysError::escape(&format!("{name} was replaced while it was opened"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JUNCTION: u32 = 0xA000_0003;
    const SYMLINK: u32 = 0xA000_000C;
    const CLOUD: u32 = 0x9000_601A;
    /// 2001-09-09T01:46:40Z, a billion seconds after 1970, in Windows ticks.
    const BILLION_S: i64 = 116_444_736_000_000_000 + 1_000_000_000 * 10_000_000;

    fn raw(name: &str, attributes: u32, tag: u32) -> RawEntry {
        RawEntry { name: name.encode_utf16().collect(), attributes, tag, size: 42, modified: BILLION_S }
    }

    fn kind(attributes: u32, tag: u32) -> FileKind {
        dir_entry(raw("x", attributes, tag)).unwrap().meta.kind
    }

    #[test]
    fn a_listing_shows_links_as_links_and_placeholders_as_what_they_hold() {
        assert_eq!(kind(0x20, 0), FileKind::File);
        assert_eq!(kind(ATTR_DIRECTORY, 0), FileKind::Directory);
        // Junctions and symlinks (to files or directories): links, never what they lead to.
        assert_eq!(kind(ATTR_DIRECTORY | ATTR_REPARSE_POINT, JUNCTION), FileKind::Symlink);
        assert_eq!(kind(ATTR_DIRECTORY | ATTR_REPARSE_POINT, SYMLINK), FileKind::Symlink);
        assert_eq!(kind(ATTR_REPARSE_POINT, SYMLINK), FileKind::Symlink);
        // How Wine lists a Unix symlink to a directory: a reparse point with no tag.
        assert_eq!(kind(ATTR_DIRECTORY | ATTR_REPARSE_POINT, 0), FileKind::Symlink);
        // OneDrive placeholders are reparse points but not links: a file, a folder.
        assert_eq!(kind(ATTR_REPARSE_POINT, CLOUD), FileKind::File);
        assert_eq!(kind(ATTR_DIRECTORY | ATTR_REPARSE_POINT, CLOUD), FileKind::Directory);
    }

    #[test]
    fn a_listing_entry_carries_its_size_and_time_and_skips_what_no_path_can_name() {
        let file = dir_entry(raw("a.txt", 0x20, 0)).unwrap();
        assert_eq!((file.name.as_str(), file.meta.size, file.meta.links), ("a.txt", 42, 1));
        assert_eq!(file.meta.modified, Some(1_000_000_000 * 1_000_000_000));
        assert_eq!(dir_entry(raw("d", ATTR_DIRECTORY, 0)).unwrap().meta.size, 0, "a directory has no size");
        assert!(dir_entry(raw(".", ATTR_DIRECTORY, 0)).is_none());
        assert!(dir_entry(raw("..", ATTR_DIRECTORY, 0)).is_none());
        // A lone surrogate: a name no engine path (UTF-8) can hold.
        let lone = RawEntry { name: vec![0x61, 0xD800], ..raw("", 0x20, 0) };
        assert!(dir_entry(lone).is_none());
        // Before 1970, or no time at all: none.
        assert_eq!(dir_entry(RawEntry { modified: 5, ..raw("old", 0x20, 0) }).unwrap().meta.modified, None);
        assert_eq!(dir_entry(RawEntry { modified: -1, ..raw("old", 0x20, 0) }).unwrap().meta.modified, None);
    }

    /// A handle as the fake system knows it.
    #[derive(Clone, Debug)]
    struct H {
        attributes: u32,
        tag: u32,
        path: String,
        id: u64,
    }

    /// Answers for one check: the parent's entry of the name (attributes, tag, id), if any;
    /// `wine`: opens follow links to files.
    struct Fake {
        entry: Option<(u32, u32, u64)>,
        wine: bool,
    }

    impl System for Fake {
        type Handle = H;
        fn open(&self, at: Option<&H>, name: &str, _: crate::disk::win_walk::Open, _: bool) -> Result<H, SysError> {
            // The check opens only a fresh handle of the parent, to read its entry.
            assert_eq!(name, "", "the check opens nothing but its directory again");
            Ok(at.expect("relative to the parent").clone())
        }
        fn attribute_tag(&self, h: &H) -> Result<(u32, u32), SysError> {
            Ok((h.attributes, h.tag))
        }
        fn final_path(&self, h: &H) -> Result<String, SysError> {
            Ok(h.path.clone())
        }
        fn file_id(&self, h: &H) -> Result<u64, SysError> {
            Ok(h.id)
        }
        fn entry(&self, _: &H, _: &str) -> Result<Option<(u32, u32, u64)>, SysError> {
            Ok(self.entry)
        }
        fn discard(&self, _: &H) {}
        fn follows_file_links(&self) -> bool {
            self.wine
        }
        fn holds(&self, _: &H, _: u64) -> Result<bool, SysError> {
            Ok(true)
        }
    }

    fn parent() -> Dir<H> {
        let path = r"\Device\V\p".to_owned();
        Dir { handle: H { attributes: ATTR_DIRECTORY, tag: 0, path: path.clone(), id: 1 }, path }
    }

    fn opened(attributes: u32, tag: u32, path: &str, id: u64) -> H {
        H { attributes, tag, path: path.into(), id }
    }

    fn check(entry: Option<(u32, u32, u64)>, h: H, links: bool) -> Result<H, SysError> {
        verify(&Fake { entry, wine: false }, &parent(), "x", h, links)
    }

    #[test]
    fn what_was_opened_must_be_the_entry_itself() {
        let here = r"\Device\V\p\x";
        assert!(check(Some((0x20, 0, 7)), opened(0x20, 0, here, 7), false).is_ok());
        // Opened elsewhere (a parent swapped for a link): its final path is not below the parent.
        let e = check(Some((0x20, 0, 7)), opened(0x20, 0, r"\Device\V\out\x", 7), true).unwrap_err();
        assert_eq!(e.kind, SysKind::Escape, "{e:?}");
        // Another file than the entry lists (replaced between the open and the look).
        assert_eq!(check(Some((0x20, 0, 8)), opened(0x20, 0, here, 7), true).unwrap_err().kind, SysKind::Escape);
        // Gone meanwhile.
        assert_eq!(check(None, opened(0x20, 0, here, 7), true).unwrap_err().kind, SysKind::NotFound);
    }

    #[test]
    fn a_link_held_as_itself_may_be_moved_but_never_removed_as_a_directory() {
        let here = r"\Device\V\p\x";
        // Windows opens a symlink or junction itself with FILE_OPEN_REPARSE_POINT.
        for tag in [SYMLINK, JUNCTION] {
            let link = opened(ATTR_DIRECTORY | ATTR_REPARSE_POINT, tag, here, 9);
            let entry = Some((ATTR_DIRECTORY | ATTR_REPARSE_POINT, tag, 9));
            assert!(check(entry, link.clone(), true).is_ok(), "{tag:#x}: a move takes the link itself");
            assert_eq!(check(entry, link, false).unwrap_err().kind, SysKind::Escape, "{tag:#x}");
        }
        // A placeholder is no link: removed or moved as itself.
        let cloud = opened(ATTR_DIRECTORY | ATTR_REPARSE_POINT, CLOUD, here, 5);
        assert!(check(Some((ATTR_DIRECTORY | ATTR_REPARSE_POINT, CLOUD, 5)), cloud, false).is_ok());
    }

    #[test]
    fn a_link_followed_by_the_open_is_refused() {
        // Wine: the open followed a Unix symlink (no reparse point on the handle, the target's
        // id), while the entry lists the link as a reparse point with no tag or a symlink tag.
        let followed = opened(ATTR_DIRECTORY, 0, r"\Device\V\p\x", 3);
        for entry in [(ATTR_DIRECTORY | ATTR_REPARSE_POINT, 0, 3), (ATTR_REPARSE_POINT, SYMLINK, 3)] {
            assert_eq!(check(Some(entry), followed.clone(), true).unwrap_err().kind, SysKind::Escape, "{entry:?}");
        }
    }

    #[test]
    fn under_wine_a_link_to_another_file_of_its_directory_is_refused() {
        // Wine follows a Unix symlink to a file even with FILE_OPEN_REPARSE_POINT and lists the
        // link as that file, its id included: `x`, a link to `a.txt` beside it, opens as a.txt,
        // in the right directory, with the id its entry lists. Only the final path tells.
        let target = opened(0x20, 0, r"\Device\V\p\a.txt", 7);
        let wine = Fake { entry: Some((0x20, 0, 7)), wine: true };
        assert_eq!(verify(&wine, &parent(), "x", target.clone(), true).unwrap_err().kind, SysKind::Escape);
        // The file itself, asked for in another case (Wine finds names regardless of case).
        assert!(verify(&wine, &parent(), "a.txt", target.clone(), true).is_ok());
        assert!(verify(&wine, &parent(), "A.TXT", target, true).is_ok());
    }
}
