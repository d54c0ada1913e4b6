import Foundation
import Hashing
import Testing

/// The digests against the answers their standards publish, whole and in pieces.
@Suite struct DigestTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test func sha256OfTheStandardsMessages() {
        // FIPS 180-2's examples: "abc", the empty message, and the 448-bit two-block message.
        #expect(Self.hex(SHA256.hash(data: Array("abc".utf8)).bytes)
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex(SHA256.hash(data: [UInt8]()).bytes)
            == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let twoBlocks = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(Self.hex(SHA256.hash(data: twoBlocks).bytes)
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func sha256InPiecesEqualsTheWhole() {
        // A million "a"s, fed in pieces of every size from 1 to 999 bytes and as
        // Data, buffers and a DispatchData of several regions.
        let million = [UInt8](repeating: 0x61, count: 1_000_000)
        var hasher = SHA256()
        var offset = 0
        var size = 1
        while offset < million.count {
            let end = min(offset + size, million.count)
            if size % 2 == 0 {
                hasher.update(data: Data(million[offset..<end]))
            } else {
                million[offset..<end].withUnsafeBytes { hasher.update(bufferPointer: $0) }
            }
            offset = end
            size = size % 999 + 1
        }
        let digest = hasher.finalize()
        #expect(Self.hex(digest.bytes) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(digest == SHA256.hash(data: million))

        var regions = DispatchData.empty
        for start in stride(from: 0, to: million.count, by: 300_000) {
            million[start..<min(start + 300_000, million.count)].withUnsafeBytes {
                regions.append(DispatchData(bytes: $0))
            }
        }
        #expect(regions.regions.count > 1)
        #expect(SHA256.hash(data: regions) == digest)
    }

    @Test func digestsEqualOnlyWhenEveryByteIs() {
        let one = SHA256.hash(data: Array("one".utf8))
        #expect(one == SHA256.hash(data: Array("one".utf8)))
        #expect(one != SHA256.hash(data: Array("onf".utf8)))
        #expect(Set([one, SHA256.hash(data: Array("one".utf8)), SHA256.hash(data: Array("two".utf8))]).count == 2)
        #expect(one.bytes.count == SHA256Digest.byteCount)
    }

    @Test func md5AsS3AnswersIt() {
        // RFC 1321's test suite: "" and "abc"; and the same digest fed in pieces.
        #expect(Self.hex(Insecure.MD5.hash(data: [UInt8]())) == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(Self.hex(Insecure.MD5.hash(data: Array("abc".utf8))) == "900150983cd24fb0d6963f7d28e17f72")
        var pieces = Insecure.MD5()
        pieces.update(data: Array("a".utf8))
        pieces.update(data: Data("bc".utf8))
        #expect(Self.hex(pieces.finalize()) == "900150983cd24fb0d6963f7d28e17f72")
    }

    @Test func sha1MakesRFC6455sAcceptKey() {
        // RFC 6455 section 1.3's example handshake.
        let key = "dGhlIHNhbXBsZSBub25jZQ==" + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
        #expect(Data(Insecure.SHA1.hash(data: Array(key.utf8))).base64EncodedString() == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }
}
