/// What one probe saw.
struct ProbeTally {
    /// Requests answered 2xx.
    var succeeded = 0
    /// Requests answered 401 even after the client's refresh.
    var unauthorized = 0
    /// Requests refused because the client was signed out.
    var refusedSignedOut = 0
    /// Requests with another status or no answer.
    var failed = 0
    /// ``AuthlogClient/sessionEvents()``'s refreshes.
    var refreshes = 0
    /// ``AuthlogClient/sessionEvents()``'s sign-outs.
    var signedOut = 0

    /// Counts one round's statuses (-1: signed out, 0: no answer).
    mutating func count(_ statuses: [Int]) {
        for status in statuses {
            switch status {
            case 200..<300: self.succeeded += 1
            case 401: self.unauthorized += 1
            case -1: self.refusedSignedOut += 1
            default: self.failed += 1
            }
        }
    }

    /// Whether every request succeeded and the session was never lost.
    var isClean: Bool {
        self.unauthorized == 0 && self.refusedSignedOut == 0 && self.failed == 0 && self.signedOut == 0
    }

    /// One line for the test to read.
    var summary: String {
        "probe: succeeded=\(self.succeeded) unauthorized=\(self.unauthorized) signed_out_refusals="
            + "\(self.refusedSignedOut) failed=\(self.failed) refreshes=\(self.refreshes) "
            + "sign_outs=\(self.signedOut)"
    }
}
