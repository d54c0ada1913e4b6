/// Turns `DecodingError`s into the one-line messages users see in ``ParseProblem``.
enum DecodingFailure {
    /// Describes `error` with its coding path shown relative to the item being decoded
    /// (the first `droppingPrefix` path components lead to the item itself).
    static func describe(_ error: any Error, droppingPrefix: Int) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing field \"\(path(context.codingPath + [key], droppingPrefix))\""
        case .valueNotFound(_, let context):
            return "field \"\(path(context.codingPath, droppingPrefix))\" is null"
        case .typeMismatch(_, let context):
            return "field \"\(path(context.codingPath, droppingPrefix))\" has the wrong type: "
                + sentence(context.debugDescription)
        case .dataCorrupted(let context):
            let field = path(context.codingPath, droppingPrefix)
            return (field.isEmpty ? "" : "field \"\(field)\": ") + sentence(context.debugDescription)
        @unknown default:
            return "\(error)"
        }
    }

    /// `user.entities.urls[0].indices`, starting below the item.
    static func path(_ codingPath: [any CodingKey], _ dropping: Int) -> String {
        var result = ""
        for key in codingPath.dropFirst(dropping) {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") {
                result += "[\(index)]"
            } else {
                if !result.isEmpty { result += "." }
                result += key.stringValue
            }
        }
        return result
    }

    /// Foundation's descriptions are capitalised sentences; messages here are fragments.
    private static func sentence(_ text: String) -> String {
        var text = text
        if text.hasSuffix(".") { text.removeLast() }
        guard let first = text.first else { return "invalid value" }
        return first.lowercased() + text.dropFirst()
    }
}
