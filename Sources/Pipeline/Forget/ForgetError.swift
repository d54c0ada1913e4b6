import Foundation

/// Why `forget` stopped. Whatever it did before stays done, and its tombstones are
/// written: running it again finishes the job.
public enum ForgetError: Error, Sendable, Equatable, CustomStringConvertible {
    case tombstones(String)
    case catalog(String)
    case index(String)
    case rewrite(path: String, message: String)
    case bucket(String)
    /// A test's stop (``Forgetter/stopAfterRewrites``).
    case stopped

    public var description: String {
        let again = "; run `tweetcache forget` again to finish"
        switch self {
        case let .tombstones(message): return message
        case let .catalog(message): return message + again
        case let .index(message): return message + again
        case let .rewrite(path, message): return "cannot rewrite \(path): \(message)" + again
        case let .bucket(message): return "the bucket: \(message)" + again
        case .stopped: return "stopped" + again
        }
    }
}
