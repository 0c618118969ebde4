import AuthlogClient

/// Waits up to `limit` for `condition`; whether it held.
func eventually(within limit: Duration = .seconds(5), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}

/// The first event of `events` that `match` turns into a value, waiting up to `limit`; nil when none came.
func firstEvent<Value: Sendable>(
    of events: AsyncStream<MonitorEvent>,
    within limit: Duration = .seconds(10),
    _ match: @escaping @Sendable (MonitorEvent) -> Value?
) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask {
            for await event in events {
                if let value = match(event) { return value }
            }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
