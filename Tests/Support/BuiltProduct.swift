import Foundation

/// Finds an executable SwiftPM built next to the test bundle, for tests that run the
/// real binary as a process.
///
/// Under `swift test` on Linux the tests run inside
/// `.build/<triple>/debug/<Package>PackageTests.xctest`, whose directory also holds
/// the package's executables; `/proc/self/exe` and `Bundle.main` name it. An
/// environment variable named after the product (`TWEETCACHE_BIN`, `TC_STRESS_BIN`)
/// overrides, for other runners.
public enum BuiltProduct {
    public static func url(named name: String) throws -> URL {
        let variable = name.uppercased().replacingOccurrences(of: "-", with: "_") + "_BIN"
        if let override = ProcessInfo.processInfo.environment[variable] {
            return URL(fileURLWithPath: override)
        }
        var directories = [URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()]
        if let first = CommandLine.arguments.first {
            directories.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        if let executable = Bundle.main.executableURL { directories.append(executable.deletingLastPathComponent()) }
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for directory in directories {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw NotFound(name: name, variable: variable, searched: directories.map(\.path))
    }

    public struct NotFound: Error, CustomStringConvertible {
        public let name: String
        public let variable: String
        public let searched: [String]
        public var description: String {
            "\(name) was not found next to the test bundle (searched \(searched.joined(separator: ", "))); "
                + "build it with `swift build --product \(name)` or set \(variable)"
        }
    }
}

/// The outcome of running a command to completion.
public struct CommandOutput: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs an executable with arguments and optional standard input, capturing its output.
public enum CommandRunner {
    /// Notes the arguments of a run of `tweetcache` in the file `TWEETCACHE_OPTION_LOG`
    /// names, one JSON array a line, when it names one: `scripts/test.sh` then checks
    /// that every option README documents was run (OptionCoverageTests). Tests that
    /// start the binary themselves call this too.
    public static func record(_ executable: URL, _ arguments: [String]) {
        guard executable.lastPathComponent == "tweetcache",
              let log = ProcessInfo.processInfo.environment["TWEETCACHE_OPTION_LOG"], !log.isEmpty,
              var line = try? JSONSerialization.data(withJSONObject: arguments)
        else { return }
        line.append(0x0A)
        // One write of one line with O_APPEND: lines from tests running at once do not mix.
        let fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// `timeLimit`: past it the child and its process group get SIGTERM, and SIGKILL 5 s
    /// later (a hung child then fails its test instead of hanging the suite). The limit
    /// is kept on a thread of its own: the suite's tests may hold every shared thread.
    public static func run(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil,
        environment: [String: String] = [:], currentDirectory: URL? = nil, timeLimit: Duration? = nil
    ) async throws -> CommandOutput {
        record(executable, arguments)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, new in new }
        process.environment = env
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        // Files rather than pipes: a chatty child cannot fill a pipe and deadlock.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cmd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out"), err = dir.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        if let stdin {
            let input = dir.appendingPathComponent("in")
            try stdin.write(to: input)
            process.standardInput = try FileHandle(forReadingFrom: input)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        // Told when the child exits (set before it starts, so the exit cannot be missed).
        let (exited, exit) = AsyncStream<Void>.makeStream()
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in
            ended.signal()
            exit.yield()
            exit.finish()
        }
        try process.run()
        if let timeLimit {
            let pid = process.processIdentifier
            let milliseconds = Int(timeLimit / .milliseconds(1))
            Thread.detachNewThread {
                guard ended.wait(timeout: .now() + .milliseconds(milliseconds)) == .timedOut else { return }
                kill(-pid, SIGTERM)
                kill(pid, SIGTERM)
                guard ended.wait(timeout: .now() + 5) == .timedOut else { return }
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
            }
        }
        for await _ in exited {}
        process.waitUntilExit()
        return CommandOutput(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}
