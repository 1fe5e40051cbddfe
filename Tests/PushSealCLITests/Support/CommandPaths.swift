/// Every command of DESIGN §7 (the contract), as argument lists after `pushseal`.
enum CommandPaths {
    /// Commands that run.
    static let leaves: [[String]] = [
        ["keygen"], ["seal"], ["send"], ["open"], ["inspect"],
        ["store", "init"], ["store", "add"], ["store", "get"], ["store", "list"],
        ["store", "rotate"], ["store", "remove"], ["store", "purge"], ["store", "rotate-master"],
        ["vectors", "generate"], ["vectors", "verify"],
        ["demo"], ["bench"],
    ]

    /// Groups of subcommands (the root is the empty path).
    static let groups: [[String]] = [[], ["store"], ["vectors"]]

    /// Every command.
    static let all: [[String]] = groups + leaves

    /// The direct subcommands of each group, in help order.
    static let children: [[String]: [String]] = [
        []: ["keygen", "seal", "send", "open", "inspect", "store", "vectors", "demo", "bench"],
        ["store"]: ["init", "add", "get", "list", "rotate", "remove", "purge", "rotate-master"],
        ["vectors"]: ["generate", "verify"],
    ]

    /// `pushseal store add`.
    static func name(_ path: [String]) -> String {
        (["pushseal"] + path).joined(separator: " ")
    }
}
