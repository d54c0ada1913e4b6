import Testing
import TweetModel

@Suite struct DecimalIDTests {
    @Test func predecessorBorrowsAcrossDigits() throws {
        #expect(try #require(DecimalID("1000")).predecessor()?.digits == "999")
        #expect(try #require(DecimalID("1")).predecessor()?.digits == "0")
        #expect(try #require(DecimalID("0")).predecessor() == nil)
        #expect(try #require(DecimalID("1790000000000000000")).predecessor()?.digits == "1789999999999999999")
    }

    @Test func idsPastEveryIntegerTypeStayExact() throws {
        // UInt64.max, and a 25-digit id: no overflow, no rounding.
        #expect(try #require(DecimalID("18446744073709551615")).predecessor()?.digits == "18446744073709551614")
        #expect(try #require(DecimalID("10000000000000000000000000")).predecessor()?.digits == "9999999999999999999999999")
        // The largest id a Double holds exactly is 2^53; one past it must not round.
        #expect(try #require(DecimalID("9007199254740993")).predecessor()?.digits == "9007199254740992")
    }

    @Test func comparesByValueNotText() throws {
        let a = try #require(DecimalID("999")), b = try #require(DecimalID("1000")), c = try #require(DecimalID("0001000"))
        #expect(a < b)
        #expect(b == c)
        #expect([b, a].min() == a)
    }

    @Test func refusesAnythingButDigits() {
        #expect(DecimalID("") == nil)
        #expect(DecimalID("-5") == nil)
        #expect(DecimalID("12a") == nil)
        #expect(DecimalID("1e10") == nil)
        #expect(DecimalID(String(repeating: "9", count: 41)) == nil)
        #expect(DecimalID("١٢٣") == nil)
    }
}
