import HTTPTypes

extension HTTPField.Name {
    /// The SHA-256 of the body a SigV4 request signs (hex), or of nothing for a GET.
    static let amzContentSHA256 = HTTPField.Name("x-amz-content-sha256")!
    /// The SHA-256 (base64) the store checks a PUT against, keeps, and answers to a HEAD.
    static let amzChecksumSHA256 = HTTPField.Name("x-amz-checksum-sha256")!
    /// `ENABLED`: a HEAD answers the checksum the store keeps.
    static let amzChecksumMode = HTTPField.Name("x-amz-checksum-mode")!
}
