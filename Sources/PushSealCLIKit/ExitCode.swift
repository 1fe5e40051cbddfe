/// A process exit status. PushSeal's contract (Docs/CLI.md): 0 success, 3 the receiver fell back
/// (the fallback result is still printed), 64 usage error, 1 anything else.
package struct ExitCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The status passed to `exit(3)`.
    package let rawValue: Int32

    /// Wraps a raw status.
    package init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// 0: the command did what was asked.
    package static let success = ExitCode(rawValue: 0)
    /// 1: a runtime failure (bad input data, I/O, a check that did not pass, …).
    package static let failure = ExitCode(rawValue: 1)
    /// 3: the receiver fell back; the fallback result was still printed.
    package static let fallback = ExitCode(rawValue: 3)
    /// 64 (`EX_USAGE` from sysexits.h): the command line itself is wrong.
    package static let usage = ExitCode(rawValue: 64)

    package var description: String { String(rawValue) }
}
