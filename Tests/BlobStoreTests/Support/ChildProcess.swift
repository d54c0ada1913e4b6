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

    init(arguments: [String], logDirectory: URL, label: String) throws {
        process.executableURL = try Self.stressToolURL()
        process.arguments = arguments
        standardErrorURL = logDirectory.appendingPathComponent("\(label).stderr")
        _ = FileManager.default.createFile(atPath: standardErrorURL.path, contents: nil)
        process.standardOutput = FileHandle.nullDevice
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

    var standardError: String {
        (try? String(contentsOf: standardErrorURL, encoding: .utf8)) ?? ""
    }

    static func stressToolURL() throws -> URL { try BuiltProduct.url(named: "tc-stress") }
}
