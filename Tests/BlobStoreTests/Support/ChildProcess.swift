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

    init(arguments: [String], logDirectory: URL, label: String) throws {
        process.executableURL = try Self.stressToolURL()
        process.arguments = arguments
        standardErrorURL = logDirectory.appendingPathComponent("\(label).stderr")
        _ = FileManager.default.createFile(atPath: standardErrorURL.path, contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: standardErrorURL)
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    func kill() {
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits without blocking a cooperative thread for long.
    func waitForExit() async throws -> (status: Int32, reason: Process.TerminationReason) {
        while process.isRunning {
            try await Task.sleep(for: .milliseconds(5))
        }
        return (process.terminationStatus, process.terminationReason)
    }

    var standardError: String {
        (try? String(contentsOf: standardErrorURL, encoding: .utf8)) ?? ""
    }

    static func stressToolURL() throws -> URL { try BuiltProduct.url(named: "tc-stress") }
}
