import Foundation

/// The manifest's published shape (docs/manifest.schema.json) checked by a kept
/// validator (Python's jsonschema, through scripts/check-manifest-schema.py), with
/// every object closed to keys the schema does not name: a field the writer adds
/// without documenting it fails the test that wrote it.
public enum ManifestSchema {
    /// The repository's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// What the validator says against `files` (empty when they conform). The wait for
    /// the validator runs on a thread of its own: blocked in `waitUntilExit` on the
    /// cooperative pool (two threads on a 2-core machine), two such tests at once left
    /// no thread for Foundation to reap the child, and every test waiting on a process
    /// hung (seen once in a full run).
    public static func problems(_ files: [URL]) async throws -> String {
        try await onOwnThread { try run(files) }
    }

    private static func run(_ files: [URL]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("scripts/check-manifest-schema.py").path] + files.map(\.path)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus != 0 && text.isEmpty { return "the schema check exited \(process.terminationStatus)" }
        return text
    }

    /// ``problems(_:)`` for bytes: written to a scratch file first.
    public static func problems(_ bytes: [UInt8]) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tc-schema-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(bytes).write(to: file)
        return try await problems([file])
    }
}
