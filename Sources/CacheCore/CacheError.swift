/// Why the cache itself could not be opened, written or converted: a folder that
/// is not writable, a full disk, an index that does not open. Never a per-item
/// problem (a bad image or URL is recorded for that item and the run goes on).
public enum CacheError: Error, Sendable, CustomStringConvertible, Equatable {
    case unusable(String)

    public var description: String {
        switch self {
        case let .unusable(why): "cache error: \(why)"
        }
    }
}

extension CacheError {
    /// The reason alone, for a message that says "cache" itself.
    public var unusableReason: String {
        switch self {
        case let .unusable(why): why
        }
    }
}
