import Testing
import MediaTypes
@testable import Catalog

@Suite struct PDQJoinTests {
    /// The sets of slots `pairs` connects (union-find over what it reports).
    static func groups(_ count: Int, _ report: ((Int, Int) -> Void) -> Void) -> Set<Set<Int>> {
        var parent = Array(0..<count)
        func root(_ x: Int) -> Int {
            var x = x
            while parent[x] != x { x = parent[x] }
            return x
        }
        report { a, b in
            let ra = root(a), rb = root(b)
            if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
        }
        var sets: [Int: Set<Int>] = [:]
        for slot in 0..<count { sets[root(slot), default: []].insert(slot) }
        return Set(sets.values.filter { $0.count > 1 })
    }

    /// The same groups as joining every pair within the threshold found by comparing all
    /// pairs, with a dense cluster (a picture reposted many times) among random hashes.
    @Test func groupsAreThoseOfEveryPairWithinTheThreshold() {
        var maker = HashMaker(state: 11)
        var hashes = (0..<1_500).map { _ in maker.hash() }
        let viral = maker.hash()
        hashes += (0..<400).map { _ in maker.moved(viral, bits: Int(maker.next() % 14)) }
        for _ in 0..<60 {
            let base = hashes[Int(maker.next() % 1_500)]
            hashes.append(maker.moved(base, bits: Int(maker.next() % 40)))
        }
        let joined = Self.groups(hashes.count) { found in
            PDQJoin.pairs(originals: hashes, threshold: 31, variants: { _ in nil }, found: found)
        }
        let scanned = Self.groups(hashes.count) { found in
            for a in 0..<hashes.count {
                for b in (a + 1)..<hashes.count where hashes[a].distance(to: hashes[b]) <= 31 { found(a, b) }
            }
        }
        #expect(joined == scanned)
        #expect(joined.contains { $0.count >= 400 })
    }

    /// A turned copy is joined through the turned hashes: image 1's hash turned by a
    /// transform is near image 0's hash.
    @Test func turnedCopiesAreJoinedThroughTheirTurnedHashes() {
        var maker = HashMaker(state: 5)
        let originals = [maker.hash(), maker.hash(), maker.hash()]
        let turnedOfOne = maker.moved(originals[0], bits: 6)
        let joined = Self.groups(3) { found in
            PDQJoin.pairs(originals: originals, threshold: 31, variants: { transform in
                transform == .flipY ? [maker.hash(), turnedOfOne, maker.hash()] : nil
            }, found: found)
        }
        #expect(joined == [[0, 1]])
    }
}
