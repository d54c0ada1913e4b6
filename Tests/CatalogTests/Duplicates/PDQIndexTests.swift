import Foundation
import Testing
import MediaTypes
@testable import Catalog

/// Random hashes from a fixed seed, and copies of some moved a few bits.
struct HashMaker {
    var state: UInt64

    /// xorshift64* (the state must not be zero).
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    mutating func hash() -> PDQHash { PDQHash(words: (next(), next(), next(), next())) }

    /// `hash` with `bits` distinct bits flipped.
    mutating func moved(_ hash: PDQHash, bits: Int) -> PDQHash {
        var flipped = Set<Int>()
        while flipped.count < bits { flipped.insert(Int(next() % 256)) }
        var out = hash
        for k in flipped {
            var bit = PDQHash.zero
            bit.setBit(k)
            out = PDQHash(words: (out.words.0 ^ bit.words.0, out.words.1 ^ bit.words.1,
                                  out.words.2 ^ bit.words.2, out.words.3 ^ bit.words.3))
        }
        return out
    }
}

@Suite struct PDQIndexTests {
    /// The index finds exactly what comparing against every hash finds, at thresholds
    /// below, at and beyond one bit per piece (0, 15, 16, 31, 40) and in the scan regime (60).
    @Test(arguments: [0, 15, 16, 31, 40, 60])
    func findsWhatAScanFinds(threshold: Int) {
        var maker = HashMaker(state: 42)
        var hashes = (0..<3_000).map { _ in maker.hash() }
        let queries = (0..<40).map { _ in maker.hash() }
        // Plant copies at distances around the threshold.
        for (i, query) in queries.enumerated() {
            for d in [0, 1, threshold / 2, max(0, threshold - 1), threshold, threshold + 1, threshold + 5] {
                hashes.append(maker.moved(query, bits: d))
            }
            if i % 2 == 0 { hashes.append(query) }
        }
        let index = PDQIndex(hashes)
        for query in queries {
            let expected = hashes.enumerated().compactMap { slot, hash -> PDQIndex.Match? in
                let d = query.distance(to: hash)
                return d <= threshold ? PDQIndex.Match(slot: slot, distance: d) : nil
            }.sorted { ($0.distance, $0.slot) < ($1.distance, $1.slot) }
            #expect(index.search([query], threshold: threshold) == expected)
        }
    }

    @Test func anEmptyIndexFindsNothing() {
        #expect(PDQIndex([]).search([.zero], threshold: 31).isEmpty)
    }

    @Test func severalQueriesKeepEachHashAtItsNearest() {
        var maker = HashMaker(state: 7)
        let a = maker.hash()
        let index = PDQIndex([a])
        let far = maker.moved(a, bits: 20), near = maker.moved(a, bits: 3)
        #expect(index.search([far, near], threshold: 31) == [PDQIndex.Match(slot: 0, distance: 3, query: 1)])
    }
}

extension PDQIndexTests {
    /// Piece `c`'s bit `i` is row `i`'s column `(i + c) mod 16`, as ``PDQHash/pieces(into:)``
    /// says: computed here bit by bit from the words, for random hashes and the extremes.
    @Test func piecesAreTheDiagonalsOfTheCoefficientBlock() {
        var maker = HashMaker(state: 21)
        let ones = PDQHash(words: (.max, .max, .max, .max))
        for hash in (0..<200).map({ _ in maker.hash() }) + [.zero, ones] {
            let words = [hash.words.3, hash.words.2, hash.words.1, hash.words.0]  // rows 0-3, 4-7, 8-11, 12-15
            var keys = [UInt16](repeating: 0, count: 16)
            keys.withUnsafeMutableBufferPointer { hash.pieces(into: $0.baseAddress!) }
            for c in 0..<16 {
                var expected: UInt16 = 0
                for i in 0..<16 {
                    let row = (words[i / 4] >> UInt64(16 * (i % 4))) & 0xFFFF
                    expected |= UInt16((row >> UInt64((i + c) % 16)) & 1) << UInt16(i)
                }
                #expect(keys[c] == expected)
                #expect(hash.piece(c) == expected, "one piece read alone")
            }
        }
    }
}

extension PDQIndexTests {
    /// A hash read from contiguous bytes (a row's `Data`, an array) is the hash read
    /// byte by byte (any other collection), and its bytes again.
    @Test func hashesReadFromBytesEitherWayAgree() {
        var maker = HashMaker(state: 23)
        for hash in (0..<50).map({ _ in maker.hash() }) + [.zero] {
            let bytes = hash.bytes
            #expect(PDQHash(bytes: Data(bytes)) == hash && PDQHash(bytes: bytes) == hash)
            #expect(PDQHash(bytes: bytes.reversed().reversed()) == hash && PDQHash(bytes: Data(bytes).dropFirst()) == nil)
        }
    }
}
