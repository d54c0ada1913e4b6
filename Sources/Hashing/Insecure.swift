public import Foundation

/// Digests that are broken for security, kept for the protocols that still name
/// them: never for a blob's name or anything a stranger could forge to match.
public enum Insecure {
    /// MD5: what S3 answers as an object's ETag, so an upload can be checked
    /// against it without reading the object back.
    public struct MD5: ~Copyable {
        private var context = DigestContext(.md5)

        public init() {}

        public mutating func update(data: some DataProtocol) {
            context.update(data)
        }

        /// The 16 bytes of the digest.
        public consuming func finalize() -> [UInt8] {
            context.finish()
        }

        public static func hash(data: some DataProtocol) -> [UInt8] {
            var hasher = MD5()
            hasher.update(data: data)
            return hasher.finalize()
        }
    }

    /// SHA-1: what a WebSocket handshake's `Sec-WebSocket-Accept` is made of (RFC 6455).
    public enum SHA1 {
        /// The 20 bytes of the digest.
        public static func hash(data: some DataProtocol) -> [UInt8] {
            var context = DigestContext(.sha1)
            context.update(data)
            return context.finish()
        }
    }
}
