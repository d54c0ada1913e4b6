/// Cuts a byte stream into lines (LF or CRLF), however the chunks fall.
///
/// A stream's lines come from a stranger: one that grows past `maxLine` is dropped
/// whole (reported once, when it ends) instead of growing the buffer without bound.
struct LineSplitter: Sendable {
    let maxLine: Int
    private var pending: [UInt8] = []
    private var overlong = false

    init(maxLine: Int = 4 << 20) { self.maxLine = maxLine }

    enum Line: Equatable {
        case line([UInt8])
        /// A line longer than the limit, skipped.
        case overlong
    }

    /// The lines `chunk` completes, without their line ends.
    mutating func feed(_ chunk: [UInt8]) -> [Line] {
        var lines: [Line] = []
        var start = chunk.startIndex
        while let newline = chunk[start...].firstIndex(of: 0x0A) {
            let piece = chunk[start..<newline]
            start = newline + 1
            if overlong || pending.count + piece.count > maxLine {
                pending.removeAll(keepingCapacity: false)
                overlong = false
                lines.append(.overlong)
                continue
            }
            var line = pending
            line.append(contentsOf: piece)
            pending.removeAll(keepingCapacity: true)
            if line.last == 0x0D { line.removeLast() }
            lines.append(.line(line))
        }
        let rest = chunk[start...]
        if !overlong {
            if pending.count + rest.count > maxLine {
                overlong = true
                pending.removeAll(keepingCapacity: false)
            } else {
                pending.append(contentsOf: rest)
            }
        }
        return lines
    }
}
