public import AuthlogCore

// Types that hold a token, key or client secret print redacted (see RedactedWhenPrinted); those of the
// account rules are in AuthlogAccounts' Redaction.swift.

extension ServerConfiguration: RedactedWhenPrinted {}
extension ServerConfiguration.ClientCredentials: RedactedWhenPrinted {}
extension ServerConfiguration.ProviderSettings: RedactedWhenPrinted {}
extension ServerConfiguration.Apple: RedactedWhenPrinted {}
extension ServerConfiguration.OIDC: RedactedWhenPrinted {}
extension ServerConfiguration.Kakao: RedactedWhenPrinted {}
extension ServerConfiguration.GitHub: RedactedWhenPrinted {}
extension ServerComponents: RedactedWhenPrinted {}
