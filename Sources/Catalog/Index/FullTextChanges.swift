extension PostCatalog {
    /// A batch's changes to the full-text index, in the order the writer made them,
    /// with the words of every post added copied into one buffer.
    ///
    /// The words' thread binds each column where it lies in the buffer, and frees one
    /// block per batch. It no longer frees four strings per post that other threads made,
    /// and SQLite no longer copies each string again before it reads it.
    struct FullTextChanges: Sendable {
        /// One change; an addition's columns are `columns` of ``bytes``.
        enum Change: Sendable {
            case add(rowid: Int64, columns: Columns)
            case remove(rowid: Int64)
        }

        /// Where an added post's four columns (text, name, handle, tags) lie in ``bytes``:
        /// each column ends where the next begins.
        struct Columns: Sendable {
            var start: Int
            var ends: (Int, Int, Int, Int)
        }

        private(set) var changes: [Change] = []
        /// The added posts' columns, as UTF-8, one after the other.
        private(set) var bytes: [UInt8] = []

        var isEmpty: Bool { changes.isEmpty }

        mutating func add(rowid: Int64, text: String, name: String, handle: String, tags: String) {
            let start = bytes.count
            bytes.append(contentsOf: text.utf8)
            let text = bytes.count
            bytes.append(contentsOf: name.utf8)
            let name = bytes.count
            bytes.append(contentsOf: handle.utf8)
            let handle = bytes.count
            bytes.append(contentsOf: tags.utf8)
            changes.append(.add(rowid: rowid, columns: Columns(start: start, ends: (text, name, handle, bytes.count))))
        }

        mutating func remove(rowid: Int64) {
            changes.append(.remove(rowid: rowid))
        }

        /// The four columns of `columns` as byte ranges of `base` (``bytes``' own storage).
        static func ranges(_ columns: Columns, in base: UnsafeRawBufferPointer)
            -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer, UnsafeRawBufferPointer, UnsafeRawBufferPointer)
        {
            let (a, b, c, d) = columns.ends
            func range(_ start: Int, _ end: Int) -> UnsafeRawBufferPointer {
                UnsafeRawBufferPointer(rebasing: base[start..<end])
            }
            return (range(columns.start, a), range(a, b), range(b, c), range(c, d))
        }
    }
}
