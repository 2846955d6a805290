//! An ACP file-system server on stdin/stdout: `fs/read_text_file` and `fs/write_text_file`
//! over the real disk, one JSON-RPC message per line.
//!
//! ```text
//! cargo run -p acp-fs --example stdio --features disk -- --root DIR [--root DIR2 ...] [--read-only]
//! ```
//!
//! Every `--root` (a relative one is taken from the current directory) is the root set of every
//! session: any `sessionId` is served with that default policy. Roots are passed as given, not
//! canonicalized: the engine resolves them itself when a real path needs it, so a root that is a
//! symlink (macOS `/tmp`) serves the paths under the name it was given and under its real path
//! (`/private/tmp`), as every host does (semantics.md §8, "Roots and symlinks").
//! `--read-only` refuses writes (`-32601`) and advertises `writeTextFile: false`.
//!
//! Try it:
//!
//! ```text
//! printf 'one\r\ntwo\r\n' > /tmp/demo.txt
//! echo '{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/tmp/demo.txt","line":2,"limit":1}}' \
//!   | cargo run -q -p acp-fs --example stdio --features disk -- --root /tmp
//! # {"jsonrpc":"2.0","id":1,"result":{"content":"two\r\n"}}
//! echo '{"jsonrpc":"2.0","id":2,"method":"fs/write_text_file","params":{"sessionId":"s","path":"/tmp/demo/new.txt","content":"hi\n"}}' \
//!   | cargo run -q -p acp-fs --example stdio --features disk -- --root /tmp
//! # {"jsonrpc":"2.0","id":2,"result":{}}
//! ```
//!
//! stdout carries only protocol messages; the start-up banner and diagnostics go to stderr.
//! Requests for any other method are answered `-32601` (this server serves nothing else);
//! notifications and responses are ignored. End of input ends the server with exit code 0.

use acp_fs::{respond, AcpFs, AcpFsError, DefaultHost, DiskStorage, Options, Storage};
use std::ffi::OsString;
use std::io::{self, BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

const USAGE: &str = "\
usage: stdio --root DIR [--root DIR ...] [--read-only]

Serves fs/read_text_file and fs/write_text_file as JSON-RPC 2.0 on stdin/stdout, one message
per line, over the real disk.

  --root DIR    directory every session may use (repeatable, at least one)
  --read-only   refuse fs/write_text_file (-32601) and advertise writeTextFile: false
  -h, --help    print this help
";

/// Exit code for bad command-line arguments (the sysexits/GNU convention for usage errors).
const USAGE_ERROR: u8 = 2;

#[derive(Debug)]
struct Config {
    roots: Vec<String>,
    read_only: bool,
}

enum Command {
    Serve(Config),
    Help,
}

fn main() -> ExitCode {
    let command = match parse_args(std::env::args_os().skip(1)) {
        Ok(c) => c,
        Err(why) => {
            eprintln!("stdio: {why}\n\n{USAGE}");
            return ExitCode::from(USAGE_ERROR);
        }
    };
    let config = match command {
        Command::Help => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Command::Serve(config) => config,
    };

    let storage = DiskStorage::new();
    let options = Options { roots: Some(config.roots.clone()), read_only: config.read_only, ..Options::default() };
    let fs = match AcpFs::new(options, storage.caps()) {
        Ok(fs) => fs,
        Err(e) => {
            // Roots passed our own checks but the engine's path rules (which are the same on
            // every platform) can still refuse one, e.g. a Windows verbatim prefix.
            eprintln!("stdio: {}\n\n{USAGE}", e.message);
            return ExitCode::from(USAGE_ERROR);
        }
    };
    let capabilities = serde_json::to_string(&fs.capabilities()).unwrap_or_default();
    eprintln!("acp-fs stdio: roots {:?}, clientCapabilities.fs {capabilities}", config.roots);

    match serve(&fs, &storage, io::stdin().lock(), io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("stdio: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse_args(args: impl IntoIterator<Item = OsString>) -> Result<Command, String> {
    let mut args = args.into_iter();
    let mut roots = Vec::new();
    let mut read_only = false;
    while let Some(arg) = args.next() {
        let Some(arg_str) = arg.to_str() else {
            return Err(format!("unexpected argument {arg:?}"));
        };
        match arg_str {
            "-h" | "--help" => return Ok(Command::Help),
            "--read-only" => read_only = true,
            "--root" => {
                let dir = args.next().ok_or("--root needs a directory")?;
                roots.push(root(&dir)?);
            }
            _ => match arg_str.strip_prefix("--root=") {
                Some(dir) => roots.push(root(dir.as_ref())?),
                None => return Err(format!("unexpected argument {arg_str:?}")),
            },
        }
    }
    if roots.is_empty() {
        return Err("at least one --root DIR is required".into());
    }
    Ok(Command::Serve(Config { roots, read_only }))
}

/// Checks one `--root` and turns it into the string form the engine takes.
///
/// The root is only made absolute, never canonicalized: canonicalizing turned `--root /x/link`
/// into the link's target, and every request naming a path under `/x/link/` was then outside
/// the roots. The engine normalizes roots lexically and resolves symlinks itself.
fn root(dir: &std::ffi::OsStr) -> Result<String, String> {
    let path = std::path::absolute(Path::new(dir)).map_err(|e| format!("--root {dir:?}: {e}"))?;
    match std::fs::metadata(&path) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(format!("--root {dir:?} is not a directory")),
        // A root that does not exist yet can still receive new files (semantics.md §8).
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            eprintln!("stdio: note: --root {dir:?} does not exist yet");
        }
        Err(e) => return Err(format!("--root {dir:?}: {e}")),
    }
    let text = path.into_os_string().into_string();
    text.map_err(|p| format!("--root {p:?} is not valid UTF-8 (ACP paths are JSON strings)"))
}

/// Answers every line of `input` on `output` until end of input.
fn serve(fs: &AcpFs, storage: &impl Storage, mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        let Some(reply) = answer(fs, storage, &line) else { continue };
        // A reply must stay one line: serde_json never emits raw newlines, so this holds.
        output.write_all(reply.as_bytes())?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
}

/// The reply to one raw line, if it gets one.
fn answer(fs: &AcpFs, storage: &impl Storage, line: &[u8]) -> Option<String> {
    let Ok(text) = std::str::from_utf8(line) else {
        return Some(respond("null", Err(AcpFsError::parse_error("the message is not valid UTF-8"))));
    };
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    fs.handle(storage, &DefaultHost, text).or_else(|| acp_fs::not_served(text))
}
