/// A witness's answer to `add-checkpoint`, with the status C2SP tlog-witness fixes for each case.
public struct WitnessAnswer: Error, Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// The `Content-Type`.
    public var contentType: String
    /// The body.
    public var body: String

    /// 200 with the cosignature lines.
    static func cosigned(_ lines: String) -> WitnessAnswer {
        WitnessAnswer(status: 200, contentType: "text/plain; charset=utf-8", body: lines)
    }

    /// 400: the request is malformed, or its old size exceeds the checkpoint's.
    static func badRequest(_ why: String) -> WitnessAnswer { .text(400, why) }

    /// 403: no signature of a trusted key for the origin verifies, or one that names a trusted key fails.
    static func forbidden(_ why: String) -> WitnessAnswer { .text(403, why) }

    /// 404: the origin is not a log this witness witnesses.
    static let unknownOrigin = WitnessAnswer.text(404, "unknown log origin")

    /// 409: the old size is not the size the witness last cosigned; the body is that size.
    static func conflict(knownSize: Int64) -> WitnessAnswer {
        WitnessAnswer(status: 409, contentType: "text/x.tlog.size", body: "\(knownSize)\n")
    }

    /// 422: the consistency proof does not verify, a proof came with old size 0, the same size came with another
    /// root, or a size-0 checkpoint has another root than the empty tree's.
    static func inconsistent(_ why: String) -> WitnessAnswer { .text(422, why) }

    /// 413: the body is larger than the witness reads.
    static func tooLarge(_ limit: Int) -> WitnessAnswer { .text(413, "the body is larger than \(limit) bytes") }

    /// 500: the witness could not persist its state, so it cosigns nothing.
    static func storageFailed() -> WitnessAnswer { .text(500, "the witness cannot store its state") }

    private static func text(_ status: Int, _ why: String) -> WitnessAnswer {
        WitnessAnswer(status: status, contentType: "text/plain; charset=utf-8", body: why + "\n")
    }
}
