/// What `ASAuthorizationAppleIDProvider.getCredentialState(forUserID:)` said, reported to authlog.
public enum CredentialState: String, Sendable, Hashable {
    /// `.authorized`: nothing changes.
    case authorized
    /// `.revoked`: the user stopped using Apple ID with the app; authlog ends the user's Apple sessions.
    case revoked
    /// `.notFound`: no credential on this device; authlog ends the Apple sessions without recording a revocation.
    case notFound = "not_found"
}
