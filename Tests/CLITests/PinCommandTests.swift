import BlobStore
import Foundation
import Testing
import TestSupport

/// `tweetcache pin`/`unpin` and `gc --max-size`: a pinned collection's media stay
/// whatever the budget; unpinned, they may go.
@Suite struct PinCommandTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    @Test func aPinnedCollectionOutlivesTheBudgetUntilUnpinned() async throws {
        let server = try makeServer()
        let (dir, page) = try scratchWithPage("tc-pin")
        let cache = dir.appendingPathComponent("c").path
        let fetched = try await CommandRunner.run(
            bin, ["fetch", page.path, "--cache", cache, "--quiet", "--mirror", "pbs.twimg.com=\(server.baseURL)"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let aaa = URL(fileURLWithPath: cache).appendingPathComponent(CacheLayout.blob(BlobHash(hashing: jpegBytes(20_000, 1)))).path

        let listed = try await CommandRunner.run(bin, ["pin", "--cache", cache, "--color", "never"])
        #expect(listed.stdout == "no collection is pinned\n")
        let pinned = try await CommandRunner.run(bin, ["pin", "#ucd", "--cache", cache, "--json"])
        #expect(pinned.status == 0 && pinned.stdout.contains("#ucd"), "\(pinned.stdout) \(pinned.stderr)")

        let gc = try await CommandRunner.run(bin, ["gc", "--json", "--grace", "0", "--max-size", "1KB", "--cache", cache])
        #expect(gc.status == 0, "\(gc.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(gc.stdout.utf8)) as? [String: Any])
        #expect(report["pins"] as? [String] == ["#ucd"])
        #expect((report["pinned_blobs"] as? Int ?? 0) >= 3, "two photos and the avatar")
        #expect(report["pinned_over_budget"] as? Bool == true)
        #expect((report["removed"] as? [Any])?.isEmpty == true)
        #expect(FileManager.default.fileExists(atPath: aaa))
        let text = try await CommandRunner.run(bin, ["gc", "--dry-run", "--grace", "0", "--max-size", "1KB", "--cache", cache])
        #expect(text.stdout.contains("pinned: #ucd") && text.stdout.contains("more than --max-size"), "\(text.stdout)")

        let unpinned = try await CommandRunner.run(bin, ["unpin", "#ucd", "--cache", cache])
        #expect(unpinned.status == 0, "\(unpinned.stderr)")
        let again = try await CommandRunner.run(bin, ["gc", "--json", "--grace", "0", "--max-size", "1KB", "--cache", cache])
        #expect(!FileManager.default.fileExists(atPath: aaa), "\(again.stdout)")
        let notPinned = try await CommandRunner.run(bin, ["unpin", "#ucd", "--cache", cache])
        #expect(notPinned.status == 1 && notPinned.stderr.contains("was not pinned"))
    }
}
