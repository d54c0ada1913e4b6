import NIOCore
import Synchronization

/// Whether the client of a connection is still there: set when it hangs up
/// (end of its input, or the connection closed), read by a render that has waited
/// for a slot, which is dropped when nobody wants it any more.
///
/// The server lets a client half-close (HTTP allows a request then a shutdown of
/// its sending side), so a hang-up shows as the end of input, not as an inactive
/// channel: ``ConnectionWatchHandler`` watches for both.
final class ConnectionWatch: Sendable {
    private let hungUp = Atomic(false)

    var isConnected: Bool { !hungUp.load(ordering: .relaxed) }

    func clientLeft() { hungUp.store(true, ordering: .relaxed) }

    /// The watch of the connection whose requests the current task answers (set
    /// by ``TileServerChannel`` for each connection's task); nil in router tests.
    @TaskLocal static var current: ConnectionWatch?
}

/// Marks its ``ConnectionWatch`` when the client's input ends or the channel closes.
final class ConnectionWatchHandler: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    let watch: ConnectionWatch
    let onLeave: @Sendable () -> Void

    init(watch: ConnectionWatch, onLeave: @escaping @Sendable () -> Void = {}) {
        self.watch = watch
        self.onLeave = onLeave
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { leave() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        leave()
        context.fireChannelInactive()
    }

    private func leave() {
        guard watch.isConnected else { return }
        watch.clientLeft()
        onLeave()
    }
}
