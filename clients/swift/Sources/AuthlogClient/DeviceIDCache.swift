/// The install's device id as the client's ``TokenStore`` gives it, asked for at the first sign-in or refresh
/// that needs it and then held for the client's life.
///
/// A store that cannot give it now (a Keychain error, such as before the device's first unlock) is asked again
/// at the next sign-in or refresh; meanwhile requests go without `Authlog-Device-Id`, and authlog goes by the
/// user agent and the network instead. Nothing here ever fails a sign-in.
actor DeviceIDCache {
    private let store: any TokenStore
    private var deviceID: String?

    /// A cache of `store`'s device id.
    init(store: any TokenStore) {
        self.store = store
    }

    /// The id, or `nil` when the store keeps none, cannot give it now, or gave one not in the form authlog takes.
    func current() async -> String? {
        if let deviceID = self.deviceID { return deviceID }
        guard let loaded = try? await self.store.loadOrCreateDeviceID(), DeviceID.isWellFormed(loaded) else {
            return nil
        }
        self.deviceID = loaded
        return loaded
    }
}
