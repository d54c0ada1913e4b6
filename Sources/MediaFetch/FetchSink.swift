/// Where a body goes while it streams in.
///
/// The fetcher never holds whole bodies: bytes go to a sink on the transfer thread as
/// they arrive (the blob store hashes and writes them to a temp file), and the sink is
/// finished off that thread once the body has passed every check. A retry starts a
/// fresh sink, so a sink never sees two attempts' bytes.
public protocol FetchSink: AnyObject, SendableMetatype {
    associatedtype Output: Sendable
    /// Called on the transfer thread with each chunk. Throwing aborts the transfer.
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Called once, off the transfer thread, after a complete and accepted body.
    func finish() throws -> Output
    /// Called instead of `finish` when the attempt failed or the body was refused.
    func discard()
    /// Finishes several sinks at once, each one's outcome in order; called off the
    /// transfer thread with the bodies that completed together. A sink whose finishing
    /// has a fixed cost per call (a flush to disk) shares it across the batch here.
    static func finishBatch(_ sinks: [Self]) -> [Result<Output, any Error>]
}

extension FetchSink {
    public static func finishBatch(_ sinks: [Self]) -> [Result<Output, any Error>] {
        sinks.map { sink in Result { try sink.finish() } }
    }
}

/// Collects a body in memory; for small bodies and tests.
public final class MemorySink: FetchSink {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public func write(_ chunk: UnsafeRawBufferPointer) throws { bytes.append(contentsOf: chunk) }

    public func finish() throws -> [UInt8] { bytes }

    public func discard() { bytes = [] }
}
