public import AuthlogCore

// Types that hold a token or key print redacted (see RedactedWhenPrinted).

extension TokenResponse: RedactedWhenPrinted {}
extension RefreshTokenSecret: RedactedWhenPrinted {}
extension ServiceDependencies: RedactedWhenPrinted {}
