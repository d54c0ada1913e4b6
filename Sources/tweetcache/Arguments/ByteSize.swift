import ArgumentParser
import BlobStore

/// A size as typed (`2GB`, `1.5k`, `100`), parsed once when the command line is:
/// a bad one is refused by ArgumentParser with the option's name, and `run()`
/// never falls back to a default it did not ask for.
struct ByteSize: ExpressibleByArgument, Equatable, Sendable {
    var bytes: Int

    init(_ bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        guard let bytes = ByteCount.parse(argument) else { return nil }
        self.bytes = bytes
    }

    var defaultValueDescription: String { ByteCount.format(bytes) }
}
