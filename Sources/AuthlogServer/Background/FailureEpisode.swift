import AuthlogCore
import Foundation

/// A run of failures in a row of one part of the log's machinery (the checkpoint signer, a witness), kept as one
/// episode on the record: its `…_failing` event once the run reaches a threshold, its `…_recovered` event when
/// a success ends a run that was recorded. A run that ends before the threshold leaves nothing.
struct FailureEpisode: Sendable {
    /// When the run's first failure happened.
    let since: Timestamp
    /// The failures in a row so far.
    private(set) var failures = 0
    /// Why the last one failed, in one line.
    private(set) var lastError = ""
    /// Whether the run's `…_failing` event is on the record.
    var recorded = false

    /// The run a first failure at `since` begins.
    init(since: Timestamp) { self.since = since }

    /// Counts a failure (`error`, one line); whether the run is now due to be recorded: it reached `threshold`
    /// and is not on the record yet.
    mutating func fail(_ error: String, threshold: Int) -> Bool {
        self.failures += 1
        self.lastError = error
        return !self.recorded && self.failures >= threshold
    }

    /// The id of the episode's `kind` event (`checkpoint_failing`, `witness_recovered`, …), of the witness
    /// `name` when the machinery is one of several: the same for every process and retry, so one recorded twice
    /// is stored once.
    func eventID(_ kind: String, of name: String? = nil) -> UUID {
        let since = "\(self.since.microsecondsSinceEpoch)"
        guard let name else { return OnceEventID.make(kind, since) }
        return OnceEventID.make(kind, name, since)
    }
}
