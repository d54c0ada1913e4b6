import Foundation
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

    /// Finds the `tc-stress` binary SwiftPM built next to the test bundle.
    ///
    /// Under `swift test` on Linux the tests run inside
    /// `.build/<triple>/debug/<Package>PackageTests.xctest`, an executable
    /// whose directory also holds the package's executables; `/proc/self/exe`
    /// and `Bundle.main` name it. `TC_STRESS` overrides for other runners.
    static func stressToolURL() throws -> URL {
        var directories: [URL] = []
        if let override = ProcessInfo.processInfo.environment["TC_STRESS"] {
            return URL(fileURLWithPath: override)
        }
        directories.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent())
        if let first = CommandLine.arguments.first {
            directories.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        if let executable = Bundle.main.executableURL {
            directories.append(executable.deletingLastPathComponent())
        }
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for directory in directories {
            let candidate = directory.appendingPathComponent("tc-stress")
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        throw LocateError(searched: directories.map(\.path))
    }

    struct LocateError: Error, CustomStringConvertible {
        let searched: [String]
        var description: String {
            "tc-stress was not found next to the test bundle (searched \(searched.joined(separator: ", "))); "
                + "build it with `swift build --product tc-stress` or set TC_STRESS"
        }
    }
}
