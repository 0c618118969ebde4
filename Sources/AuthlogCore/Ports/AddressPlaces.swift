/// Where the operator's MaxMind DB files place an address (AuthlogPlaces' `PlaceLookup`).
public protocol AddressPlaces: Sendable {
    /// The place and the network of `address`; both nil when the files know nothing of it.
    func place(of address: IPAddress) -> (place: Place?, network: AutonomousSystem?)
}
