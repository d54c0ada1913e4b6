/// An object read as its bytes arrive (``CacheStorage/stream(_:maxBytes:stall:)``):
/// its whole size, known from the answer's head, and its body in pieces. The
/// pieces end normally when all `size` bytes came, and with a ``StoreError`` when
/// the transfer broke, stalled or (through ``ReadThroughCache``) the bytes proved
/// not to be what their name says.
public struct ObjectStream: Sendable {
    public let size: Int
    public let chunks: AsyncThrowingStream<[UInt8], any Error>

    public init(size: Int, chunks: AsyncThrowingStream<[UInt8], any Error>) {
        self.size = size
        self.chunks = chunks
    }
}
