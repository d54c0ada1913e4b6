import Testing
@testable import Pipeline

/// The run's set of posts must answer as an exact set does through every merge of its
/// recent ids into blocks, and every cut of a block grown too big.
@Suite struct KeySetTests {
    @Test func answersAsASetDoesThroughMergesAndCuts() {
        var generator = SplitMix(seed: 26)
        var ids = KeySet(mergeEvery: 64, blockSize: 8)
        var reference = Set<UInt64>()
        for round in 0..<20_000 {
            // Ids from a range small enough to repeat often, some far below and above
            // every block so far, and runs of consecutive ids (a page's).
            let key: UInt64
            switch round % 10 {
            case 0: key = generator.next() % 1_000
            case 1: key = UInt64.max / 2 + generator.next() % 1_000
            case 2: key = UInt64(round)
            default: key = 1 << 40 + generator.next() % 30_000
            }
            let inserted = ids.insert(key: key)
            #expect(inserted == reference.insert(key).inserted, "round \(round), id \(key)")
        }
        #expect(ids.count == reference.count)
        // Everything is found again once merged.
        let again = reference.sorted().prefix(5_000).filter { ids.insert(key: $0) }
        #expect(again.isEmpty)
    }

    @Test func numericIdsAreTheirValueAndOthersNeverMeetThem() {
        #expect(KeySet.key("1700000000000166402") == 1_700_000_000_000_166_402)
        #expect(KeySet.key("0") == 0)
        // Leading zeros, signs and URIs are hashed, with the top bit set.
        for id in ["007", "at://did:plc:abc/app.bsky.feed.post/3k", "18446744073709551615"] {
            #expect(KeySet.key(id) >= 1 << 63, "\(id)")
        }
        var ids = KeySet()
        let inserted = ["at://did:plc:abc/app.bsky.feed.post/3k", "at://did:plc:abc/app.bsky.feed.post/3k", "7", "007"].map {
            ids.insert(postID: $0)
        }
        #expect(inserted == [true, false, true, true])
    }

    /// A fixed sequence of 64-bit values (SplitMix64), so a failure repeats.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
