public import AuthlogCore

// Types that hold a token, code, nonce, key or client secret print redacted (see RedactedWhenPrinted).

extension SigninProof: RedactedWhenPrinted {}
extension AppleProvider.Settings: RedactedWhenPrinted {}
extension GitHubProvider.Settings: RedactedWhenPrinted {}
extension KakaoProvider.Settings: RedactedWhenPrinted {}
extension OIDCProvider.Settings: RedactedWhenPrinted {}
extension AppleProvider: RedactedWhenPrinted {}
extension GitHubProvider: RedactedWhenPrinted {}
extension KakaoProvider: RedactedWhenPrinted {}
extension OIDCProvider: RedactedWhenPrinted {}
