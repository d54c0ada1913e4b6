import NIOCore
import Synchronization

/// A value a ``MemoryCache`` can weigh.
package protocol MemoryCost: Sendable {
    var bytes: Int { get }
}

/// What the server keeps in memory, least recently used out first, bounded in bytes.
///
/// Everything the server serves from the cache is content-addressed, so an entry
/// never goes stale; what a hit saves is the open/fstat/read/close of a hot
/// file, or (for ``HotResponse``) the whole trip through the async responder.
package final class MemoryCache<Key: Hashable & Sendable, Value: MemoryCost>: Sendable {
    /// A class, so a hit updates its recency without writing the dictionary.
    private final class Slot {
        let value: Value
        var tick: UInt64
        init(_ value: Value, tick: UInt64) {
            self.value = value
            self.tick = tick
        }
    }

    private struct State: ~Copyable {
        var entries: [Key: Slot] = [:]
        var bytes = 0
        var tick: UInt64 = 0
    }

    let capacity: Int
    /// Larger values are not kept rather than evicting many small ones.
    let maxEntryBytes: Int
    private let state = Mutex(State())

    package init(capacity: Int, maxEntryBytes: Int = 1 << 20) {
        self.capacity = capacity
        self.maxEntryBytes = maxEntryBytes
    }

    package func get(_ key: Key) -> Value? {
        state.withLock { state in
            guard let slot = state.entries[key] else { return nil }
            state.tick &+= 1
            slot.tick = state.tick
            return slot.value
        }
    }

    /// Drops every entry (a `forget` elsewhere: no byte of what it removed is served
    /// from memory).
    func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.bytes = 0
        }
    }

    func remove(_ key: Key) {
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.bytes -= old.value.bytes }
        }
    }

    package func put(_ key: Key, _ value: Value) {
        let size = value.bytes
        guard capacity > 0, size <= maxEntryBytes else { return }
        state.withLock { state in
            state.tick &+= 1
            if let old = state.entries.updateValue(Slot(value, tick: state.tick), forKey: key) {
                state.bytes -= old.value.bytes
            }
            state.bytes += size
            guard state.bytes > capacity else { return }
            // Evict the oldest quarter in one pass: amortised O(1) per insert.
            let victims = state.entries.sorted { $0.value.tick < $1.value.tick }
            var index = 0
            while state.bytes > capacity * 3 / 4, index < victims.count {
                let (victim, slot) = victims[index]
                if victim != key {
                    state.entries[victim] = nil
                    state.bytes -= slot.value.bytes
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

typealias ByteCache = MemoryCache<String, CachedFile>
