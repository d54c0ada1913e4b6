import CFuzzDriver
import Foundation
import FuzzChecks

/// What every fuzz binary's two entry points do, for any ``FuzzCheck``.
public enum FuzzEntry {
    /// libFuzzer calls `LLVMFuzzerInitialize` before anything else; when the
    /// `TWEETCACHE_FUZZ_SEEDS` variable names a folder, the target writes its seeds
    /// (made by the project's own code) there and exits, so `scripts/fuzz.sh` needs no
    /// second tool to make them.
    public static func initialize(_ check: any FuzzCheck.Type) -> CInt {
        guard let folder = ProcessInfo.processInfo.environment["TWEETCACHE_FUZZ_SEEDS"] else { return 0 }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (name, bytes) in try check.seeds() {
                try Data(bytes).write(to: URL(fileURLWithPath: folder).appendingPathComponent(name))
            }
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("could not write seeds: \(error)\n".utf8))
            exit(1)
        }
    }

    /// One input; a broken invariant stops the fuzzer like a crash, with its message.
    public static func run(_ check: any FuzzCheck.Type, _ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        if let broken = check.run(Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))) {
            FileHandle.standardError.write(Data("invariant broken: \(broken)\n".utf8))
            abort()
        }
        return 0
    }

    /// The process's `main`: libFuzzer's driver with the target's one-input function.
    public static func main(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ oneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt {
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments, oneInput)
    }
}
