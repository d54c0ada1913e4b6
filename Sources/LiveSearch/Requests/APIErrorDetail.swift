import Foundation

/// The human part of an API error body (X, Mastodon, Bluesky), for messages.
///
/// v2 answers with a problem object (`title`, `detail`, sometimes `reason`), v1.1 with
/// `{"errors":[{"code":…,"message":…}]}`; proxies answer with anything. The text is
/// untrusted, so it is cut to one short line of printable characters.
enum APIErrorDetail {
    /// `secrets` (tokens, a password) are replaced before the text is cut, so no part
    /// of one survives the cut.
    static func read(_ body: [UInt8], hiding secrets: [String] = []) -> String? {
        guard !body.isEmpty, body.count <= 1 << 20,
              let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        else { return nil }
        var parts: [String] = []
        if let title = object["title"] as? String { parts.append(title) }
        if let detail = object["detail"] as? String, detail != parts.first { parts.append(detail) }
        if let reason = object["reason"] as? String { parts.append("reason: \(reason)") }
        // Mastodon: {"error": "…"}; Bluesky (XRPC): {"error": "ExpiredToken", "message": "…"}.
        if parts.isEmpty, let error = object["error"] as? String {
            parts.append(error)
            if let message = object["message"] as? String, message != error { parts.append(message) }
        }
        if parts.isEmpty, let errors = object["errors"] as? [[String: Any]], let first = errors.first {
            let message = (first["message"] as? String) ?? (first["detail"] as? String) ?? (first["title"] as? String)
            if let message {
                let code = (first["code"] as? Int).map { " (code \($0))" } ?? ""
                parts.append(message + code)
            }
        }
        var joined = parts.joined(separator: " — ")
        for secret in secrets where !secret.isEmpty { joined = joined.replacingOccurrences(of: secret, with: "[secret]") }
        let text = clean(joined)
        return text.isEmpty ? nil : text
    }

    /// One line, no control characters, at most 200 characters.
    static func clean(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            out.unicodeScalars.append(scalar.properties.generalCategory == .control ? " " : scalar)
            if out.count >= 200 { out += "…"; break }
        }
        return out.trimmingCharacters(in: .whitespaces)
    }
}
