import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads one input of search results a piece at a time, in memory bounded by the
/// piece rather than by the input: a twarc collection of millions of posts is
/// gigabytes of JSON Lines.
///
/// - A small input (at most ``wholeLimit``) is parsed whole, as ``ResultsParser``
///   parses it.
/// - JSON Lines are read in blocks of ``blockSize`` and parsed a block at a time,
///   one slice of its lines per core; problems keep the lines' numbers in the file.
///   A line longer than ``longestLine`` is skipped with a problem.
/// - One large JSON document is mapped, its results array found
///   (``ArraySplit``), and its elements parsed ``windowElements`` at a time, each
///   window cut into one document per core as ``ResultsParser`` cuts a large page.
///   The mapped pages already read are given back as it goes. Each window's
///   document carries the bytes around the array too (a v2 page's `includes`), so
///   those are parsed once per window: fine for the pages APIs serve, slow for a
///   document whose bytes are mostly outside its array.
///
/// ``next()`` returns the pieces in input order, then nil. One caller at a time (a
/// run hands it from task to task, never to two at once).
public final class ResultsStream: @unchecked Sendable {
    public let source: String
    public let limits: Limits
    /// The input's length in bytes.
    public let size: Int
    /// Bytes of the input the pieces so far came from: after ``next()``, how far into
    /// the input a run is (its progress, from the files' sizes).
    public private(set) var consumed = 0

    /// Sizes of the pieces; tests make them small.
    public struct Limits: Sendable {
        /// Inputs up to this size are parsed whole.
        public var wholeLimit = 8 << 20
        /// Bytes of JSON Lines read at a time: about 900 posts of a v1.1 search
        /// page (a parsed post takes a few times its JSON), two pieces alive at once,
        /// about a run's batch of posts (``PipelineOptions/batchSize`` in Pipeline).
        public var blockSize = 512 << 10
        public var longestLine = 256 << 20
        /// Elements of a large document's array parsed at a time.
        public var windowElements = 2048
        public init() {}
    }

    private enum State {
        case whole(Data)
        case lines(LineBlocks)
        case document(MappedFile, ArraySplit, next: Int)
        case done
    }
    private var state: State

    /// Why an input cannot be read at all (the rest of a run goes on).
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// Results already in memory (a search's page, a test's document).
    public init(data: Data, source: String) {
        self.source = source
        limits = Limits()
        size = data.count
        state = .whole(data)
    }

    /// Opens a file; reads it whole only when it is small.
    public init(path: String, source: String, limits: Limits = Limits()) throws(Failure) {
        self.source = source
        self.limits = limits
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        } catch {
            throw Failure(description: "cannot read \(path): \((error as NSError).localizedDescription)")
        }
        do { size = Int(try handle.seekToEnd()); try handle.seek(toOffset: 0) } catch {
            throw Failure(description: "cannot read \(path): \((error as NSError).localizedDescription)")
        }
        if size <= limits.wholeLimit {
            defer { try? handle.close() }
            do { state = .whole(try handle.readToEnd() ?? Data()) } catch {
                throw Failure(description: "cannot read \(path): \((error as NSError).localizedDescription)")
            }
            return
        }
        try? handle.close()
        let mapped = try MappedFile(path: path)
        if Self.isJSONLines(mapped) {
            mapped.release(0..<size)
            guard let lines = FileHandle(forReadingAtPath: path) else {
                throw Failure(description: "cannot read \(path)")
            }
            state = .lines(LineBlocks(handle: lines, limits: limits))
            return
        }
        guard let split = mapped.bytes.withUnsafeBytes({ ArraySplit.find(in: $0) }) else {
            mapped.release(0..<size)
            throw Failure(description: "\(path) is one JSON document of \(size >> 20) MB whose posts are not one "
                + "array of it: too large to read at once (JSON Lines of any length are read in pieces)")
        }
        mapped.release(0..<size)
        state = .document(mapped, split, next: 0)
    }

    /// The next piece of the input, or nil after the last.
    public func next() -> ParsedResults? {
        switch state {
        case .done:
            return nil
        case let .whole(data):
            state = .done
            consumed = size
            return ResultsParser.parse(data, source: source)
        case let .lines(blocks):
            guard let lines = blocks.next() else {
                state = .done
                consumed = size
                return nil
            }
            consumed = min(size, blocks.offset)
            return parse(lines: lines, skipped: blocks.takeSkipped())
        case let .document(mapped, split, start):
            guard start < split.elements.count else {
                state = .done
                consumed = size
                return nil
            }
            let end = min(split.elements.count, start + limits.windowElements)
            state = .document(mapped, split, next: end)
            consumed = end == split.elements.count ? size : split.elements[end - 1].upperBound
            let parsed = parse(window: start..<end, of: split, in: mapped)
            mapped.release(split.elements[start].lowerBound..<split.elements[end - 1].upperBound)
            return parsed
        }
    }

    // MARK: JSON Lines

    /// A file is JSON Lines when something follows its first JSON value (a document
    /// of its own is nothing but that value), or when that value is broken and a
    /// line ends before the break (a damaged first line). Found by the structure
    /// scanner over the mapped file: a minified document of gigabytes is one line,
    /// which is never read into memory to find out.
    private static func isJSONLines(_ mapped: MappedFile) -> Bool {
        mapped.bytes.withUnsafeBytes { bytes in
            var scanner = JSONStructureScanner(bytes: bytes)
            scanner.skipSpace()
            let start = scanner.position
            guard scanner.skipValue() else {
                return bytes[start..<min(bytes.count, max(start, scanner.position))].contains(0x0A)
            }
            scanner.skipSpace()
            return !scanner.atEnd
        }
    }

    private func parse(lines: [(number: Int, data: Data)], skipped: [Int]) -> ParsedResults {
        let groups = ParallelSlices.split(lines.indices, parts: ProcessInfo.processInfo.activeProcessorCount)
        let source = self.source
        let parts = ParallelSlices.map(groups.count) { DocumentReader(source: source).parseLineBlock(lines[groups[$0]]) }
        var problems = skipped.map {
            ParseProblem(source: source, location: "line \($0)",
                         message: "longer than \(limits.longestLine) bytes: skipped")
        }
        problems += parts.flatMap(\.problems)
        return ParsedResults(pages: parts.flatMap(\.pages), problems: problems)
    }

    /// Blocks of whole lines read from a file, numbered from 1 across blocks.
    final class LineBlocks {
        let handle: FileHandle
        let limits: Limits
        private var carry = Data()
        /// Bytes of the file behind the blocks returned (and the long lines skipped).
        private(set) var offset = 0
        private var number = 0
        private var atEnd = false
        /// Skipping the rest of a line too long to keep.
        private var skipping = false
        private var skipped: [Int] = []

        init(handle: FileHandle, limits: Limits) {
            self.handle = handle
            self.limits = limits
        }

        deinit { try? handle.close() }

        func takeSkipped() -> [Int] {
            defer { skipped = [] }
            return skipped
        }

        /// The next block's non-blank lines; nil at the end of the file.
        func next() -> [(number: Int, data: Data)]? {
            while true {
                if atEnd, carry.isEmpty { return nil }
                if !atEnd {
                    let chunk = (try? handle.read(upToCount: limits.blockSize)) ?? nil
                    if let chunk, !chunk.isEmpty { carry.append(chunk) } else { atEnd = true }
                }
                let cut: Int
                if atEnd {
                    cut = carry.count
                } else if let lastNewline = carry.lastIndex(of: 0x0A) {
                    cut = lastNewline - carry.startIndex + 1
                } else {
                    if carry.count > limits.longestLine {
                        if !skipping { skipped.append(number + 1) }
                        skipping = true
                        offset += carry.count
                        carry = Data()
                    }
                    continue
                }
                let block = carry.prefix(cut)
                carry = Data(carry.dropFirst(cut))
                offset += cut
                var lines = DocumentReader.nonBlankLines(of: Data(block)).map { (number: $0.number + number, data: $0.data) }
                let newlines = block.withUnsafeBytes { $0.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }
                if skipping, let first = lines.first, first.number == number + 1 {
                    // The tail of the long line: not a line of its own.
                    lines.removeFirst()
                }
                if skipping, block.contains(0x0A) || atEnd { skipping = false }
                number += newlines
                if !lines.isEmpty || atEnd && carry.isEmpty { return lines.isEmpty ? nil : lines }
            }
        }
    }

    // MARK: One large document

    private func parse(window: Range<Int>, of split: ArraySplit, in mapped: MappedFile) -> ParsedResults {
        let key = split.key ?? ""
        let ranges = ParallelSlices.split(window, parts: ProcessInfo.processInfo.activeProcessorCount)
        let documents = mapped.bytes.withUnsafeBytes { bytes in ranges.map { split.document($0, of: bytes) } }
        if ranges.count > 1,
           let merged = ResultsParser.parseSlices(documents, ranges: ranges, key: key, source: source) {
            guard window.lowerBound > 0 else { return merged }
            // Problems outside the array are the same in every window: reported once.
            return ParsedResults(pages: merged.pages.map {
                $0.with(problems: $0.problems.filter { $0.location.hasPrefix(key + "[") })
            }, problems: merged.problems)
        }
        // Slices that do not merge exactly: the window as one document, its problems
        // placed at their index in the whole array.
        let whole = mapped.bytes.withUnsafeBytes { split.document(window, of: $0) }
        let parsed = ResultsParser.parseWhole(whole, source: source)
        func moved(_ p: ParseProblem) -> ParseProblem {
            ResultsParser.relocated(p, key: key, by: window.lowerBound) ?? p
        }
        return ParsedResults(
            pages: parsed.pages.map { $0.with(problems: $0.problems.map(moved)) },
            problems: window.lowerBound == 0 ? parsed.problems.map(moved) : parsed.problems.compactMap {
                // Problems outside the array are the same in every window: reported once.
                ResultsParser.relocated($0, key: key, by: window.lowerBound)
            })
    }
}

/// A file mapped read-only, whose pages already read can be given back to the kernel
/// so a pass over gigabytes does not stay resident.
package final class MappedFile: @unchecked Sendable {
    package let bytes: Data
    private let base: UnsafeMutableRawPointer
    private let length: Int

    package convenience init(path: String) throws(ResultsStream.Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .init(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try self.init(descriptor: fd, path: path)
    }

    /// Maps the file open at `fd` (which the caller closes: the mapping keeps the file).
    package init(descriptor fd: Int32, path: String) throws(ResultsStream.Failure) {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0 else { throw .init(description: "cannot read \(path)") }
        length = Int(info.st_size)
        guard let mapping = mmap(nil, length, PROT_READ, MAP_PRIVATE, fd, 0), mapping != MAP_FAILED else {
            throw .init(description: "cannot map \(path): \(String(cString: strerror(errno)))")
        }
        base = mapping
        _ = madvise(mapping, length, MADV_SEQUENTIAL)
        bytes = Data(bytesNoCopy: mapping, count: length, deallocator: .none)
    }

    deinit { munmap(base, length) }

    /// Drops the resident pages wholly inside `range` (read again from the file if
    /// needed).
    package func release(_ range: Range<Int>) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (range.lowerBound + page - 1) / page * page
        let end = min(length, range.upperBound) / page * page
        guard end > start else { return }
        _ = madvise(base + start, end - start, MADV_DONTNEED)
    }
}

extension ResultsPage {
    func with(problems: [ParseProblem]) -> ResultsPage {
        ResultsPage(format: format, tweets: tweets, includedTweets: includedTweets, query: query,
                    nextToken: nextToken, problems: problems)
    }
}
