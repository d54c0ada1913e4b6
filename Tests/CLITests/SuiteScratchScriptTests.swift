import Foundation
import Testing
import TestSupport

/// `scripts/suite-tmpdir.sh`, which `scripts/test.sh` asks where the suite's scratch
/// folders go (README: `TWEETCACHE_TEST_TMPDIR`, the folder in `/dev/shm`). The memory
/// it reads is a file each test writes, so every branch runs on any machine.
@Suite struct SuiteScratchScriptTests {
    /// The script's one line, run with `settings` (`NAME=value`), none of this run's own
    /// TMPDIR (scripts/test.sh sets one for the suite), `shm` for `/dev/shm` and
    /// `available` kB of memory.
    func ask(_ settings: [String], shm: String = "/dev/shm", available: Int) async throws -> String {
        let scratch = try ScratchDirectory.make("tc-suite-tmpdir")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let meminfo = scratch.appendingPathComponent("meminfo")
        try "MemTotal:       99999999 kB\nMemAvailable:   \(available) kB\n".write(to: meminfo, atomically: true, encoding: .utf8)
        let script = RGWServer.repositoryRoot.appendingPathComponent("scripts/suite-tmpdir.sh")
        let output = try await CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["-u", "TMPDIR", "-u", "TWEETCACHE_TEST_TMPDIR"] + settings + ["bash", script.path, shm, meminfo.path],
            timeLimit: .seconds(60))
        #expect(output.status == 0, "\(output.stderr)")
        let answer = output.stdout.trimmingCharacters(in: .newlines)
        // A folder it says it made is there; whatever a test expects, it is not left behind.
        if answer.hasPrefix("made ") {
            let folder = String(answer.dropFirst("made ".count))
            var isFolder: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue)
            try? FileManager.default.removeItem(atPath: folder)
        }
        return answer
    }

    static let plenty = 64 << 20

    @Test func aNamedFolderComesFirst() async throws {
        #expect(try await ask(["TWEETCACHE_TEST_TMPDIR=/tmp/a folder", "TMPDIR=/elsewhere"], available: Self.plenty)
            == "given /tmp/a folder")
    }

    @Test func thenTheCallersTMPDIR() async throws {
        #expect(try await ask(["TMPDIR=/elsewhere"], available: Self.plenty) == "")
    }

    @Test func notWithoutFourGiBOfMemoryAvailable() async throws {
        #expect(try await ask([], available: (4 << 20) - 1) == "")
    }

    @Test func notWhereTheFolderIsNoTmpfs() async throws {
        #expect(try await ask([], shm: "/sys", available: Self.plenty) == "")
    }

    /// This machine's /dev/shm, when it is a tmpfs with room (3 GiB free, past the script's 2
    /// while the suite writes there too): a new folder in it.
    @Test(.enabled(if: Self.sharedMemoryHasRoom)) func otherwiseANewFolderInSharedMemory() async throws {
        #expect(try await ask([], available: Self.plenty).hasPrefix("made /dev/shm/tc-tests."))
    }

    /// Read as the script reads it (`stat -f`, `df`), not again in Swift.
    static var sharedMemoryHasRoom: Bool {
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/bin/bash")
        check.arguments = ["-c", #"[ "$(stat -f -c %T /dev/shm)" = tmpfs ] && [ "$(df -P -k /dev/shm | awk 'NR == 2 { print $4 }')" -ge $((3 << 20)) ]"#]
        guard (try? check.run()) != nil else { return false }
        check.waitUntilExit()
        return check.terminationStatus == 0
    }
}
