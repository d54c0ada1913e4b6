import Catalog
import Foundation

/// Every regular file under `root` whose bytes hold `text`, by path relative to
/// `root`, sorted: what the tests of deletion and of secrets search a cache with
/// (SQLite's files and logs included, read as bytes). A compressed manifest is
/// searched uncompressed as well (what `tweetcache manifest` shows a reader, through
/// what it names in earlier manifests) — and as it is,
/// for a stray file.
public func filesHolding(_ text: String, under root: URL) -> [String] {
    let needle = Data(text.utf8)
    var found: [String] = []
    let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
    while let url = walker?.nextObject() as? URL {
        guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
              let data = try? Data(contentsOf: url) else { continue }
        let plain = SeekableZstd.isCompressed(data.prefix(4)) ? try? manifestJSON(url) : nil
        guard data.range(of: needle) != nil || plain?.range(of: needle) != nil else { continue }
        found.append(url.path.replacingOccurrences(of: root.path + "/", with: ""))
    }
    return found.sorted()
}
