#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Everything that can go wrong in the blob store or its index.
///
/// One error type for the whole module so callers can report a failed item
/// (one URL, one blob) without knowing which layer failed; every message names
/// the file involved and, for system calls, the operating system's reason.
public enum BlobStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call on a cache file or directory failed.
    ///
    /// `operation` is a short verb phrase ("create temporary file"), `code` the
    /// `errno` value the call left behind.
    case io(operation: String, path: String, code: Int32)

    /// The blob asked for is not in the store (never stored, or removed).
    case blobNotFound(BlobHash, path: String)

    /// `write` or `finish` was called on a writer that already finished or
    /// was discarded. A programming error in the caller, reported instead of
    /// trapping so a long run loses one item rather than the process.
    case writerClosed(path: String)

    /// The SQLite index refused an operation (locked for too long, corrupt,
    /// disk full, or a row that does not decode).
    case index(operation: String, path: String, message: String)

    /// The index was created by a newer TweetCache whose schema this build
    /// does not know; opening it could corrupt the newer data.
    case indexFromNewerVersion(path: String)

    public var description: String {
        switch self {
        case let .io(operation, path, code):
            return "could not \(operation) \(path): \(Self.systemMessage(for: code)) (errno \(code))"
        case let .blobNotFound(hash, path):
            return "blob \(hash) is not in the cache (expected at \(path))"
        case let .writerClosed(path):
            return "the blob writer for \(path) was already finished or discarded"
        case let .index(operation, path, message):
            return "cache index \(path): could not \(operation): \(message)"
        case let .indexFromNewerVersion(path):
            return "cache index \(path) was written by a newer version of TweetCache; refusing to modify it"
        }
    }

    /// The `errno` of a failed system call, when the error came from one.
    public var systemErrorCode: Int32? {
        if case let .io(_, _, code) = self { return code }
        return nil
    }

    static func systemMessage(for code: Int32) -> String {
        guard let text = strerror(code) else { return "unknown error" }
        return String(cString: text)
    }

    /// Builds an `.io` error from the current `errno`; call it right after the
    /// failing system call, before anything else can overwrite `errno`.
    package static func lastSystemError(_ operation: String, path: String) -> BlobStoreError {
        .io(operation: operation, path: path, code: errno)
    }
}
