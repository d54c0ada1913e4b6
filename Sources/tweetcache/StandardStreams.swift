import BlobStore
#if canImport(Glibc)
import Glibc
#endif

/// Standard output and error, written so that a reader that went away cannot kill
/// the command: `tweetcache serve … 2>&1 | head -2` then a log line, or `fetch … |
/// head -1` then the summary. Foundation's `FileHandle.write(_:)` traps when the write
/// fails (EPIPE), and SIGPIPE, ignored from the start (``Entry``), would end the
/// process otherwise: a line nobody can read is dropped instead, and the work goes on.
enum StandardStreams {
    static func error(_ text: String) { write(text, to: STDERR_FILENO) }
    static func output(_ text: String) { write(text, to: STDOUT_FILENO) }

    static func write(_ text: String, to fd: Int32) {
        let bytes = Array(text.utf8)
        // EPIPE, a closed descriptor, a full disk: the line is dropped.
        bytes.withUnsafeBytes { try? FileSystem.writeAll(fd, $0, path: "standard output or error") }
    }
}
