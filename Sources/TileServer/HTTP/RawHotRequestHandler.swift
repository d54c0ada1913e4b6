import NIOCore

/// Answers repeats of hot `GET`s from the request's bytes, before NIO's HTTP
/// decoder, with the ``HotResponseHandler``'s kept answers and rules.
///
/// A cached tile through the hot handler still paid for the decoder: the
/// parser's callbacks, a request head with its header strings, two more handlers
/// each way. Against nginx on the same tiles that was the gap left. This handler
/// sits first in the pipeline and reads a request itself only when it can tell,
/// byte for byte, where the request ends and that the decoder would read the same
/// request: a request line and headers of plain visible ASCII, every line ended by
/// CRLF, no body (`Content-Length`, `Transfer-Encoding`) and no `Upgrade`. Such a
/// request is answered here when the hot handler would answer it (a plain
/// HTTP/1.1 `GET` of a kept target, one `Host`, nothing only the responder
/// implements, nothing with the responder, a client that reads); otherwise its
/// bytes go on to the decoder unchanged, as one read. Anything this handler cannot
/// delimit hands the connection's remaining bytes to the decoder for good, so the
/// decoder alone decides what they mean; so does a request handed on that did not
/// come out of the decoder as exactly one request.
///
/// A request split over reads waits here until its blank line (at most
/// ``maxHeadBytes``, then it is handed on). As with the decoder, a request's
/// bytes count for the idle timeout once the request is whole: a client trickling
/// a head byte by byte is cut off one timeout after its last whole request.
///
/// A request after which the decoder ends the connection (`Connection: close`,
/// `Proxy-Connection`, HTTP/1.0, `CONNECT`) hands the connection over too: what
/// comes after it is the decoder's to refuse.
final class RawHotRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Longer heads go to the decoder, with its own limits.
    static let maxHeadBytes = 4096

    private let hot: HotResponseHandler
    /// The start of a request whose head has not all come yet.
    private var held: ByteBuffer?
    /// Every byte from now on goes to the decoder.
    private var handedOver = false
    private var needsFlush = false

    init(hot: HotResponseHandler) {
        self.hot = hot
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !handedOver else {
            context.fireChannelRead(data)
            return
        }
        var buffer = unwrapInboundIn(data)
        if var earlier = held {
            held = nil
            earlier.writeBuffer(&buffer)
            buffer = earlier
        }
        while buffer.readableBytes > 0 {
            switch buffer.withUnsafeReadableBytes({ Self.scan($0) }) {
            case .incomplete where buffer.readableBytes <= Self.maxHeadBytes:
                held = buffer
                return
            case .incomplete, .unusual:
                handOver(buffer, context: context)
                return
            case let .request(length, key):
                let request = buffer.readSlice(length: length)!
                if let key, hot.canAnswer(context), let hit = hot.hit(key) {
                    hot.touch(context)
                    hot.answer(hit, writingTo: context)
                    needsFlush = true
                    continue
                }
                let heads = hot.heads
                context.fireChannelRead(wrapInboundOut(request))
                if hot.heads != heads &+ 1 {
                    // The decoder read these bytes otherwise (or failed on them): its reading wins.
                    handOver(buffer, context: context)
                    return
                }
            }
        }
    }

    private func handOver(_ rest: ByteBuffer, context: ChannelHandlerContext) {
        handedOver = true
        if rest.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(rest)) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    /// A head cut short by the client's end goes to the decoder first, as it would have.
    private func releaseHeld(_ context: ChannelHandlerContext) {
        if let rest = held {
            held = nil
            handOver(rest, context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { releaseHeld(context) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        releaseHeld(context)
        context.fireChannelInactive()
    }

    // MARK: Reading a request's bytes

    enum Scan: Equatable {
        /// No blank line yet.
        case incomplete
        /// Not a request this handler can delimit as the decoder would.
        case unusual
        /// A whole request of `length` bytes with no body; `key` when the hot
        /// handler's rules allow answering it from the cache.
        case request(length: Int, key: HotResponse.Key?)
    }

    static func scan(_ bytes: UnsafeRawBufferPointer) -> Scan {
        let count = bytes.count
        // The request line: METHOD SP target SP HTTP/1.x CRLF.
        var index = 0
        while index < count, index < 16, bytes[index] >= UInt8(ascii: "A"), bytes[index] <= UInt8(ascii: "Z") { index += 1 }
        guard index < count else { return .incomplete }
        guard index > 0, bytes[index] == UInt8(ascii: " ") else { return .unusual }
        let isGet = index == 3 && bytes[0] == UInt8(ascii: "G") && bytes[1] == UInt8(ascii: "E") && bytes[2] == UInt8(ascii: "T")
        index += 1
        let targetStart = index
        while index < count, bytes[index] > 0x20, bytes[index] < 0x7F { index += 1 }
        guard index < count else { return .incomplete }
        guard index > targetStart, bytes[index] == UInt8(ascii: " ") else { return .unusual }
        guard index + 10 <= count else { return .incomplete }
        let targetEnd = index
        guard bytes[index + 1] == UInt8(ascii: "H"), bytes[index + 2] == UInt8(ascii: "T"), bytes[index + 3] == UInt8(ascii: "T"),
              bytes[index + 4] == UInt8(ascii: "P"), bytes[index + 5] == UInt8(ascii: "/"), bytes[index + 6] == UInt8(ascii: "1"),
              bytes[index + 7] == UInt8(ascii: "."), bytes[index + 8] == UInt8(ascii: "1") || bytes[index + 8] == UInt8(ascii: "0"),
              bytes[index + 9] == UInt8(ascii: "\r")
        else { return .unusual }
        // HTTP/1.0 and CONNECT may end the decoder's reading of the connection: the decoder decides.
        guard bytes[index + 8] == UInt8(ascii: "1"), !equal(bytes, 0..<(targetStart - 1), "connect") else { return .unusual }
        index += 10
        guard index < count else { return .incomplete }
        guard bytes[index] == UInt8(ascii: "\n") else { return .unusual }
        index += 1

        var answerable = isGet && targetEnd - targetStart <= HotResponse.maxTargetBytes
        var host: Range<Int>?
        var hosts = 0
        // Header lines, up to the blank line.
        while true {
            guard index + 1 < count else { return .incomplete }
            if bytes[index] == UInt8(ascii: "\r") {
                guard bytes[index + 1] == UInt8(ascii: "\n") else { return .unusual }
                index += 2
                break
            }
            let nameStart = index
            while index < count, isToken(bytes[index]) { index += 1 }
            guard index < count else { return .incomplete }
            guard index > nameStart, bytes[index] == UInt8(ascii: ":") else { return .unusual }
            let name = nameStart..<index
            index += 1
            let valueStart = index
            while index < count, bytes[index] == 0x09 || (bytes[index] >= 0x20 && bytes[index] < 0x7F) { index += 1 }
            guard index < count else { return .incomplete }
            guard bytes[index] == UInt8(ascii: "\r") else { return .unusual }
            guard index + 1 < count else { return .incomplete }
            guard bytes[index + 1] == UInt8(ascii: "\n") else { return .unusual }
            let value = valueStart..<index
            index += 2
            switch header(bytes, name) {
            case .body, .upgrade:
                return .unusual
            case .host:
                hosts += 1
                host = value
            case .connection:
                // A closing request ends the decoder's connection: what follows is its to refuse.
                if contains(bytes, value, "close") || contains(bytes, value, "upgrade") { return .unusual }
            case .proxyConnection:
                return .unusual
            case .responderOnly:
                answerable = false
            case .other:
                break
            }
        }
        guard answerable, hosts == 1, var host else { return .request(length: index, key: nil) }
        // The decoder drops the whitespace before a value; after it, let it decide.
        while host.lowerBound < host.upperBound, bytes[host.lowerBound] == 0x20 || bytes[host.lowerBound] == 0x09 {
            host = host.index(after: host.lowerBound)..<host.upperBound
        }
        guard host.isEmpty || (bytes[host.upperBound - 1] != 0x20 && bytes[host.upperBound - 1] != 0x09) else {
            return .request(length: index, key: nil)
        }
        let key = HotResponse.Key(
            authority: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[host]), as: UTF8.self),
            target: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[targetStart..<targetEnd]), as: UTF8.self))
        return .request(length: index, key: key)
    }

    /// RFC 9110's `tchar`.
    @inline(__always)
    private static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private enum Header {
        case host, connection, proxyConnection, body, upgrade, responderOnly, other
    }

    private static func header(_ bytes: UnsafeRawBufferPointer, _ name: Range<Int>) -> Header {
        if equal(bytes, name, "host") { return .host }
        if equal(bytes, name, "connection") { return .connection }
        if equal(bytes, name, "proxy-connection") { return .proxyConnection }
        if equal(bytes, name, "content-length") || equal(bytes, name, "transfer-encoding") { return .body }
        if equal(bytes, name, "upgrade") { return .upgrade }
        // The hot handler's list (its body headers are matched above).
        for other in HotResponseHandler.passedOn where equal(bytes, name, other) { return .responderOnly }
        return .other
    }

    @inline(__always)
    private static func equal(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ lowercase: StaticString) -> Bool {
        guard range.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            var at = 0
            for index in range {
                let byte = bytes[index]
                if (byte >= 65 && byte <= 90 ? byte | 0x20 : byte) != expected[at] { return false }
                at += 1
            }
            return true
        }
    }

    /// Whether `word` (lower-case) appears in the value, ignoring case.
    private static func contains(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ word: StaticString) -> Bool {
        let length = word.utf8CodeUnitCount
        guard range.count >= length else { return false }
        for start in range.lowerBound...(range.upperBound - length)
        where equal(bytes, start..<(start + length), word) {
            return true
        }
        return false
    }
}
