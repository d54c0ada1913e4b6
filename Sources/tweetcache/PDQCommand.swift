import ArgumentParser
import Foundation
import Imaging

/// `tweetcache pdq FILE...`: PDQ hashes of image files, one line each, as the
/// reference's photo hasher prints them, so lists made here and there can be compared.
struct PDQCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pdq", abstract: "Print the PDQ perceptual hash of image files (JPEG, PNG, GIF, WebP, AVIF, HEIF).",
        discussion: """
            Prints HASH,QUALITY,FILE per file (the reference hasher's format): 64 hex digits, \
            then 0-100 (below 50 the image is too flat for its hash to mean much). With \
            --dihedral, the eight hashes of the image turned and mirrored come first, in the \
            reference's order (original, rotate 90, 180, 270, flip x, flip y, flip +1, flip -1).
            """)

    @Argument(help: "Image files.") var images: [String]
    @Flag(name: .long, help: "Print the hashes of the seven turned and mirrored versions too.") var dihedral = false
    @Option(name: .long, help: "Images processed at once (default: one per core).") var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func run() throws {
        let dihedral = self.dihedral
        let status = FileBatch.run(images, jobs: jobs) { path, bytes in
            let signature = try PDQHasher.signature(ofFile: bytes)
            let hashes = dihedral ? signature.dihedral.map(\.hex).joined(separator: ",") : signature.hash.hex
            return "\(hashes),\(signature.quality),\(path)"
        }
        if status != 0 { throw ExitCode(status) }
    }
}
