//! A Gomocup engine (the Piskvork protocol) as a child process: started on a
//! board of `size`, freestyle, limited to `nodes` a move with no time limit;
//! ended (`END`, then killed) when dropped. Shared by the Gomoku examples
//! (`gomocup-match`, `gomoku-selfplay`).

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
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.send("END");
        std::thread::sleep(Duration::from_millis(20));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
