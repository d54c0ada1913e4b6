import BlobStore
import Foundation
import Testing

@Suite("CacheLayout")
struct CacheLayoutTests {
    static let hash = BlobHash(hashing: Array("a shared object".utf8))

    @Test func theLayoutsOwnNamesAreSharedObjects() {
        let h = Self.hash
        #expect(CacheLayout.isSharedObject(CacheLayout.blob(h)))
        #expect(CacheLayout.isSharedObject(CacheLayout.pack(h)))
        #expect(CacheLayout.isSharedObject(CacheLayout.thumbnail(h, size: 150, png: false)))
        #expect(CacheLayout.isSharedObject(CacheLayout.thumbnail(h, size: 1, png: true)))
        #expect(CacheLayout.isSharedObject(CacheLayout.thumbnail(h, size: 4096, png: false)))
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
        #expect(!CacheLayout.isSharedObject(path), "\(path)")
    }

    @Test func theShardIsTheHashsOwn() {
        let h = Self.hash
        let other = h.shard == "00" ? "01" : "00"
        #expect(!CacheLayout.isSharedObject("blobs/sha256/\(other)/\(h.hex)"))
        #expect(!CacheLayout.isSharedObject("derived/\(other)/\(h.hex).pack"))
    }
}
