import BlobStore
import Foundation
import Testing
import TestSupport
@testable import Catalog
@testable import Pipeline

/// What `sync` records of a bucket's runs: each URL once, the first run's word for it,
/// never over what this machine's index already says.
@Suite struct BucketURLRecorderTests {
    static func object(_ url: String, _ hash: BlobHash, bytes: Int = 10) -> FetchedObjects.Object {
        FetchedObjects.Object(url: url, sha256: hash.hex, bytes: bytes, contentType: "image/jpeg", width: 4, height: 3,
                              thumbnails: nil, video: nil)
    }

    static func post(avatar: FetchedObjects.Object?, media: [FetchedObjects.Object]) -> FetchedObjects {
        FetchedObjects(author: FetchedObjects.Author(avatar: avatar), media: media)
    }

    @Test func eachURLIsRecordedOnceAndTheIndexsOwnWordStands() throws {
        let scratch = try ScratchDirectory.make("tc-url-recorder")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let layout = CacheLayout(root: scratch)
        try FileManager.default.createDirectory(at: layout.manifestsURL, withIntermediateDirectories: true)
        let index = try CacheIndex(path: layout.indexURL)
        let (a, b, c, mine, theirs) = (BlobHash(hashing: [1]), BlobHash(hashing: [2]), BlobHash(hashing: [3]),
                                       BlobHash(hashing: [4]), BlobHash(hashing: [5]))
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        try index.record([URLRecord(url: "https://x/mine.jpg", hash: mine, size: 1, contentType: nil, httpStatus: 200,
                                    fetchedAt: date, lastAccess: date)])
        let recorder = BucketURLRecorder(index: index, layout: layout)
        let header = ManifestFile.Header(version: Manifest.currentVersion, generatedAt: date, sources: [])
        // A marker whose run never arrived (a sync stopped before the rename) goes.
        try recorder.owe("one.json")
        #expect(recorder.owed().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: recorder.marker("one.json").path))
        try recorder.owe("one.json")
        #expect(FileManager.default.createFile(atPath: layout.manifestsURL.appendingPathComponent("one.json").path, contents: Data()))
        #expect(recorder.owed() == ["one.json"])

        // The avatar in every post, a photo in two runs, the index's own URL with other bytes.
        recorder.read([Self.post(avatar: Self.object("https://x/eve.jpg", a), media: [Self.object("https://x/p1.jpg", b)]),
                       Self.post(avatar: Self.object("https://x/eve.jpg", a), media: [Self.object("https://x/mine.jpg", theirs)])],
                      ofRun: "one.json", header: header)
        recorder.finished(run: "one.json")
        #expect(recorder.owed().isEmpty)
        recorder.read([Self.post(avatar: Self.object("https://x/eve.jpg", a), media: [Self.object("https://x/p1.jpg", b),
                                                                                      Self.object("https://x/p2.jpg", c)])],
                      ofRun: "two.json", header: header)
        recorder.finished(run: "two.json")

        #expect(recorder.recorded == 3)
        #expect(try index.lookup(url: "https://x/eve.jpg")?.hash == a)
        #expect(try index.lookup(url: "https://x/p1.jpg")?.hash == b)
        #expect(try index.lookup(url: "https://x/p2.jpg")?.hash == c)
        #expect(try index.lookup(url: "https://x/mine.jpg")?.hash == mine)
        #expect(try index.blob(c)?.size == 10)
    }
}
