import PushSealCore
import PushSealPlatform

/// The machine a run measured: reported with every run, because ratios depend on it.
package struct MachineInfo: Sendable {
    /// Online processors (`nproc`).
    package var processors: Int
    /// The processors this process may run on (its affinity, e.g. under `taskset` or a cpuset);
    /// empty where that cannot be read.
    package var allowedProcessors: [Int]
    /// The CPU model (`model name` in /proc/cpuinfo), or "unknown".
    package var cpuModel: String
    /// 1, 5 and 15 minute load averages at the start of the run.
    package var loadAverageAtStart: [Double]
    /// The same at the end of the run.
    package var loadAverageAtEnd: [Double] = []
    /// The cryptography library PushSeal was built on, with its version where it has one
    /// (`libsodium 1.0.18`, `CryptoKit`).
    package var cryptoBackend: String

    static func current() -> MachineInfo {
        MachineInfo(
            processors: Processors.onlineCount, allowedProcessors: Affinity.allowedProcessors(), cpuModel: cpuModel(),
            loadAverageAtStart: loadAverage(),
            cryptoBackend: PrimitivesBackend.description)
    }

    /// The processors the all-core figures use: the allowed ones, or every online one.
    var usableProcessors: Int { allowedProcessors.isEmpty ? processors : min(processors, allowedProcessors.count) }

    static func loadAverage() -> [Double] {
        var values = [Double](repeating: 0, count: 3)
        let count = getloadavg(&values, 3)
        return count == 3 ? values : []
    }

    static func cpuModel() -> String {
        guard let bytes = (try? FileSystem.readFile(at: "/proc/cpuinfo", limit: 1 << 26)) else { return "unknown" }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return String(line[line.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" }))
            }
        }
        return "unknown"
    }
}
