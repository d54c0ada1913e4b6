import BlobStore
import Foundation
import Hashing
import Testing

@Suite("BlobHash")
struct BlobHashTests {
    @Test func hexRoundTripsAndMatchesCrypto() throws {
        let bytes = Array("hello, cache".utf8)
        let expected = TestBytes.sha256Hex(bytes)
        let hash = BlobHash(hashing: bytes)
        #expect(hash.hex == expected)
        #expect(hash.description == expected)
        #expect(BlobHash(hex: expected) == hash)
        #expect(hash.shard == String(expected.prefix(2)))
        #expect(BlobHash(digest: SHA256.hash(data: bytes)) == hash)
    }

    @Test func rawBytesRoundTrip() throws {
        let hash = BlobHash(hashing: Array("raw".utf8))
        #expect(hash.bytes.count == 32)
        #expect(BlobHash(bytes: hash.bytes) == hash)
        #expect(BlobHash(bytes: hash.bytes.dropLast()) == nil)
        #expect(BlobHash(bytes: hash.bytes + [0]) == nil)
    }

    @Test(arguments: [
        "",
        String(repeating: "a", count: 63),
        String(repeating: "a", count: 65),
        String(repeating: "A", count: 64),
        String(repeating: "0", count: 62) + "0G",
        " " + String(repeating: "0", count: 63),
        String(repeating: "0", count: 63) + "\n",
        String(repeating: "é", count: 32),
        "../" + String(repeating: "0", count: 61),
        // The bytes next to the digits' and letters' ranges, in each of the four words.
        "/" + String(repeating: "0", count: 63),
        String(repeating: "0", count: 16) + ":" + String(repeating: "0", count: 47),
        String(repeating: "0", count: 32) + "`" + String(repeating: "0", count: 31),
        String(repeating: "0", count: 63) + "g",
    ])
    func rejectsNonCanonicalHex(_ text: String) {
        #expect(BlobHash(hex: text) == nil)
    }

    /// Every byte at every position: a hash reads exactly when the byte is a
    /// lower-case hex digit, and then as that digit (its hex is the text again).
    @Test func everyByteAtEveryPosition() {
        let digits = Array("0123456789abcdef".utf8)
        var base = Array(BlobHash(hashing: Array("every byte".utf8)).hex.utf8)
        for position in 0..<64 {
            let kept = base[position]
            for byte in UInt8.min...UInt8.max {
                base[position] = byte
                let parsed = base.withUnsafeBufferPointer { BlobHash(hexUTF8: $0) }
                if digits.contains(byte) {
                    #expect(parsed.map { Array($0.hex.utf8) } == base, "byte \(byte) at \(position)")
                } else {
                    #expect(parsed == nil, "byte \(byte) at \(position)")
                }
            }
            base[position] = kept
        }
    }

    @Test func orderingFollowsHexOrder() {
        let hashes = (0..<200).map { BlobHash(hashing: Array("item \($0)".utf8)) }
        #expect(hashes.sorted().map(\.hex) == hashes.map(\.hex).sorted())
        let low = BlobHash(hex: String(repeating: "0", count: 63) + "1")!
        let high = BlobHash(hex: "1" + String(repeating: "0", count: 63))!
        #expect(low < high)
        #expect(!(high < low))
    }

    @Test func codableUsesHexAndRejectsGarbage() throws {
        let hash = BlobHash(hashing: Array("json".utf8))
        let data = try JSONEncoder().encode(["blob": hash])
        #expect(String(decoding: data, as: UTF8.self) == "{\"blob\":\"\(hash.hex)\"}")
        #expect(try JSONDecoder().decode([String: BlobHash].self, from: data)["blob"] == hash)
        let bad = Data("{\"blob\":\"\(hash.hex.uppercased())\"}".utf8)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([String: BlobHash].self, from: bad)
        }
    }
}
