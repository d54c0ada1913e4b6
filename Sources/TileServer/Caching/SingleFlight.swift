/// Runs one piece of work per key at a time: callers that ask for a key while its
/// work is running wait for that work instead of starting their own.
///
/// A viewer opening an image asks for a dozen tiles at once, and several viewers
/// may open the same image; without this each request would decode the same
/// 12-megapixel original. The work runs in its own task, so a caller that gives
/// up (a timeout, a closed connection) does not cancel it for the others, and its
/// result still lands on disk for the next request.
actor SingleFlight<Key: Hashable & Sendable, Value: Sendable> {
    private var running: [Key: Task<Value, any Error>] = [:]

    /// How many keys have work in flight (for tests and metrics).
    var inFlight: Int { running.count }

    func run(_ key: Key, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        if let task = running[key] { return try await task.value }
        let task = Task { try await work() }
        running[key] = task
        defer { running[key] = nil }
        return try await task.value
    }
}
