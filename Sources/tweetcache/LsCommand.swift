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
    var type: ImageKind?

    @Option(name: .long, help: ArgumentHelp("size (largest first), date (newest first) or hash.", valueName: "KEY"))
    var sort: ImageListing.Sort = .hash

    @OptionGroup var options: InspectOptions

    func run() throws {
        let snapshot = try options.snapshot()
        let listing = ImageListing(snapshot: snapshot, tag: tag, user: user, text: text, kind: type, sort: sort)
        if options.json { print(try InspectJSON.string(listing.rows)) } else { emit(listing.text(style: options.style)) }
    }
}

/// `--type photo`: parsed by ArgumentParser, which names the allowed values when one is wrong.
extension ImageKind: ExpressibleByArgument {}
extension ImageListing.Sort: ExpressibleByArgument {}
