public import Foundation

/// Where each followed stream stands: `<cache>/streams.json`.
///
/// A stream's cursor moves on only after the batch that holds the events before it
/// is in a written manifest, so a kill can never skip posts: the batches not yet
/// cached are listed as `pending` (their files are on disk from their first event),
/// and the next `watch` caches them before it reconnects from the cursor.
public struct StreamCheckpoint: Sendable, Codable, Equatable {
    public static let fileName = "streams.json"

    /// A batch's file and the cursors of the events it holds (known once sealed).
    public struct Pending: Sendable, Codable, Equatable {
        /// Relative to the cache root: `results/streams/<stream>-<time>.jsonl`.
        public var file: String
        public var cursors: [String: String]?
    }

    /// By stream key (``LiveSearch/PostStream/key``): the cursor after the last cached batch.
    public var cursors: [String: String] = [:]
    public var pending: [Pending] = []

    public init() {}

    public static func url(cacheRoot: URL) -> URL { cacheRoot.appendingPathComponent(fileName) }

    /// The saved checkpoint; an unreadable one is set aside (a stream then starts
    /// from now and the batches it listed are found again by `reindex`).
    public static func load(cacheRoot: URL) -> StreamCheckpoint {
        let url = url(cacheRoot: cacheRoot)
        guard let data = try? Data(contentsOf: url) else { return StreamCheckpoint() }
        guard let read = try? JSONDecoder().decode(StreamCheckpoint.self, from: data) else {
            try? FileManager.default.moveItem(at: url, to: url.appendingPathExtension("unreadable"))
            return StreamCheckpoint()
        }
        return read
    }

    /// Written whole to a temporary file and renamed over the old one.
    public func save(cacheRoot: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: Self.url(cacheRoot: cacheRoot), options: .atomic)
    }
}
