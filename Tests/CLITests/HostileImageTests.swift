import Foundation
import Imaging
import Testing
import TestSupport

/// Images made to cost memory: a few bytes that claim a huge chunk must cost the
/// decoder nothing like the claim (libpng 1.6.39 allocates what a text chunk claims).
@Suite struct HostileImageTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    /// A PNG of `width` x 1 pixels whose next chunk claims 1 GB and brings no bytes of it.
    static func claiming(_ chunk: String, width: UInt32 = 1) -> [UInt8] {
        func be(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        let header: [UInt8] = Array("IHDR".utf8) + be(width) + be(1) + [8, 0, 0, 0, 0]
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

    /// Runs the binary with `arguments` under GNU time, which forks (a real fork) and
    /// reports its child's own peak resident size. Spawning the binary directly would
    /// not do: posix_spawn's vfork shares this process's memory until exec, and Linux
    /// carries that shared memory's peak into the child's `ru_maxrss`, so the figure
    /// would be this whole test process's peak. Gives the exit status, peak RSS in KB
    /// and standard error.
    func runMeasured(_ arguments: [String], in dir: URL) throws -> (status: Int32, peakKB: Int, stderr: String) {
        let timeTool = URL(fileURLWithPath: "/usr/bin/time")
        let report = dir.appendingPathComponent("peak-kb")
        let stderrFile = dir.appendingPathComponent("stderr")
        CommandRunner.record(bin, arguments)
        let process = Process()
        process.executableURL = timeTool
        process.arguments = ["-f", "%M", "-o", report.path, bin.path] + arguments
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: stderrFile)
        try process.run()
        process.waitUntilExit()
        // GNU time writes "Command exited with non-zero status N" before the figure.
        let lines = try String(contentsOf: report, encoding: .utf8).split(separator: "\n")
        let peak = try #require(lines.last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }, "\(lines)")
        return (process.terminationStatus, peak, (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? "")
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
        let run = try await onOwnThread { try runMeasured(arguments, in: dir) }
        // Each file is refused for what it is (the data ends inside the chunk), one line each.
        #expect(run.status != 0)
        for input in inputs { #expect(run.stderr.contains(URL(fileURLWithPath: input).lastPathComponent), "\(run.stderr)") }
        // Before the chunks were skipped, each such file cost about 1 GB.
        #expect(run.peakKB < 200 * 1024, "thumb peaked at \(run.peakKB / 1024) MB over 8 files of 41 bytes")
    }

    /// A page of `count` v1.1 tweets, one photo each at https://pbs.twimg.com/media/H<i>.png.
    static func page(count: Int) -> String {
        let statuses = (0..<count).map { i in
            #"{"id_str":"\#(i + 1)","created_at":"Wed Oct 10 20:19:24 +0000 2018","full_text":"t\#(i)","#
                + #""extended_entities":{"media":[{"id_str":"\#(i + 1000)","type":"photo","media_url_https":"https://pbs.twimg.com/media/H\#(i).png"}]},"#
                + #""user":{"id_str":"9","screen_name":"eve","name":"Eve"}}"#
        }
        return #"{"statuses":["# + statuses.joined(separator: ",") + "]}"
    }

    /// 100 of those files (every chunk kind, each file its own bytes) in one `fetch`
    /// cost what 100 sound small PNGs cost, within 50 MB.
    @Test func aHundredOfThemInOneFetchCostWhatSoundImagesCost() async throws {
        let kinds = ["tEXt", "zTXt", "iTXt", "pCAL", "sCAL", "sPLT", "iCCP", "eXIf"]
        let hostile = (0..<100).map { Self.claiming(kinds[$0 % kinds.count], width: UInt32($0 + 1)) }
        let sound = try (0..<100).map { i -> [UInt8] in
            var bytes = [UInt8](repeating: 0, count: 64 * 64 * 3)
            for p in 0..<(64 * 64) { bytes[3 * p] = UInt8(truncatingIfNeeded: p &* 7 &+ i); bytes[3 * p + 1] = UInt8(i) }
            return try PNGEncoder.encode(PixelBuffer(width: 64, height: 64, channels: 3, bytes: bytes))
        }
        var peaks: [String: Int] = [:]
        for (name, bodies) in [("sound", sound), ("hostile", hostile)] {
            let server = try LoopbackHTTPServer { req in
                guard let i = Int(req.path.split(separator: "/").last?.dropFirst().prefix { $0.isNumber } ?? ""), i < bodies.count
                else { return .respond(status: 404) }
                return .respond(status: 200, body: bodies[i])
            }
            defer { server.stop() }
            let dir = try ScratchDirectory.make("tc-hostile-fetch-\(name)")
            let page = dir.appendingPathComponent("page.json")
            try Data(Self.page(count: 100).utf8).write(to: page)
            let run = try await onOwnThread {
                try runMeasured(["fetch", page.path, "--cache", dir.appendingPathComponent("c").path, "--json",
                                 "--mirror", "pbs.twimg.com=\(server.baseURL)"], in: dir)
            }
            #expect(run.status == 0, "\(name): \(run.stderr)")
            peaks[name] = run.peakKB
        }
        let soundPeak = try #require(peaks["sound"]), hostilePeak = try #require(peaks["hostile"])
        #expect(hostilePeak < soundPeak + 50 * 1024, "fetch peaked at \(hostilePeak / 1024) MB over hostile PNGs, \(soundPeak / 1024) MB over sound ones")
    }
}
