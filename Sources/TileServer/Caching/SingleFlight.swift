import Synchronization

/// Runs one piece of work per key at a time: callers that ask for a key while its
/// work is running wait for that work instead of starting their own.
///
/// A viewer opening an image asks for a dozen tiles at once, and several viewers
/// may open the same image; without this each request would decode the same
/// 12-megapixel original. The work runs in its own task, so a caller that gives
/// up (a timeout, a closed connection) does not cancel it for the others, and its
/// result still lands on disk for the next request.
///
/// A flight that tracks interest runs its work with ``RenderInterest/current`` set
/// to the clients waiting for it, so the ``RenderPool`` can drop the work when all
/// of them have hung up before it started. One that does not (decodes of an
/// original, which other work shares) runs it with none, whoever asked first.
actor SingleFlight<Key: Hashable & Sendable, Value: Sendable> {
    private var running: [Key: (task: Task<Value, any Error>, interest: RenderInterest?)] = [:]
    private let tracksInterest: Bool

    init(tracksInterest: Bool = false) {
        self.tracksInterest = tracksInterest
    }

    /// How many keys have work in flight (for tests and metrics).
    var inFlight: Int { running.count }

    func run(_ key: Key, for ticket: RenderTicket? = nil, _ work: @escaping @Sendable () async throws -> Value) async throws
        -> Value {
        if let entry = running[key] {
            entry.interest?.add(ticket)
            return try await entry.task.value
        }
        let interest = tracksInterest ? RenderInterest(ticket) : nil
        let task = Task { try await RenderInterest.$current.withValue(interest) { try await work() } }
        running[key] = (task, interest)
        defer { running[key] = nil }
        return try await task.value
    }
}

/// The requests waiting for one piece of work: it is wanted while one of them is.
final class RenderInterest: Sendable {
    private let tickets: Mutex<[RenderTicket?]>

    init(_ first: RenderTicket?) {
        tickets = Mutex([first])
    }

    func add(_ ticket: RenderTicket?) {
        tickets.withLock { $0.append(ticket) }
    }

    var isWanted: Bool {
        tickets.withLock { $0.contains { $0?.isWanted ?? true } }
    }

    /// The interest in the work the current task does; nil: wanted whatever happens.
    @TaskLocal static var current: RenderInterest?
}

/// One request's claim on a render: wanted while its client is connected (or not
/// known to be gone: a request from a test, or from inside the server), and for
/// good once the client was told to come back for it (a 503 past the time limit
/// says the work goes on and is kept).
final class RenderTicket: Sendable {
    private let watch: ConnectionWatch?
    private let kept = Atomic(false)

    init(_ client: RenderClient?) {
        watch = client?.watch
    }

    func keep() { kept.store(true, ordering: .relaxed) }

    var isWanted: Bool { kept.load(ordering: .relaxed) || (watch?.isConnected ?? true) }
}
