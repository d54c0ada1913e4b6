import Foundation
import Hashing
import MediaFetch
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Synchronization

/// A WebSocket client (RFC 6455) that only listens: Bluesky's Jetstream.
///
/// The connection is libcurl's (``CurlConnection``: TCP, or TLS for `wss://`, with the
/// fetcher's trust and timeouts), so the program needs one TLS library, the one libcurl
/// uses, and not a second one for this stream. The frames are SwiftNIO's: its decoder
/// (with the largest frame allowed), its aggregator of fragments and its encoder (which
/// masks what a client sends) run in an `EmbeddedChannel` fed from the connection.
/// What is left here is the opening handshake and the control frames: a ping is
/// answered, a close is answered and ends the stream, and a ping of its own every
/// `pingInterval` tells a dead connection (no pong within the next interval).
///
/// The connection lives on a thread of its own. Messages come to the caller in order,
/// with at most `window` waiting: a slow reader slows the socket, not memory.
struct WebSocketStream: Sendable {
    var url: String
    var configuration: FetchConfiguration
    var maxMessage = 1 << 20
    var pingInterval: Duration = .seconds(30)
    /// How long the server has to answer the upgrade request.
    var handshakeTimeout: Duration = .seconds(30)
    var window = 64

    /// How a connection ended.
    enum End: Sendable, Equatable {
        /// The server closed it (a close frame, or the connection's end).
        case closed
        /// The server answered the upgrade with another status.
        case status(Int)
        /// It could not connect, the handshake was wrong, a frame broke the protocol, or a
        /// ping went unanswered.
        case failed(String)
        case cancelled
    }

    /// Connects, then hands `message` each text or binary message's payload until the
    /// connection ends; the caller's cancellation closes it.
    func run(message: (_ payload: [UInt8]) async -> Void) async -> End {
        let shared = Shared(window: window)
        let (messages, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        continuation.onTermination = { _ in shared.stop() }
        let settings = self
        let thread = Thread {
            let end = settings.connect(opened: { shared.opened($0) }, deliver: { payload in
                shared.credits.wait()
                guard !shared.stopped.load(ordering: .acquiring) else { return false }
                if case .terminated = continuation.yield(payload) { return false }
                return true
            })
            shared.outcome.withLock { $0 = end }
            continuation.finish()
        }
        thread.name = "tweetcache.websocket"
        thread.stackSize = 512 * 1024
        thread.start()
        for await payload in messages {
            await message(payload)
            shared.credits.signal()
        }
        if Task.isCancelled { return .cancelled }
        return shared.outcome.withLock { $0 } ?? .cancelled
    }

    /// What the connection's thread and the reading task share.
    private final class Shared: Sendable {
        let outcome = Mutex<End?>(nil)
        /// Messages the thread may hand over before the reader has taken them.
        let credits: DispatchSemaphore
        let stopped = Atomic<Bool>(false)
        private let connection = Mutex<CurlConnection?>(nil)

        /// The credits are signalled in, from 0: libdispatch stops the process when a
        /// semaphore is freed below the value it was made with, and a credit taken for a
        /// message the stream no longer wanted never comes back.
        init(window: Int) {
            credits = DispatchSemaphore(value: 0)
            for _ in 0..<max(1, window) { credits.signal() }
        }

        func opened(_ c: CurlConnection) {
            connection.withLock { $0 = c }
            if stopped.load(ordering: .acquiring) { c.interrupt() }
        }

        /// The reader is gone (cancelled, or done): the thread stops at its next wait.
        func stop() {
            stopped.store(true, ordering: .releasing)
            connection.withLock { $0?.interrupt() }
            credits.signal()
        }
    }

    /// The whole connection, on its thread: blocking calls only.
    private func connect(opened: (CurlConnection) -> Void, deliver: ([UInt8]) -> Bool) -> End {
        guard let target = Target(url) else { return .failed("not a ws:// or wss:// URL: \(url)") }
        let connection: CurlConnection
        do { connection = try CurlConnection.open(url: target.transportURL, configuration: configuration) }
        catch {
            if case .cancelled = error { return .cancelled }
            return .failed(error.description)
        }
        opened(connection)
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var upgraded = false
        do {
            try connection.send(Array(target.upgradeRequest(key: key, userAgent: configuration.userAgent).utf8),
                                deadline: .now + handshakeTimeout)
            let (status, rest) = try readHead(connection, key: key)
            guard status == 101 else { return .status(status) }
            upgraded = true
            return try frames(connection, first: rest, deliver: deliver)
        } catch let failure as FetchFailure {
            if case .cancelled = failure { return .cancelled }
            return .failed(failure.description)
        } catch let failure as WebSocketFailure {
            // Said to the server too, once it is a WebSocket (RFC 6455 7.1.7; best effort).
            if upgraded {
                try? connection.send(Self.encode(Self.closeFrame(code: failure.closeCode)), deadline: .now + .seconds(1))
            }
            return .failed(failure.message)
        } catch {
            return .failed("\(error)")
        }
    }

    struct WebSocketFailure: Error {
        var message: String
        var closeCode: WebSocketErrorCode = .protocolError
    }

    /// The server's answer to the upgrade, checked: its status, and for a 101 the
    /// headers RFC 6455 requires (its accept key must be the one for ours). Returns the
    /// bytes after the head (the first frames may come with it).
    private func readHead(_ connection: CurlConnection, key: String) throws -> (Int, [UInt8]) {
        let deadline = ContinuousClock.now + handshakeTimeout
        var head: [UInt8] = []
        while true {
            if let end = head.firstRange(of: [13, 10, 13, 10]) {
                let rest = Array(head[end.upperBound...])
                let text = String(decoding: head[..<end.lowerBound], as: UTF8.self)
                return (try Self.checkHead(text, key: key), rest)
            }
            guard head.count <= 16_384 else { throw WebSocketFailure(message: "the upgrade answer's head is over 16 KB") }
            guard let bytes = try connection.receive(limit: 4096, deadline: deadline) else {
                throw WebSocketFailure(message: "no answer to the upgrade within \(handshakeTimeout)")
            }
            guard !bytes.isEmpty else { throw WebSocketFailure(message: "the server closed the connection before answering") }
            head += bytes
        }
    }

    /// The status of an upgrade answer's head; for a 101, throws unless it upgrades to a
    /// WebSocket with the accept key `key` asks for.
    static func checkHead(_ text: String, key: String) throws -> Int {
        let lines = text.components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...599).contains(status)
        else { throw WebSocketFailure(message: "not an HTTP/1.1 answer: \(lines[0].prefix(80))") }
        guard status == 101 else { return status }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            fields[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard fields["upgrade"]?.lowercased() == "websocket",
              fields["connection"]?.lowercased().split(separator: ",").contains(where: {
                  $0.trimmingCharacters(in: .whitespaces) == "upgrade" }) == true
        else { throw WebSocketFailure(message: "a 101 answer that does not upgrade to a WebSocket") }
        guard fields["sec-websocket-accept"] == acceptKey(for: key) else {
            throw WebSocketFailure(message: "the server's Sec-WebSocket-Accept is not the one for our key")
        }
        if let ext = fields["sec-websocket-extensions"], !ext.isEmpty {
            throw WebSocketFailure(message: "the server chose an extension not asked for (\(ext.prefix(80)))")
        }
        return status
    }

    /// RFC 6455 section 4.2.2: base64 of the SHA-1 of the key and the protocol's GUID.
    static func acceptKey(for key: String) -> String {
        Data(Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    /// Reads frames until the connection ends.
    private func frames(_ connection: CurlConnection, first: [UInt8], deliver: ([UInt8]) -> Bool) throws -> End {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([
            ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: maxMessage)),
            NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1024,
                                        maxAccumulatedFrameSize: maxMessage),
        ])
        defer { _ = try? channel.finish(acceptAlreadyClosed: true) }
        var nextPing = ContinuousClock.now + pingInterval
        var pongDue: ContinuousClock.Instant?
        var pending = first
        while true {
            if !pending.isEmpty {
                do { try channel.writeInbound(ByteBuffer(bytes: pending)) }
                catch { throw WebSocketFailure(message: "a frame broke the protocol: \(error)",
                                               closeCode: Self.closeCode(for: error)) }
                pending = []
                while let frame = try channel.readInbound(as: WebSocketFrame.self) {
                    switch frame.opcode {
                    case .text, .binary:
                        guard deliver(Array(frame.unmaskedData.readableBytesView)) else { return .cancelled }
                    case .ping:
                        try connection.send(Self.encode(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(),
                                                                       data: frame.unmaskedData)),
                                            deadline: .now + .seconds(10))
                    case .pong:
                        pongDue = nil
                    case .connectionClose:
                        var data = frame.unmaskedData
                        let code = data.readWebSocketErrorCode() ?? .normalClosure
                        try? connection.send(Self.encode(Self.closeFrame(code: code)), deadline: .now + .seconds(1))
                        return .closed
                    default:
                        throw WebSocketFailure(message: "a frame of an unknown kind")
                    }
                }
            }
            let now = ContinuousClock.now
            if now >= nextPing {
                try connection.send(Self.encode(WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(),
                                                               data: ByteBuffer())), deadline: now + .seconds(10))
                nextPing = now + pingInterval
                if pongDue == nil { pongDue = now + pingInterval }
            }
            let until = min(nextPing, pongDue ?? nextPing)
            guard let bytes = try connection.receive(limit: 65_536, deadline: until) else {
                // Only when nothing came: a reader that made this thread wait may leave
                // the pong unread in the socket past its time.
                if let due = pongDue, ContinuousClock.now >= due {
                    throw WebSocketFailure(message: "no pong within \(pingInterval)", closeCode: .goingAway)
                }
                continue
            }
            guard !bytes.isEmpty else { return .closed }
            pending = bytes
        }
    }

    static func closeFrame(code: WebSocketErrorCode) -> WebSocketFrame {
        var data = ByteBuffer()
        data.write(webSocketErrorCode: code)
        return WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
    }

    static func closeCode(for error: any Error) -> WebSocketErrorCode {
        switch error {
        case NIOWebSocketError.invalidFrameLength, NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge:
            .messageTooLarge
        default:
            .protocolError
        }
    }

    /// A frame's bytes on the wire (masked: it is a client's), by NIO's encoder.
    static func encode(_ frame: WebSocketFrame) throws -> [UInt8] {
        let channel = EmbeddedChannel(handler: WebSocketFrameEncoder())
        defer { _ = try? channel.finish(acceptAlreadyClosed: true) }
        try channel.writeOutbound(frame)
        var bytes: [UInt8] = []
        while let part = try channel.readOutbound(as: ByteBuffer.self) { bytes += part.readableBytesView }
        return bytes
    }

    /// Where to connect, and what to ask for there.
    struct Target {
        var transportURL: String
        var hostField: String
        var requestTarget: String

        init?(_ url: String) {
            guard let comps = URLComponents(string: url), let scheme = comps.scheme?.lowercased(),
                  scheme == "ws" || scheme == "wss", let host = comps.host, !host.isEmpty
            else { return nil }
            // Foundation gives an IPv6 host with its brackets on Linux, without them elsewhere.
            let hostText = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            let authority = comps.port.map { "\(hostText):\($0)" } ?? hostText
            transportURL = (scheme == "wss" ? "https://" : "http://") + authority + "/"
            hostField = authority
            let path = comps.percentEncodedPath.isEmpty ? "/" : comps.percentEncodedPath
            requestTarget = path + (comps.percentEncodedQuery.map { "?" + $0 } ?? "")
            guard !requestTarget.utf8.contains(where: { $0 <= 32 || $0 == 127 }) else { return nil }
        }

        func upgradeRequest(key: String, userAgent: String) -> String {
            let agent = userAgent.filter { $0 != "\r" && $0 != "\n" }
            return "GET \(requestTarget) HTTP/1.1\r\nHost: \(hostField)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\nUser-Agent: \(agent)\r\n\r\n"
        }
    }
}
