import PushSealCore
import PushSealReceiver

/// The demo for people: numbered sections, one block per step (✓/✗, then labelled rows), sizes
/// against the limits, and a summary.
enum DemoTextReport {
    static let labelWidth = 12

    static func render(_ run: DemoRun, stoppedBy failure: String?) -> String {
        var out = "PushSeal demo: notifications sealed end to end, and the fallbacks that keep them safe\n\n"
        let workspace = run.workspace
        out += row("directory", workspace.root + (workspace.isTemporary
            ? " (temporary: removed at the end; --dir <dir> keeps the files)"
            : " (kept)"), indent: 2)
        out += row("clock", "\(run.now) (the system time, frozen for the whole run)", indent: 2)
        out += row("receiver", "max age \(ReceiverConfiguration.defaultMaximumAge / 86_400) days, "
            + "future skew \(ReceiverConfiguration.defaultMaximumFutureSkew / 60) minutes, fallback text \"\(DemoNotifications.placeholder)\"", indent: 2)

        var number = 0
        var previous: DemoStep.Section?
        for step in run.steps {
            if step.section != previous {
                number += 1
                out += "\n\(number). \(step.section.heading)\n"
                previous = step.section
            }
            out += "  \(step.passed ? "✓" : "✗") \(step.title)\n"
            for (label, value) in step.rows { out += row(label, value, indent: 6) }
            for deviation in step.deviations { out += "      ✗ \(deviation)\n" }
        }

        let failed = run.steps.filter { !$0.passed }
        let payloads = run.steps.filter { $0.name.hasPrefix("seal-") }.count
        out += "\nSummary\n"
        if let failure {
            out += "  ✗ stopped after \(run.steps.count) steps: \(failure)\n"
        } else if failed.isEmpty {
            out += "  ✓ all \(run.steps.count) steps behaved as expected.\n"
            out += "  ✓ Apple and Google saw a placeholder, opaque thread ids, key ids and ciphertext in the \(payloads) payloads:\n"
            out += "    no title, body, sender or conversation id.\n"
        }
        if !failed.isEmpty {
            out += "  ✗ \(failed.count) of \(run.steps.count) steps did not behave as expected: "
                + failed.map(\.name).joined(separator: ", ") + "\n"
        }
        if workspace.isTemporary {
            out += "  The temporary directory was removed. Keep the files with: pushseal demo --dir <dir>\n"
        } else {
            out += "  Files kept in \(workspace.root). Look at a payload as Apple would, without a key:\n"
            out += "    pushseal inspect \(workspace.path(DemoWorkspace.payloads))/01-chat-message.apns.json\n"
            out += "  The provider's keys (metadata only, never the keys):\n"
            out += "    pushseal store list --dir \(workspace.path(DemoWorkspace.providerStore))"
                + " --master-key-file \(workspace.path(DemoWorkspace.providerMasterKey))\n"
        }
        return out
    }

    static func row(_ label: String, _ value: String, indent: Int) -> String {
        String(repeating: " ", count: indent) + label
            + String(repeating: " ", count: max(1, labelWidth - label.count)) + value + "\n"
    }
}

/// Number and text formatting shared by the demo's reports.
enum DemoFormat {
    /// `4,096`.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return value < 0 ? "-" + out : out
    }

    /// `  529 / 4,096 bytes`, the first number right-aligned to the limit's width.
    static func size(_ count: Int, of limit: Int) -> String {
        let used = grouped(count), total = grouped(limit)
        return String(repeating: " ", count: max(0, total.count - used.count)) + "\(used) / \(total) bytes"
    }

    /// What the notification shows: `“title” “body”`, with a long body shortened for the screen.
    static func shown(_ result: ReceivedNotification) -> String {
        var parts: [String] = []
        if let title = result.title { parts.append("“\(title.unlocalizedText)”") }
        if let subtitle = result.subtitle { parts.append("“\(subtitle.unlocalizedText)”") }
        parts.append("“\(abbreviated(result.body.unlocalizedText))”")
        var text = parts.joined(separator: " · ")
        if let sender = result.sender, result.outcome == .decrypted {
            text += " · sender \(sender.name ?? "?") (\(sender.id))"
        }
        switch result.textSource {
        case .content: break
        case .payloadPlaceholder: text += " (the payload's placeholder)"
        case .appFallback: text += " (the app's fallback text)"
        }
        return text
    }

    /// At most `limit` characters (grapheme clusters) of `text`, then ` […]`.
    static func abbreviated(_ text: String, limit: Int = 72) -> String {
        text.count <= limit ? text : String(text.prefix(limit)) + " […]"
    }
}
