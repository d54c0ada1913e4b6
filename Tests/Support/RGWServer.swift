import Foundation
import Synchronization

/// A real S3 server for tests: Ceph's RADOS Gateway, started by `scripts/rgw.sh`
/// on 127.0.0.1 the first time a test asks for it, shared by every test of the
/// process (each test uses its own bucket), and stopped when the process exits.
///
/// The script's output goes to files, not pipes: the daemons it leaves running
/// must not hold a descriptor the test process waits on.
public struct RGWServer: Sendable {
    /// `AWS_ENDPOINT_URL`, the credentials and the region, as the script printed them.
    public let environment: [String: String]
    /// The folder the gateway lives in.
    public let directory: URL

    public var endpoint: String { environment["AWS_ENDPOINT_URL"] ?? "" }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Started once, on first use; a static's initializer runs once, whichever task asks first.
    private static let sharedStart = Task { () throws -> RGWServer in
        let server = try await start()
        stopAtExit.withLock { $0.append(server.directory.path) }
        atexit {
            for path in RGWServer.stopAtExit.withLock({ $0 }) { RGWServer.stopNow(path) }
        }
        return server
    }

    private static let stopAtExit = Mutex<[String]>([])

    /// The process's gateway, started on first use (about 3 s).
    public static func running() async throws -> RGWServer { try await sharedStart.value }

    /// A gateway of the caller's own, for a test that stops it (``stop()``).
    public static func startOwn() async throws -> RGWServer {
        let server = try await start()
        stopAtExit.withLock { $0.append(server.directory.path) }
        return server
    }

    /// Stops the gateway and removes its folder.
    public func stop() async {
        _ = try? await CommandRunner.run(URL(fileURLWithPath: "/bin/bash"), [Self.script.path, "stop", directory.path])
    }

    /// The repository's root, found from this file's path.
    public static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var script: URL { repositoryRoot.appendingPathComponent("scripts/rgw.sh") }

    private static func start() async throws -> RGWServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tc-rgw-\(getpid())-\(UUID().uuidString.prefix(8))")
        let output = try await CommandRunner.run(URL(fileURLWithPath: "/bin/bash"), [script.path, "start", directory.path])
        guard output.status == 0 else {
            throw Failure(description: "scripts/rgw.sh start failed (\(output.status)): \(output.stderr)"
                + " — it needs `apt-get install ceph ceph-mon ceph-osd radosgw` (scripts/test.sh installs them)")
        }
        let text = try String(contentsOf: directory.appendingPathComponent("env"), encoding: .utf8)
        var environment: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return RGWServer(environment: environment, directory: directory)
    }

    private static func stopNow(_ path: String) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let stop = Process()
        stop.executableURL = URL(fileURLWithPath: "/bin/bash")
        stop.arguments = [script.path, "stop", path]
        stop.standardOutput = FileHandle.nullDevice
        stop.standardError = FileHandle.nullDevice
        try? stop.run()
        stop.waitUntilExit()
    }

    /// A new S3 user of this gateway (no buckets of its own): its key and secret as
    /// `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`.
    public func addUser(_ uid: String) async throws -> [String: String] {
        let output = try await CommandRunner.run(URL(fileURLWithPath: "/bin/bash"), [Self.script.path, "user", directory.path, uid])
        guard output.status == 0 else { throw Failure(description: "rgw.sh user failed: \(output.stderr)") }
        var keys: [String: String] = [:]
        for line in output.stdout.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            keys[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return keys
    }

    /// A bucket name no other test uses.
    public static func bucketName(_ hint: String) -> String {
        let clean = hint.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(30)
        return "tc-\(clean)-\(UUID().uuidString.prefix(8).lowercased())"
    }
}
