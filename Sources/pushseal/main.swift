import PushSealPlatform

import PushSealCommands
#if os(macOS)
import PushSealCompanion
#endif

// No Foundation here: a cold `pushseal open` must start in about 2 ms.
#if os(macOS)
// Everything links here (macOS): one executable with every backend.
exit(PushSealTool.main(backends: .all).rawValue)
#else
// The static `pushseal` (Linux): `send` and a connection URI run the companion in place of this
// process, decided once here, before parsing.
exit(PushSealTool.mainOrCompanion().rawValue)
#endif
