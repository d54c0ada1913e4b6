import FuzzChecks
import FuzzSupport

// One libFuzzer binary for every target: `fuzz TARGET [libFuzzer arguments]`.
// SwiftPM links `main` to `fuzz_main`, which starts libFuzzer's driver itself.

@_cdecl("fuzz_main")
public func start(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzEntry.main(argc, argv, fuzzOneInput)
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    FuzzEntry.initialize()
}

// Also the standard entry point: libFuzzer's own objects refer to it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.run(data, size)
}
