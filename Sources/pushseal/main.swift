import PushSealPlatform

import PushSealCommands

// No Foundation here: a cold `pushseal open` must start in about 2 ms.
exit(PushSealTool.tool.main().rawValue)
