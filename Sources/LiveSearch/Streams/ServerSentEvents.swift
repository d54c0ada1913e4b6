/// The server-sent events format (WHATWG HTML, "Server-sent events"), read a line
/// at a time: `event:`, `data:` (several join with LF), `id:`, and comment lines
/// (`:thump`, Mastodon's heartbeat), an empty line ending each event.
struct ServerSentEvents: Sendable {
    struct Event: Sendable, Equatable {
        var name: String
        var data: [UInt8]
        var id: String?
    }

    private var name = ""
    private var data: [UInt8] = []
    private var hasData = false
    private var lastID: String?
    private let maxData: Int

    init(maxData: Int = 4 << 20) { self.maxData = maxData }

    /// The event a line completes, if any. Comment and unknown fields are ignored.
    mutating func feed(line: [UInt8]) -> Event? {
        var line = line[...]
        if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
        guard !line.isEmpty else {
            defer { name = ""; data = []; hasData = false }
            guard hasData else { return nil }
            return Event(name: name.isEmpty ? "message" : name, data: data, id: lastID)
        }
        if line.first == UInt8(ascii: ":") { return nil }
        let field: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == 0x20 { value = value.dropFirst() }
        } else {
            field = line
            value = []
        }
        switch String(decoding: field, as: UTF8.self) {
        case "event": name = String(decoding: value, as: UTF8.self)
        case "data":
            if hasData { data.append(0x0A) }
            if data.count + value.count <= maxData { data.append(contentsOf: value) }
            hasData = true
        case "id" where !value.contains(0): lastID = String(decoding: value, as: UTF8.self)
        default: break
        }
        return nil
    }
}
