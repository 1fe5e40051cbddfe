/// Starting child processes (`posix_spawn`) and waiting for them, without Foundation (whose
/// `Process` is slow to load and has crashed intermittently in `run()` on Linux).
package enum ProcessSpawner {
    /// One change to the child's file descriptors, made in order before it runs.
    package enum FileAction {
        /// `dup2(descriptor, target)`.
        case duplicate(Int32, onto: Int32)
        /// `open(path, flags, mode)` onto `target`.
        case open(String, onto: Int32, flags: Int32, mode: mode_t)
    }

    /// Starts `arguments[0]` (a path, or with `searchingPath` a name looked up in `PATH`) with
    /// `arguments`, after `fileActions`, with `environment` (`NAME=value` entries; nil: this
    /// process's environment). Returns the child's pid and `posix_spawn`'s status (0 on success,
    /// else an errno value).
    package static func spawn(
        _ arguments: [String], fileActions: [FileAction] = [], environment: [String]? = nil, searchingPath: Bool = false
    ) -> (pid: pid_t, status: Int32) {
        #if canImport(Glibc)
        var actions = posix_spawn_file_actions_t()
        #else
        var actions: posix_spawn_file_actions_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for action in fileActions {
            switch action {
            case let .duplicate(descriptor, target): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            case let .open(path, target, flags, mode): posix_spawn_file_actions_addopen(&actions, target, path, flags, mode)
            }
        }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup($0) } + [nil] }
        defer { for pointer in envp ?? [] { free(pointer) } }
        var child = pid_t()
        let status = argv.withUnsafeBufferPointer { argv in
            let run = { (envp: UnsafePointer<UnsafeMutablePointer<CChar>?>) in
                searchingPath
                    ? posix_spawnp(&child, arguments[0], &actions, nil, argv.baseAddress!, envp)
                    : posix_spawn(&child, arguments[0], &actions, nil, argv.baseAddress!, envp)
            }
            guard let envp else { return run(currentEnvironment()) }
            return envp.withUnsafeBufferPointer { run($0.baseAddress!) }
        }
        return (child, status)
    }

    /// Starts `arguments[0]` with each `(descriptor, target)` pair duplicated onto `target` in
    /// the child (`spawn` with `.duplicate` actions).
    package static func spawn(
        _ arguments: [String], descriptors: [(Int32, Int32)], environment: [String]? = nil
    ) -> (pid: pid_t, status: Int32) {
        spawn(arguments, fileActions: descriptors.map { .duplicate($0.0, onto: $0.1) }, environment: environment)
    }

    /// Waits for child `pid` to end, retrying on `EINTR`; its raw wait status (`waitpid`'s; 0 when
    /// it cannot be waited for, for example ECHILD).
    @discardableResult
    package static func wait(for pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// Sends `signal` to process `pid` (`kill(2)`); false when it could not be sent.
    @discardableResult
    package static func send(_ signal: Int32, to pid: pid_t) -> Bool {
        kill(pid, signal) == 0
    }

    /// Whether a process with id `pid` exists (`kill(pid, 0)`; EPERM means it exists).
    package static func processExists(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    /// The process environment, for spawning children with it.
    package static func currentEnvironment() -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> {
        #if canImport(Darwin)
        return _NSGetEnviron().pointee!
        #else
        return environ
        #endif
    }

    /// The running executable's path (to spawn it again, or to find its companions next to it).
    package static func currentExecutablePath() -> String? {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 {
            return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        #endif
        return CommandLine.arguments.first.flatMap { $0.contains("/") ? $0 : nil }
    }
}
