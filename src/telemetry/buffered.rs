//! The log's writer: lines go into a buffer in memory and a thread of
//! their own writes them out, many at a time.
//!
//! Writing each line to stdout as it is made cost a `write` system call per
//! request on the worker that answered it (about 1 µs of CPU; with the
//! request id's `getrandom`, the HTTP floor went from 13.1 to 11.0 µs per
//! `GET /healthz` when both left the worker). Here a line costs the worker a copy
//! into the buffer under a lock; the first line into an empty buffer wakes
//! the writer thread, which waits [`GATHER`] for more and writes them all
//! with one call. A line is out at most a few milliseconds after it was
//! made; [`LogGuard`] (held by `main`) writes what is left when the process
//! ends, and a `kill -9` loses at most the last [`GATHER`] of lines.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// How long the writer thread waits, after being woken, for more lines to
/// write with the first.
const GATHER: Duration = Duration::from_millis(5);

/// Beyond this many bytes waiting, a line wakes the writer at once (a
/// burst must not hold much memory).
const HIGH_WATER: usize = 1 << 20;

/// Beyond this many bytes waiting (stdout not keeping up: a stalled pipe,
/// a full disk), a line waits until the writer has taken them, as a write
/// to stdout would have waited: memory stays bounded and no line is lost.
const MAX_PENDING: usize = 16 << 20;

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    wake: Condvar,
    /// Signalled when the writer has taken the waiting lines.
    taken: Condvar,
}

#[derive(Default)]
struct State {
    pending: Vec<u8>,
    closed: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Where the subscriber writes its lines ([`tracing_subscriber`]'s
/// `MakeWriter`): cheap to clone, each write is one whole line.
#[derive(Clone)]
pub struct BufferedStdout {
    shared: Arc<Shared>,
}

/// Writes what is still buffered when dropped (at the end of `main`).
#[must_use = "dropping the guard writes the buffered lines and stops the writer"]
pub struct LogGuard {
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl BufferedStdout {
    /// The writer and its guard; starts the thread that writes to stdout.
    ///
    /// # Errors
    /// When the thread cannot be started.
    pub fn start() -> std::io::Result<(BufferedStdout, LogGuard)> {
        Self::start_to(std::io::stdout())
    }

    fn start_to<W: Write + Send + 'static>(
        mut out: W,
    ) -> std::io::Result<(BufferedStdout, LogGuard)> {
        let shared = Arc::new(Shared::default());
        let thread = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("log-writer".into())
                .spawn(move || {
                    let mut taken = Vec::new();
                    loop {
                        let mut state = shared.lock();
                        while state.pending.is_empty() && !state.closed {
                            state = shared
                                .wake
                                .wait(state)
                                .unwrap_or_else(PoisonError::into_inner);
                        }
                        if !state.closed && state.pending.len() < HIGH_WATER {
                            drop(state);
                            std::thread::sleep(GATHER);
                            state = shared.lock();
                        }
                        let closed = state.closed;
                        std::mem::swap(&mut taken, &mut state.pending);
                        drop(state);
                        shared.taken.notify_all();
                        // Nowhere to report a failed write of the log.
                        let _ = out.write_all(&taken).and_then(|()| out.flush());
                        taken.clear();
                        if closed {
                            return;
                        }
                    }
                })?
        };
        Ok((
            BufferedStdout {
                shared: shared.clone(),
            },
            LogGuard {
                shared,
                thread: Some(thread),
            },
        ))
    }
}

impl BufferedStdout {
    /// Adds `line` (one or more whole lines) to what is to be written.
    pub fn push(&self, line: &[u8]) {
        let mut state = self.shared.lock();
        while state.pending.len() >= MAX_PENDING && !state.closed {
            self.shared.wake.notify_one();
            state = self
                .shared
                .taken
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        let was_empty = state.pending.is_empty();
        state.pending.extend_from_slice(line);
        let wake = was_empty || state.pending.len() >= HIGH_WATER;
        drop(state);
        if wake {
            self.shared.wake.notify_one();
        }
    }
}

impl Write for BufferedStdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.push(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for BufferedStdout {
    type Writer = BufferedStdout;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

impl Drop for LogGuard {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `Write` whose bytes and write calls the test can read.
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<(Vec<u8>, usize)>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let mut s = self.0.lock().unwrap();
            s.0.extend_from_slice(buf);
            s.1 += 1;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_come_out_whole_in_order_and_together() {
        let sink = Sink::default();
        let (mut writer, guard) = BufferedStdout::start_to(sink.clone()).unwrap();
        for i in 0..1000 {
            writer.write_all(format!("line {i}\n").as_bytes()).unwrap();
        }
        drop(guard);
        let (bytes, calls) = sink.0.lock().unwrap().clone();
        let text = String::from_utf8(bytes).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1000);
        assert!(
            lines
                .iter()
                .enumerate()
                .all(|(i, l)| *l == format!("line {i}"))
        );
        // A thousand lines written at once leave in a few calls, not one each.
        assert!(calls < 50, "{calls} writes for 1000 lines");
    }

    #[test]
    fn a_line_is_written_soon_without_the_guard_dropped() {
        let sink = Sink::default();
        let (mut writer, _guard) = BufferedStdout::start_to(sink.clone()).unwrap();
        writer.write_all(b"alone\n").unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while sink.0.lock().unwrap().0.is_empty() {
            assert!(std::time::Instant::now() < deadline, "the line never left");
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(sink.0.lock().unwrap().0, b"alone\n");
    }

    /// A `Write` that blocks until the test lets it go.
    #[derive(Clone)]
    struct Stalled(Sink, Arc<(Mutex<bool>, Condvar)>);

    impl Write for Stalled {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let (open, turn) = &*self.1;
            let mut open = open.lock().unwrap();
            while !*open {
                open = turn.wait(open).unwrap();
            }
            self.0.write(buf)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_stalled_stdout_holds_writers_back_rather_than_memory_and_loses_nothing() {
        let sink = Sink::default();
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let (writer, guard) =
            BufferedStdout::start_to(Stalled(sink.clone(), gate.clone())).unwrap();
        let line = vec![b'x'; 1023];
        let lines = 3 * MAX_PENDING / 1024;
        let done = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let pusher = {
            let (writer, done) = (writer.clone(), done.clone());
            let mut line = line.clone();
            line.push(b'\n');
            std::thread::spawn(move || {
                for _ in 0..lines {
                    writer.push(&line);
                    done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            })
        };
        std::thread::sleep(Duration::from_millis(300));
        // One buffer is with the stalled writer, at most one more waits.
        let pushed = done.load(std::sync::atomic::Ordering::SeqCst);
        assert!(
            pushed < lines,
            "all {pushed} lines were taken while stdout was stalled"
        );
        assert!(writer.shared.lock().pending.len() <= MAX_PENDING + 1024);
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        pusher.join().unwrap();
        drop(guard);
        assert_eq!(sink.0.lock().unwrap().0.len(), lines * 1024);
    }

    #[test]
    fn lines_from_many_threads_are_not_interleaved() {
        let sink = Sink::default();
        let (writer, guard) = BufferedStdout::start_to(sink.clone()).unwrap();
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let mut w = writer.clone();
                std::thread::spawn(move || {
                    for i in 0..500 {
                        w.write_all(
                            format!("thread {t} line {i} {}\n", "x".repeat(i % 50)).as_bytes(),
                        )
                        .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        drop(guard);
        let text = String::from_utf8(sink.0.lock().unwrap().0.clone()).unwrap();
        let mut next = [0usize; 4];
        for line in text.lines() {
            let parts: Vec<&str> = line.split(' ').collect();
            let (t, i): (usize, usize) = (parts[1].parse().unwrap(), parts[3].parse().unwrap());
            assert_eq!(i, next[t], "{line}");
            assert_eq!(parts[4].len(), i % 50);
            next[t] += 1;
        }
        assert_eq!(next, [500; 4]);
    }
}
