import Foundation

/// Why the catalog could not answer. Its database is an index of the manifests, so
/// most of these are cured by `tweetcache reindex`, which the message says.
public enum CatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database could not be opened, created or rebuilt.
    case open(path: String, message: String)
    /// A query or an ingest failed.
    case database(operation: String, message: String)
    /// The manifests folder could not be listed.
    case manifests(message: String)
    /// The tombstone log (``TombstoneLog``) could not be read or written.
    case tombstones(path: String, message: String)
    /// The pinned collections (``CollectionPins``) could not be read or written.
    case pins(path: String, message: String)

    public var description: String {
        switch self {
        case let .open(path, message): "cannot open the catalog \(path): \(message)"
        case let .database(operation, message): "catalog \(operation) failed: \(message) (`tweetcache reindex` rebuilds it)"
        case let .manifests(message): "cannot list the manifests: \(message)"
        case let .tombstones(path, message): "cannot use the tombstone log \(path): \(message)"
        case let .pins(path, message): "cannot use the pinned collections \(path): \(message)"
        }
    }
}
