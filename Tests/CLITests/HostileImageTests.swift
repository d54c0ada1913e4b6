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

    /// The largest resident size of any child this process has waited for, in KB.
    static func childrenPeakKB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return usage.ru_maxrss
    }

    @Test func pngChunksClaimingAGigabyteCostNothingLikeIt() async throws {
        let dir = try ScratchDirectory.make("tc-hostile-png")
        var inputs: [String] = []
        for chunk in ["tEXt", "zTXt", "iTXt", "pCAL", "sCAL", "sPLT", "iCCP", "eXIf"] {
            let url = dir.appendingPathComponent("huge_\(chunk).png")
            try Data(Self.claiming(chunk)).write(to: url)
            inputs.append(url.path)
        }
        let before = Self.childrenPeakKB()
        let run = try await CommandRunner.run(bin, ["thumb"] + inputs + ["--out", dir.appendingPathComponent("out").path, "--jobs", "4"])
        let after = Self.childrenPeakKB()
        // Each file is refused for what it is (the data ends inside the chunk), one line each.
        #expect(run.status != 0)
        for input in inputs { #expect(run.stderr.contains(URL(fileURLWithPath: input).lastPathComponent), "\(run.stderr)") }
        // This child's peak is the new maximum only when it beat every earlier child's.
        #expect(after <= max(before, 300 * 1024), "thumb peaked at \(after / 1024) MB over 8 files of 41 bytes")
    }
}
