//! A VFS over SQLite's own (`unix`) that writes a transaction's WAL frames
//! with fewer system calls.
//!
//! SQLite writes each WAL frame as two `pwrite(2)`s, its 24-byte header and
//! then its page, so a commit of N pages made 2N calls, each a trip through
//! the file system's write path for one or two pages of the page cache
//! (~10% of the service's CPU under the load generator, ~2.4 calls a move).
//! Here a transaction's frames are kept in a buffer while they are written
//! end to end, and written with one `pwrite` once the commit frame's page
//! is in it (the frame whose header holds the commit mark, which makes the
//! transaction visible once SQLite updates its index), or before anything
//! else happens to the file: a write elsewhere, a read, a sync, a
//! truncation, a size or control request, closing. So a commit is one call
//! (two or more when its frames pass [`MAX_BUFFERED`]), made before
//! SQLite's write of the commit frame returns.
//!
//! What the buffer may hold is never observable: only frames of a
//! transaction that has not committed, which no reader looks at (a reader
//! reads frames up to the last commit its snapshot names) and which the
//! writer reads only through this file (a read writes the buffer first).
//! They are lost with the process if it dies, as they would be half-written
//! without the buffer; SQLite's recovery ignores frames after the last
//! valid commit frame either way (its checksums chain every frame to the
//! ones before, so a commit frame is valid only after all of its
//! transaction's frames). What comes after a commit frame up to the next
//! transaction's first frame is written through at once, in SQLite's order.
//! Every other file (the database, the shared memory, journals) goes
//! straight to the `unix` VFS.

#![expect(
    unsafe_code,
    reason = "a VFS is a table of C callbacks over raw file objects: SQLite's C interface has no safe form"
)]

use std::ffi::{CStr, c_int, c_void};
use std::sync::OnceLock;

use rusqlite::ffi;

/// The name the VFS is registered under.
pub(super) const NAME: &CStr = c"tabula-wal";

/// The most the buffer holds before it is written: below 128 KiB, because
/// the `unix` VFS writes at most that much in one call (it masks the size
/// with `0x1ffff`, so a write of exactly 128 KiB would write nothing and
/// fail as a full disk). A batch's frames are ~20 of 4 KiB, most of it.
const MAX_BUFFERED: usize = 120 * 1024;

/// The size of a WAL frame's header (`WAL_FRAME_HDRSIZE`).
const FRAME_HEADER: usize = 24;

#[cfg(test)]
thread_local! {
    /// Writes made to the WAL files under by this thread, in tests.
    static WRITES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts a write to a WAL file under, in tests.
fn counted() {
    #[cfg(test)]
    WRITES.set(WRITES.get() + 1);
}

/// The VFS under this one (`unix`), once this one is registered.
struct Vfs {
    under: *mut ffi::sqlite3_vfs,
}

// SAFETY: SQLite's process-wide VFS object, never freed; SQLite calls it
// from any thread.
unsafe impl Send for Vfs {}
// SAFETY: as above; it is not written through this pointer.
unsafe impl Sync for Vfs {}

static VFS: OnceLock<Result<Vfs, c_int>> = OnceLock::new();

/// Registers the VFS (once; not as the default). A connection uses it
/// when opened with the `vfs` parameter set to [`NAME`].
///
/// # Errors
/// SQLite's code when there is no default VFS or registering fails.
pub(super) fn register() -> Result<(), c_int> {
    VFS.get_or_init(|| {
        // SAFETY: `sqlite3_vfs_find(NULL)` returns the default VFS, which
        // SQLite never frees; `sqlite3_vfs_register` keeps the pointer it
        // is given, leaked here so that it lives as long as the process.
        unsafe {
            let under = ffi::sqlite3_vfs_find(std::ptr::null());
            if under.is_null() {
                return Err(ffi::SQLITE_ERROR);
            }
            let mut this = *under;
            this.szOsFile = c_int::try_from(std::mem::size_of::<File>())
                .map_err(|_| ffi::SQLITE_ERROR)?
                + (*under).szOsFile;
            this.pNext = std::ptr::null_mut();
            this.zName = NAME.as_ptr();
            this.xOpen = Some(open);
            let this = Box::into_raw(Box::new(this));
            let rc = ffi::sqlite3_vfs_register(this, 0);
            if rc != ffi::SQLITE_OK {
                drop(Box::from_raw(this));
                return Err(rc);
            }
            Ok(Vfs { under })
        }
    })
    .as_ref()
    .map(|_| ())
    .map_err(|rc| *rc)
}

/// A file opened through this VFS: SQLite's `sqlite3_file` header, and the
/// `unix` VFS's own file object right after it (in the same allocation,
/// `szOsFile` bytes, made by SQLite).
#[repr(C)]
struct File {
    base: ffi::sqlite3_file,
    under: *mut ffi::sqlite3_file,
    /// Buffering (a WAL file) or not.
    wal: bool,
    /// Frames kept, and where the first starts in the file.
    buffer: Vec<u8>,
    start: i64,
    /// The last write kept was a frame's header: its page may follow.
    after_header: bool,
    /// That header was a commit frame's: its page ends the transaction.
    after_commit: bool,
}

impl File {
    /// The end of what the buffer holds, in the file.
    fn end(&self) -> i64 {
        self.start + i64::try_from(self.buffer.len()).unwrap_or(i64::MAX)
    }

    /// Writes what the buffer holds, then empties it (keeping its memory).
    ///
    /// # Safety
    /// `self.under` is the open file under this one.
    unsafe fn flush(&mut self) -> c_int {
        self.after_header = false;
        self.after_commit = false;
        if self.buffer.is_empty() {
            return ffi::SQLITE_OK;
        }
        let Ok(amount) = c_int::try_from(self.buffer.len()) else {
            return ffi::SQLITE_IOERR_WRITE;
        };
        counted();
        // SAFETY: the caller's promise; the buffer outlives the call.
        let rc = unsafe {
            match (*(*self.under).pMethods).xWrite {
                Some(write) => write(self.under, self.buffer.as_ptr().cast(), amount, self.start),
                None => ffi::SQLITE_IOERR_WRITE,
            }
        };
        self.buffer.clear();
        rc
    }
}

/// The file behind `file`, its buffer written first (when it has one).
///
/// # Safety
/// `file` is a file this VFS opened and has not closed.
unsafe fn flushed(file: *mut ffi::sqlite3_file) -> Result<*mut ffi::sqlite3_file, c_int> {
    // SAFETY: the caller's promise: `file` is one of ours.
    let file = unsafe { &mut *file.cast::<File>() };
    // SAFETY: `file.under` is open while `file` is.
    match unsafe { file.flush() } {
        ffi::SQLITE_OK => Ok(file.under),
        rc => Err(rc),
    }
}

/// Calls the method `$method` of the file under `$file` with `$args`,
/// after writing the buffer; `$missing` if that file has no such method.
macro_rules! forward {
    ($file:expr, $method:ident, $missing:expr $(, $arg:expr)*) => {{
        // SAFETY: SQLite calls a file's methods only while it is open.
        match unsafe { flushed($file) } {
            // SAFETY: the file under ours is open, its methods its own.
            Ok(under) => match unsafe { (*(*under).pMethods).$method } {
                // SAFETY: as SQLite called ours, with the file under it.
                Some(method) => unsafe { method(under $(, $arg)*) },
                None => $missing,
            },
            Err(rc) => rc,
        }
    }};
}

/// Calls the method `$method` of the file under `$file` with `$args`, as
/// [`forward!`] does but leaving the buffer as it is (for the questions
/// about the device, and the shared memory's barrier, which a WAL file's
/// frames do not concern).
macro_rules! direct {
    ($file:expr, $method:ident, $missing:expr $(, $arg:expr)*) => {{
        // SAFETY: SQLite calls a file's methods only while it is open.
        let under = unsafe { (*$file.cast::<File>()).under };
        // SAFETY: the file under ours is open, its methods its own.
        match unsafe { (*(*under).pMethods).$method } {
            // SAFETY: as SQLite called ours, with the file under it.
            Some(method) => unsafe { method(under $(, $arg)*) },
            None => $missing,
        }
    }};
}

unsafe extern "C" fn open(
    _vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    let Some(Ok(vfs)) = VFS.get() else {
        return ffi::SQLITE_ERROR;
    };
    // SAFETY: SQLite gives `szOsFile` bytes at `file` (aligned for a
    // pointer): ours, then the `unix` VFS's object; the `unix` open fills
    // that one. On failure `pMethods` stays NULL, as SQLite requires.
    unsafe {
        let under = file.cast::<File>().add(1).cast::<ffi::sqlite3_file>();
        (*file).pMethods = std::ptr::null();
        let Some(open_under) = (*vfs.under).xOpen else {
            return ffi::SQLITE_ERROR;
        };
        let rc = open_under(vfs.under, name, under, flags, out_flags);
        if rc != ffi::SQLITE_OK || (*under).pMethods.is_null() {
            return rc;
        }
        std::ptr::write(
            file.cast::<File>(),
            File {
                base: ffi::sqlite3_file {
                    pMethods: &raw const METHODS,
                },
                under,
                wal: flags & ffi::SQLITE_OPEN_WAL != 0,
                buffer: Vec::new(),
                start: 0,
                after_header: false,
                after_commit: false,
            },
        );
        ffi::SQLITE_OK
    }
}

static METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 3,
    xClose: Some(close),
    xRead: Some(read),
    xWrite: Some(write),
    xTruncate: Some(truncate),
    xSync: Some(sync),
    xFileSize: Some(file_size),
    xLock: Some(lock),
    xUnlock: Some(unlock),
    xCheckReservedLock: Some(check_reserved_lock),
    xFileControl: Some(file_control),
    xSectorSize: Some(sector_size),
    xDeviceCharacteristics: Some(device_characteristics),
    xShmMap: Some(shm_map),
    xShmLock: Some(shm_lock),
    xShmBarrier: Some(shm_barrier),
    xShmUnmap: Some(shm_unmap),
    xFetch: Some(fetch),
    xUnfetch: Some(unfetch),
};

unsafe extern "C" fn write(
    file: *mut ffi::sqlite3_file,
    data: *const c_void,
    amount: c_int,
    offset: i64,
) -> c_int {
    // SAFETY: SQLite calls with one of our open files.
    let this = unsafe { &mut *file.cast::<File>() };
    if let Ok(length @ 1..) = usize::try_from(amount)
        && this.wal
    {
        // SAFETY: SQLite gives `amount` bytes at `data`.
        let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), length) };
        // A frame's header, or the page right after a header kept, each
        // following what is kept. A header's bytes 4..8 (the database's
        // size after a commit) are 0 in any frame but a commit frame.
        let continues = this.buffer.is_empty() || offset == this.end();
        let header = bytes.len() == FRAME_HEADER;
        let page = this.after_header && !this.buffer.is_empty();
        if continues && (header || page) && bytes.len() <= MAX_BUFFERED {
            if this.buffer.len() + bytes.len() > MAX_BUFFERED {
                // Full: written, and the buffer starts over with this
                // write if it is a header (a page goes after its header,
                // written now).
                // SAFETY: the file under ours is open while ours is.
                let rc = unsafe { this.flush() };
                if rc != ffi::SQLITE_OK || !header {
                    return if rc == ffi::SQLITE_OK {
                        counted();
                        forward!(file, xWrite, ffi::SQLITE_IOERR_WRITE, data, amount, offset)
                    } else {
                        rc
                    };
                }
            }
            if this.buffer.is_empty() {
                this.start = offset;
            }
            this.buffer.extend_from_slice(bytes);
            if page && this.after_commit {
                // The transaction's last page: all of it written now.
                // SAFETY: the file under ours is open while ours is.
                return unsafe { this.flush() };
            }
            this.after_header = header;
            this.after_commit = header && bytes[4..8] != [0; 4];
            return ffi::SQLITE_OK;
        }
    }
    if this.wal {
        counted();
    }
    forward!(file, xWrite, ffi::SQLITE_IOERR_WRITE, data, amount, offset)
}

unsafe extern "C" fn close(file: *mut ffi::sqlite3_file) -> c_int {
    // SAFETY: one of our open files; SQLite does not use it after closing,
    // and frees its memory itself: only what we own in it is dropped. The
    // file under is closed even when the buffer could not be written (the
    // close's error says so), so that no descriptor is left open.
    unsafe {
        let this = &mut *file.cast::<File>();
        let flushed = this.flush();
        let under = this.under;
        let closed = match (*(*under).pMethods).xClose {
            Some(close) => close(under),
            None => ffi::SQLITE_OK,
        };
        std::ptr::drop_in_place(&raw mut this.buffer);
        (*file).pMethods = std::ptr::null();
        if flushed == ffi::SQLITE_OK {
            closed
        } else {
            flushed
        }
    }
}

unsafe extern "C" fn read(
    file: *mut ffi::sqlite3_file,
    data: *mut c_void,
    amount: c_int,
    offset: i64,
) -> c_int {
    forward!(file, xRead, ffi::SQLITE_IOERR_READ, data, amount, offset)
}

unsafe extern "C" fn truncate(file: *mut ffi::sqlite3_file, size: i64) -> c_int {
    forward!(file, xTruncate, ffi::SQLITE_IOERR_TRUNCATE, size)
}

unsafe extern "C" fn sync(file: *mut ffi::sqlite3_file, flags: c_int) -> c_int {
    forward!(file, xSync, ffi::SQLITE_IOERR_FSYNC, flags)
}

unsafe extern "C" fn file_size(file: *mut ffi::sqlite3_file, size: *mut i64) -> c_int {
    forward!(file, xFileSize, ffi::SQLITE_IOERR_FSTAT, size)
}

unsafe extern "C" fn lock(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    forward!(file, xLock, ffi::SQLITE_IOERR_LOCK, level)
}

unsafe extern "C" fn unlock(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    forward!(file, xUnlock, ffi::SQLITE_IOERR_UNLOCK, level)
}

unsafe extern "C" fn check_reserved_lock(file: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    forward!(
        file,
        xCheckReservedLock,
        ffi::SQLITE_IOERR_CHECKRESERVEDLOCK,
        out
    )
}

unsafe extern "C" fn file_control(
    file: *mut ffi::sqlite3_file,
    op: c_int,
    arg: *mut c_void,
) -> c_int {
    forward!(file, xFileControl, ffi::SQLITE_NOTFOUND, op, arg)
}

unsafe extern "C" fn sector_size(file: *mut ffi::sqlite3_file) -> c_int {
    direct!(file, xSectorSize, 4096)
}

unsafe extern "C" fn device_characteristics(file: *mut ffi::sqlite3_file) -> c_int {
    direct!(file, xDeviceCharacteristics, 0)
}

unsafe extern "C" fn shm_map(
    file: *mut ffi::sqlite3_file,
    region: c_int,
    size: c_int,
    extend: c_int,
    out: *mut *mut c_void,
) -> c_int {
    forward!(
        file,
        xShmMap,
        ffi::SQLITE_IOERR_SHMMAP,
        region,
        size,
        extend,
        out
    )
}

unsafe extern "C" fn shm_lock(
    file: *mut ffi::sqlite3_file,
    offset: c_int,
    n: c_int,
    flags: c_int,
) -> c_int {
    forward!(file, xShmLock, ffi::SQLITE_IOERR_SHMLOCK, offset, n, flags)
}

unsafe extern "C" fn shm_barrier(file: *mut ffi::sqlite3_file) {
    direct!(file, xShmBarrier, ());
}

unsafe extern "C" fn shm_unmap(file: *mut ffi::sqlite3_file, delete: c_int) -> c_int {
    forward!(file, xShmUnmap, ffi::SQLITE_OK, delete)
}

unsafe extern "C" fn fetch(
    file: *mut ffi::sqlite3_file,
    offset: i64,
    amount: c_int,
    out: *mut *mut c_void,
) -> c_int {
    let none = || {
        // SAFETY: `out` is SQLite's to fill; NULL means "read it instead",
        // always allowed.
        unsafe { *out = std::ptr::null_mut() };
        ffi::SQLITE_OK
    };
    forward!(file, xFetch, none(), offset, amount, out)
}

unsafe extern "C" fn unfetch(
    file: *mut ffi::sqlite3_file,
    offset: i64,
    page: *mut c_void,
) -> c_int {
    forward!(file, xUnfetch, ffi::SQLITE_OK, offset, page)
}

/// The name as the `vfs` connection parameter takes it.
pub(super) fn name() -> &'static str {
    // The constant is ASCII.
    NAME.to_str().unwrap_or("tabula-wal")
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The rows' count and total size.
    fn content(db: &rusqlite::Connection) -> (i64, i64) {
        db.query_row(
            "SELECT count(*), coalesce(sum(length(v)), 0) FROM t",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
    }

    /// The database and its WAL copied as a crash would leave them (no
    /// shared memory: opening them recovers the WAL, checking each frame's
    /// checksum), opened without the VFS.
    fn recovered(from: &Path, to: &Path) -> (i64, i64) {
        let _ = std::fs::remove_file(to);
        let _ = std::fs::remove_file(to.with_extension("db-wal"));
        std::fs::copy(from, to).unwrap();
        std::fs::copy(from.with_extension("db-wal"), to.with_extension("db-wal")).unwrap();
        content(&rusqlite::Connection::open(to).unwrap())
    }

    /// Commits through the buffer are each whole in the files when they
    /// return, for another connection and for a recovery after a crash,
    /// and the same as without the buffer; and the buffer did write fewer
    /// times than SQLite asked.
    #[test]
    fn each_commit_is_in_the_files_when_it_returns_as_without_the_buffer_in_fewer_writes() {
        super::register().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let run = |name: &str, vfs: Option<&str>| {
            let path = dir.path().join(format!("{name}.db"));
            let db = match vfs {
                Some(vfs) => rusqlite::Connection::open_with_flags_and_vfs(
                    &path,
                    rusqlite::OpenFlags::default(),
                    vfs,
                ),
                None => rusqlite::Connection::open(&path),
            }
            .unwrap();
            db.execute_batch(
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0;
                 CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB NOT NULL);",
            )
            .unwrap();
            let reader = rusqlite::Connection::open(&path).unwrap();
            let mut seen = Vec::new();
            for batch in 0..40_i64 {
                let tx = db.unchecked_transaction().unwrap();
                // Every tenth commit larger than the buffer (~60 pages).
                let rows = if batch % 10 == 9 { 120 } else { batch % 7 + 1 };
                for i in 0..rows {
                    tx.execute(
                        "INSERT OR REPLACE INTO t (k, v) VALUES (?1, zeroblob(?2))",
                        (batch * 13 % 40 + i * 97, 300 + batch * 31 + i),
                    )
                    .unwrap();
                }
                tx.commit().unwrap();
                let now = content(&db);
                assert_eq!(content(&reader), now, "{name}: batch {batch} unseen");
                let copy = dir.path().join(format!("{name}-copy.db"));
                assert_eq!(
                    recovered(&path, &copy),
                    now,
                    "{name}: batch {batch} not recovered"
                );
                seen.push(now);
            }
            // Nothing was checkpointed: every frame is still in the WAL.
            let wal = std::fs::metadata(path.with_extension("db-wal"))
                .unwrap()
                .len();
            (seen, usize::try_from((wal - 32) / (4096 + 24)).unwrap())
        };
        let (plain, _) = run("plain", None);
        let before = super::WRITES.get();
        let (buffered, frames) = run("buffered", Some(super::name()));
        let writes = super::WRITES.get() - before;
        assert_eq!(buffered, plain);
        // Without the buffer SQLite writes each frame in two; with it, a
        // commit is one write, or one per buffer's worth of its frames
        // (the WAL's header is one more).
        assert!(frames > 300, "{frames} frames");
        let most = 40 + frames * (4096 + 24) / super::MAX_BUFFERED + 1;
        assert!(
            writes > 0 && writes <= most,
            "{writes} writes for {frames} frames in 40 commits (at most {most})"
        );
    }
}
