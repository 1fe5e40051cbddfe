/// Why a benchmark run could not be completed.
package struct BenchError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    package let description: String

    init(_ description: String) {
        self.description = description
    }
}
