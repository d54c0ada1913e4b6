import Foundation

/// Removes elements from JSON arrays and members from JSON objects by overwriting
/// them with spaces, so every other byte of the document stays where it was.
///
/// Why spaces rather than a document written anew: a manifest's posts are found by
/// the catalog at their byte ranges, and a saved page is the API's response byte for
/// byte. Overwritten in place, the removed text is gone from the file while every
/// range the catalog holds for the other posts still points at the same post, and the
/// rest of a page is what the API sent.
package enum JSONBlanking {
    /// The byte ranges to overwrite with spaces so that, of the container whose
    /// `items` (elements, or members from key to value) lie in `interior` (between
    /// its brackets), those at `removing` go and the others stay, still separated by
    /// one comma each: the kept items and the comma right after each but the last
    /// kept one are left, everything else inside the brackets is blanked.
    package static func blanks(items: [Range<Int>], removing: Set<Int>, interior: Range<Int>,
                               in bytes: UnsafeRawBufferPointer) -> [Range<Int>] {
        guard !removing.isEmpty else { return [] }
        let kept = items.indices.filter { !removing.contains($0) }
        var keep: [Range<Int>] = []
        for (n, i) in kept.enumerated() {
            keep.append(items[i])
            guard n < kept.count - 1 else { continue }
            // The comma that followed this item in the document.
            var p = items[i].upperBound
            while p < interior.upperBound, JSONStructureScanner.isSpace(bytes[p]) { p += 1 }
            if p < interior.upperBound, bytes[p] == UInt8(ascii: ",") { keep.append(p..<(p + 1)) }
        }
        var blanks: [Range<Int>] = []
        var at = interior.lowerBound
        for range in keep.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if range.lowerBound > at { blanks.append(at..<range.lowerBound) }
            at = max(at, range.upperBound)
        }
        if interior.upperBound > at { blanks.append(at..<interior.upperBound) }
        return blanks
    }

    /// `ranges` merged and sorted: what ``apply(_:to:)`` and a streamed copy walk.
    package static func normalized(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var merged: [Range<Int>] = []
        for range in ranges.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    /// Overwrites `ranges` of `bytes` with spaces, keeping line breaks (a manifest
    /// read by a person keeps its lines).
    package static func apply(_ ranges: [Range<Int>], to bytes: inout [UInt8], offset: Int = 0) {
        for range in ranges {
            let lower = max(range.lowerBound - offset, 0), upper = min(range.upperBound - offset, bytes.count)
            guard lower < upper else { continue }
            for i in lower..<upper where bytes[i] != 0x0A { bytes[i] = 0x20 }
        }
    }
}
