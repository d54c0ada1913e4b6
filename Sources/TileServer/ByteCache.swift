import HTTPTypes
import NIOCore
import Synchronization

/// A value a ``MemoryCache`` can weigh.
protocol MemoryCost: Sendable {
    var bytes: Int { get }
}

/// What the server keeps in memory, least recently used out first, bounded in bytes.
///
/// Everything the server serves from the cache is content-addressed, so an entry
/// never goes stale; what a hit saves is the open/fstat/read/close of a hot
/// file, or (for ``HotResponse``) the whole trip through the async responder.
final class MemoryCache<Value: MemoryCost>: Sendable {
    private struct State {
        var entries: [String: (value: Value, tick: UInt64)] = [:]
        var bytes = 0
        var tick: UInt64 = 0
    }

    let capacity: Int
    /// Larger values are not kept rather than evicting many small ones.
    let maxEntryBytes: Int
    private let state = Mutex(State())

    init(capacity: Int, maxEntryBytes: Int = 1 << 20) {
        self.capacity = capacity
        self.maxEntryBytes = maxEntryBytes
    }

    func get(_ key: String) -> Value? {
        state.withLock { state in
            guard var found = state.entries[key] else { return nil }
            state.tick &+= 1
            found.tick = state.tick
            state.entries[key] = found
            return found.value
        }
    }

    func put(_ key: String, _ value: Value) {
        let size = value.bytes
        guard capacity > 0, size <= maxEntryBytes else { return }
        state.withLock { state in
            state.tick &+= 1
            if let old = state.entries.updateValue((value, state.tick), forKey: key) {
                state.bytes -= old.value.bytes
            }
            state.bytes += size
            guard state.bytes > capacity else { return }
            // Evict the oldest quarter in one pass: amortised O(1) per insert.
            let victims = state.entries.sorted { $0.value.tick < $1.value.tick }
            var index = 0
            while state.bytes > capacity * 3 / 4, index < victims.count {
                let (victim, entry) = victims[index]
                if victim != key {
                    state.entries[victim] = nil
                    state.bytes -= entry.value.bytes
                }
                index += 1
            }
        }
    }

    var totalBytes: Int { state.withLock { $0.bytes } }
}

/// A derived file's bytes, keyed by its path under the cache.
struct CachedFile: MemoryCost {
    var body: ByteBuffer
    var contentType: String
    var bytes: Int { body.readableBytes }
}

typealias ByteCache = MemoryCache<CachedFile>

/// A complete `200` answer to a `GET` of an immutable resource, keyed by the
/// request's authority and path as the client sent them, so the
/// ``HotResponseHandler`` can answer a repeat without the async responder.
struct HotResponse: MemoryCost {
    /// Every header the responder set (not `Date` and `Server`, which are added per answer).
    var headers: HTTPFields
    var body: ByteBuffer
    /// The route's metrics label.
    var route: String
    /// Headers are small next to tiles; a rough figure keeps the bound honest.
    var bytes: Int { body.readableBytes + 512 }

    static func key(authority: String?, path: String) -> String { "\(authority ?? "")\u{0}\(path)" }
}
