import Foundation

/// The command line of the project's test tools (`tc-fake-api`, `tc-thumb-export`):
/// `--name VALUE` options and positional words, and a way to stop with a message.
public struct ToolArguments {
    public let tool: String
    public private(set) var options: [String: String] = [:]
    public private(set) var positional: [String] = []

    public init(tool: String, _ words: [String] = Array(CommandLine.arguments.dropFirst())) {
        self.tool = tool
        var rest = words[...]
        while let word = rest.popFirst() {
            if word.hasPrefix("--") {
                guard let value = rest.popFirst() else { fail("\(word) needs a value") }
                options[word] = value
            } else {
                positional.append(word)
            }
        }
    }

    /// The option's value read as a number, `fallback` when absent; stops on anything else.
    public func number<T: LosslessStringConvertible>(_ name: String, _ fallback: T) -> T {
        guard let text = options[name] else { return fallback }
        guard let value = T(text) else { fail("\(name) takes a number, got \(text)") }
        return value
    }

    /// Prints `message` on standard error and exits with status 2.
    public func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("\(tool): \(message)\n".utf8))
        exit(2)
    }
}
