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

    /// Two hashes of one slot (the same leading bytes): the newer wins, the older is
    /// forgotten, and neither is answered with the other's number.
    @Test func hashesOfOneSlotNeverShareANumber() {
        let numbers = BlobNumbers(capacity: 8)
        let a = Self.hash(leading: 1, last: 1), b = Self.hash(leading: 1, last: 2)
        numbers.remember(7, for: a)
        numbers.remember(9, for: b)
        #expect(numbers.number(of: b) == 9)
        #expect(numbers.number(of: a) == nil)
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
}
