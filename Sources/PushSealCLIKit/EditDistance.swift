/// Levenshtein distance and "did you mean" suggestions for mistyped options and subcommands.
package enum EditDistance {
    /// The number of single-character insertions, deletions and substitutions turning `a` into
    /// `b` (compared by Unicode scalar).
    package static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// The candidate closest to `given`, if its distance is below `threshold` (swift-argument-parser
    /// uses 4). Ties go to the earlier candidate, so declaration order decides.
    package static func suggestion(for given: String, among candidates: some Sequence<String>, threshold: Int = 4) -> String? {
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let d = distance(given, candidate)
            guard d < threshold, d < (best?.distance ?? Int.max) else { continue }
            best = (candidate, d)
        }
        return best?.candidate
    }
}
