public import Foundation

/// The collections `gc --max-size` never evicts: queries an archivist pinned
/// (`tweetcache pin QUERY`, `search --pin`), kept in `<cache>/pins.json`.
///
/// A collection is the posts a query brought in (the catalog's `query` of each post):
/// their originals, thumbnails and packs stay whatever the budget, and the least
/// recently used media of every other post go first.
public struct CollectionPins: Sendable {
    public let url: URL

    /// `pins.json`, in the cache root.
    public static let fileName = "pins.json"

    public struct Pin: Sendable, Codable, Equatable {
        /// The query as the posts carry it (`#ucd`, `@name`, an API query).
        public var query: String
        public var pinnedAt: Date

        enum CodingKeys: String, CodingKey {
            case query
            case pinnedAt = "pinned_at"
        }
    }

    private struct File: Codable {
        var pins: [Pin]
    }

    public init(cacheRoot: URL) {
        url = cacheRoot.appendingPathComponent(Self.fileName)
    }

    /// The pins, oldest first; none when the file is not there.
    public func read() throws(CatalogError) -> [Pin] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return [] }
            throw .pins(path: url.path, message: (error as NSError).localizedDescription)
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(File.self, from: data).pins
        } catch {
            // Never guessed at: a gc that lost its pins would evict what they keep.
            throw .pins(path: url.path, message: "not a list of pins; fix or remove it")
        }
    }

    /// Pins `query`; false when it was pinned already.
    @discardableResult
    public func pin(_ query: String, at date: Date = Date()) throws(CatalogError) -> Bool {
        var pins = try read()
        guard !pins.contains(where: { $0.query == query }) else { return false }
        pins.append(Pin(query: query, pinnedAt: date))
        try write(pins)
        return true
    }

    /// Unpins `query`; false when it was not pinned.
    @discardableResult
    public func unpin(_ query: String) throws(CatalogError) -> Bool {
        var pins = try read()
        guard let index = pins.firstIndex(where: { $0.query == query }) else { return false }
        pins.remove(at: index)
        try write(pins)
        return true
    }

    private func write(_ pins: [Pin]) throws(CatalogError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try encoder.encode(File(pins: pins)).write(to: url, options: .atomic)
        } catch {
            throw .pins(path: url.path, message: (error as NSError).localizedDescription)
        }
    }
}
