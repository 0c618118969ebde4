extension Duration {
    /// The duration in seconds, as a floating-point number (for rates and latencies).
    public var inSeconds: Double {
        Double(self.components.seconds) + Double(self.components.attoseconds) / 1e18
    }
}
