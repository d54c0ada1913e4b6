/// Runs `work` over `items`, at most `width` at a time, and hands each result to
/// `each` on the caller's task as it arrives (in no particular order): the one
/// windowed loop of downloads, derivations, and the store's uploads, copies and
/// checks. A window, not a task per item at once: memory and open work stay
/// bounded by `width` however many items there are.
public func concurrently<Item: Sendable, Output: Sendable>(
    _ items: [Item], width: Int, _ work: @escaping @Sendable (Item) async -> Output, each: (Output) -> Void
) async {
    await withTaskGroup(of: Output.self) { group in
        var next = 0
        func start() {
            guard next < items.count else { return }
            let item = items[next]
            next += 1
            group.addTask { await work(item) }
        }
        for _ in 0..<max(1, width) { start() }
        while let output = await group.next() {
            each(output)
            start()
        }
    }
}
