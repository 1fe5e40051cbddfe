/// Why a benchmark run could not be completed.
public struct BenchError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
