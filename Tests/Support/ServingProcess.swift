import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A `tweetcache` that keeps running (`serve`, `demo --keep-serving`): started with
/// its output in files, its address read from the `listening URL` line it prints,
/// stopped with SIGTERM.
public final class ServingProcess: @unchecked Sendable {
    public let process = Process()
    public let output: URL
    public let errors: URL

    public static func start(_ bin: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> ServingProcess {
        try ServingProcess(bin, arguments, environment: environment)
    }

    private init(_ bin: URL, _ arguments: [String], environment: [String: String]) throws {
        let dir = try ScratchDirectory.make("tc-serving")
        output = dir.appendingPathComponent("out")
        errors = dir.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        CommandRunner.record(bin, arguments)
        process.executableURL = bin
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// The port it listens on, once it says so; fails if it exits first, or has not
    /// said so after 1,200 looks at its output (the demo renders its sample first).
    public func port() async throws -> Int {
        for _ in 0..<1200 {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening ") }),
               let port = line.split(separator: ":").last.flatMap({ Int($0.prefix(while: \.isNumber)) }) {
                return port
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let errorText = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        throw ServingError(description: "no `listening` line; stderr: \(errorText)")
    }

    /// Its standard error once a line starting with `prefix` is there; fails if it
    /// exits first, or has not written it after 1,200 looks.
    public func errors(untilLine prefix: String) async throws -> String {
        for _ in 0..<1200 {
            let text = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            if text.split(separator: "\n").contains(where: { $0.hasPrefix(prefix) }) { return text }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let errorText = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        throw ServingError(description: "no `\(prefix)` line; stderr: \(errorText)")
    }

    /// Sends SIGTERM and waits (on a thread of its own, not the tests' pool): its exit
    /// status (0 for a clean stop).
    @discardableResult public func stop() async throws -> Int32 {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGTERM) }
        let process = self.process
        return try await onOwnThread {
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// Sends SIGTERM, for a `defer` that must not wait.
    public func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGTERM) }
    }

    public struct ServingError: Error, CustomStringConvertible { public var description: String }
}

/// One demo cache for the tests that only read it (`serve`, the readers), made once per
/// test process: the demo renders 150 megapixels, and every run of it is CPU the
/// suite's timing-sensitive tests share.
public enum SharedDemoCache {
    private static let made = Mutex<Task<URL, any Error>?>(nil)

    public static func url(_ bin: URL) async throws -> URL {
        let task = made.withLock { task in
            if let task { return task }
            let started = Task<URL, any Error> {
                let cache = try ScratchDirectory.make("tc-shared-demo").appendingPathComponent("cache")
                let out = try await CommandRunner.run(bin, ["demo", "--cache", cache.path, "--quiet", "--json"])
                guard out.status == 0 else { throw ServingProcess.ServingError(description: "demo failed: \(out.stderr)") }
                return cache
            }
            task = started
            return started
        }
        return try await task.value
    }
}
