import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A running `tc-stress` child, with its stderr captured to a file for
/// failure messages.
final class ChildProcess: @unchecked Sendable {
    let process = Process()
    let standardErrorURL: URL
    /// Ends when the child exits (its handler is set before it starts).
    private let exited: AsyncStream<Void>

    /// The child's standard output, when the test reads what it announces.
    private let output: Pipe?

    /// `announces`: the child's standard output is kept for ``firstLine()`` (for a
    /// child that prints a line when it has done something, and not much more).
    init(arguments: [String], logDirectory: URL, label: String, announces: Bool = false) throws {
        process.executableURL = try Self.stressToolURL()
        process.arguments = arguments
        standardErrorURL = logDirectory.appendingPathComponent("\(label).stderr")
        _ = FileManager.default.createFile(atPath: standardErrorURL.path, contents: nil)
        output = announces ? Pipe() : nil
        process.standardOutput = output ?? FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: standardErrorURL)
        let (exited, exit) = AsyncStream<Void>.makeStream()
        self.exited = exited
        process.terminationHandler = { _ in
            exit.yield()
            exit.finish()
        }
        try process.run()
    }

    /// A child still running when its handle goes (a test that failed or returned
    /// early) is killed, never left writing.
    deinit {
        if process.isRunning { kill() }
    }

    var pid: Int32 { process.processIdentifier }

    func kill() {
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the child to exit without holding a thread.
    func waitForExit() async throws -> (status: Int32, reason: Process.TerminationReason) {
        for await _ in exited {}
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason)
    }

    /// The first line the child prints, once it has printed it (nil if it exits first):
    /// a test waits for what the child did, not for time to pass.
    func firstLine() async -> String? {
        guard let reading = output?.fileHandleForReading else { return nil }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var bytes: [UInt8] = []
                while !bytes.contains(0x0A) {
                    let data = reading.availableData
                    if data.isEmpty { break }
                    bytes += data
                }
                let line = bytes.firstIndex(of: 0x0A).map { Array(bytes[..<$0]) }
                continuation.resume(returning: line.map { String(decoding: $0, as: UTF8.self) })
            }
        }
    }

    var standardError: String {
        (try? String(contentsOf: standardErrorURL, encoding: .utf8)) ?? ""
    }

    static func stressToolURL() throws -> URL { try BuiltProduct.url(named: "tc-stress") }
}
