import Demo
import Foundation
import Imaging
import Testing

/// `DemoAssets.render`'s shrink (`TWEETCACHE_DEMO_SHRINK`): photos smaller, the rest as
/// the sample states it, and never mixed up with the full-size files kept for later runs.
@Suite struct DemoAssetsTests {
    static let photo = SampleAsset(key: "photoKey", kind: .photo, width: 400, height: 300, seed: 2)
    static let repost = SampleAsset(key: "repostKey", kind: .photo, width: 200, height: 150, seed: 2, repostOf: [400, 300])
    static let avatar = SampleAsset(key: "avatarKey", kind: .avatar, width: 48, height: 48, seed: 5)

    func size(_ body: DemoBody?) throws -> [Int] {
        let image = try ImageDecoder.decode(try #require(body).bytes)
        return [image.width, image.height]
    }

    @Test func photosAreDrawnSmallerAndAvatarsAsTheyAre() throws {
        let full = try DemoAssets.render([Self.photo, Self.repost, Self.avatar])
        let small = try DemoAssets.render([Self.photo, Self.repost, Self.avatar], shrink: 4)
        #expect(try size(full["photoKey"]) == [400, 300])
        #expect(try size(small["photoKey"]) == [100, 75])
        #expect(try size(small["repostKey"]) == [50, 37])
        #expect(try size(small["avatarKey"]) == [48, 48])
        #expect(small["avatarKey"]?.bytes == full["avatarKey"]?.bytes)
    }

    @Test func keptFilesOfEachSizeStayApart() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tc-demo-assets-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let small = try DemoAssets.render([Self.photo], directory: dir, shrink: 4)
        let full = try DemoAssets.render([Self.photo], directory: dir)
        #expect(try size(full["photoKey"]) == [400, 300])
        #expect(try size(DemoAssets.render([Self.photo], directory: dir, shrink: 4)["photoKey"]) == [100, 75])
        #expect(small["photoKey"]?.bytes != full["photoKey"]?.bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).count == 2)
    }
}
