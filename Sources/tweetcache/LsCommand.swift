import Catalog
import ArgumentParser
import Foundation
import Inspect

struct LsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "List the cached images, one a line.")

    @Option(name: .long, help: "Only images of tweets with this hashtag.")
    var tag: String?

    @Option(name: .long, help: "Only images of tweets by this user.")
    var user: String?

    @Option(name: .long, help: ArgumentHelp("Only images of tweets whose text, author's name or handle, or hashtags hold these words: every word, the last also as the start of one (full-text search, as the web page's search box).", valueName: "words"))
    var text: String?

    @Option(name: .long, help: ArgumentHelp("photo, avatar, video or unreferenced.", valueName: "KIND"))
    var type: String?

    @Option(name: .long, help: ArgumentHelp("size (largest first), date (newest first) or hash.", valueName: "KEY"))
    var sort: String = "hash"

    @OptionGroup var options: InspectOptions

    func validate() throws {
        if let type, ImageKind(rawValue: type) == nil {
            throw ValidationError("--type must be photo, avatar, video or unreferenced")
        }
        guard ImageListing.Sort(rawValue: sort) != nil else { throw ValidationError("--sort must be size, date or hash") }
    }

    func run() throws {
        let snapshot = try options.snapshot()
        let listing = ImageListing(snapshot: snapshot, tag: tag, user: user, text: text, kind: type.flatMap(ImageKind.init(rawValue:)),
                                   sort: ImageListing.Sort(rawValue: sort) ?? .hash)
        if options.json { print(try InspectJSON.string(listing.rows)) } else { emit(listing.text(style: options.style)) }
    }
}
