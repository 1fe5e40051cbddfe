import PushSealPlatform
import PushSealCommands
import PushSealCompanion

// `pushseal`'s companion: the same command tree (one implementation of every command) with
// every backend linked in (the PostgreSQL key directory, delivery), which the static `pushseal`
// runs in its place for `send` and for a `--dir`/`--store` connection URI.
exit(PushSealTool.main(backends: .all).rawValue)
