import Testing
@testable import ObjectStore

/// The one check every path a folder store reads or writes passes (``LocalStorage/isStorePath(_:)``).
@Suite struct LocalStoragePathTests {
    @Test func namesTweetCacheWritesPassAndNothingThatCouldLeaveTheStoreDoes() {
        for good in ["blobs/sha256/ab/ab01", "manifests/20261205T000000Z.json", "leases/.partial-1a.json", "a", "x/.../y"] {
            #expect(LocalStorage.isStorePath(good), "\(good)")
        }
        for bad in ["", "/etc/passwd", "a//b", "a/", "./a", "a/./b", "a/../b", "..", "blobs/.tc-tmp-1", "a b", "ä",
                    String(repeating: "a", count: 1025)] {
            #expect(!LocalStorage.isStorePath(bad), "\(bad)")
        }
    }
}
