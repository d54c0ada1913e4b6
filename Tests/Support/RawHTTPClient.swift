import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 client on a plain socket that sends the request line exactly as
/// given, for testing a server against requests a real client would normalise
/// away (`/../`, `%2F`, odd methods). One request per connection.
public enum RawHTTPClient {
    public struct Response: Sendable {
        public var status: Int
        /// Header names lowercased; a repeated header keeps its last value.
        public var headers: [String: String]
        public var body: [UInt8]

        public func header(_ name: String) -> String? { headers[name.lowercased()] }
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// ``send(_:_:port:headers:body:timeout:)`` on a thread of its own: the test's
    /// task waits without holding one of the few threads every test shares (two on
    /// a 2-core machine, where a blocked one slows the suite's timing-sensitive tests).
    public static func sendAwaiting(
        _ method: String = "GET", _ target: String, port: Int, headers: [String: String] = [:]
    ) async throws -> Response {
        try await onOwnThread { try send(method, target, port: port, headers: headers) }
    }

    /// Sends `method target` with `headers` to 127.0.0.1:`port` and reads the
    /// whole response (the request asks the server to close the connection).
    public static func send(
        _ method: String = "GET", _ target: String, port: Int, headers: [String: String] = [:], body: [UInt8] = [],
        timeout: Double = 60
    ) throws -> Response {
        let fd = try connectLoopback(port: port, timeout: timeout)
        defer { close(fd) }
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { request += "Content-Length: \(body.count)\r\n" }
        request += "\r\n"
        try sendAll(fd, Array(request.utf8) + body)
        var received: [UInt8] = []
        while let chunk = try receive(fd) { received += chunk }
        return try parse(received, method: method)
    }

    /// A connected TCP socket to 127.0.0.1:`port` whose reads time out after `timeout` seconds.
    public static func connectLoopback(port: Int, timeout: Double) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect to port \(port): errno \(errno)")
        }
        return fd
    }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += n
        }
    }

    /// The next bytes, or nil at end of stream; throws on a timeout or error.
    static func receive(_ fd: Int32) throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw Failure(description: "recv: errno \(errno)") }
            return n == 0 ? nil : Array(buffer[0..<n])
        }
    }

    static func parse(_ data: [UInt8], method: String) throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = data.indices.first(where: { data[$0...].starts(with: separator) }) else {
            throw Failure(description: "no complete response head in \(data.count) bytes")
        }
        let head = String(decoding: data[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line \(head[0])")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(data[(end + 4)...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = try dechunk(body) }
        return Response(status: status, headers: headers, body: body)
    }

    static func dechunk(_ data: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < data.count {
            guard let lineEnd = data[index...].indices.first(where: { data[$0] == 13 }) else { break }
            let sizeText = String(decoding: data[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw Failure(description: "bad chunk size")
            }
            index = lineEnd + 2
            if size == 0 { break }
            out += data[index..<min(index + size, data.count)]
            index += size + 2
        }
        return out
    }
}

/// One keep-alive HTTP/1.1 connection on a plain socket: several requests, sent
/// one at a time or pipelined in one write, answers read back in order (each
/// framed by its Content-Length).
public final class RawHTTPConnection {
    private let fd: Int32
    public let port: Int
    private var pending: [UInt8] = []

    public init(port: Int, timeout: Double = 30) throws {
        self.port = port
        fd = try RawHTTPClient.connectLoopback(port: port, timeout: timeout)
    }

    deinit { close(fd) }

    /// The bytes of one request, for ``send(_:)`` alone or several at once.
    public func request(_ method: String = "GET", _ target: String, host: String? = nil, headers: [String: String] = [:]) -> String {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return text + "\r\n"
    }

    public func send(_ text: String) throws {
        try RawHTTPClient.sendAll(fd, Array(text.utf8))
    }

    /// Sends one request and reads its answer.
    public func get(_ target: String, method: String = "GET", host: String? = nil, headers: [String: String] = [:]) throws
        -> RawHTTPClient.Response
    {
        try send(request(method, target, host: host, headers: headers))
        return try readResponse(method: method)
    }

    /// Reads the next answer: its head, then Content-Length bytes (none for HEAD, 204, 304).
    public func readResponse(method: String = "GET") throws -> RawHTTPClient.Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while true {
            if let end = pending.indices.first(where: { pending[$0...].starts(with: separator) }) {
                headEnd = end + 4
                break
            }
            guard let chunk = try RawHTTPClient.receive(fd) else { break }
            pending += chunk
        }
        guard let headEnd else { throw RawHTTPClient.Failure(description: "connection closed before a response head") }
        var response = try RawHTTPClient.parse(Array(pending[..<headEnd]), method: method)
        let length = method == "HEAD" || [204, 304].contains(response.status)
            ? 0 : Int(response.header("content-length") ?? "") ?? 0
        while pending.count < headEnd + length {
            guard let chunk = try RawHTTPClient.receive(fd) else {
                throw RawHTTPClient.Failure(description: "connection closed inside a body")
            }
            pending += chunk
        }
        response.body = Array(pending[headEnd..<(headEnd + length)])
        pending.removeFirst(headEnd + length)
        return response
    }

    /// True when the server closes the connection (end of stream) before the
    /// read timeout; false when the read times out with the connection open.
    public func closedByServer() -> Bool {
        do {
            while let chunk = try RawHTTPClient.receive(fd) { pending += chunk }
            return true
        } catch {
            return false
        }
    }
}
