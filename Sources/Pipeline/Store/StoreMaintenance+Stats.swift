public import CacheCore
public import ObjectStore

extension StoreMaintenance {
    /// What `stats --store` reports: the same tally `stats` makes of a cache folder.
    public typealias Stats = ObjectTally

    /// Counts and sizes of what the bucket holds, from one listing.
    public func stats() async throws(StoreError) -> Stats {
        ObjectTally.counting(try await storage.list("").lazy.map { (path: $0.key, size: $0.size) }, at: storage.address)
    }
}
