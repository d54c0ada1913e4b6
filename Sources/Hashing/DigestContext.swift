internal import CCrypto
import Foundation

/// One of libcrypto's digests, fetched once for the process.
///
/// OpenSSL 3 looks an algorithm up in its provider tables, under a lock, on every
/// initialisation that names it by `EVP_sha256()`; a digest fetched once skips that.
struct DigestAlgorithm: @unchecked Sendable {
    // An `EVP_MD` fetched for good: immutable and shared by every thread, never freed.
    let method: OpaquePointer
    let size: Int

    static let sha256 = DigestAlgorithm(fetching: "SHA256")
    // MD5 and SHA-1 check an ETag and a handshake, not a secret: whether the
    // implementation is FIPS-approved does not matter, so a machine whose OpenSSL
    // configuration asks for "fips=yes" by default (where MD5 has no approved
    // implementation) still finds them ("-fips" drops that clause, property(7)).
    static let sha1 = DigestAlgorithm(fetching: "SHA1", properties: "-fips")
    static let md5 = DigestAlgorithm(fetching: "MD5", properties: "-fips")

    private init(fetching name: String, properties: String? = nil) {
        // Only a libcrypto built without the algorithm (or out of memory) has none:
        // nothing this program does could go on without its hashes.
        guard let method = EVP_MD_fetch(nil, name, properties) else {
            fatalError("libcrypto cannot provide \(name)")
        }
        self.method = method
        size = Int(EVP_MD_get_size(method))
    }
}

/// A digest under way: libcrypto's context, freed when the value goes.
///
/// Not copyable, so a context is never shared or freed twice. The calls fail only
/// when memory runs out, and then the program stops, as an allocation failure does.
struct DigestContext: ~Copyable {
    private let context: OpaquePointer
    private let algorithm: DigestAlgorithm

    init(_ algorithm: DigestAlgorithm) {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex2(context, algorithm.method, nil) == 1 else {
            fatalError("libcrypto could not start a digest (out of memory)")
        }
        self.context = context
        self.algorithm = algorithm
    }

    deinit { EVP_MD_CTX_free(context) }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        guard EVP_DigestUpdate(context, base, bytes.count) == 1 else {
            fatalError("libcrypto could not update a digest")
        }
    }

    /// Writes the digest into `output`, which holds exactly the algorithm's size, and
    /// ends it: the context takes no more bytes after this.
    mutating func finish(into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count == algorithm.size, "a digest buffer of the wrong size")
        var written: UInt32 = 0
        guard EVP_DigestFinal_ex(context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written) == 1,
              Int(written) == algorithm.size
        else { fatalError("libcrypto could not finish a digest") }
    }

    mutating func finish() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: algorithm.size) { buffer, count in
            finish(into: UnsafeMutableRawBufferPointer(buffer))
            count = buffer.count
        }
    }
}

extension DigestContext {
    mutating func update(_ data: some DataProtocol) {
        for region in data.regions {
            region.withUnsafeBytes { update($0) }
        }
    }
}
