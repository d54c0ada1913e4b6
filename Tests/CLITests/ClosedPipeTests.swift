import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A command whose reader went away (`tweetcache … | head -1`) finishes its work:
/// what it writes to the closed pipe is dropped, not a trap (SIGILL) or SIGPIPE.
@Suite struct ClosedPipeTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    /// Starts `arguments` with standard output and error on pipes, whose read ends
    /// the test closes when it likes.
    private func start(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, Pipe, Pipe) {
        CommandRunner.record(bin, arguments)
        let process = Process()
        process.executableURL = bin
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let (out, err) = (Pipe(), Pipe())
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out, err)
    }

    @Test func fetchWhoseReaderIsGoneFinishesItsRun() async throws {
        let server = try makeServer()
        let (dir, page) = try scratchWithPage("tc-closed-pipe")
        let cache = dir.appendingPathComponent("c")
        let (process, out, err) = try start(
            ["fetch", page.path, "--cache", cache.path, "--mirror", "pbs.twimg.com=\(server.baseURL)"],
            environment: ["TWEETCACHE_PROGRESS_MS": "1", "TWEETCACHE_LOG": "debug"])
        try out.fileHandleForReading.close()
        try err.fileHandleForReading.close()
        try await onOwnThread { process.waitUntilExit() }
        #expect(process.terminationReason == .exit && process.terminationStatus == 0,
                "status \(process.terminationStatus), reason \(process.terminationReason.rawValue)")
        let manifests = try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("manifests").path)
        #expect(manifests.contains { $0.hasSuffix(".json.zst") && !$0.hasPrefix(".") }, "the run finished: \(manifests)")
    }

    @Test func serveWhoseLogReaderIsGoneStopsCleanly() async throws {
        let dir = try ScratchDirectory.make("tc-closed-pipe-serve")
        let (process, out, err) = try start(["serve", "--cache", dir.path, "--port", "0"], environment: ["TWEETCACHE_LOG": "debug"])
        // The first line says where it listens; then nobody reads any more.
        let reader = out.fileHandleForReading
        let text = try await onOwnThread {
            var text = ""
            while !text.contains("\n"), let chunk = try reader.read(upToCount: 1), !chunk.isEmpty {
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
        #expect(text.hasPrefix("listening "), "\(text)")
        try out.fileHandleForReading.close()
        try err.fileHandleForReading.close()
        let port = try #require(text.split(separator: ":").last.flatMap { Int($0.prefix(while: \.isNumber)) })
        // Requests still answered, and their log lines go nowhere.
        #expect(try await RawHTTPClient.sendAwaiting("GET", "/healthz", port: port).status == 200)
        #expect(try await RawHTTPClient.sendAwaiting("GET", "/thumb/\(String(repeating: "a", count: 64))/150", port: port).status == 404)
        // Stopping writes to the closed pipe too.
        kill(process.processIdentifier, SIGTERM)
        try await onOwnThread { process.waitUntilExit() }
        #expect(process.terminationReason == .exit && process.terminationStatus == 0,
                "status \(process.terminationStatus), reason \(process.terminationReason.rawValue)")
    }
}
