import BlobStore
import Testing
@testable import Catalog

/// The writer's table of blob numbers is only a shortcut to `blobs`: it may forget a
/// hash, never answer for the wrong one.
@Suite struct BlobNumbersTests {
    static func hash(leading: UInt8, last: UInt8) -> BlobHash {
        var bytes = [UInt8](repeating: 0, count: 32)
        bytes[0] = leading
        bytes[31] = last
        return BlobHash(bytes: bytes)!
    }

    @Test func aRememberedHashIsAnswered() {
        let numbers = BlobNumbers(capacity: 8)
        let a = Self.hash(leading: 1, last: 1)
        #expect(numbers.number(of: a) == nil)
        numbers.remember(7, for: a)
        #expect(numbers.number(of: a) == 7)
    }

    /// Five hashes of one set (the same leading bytes) in a table of four a set: the
    /// least recently used is forgotten, and none is answered with another's number.
    @Test func hashesOfOneSetNeverShareANumber() {
        let numbers = BlobNumbers(capacity: 8)
        let hashes = (1...5).map { Self.hash(leading: 1, last: UInt8($0)) }
        for (i, hash) in hashes.enumerated() { numbers.remember(Int64(i + 1), for: hash) }
        #expect(numbers.number(of: hashes[0]) == nil)
        for (i, hash) in hashes.enumerated().dropFirst() { #expect(numbers.number(of: hash) == Int64(i + 1)) }
    }

    /// A hash looked up lately is kept over one remembered earlier and not used since.
    @Test func aHashUsedLatelyIsKept() {
        let numbers = BlobNumbers(capacity: 8)
        let hashes = (1...5).map { Self.hash(leading: 1, last: UInt8($0)) }
        for (i, hash) in hashes.prefix(4).enumerated() { numbers.remember(Int64(i + 1), for: hash) }
        #expect(numbers.number(of: hashes[0]) == 1)
        numbers.remember(5, for: hashes[4])
        #expect(numbers.number(of: hashes[1]) == nil)
        #expect(numbers.number(of: hashes[0]) == 1)
        #expect(numbers.number(of: hashes[2]) == 3)
        #expect(numbers.number(of: hashes[3]) == 4)
        #expect(numbers.number(of: hashes[4]) == 5)
    }

    /// Hashes of other sets do not push each other out.
    @Test func setsAreApart() {
        let numbers = BlobNumbers(capacity: 8)
        var other = [UInt8](repeating: 0, count: 32)
        other[7] = 1  // the lowest bit of the leading word: the second set
        let apart = BlobHash(bytes: other)!
        numbers.remember(9, for: apart)
        for i in 1...5 { numbers.remember(Int64(i), for: Self.hash(leading: 1, last: UInt8(i))) }
        #expect(numbers.number(of: apart) == 9)
    }

    /// An empty slot holds the all-zero hash with no number: that hash is not taken
    /// for remembered.
    @Test func theZeroHashIsNotKnownUntilRemembered() {
        let numbers = BlobNumbers(capacity: 8)
        let zero = BlobHash(bytes: [UInt8](repeating: 0, count: 32))!
        #expect(numbers.number(of: zero) == nil)
        numbers.remember(3, for: zero)
        #expect(numbers.number(of: zero) == 3)
    }

    /// Read into an empty `blobs`, a hash never numbered is known to be new; one the
    /// table forgot since is still asked for.
    @Test func aReadFromEmptyKnowsANewHash() {
        let numbers = BlobNumbers(capacity: 8, fromEmpty: true)
        let hashes = (1...5).map { Self.hash(leading: 1, last: UInt8($0)) }
        #expect(!numbers.mayBeNumbered(hashes[0]))
        for (i, hash) in hashes.enumerated() { numbers.remember(Int64(i + 1), for: hash) }
        #expect(numbers.number(of: hashes[0]) == nil)
        #expect(numbers.mayBeNumbered(hashes[0]))
        // A hash of distinct digest bits is still new.
        var other = [UInt8](repeating: 0, count: 32)
        other[2] = 0x40
        other[4] = 0x08
        #expect(!numbers.mayBeNumbered(BlobHash(bytes: other)!))
    }

    /// Without an empty start, SQLite may hold any hash: each is asked for.
    @Test func aReadIntoBlobsAlreadyThereAsksForEveryHash() {
        let numbers = BlobNumbers(capacity: 8)
        #expect(numbers.mayBeNumbered(Self.hash(leading: 1, last: 1)))
    }
}
