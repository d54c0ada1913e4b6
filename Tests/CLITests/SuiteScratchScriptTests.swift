import Foundation
import Testing
import TestSupport

/// `scripts/suite-tmpdir.sh`, which `scripts/test.sh` asks where the suite's scratch
/// folders go (README: `TWEETCACHE_TEST_TMPDIR`, the folder in `/dev/shm`).
@Suite struct SuiteScratchScriptTests {
    /// The script's one line, run with `settings` (`NAME=value`) and neither variable
    /// of this run's own (scripts/test.sh sets TMPDIR for the suite).
    func ask(_ settings: [String]) async throws -> String {
        let script = RGWServer.repositoryRoot.appendingPathComponent("scripts/suite-tmpdir.sh")
        let output = try await CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["-u", "TMPDIR", "-u", "TWEETCACHE_TEST_TMPDIR"] + settings + ["bash", script.path], timeLimit: .seconds(60))
        #expect(output.status == 0, "\(output.stderr)")
        return output.stdout.trimmingCharacters(in: .newlines)
    }

    @Test func aNamedFolderIsTakenAsItIsAndKept() async throws {
        #expect(try await ask(["TWEETCACHE_TEST_TMPDIR=/tmp/a folder", "TMPDIR=/elsewhere"]) == "given /tmp/a folder")
    }

    @Test func theCallersTMPDIRIsLeftAlone() async throws {
        #expect(try await ask(["TMPDIR=/elsewhere"]) == "")
    }

    @Test func otherwiseAFolderInMemoryWhenThereIsRoom() async throws {
        let answer = try await ask([])
        guard Self.memoryHasRoom() else {
            #expect(answer == "")
            return
        }
        let prefix = "made /dev/shm/tc-tests."
        #expect(answer.hasPrefix(prefix))
        let folder = String(answer.dropFirst("made ".count))
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue)
        if answer.hasPrefix(prefix) { try FileManager.default.removeItem(atPath: folder) }
    }

    /// The script's rule, read here on its own: /dev/shm a tmpfs with 2 GiB free, and 4 GiB
    /// of memory available.
    static func memoryHasRoom() -> Bool {
        let mounts = (try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? ""
        guard mounts.split(separator: "\n").contains(where: { Array($0.split(separator: " ").dropFirst().prefix(2)) == ["/dev/shm", "tmpfs"] }),
              let free = (try? FileManager.default.attributesOfFileSystem(forPath: "/dev/shm"))?[.systemFreeSize] as? NSNumber
        else { return false }
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let available = meminfo.split(separator: "\n").first { $0.hasPrefix("MemAvailable:") }
            .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { UInt64($0) } ?? 0
        return free.uint64Value >= 2 << 30 && available >= 4 << 20
    }
}
