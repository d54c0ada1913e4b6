import Foundation

/// One document of search results and where it came from (a path, or `-` for stdin).
public struct ResultsInput: Sendable {
    public var name: String
    public var data: Data

    public init(name: String, data: Data) {
        self.name = name
        self.data = data
    }

    /// Reads a file, or standard input for `-`. Refuses files over `limit` bytes
    /// (a results page is kilobytes; a gigabyte is a mistake, not a page).
    public static func read(_ path: String, limit: Int = 512 << 20) throws(PipelineError) -> ResultsInput {
        if path == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            guard data.count <= limit else { throw .inputTooLarge(path, limit) }
            return ResultsInput(name: "-", data: data)
        }
        let url = URL(fileURLWithPath: path)
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > limit {
            throw .inputTooLarge(path, limit)
        }
        do {
            return ResultsInput(name: path, data: try Data(contentsOf: url))
        } catch {
            throw .unreadableInput(path, (error as NSError).localizedDescription)
        }
    }
}
