import BlobStore
import Foundation
import Testing

@Suite("CacheLayout")
struct CacheLayoutTests {
    static let hash = BlobHash(hashing: Array("a shared object".utf8))

    @Test func theLayoutsOwnNamesAreSharedObjects() {
        let h = Self.hash
        #expect((CacheKey(path: CacheLayout.blob(h))?.isShared == true))
        #expect((CacheKey(path: CacheLayout.pack(h))?.isShared == true))
        #expect((CacheKey(path: CacheLayout.thumbnail(h, size: 150, png: false))?.isShared == true))
        #expect((CacheKey(path: CacheLayout.thumbnail(h, size: 1, png: true))?.isShared == true))
        #expect((CacheKey(path: CacheLayout.thumbnail(h, size: 4096, png: false))?.isShared == true))
    }

    /// Every key renders to one path and that path parses back to the same key:
    /// one rendering, one parse.
    @Test func everyKeyParsesBackToItself() {
        let h = Self.hash
        let keys: [CacheKey] = [
            .original(h), .pack(h), .thumbnail(h, size: 150, format: .jpeg), .thumbnail(h, size: 9999, format: .png),
            .legacyFolder(h), .manifest("20261205T150000Z.json"), .partialManifest(".partial-9f3a.json"),
            .lease(".partial-9f3a.json"), .quarantined(h), .index,
        ]
        for key in keys {
            #expect(CacheKey(path: key.path) == key, "\(key.path)")
        }
        #expect(Set(keys.map(\.kind)) == Set(CacheKey.Kind.allCases))
        #expect(keys.filter(\.isShared).count == 4)
        #expect(CacheKey(path: "leases/.write-check-1.json") == nil)
        #expect(CacheKey(path: "manifests/a b/c.json") == nil)
        #expect(CacheKey(path: "derived/\(h.shard)/\(h.hex).thumb-0150.jpg") == nil)
    }

    /// What a stranger's manifest might name instead: nothing but the exact names.
    @Test(arguments: [
        "",
        "index.sqlite",
        "manifests/run.json",
        "blobs/sha256/",
        "derived/",
        "blobs/sha256/{shard}/{hex}/",
        "blobs/sha256/{shard}/{hex}0",
        "blobs/sha256/{shard}/{HEX}",
        "blobs/sha256/zz/{hex}",
        "blobs/sha256//{hex}",
        "blobs/sha256/{shard}/../{hex}",
        "/blobs/sha256/{shard}/{hex}",
        "blobs/sha1/{shard}/{hex}",
        "derived/{shard}/{hex}",
        "derived/{shard}/{hex}.pack.tmp",
        "derived/{shard}/{hex}.pac",
        "derived/zz/{hex}.pack",
        "derived/{shard}/{HEX}.pack",
        "derived/{shard}/{hex}.thumb-.jpg",
        "derived/{shard}/{hex}.thumb-12345.jpg",
        "derived/{shard}/{hex}.thumb-+15.jpg",
        "derived/{shard}/{hex}.thumb-150.gif",
        "derived/{shard}/{hex}.thumb-150.jpg/x",
        "derived/{shard}/{hex}.thumb-150.jpgx",
        "derived/{shard}/{hex}.thumb-150",
        "derived/{shard}/{hex}.thumb-１50.jpg",
        "derived/{shard}/../{hex}.pack",
        "derived/{shard}/{hex}/../../index.sqlite",
        "objects/{shard}/{hex}",
    ])
    func anythingElseIsNot(_ template: String) {
        let h = Self.hash
        let path = template
            .replacingOccurrences(of: "{shard}", with: h.shard)
            .replacingOccurrences(of: "{hex}", with: h.hex)
            .replacingOccurrences(of: "{HEX}", with: h.hex.uppercased())
        #expect(!(CacheKey(path: path)?.isShared == true), "\(path)")
    }

    @Test func theShardIsTheHashsOwn() {
        let h = Self.hash
        let other = h.shard == "00" ? "01" : "00"
        #expect(CacheKey(path: "blobs/sha256/\(other)/\(h.hex)") == nil)
        #expect(CacheKey(path: "derived/\(other)/\(h.hex).pack") == nil)
    }
}
