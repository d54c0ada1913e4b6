internal import Synchronization

/// How far a long piece of maintenance has come (a catalog rebuilt, a bucket synced,
/// a cache verified, an export written), read by a display on another thread while
/// the work moves it on: a rebuild of a million posts takes half a minute, and a
/// terminal that shows nothing for that long looks hung.
///
/// `done` and `total` are in one unit (bytes of manifests, blobs, posts), which the
/// work names; `phase` says what it is doing when that is not counted (a rebuild's
/// indexes at its end).
public final class WorkProgress: Sendable {
    public let unit: Unit
    private let state = Mutex(State())

    public enum Unit: Sendable, Equatable {
        case bytes
        case items(String)
    }

    public struct State: Sendable, Equatable {
        public var done = 0
        public var total = 0
        public var phase: String?
    }

    public init(unit: Unit) { self.unit = unit }

    /// The counters at one moment.
    public var snapshot: State { state.withLock { $0 } }

    public func addTotal(_ n: Int) { state.withLock { $0.total += n } }
    public func advance(by n: Int) { state.withLock { $0.done += n } }
    /// Sets how much is done (work that knows its position, such as an offset).
    public func setDone(_ n: Int) { state.withLock { $0.done = n } }
    public func setPhase(_ phase: String?) { state.withLock { $0.phase = phase } }

    /// One line: `45% 120 MB of 270 MB`, `3,400 of 12,000 blobs`, with the phase.
    public static func text(_ s: State, unit: Unit) -> String {
        let amount: (Int) -> String = { n in
            switch unit {
            case .bytes: ByteCount.format(n)
            case .items: "\(n)"
            }
        }
        // Work that counts nothing yet (or ever) says only what it is doing.
        if s.total == 0, s.done == 0 { return s.phase ?? "starting" }
        var text = s.total > 0
            ? "\(Int((Double(min(s.done, s.total)) / Double(s.total) * 100).rounded(.down)))% \(amount(s.done)) of \(amount(s.total))"
            : amount(s.done)
        if case let .items(name) = unit { text += " \(name)" }
        if let phase = s.phase { text += ", \(phase)" }
        return text
    }
}
