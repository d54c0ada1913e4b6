import NIOCore
import Synchronization

/// Recently served small files (tiles, thumbnails, descriptors) kept in memory,
/// least recently used out first, bounded in bytes.
///
/// Everything the server serves from the cache is content-addressed, so an entry
/// never goes stale; what this saves is the open/fstat/read/close of a hot tile,
/// which is most of the cost of serving one.
final class ByteCache: Sendable {
    struct Entry: Sendable {
        var body: ByteBuffer
        var contentType: String
    }

    private struct State {
        var entries: [String: (entry: Entry, tick: UInt64)] = [:]
        var bytes = 0
        var tick: UInt64 = 0
    }

    let capacity: Int
    /// Larger files are served from disk every time rather than evicting many tiles.
    let maxEntryBytes: Int
    private let state = Mutex(State())

    init(capacity: Int, maxEntryBytes: Int = 1 << 20) {
        self.capacity = capacity
        self.maxEntryBytes = maxEntryBytes
    }

    func get(_ key: String) -> Entry? {
        state.withLock { state in
            guard var found = state.entries[key] else { return nil }
            state.tick &+= 1
            found.tick = state.tick
            state.entries[key] = found
            return found.entry
        }
    }

    func put(_ key: String, _ entry: Entry) {
        let size = entry.body.readableBytes
        guard capacity > 0, size <= maxEntryBytes else { return }
        state.withLock { state in
            state.tick &+= 1
            if let old = state.entries.updateValue((entry, state.tick), forKey: key) {
                state.bytes -= old.entry.body.readableBytes
            }
            state.bytes += size
            guard state.bytes > capacity else { return }
            // Evict the oldest quarter in one pass: amortised O(1) per insert.
            let victims = state.entries.sorted { $0.value.tick < $1.value.tick }
            var index = 0
            while state.bytes > capacity * 3 / 4, index < victims.count {
                let (victim, value) = victims[index]
                if victim != key {
                    state.entries[victim] = nil
                    state.bytes -= value.entry.body.readableBytes
                }
                index += 1
            }
        }
    }

    var totalBytes: Int { state.withLock { $0.bytes } }
}
