//! A Gomocup engine (the Piskvork protocol) as a child process: started on a
//! board of `size`, freestyle, limited to `nodes` a move with no time limit;
//! ended (`END`, then killed) when dropped. Shared by the Gomoku examples
//! (`gomocup-match`, `gomoku-selfplay`), with the line a finished game is
//! recorded as ([`game_line`]).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

/// An engine process and its pipes.
pub struct Engine {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
}

impl Engine {
    pub fn start(path: &str, nodes: u64, size: i64) -> std::io::Result<Engine> {
        let dir = Path::new(path).parent().unwrap_or(Path::new("."));
        let mut child = Command::new(path)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let to = child.stdin.take().expect("piped");
        let from = BufReader::new(child.stdout.take().expect("piped"));
        let mut e = Engine { child, to, from };
        e.send(&format!("START {size}"))?;
        loop {
            let line = e.line()?;
            if line == "OK" {
                break;
            }
            if line.starts_with("ERROR") {
                return Err(std::io::Error::other(line));
            }
        }
        for info in [
            format!("INFO max_node {nodes}"),
            "INFO timeout_turn 0".into(),
            "INFO timeout_match 0".into(),
            "INFO rule 0".into(),
        ] {
            e.send(&info)?;
        }
        Ok(e)
    }

    pub fn send(&mut self, line: &str) -> std::io::Result<()> {
        writeln!(self.to, "{line}")?;
        self.to.flush()
    }

    /// The engine's next line, trimmed.
    pub fn line(&mut self) -> std::io::Result<String> {
        let mut line = String::new();
        if self.from.read_line(&mut line)? == 0 {
            return Err(std::io::Error::other("the engine closed its output"));
        }
        Ok(line.trim().to_owned())
    }

    /// The engine's move `x,y` (column, row) and its evaluation of the
    /// position for itself as it printed it (`?` if it did not), skipping
    /// its other messages.
    pub fn reply(&mut self) -> std::io::Result<((i64, i64), String)> {
        let mut eval = String::from("?");
        loop {
            let line = self.line()?;
            if let Some(rest) = line.split("| Eval ").nth(1)
                && let Some(e) = rest.split_whitespace().next()
            {
                e.clone_into(&mut eval);
            }
            if let Some((x, y)) = line.split_once(',')
                && let (Ok(x), Ok(y)) = (x.parse(), y.parse())
            {
                return Ok(((x, y), eval));
            }
            if line.starts_with("ERROR") {
                return Err(std::io::Error::other(line));
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.send("END");
        std::thread::sleep(Duration::from_millis(20));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A finished game as the examples record it for `gomoku-patterns`: the
/// result (`X`, `O` or `D`), then `row,col,eval` a move, `eval` the
/// engine's evaluation of the position it moved in (`?` when none).
pub fn game_line<'a>(
    result: char,
    moves: impl IntoIterator<Item = ((i64, i64), &'a str)>,
) -> String {
    use std::fmt::Write as _;
    let mut line = String::from(result);
    for ((r, c), eval) in moves {
        let _ = write!(line, " {r},{c},{eval}");
    }
    line
}
