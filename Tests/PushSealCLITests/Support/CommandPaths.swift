/// Every command of DESIGN §7 (the contract), as argument lists after `pushseal`.
enum CommandPaths {
    /// Commands that run.
    static let leaves: [[String]] = [
        ["keygen"], ["seal"], ["send"], ["open"], ["inspect"],
        ["store", "init"], ["store", "add"], ["store", "get"], ["store", "list"],
        ["store", "rotate"], ["store", "remove"], ["store", "purge"], ["store", "rotate-master"],
        ["store", "provider-key", "create"], ["store", "provider-key", "promote"], ["store", "provider-key", "list"], ["store", "provider-key", "remove"],
        ["store", "device", "register"], ["store", "device", "list"], ["store", "device", "revoke"],
        ["device", "init"], ["device", "show"], ["device", "pin"],
        ["bundle", "seal"], ["bundle", "install"],
        ["vectors", "generate"], ["vectors", "verify"],
        ["demo"], ["bench"],
    ]

    /// Groups of subcommands (the root is the empty path).
    static let groups: [[String]] = [[], ["store"], ["store", "provider-key"], ["store", "device"], ["device"], ["bundle"], ["vectors"]]

    /// Every command.
    static let all: [[String]] = groups + leaves

    /// The direct subcommands of each group, in help order.
    static let children: [[String]: [String]] = [
        []: ["keygen", "seal", "send", "open", "inspect", "store", "device", "bundle", "vectors", "demo", "bench"],
        ["store"]: ["init", "add", "get", "list", "rotate", "remove", "purge", "rotate-master", "provider-key", "device"],
        ["store", "provider-key"]: ["create", "promote", "list", "remove"],
        ["store", "device"]: ["register", "list", "revoke"],
        ["device"]: ["init", "show", "pin"],
        ["bundle"]: ["seal", "install"],
        ["vectors"]: ["generate", "verify"],
    ]

    /// `pushseal store add`.
    static func name(_ path: [String]) -> String {
        (["pushseal"] + path).joined(separator: " ")
    }
}
