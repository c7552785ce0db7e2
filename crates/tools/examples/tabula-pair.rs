//! The pairing engine on its own: the next round of a Swiss tournament given
//! as TRF16, by the FIDE Dutch system, as bbpPairings (`--dutch`) pairs it;
//! or a round robin's Berger table.
//!
//! ```text
//! cargo run --release -p tabula-tools --example tabula-pair -- --dutch input.trf -p [output]
//! cargo run --release -p tabula-tools --example tabula-pair -- --round-robin -n 6 [--double]
//! ```
//!
//! `--dutch FILE -p [OUTPUT]` writes (to `OUTPUT`, else to standard output)
//! the number of pairs, then one `white black` line per pair by starting
//! number, in the order of publication; the pairing-allocated bye is the
//! line `N 0`. The round paired is the one after the last round any player
//! was paired in; a player whose line already holds it (`0000 - Z`, a bye
//! asked for) is left out.
//!
//! `--round-robin -n N` writes FIDE's Berger table for `N` entrants
//! (`--double`: each pair twice, the second cycle's colours reversed): per
//! round a line `Round R`, then its boards as `white black` lines and the
//! entrant who sits out (odd `N`) as `N 0`.
//!
//! Exit status: 0 paired; 1 no pairing satisfies the absolute criteria
//! (nothing written); 3 a file that cannot be read or is not TRF16, or
//! arguments it does not understand.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use tabula_pairing::{berger, dutch, trf};

const NO_PAIRING: u8 = 1;
const BAD_INPUT: u8 = 3;

enum Command {
    Dutch {
        input: PathBuf,
        output: Option<PathBuf>,
    },
    RoundRobin {
        entrants: u32,
        double: bool,
    },
}

const USAGE: &str = "usage: tabula-pair --dutch INPUT.trf -p [OUTPUT]\n       tabula-pair --round-robin -n N [--double]";

fn parse_args(args: &[String]) -> Result<Command, String> {
    let mut dutch_input = None;
    let mut pairs = false;
    let mut output = None;
    let mut round_robin = false;
    let mut entrants = None;
    let mut double = false;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--dutch" => {
                i += 1;
                dutch_input = Some(PathBuf::from(
                    args.get(i).ok_or("--dutch needs the TRF file")?,
                ));
            }
            "-p" => {
                pairs = true;
                if let Some(next) = args.get(i + 1).filter(|a| !a.starts_with('-')) {
                    output = Some(PathBuf::from(next));
                    i += 1;
                }
            }
            "--round-robin" => round_robin = true,
            "--double" => double = true,
            "-n" => {
                i += 1;
                let n = args.get(i).ok_or("-n needs a number of entrants")?;
                entrants = Some(
                    n.parse::<u32>()
                        .ok()
                        .filter(|n| (2..=1000).contains(n))
                        .ok_or_else(|| format!("-n {n}: a number of entrants from 2 to 1000"))?,
                );
            }
            other => return Err(format!("{other}: not an argument tabula-pair takes")),
        }
        i += 1;
    }
    match (dutch_input, round_robin) {
        (Some(input), false) if pairs => Ok(Command::Dutch { input, output }),
        (Some(_), false) => Err("--dutch pairs with -p [OUTPUT]".into()),
        (None, true) => Ok(Command::RoundRobin {
            entrants: entrants.ok_or("--round-robin needs -n N")?,
            double,
        }),
        _ => Err("one of --dutch FILE -p or --round-robin -n N".into()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = match parse_args(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("tabula-pair: {e}\n{USAGE}");
            return ExitCode::from(BAD_INPUT);
        }
    };
    let (lines, output) = match command {
        Command::RoundRobin { entrants, double } => {
            let mut lines = Vec::new();
            for r in 1..=berger::rounds(entrants, double) {
                let round = berger::round(entrants, r, double).expect("a round of the table");
                lines.push(format!("Round {r}"));
                lines.extend(round.boards.iter().map(|(w, b)| format!("{w} {b}")));
                lines.extend(round.bye.map(|bye| format!("{bye} 0")));
            }
            (lines, None)
        }
        Command::Dutch { input, output } => {
            let tournament = match std::fs::read_to_string(&input)
                .map_err(|e| e.to_string())
                .and_then(|t| trf::parse(&t).map_err(|e| e.to_string()))
            {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("tabula-pair: {}: {e}", input.display());
                    return ExitCode::from(BAD_INPUT);
                }
            };
            let pairing = match dutch::pair(&tournament) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("tabula-pair: {}: {e}", input.display());
                    return ExitCode::from(NO_PAIRING);
                }
            };
            let count = pairing.boards.len() + usize::from(pairing.bye.is_some());
            let mut lines = vec![count.to_string()];
            lines.extend(pairing.boards.iter().map(|(w, b)| format!("{w} {b}")));
            lines.extend(pairing.bye.map(|bye| format!("{bye} 0")));
            (lines, output)
        }
    };
    let text = lines.join("\n") + "\n";
    let written = match &output {
        Some(path) => std::fs::write(path, &text).map_err(|e| format!("{}: {e}", path.display())),
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| e.to_string()),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tabula-pair: {e}");
            ExitCode::from(BAD_INPUT)
        }
    }
}
