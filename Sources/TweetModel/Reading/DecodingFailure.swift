/// Turns `DecodingError`s into the one-line messages users see in ``ParseProblem``.
enum DecodingFailure {
    /// Describes `error` with its coding path shown relative to the item being decoded
    /// (the first `droppingPrefix` path components lead to the item itself).
    static func describe(_ error: any Error, droppingPrefix: Int) -> String {
        guard let error = error as? DecodingError else { return malformed(error) }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing field \"\(path(context.codingPath + [key], droppingPrefix))\""
        case .valueNotFound(_, let context):
            return "field \"\(path(context.codingPath, droppingPrefix))\" is null"
        case .typeMismatch(let type, let context):
            return "field \"\(path(context.codingPath, droppingPrefix))\" has the wrong type: "
                + mismatch(expected: type, context.debugDescription)
        case .dataCorrupted(let context):
            let field = path(context.codingPath, droppingPrefix)
            if field.isEmpty { return sentence(context.debugDescription) }
            // JSONDecoder says "not valid JSON" for a well-formed value it cannot hold,
            // such as a number beyond Int's range.
            if context.debugDescription.hasPrefix("The given data was not valid JSON") {
                return "field \"\(field)\" holds a value that cannot be read (a number out of range?)"
            }
            return "field \"\(field)\": " + sentence(context.debugDescription)
        @unknown default:
            return "\(error)"
        }
    }

    /// Foundation's own JSON error, thrown when a value is read that its first pass let
    /// through (a raw control character in a string), without its byte position: the
    /// problem's location already names the item, and the position would be that of
    /// whatever document the item was read from (a slice of a large file, a line).
    static func malformed(_ error: any Error) -> String {
        var text = "\(error)"
        if let position = text.range(of: ", location: ") {
            text = String(text[..<position.lowerBound]) + ")"
        } else if let position = text.range(of: "(location: ") {
            text = String(text[..<position.lowerBound])
        }
        return "malformed JSON: " + text
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

    /// "expected a string, found a number" from Foundation's
    /// "Expected to decode String but found number instead."
    private static func mismatch(expected type: Any.Type, _ description: String) -> String {
        let expected: String
        switch type {
        case is String.Type: expected = "a string"
        case is Bool.Type: expected = "true or false"
        case is Int.Type, is Int64.Type, is UInt64.Type: expected = "an integer"
        case is Double.Type: expected = "a number"
        default:
            let name = String(describing: type)
            expected = name.hasPrefix("Array") ? "an array" : name.hasPrefix("Dictionary") ? "an object" : name
        }
        guard let range = description.range(of: " but found ") else { return "expected \(expected)" }
        var found = description[range.upperBound...]
        if found.hasSuffix(" instead.") { found = found.dropLast(" instead.".count) }
        if found.hasPrefix("a dictionary") { found = "an object" }
        let article = found.hasPrefix("a ") || found.hasPrefix("an ") || found == "null" ? "" : "a "
        return "expected \(expected), found \(article)\(found)"
    }

    /// Foundation's descriptions are capitalised sentences; messages here are fragments.
    private static func sentence(_ text: String) -> String {
        var text = text
        if text.hasSuffix(".") { text.removeLast() }
        guard let first = text.first else { return "invalid value" }
        return first.lowercased() + text.dropFirst()
    }
}
