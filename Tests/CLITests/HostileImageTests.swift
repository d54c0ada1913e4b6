import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Images made to cost memory: a few bytes that claim a huge chunk must cost the
/// decoder nothing like the claim (libpng 1.6.39 allocates what a text chunk claims).
@Suite struct HostileImageTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    /// A PNG of one pixel whose next chunk claims 1 GB and brings no bytes of it.
    static func claiming(_ chunk: String) -> [UInt8] {
        func be(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        let header: [UInt8] = Array("IHDR".utf8) + be(1) + be(1) + [8, 0, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be(13) + header + be(crc32(header))
            + be(0x3FFF_FFFF) + Array(chunk.utf8)
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// Runs the binary with `arguments` as a child of this process alone (posix_spawn,
    /// then wait4 on its pid), so its own peak resident size is known, whatever other
    /// tests run beside it: its exit status, peak RSS in KB and standard error.
    func runMeasured(_ arguments: [String], stderrFile: URL) throws -> (status: Int32, peakKB: Int, stderr: String) {
        CommandRunner.record(bin, arguments)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderrFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([bin.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, bin.path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw CocoaError(.executableLoad) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exit, usage.ru_maxrss, (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? "")
    }

    @Test func pngChunksClaimingAGigabyteCostNothingLikeIt() async throws {
        let dir = try ScratchDirectory.make("tc-hostile-png")
        var inputs: [String] = []
        for chunk in ["tEXt", "zTXt", "iTXt", "pCAL", "sCAL", "sPLT", "iCCP", "eXIf"] {
            let url = dir.appendingPathComponent("huge_\(chunk).png")
            try Data(Self.claiming(chunk)).write(to: url)
            inputs.append(url.path)
        }
        let arguments = ["thumb"] + inputs + ["--out", dir.appendingPathComponent("out").path, "--jobs", "4"]
        let run = try await onOwnThread { try runMeasured(arguments, stderrFile: dir.appendingPathComponent("stderr")) }
        // Each file is refused for what it is (the data ends inside the chunk), one line each.
        #expect(run.status != 0)
        for input in inputs { #expect(run.stderr.contains(URL(fileURLWithPath: input).lastPathComponent), "\(run.stderr)") }
        // Before the chunks were skipped, each such file cost about 1 GB.
        #expect(run.peakKB < 200 * 1024, "thumb peaked at \(run.peakKB / 1024) MB over 8 files of 41 bytes")
    }
}
