import PushSealCLIKit
import PushSealCore
import PushSealKeyDirectory
import PushSealKeyStore
import PushSealJSON

/// `pushseal store list`.
enum StoreListCommand {
    static let conversation = StoreCommand.conversation(abstract: "Only this conversation's epochs.")

    static let spec = CommandSpec(
        name: "list",
        abstract: "List keys (never the key bytes): conversation, epoch, kid, times, label, current.",
        discussion: """
            A table for people by default, ordered by conversation and epoch. STATUS is \
            'current' (the conversation's current key as 'store get' and 'seal' take it: its \
            newest epoch while live, never an older one; new notifications are sealed under it), 'live' (before its not-after time, or another epoch without one) or \
            'expired' (retired: past its not-after time; it opens only notifications sent \
            before then, and 'store purge' removes it after the grace period). Times are UTC.

            --json prints one object:
              {"items":[{"conversation":…,"createdAt":…,"current":…,"epoch":…,"kid":…,
                         "label":…|null,"live":…,"notAfter":…|null}],"now":…}
            with times in seconds since 1970.
            """,
        options: StoreCommand.locationOptions + [
            conversation,
            CommonOptions.now,
            CommonOptions.json,
        ],
        run: run)

    /// One listed item with its status at `now`.
    struct Entry {
        var item: KeyItem
        var isLive: Bool
        var isCurrent: Bool

        var status: String { isCurrent ? "current" : isLive ? "live" : "expired" }
    }

    static func run(_ context: inout CommandContext) throws(CLIError) -> ExitCode {
        let arguments = context.arguments
        let location = try StoreCommand.location(context, acceptsURI: true)
        let conversation = try arguments[Self.conversation]
        let now = try arguments[CommonOptions.now] ?? systemClock()
        let store = try StoreCommand.openDirectory(location, clock: { now })
        let items = try StoreCommand.run(location) { () throws(KeyDirectoryError) in try store.items(conversation: conversation) }
        let list = entries(items, now: now, current: currentKeyIDs(items, store: store, context: &context))

        if arguments[CommonOptions.json] {
            context.write(bytes: json(list, now: now))
            return .success
        }
        if list.isEmpty {
            context.note(conversation.map { "conversation \(JSONText.quoted($0)) has no keys in the store" } ?? "the store holds no keys")
            return .success
        }
        context.write(table(list))
        return .success
    }

    /// The key id of each listed conversation's current key, as the store's `currentKey` gives
    /// it (what `get` and `seal` use); a conversation the store refuses (retired or removed
    /// newest epoch: none; a deleted or damaged newest row or epoch record: a warning) has none.
    static func currentKeyIDs(
        _ items: [KeyItem], store: any KeyDirectory, context: inout CommandContext
    ) -> Set<KeyID> {
        var current: Set<KeyID> = []
        var previous: [UInt8]?
        for item in items where previous.map({ !$0.elementsEqual(item.conversation.utf8) }) ?? true {
            previous = Array(item.conversation.utf8)
            do throws(KeyDirectoryError) {
                current.insert(try store.currentKey(conversation: item.conversation).item.keyID)
            } catch .itemNotFound {
                continue
            } catch {
                context.warn("conversation \(JSONText.quoted(item.conversation)) has no current key: \(error)")
            }
        }
        return current
    }

    /// Items with their status: an item is current when its key id is in `current` (the store's
    /// `currentKey` of its conversation: its newest epoch while live, never an older one).
    static func entries(_ items: [KeyItem], now: Int64, current: Set<KeyID>) -> [Entry] {
        items.map { Entry(item: $0, isLive: $0.isLive(at: now), isCurrent: current.contains($0.keyID)) }
    }

    static func json(_ entries: [Entry], now: Int64) -> [UInt8] {
        var writer = JSONWriter(capacity: 64 + 200 * entries.count)
        writer.appendRaw("{\"items\":[")
        for (index, entry) in entries.enumerated() {
            let item = entry.item
            if index > 0 { writer.appendRaw(",") }
            writer.appendRaw("{\"conversation\":")
            writer.appendString(item.conversation)
            writer.appendRaw(",\"createdAt\":")
            writer.appendInteger(item.createdAt)
            writer.appendRaw(",\"current\":")
            writer.appendRaw(entry.isCurrent ? "true" : "false")
            writer.appendRaw(",\"epoch\":")
            writer.appendInteger(item.epoch)
            writer.appendRaw(",\"kid\":")
            writer.appendString(item.keyID.base64URL)
            writer.appendRaw(",\"label\":")
            if let label = item.label { writer.appendString(label) } else { writer.appendRaw("null") }
            writer.appendRaw(",\"live\":")
            writer.appendRaw(entry.isLive ? "true" : "false")
            writer.appendRaw(",\"notAfter\":")
            if let notAfter = item.notAfter { writer.appendInteger(notAfter) } else { writer.appendRaw("null") }
            writer.appendRaw("}")
        }
        writer.appendRaw("],\"now\":")
        writer.appendInteger(now)
        writer.appendRaw("}\n")
        return writer.bytes
    }

    /// The table for people. A conversation id that holds a space, a quote or a control, format or
    /// separator character, and a label that holds one of those but a space, is shown as a JSON
    /// string with those characters escaped, so every row stays one line, reads left to right, and
    /// columns stay apart (the label is the last column).
    static func table(_ entries: [Entry]) -> String {
        var rows: [[String]] = [["CONVERSATION", "EPOCH", "KID", "STATUS", "CREATED", "NOT AFTER", "LABEL"]]
        for entry in entries {
            let item = entry.item
            rows.append([
                displayed(item.conversation), String(item.epoch), item.keyID.base64URL, entry.status,
                UTCTime.iso8601(item.createdAt), item.notAfter.map(UTCTime.iso8601) ?? "-",
                item.label.map { displayed($0, spacesAllowed: true) } ?? "-",
            ])
        }
        var widths = [Int](repeating: 0, count: rows[0].count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        var text = ""
        for row in rows {
            var line = ""
            for (column, cell) in row.enumerated() {
                if column == row.count - 1 {
                    line += cell
                } else {
                    line += cell + String(repeating: " ", count: widths[column] - cell.count + 2)
                }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            text += line + "\n"
        }
        return text
    }

    /// `text` as is, or as a JSON string (``JSONText/quoted(_:)``) when it is empty or holds a
    /// control, format or separator character (``JSONText/isHazard(_:)``: C0, DEL, C1 such as
    /// U+0085, bidirectional overrides such as U+202E), a quote, a backslash or (unless
    /// `spacesAllowed`) a space.
    static func displayed(_ text: String, spacesAllowed: Bool = false) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            (scalar.value > 0x20 || (spacesAllowed && scalar == " ")) && scalar != "\"" && scalar != "\\"
                && !JSONText.isHazard(scalar)
        }
        return plain ? text : JSONText.quoted(text)
    }
}
