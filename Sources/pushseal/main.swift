#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

import PushSealCommands

// No Foundation here: a cold `pushseal open` must start in about 2 ms.
exit(PushSealTool.tool.main().rawValue)
